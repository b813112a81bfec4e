package kvtable

// The arena holds entries in pages of bytes. Every page holds items of one
// size class; an item is addressed by a 32-bit ref: the page's index in
// arena.pages (high 20 bits) and the item's number in the page (low 12 bits).
// Ref 0 is never handed out (page 0 is reserved), so an index slot holding 0
// is empty.
//
// A free item has 0 in its first byte (no live entry has) and the number+1 of
// the next free item of its page in the two bytes after it. Each page keeps
// its own free list and count of live items, so a page whose items are all
// free is released at once; pages with room are on a per-class list that
// allocation takes from.
//
// Entries larger than the biggest class get a page of their own ("large"
// pages, one item each).
//
// On a table that tracks access, every item, large ones too, has the key's
// access bytes just before it (access.go): a page's items are stride =
// size + pre bytes apart, pre bytes from its start, and a page holds as
// many as its bytes have strides. item(ref) returns the item's bytes only.
// An arena of a table that does not track has pre 0, so stride = size.
//
// A page of full size (64 KiB) is a block of the table's off-heap pool; the
// first, smaller pages of a class and large pages are on the Go heap, so a
// small table maps nothing and a big one keeps almost nothing on the heap.
// The buffers of the smaller pages come from pagePool and go back to it.

import (
	"encoding/binary"
	"unsafe"

	"github.com/valyala/bytebufferpool"
)

const (
	refItemBits  = 12
	refItemMask  = 1<<refItemBits - 1
	maxPages     = 1 << (32 - refItemBits)
	maxPageItems = 1 << refItemBits

	minPageBytes  = 1 << 10
	maxPageBytes  = 64 << 10
	pageGrowSteps = 6 // minPageBytes<<6 == maxPageBytes

	numClasses   = 40
	maxClassSize = 8192
	largeClass   = 255

	// keepPageBytes: a class keeps its last page, once empty, if it is no
	// bigger than this, so that a SET/DEL cycle on a small table does not
	// allocate a page each time.
	keepPageBytes = 4 << 10
)

// pagePool holds the buffers of released heap pages for the next new
// ones. An entry that grows item by item (a list's tail node) leaves a
// class's only page empty, and takes a new page of a near size, at every
// step: made afresh each time, those pages would be most of what such a
// table allocates, and their garbage would grow the heap between
// collections.
var pagePool bytebufferpool.Pool

// classSize lists the item sizes: steps of 8 bytes up to 128, then four
// classes per doubling up to maxClassSize.
var classSize [numClasses]uint32

// classOf maps (size+7)/8 to the smallest class that holds size.
var classOf [maxClassSize/8 + 1]uint8

func init() {
	n := 0
	for s := 8; s <= 128; s += 8 {
		classSize[n] = uint32(s)
		n++
	}
	for base := 128; base < maxClassSize; base *= 2 {
		for q := 1; q <= 4; q++ {
			classSize[n] = uint32(base + base*q/4)
			n++
		}
	}
	if n != numClasses || classSize[n-1] != maxClassSize {
		panic("kvtable: size class table out of step")
	}
	c := 0
	for i := range classOf {
		for classSize[c] < uint32(i*8) {
			c++
		}
		classOf[i] = uint8(c)
	}
}

type page struct {
	buf    []byte                     // nil for a released page
	pooled *bytebufferpool.ByteBuffer // holds buf, for a heap page from pagePool
	size   uint32                     // bytes per item (the entry's bytes for a large page)
	stride uint32                     // bytes from one item to the next: size, plus pre
	prev   uint32                     // neighbours on the class's partial list (0: none)
	next   uint32
	// Item counts fit 16 bits: a page holds at most maxPageItems.
	nitems    uint16 // items the page holds
	used      uint16 // live items
	bump      uint16 // items below bump have been handed out at least once
	free      uint16 // number+1 of the first free item below bump; 0: none
	class     uint8
	pre       uint8 // bytes before each item: the access data of a tracking table, else 0
	inPartial bool
	evac      bool // being emptied by compaction: allocation skips it
	offHeap   bool // buf is a block of the pool
}

// The page descriptor stays one cache line whatever the table tracks.
var _ [64 - unsafe.Sizeof(page{})]struct{}

