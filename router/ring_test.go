package router

import (
	"encoding/binary"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestNewRingRoundsUp(t *testing.T) {
	tests := []struct{ size, want int }{
		{0, 1}, {1, 1}, {2, 2}, {3, 4}, {4, 4}, {5, 8}, {1000, 1024}, {1024, 1024},
	}
	for _, tt := range tests {
		r := NewRing(tt.size)
		if got := len(r.buf); got != tt.want {
			t.Errorf("NewRing(%d): capacity %d, want %d", tt.size, got, tt.want)
		}
		if r.mask != uint64(tt.want-1) {
			t.Errorf("NewRing(%d): mask %d, want %d", tt.size, r.mask, tt.want-1)
		}
	}
}

// seqBatch returns a batch that names its sequence number in From.
func seqBatch(n int) *Batch { return &Batch{From: n} }

func TestRingPushPop(t *testing.T) {
	r := NewRing(4)
	if !r.Empty() {
		t.Fatal("new ring is not empty")
	}
	if b := r.Pop(); b != nil {
		t.Fatalf("Pop on empty ring = %v, want nil", b)
	}
	bs := []*Batch{seqBatch(0), seqBatch(1), seqBatch(2), seqBatch(3), seqBatch(4)}
	for i := 0; i < 4; i++ {
		if !r.Push(bs[i]) {
			t.Fatalf("Push %d refused on a ring with room", i)
		}
		if r.Empty() {
			t.Fatalf("ring empty after %d pushes", i+1)
		}
	}
	if r.Push(bs[4]) {
		t.Fatal("Push accepted on a full ring")
	}
	for i := 0; i < 4; i++ {
		b := r.Pop()
		if b != bs[i] {
			t.Fatalf("Pop %d = %v, want batch %d", i, b, i)
		}
	}
	if b := r.Pop(); b != nil {
		t.Fatalf("Pop after draining = batch %d, want nil", b.From)
	}
	if !r.Empty() {
		t.Fatal("drained ring is not empty")
	}
	// Popped cells are cleared so the ring keeps no batch alive.
	for i, b := range r.buf {
		if b != nil {
			t.Errorf("cell %d still holds batch %d after pop", i, b.From)
		}
	}
}

// TestRingWraparound runs the positions many times round a small ring with
// every fill level from empty to full.
func TestRingWraparound(t *testing.T) {
	for _, size := range []int{1, 2, 4, 8} {
		r := NewRing(size)
		next, want := 0, 0
		for round := 0; round < 50; round++ {
			fill := round%size + 1
			for i := 0; i < fill; i++ {
				if !r.Push(seqBatch(next)) {
					t.Fatalf("size %d round %d: push %d refused", size, round, next)
				}
				next++
			}
			if fill == size && r.Push(seqBatch(-1)) {
				t.Fatalf("size %d round %d: push accepted on a full ring", size, round)
			}
			for i := 0; i < fill; i++ {
				b := r.Pop()
				if b == nil || b.From != want {
					t.Fatalf("size %d round %d: pop = %v, want batch %d", size, round, b, want)
				}
				want++
			}
			if r.Pop() != nil || !r.Empty() {
				t.Fatalf("size %d round %d: ring not empty after draining", size, round)
			}
		}
		if r.head.Load() != uint64(next) || r.tail.Load() != uint64(next) {
			t.Fatalf("size %d: head %d tail %d, want both %d", size, r.head.Load(), r.tail.Load(), next)
		}
	}
}

func TestRingInterleaved(t *testing.T) {
	// Keep the ring between one and three deep while the positions pass
	// several multiples of its size.
	r := NewRing(4)
	pushed, popped := 0, 0
	for pushed < 1000 {
		for r.Push(seqBatch(pushed)) {
			pushed++
			if pushed-popped == 3 {
				break
			}
		}
		for pushed-popped > 1 {
			b := r.Pop()
			if b == nil || b.From != popped {
				t.Fatalf("pop = %v, want batch %d", b, popped)
			}
			popped++
		}
	}
}

func TestRingDoesNotAllocate(t *testing.T) {
	r := NewRing(8)
	b := new(Batch)
	n := testing.AllocsPerRun(1000, func() {
		r.Push(b)
		r.Push(b)
		r.Pop()
		r.Pop()
	})
	if n != 0 {
		t.Errorf("push and pop allocate %.1f times, want 0", n)
	}
}

func TestMesh(t *testing.T) {
	const n = 4
	m := NewMesh(n, 8)
	seen := map[*Ring]bool{}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			r := m.To(i, j)
			if i == j {
				if r != nil {
					t.Errorf("To(%d, %d) is a ring, want nil", i, j)
				}
				continue
			}
			if r == nil {
				t.Fatalf("To(%d, %d) is nil", i, j)
			}
			if seen[r] {
				t.Errorf("To(%d, %d) shares a ring with another pair", i, j)
			}
			seen[r] = true
			if len(r.buf) != 8 {
				t.Errorf("To(%d, %d) holds %d, want 8", i, j, len(r.buf))
			}
		}
	}
	// A batch sent from 1 to 2 arrives on 1→2 only.
	b := seqBatch(7)
	if !m.To(1, 2).Push(b) {
		t.Fatal("push refused")
	}
	if m.To(2, 1).Pop() != nil {
		t.Fatal("batch for 1→2 came out of 2→1")
	}
	if got := m.To(1, 2).Pop(); got != b {
		t.Fatalf("To(1, 2).Pop() = %v, want the batch pushed", got)
	}
}

