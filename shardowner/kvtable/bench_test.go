package kvtable

import (
	"fmt"
	"golang.org/x/sys/unix"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// appendKey16 appends the key fmt's "k%015d" makes of i, without the
// allocation boxing i costs fmt.
func appendKey16(dst []byte, i int) []byte {
	dst = append(dst, "k000000000000000"...)
	for j := len(dst) - 1; i > 0; j-- {
		dst[j] = byte('0' + i%10)
		i /= 10
	}
	return dst
}

// keys16 returns n distinct 16-byte keys.
func keys16(n, offset int) [][]byte {
	ks := make([][]byte, n)
	buf := make([]byte, 0, 16*n)
	for i := range ks {
		buf = fmt.Appendf(buf, "k%015d", i+offset)
		ks[i] = buf[len(buf)-16:]
	}
	return ks
}

var val16 = []byte("vvvvvvvvvvvvvvvv")

const benchKeys = 1 << 20

func loaded(n int) (*Table, [][]byte) { return loadedWith(n, nil) }

// loadedWith is loaded on a table that tracks access per acc (nil: none).
func loadedWith(n int, acc *Access) (*Table, [][]byte) {
	tb := NewTable(&Clock{Ms: 1})
	tb.TrackAccess(acc)
	ks := keys16(n, 0)
	for _, k := range ks {
		tb.SetString(k, val16, 0)
	}
	for tb.rehashing() {
		tb.Tick()
	}
	return tb, ks
}

func BenchmarkGetHit(b *testing.B) {
	tb, ks := loaded(benchKeys)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := tb.Get(ks[i&(benchKeys-1)]); !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkGetMiss(b *testing.B) {
	tb, _ := loaded(benchKeys)
	miss := keys16(benchKeys, benchKeys)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := tb.Get(miss[i&(benchKeys-1)]); ok {
			b.Fatal("hit")
		}
	}
}

func BenchmarkSetNew(b *testing.B) {
	ks := keys16(4<<20, 0)
	b.ReportAllocs()
	b.ResetTimer()
	tb := NewTable(&Clock{Ms: 1})
	for i := 0; b.Loop(); i++ {
		if i == len(ks) {
			b.StopTimer()
			tb = NewTable(&Clock{Ms: 1})
			i = 0
			b.StartTimer()
		}
		tb.SetString(ks[i], val16, 0)
	}
}

func BenchmarkSetOverwrite(b *testing.B) {
	tb, ks := loaded(benchKeys)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tb.SetString(ks[i&(benchKeys-1)], val16, 0)
	}
}

func BenchmarkIncr(b *testing.B) {
	tb, ks := loaded(benchKeys)
	for _, k := range ks {
		tb.SetInt(k, 0, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := tb.AddInt(ks[i&(benchKeys-1)], 1); !ok {
			b.Fatal("AddInt refused")
		}
	}
}

// The benchmarks of a table that tracks access: Get, overwrite and INCR
// each update a key's access data, a new key sets it.

var (
	benchLRU = &Access{}
	benchLFU = &Access{LFU: true, LogFactor: 10, DecayMinutes: 1}
)

func BenchmarkGetHitTracked(b *testing.B) {
	for _, c := range []struct {
		name string
		acc  *Access
	}{{"LRU", benchLRU}, {"LFU", benchLFU}} {
		b.Run(c.name, func(b *testing.B) {
			tb, ks := loadedWith(benchKeys, c.acc)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, ok := tb.Get(ks[i&(benchKeys-1)]); !ok {
					b.Fatal("miss")
				}
			}
		})
	}
}

// BenchmarkGetHitSmall is BenchmarkGetHit on a table that fits the CPU's
// caches, where what a lookup and its access update cost in instructions
// shows rather than cache misses.
func BenchmarkGetHitSmall(b *testing.B) {
	const n = 4096
	for _, c := range []struct {
		name string
		acc  *Access
	}{{"untracked", nil}, {"LRU", benchLRU}, {"LFU", benchLFU}} {
		b.Run(c.name, func(b *testing.B) {
			tb, ks := loadedWith(n, c.acc)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				if _, ok := tb.Get(ks[i&(n-1)]); !ok {
					b.Fatal("miss")
				}
			}
		})
	}
}

