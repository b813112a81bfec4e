package kvtable

// Big, uniform pieces of a table (full arena pages, index chunks, overflow
// chunks, TTL-set chunks: 64 KiB each) live outside the Go heap, in blocks of
// anonymous memory mapped by the table itself. The collector never sees
// them, so neither the time a GC cycle takes nor how often one runs depends
// on how many keys a shard holds; the Go heap keeps only small tables, the
// first few pages of each size class, and entries over 8 KiB.
//
// Blocks are carved from 2 MiB spans aligned to 2 MiB, so that a block's
// span is found by masking its address; spans are carved from regions of
// address space mapped a few at a time. Once a pool has a span's worth of
// blocks in use, another goroutine faults in the next few blocks it will
// hand out, ahead of the shard (see fillAhead). A freed block stays
// resident ("warm") and is cleared when it is handed out again: a growing
// table reuses the blocks a resize frees without a page fault. Warm blocks
// are given back to the kernel (MADV_DONTNEED) gradually, an eighth of the
// excess per Tick, as jemalloc decays dirty pages; the excess is what is
// warm past warmFloor and past the blocks the pool handed out in its last
// keepTicks Ticks. So memory falls within seconds after mass deletes, while
// a table that grows, or frees and allocates in turn, does not fault its own
// blocks in again. A given-back block reads as zeros.
//
// Giving memory back is done by a short-lived goroutine, never by the shard
// itself, and only from the timer, a bounded job at a time: madvise must
// shoot down TLB entries on every CPU that ran the process, which on a
// virtual machine can stop the calling thread, and the CPUs it waits for,
// for milliseconds (see giveBack). Blocks being
// given back are neither free nor in use until the goroutine reports them
// done (reap). Address space is unmapped only when the whole pool is
// released.
//
// Spans are not advised to use transparent huge pages: the first touch of a
// huge page stalls the faulting thread for milliseconds on virtual machines,
// and random lookups in a large table got slower with them, not faster
// (bench/results/2026-12-01-design-measurements.md).

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	blockBytes = 64 << 10
	spanBytes  = 2 << 20
	spanBlocks = spanBytes / blockBytes // 32: a span's free blocks fit a uint32 bitmap

	osPageBytes = 4 << 10 // the smallest page size of the platforms corekv runs on

	// aheadBlocks is how many blocks past the last one handed out a pool
	// of at least a span keeps faulted in ahead. A block takes a shard
	// many writes to fill, so a few are enough to keep faults off it, and
	// what they hold beyond the blocks in use stays small.
	aheadBlocks = 4
)

// giveBack hands blocks back giveBackBurst at a time, with giveBackPause
// between bursts (see giveBack for why).
const (
	giveBackBurst = 8
	giveBackPause = 10 * time.Millisecond
)

const (
	// warmFloor is how many freed blocks (1 MiB) a pool keeps resident
	// however long it idles.
	warmFloor = 16
	// decayDiv: each Tick gives back 1/decayDiv of the warm blocks past
	// warmFloor (at least one), at most maxJob of them.
	decayDiv = 8
	maxJob   = 64
	// keepTicks: decay keeps as many warm blocks as the pool recently
	// handed out in this many Ticks.
	keepTicks = 10
)

type span struct {
	base      unsafe.Pointer
	free      uint32 // bit i set: block i is free
	warm      uint32 // bit i set: block i is free, resident, and holds old bytes
	releasing uint32 // bit i set: block i is being given back to the kernel
	ahead     uint32 // bit i set: block i is free, not warm, and faulted in ahead
	partial   int32  // position in blockPool.partial, -1 if not there
}