// pinCPUs returns two distinct CPUs this process may run on, or ok=false when
// it may run on fewer than two.
func pinCPUs(t testing.TB) (a, b int, ok bool) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Logf("sched_getaffinity: %v; not pinning", err)
		return 0, 0, false
	}
	var cpus []int
	for c := 0; c < len(set)*64 && len(cpus) < 2; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	if len(cpus) < 2 || runtime.GOMAXPROCS(0) < 2 {
		return 0, 0, false
	}
	return cpus[0], cpus[1], true
}

// lockTo locks the calling goroutine to its thread and, when pin is set,
// that thread to cpu. The goroutine must end without unlocking, so the runtime
// retires the pinned thread instead of handing it to other goroutines.
func lockTo(t testing.TB, cpu int, pin bool) {
	runtime.LockOSThread()
	if !pin {
		return
	}
	var set unix.CPUSet
	set.Set(cpu)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		t.Logf("sched_setaffinity(cpu %d): %v; running unpinned", cpu, err)
	}
}

// spin waits one round for the other side. A pinned thread gives its CPU to
// other processes with sched_yield, which returns at once on an idle CPU (a
// Go yield of a locked goroutine would cost a thread hand-off instead); an
// unpinned one may share a CPU with the other side, so it lets the runtime
// run that.
func spin(pinned bool) {
	if !pinned {
		runtime.Gosched()
		return
	}
	// Pinned threads sit on different CPUs: busy-wait a little rather than
	// sched_yield, which on a CPU shared with another busy process hands it
	// a whole time slice per empty poll.
	for i := 0; i < 256; i++ {
		spinSink.Add(0)
	}
}

// spinSink gives spin's busy loop something the compiler must keep.
var spinSink atomic.Int64

// raceBuild reports whether the test binary was built with -race.
func raceBuild() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}

// TestRingHammer sends numbered batches from one locked thread to another
// through a ring, and sends every batch back on a second ring for reuse, the
// way cores recycle the batches they sent. The receiver checks that numbers
// arrive in order with none lost or repeated, and that each batch's argument
// bytes carry the same number.
func TestRingHammer(t *testing.T) {
	total := 1_000_000
	switch {
	case testing.Short():
		total = 100_000
	case raceBuild():
		// The race detector makes every atomic access a locked one.
		total = 200_000
	}
	const pool = 16
	cpuA, cpuB, pin := pinCPUs(t)
	if !pin {
		t.Log("fewer than two CPUs: threads are locked but not pinned")
	}
	fwd, back := NewRing(8), NewRing(pool)
	cmd := LookupString("get")
	var key [8]byte

	// On a machine whose CPUs are busy with other work the pinned threads
	// get few slices; the producer then stops at the deadline and sends an
	// end marker (From = -1), so the test checks order and loss over what
	// did go through instead of timing out.
	const endMarker = -1
	deadline := 20 * time.Second
	errc := make(chan string, 1)
	received := 0
	start := time.Now()
	go func() { // consumer
		lockTo(t, cpuB, pin)
		want := 0
		for want < total {
			b := fwd.Pop()
			if b == nil {
				spin(pin)
				continue
			}
			if b.From == endMarker {
				for !back.Push(b) {
					spin(pin)
				}
				break
			}
			if b.From != want {
				errc <- "batch " + strconv.Itoa(b.From) + " arrived, want " + strconv.Itoa(want)
				return
			}
			if b.Len() != 1 || len(b.args) != 11 || int(binary.LittleEndian.Uint64(b.args[3:])) != want {
				errc <- "batch " + strconv.Itoa(want) + " carries the wrong arguments"
				return
			}
			want++
			for !back.Push(b) {
				spin(pin)
			}
		}
		received = want
		errc <- ""
	}()

	done := make(chan struct{})
	var leftFree int // batches the producer still held at the end

	go func() { // producer
		defer close(done)
		lockTo(t, cpuA, pin)
		free := make([]*Batch, 0, pool)
		for i := 0; i < pool; i++ {
			free = append(free, new(Batch))
		}
		for seq := 0; seq <= total; seq++ {
			end := seq == total || (seq%1024 == 0 && time.Since(start) > deadline)
			for len(free) == 0 {
				for b := back.Pop(); b != nil; b = back.Pop() {
					free = append(free, b)
				}
				if len(free) == 0 {
					spin(pin)
				}
			}
			b := free[len(free)-1]
			free = free[:len(free)-1]
			b.Reset()
			if end {
				if seq == total {
					// Nothing to mark: the consumer stops by count.
					free = append(free, b)
					break
				}
				b.From = endMarker
				for !fwd.Push(b) {
					spin(pin)
				}
				break
			}
			b.From = seq
			binary.LittleEndian.PutUint64(key[:], uint64(seq))
			b.Add(cmd, 0, 2, [][]byte{[]byte("get"), key[:]}, nil)
			for !fwd.Push(b) {
				spin(pin)
			}
		}
		leftFree = len(free)
	}()

	select {
	case msg := <-errc:
		if msg != "" {
			t.Fatal(msg)
		}
	case <-time.After(deadline + 40*time.Second):
		t.Fatal("hammer did not finish")
	}
	<-done
	if received < 10_000 && received < total {
		t.Fatalf("only %d batches went through in %v", received, time.Since(start))
	}
	// The consumer sent every batch back: none is lost or doubled.
	got := leftFree
	for back.Pop() != nil {
		got++
	}
	if got != pool {
		t.Fatalf("%d batches accounted for at the end, want %d", got, pool)
	}
	if !fwd.Empty() {
		t.Fatal("forward ring not empty at the end")
	}
	t.Logf("%d batches in %v (pinned: %v)", received, time.Since(start), pin)
}