func BenchmarkSetNewTracked(b *testing.B) {
	ks := keys16(4<<20, 0)
	b.ReportAllocs()
	b.ResetTimer()
	m := &Meter{}
	newTable := func() *Table {
		tb := NewTable(&Clock{Ms: 1})
		tb.TrackAccess(benchLRU)
		tb.SetMeter(m)
		return tb
	}
	tb := newTable()
	for i := 0; b.Loop(); i++ {
		if i == len(ks) {
			b.StopTimer()
			tb.Clear()
			tb = newTable()
			i = 0
			b.StartTimer()
		}
		tb.SetString(ks[i], val16, 0)
	}
}

func BenchmarkSetOverwriteTracked(b *testing.B) {
	tb, ks := loadedWith(benchKeys, benchLRU)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tb.SetString(ks[i&(benchKeys-1)], val16, 0)
	}
}

func BenchmarkIncrTracked(b *testing.B) {
	tb, ks := loadedWith(benchKeys, benchLFU)
	for _, k := range ks {
		tb.SetInt(k, 0, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := tb.AddInt(ks[i&(benchKeys-1)], 1); !ok {
			b.Fatal("AddInt refused")
		}
	}
}

// BenchmarkDel deletes a key and stores it again, so the table stays the
// same size; the SET half is BenchmarkSetNew.
func BenchmarkDel(b *testing.B) {
	tb, ks := loaded(benchKeys)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := ks[i&(benchKeys-1)]
		if !tb.Delete(k) {
			b.Fatal("absent")
		}
		tb.SetString(k, val16, 0)
	}
}

func BenchmarkScanStep(b *testing.B) {
	tb, _ := loaded(benchKeys)
	n := 0
	fn := func(key []byte, v Value) { n += len(key) }
	cur := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		cur = tb.Scan(cur, 10, fn)
	}
}

func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkBytesPerKey reports the heap bytes per key of 1M keys with 16-byte
// keys and values, against map[string][]byte. It does
// its work once, whatever b.N is.
func BenchmarkBytesPerKey(b *testing.B) {
	const n = 1_000_000
	key := make([]byte, 0, 16)
	b.Run("table", func(b *testing.B) {
		{ // once, whatever b.N is
			before := heapInuse()
			tb := NewTable(&Clock{Ms: 1})
			for i := range n {
				key = fmt.Appendf(key[:0], "k%015d", i)
				tb.SetString(key, val16, 0)
			}
			b.ReportMetric(float64(heapInuse()-before)/n, "B/key")
			b.ReportMetric(float64(tb.ArenaBytes())/n, "arenaB/key")
			runtime.KeepAlive(tb)
		}
	})
	b.Run("map", func(b *testing.B) {
		{ // once, whatever b.N is
			before := heapInuse()
			m := map[string][]byte{}
			for i := range n {
				key = fmt.Appendf(key[:0], "k%015d", i)
				m[string(key)] = append([]byte(nil), val16...)
			}
			b.ReportMetric(float64(heapInuse()-before)/n, "B/key")
			runtime.KeepAlive(m)
		}
	})
}