// blockPool hands out 64 KiB zeroed blocks. Like the table that owns it (and
// the pages' table of its Order, which shares it), it is used by one
// goroutine at a time.
type blockPool struct {
	spans   []span
	byBase  map[uintptr]int32 // span base address -> index in spans
	partial []int32           // spans with a free block
	inUse   int               // blocks handed out
	warm    int               // warm blocks over all spans
	// ahead counts the blocks faulted in ahead: those of the spans, and
	// nextAhead at the head of the span to be carved next.
	ahead, nextAhead int
	filling          bool          // a fillAhead job is running
	filled           chan struct{} // where it reports done

	regions    []unsafe.Pointer // mapped address space, carved into spans
	regionUsed int              // spans carved from the last region

	inFlight bool                  // a goroutine is giving blocks back
	done     chan []unsafe.Pointer // where it reports them done

	gets int // blocks handed out since the last decay
	// recentGets is a slowly falling peak of gets per decay: the pool keeps
	// keepTicks times as many warm blocks, the ones it is likely to hand out
	// again within a second or so.
	recentGets int

	// held is the bytes the tables drawing on the pool hold, on the heap
	// and off it, which meter, when set, counts too (see Meter). Release
	// takes it off the meter; the meter stays.
	held  int64
	meter *Meter
}

// get returns a zeroed block of blockBytes bytes: a warm one if there is
// one, else one faulted in ahead, else any. With touch, a block that is not
// resident is faulted in at once, page by page (see prefault).
func (p *blockPool) get(touch bool) unsafe.Pointer {
	if len(p.partial) == 0 {
		p.mapSpan()
	}
	si := p.partial[len(p.partial)-1]
	if s := &p.spans[si]; p.warm > 0 && s.warm == 0 || p.ahead > p.nextAhead && s.warm|s.ahead == 0 {
		si = p.residentSpan(si)
	}
	s := &p.spans[si]
	pick := s.free
	if s.warm != 0 {
		pick = s.warm
	} else if s.ahead != 0 {
		pick = s.ahead
	}
	i := bits.TrailingZeros32(pick)
	bit := uint32(1) << i
	s.free &^= bit
	b := unsafe.Add(s.base, i*blockBytes)
	warm := s.warm&bit != 0
	if warm {
		s.warm &^= bit
		p.warm--
		clear(unsafe.Slice((*byte)(b), blockBytes))
	} else {
		if s.ahead&bit != 0 {
			s.ahead &^= bit
			p.ahead--
		}
		if touch {
			// Cheap if the block was faulted in ahead; the job may
			// not have reached it yet.
			prefault(b)
		}
	}
	if s.free == 0 {
		p.dropPartial(si)
	}
	p.inUse++
	p.gets++
	if !warm && p.inUse >= spanBlocks {
		p.fillAhead(si, i)
	}
	return b
}

// residentSpan returns a span with a warm block, else one with a block
// faulted in ahead, else si.
func (p *blockPool) residentSpan(si int32) int32 {
	found := si
	for _, k := range p.partial {
		s := &p.spans[k]
		if s.warm != 0 {
			return k
		}
		if s.ahead != 0 && p.spans[found].ahead == 0 {
			found = k
		}
	}
	return found
}

// fillAhead has the free blocks that follow block i of span si, up to
// aheadBlocks of them, faulted in by another goroutine, so that the shard
// finds them resident when it takes them, as it takes blocks of a span in
// order; past the end of the last span carved, it does so for the head of
// the next. Those already resident or asked for are skipped. One job runs
// at a time: while one does, the blocks it has not covered wait for the
// next handout.
func (p *blockPool) fillAhead(si int32, i int) {
	if p.filling {
		select {
		case <-p.filled:
			p.filling = false
		default:
			return
		}
	}
	var job fillJob
	s := &p.spans[si]
	end := i + 1 + aheadBlocks
	want := s.free &^ (s.warm | s.ahead) & (1<<min(end, spanBlocks) - 1) &^ (1<<(i+1) - 1)
	s.ahead |= want
	p.ahead += bits.OnesCount32(want)
	for want != 0 {
		first := bits.TrailingZeros32(want)
		n := bits.TrailingZeros32(^(want >> first))
		job.add(unsafe.Add(s.base, first*blockBytes), n)
		want &^= (1<<n - 1) << first
	}
	if end > spanBlocks && int(si) == len(p.spans)-1 {
		if head := end - spanBlocks; head > p.nextAhead {
			job.add(unsafe.Add(p.nextSpan(), p.nextAhead*blockBytes), head-p.nextAhead)
			p.ahead += head - p.nextAhead
			p.nextAhead = head
		}
	}
	if job.n == 0 {
		return
	}
	if p.filled == nil {
		p.filled = make(chan struct{}, 1)
	}
	p.filling = true
	go job.run(p.filled)
}

