package kvtable

// Big, uniform pieces of a table (full arena pages, index chunks, overflow
// chunks, TTL-set chunks: 64 KiB each) live outside the Go heap, in blocks of
// anonymous memory mapped by the table itself. The collector never sees
// them, so neither the time a GC cycle takes nor how often one runs depends
// on how many keys a shard holds; the Go heap keeps only small tables, the
// first few pages of each size class, and entries over 8 KiB.
//
// Blocks are carved from 2 MiB spans aligned to 2 MiB, so that a block's
// span is found by masking its address (and so that, where transparent huge
// pages are enabled for all memory, a span can be one huge page). A freed
// block's memory goes back to the kernel at once (MADV_DONTNEED), which also
// means every block handed out reads as zeros; a span with no block in use
// is unmapped, except one kept spare so that a table hovering at a span
// boundary does not map and unmap on every turn.

import (
	"math/bits"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	blockBytes = 64 << 10
	spanBytes  = 2 << 20
	spanBlocks = spanBytes / blockBytes // 32: a span's free blocks fit a uint32 bitmap
)

type span struct {
	base    unsafe.Pointer
	free    uint32 // bit i set: block i is free
	partial int32  // position in blockPool.partial, -1 if not there
}

// blockPool hands out 64 KiB zeroed blocks. Like the table that owns it, it
// is used by one goroutine at a time.
type blockPool struct {
	spans   []span
	byBase  map[uintptr]int32 // span base address -> index in spans
	partial []int32           // spans with a free block
	inUse   int               // blocks handed out
}

// get returns a zeroed block of blockBytes bytes.
func (p *blockPool) get() unsafe.Pointer {
	if len(p.partial) == 0 {
		p.mapSpan()
	}
	si := p.partial[len(p.partial)-1]
	s := &p.spans[si]
	i := bits.TrailingZeros32(s.free)
	s.free &^= 1 << i
	if s.free == 0 {
		p.dropPartial(si)
	}
	p.inUse++
	return unsafe.Add(s.base, i*blockBytes)
}

// put returns block b, which get handed out, to the pool.
func (p *blockPool) put(b unsafe.Pointer) {
	si, ok := p.byBase[uintptr(b)&^(spanBytes-1)]
	if !ok {
		panic("kvtable: freeing a block the pool does not own")
	}
	s := &p.spans[si]
	i := (uintptr(b) - uintptr(s.base)) / blockBytes
	if s.free&(1<<i) != 0 {
		panic("kvtable: block freed twice")
	}
	p.inUse--
	s.free |= 1 << i
	if s.free == 1<<spanBlocks-1 && p.spareSpans() > 1 {
		p.unmapSpan(si)
		return
	}
	if err := unix.Madvise(unsafe.Slice((*byte)(b), blockBytes), unix.MADV_DONTNEED); err != nil {
		panic("kvtable: madvise: " + err.Error())
	}
	if s.partial < 0 {
		s.partial = int32(len(p.partial))
		p.partial = append(p.partial, si)
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
	munmap(s.base, spanBytes)
	*s = span{partial: -1}
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
// table is being cleared or has become unreachable.
func (p *blockPool) release() {
	for _, s := range p.spans {
		if s.base != nil {
			munmap(s.base, spanBytes)
		}
	}
	*p = blockPool{}
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