type arena struct {
	pool      *blockPool
	pages     []page   // pages[0] is reserved so that no ref is 0
	freePages []uint32 // indexes of released pages, for reuse
	bytes     int      // sum of len(buf) over live pages

	partial [numClasses]uint32 // head of the list of pages with a free item
	npages  [numClasses]uint32 // live pages per class
	capa    [numClasses]int    // items the class's pages hold
	used    [numClasses]int    // live items in the class

	// Compaction state per class: the page being emptied and where the
	// walk over its items stands.
	victim    [numClasses]uint32
	victimPos [numClasses]uint32
	retry     [numClasses]uint16

	// pre is the bytes every item of a new page has before it: 0, or
	// accessBytes on a table that tracks access (access.go).
	pre uint8

	// pageLimit, when not 0, caps len(pages) below maxPages, so that tests
	// can fill an arena cheaply.
	pageLimit int

	// frees counts the items freed: a ref taken when it had some value
	// still holds the same item while it has it.
	frees uint64
}

// item returns the bytes of the item ref, with len and cap equal to the
// item's size so that nothing written through it spills into a neighbour.
func (a *arena) item(ref uint32) []byte {
	p := &a.pages[ref>>refItemBits]
	off := (ref&refItemMask)*p.stride + uint32(p.pre)
	return p.buf[off : off+p.size : off+p.size]
}

// itemOff is the offset in the page's buffer of its item it.
func (p *page) itemOff(it uint32) uint32 { return it*p.stride + uint32(p.pre) }

// itemSize is the size of the item ref.
func (a *arena) itemSize(ref uint32) int { return int(a.pages[ref>>refItemBits].size) }

// fits reports whether an entry of n bytes may be rewritten in place in the
// item ref rather than moved: it must fit, and must not leave most of a big
// item unused.
func (a *arena) fits(ref uint32, n int) bool {
	size := a.itemSize(ref)
	return n <= size && (size <= 64 || n > size/2)
}

// newPageIndex returns the index of an unused page descriptor, or 0 when the
// arena has as many pages as a ref can address.
func (a *arena) newPageIndex() uint32 {
	if k := len(a.freePages); k > 0 {
		idx := a.freePages[k-1]
		a.freePages = a.freePages[:k-1]
		return idx
	}
	if len(a.pages) == 0 {
		a.pages = append(a.pages, page{}) // reserved
	}
	limit := maxPages
	if a.pageLimit != 0 {
		limit = a.pageLimit
	}
	if len(a.pages) >= limit {
		return 0
	}
	a.pages = append(a.pages, page{})
	return uint32(len(a.pages) - 1)
}

// alloc returns a ref to an item of at least n bytes, or 0 when the item
// needs a new page and the arena has no page left. Its contents are whatever
// the item last held.
func (a *arena) alloc(n int) uint32 {
	if n > maxClassSize {
		idx := a.newPageIndex()
		if idx == 0 {
			return 0
		}
		pre := int(a.pre)
		a.pages[idx] = page{buf: make([]byte, pre+n), size: uint32(n), stride: uint32(pre + n), pre: a.pre,
			nitems: 1, used: 1, bump: 1, class: largeClass}
		a.grew(pre + n)
		a.pool.count(pre + n)
		return idx << refItemBits
	}
	c := classOf[(n+7)>>3]
	idx := a.partial[c]
	if idx == 0 {
		if idx = a.newPage(c); idx == 0 {
			return 0
		}
	}
	p := &a.pages[idx]
	var it uint32
	if p.free != 0 {
		it = uint32(p.free - 1)
		p.free = binary.LittleEndian.Uint16(p.buf[p.itemOff(it)+1:])
	} else {
		it = uint32(p.bump)
		p.bump++
	}
	p.used++
	a.used[c]++
	a.pool.count(int(p.stride))
	if p.used == p.nitems {
		a.unlinkPartial(idx)
	}
	return idx<<refItemBits | it
}

// newPage adds a page to class c and returns its index, or 0 when the arena
// has no page left.
func (a *arena) newPage(c uint8) uint32 {
	size := classSize[c]
	stride := size + uint32(a.pre)
	pb := uint32(minPageBytes) << min(a.npages[c], pageGrowSteps)
	n := max(pb/stride, 1)
	n = min(n, maxPageItems)
	idx := a.newPageIndex()
	if idx == 0 {
		return 0
	}
	pg := page{size: size, stride: stride, pre: a.pre, nitems: uint16(n), class: c}
	if n*stride > blockBytes/2 {
		pg.buf = unsafe.Slice((*byte)(a.pool.get(false)), blockBytes)[:n*stride]
		pg.offHeap = true
	} else {
		pg.pooled = pageBuf(int(n * stride))
		pg.buf = pg.pooled.B
	}
	a.pages[idx] = pg
	a.grew(pg.held())
	a.npages[c]++
	a.capa[c] += int(n)
	a.pushPartial(idx)
	return idx
}