// fillJob is the runs of blocks one fillAhead faults in: at most one per
// block of the window, and the head of the next span.
type fillJob struct {
	runs [aheadBlocks + 1]struct {
		b unsafe.Pointer
		n int
	}
	n int
}

func (j *fillJob) add(b unsafe.Pointer, n int) {
	j.runs[j.n].b, j.runs[j.n].n = b, n
	j.n++
}

func (j fillJob) run(done chan<- struct{}) {
	for _, r := range j.runs[:j.n] {
		populate(r.b, r.n)
	}
	done <- struct{}{}
}

// put returns block b, which get handed out, to the pool. It stays warm.
func (p *blockPool) put(b unsafe.Pointer) {
	si, bit := p.locate(b)
	s := &p.spans[si]
	if (s.free|s.releasing)&bit != 0 {
		panic("kvtable: block freed twice")
	}
	p.inUse--
	s.free |= bit
	s.warm |= bit
	p.warm++
	p.addPartial(si)
}

// locate returns the index of b's span and b's bit in it.
func (p *blockPool) locate(b unsafe.Pointer) (int32, uint32) {
	si, ok := p.byBase[uintptr(b)&^(spanBytes-1)]
	if !ok {
		panic("kvtable: freeing a block the pool does not own")
	}
	return si, 1 << ((uintptr(b) - uintptr(p.spans[si].base)) / blockBytes)
}

func (p *blockPool) addPartial(si int32) {
	if s := &p.spans[si]; s.partial < 0 {
		s.partial = int32(len(p.partial))
		p.partial = append(p.partial, si)
	}
}

// decay starts giving back part of the warm blocks past warmFloor, unless a
// job is in flight. Blocks of the spans with the fewest blocks in use go
// first, so that memory comes back in whole spans where it can.
func (p *blockPool) decay() {
	p.reap()
	p.recentGets = max(p.gets, p.recentGets-(p.recentGets+decayDiv-1)/decayDiv)
	p.gets = 0
	keep := warmFloor + keepTicks*p.recentGets
	if p.inFlight || p.warm <= keep {
		// A table that has been handing blocks out (growing, or freeing
		// and allocating in turn) will take its warm blocks again soon: a
		// block given back now would fault in again under the shard, page
		// by page.
		return
	}
	n := min(max((p.warm-keep)/decayDiv, 1), maxJob)
	job := make([]unsafe.Pointer, 0, n)
	for used := 0; used < spanBlocks && len(job) < n; used++ {
		for _, si := range p.partial {
			s := &p.spans[si]
			if s.warm == 0 || spanBlocks-bits.OnesCount32(s.free) != used {
				continue
			}
			for w := s.warm; w != 0 && len(job) < n; w &= w - 1 {
				bit := w & -w
				s.free &^= bit
				s.warm &^= bit
				s.releasing |= bit
				p.warm--
				job = append(job, unsafe.Add(s.base, bits.TrailingZeros32(bit)*blockBytes))
			}
			if s.free == 0 {
				p.dropPartial(si)
				break // p.partial changed under the range
			}
			if len(job) == n {
				break
			}
		}
	}
	if p.done == nil {
		p.done = make(chan []unsafe.Pointer, 1)
	}
	p.inFlight = true
	go giveBack(job, p.done)
}