// BenchmarkGCWith2MKeys reports how long a full runtime.GC takes with 2M keys
// live in a Table and in a map[string][]byte. It does its work once, whatever
// b.N is.
func BenchmarkGCWith2MKeys(b *testing.B) {
	const n = 2_000_000
	gcTime := func() float64 {
		runtime.GC()
		best := time.Duration(1 << 62)
		for range 5 {
			start := time.Now()
			runtime.GC()
			best = min(best, time.Since(start))
		}
		return float64(best.Microseconds()) / 1000
	}
	key := make([]byte, 0, 16)
	b.Run("table", func(b *testing.B) {
		{ // once, whatever b.N is
			tb := NewTable(&Clock{Ms: 1})
			for i := range n {
				key = fmt.Appendf(key[:0], "k%015d", i)
				tb.SetString(key, val16, 0)
			}
			b.ReportMetric(gcTime(), "ms/gc")
			runtime.KeepAlive(tb)
		}
	})
	b.Run("map", func(b *testing.B) {
		{ // once, whatever b.N is
			m := map[string][]byte{}
			for i := range n {
				key = fmt.Appendf(key[:0], "k%015d", i)
				m[string(key)] = append([]byte(nil), val16...)
			}
			b.ReportMetric(gcTime(), "ms/gc")
			runtime.KeepAlive(m)
		}
	})
}

// Reference points: the same loops on a map[string][]byte.

func BenchmarkMapGetHit(b *testing.B) {
	ks := keys16(benchKeys, 0)
	m := make(map[string][]byte)
	for _, k := range ks {
		m[string(k)] = append([]byte(nil), val16...)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, ok := m[string(ks[i&(benchKeys-1)])]; !ok {
			b.Fatal("miss")
		}
	}
}

func BenchmarkMapSetNew(b *testing.B) {
	ks := keys16(4<<20, 0)
	b.ReportAllocs()
	b.ResetTimer()
	m := make(map[string][]byte)
	for i := 0; b.Loop(); i++ {
		if i == len(ks) {
			b.StopTimer()
			m = make(map[string][]byte)
			i = 0
			b.StartTimer()
		}
		m[string(ks[i])] = append([]byte(nil), val16...)
	}
}

