package kvtable

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mappedBytes is the address space of the spans carved so far.
func (p *blockPool) mappedBytes() int { return len(p.byBase) * spanBytes }

func TestBlockPool(t *testing.T) {
	var p blockPool
	defer p.release()
	// A freed block is kept warm, handed out again first, and cleared.
	b := p.get(true)
	blockWords(b)[100] = 7
	p.put(b)
	if p.warm != 1 {
		t.Fatalf("%d warm blocks after one put", p.warm)
	}
	if again := p.get(true); again != b || blockWords(again)[100] != 0 || p.warm != 0 {
		t.Fatalf("warm block not reused and cleared: %p vs %p, word %d", again, b, blockWords(again)[100])
	}
	p.put(b)
	const n = 3*spanBlocks + 5
	blocks := make([]unsafe.Pointer, n)
	for i := range blocks {
		b := p.get(true)
		if uintptr(b)%blockBytes != 0 {
			t.Fatalf("block %d at %#x is not aligned", i, uintptr(b))
		}
		w := blockWords(b)
		if w[0] != 0 || w[len(w)-1] != 0 {
			t.Fatalf("block %d is not zeroed", i)
		}
		w[0], w[len(w)-1] = uint64(i)+1, uint64(i)+1
		blocks[i] = b
	}
	for i, b := range blocks {
		if w := blockWords(b); w[0] != uint64(i)+1 || w[len(w)-1] != uint64(i)+1 {
			t.Fatalf("block %d overwritten by another", i)
		}
	}
	if err := p.checkErr(); err != nil {
		t.Fatal(err)
	}
	if p.inUse != n || p.mappedBytes() != 4*spanBytes {
		t.Fatalf("in use %d, mapped %d", p.inUse, p.mappedBytes())
	}
	rand.New(rand.NewPCG(3, 4)).Shuffle(n, func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
	for _, b := range blocks[:n-1] {
		p.put(b)
	}
	// Freed blocks stay warm until decay gives all but warmFloor back.
	if p.inUse != 1 || p.warm != n-1 {
		t.Fatalf("after freeing all but one: in use %d, warm %d", p.inUse, p.warm)
	}
	if ticks := decayUntilJob(&p); ticks < 0 {
		t.Fatal("decay started no job")
	}
	p.settle()
	if err := p.checkErr(); err != nil {
		t.Fatal(err)
	}
	if p.warm != warmFloor {
		t.Fatalf("%d warm blocks after settling, want %d", p.warm, warmFloor)
	}
	// Every block is handed out again, zeroed, warm ones first, without
	// mapping more.
	for i := range n {
		b := p.get(true)
		if w := blockWords(b); w[0] != 0 || w[len(w)-1] != 0 {
			t.Fatalf("reused block %d is not zeroed", i)
		}
		if i < warmFloor && p.warm != warmFloor-1-i {
			t.Fatalf("block %d: warm blocks not handed out first (%d warm left)", i, p.warm)
		}
		blocks[i] = b
	}
	if err := p.checkErr(); err != nil {
		t.Fatal(err)
	}
	if p.mappedBytes() != 4*spanBytes || p.inUse != n+1 {
		t.Fatalf("in use %d, mapped %d", p.inUse, p.mappedBytes())
	}
	again := blocks[0]
	p.put(again)
	defer func() {
		if recover() == nil {
			t.Fatal("freeing a block twice did not panic")
		}
	}()
	p.put(again)
}

func vmRSS(tb testing.TB) int {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		tb.Skip("no /proc/self/status")
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:")); ok {
			kb, _ := strconv.Atoi(string(bytes.TrimSpace(bytes.TrimSuffix(v, []byte("kB")))))
			return kb << 10
		}
	}
	tb.Skip("no VmRSS")
	return 0
}