// giveBack hands blocks back to the kernel giveBackBurst at a time, pausing
// giveBackPause between bursts. The thread it runs on shares a CPU with some
// shard (every CPU corekv runs on is one), and madvise is slow enough per
// block that a whole job in one go would hold a busy shard's CPU for
// milliseconds; a burst stays under one, and a job still ends within the
// 100 ms between two Ticks.
//
// Within a burst, adjacent blocks go back in one call. Every call ends with
// a TLB flush on each CPU that runs the process, the shards' included, and on
// a virtual machine whose hypervisor shadows the guest's page tables a flush
// can hold the receiving CPU for milliseconds: fewer calls, fewer of those
// stalls. The figures behind both choices are in
// bench/results/2026-12-01-design-measurements.md.
func giveBack(blocks []unsafe.Pointer, done chan<- []unsafe.Pointer) {
	eachRun(blocks, func(first unsafe.Pointer, n int, newBurst bool) {
		if newBurst {
			time.Sleep(giveBackPause)
		}
		if err := unix.Madvise(unsafe.Slice((*byte)(first), n*blockBytes), unix.MADV_DONTNEED); err != nil {
			panic("kvtable: madvise: " + err.Error())
		}
	})
	done <- blocks
}

// eachRun sorts blocks by address, cuts them into bursts of giveBackBurst,
// and calls fn once per run of adjacent blocks within a burst: its first
// block, its length, and whether it starts a burst after the first.
func eachRun(blocks []unsafe.Pointer, fn func(first unsafe.Pointer, n int, newBurst bool)) {
	slices.SortFunc(blocks, func(a, b unsafe.Pointer) int { return cmp.Compare(uintptr(a), uintptr(b)) })
	for i := 0; i < len(blocks); {
		end := min(i+giveBackBurst, len(blocks))
		newBurst := i > 0
		for i < end {
			j := i + 1
			for j < end && uintptr(blocks[j]) == uintptr(blocks[j-1])+blockBytes {
				j++
			}
			fn(blocks[i], j-i, newBurst)
			newBurst = false
			i = j
		}
	}
}

// reap takes back the blocks of a finished job, which now read as zeros. It
// does not wait.
func (p *blockPool) reap() {
	if !p.inFlight {
		return
	}
	select {
	case blocks := <-p.done:
		p.reclaim(blocks)
	default:
	}
}

func (p *blockPool) reclaim(blocks []unsafe.Pointer) {
	p.inFlight = false
	for _, b := range blocks {
		si, bit := p.locate(b)
		s := &p.spans[si]
		s.releasing &^= bit
		s.free |= bit
		p.addPartial(si)
	}
}

// settle gives back every warm block past warmFloor, waiting for each job.
func (p *blockPool) settle() {
	p.gets, p.recentGets = 0, 0
	for {
		if p.inFlight {
			p.reclaim(<-p.done)
		}
		if p.warm <= warmFloor {
			return
		}
		p.decay()
	}
}

// regionSpans is the size of the largest region, in spans: address space is
// mapped in regions of 2, 4, 8 … 64 MiB, so that a small table maps little
// and a big one makes few mappings (every mmap and munmap takes the
// process's memory-map lock, which page faults wait on).
func regionSpans(k int) int { return 1 << min(k, 5) }

// nextSpan returns the base of the span mapSpan will carve next, mapping a
// region for it if the last one is used up.
func (p *blockPool) nextSpan() unsafe.Pointer {
	if len(p.regions) == 0 || p.regionUsed == regionSpans(len(p.regions)-1) {
		p.mapRegion()
	}
	return unsafe.Add(p.regions[len(p.regions)-1], p.regionUsed*spanBytes)
}

func (p *blockPool) mapSpan() {
	base := p.nextSpan()
	p.regionUsed++
	if p.byBase == nil {
		p.byBase = make(map[uintptr]int32)
	}
	si := int32(len(p.spans))
	ahead := uint32(1)<<p.nextAhead - 1
	p.nextAhead = 0
	p.spans = append(p.spans, span{base: base, free: 1<<spanBlocks - 1, ahead: ahead, partial: int32(len(p.partial))})
	p.partial = append(p.partial, si)
	p.byBase[uintptr(base)] = si
}

