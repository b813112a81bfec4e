package kvtable

// Big, uniform pieces of a table (full arena pages, index chunks, overflow
// chunks, TTL-set chunks: 64 KiB each) live outside the Go heap, in blocks of
// anonymous memory mapped by the table itself. The collector never sees
// them, so neither the time a GC cycle takes nor how often one runs depends
// on how many keys a shard holds; the Go heap keeps only small tables, the
// first few pages of each size class, and entries over 8 KiB.
//
// Blocks are carved from 2 MiB spans aligned to 2 MiB, so that a block's
// span is found by masking its address. A freed block stays resident while
// the pool holds fewer than warmLimit such blocks, and is cleared when it is
// handed out again: a resize frees the old index's chunks while the table
// keeps growing, and reusing them warm spares a page fault per page. Past
// that limit freed blocks are given back to the kernel (MADV_DONTNEED), and
// a span with no block in use is unmapped, except one kept spare so that a
// table hovering at a span boundary does not map and unmap on every turn.
//
// Giving memory back is done by a short-lived goroutine, never by the shard:
// madvise and munmap must shoot down TLB entries on every CPU that ran the
// process, which on a virtual machine can stop the calling thread for
// milliseconds. Blocks being given back are neither free nor in use until
// the goroutine reports them done (reap); one batch is in flight at a time.

// Spans are not advised to use transparent huge pages: the first touch of a
// huge page stalls the faulting thread for milliseconds on virtual machines,
// and on the one measured (a 2-vCPU VM) random lookups in a 10M-key table got
// almost four times slower with them, not faster.

import (
	"math/bits"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	blockBytes = 64 << 10
	spanBytes  = 2 << 20
	spanBlocks = spanBytes / blockBytes // 32: a span's free blocks fit a uint32 bitmap

	osPageBytes = 4 << 10 // the smallest page size of the platforms corekv runs on
)

const (
	// warmLimit is how many freed blocks (4 MiB) a pool keeps resident.
	warmLimit = 64
	// releaseBatch is how many blocks past warmLimit wait before a
	// goroutine gives them back.
	releaseBatch = 16
)

type span struct {
	base      unsafe.Pointer
	free      uint32 // bit i set: block i is free
	warm      uint32 // bit i set: block i is free, resident, and holds old bytes
	releasing uint32 // bit i set: block i is being given back to the kernel
	partial   int32  // position in blockPool.partial, -1 if not there
}

// releaseJob is what a goroutine gives back: blocks to empty with
// MADV_DONTNEED, which the pool still owns, and spans to unmap, which it has
// already forgotten.
type releaseJob struct {
	blocks []unsafe.Pointer
	spans  []unsafe.Pointer
}

// blockPool hands out 64 KiB zeroed blocks. Like the table that owns it, it
// is used by one goroutine at a time.
type blockPool struct {
	spans   []span
	byBase  map[uintptr]int32 // span base address -> index in spans
	partial []int32           // spans with a free block
	inUse   int               // blocks handed out
	warm    int               // warm blocks over all spans

	next     releaseJob      // what the next goroutine will give back
	inFlight bool            // a goroutine is giving a job back
	done     chan releaseJob // where it reports the job done
}

// get returns a zeroed block of blockBytes bytes.
func (p *blockPool) get() unsafe.Pointer {
	p.reap()
	if len(p.partial) == 0 {
		p.mapSpan()
	}
	si := p.partial[len(p.partial)-1]
	s := &p.spans[si]
	pick := s.free
	if s.warm != 0 {
		pick = s.warm
	}
	i := bits.TrailingZeros32(pick)
	s.free &^= 1 << i
	b := unsafe.Add(s.base, i*blockBytes)
	if s.warm&(1<<i) != 0 {
		s.warm &^= 1 << i
		p.warm--
		clear(unsafe.Slice((*byte)(b), blockBytes))
	} else {
		prefault(b)
	}
	if s.free == 0 {
		p.dropPartial(si)
	}
	p.inUse++
	return b
}

// put returns block b, which get handed out, to the pool.
func (p *blockPool) put(b unsafe.Pointer) {
	p.reap()
	si, bit := p.locate(b)
	s := &p.spans[si]
	if (s.free|s.releasing)&bit != 0 {
		panic("kvtable: block freed twice")
	}
	p.inUse--
	if p.warm >= warmLimit {
		s.releasing |= bit
		p.next.blocks = append(p.next.blocks, b)
		p.launch(false)
		return
	}
	s.free |= bit
	s.warm |= bit
	p.warm++
	p.freed(si)
}

// locate returns the index of b's span and b's bit in it.
func (p *blockPool) locate(b unsafe.Pointer) (int32, uint32) {
	si, ok := p.byBase[uintptr(b)&^(spanBytes-1)]
	if !ok {
		panic("kvtable: freeing a block the pool does not own")
	}
	return si, 1 << ((uintptr(b) - uintptr(p.spans[si].base)) / blockBytes)
}

// freed files span si after blocks of it became free: on the partial list,
// or, if none of its blocks is in use and another span is spare, unmapped.
func (p *blockPool) freed(si int32) {
	s := &p.spans[si]
	if s.free == 1<<spanBlocks-1 && p.spareSpans() > 1 {
		p.unmapSpan(si)
		return
	}
	if s.partial < 0 {
		s.partial = int32(len(p.partial))
		p.partial = append(p.partial, si)
	}
}

