package router

import (
	"strconv"
	"sync"
	"testing"
)

var (
	sinkCmd   *Command
	sinkInt   int
	sinkBatch *Batch
)

func BenchmarkLookup(b *testing.B) {
	names := [][]byte{[]byte("GET"), []byte("set"), []byte("MGet"), []byte("incrbyfloat"), []byte("nosuchcmd")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sinkCmd = Lookup(names[i%len(names)])
	}
}

func BenchmarkShardOf(b *testing.B) {
	keys := [][]byte{[]byte("key:123456"), []byte("user:{42}:profile"), []byte("a"), []byte("session:0123456789abcdef")}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sinkInt = ShardOf(keys[i&3], 8)
	}
}

// BenchmarkRingPushPop is one push and one pop on the same thread: the cost
// of the ring itself with its cache lines never leaving the core.
func BenchmarkRingPushPop(b *testing.B) {
	r := NewRing(64)
	batch := new(Batch)
	b.ReportAllocs()
	for b.Loop() {
		r.Push(batch)
		sinkBatch = r.Pop()
	}
}

// BenchmarkRingCrossThread sends batches of 64 GET requests from one pinned
// thread to another and back for reuse, as a core sends a pipeline's commands
// to a peer. One op is one batch filled, sent, received and returned.
func BenchmarkRingCrossThread(b *testing.B) {
	const perBatch, pool = 64, 16
	cpuA, cpuB, pin := pinCPUs(b)
	fwd, back := NewRing(8), NewRing(pool)
	cmd := LookupString("get")
	keys := make([][][]byte, perBatch)
	for i := range keys {
		keys[i] = [][]byte{[]byte("get"), []byte("key:" + strconv.Itoa(i))}
	}
	// Fill the pool's buffers once, so the timed part runs in steady state.
	free := make([]*Batch, pool)
	for i := range free {
		free[i] = new(Batch)
		for _, argv := range keys {
			free[i].Add(cmd, 0, 2, argv, nil)
		}
	}
	n := b.N
	var wg sync.WaitGroup
	wg.Add(2)
	b.ReportAllocs()
	b.ResetTimer()
	go func() { // consumer
		defer wg.Done()
		lockTo(b, cpuB, pin)
		for got := 0; got < n; {
			batch := fwd.Pop()
			if batch == nil {
				spin(pin)
				continue
			}
			got++
			for !back.Push(batch) {
				spin(pin)
			}
		}
	}()
	go func() { // producer
		defer wg.Done()
		lockTo(b, cpuA, pin)
		for sent := 0; sent < n; sent++ {
			for len(free) == 0 {
				for batch := back.Pop(); batch != nil; batch = back.Pop() {
					free = append(free, batch)
				}
				if len(free) == 0 {
					spin(pin)
				}
			}
			batch := free[len(free)-1]
			free = free[:len(free)-1]
			batch.Reset()
			for _, argv := range keys {
				batch.Add(cmd, 0, 2, argv, nil)
			}
			for !fwd.Push(batch) {
				spin(pin)
			}
		}
	}()
	wg.Wait()
	b.StopTimer()
	if !pin {
		b.Log("fewer than two CPUs: not pinned")
	}
}

// BenchmarkBatchExecute is the owner's side of a 64-command pipeline: fill a
// batch with 64 GETs, execute it on the shard and deliver the replies into
// their slots.
func BenchmarkBatchExecute(b *testing.B) {
	const perBatch = 64
	e := newTestExec(1, false)
	cmd := LookupString("get")
	argvs := make([][][]byte, perBatch)
	slots := make([]*Slot, perBatch)
	for i := range argvs {
		key := "key:" + strconv.Itoa(i)
		if i%4 != 3 { // a quarter of the keys are missing
			e.do(0, "set "+key+" value-of-"+key)
		}
		argvs[i] = [][]byte{[]byte("get"), []byte(key)}
		slots[i] = new(Slot)
	}
	var batch Batch
	run := func() {
		batch.Reset()
		for i, argv := range argvs {
			batch.Add(cmd, 0, 2, argv, slots[i])
		}
		batch.Execute(e.shards[0], &Locks{}, noLimit)
		batch.Deliver(e)
	}
	run() // size the buffers
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
	if string(slots[0].Reply) != "$14\r\nvalue-of-key:0\r\n" || string(slots[3].Reply) != "$-1\r\n" {
		b.Fatalf("wrong replies %q %q", slots[0].Reply, slots[3].Reply)
	}
}

// BenchmarkSplitMGet10 is a 10-key MGET over 4 shards, split, run on every
// shard synchronously and combined.
func BenchmarkSplitMGet10(b *testing.B) {
	e := newTestExec(4, false)
	argv := [][]byte{[]byte("mget")}
	for i := 0; i < 10; i++ {
		key := "key:" + strconv.Itoa(i)
		if i%3 != 2 {
			e.do(0, "set "+key+" v"+strconv.Itoa(i))
		}
		argv = append(argv, []byte(key))
	}
	cmd := LookupString("mget")
	s := new(Slot)
	run := func() {
		s.Reset()
		StartSplit(e, s, cmd, 0, 2, argv)
	}
	run() // size the buffers
	b.ReportAllocs()
	for b.Loop() {
		run()
	}
	if !s.Filled || len(s.Reply) < 5 || string(s.Reply[:5]) != "*10\r\n" || e.newSlots != e.freeSlots {
		b.Fatalf("bad reply %q or slots %d/%d", s.Reply, e.newSlots, e.freeSlots)
	}
}