// mapRegion maps the next region, aligned to spanBytes: it maps one span
// more than it needs and unmaps the unaligned head and tail.
func (p *blockPool) mapRegion() {
	n := uintptr(regionSpans(len(p.regions))) * spanBytes
	raw, err := unix.MmapPtr(-1, 0, nil, n+spanBytes, unix.PROT_READ|unix.PROT_WRITE,
		unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		panic("kvtable: mmap: " + err.Error())
	}
	head := (spanBytes - uintptr(raw)%spanBytes) % spanBytes
	base := unsafe.Add(raw, head)
	if head > 0 {
		munmap(raw, head)
	}
	munmap(unsafe.Add(base, n), spanBytes-head)
	p.regions = append(p.regions, base)
	p.regionUsed = 0
}

func (p *blockPool) dropPartial(si int32) {
	k := p.spans[si].partial
	last := p.partial[len(p.partial)-1]
	p.partial[k] = last
	p.spans[last].partial = k
	p.partial = p.partial[:len(p.partial)-1]
	p.spans[si].partial = -1
}

// release unmaps every region, whether or not its blocks were put back: the
// table is being cleared or has become unreachable. If a job (giving blocks
// back or faulting them in) is in flight, the regions are unmapped once it is
// done, by another goroutine, so that the caller (a shard running FLUSHALL)
// does not wait for the job's pauses, and the job never touches address
// space mapped anew by someone else.
func (p *blockPool) release() { p.releaseAsync(false) }

// unmapping counts the unmaps running on goroutines of their own, so that a
// measurement of the process's memory can wait for them.
var unmapping sync.WaitGroup

// releaseAsync is release; with async the address space is unmapped by
// another goroutine, so that the caller does not wait while the kernel frees
// the pages (milliseconds per 100 MB).
func (p *blockPool) releaseAsync(async bool) {
	p.count(-int(p.held))
	meter := p.meter
	regions := p.regions
	unmap := func() {
		for k, r := range regions {
			munmap(r, uintptr(regionSpans(k))*spanBytes)
		}
	}
	switch {
	case p.inFlight || p.filling:
		var done chan []unsafe.Pointer
		var filled chan struct{}
		if p.inFlight {
			done = p.done
		}
		if p.filling {
			filled = p.filled
		}
		unmapping.Go(func() {
			if done != nil {
				<-done
			}
			if filled != nil {
				<-filled
			}
			unmap()
		})
	case async && len(regions) > 0:
		unmapping.Go(unmap)
	default:
		unmap()
	}
	*p = blockPool{meter: meter}
}

// populate faults in the n blocks at b, which the shard will take soon, from
// another thread, so that the shard finds their pages resident. It asks the
// kernel to fault pages in for writing without changing their contents
// (MADV_POPULATE_WRITE, Linux 5.14), which is safe while the shard already
// writes to them; on older kernels it does nothing.
func populate(b unsafe.Pointer, n int) {
	_ = unix.Madvise(unsafe.Slice((*byte)(b), n*blockBytes), unix.MADV_POPULATE_WRITE)
}

// prefault touches every page of block b, which is not resident, in address
// order. Index chunks are written at random places; touched here, their pages
// fault in one short run instead of one at a time in later operations, where
// on a virtual machine a fault at a random address often costs milliseconds.
// Arena pages and TTL-set chunks fill from the front, so their pages fault
// one at a time as they are reached, which spreads the cost.
func prefault(b unsafe.Pointer) {
	for off := 0; off < blockBytes; off += osPageBytes {
		*(*byte)(unsafe.Add(b, off)) = 0
	}
}

func munmap(b unsafe.Pointer, n uintptr) {
	if err := unix.MunmapPtr(b, n); err != nil {
		panic("kvtable: munmap: " + err.Error())
	}
}

// Typed views of a block.

func blockWords(b unsafe.Pointer) []uint64 { return unsafe.Slice((*uint64)(b), blockBytes/8) }

func blockU32(b unsafe.Pointer) []uint32 { return unsafe.Slice((*uint32)(b), blockBytes/4) }

func blockOf[T any](s []T) unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s)) }

// The index and TTL-wheel chunks of full size are exactly one block.
var (
	_ [blockBytes - 8*chunkWords]struct{}
	_ [8*chunkWords - blockBytes]struct{}
	_ [blockBytes - 4*segChunkWords]struct{}
	_ [4*segChunkWords - blockBytes]struct{}
)