// launch starts a goroutine on the next job, unless one is in flight or,
// when !now, the job is still small.
func (p *blockPool) launch(now bool) {
	job := p.next
	if p.inFlight || len(job.blocks)+len(job.spans) == 0 ||
		!now && len(job.blocks) < releaseBatch && len(job.spans) == 0 {
		return
	}
	if p.done == nil {
		p.done = make(chan releaseJob, 1)
	}
	p.next, p.inFlight = releaseJob{}, true
	go giveBack(job, p.done)
}

func giveBack(job releaseJob, done chan<- releaseJob) {
	for _, b := range job.blocks {
		if err := unix.Madvise(unsafe.Slice((*byte)(b), blockBytes), unix.MADV_DONTNEED); err != nil {
			panic("kvtable: madvise: " + err.Error())
		}
	}
	for _, b := range job.spans {
		munmap(b, spanBytes)
	}
	done <- job
}

// reap takes back the blocks of a finished job, which now read as zeros, and
// starts the next job if one is waiting. It does not wait.
func (p *blockPool) reap() {
	if !p.inFlight {
		return
	}
	select {
	case job := <-p.done:
		p.inFlight = false
		p.reclaim(job)
		p.launch(false)
	default:
	}
}

func (p *blockPool) reclaim(job releaseJob) {
	for _, b := range job.blocks {
		si, bit := p.locate(b)
		s := &p.spans[si]
		s.releasing &^= bit
		s.free |= bit
		p.freed(si)
	}
}

// settle gives back everything waiting and waits until nothing is in
// flight.
func (p *blockPool) settle() {
	for {
		if p.inFlight {
			p.reclaim(<-p.done)
			p.inFlight = false
		}
		if len(p.next.blocks)+len(p.next.spans) == 0 {
			return
		}
		p.launch(true)
	}
}

// spareSpans counts spans with no block in use.
func (p *blockPool) spareSpans() int {
	n := 0
	for _, si := range p.partial {
		if p.spans[si].free == 1<<spanBlocks-1 {
			n++
		}
	}
	return n
}

// mappedBytes is the address space the pool holds.
func (p *blockPool) mappedBytes() int { return len(p.byBase) * spanBytes }

func (p *blockPool) mapSpan() {
	// Map twice the span and trim it to a 2 MiB-aligned one.
	raw, err := unix.MmapPtr(-1, 0, nil, 2*spanBytes, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		panic("kvtable: mmap: " + err.Error())
	}
	head := (spanBytes - uintptr(raw)%spanBytes) % spanBytes
	base := unsafe.Add(raw, head)
	if head > 0 {
		munmap(raw, head)
	}
	munmap(unsafe.Add(base, spanBytes), spanBytes-head)
	if p.byBase == nil {
		p.byBase = make(map[uintptr]int32)
	}
	si := int32(len(p.spans))
	for k, s := range p.spans {
		if s.base == nil { // reuse the slot of an unmapped span
			si = int32(k)
			break
		}
	}
	if int(si) == len(p.spans) {
		p.spans = append(p.spans, span{})
	}
	p.spans[si] = span{base: base, free: 1<<spanBlocks - 1, partial: int32(len(p.partial))}
	p.partial = append(p.partial, si)
	p.byBase[uintptr(base)] = si
}

func (p *blockPool) unmapSpan(si int32) {
	s := &p.spans[si]
	if s.partial >= 0 {
		p.dropPartial(si)
	}
	delete(p.byBase, uintptr(s.base))
	p.warm -= bits.OnesCount32(s.warm)
	p.next.spans = append(p.next.spans, s.base)
	*s = span{partial: -1}
	p.launch(false)
}

func (p *blockPool) dropPartial(si int32) {
	k := p.spans[si].partial
	last := p.partial[len(p.partial)-1]
	p.partial[k] = last
	p.spans[last].partial = k
	p.partial = p.partial[:len(p.partial)-1]
	p.spans[si].partial = -1
}

// release unmaps every span, whether or not its blocks were put back: the
// table is being cleared or has become unreachable. It waits for a job in
// flight, whose blocks it is about to unmap.
func (p *blockPool) release() {
	if p.inFlight {
		<-p.done
	}
	for _, b := range p.next.spans {
		munmap(b, spanBytes)
	}
	for _, s := range p.spans {
		if s.base != nil {
			munmap(s.base, spanBytes)
		}
	}
	*p = blockPool{}
}

// prefault touches every page of block b, which is not resident, in address
// order. Index chunks are written at random places; touched here, their pages
// fault in one short run instead of one at a time in later operations, where
// on a virtual machine a fault at a random address often costs milliseconds
// (the hypervisor backs guest memory lazily, in large pages).
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

// The index and TTL-set chunks of full size are exactly one block.
var (
	_ [blockBytes - 8*chunkWords]struct{}
	_ [8*chunkWords - blockBytes]struct{}
	_ [blockBytes - 4*expChunkLen]struct{}
	_ [4*expChunkLen - blockBytes]struct{}
)