// TestOffHeap checks that a big table's memory is almost all outside the Go
// heap, and that deleting its keys or clearing it gives the memory back to
// the kernel.
func TestOffHeap(t *testing.T) {
	const n = 300_000
	val := []byte("0123456789abcdef")
	debug.FreeOSMemory()
	rss0, heap0 := vmRSS(t), heapInuse()
	tb := NewTable(&Clock{})
	for i := range n {
		tb.SetString(k(i), val, int64(1e15+i))
	}
	tb.check(t)
	debug.FreeOSMemory()
	rss1, heap1 := vmRSS(t), heapInuse()
	grew := rss1 - rss0
	t.Logf("%d keys: RSS +%d KiB, Go heap +%d KiB, ArenaBytes %d KiB, pool blocks %d",
		n, grew>>10, int(heap1-heap0)>>10, tb.ArenaBytes()>>10, tb.pool.inUse)
	if heapGrew := int(heap1) - int(heap0); heapGrew > tb.ArenaBytes()/10 {
		t.Fatalf("Go heap grew by %d bytes for %d table bytes: the bulk should be off-heap", heapGrew, tb.ArenaBytes())
	}
	if grew < tb.ArenaBytes()/2 && !raceEnabled {
		t.Fatalf("RSS grew by %d for %d table bytes: measurement broken", grew, tb.ArenaBytes())
	}
	// The race detector keeps shadow memory of its own for what the test
	// touched, so RSS says nothing about the table there.
	rssFalls := !raceEnabled
	for i := range n {
		tb.Delete(k(i))
	}
	for tb.rehashing() {
		tb.Tick()
	}
	tb.pool.settle()
	tb.check(t)
	debug.FreeOSMemory()
	if left := vmRSS(t) - rss0; rssFalls && left > grew/4 {
		t.Fatalf("after deleting every key RSS is still %d KiB above the start (grew %d KiB)", left>>10, grew>>10)
	}
	for i := range n {
		tb.SetString(k(i), val, 0)
	}
	tb.Clear()
	tb.check(t)
	if tb.pool.mappedBytes() != 0 {
		t.Fatalf("Clear left %d bytes mapped", tb.pool.mappedBytes())
	}
	// A job giving blocks back or faulting them in may still have been
	// running; Clear then leaves the unmap to a goroutine that waits for it.
	unmapping.Wait()
	debug.FreeOSMemory()
	if left := vmRSS(t) - rss0; rssFalls && left > grew/4 {
		t.Fatalf("after Clear RSS is still %d KiB above the start (grew %d KiB)", left>>10, grew>>10)
	}
}

// TestDecayAndReuse frees most of a big table, lets Tick give the freed
// blocks back while the table keeps being written, then fills it again,
// so that blocks given back (and read as zeros) and warm blocks (cleared on
// reuse) both hold live entries and index chunks; every key must read back.
func TestDecayAndReuse(t *testing.T) {
	const n = 200_000
	tb := NewTable(&Clock{Ms: 1})
	val := func(i int) []byte { return []byte("value-" + strconv.Itoa(i*7919)) }
	for i := range n {
		tb.SetString(k(i), val(i), 0)
	}
	order := rand.New(rand.NewPCG(5, 6)).Perm(n)
	for j, i := range order[:n*9/10] {
		tb.Delete(k(i))
		if j%5000 == 0 {
			tb.Tick()
		}
	}
	released := false
	for range 200 {
		tb.Tick()
		if tb.pool.inFlight {
			released = true
		}
		if tb.pool.warm <= warmFloor && !tb.pool.inFlight && !tb.rehashing() {
			break
		}
		time.Sleep(time.Millisecond)
	}
	tb.pool.settle()
	if !released || tb.pool.warm > warmFloor {
		t.Fatalf("Tick gave nothing back (released %v, %d warm blocks)", released, tb.pool.warm)
	}
	tb.check(t)
	for i := n; i < 2*n; i++ {
		tb.SetString(k(i), val(i), 0)
		if i%20000 == 0 {
			tb.Tick()
		}
	}
	tb.pool.settle()
	tb.check(t)
	live := append(order[n*9/10:], make([]int, 0, n)...)
	for i := n; i < 2*n; i++ {
		live = append(live, i)
	}
	for _, i := range live {
		v, ok := tb.Get(k(i))
		if !ok || string(v.Str) != string(val(i)) {
			t.Fatalf("key %d: %q %v, want %q", i, v.Str, ok, val(i))
		}
	}
	if tb.Len() != len(live) {
		t.Fatalf("Len %d, want %d", tb.Len(), len(live))
	}
}

// TestNoDecayWhileGrowing checks that a pool keeps its warm blocks while it
// grows and while it hands blocks out at a rate, and gives them back once it
// has been quiet for a while.
func TestNoDecayWhileGrowing(t *testing.T) {
	var p blockPool
	defer p.release()
	bs := make([]unsafe.Pointer, 4*spanBlocks)
	for i := range bs {
		bs[i] = p.get(true)
	}
	p.decay()
	for _, b := range bs[:3*spanBlocks] {
		p.put(b)
	}
	ticks := decayUntilJob(&p)
	if ticks < 2 {
		t.Fatalf("a pool that just handed out %d blocks gave warm ones back after %d Ticks", len(bs), ticks)
	}
	p.settle()
	for i := range 2 * spanBlocks {
		bs[i] = p.get(true)
	}
	for _, b := range bs[:spanBlocks] {
		p.put(b)
	}
	if p.warm <= warmFloor {
		t.Fatalf("%d warm blocks, the test needs more than %d", p.warm, warmFloor)
	}
	p.decay()
	if p.inFlight {
		t.Fatal("a growing pool gave blocks back")
	}
	if decayUntilJob(&p) < 0 {
		t.Fatal("a pool that stopped growing never gave blocks back")
	}
	p.settle()
	if err := p.checkErr(); err != nil {
		t.Fatal(err)
	}
}