// BenchmarkWorstSetLatency loads 10M keys one SET at a time, then deletes
// them all, so that the table grows and shrinks through every size. It
// reports, per phase (set-, del-), the slowest single operation by the wall
// clock, how many took over 1 ms, and the page faults the thread took.
// On a shared or virtual machine the wall clock also counts time
// the thread was not running, so it reads the thread's CPU time (user +
// system) and minor page faults every 64 operations, and reports the most
// CPU time any run of 64 operations took: no single operation kept a shard
// busy longer. That figure is given twice: over all runs, and over the runs
// without a page fault, which is the table's own work (the first touch of
// fresh memory costs what the kernel, and a hypervisor under it, make it
// cost). Every 100,000 operations it runs the table's Tick, as the shard's
// timer would, and counts it with the operation after it. A shard runs a
// pipelining client's commands in turns of thousands, so it also reports the
// slowest run of turnOps consecutive operations (-worst-turn-µs): work that
// is cheap per operation but comes in bursts (say, every insert after a
// resize starts touching fresh memory) shows there. It runs once, whatever
// b.N is, and needs about 1 GiB.
func BenchmarkWorstSetLatency(b *testing.B) {
	const n = 10_000_000
	const batch = 64
	const tickEvery = 100_000 // about the 100 ms of the shard's timer at 10 Hz
	const turnOps = 2048      // 50 clients with 40 commands each in flight
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	threadCPU := func() (time.Duration, int64) {
		var ts unix.Timespec
		var ru unix.Rusage
		if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
			b.Fatal(err)
		}
		if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(ts.Nano()), ru.Minflt
	}
	key := make([]byte, 0, 16)
	{ // once, whatever b.N is
		tb := NewTable(&Clock{Ms: 1})
		// phaseStats is what a phase reports under its own name: the
		// slowest operation, how many took over 1 ms, and the page faults
		// the thread took (each may stall it, the more so on a VM).
		type phaseStats struct {
			worst     time.Duration
			over      int
			faults    int64
			worstTurn time.Duration
		}
		var worstCPU, worstNoFault time.Duration
		faultRuns := 0
		phase := func(op func()) (ps phaseStats) {
			cpu0, flt0 := threadCPU()
			first := flt0
			turnStart := time.Now()
			for i := range n {
				key = appendKey16(key[:0], i)
				start := time.Now()
				if i%tickEvery == 0 {
					tb.Tick() // as the shard's timer would, between turns
				}
				op()
				d := time.Since(start)
				ps.worst = max(ps.worst, d)
				if d > time.Millisecond {
					ps.over++
				}
				if i%turnOps == turnOps-1 {
					end := time.Now()
					ps.worstTurn = max(ps.worstTurn, end.Sub(turnStart))
					turnStart = end
				}
				if i%batch == batch-1 {
					cpu, flt := threadCPU()
					worstCPU = max(worstCPU, cpu-cpu0)
					if flt == flt0 {
						worstNoFault = max(worstNoFault, cpu-cpu0)
					} else {
						faultRuns++
					}
					cpu0, flt0 = cpu, flt
				}
			}
			_, last := threadCPU()
			ps.faults = last - first
			return ps
		}
		if allocs := testing.AllocsPerRun(1, func() { key = appendKey16(key[:0], 12345) }); allocs != 0 || string(key) != "k000000000012345" {
			b.Fatalf("appendKey16: %q, %v allocs", key, allocs)
		}
		set := phase(func() { tb.SetString(key, val16, 0) })
		if tb.Len() != n {
			b.Fatalf("%d keys after loading %d", tb.Len(), n)
		}
		del := phase(func() { tb.Delete(key) })
		if tb.Len() != 0 {
			b.Fatalf("%d keys after deleting all", tb.Len())
		}
		for _, p := range []struct {
			name string
			ps   phaseStats
		}{{"set", set}, {"del", del}} {
			b.ReportMetric(float64(p.ps.worst.Microseconds()), p.name+"-worst-µs")
			b.ReportMetric(float64(p.ps.over), p.name+"-ops>1ms")
			b.ReportMetric(float64(p.ps.faults), p.name+"-faults")
			b.ReportMetric(float64(p.ps.worstTurn.Microseconds()), p.name+"-worst-turn-µs")
		}
		b.ReportMetric(float64(worstCPU.Microseconds()), "worst-cpu-µs/64ops")
		b.ReportMetric(float64(worstNoFault.Microseconds()), "worst-cpu-µs/64ops-no-fault")
		b.ReportMetric(float64(faultRuns)/float64(2*n/batch)*100, "%runs-with-fault")
		runtime.KeepAlive(tb)
	}
}

// BenchmarkTouchBatch16 looks up 16 random keys of an 8M-key table, as a
// shard runs the GETs of one pipelined read, three ways: without touching,
// touching with the hashing and the loads in one loop, and touching with the
// hashes computed in a pass of their own (what the reactor does). It reports
// ns per key; the table is loaded once and needs about 1 GiB.
func BenchmarkTouchBatch16(b *testing.B) {
	const n = 8_000_000
	tb := NewTable(&Clock{Ms: 1})
	buf := make([]byte, 0, 16*n)
	keys := make([][]byte, n)
	for i := range keys {
		buf = appendKey16(buf, i)
		keys[i] = buf[len(buf)-16:]
		tb.SetString(keys[i], val16, 0)
	}
	for tb.rehashing() {
		tb.Tick()
	}
	r := rand.New(rand.NewPCG(1, 2))
	idx := make([]int, 1<<16)
	for i := range idx {
		idx[i] = r.IntN(n)
	}
	var hs [16]uint64
	var sink uint64
	for _, mode := range []string{"none", "one-loop", "hash-first"} {
		b.Run(mode, func(b *testing.B) {
			p := 0
			for b.Loop() {
				batch := idx[p : p+16]
				p = (p + 16) & (len(idx) - 1)
				switch mode {
				case "one-loop":
					for i, k := range batch {
						hs[i] = tb.Hash(keys[k]) | 1
						sink += tb.TouchBucket(hs[i])
					}
					for i := range batch {
						sink += tb.TouchEntry(hs[i])
					}
				case "hash-first":
					for i, k := range batch {
						hs[i] = tb.Hash(keys[k]) | 1
					}
					for i := range batch {
						sink += tb.TouchBucket(hs[i])
					}
					for i := range batch {
						sink += tb.TouchEntry(hs[i])
					}
				}
				for _, k := range batch {
					v, ok := tb.Get(keys[k])
					if !ok {
						b.Fatal("miss")
					}
					sink += uint64(len(v.Str))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*16), "ns/key")
		})
	}
	runtime.KeepAlive(sink)
}