// free returns the item ref to its page, releasing the page when it is left
// empty.
func (a *arena) free(ref uint32) {
	a.frees++
	idx := ref >> refItemBits
	p := &a.pages[idx]
	if p.class == largeClass {
		a.pool.count(-len(p.buf))
		a.release(idx)
		return
	}
	a.pool.count(-int(p.stride))
	it := ref & refItemMask
	off := p.itemOff(it)
	p.buf[off] = 0
	binary.LittleEndian.PutUint16(p.buf[off+1:], p.free)
	p.free = uint16(it + 1)
	p.used--
	c := p.class
	a.used[c]--
	if p.used == 0 && (p.evac || a.npages[c] > 1 || len(p.buf) > keepPageBytes) {
		a.release(idx)
		return
	}
	if !p.inPartial && !p.evac {
		a.pushPartial(idx)
	}
}

func (a *arena) release(idx uint32) {
	p := &a.pages[idx]
	a.grew(-p.held())
	if p.offHeap {
		a.pool.put(blockOf(p.buf))
	}
	if p.pooled != nil {
		pagePool.Put(p.pooled)
	}
	if c := p.class; c != largeClass {
		if p.inPartial {
			a.unlinkPartial(idx)
		}
		a.npages[c]--
		a.capa[c] -= int(p.nitems)
		if a.victim[c] == idx {
			a.victim[c] = 0
		}
	}
	*p = page{}
	a.freePages = append(a.freePages, idx)
}

// grew records that the arena's pages hold n bytes more (fewer, for n < 0).
// The meter counts the items in use instead (alloc, free): what deleting a
// key frees is then off the count at once, as an allocator's count goes
// down with each free, though its page stays until it empties.
func (a *arena) grew(n int) { a.bytes += n }

// pageBuf returns a buffer of n bytes from pagePool. A pooled buffer too
// small for n, or over twice n, is left to the collector: one that big would
// hide most of its bytes from the arena's count. Its contents are whatever
// it last held, which a page never reads: items past bump are not walked,
// and a freed item's bytes are written when it is freed.
func pageBuf(n int) *bytebufferpool.ByteBuffer {
	b := pagePool.Get()
	if c := cap(b.B); c < n || c > 2*n {
		b.B = make([]byte, n)
	}
	b.B = b.B[:n]
	return b
}

// held is the bytes the page holds: for a pooled buffer its whole capacity.
func (p *page) held() int {
	if p.pooled != nil {
		return cap(p.buf)
	}
	return len(p.buf)
}

func (a *arena) pushPartial(idx uint32) {
	p := &a.pages[idx]
	c := p.class
	p.prev, p.next, p.inPartial = 0, a.partial[c], true
	if p.next != 0 {
		a.pages[p.next].prev = idx
	}
	a.partial[c] = idx
}

func (a *arena) unlinkPartial(idx uint32) {
	p := &a.pages[idx]
	if p.prev != 0 {
		a.pages[p.prev].next = p.next
	} else {
		a.partial[p.class] = p.next
	}
	if p.next != 0 {
		a.pages[p.next].prev = p.prev
	}
	p.prev, p.next, p.inPartial = 0, 0, false
}

// pickVictim chooses the sparsest page of class c to empty, or returns 0 when
// the class is dense enough or its free items could not take in a page's
// worth of moved entries.
func (a *arena) pickVictim(c uint8) uint32 {
	if a.npages[c] < 2 || a.used[c]*4 >= a.capa[c]*3 {
		return 0
	}
	var best uint32
	bestUsed := maxPageItems + 1
	for i := 1; i < len(a.pages); i++ {
		p := &a.pages[i]
		if p.buf != nil && p.class == c && int(p.used) < bestUsed {
			best, bestUsed = uint32(i), int(p.used)
		}
	}
	p := &a.pages[best]
	// The other pages must have room for what is moved out.
	if a.capa[c]-a.used[c]-int(p.nitems-p.used) < int(p.used) {
		return 0
	}
	if p.inPartial {
		a.unlinkPartial(best)
	}
	p.evac = true
	a.victim[c] = best
	a.victimPos[c] = 0
	return best
}