// mincore sets vec[i]&1 when page i of the n bytes at b is resident.
func mincore(b unsafe.Pointer, n int, vec []byte) error {
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(b), uintptr(n), uintptr(unsafe.Pointer(unsafe.SliceData(vec))))
	if errno != 0 {
		return errno
	}
	return nil
}

// residentBlocks counts the blocks of p's regions that have a page resident.
func residentBlocks(tb testing.TB, p *blockPool) int {
	n := 0
	for k, r := range p.regions {
		size := regionSpans(k) * spanBytes
		vec := make([]byte, size/osPageBytes)
		if err := mincore(r, size, vec); err != nil {
			tb.Skip("mincore:", err)
		}
		for b := 0; b < len(vec); b += blockBytes / osPageBytes {
			if slices.ContainsFunc(vec[b:b+blockBytes/osPageBytes], func(v byte) bool { return v&1 != 0 }) {
				n++
			}
		}
	}
	return n
}

// TestFaultAhead checks that a pool of a span or more keeps the next
// aheadBlocks blocks it will hand out faulted in, and no more than that:
// memory resident past the blocks in use stays within aheadBlocks (a small
// pool has none), while the blocks the shard takes next are resident.
func TestFaultAhead(t *testing.T) {
	var p blockPool
	use := func(b unsafe.Pointer) {
		for off := 0; off < blockBytes; off += osPageBytes {
			*(*byte)(unsafe.Add(b, off)) = 1
		}
	}
	defer p.release()
	// wait lets the job in flight finish, so that the next handout starts
	// one for the whole window.
	wait := func() {
		if p.filling {
			<-p.filled
			p.filling = false
		}
	}
	for _, n := range []int{spanBlocks / 2, 2*spanBlocks - 2, 3*spanBlocks + 5} {
		for p.inUse < n-1 {
			use(p.get(false))
		}
		wait()
		last := p.get(false)
		use(last)
		if err := p.checkErr(); err != nil {
			t.Fatal(err)
		}
		want := 0
		if n >= spanBlocks {
			want = aheadBlocks
		}
		if p.ahead != want {
			t.Fatalf("%d blocks in use, %d faulted in ahead; want %d", n, p.ahead, want)
		}
		wait()
		res := residentBlocks(t, &p)
		if res > p.inUse+p.ahead {
			t.Fatalf("%d blocks in use, %d resident; want at most %d more", p.inUse, res, p.ahead)
		}
		// The next blocks come from those faulted in, which
		// MADV_POPULATE_WRITE (Linux 5.14) has made resident.
		if res < p.inUse+p.ahead {
			continue
		}
		for range want {
			b := p.get(false)
			vec := make([]byte, blockBytes/osPageBytes)
			if err := mincore(b, blockBytes, vec); err != nil {
				t.Fatal(err)
			}
			if slices.Contains(vec, 0) {
				t.Fatalf("block %p after %p handed out not resident", b, last)
			}
			use(b)
			last = b
		}
	}
}

// decayUntilJob calls decay, as an idle table's Ticks would, until it starts
// a job; it returns how many calls that took, -1 if none did within 200.
func decayUntilJob(p *blockPool) int {
	for i := 1; i <= 200; i++ {
		p.decay()
		if p.inFlight {
			return i
		}
	}
	return -1
}