// touchPass touches keys as the reactor's read-ahead does: their hashes
// first (kept in hs), then their buckets, then their entries.
func touchPass(tb *Table, keys [][]byte, hs []uint64) uint64 {
	var sink uint64
	for i, k := range keys {
		hs[i] = tb.Hash(k) | 1
	}
	for i := range keys {
		sink += tb.TouchBucket(hs[i])
	}
	for i := range keys {
		sink += tb.TouchEntry(hs[i])
	}
	return sink
}

// benchBatches64 runs op on reqs (a power of two of them) in pipelines of
// 64, with and without the touch pass before each, and reports ns per key.
func benchBatches64(b *testing.B, tb *Table, reqs [][]byte, op func([]byte)) {
	var hs [64]uint64
	var sink uint64
	for _, touch := range []bool{false, true} {
		b.Run(map[bool]string{false: "none", true: "touch"}[touch], func(b *testing.B) {
			p := 0
			for b.Loop() {
				batch := reqs[p : p+64]
				p = (p + 64) & (len(reqs) - 1)
				if touch {
					sink += touchPass(tb, batch, hs[:])
				}
				for _, k := range batch {
					op(k)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*64), "ns/key")
		})
	}
	runtime.KeepAlive(sink)
}

// BenchmarkTouchSet64 is a pipeline of 64 SADDs of members a set of 100k
// already has, as the shard runs them: hashes, then the touches of the
// buckets and the entries, then the lookups; and, for comparison, the
// lookups alone. The members come in order from one buffer, as from a
// request. It reports ns per member.
func BenchmarkTouchSet64(b *testing.B) {
	const n = 100_000
	tb := NewTable(&Clock{Ms: 1})
	for i := range n {
		tb.SetString([]byte("counter:"+strconv.Itoa(100_000_000_000+i)), nil, 0)
	}
	for tb.rehashing() {
		tb.Tick()
	}
	r := rand.New(rand.NewPCG(1, 2))
	reqs := make([][]byte, 1<<16)
	var buf []byte
	for range reqs {
		buf = strconv.AppendInt(buf, int64(100_000_000_000+r.IntN(n)), 10)
	}
	for i := range reqs {
		reqs[i] = append([]byte("counter:"), buf[12*i:12*i+12]...)
	}
	benchBatches64(b, tb, reqs, func(m []byte) {
		if added, _ := tb.AddMember(m); added {
			b.Fatal("added")
		}
	})
}

// BenchmarkTouchIncr64 is redis-benchmark's INCR pipeline as the shard runs
// it: 64 counters of 100k, touched as touchKeys does, then added to in
// place; and the same without the touches. It reports ns per key.
func BenchmarkTouchIncr64(b *testing.B) {
	const n = 100_000
	tb := NewTable(&Clock{Ms: 1})
	for i := range n {
		tb.SetInt([]byte("counter:"+strconv.Itoa(100_000_000_000+i)), 1, 0)
	}
	for tb.rehashing() {
		tb.Tick()
	}
	r := rand.New(rand.NewPCG(1, 2))
	reqs := make([][]byte, 1<<16)
	for i := range reqs {
		reqs[i] = []byte("counter:" + strconv.Itoa(100_000_000_000+r.IntN(n)))
	}
	benchBatches64(b, tb, reqs, func(k []byte) {
		if _, ok := tb.AddInt(k, 1); !ok {
			b.Fatal("not added")
		}
	})
}