// TestBlockPoolRandom runs random gets, puts and decays against the pool and
// checks that no block is handed out twice, that every block handed out reads
// as zeros, that a block's bytes stay its owner's, and that the counters
// agree with the bitmaps throughout.
func TestBlockPoolRandom(t *testing.T) {
	var p blockPool
	defer p.release()
	rng := rand.New(rand.NewPCG(7, 8))
	held := map[unsafe.Pointer]uint64{} // block -> the stamp written in it
	var order []unsafe.Pointer
	stamp := uint64(0)
	jobs := 0
	for op := range 20_000 {
		switch r := rng.IntN(100); {
		case r < 50 || len(order) == 0:
			b := p.get(rng.IntN(2) == 0)
			if _, dup := held[b]; dup {
				t.Fatalf("op %d: block %p handed out twice", op, b)
			}
			w := blockWords(b)
			if w[0] != 0 || w[len(w)/2] != 0 || w[len(w)-1] != 0 {
				t.Fatalf("op %d: block %p handed out dirty", op, b)
			}
			stamp++
			w[0], w[len(w)/2], w[len(w)-1] = stamp, stamp, stamp
			held[b] = stamp
			order = append(order, b)
		case r < 95:
			i := rng.IntN(len(order))
			b := order[i]
			order[i] = order[len(order)-1]
			order = order[:len(order)-1]
			if w := blockWords(b); w[0] != held[b] || w[len(w)/2] != held[b] || w[len(w)-1] != held[b] {
				t.Fatalf("op %d: block %p lost its bytes", op, b)
			}
			delete(held, b)
			p.put(b)
		case r < 99:
			p.decay()
			if p.inFlight {
				jobs++
			}
		default:
			p.settle()
		}
		if op%500 == 0 {
			if err := p.checkErr(); err != nil {
				t.Fatalf("op %d: %v", op, err)
			}
		}
	}
	p.settle()
	if err := p.checkErr(); err != nil {
		t.Fatal(err)
	}
	if p.inUse != len(held) {
		t.Fatalf("pool counts %d in use, the test holds %d", p.inUse, len(held))
	}
	if jobs == 0 {
		t.Fatal("decay never gave blocks back: the test did not reach the path it is for")
	}
	t.Logf("%d blocks held at the end, %d decay jobs", len(held), jobs)
}

// TestGiveBackRuns: giveBack joins adjacent blocks into one madvise call,
// and the calls cover exactly the blocks it was given, in any order and
// across burst boundaries, never a neighbour.
func TestGiveBackRuns(t *testing.T) {
	var p blockPool
	defer p.release()
	const n = 2*spanBlocks + 3
	all := make([]unsafe.Pointer, n)
	for i := range all {
		all[i] = p.get(true)
		w := blockWords(all[i])
		for j := range w {
			w[j] = uint64(i + 1)
		}
	}
	// Runs of several lengths, some longer than a burst, with gaps.
	give := map[int]bool{}
	for _, r := range [][2]int{{0, 3}, {4, 5}, {7, 7 + 2*giveBackBurst + 1}, {spanBlocks - 2, spanBlocks + 2}, {n - 1, n}} {
		for i := r[0]; i < r[1]; i++ {
			give[i] = true
		}
	}
	var job []unsafe.Pointer
	for i := range give { // map order: shuffled
		job = append(job, all[i])
	}
	done := make(chan []unsafe.Pointer, 1)
	giveBack(job, done)
	if got := <-done; len(got) != len(give) {
		t.Fatalf("giveBack reported %d blocks of %d", len(got), len(give))
	}
	for i, b := range all {
		w := blockWords(b)
		want := uint64(i + 1)
		if give[i] {
			want = 0
		}
		if w[0] != want || w[len(w)-1] != want {
			t.Fatalf("block %d (given back %v): words %d..%d, want %d", i, give[i], w[0], w[len(w)-1], want)
		}
	}
}

// TestEachRun checks how a give-back job is cut into madvise calls: adjacent
// blocks share a call, a gap or a burst's end starts a new one, and only the
// first call of each later burst pauses before it.
func TestEachRun(t *testing.T) {
	mem := make([]byte, (8+giveBackBurst)*blockBytes) // addresses only: eachRun reads no block
	base := uintptr(unsafe.Pointer(&mem[0]))
	blk := func(i int) unsafe.Pointer { return unsafe.Pointer(&mem[i*blockBytes]) }
	// Blocks 0-2, 4, then 6 to 6+giveBackBurst+1 (which crosses the first
	// burst's end), handed over out of order.
	idx := []int{4, 2, 0, 1}
	for i := 6; i < 6+giveBackBurst+2; i++ {
		idx = append(idx, i)
	}
	idx[0], idx[len(idx)-1] = idx[len(idx)-1], idx[0]
	var job []unsafe.Pointer
	for _, i := range idx {
		job = append(job, blk(i))
	}
	type call struct {
		first, n int
		pause    bool
	}
	var got []call
	eachRun(job, func(first unsafe.Pointer, n int, newBurst bool) {
		got = append(got, call{int((uintptr(first) - base) / blockBytes), n, newBurst})
	})
	// The first burst holds the 8 lowest blocks: 0-2, 4, and 6-9.
	want := []call{{0, 3, false}, {4, 1, false}, {6, giveBackBurst - 4, false}, {6 + giveBackBurst - 4, 6, true}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("runs %+v, want %+v", got, want)
	}
}
