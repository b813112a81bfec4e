package shardowner

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/shardowner/kvtable"
)

// A sorted set is, as in Redis, a listpack while it is small and a
// skiplist past zset-max-listpack-entries members or a member longer than
// zset-max-listpack-value bytes. corekv's listpack is a packed list (see
// kvtable/packed.go) of member, score pairs sorted by score then member,
// the score an 8-byte element holding the float64's bits. A big sorted set
// is a table of its own mapping each member to its score, and its Order:
// pages of such pairs without the count, each at most zsetPageEntries
// members and zsetPageBytes bytes, listed in order with their counts and
// first scores, and a Fenwick tree over the counts for ranks. A write
// changes one page in place (kvtable's Splice) unless it outgrows its item
// or splits it; finding it is a binary search over the pages' first scores.
// The byte bound fills a size class (kvtable.PageItemBytes): a page of
// members that came in order wastes none of its item.
const (
	zsetPageEntries = 128
	zsetPageBytes   = kvtable.MaxPageBytes // a page of two or more members splits past this
	scoreElemLen    = 9                    // a score's length byte and 8 bytes
)

// zLess orders elements by score, then member bytes.
func zLess(s1 float64, m1 []byte, s2 float64, m2 []byte) bool {
	return s1 < s2 || (s1 == s2 && bytes.Compare(m1, m2) < 0)
}

// appendZElem appends member m with score s to a packed body.
func appendZElem(dst, m []byte, s float64) []byte {
	dst = kvtable.AppendElem(dst, m)
	dst = append(dst, 8)
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(s))
}

// zAt reads the pair at off of a packed body and returns the next offset.
func zAt(body []byte, off int) (m []byte, s float64, next int) {
	m, off = kvtable.ElemAt(body, off)
	return m, math.Float64frombits(binary.LittleEndian.Uint64(body[off+1:])), off + scoreElemLen
}

// packZeros turns each -0 score of a packed body into 0. A listpack keeps
// an integral score as an integer, so a -0 stored in one reads back as 0;
// a big set keeps it, and so the pairs are built with -0 and made packed
// only here, once their encoding is known.
func packZeros(body []byte) {
	for off := 0; off < len(body); {
		_, s, next := zAt(body, off)
		if s == 0 && math.Signbit(s) {
			binary.LittleEndian.PutUint64(body[next-8:], 0)
		}
		off = next
	}
}

// decodeScore reads a score in its 8-byte form, as pages keep it.
func decodeScore(b []byte) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b)) }

// A big sorted set's member table keeps each score in as few bytes as it
// takes: an integer of magnitude below 2^55 (but not -0) as a
// little-endian two's complement integer of 0 to 7 bytes, the fewest that
// hold it (none for 0); any other score as the 8 bytes of its float64
// bits. Most scores are small integers (counts, ranks, timestamps), and
// so take 1 to 6 bytes. Pages keep the 8 bytes, which their walks read in
// one load.
const maxScoreLen = 8

// putScore writes score s in its member-table form to b and returns its
// length.
func putScore(b *[maxScoreLen]byte, s float64) int {
	if s >= -0x1p55 && s < 0x1p55 {
		if i := int64(s); float64(i) == s && (i != 0 || !math.Signbit(s)) {
			x := uint64(i)
			if i < 0 {
				x = ^x
			}
			// the bytes that hold x's significant bits and a sign bit
			n := (bits.Len64(x) + 8) / 8
			if i == 0 {
				n = 0
			}
			binary.LittleEndian.PutUint64(b[:], uint64(i))
			return n
		}
	}
	binary.LittleEndian.PutUint64(b[:], math.Float64bits(s))
	return maxScoreLen
}

// memberScore reads a score in its member-table form.
func memberScore(b []byte) float64 {
	n := len(b)
	if n == maxScoreLen {
		return decodeScore(b)
	}
	var x uint64
	for i := n - 1; i >= 0; i-- {
		x = x<<8 | uint64(b[i])
	}
	// keep the n bytes, their top bit the sign
	sh := 64 - 8*uint(n)
	return float64(int64(x<<sh) >> sh)
}

func pageKey(id uint32) [4]byte {
	var k [4]byte
	binary.LittleEndian.PutUint32(k[:], id)
	return k
}

// zview reads a sorted set of either encoding as a list of pages: a small
// one is a single page.
type zview struct {
	str []byte // the packed pairs, when big is nil
	big *Table
}

func zviewOf(v Value) zview { return zview{str: v.Str, big: v.Big} }

func (z zview) len() int {
	if z.big != nil {
		return z.big.Len()
	}
	return kvtable.PackedCount(z.str) / 2
}

func (z zview) npages() int {
	if z.big != nil {
		return len(z.big.Order.Dir)
	}
	if len(z.str) == 0 {
		return 0
	}
	return 1
}

func (z zview) pageLen(i int) int {
	if z.big != nil {
		return int(z.big.Order.Dir[i].N)
	}
	return kvtable.PackedCount(z.str) / 2
}

// page returns the body of page i. It aliases table memory.
func (z zview) page(i int) []byte {
	if z.big == nil {
		return kvtable.PackedBody(z.str)
	}
	k := pageKey(z.big.Order.Dir[i].ID)
	v, _ := z.big.Order.Pages.Get(k[:])
	return v.Str
}

// score returns member m's score.
func (z zview) score(m []byte) (float64, bool) {
	if z.big != nil {
		v, ok := z.big.Get(m)
		if !ok {
			return 0, false
		}
		return memberScore(v.Str), true
	}
	body := kvtable.PackedBody(z.str)
	for off := 0; off < len(body); {
		e, s, next := zAt(body, off)
		if bytes.Equal(e, m) {
			return s, true
		}
		off = next
	}
	return 0, false
}

// seek finds the first element for which ge is true, ge being false and
// then true along the order. It returns the page, the index in it (which
// may be the page's length: the place after its last element) and the
// element's rank.
func (z zview) seek(ge func(m []byte, s float64) bool) (pi, idx, rank int) {
	np := z.npages()
	if np == 0 {
		return 0, 0, 0
	}
	lo, hi := 1, np // the first page whose first element is ge, in [1, np]
	for lo < hi {
		mid := (lo + hi) / 2
		m, s, _ := zAt(z.page(mid), 0)
		if ge(m, s) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	pi = lo - 1
	body := z.page(pi)
	for off := 0; off < len(body); idx++ {
		m, s, next := zAt(body, off)
		if ge(m, s) {
			break
		}
		off = next
	}
	return pi, idx, z.ranksBefore(pi) + idx
}

// ranksBefore is the number of elements on the pages before page pi.
func (z zview) ranksBefore(pi int) int {
	if z.big == nil {
		return 0
	}
	return z.big.Order.Before(pi)
}

// locate returns the page and index of the element of rank r.
func (z zview) locate(r int) (pi, idx int) {
	if z.big == nil {
		return 0, r
	}
	return z.big.Order.Locate(r)
}

// find returns where member m with score s is, or would go: its page, its
// index and byte offset in the page (past the last element: the page's
// length and size), and the page's body. The pages are searched by the
// first scores the directory keeps; a page is read only when its first
// score is s.
func (z zview) find(m []byte, s float64) (pi, idx, off int, body []byte) {
	if z.npages() == 0 {
		return 0, 0, 0, nil
	}
	if z.big != nil {
		dir := z.big.Order.Dir
		lo, hi := 1, len(dir) // the first page whose first element is not below m's place
		for lo < hi {
			mid := (lo + hi) / 2
			d := dir[mid].Min
			if d > s || d == s && bytes.Compare(firstMember(z.page(mid)), m) >= 0 {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		pi = lo - 1
	}
	body = z.page(pi)
	for off < len(body) {
		// zAt, with the common one-byte length read inline
		e, next := body[off+1:], 0
		if l := int(body[off]); l < 0x80 {
			e, next = e[:l], off+1+l
		} else {
			e, next = kvtable.ElemAt(body, off)
		}
		if es := decodeScore(body[next+1:]); es > s || es == s && bytes.Compare(e, m) >= 0 {
			break
		}
		off = next + scoreElemLen
		idx++
	}
	return pi, idx, off, body
}

func firstMember(body []byte) []byte {
	m, _ := kvtable.ElemAt(body, 0)
	return m
}

// rank returns the rank of member m with score s.
func (z zview) rank(m []byte, s float64) int {
	pi, idx, _, _ := z.find(m, s)
	return z.ranksBefore(pi) + idx
}

// ziter walks a sorted set's elements in either direction from a rank. The
// offsets of the current page's elements are kept in a pooled buffer, read
// only as far as the walk has gone: a pop from the low end reads one.
type ziter struct {
	z    zview
	pi   int
	idx  int
	body []byte
	offs *bytebufferpool.ByteBuffer
	scan int // offset in body of the element after the last one in offs
}

// start places it at the element of rank r; release frees its buffer.
func (it *ziter) start(z zview, r int) {
	*it = ziter{z: z, offs: zsetBuffers.Get()}
	it.pi, it.idx = z.locate(r)
	if it.pi < z.npages() {
		it.load()
	}
}

func (it *ziter) release() { zsetBuffers.Put(it.offs) }

func (it *ziter) load() {
	it.body = it.z.page(it.pi)
	it.offs.B = it.offs.B[:0]
	it.scan = 0
}

// offset returns the offset in the current page of its element i, reading
// the page up to it.
func (it *ziter) offset(i int) int {
	for len(it.offs.B)/4 <= i {
		off := it.scan
		it.offs.B = binary.LittleEndian.AppendUint32(it.offs.B, uint32(off))
		// zAt's walk, with the common one-byte member length read inline
		if l := int(it.body[off]); l < 0x80 {
			off += 1 + l + scoreElemLen
		} else {
			_, off = kvtable.ElemAt(it.body, off)
			off += scoreElemLen
		}
		it.scan = off
	}
	return int(binary.LittleEndian.Uint32(it.offs.B[4*i:]))
}

// at returns the current element.
func (it *ziter) at() ([]byte, float64) {
	m, s, _ := zAt(it.body, it.offset(it.idx))
	return m, s
}

// next moves to the following element; false past the last.
func (it *ziter) next() bool {
	it.idx++
	for it.idx >= it.z.pageLen(it.pi) {
		it.pi++
		it.idx = 0
		if it.pi >= it.z.npages() {
			return false
		}
		it.load()
	}
	return true
}

// prev moves to the preceding element; false before the first.
func (it *ziter) prev() bool {
	it.idx--
	for it.idx < 0 {
		it.pi--
		if it.pi < 0 {
			return false
		}
		it.idx = it.z.pageLen(it.pi) - 1
		it.load()
	}
	return true
}

// zsetBuffers is the pool of the sorted sets' writers and iterators: a
// pool of its own, whose sizes the other commands' buffers (most of them
// far smaller) do not tune, so that a small sorted set's buffer is always
// kept for the next write.
var zsetBuffers bytebufferpool.Pool

// zwriter changes a sorted set for a command: a small one in buf (after
// PackedHeadRoom bytes of room), a big one in place, converting as members
// come, as Redis's zsetAdd does.
type zwriter struct {
	c      *Ctx
	buf    *bytebufferpool.ByteBuffer
	n      int // members of a small one
	big    *Table
	owned  bool // big was made by this writer
	failed bool // a write found no room
}

// init starts w from sorted set z (the zero zview for a new one).
func (w *zwriter) init(c *Ctx, z zview) {
	*w = zwriter{c: c, buf: zsetBuffers.Get(), big: z.big}
	if z.big == nil {
		var room [kvtable.PackedHeadRoom]byte
		w.buf.B = append(append(w.buf.B[:0], room[:]...), kvtable.PackedBody(z.str)...)
		w.n = z.len()
	}
}

func (w *zwriter) release() {
	zsetBuffers.Put(w.buf)
	if w.owned && w.big != nil {
		w.big.Clear()
	}
}

func (w *zwriter) view() zview {
	if w.big != nil {
		return zview{big: w.big}
	}
	return zview{str: kvtable.FinishPacked(w.buf.B, 2*w.n)}
}

func (w *zwriter) len() int {
	if w.big != nil {
		return w.big.Len()
	}
	return w.n
}

// toBig moves a small sorted set into a new big one.
func (w *zwriter) toBig() {
	big := zsetBigFromSorted(w.c, w.buf.B[kvtable.PackedHeadRoom:])
	if big == nil {
		w.failed = true
		return
	}
	w.big, w.owned = big, true
}

// insert adds member m, not yet a member, with score s.
func (w *zwriter) insert(m []byte, s float64) {
	if w.failed {
		return
	}
	enc := w.c.Shard.Enc
	if w.big == nil && (int64(w.n+1) > enc.ZSetMaxEntries.Load() || int64(len(m)) > enc.ZSetMaxValue.Load()) {
		w.toBig()
		if w.failed {
			return
		}
	}
	if w.big != nil {
		w.failed = !bigZInsert(w.big, m, s)
		return
	}
	if s == 0 {
		s = 0 // a listpack keeps -0 as the integer 0
	}
	body := w.buf.B[kvtable.PackedHeadRoom:]
	off := 0
	for off < len(body) {
		e, es, next := zAt(body, off)
		if zLess(s, m, es, e) {
			break
		}
		off = next
	}
	at := kvtable.PackedHeadRoom + off
	tail := len(w.buf.B) - at
	w.buf.B = appendZElem(w.buf.B, m, s)
	// rotate the new element in front of the tail
	added := len(w.buf.B) - at - tail
	rotate(w.buf.B[at:], tail, added)
	w.n++
}

// rotate moves the last k bytes of b, which has t bytes before them, to
// its front.
func rotate(b []byte, t, k int) {
	reverse(b[:t])
	reverse(b[t : t+k])
	reverse(b[:t+k])
}

func reverse(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// rescore moves member m from score old to score s.
func (w *zwriter) rescore(m []byte, old, s float64) {
	if w.big == nil || w.failed {
		w.remove(m, old)
		w.insert(m, s)
		return
	}
	w.failed = !bigZRescore(w.big, m, old, s)
}

// remove removes member m, whose score is s.
func (w *zwriter) remove(m []byte, s float64) {
	if w.big != nil {
		bigZRemove(w.big, m, s)
		return
	}
	body := w.buf.B[kvtable.PackedHeadRoom:]
	for off := 0; off < len(body); {
		e, _, next := zAt(body, off)
		if bytes.Equal(e, m) {
			at := kvtable.PackedHeadRoom + off
			w.buf.B = append(w.buf.B[:at], w.buf.B[kvtable.PackedHeadRoom+next:]...)
			w.n--
			return
		}
		off = next
	}
}

// store writes the sorted set under key, or deletes key when it is empty.
// On a full table it answers errFull and returns false.
func (w *zwriter) store(key []byte, expireAt int64) bool {
	t := w.c.Table()
	if w.failed {
		w.c.W.Err(errFull)
		return false
	}
	switch {
	case w.len() == 0:
		t.Delete(key)
		return true
	case w.big != nil:
		if !w.owned {
			t.Modified(key) // changed in place, where the table cannot see
			return true
		}
		if !stored(w.c, t.SetBig(key, KindZSet, w.big, expireAt)) {
			return false
		}
		w.owned = false
		return true
	}
	return stored(w.c, t.SetPacked(key, KindZSet, false, kvtable.FinishPacked(w.buf.B, 2*w.n), expireAt))
}

// newZSetBig returns an empty big sorted set.
func newZSetBig(c *Ctx) *Table {
	big := c.newBig()
	big.Order = kvtable.NewOrder(big)
	return big
}

// bigZInsert adds member m, not yet a member, with score s to big sorted
// set big. It reports false, leaving m out, when a table has no room.
func bigZInsert(big *Table, m []byte, s float64) bool {
	var sb [maxScoreLen]byte
	if big.SetVerbatim(m, sb[:putScore(&sb, s)], 0, false) != nil {
		return false
	}
	if !pageInsert(big, m, s) {
		big.Delete(m)
		return false
	}
	return true
}

// bigZRemove removes member m, whose score is s, from big sorted set big.
func bigZRemove(big *Table, m []byte, s float64) {
	big.Delete(m)
	pageRemove(big.Order, zview{big: big}, m, s)
}

// bigZRescore moves member m of big sorted set big from score old to s.
// It reports false, leaving m out, when a table has no room.
func bigZRescore(big *Table, m []byte, old, s float64) bool {
	pageRemove(big.Order, zview{big: big}, m, old)
	var sb [maxScoreLen]byte
	// A longer score may move m's entry, which can find no room.
	if big.SetVerbatim(m, sb[:putScore(&sb, s)], 0, false) != nil || !pageInsert(big, m, s) {
		big.Delete(m)
		return false
	}
	return true
}

// pageInsert adds member m with score s to the pages of big sorted set
// big, splitting its page when full. It reports false when a table has no
// room.
func pageInsert(big *Table, m []byte, s float64) bool {
	o := big.Order
	if len(o.Dir) == 0 {
		o.Dir = append(o.Dir, kvtable.PageRef{ID: o.NewID()})
		o.Changed(0)
		if !putPage(o, o.Dir[0].ID, nil) {
			return false
		}
	}
	z := zview{big: big}
	pi, idx, off, body := z.find(m, s)
	if idx == 0 && pi > 0 {
		// append to the page before
		pi = pi - 1
		body = z.page(pi)
		idx, off = int(o.Dir[pi].N), len(body)
	}
	elem := bytebufferpool.Get()
	defer bytebufferpool.Put(elem)
	elem.B = appendZElem(elem.B[:0], m, s)
	n := int(o.Dir[pi].N) + 1
	if n <= zsetPageEntries && len(body)+len(elem.B) <= zsetPageBytes {
		if !o.Pages.Splice(o.Key(o.Dir[pi].ID), off, 0, elem.B) {
			// Outgrows its item: written whole into a bigger one.
			buf := bytebufferpool.Get()
			defer bytebufferpool.Put(buf)
			buf.B = append(append(append(buf.B[:0], body[:off]...), elem.B...), body[off:]...)
			if !putPage(o, o.Dir[pi].ID, buf.B) {
				return false
			}
		}
		if idx == 0 {
			o.Dir[pi].Min = s
		}
		o.Count(pi, 1)
		return true
	}
	// Split in two; the second is a new page after this one. An element
	// added at either end of its page goes alone to its side, so that
	// members added in order leave full pages behind, not half-full ones.
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	buf.B = append(append(append(buf.B[:0], body[:off]...), elem.B...), body[off:]...)
	body = buf.B
	half := n / 2
	switch idx {
	case n - 1:
		half = n - 1
	case 0:
		half = 1
	}
	mid := 0
	for range half {
		_, _, mid = zAt(body, mid)
	}
	_, lmin, _ := zAt(body, 0)
	_, rmin, _ := zAt(body, mid)
	// Both halves go to new items, each of the size class that fits it:
	// the page's own item, rewritten with half its bytes, would keep them
	// in twice the room.
	lid, rid := o.NewID(), o.NewID()
	if !putPage(o, lid, body[:mid]) || !putPage(o, rid, body[mid:]) {
		o.Pages.Delete(o.Key(lid))
		o.FreeID(lid)
		o.FreeID(rid)
		return false
	}
	o.Pages.Delete(o.Key(o.Dir[pi].ID))
	o.FreeID(o.Dir[pi].ID)
	o.Dir[pi] = kvtable.PageRef{ID: lid, N: uint32(half), Min: lmin}
	o.Dir = append(o.Dir, kvtable.PageRef{})
	copy(o.Dir[pi+2:], o.Dir[pi+1:])
	o.Dir[pi+1] = kvtable.PageRef{ID: rid, N: uint32(n - half), Min: rmin}
	o.Changed(pi)
	return true
}

func putPage(o *kvtable.Order, id uint32, page []byte) bool {
	return o.Pages.SetVerbatim(o.Key(id), page, 0, false) == nil
}

// pageRemove removes member m, whose score is s, from the pages of sorted
// set z, whose order is o. A page left empty goes.
func pageRemove(o *kvtable.Order, z zview, m []byte, s float64) {
	pi, idx, off, body := z.find(m, s)
	if idx == int(o.Dir[pi].N) {
		pi, idx, off = pi+1, 0, 0
		body = z.page(pi)
	}
	n := int(o.Dir[pi].N) - 1
	if n == 0 {
		dropPage(o, pi)
		return
	}
	_, _, next := zAt(body, off)
	// A value that shrinks stays in its item: this cannot fail.
	o.Pages.Splice(o.Key(o.Dir[pi].ID), off, next-off, nil)
	if idx == 0 {
		_, o.Dir[pi].Min, _ = zAt(z.page(pi), 0)
	}
	o.Count(pi, -1)
}

// zremEnd removes the n elements at the low end of big sorted set big, or
// at the high end (max), fewer than it holds: each end page loses them in
// one cut, found without a search, as pops and ranges at an end do. When c
// is not nil it also replies them with their scores, from the end they are
// cut at, each as a pair when pairs: a pop reads each page once.
func zremEnd(c *Ctx, big *Table, n int, max, pairs bool) {
	o := big.Order
	for n > 0 {
		pi := 0
		if max {
			pi = len(o.Dir) - 1
		}
		count := int(o.Dir[pi].N)
		k := min(n, count)
		key := o.Key(o.Dir[pi].ID)
		// The member table's deletes below leave the pages' table as it is.
		v, _ := o.Pages.Get(key)
		body := v.Str
		first := 0 // index of the first element cut
		if max {
			first = count - k
		}
		from := 0
		for range first {
			_, _, from = zAt(body, from)
		}
		if c != nil {
			writeCut(c, body, from, k, max, pairs)
		}
		to := from
		for range k {
			var m []byte
			m, _, to = zAt(body, to)
			big.Delete(m) // the members' table: the pages stay put
		}
		n -= k
		if k == count {
			dropPage(o, pi)
			continue
		}
		if first == 0 {
			_, o.Dir[pi].Min, _ = zAt(body, to)
		}
		// A value that shrinks stays in its item: this cannot fail.
		o.Pages.Splice(key, from, to-from, nil)
		o.Count(pi, -k)
	}
}

// writeCut replies the k elements of page body from offset from, with their
// scores, last first when rev.
func writeCut(c *Ctx, body []byte, from, k int, rev, pairs bool) {
	if !rev || k == 1 {
		for off := from; k > 0; k-- {
			var m []byte
			var s float64
			m, s, off = zAt(body, off)
			writeScored(c, m, s, pairs)
		}
		return
	}
	offs := bytebufferpool.Get()
	defer bytebufferpool.Put(offs)
	for off := from; k > 0; k-- {
		offs.B = binary.LittleEndian.AppendUint32(offs.B, uint32(off))
		_, _, off = zAt(body, off)
	}
	for i := len(offs.B) - 4; i >= 0; i -= 4 {
		m, s, _ := zAt(body, int(binary.LittleEndian.Uint32(offs.B[i:])))
		writeScored(c, m, s, pairs)
	}
}

func dropPage(o *kvtable.Order, pi int) {
	o.Pages.Delete(o.Key(o.Dir[pi].ID))
	o.FreeID(o.Dir[pi].ID)
	o.Drop(pi)
}

// A bulk load leaves a page three quarters full, in members or bytes, so
// that the next inserts do not split it at once.
const (
	zsetPageFill      = zsetPageEntries * 3 / 4
	zsetPageFillBytes = zsetPageBytes * 3 / 4
)

// zsetBigFromSorted returns a big sorted set holding the pairs of packed
// body, which are in order. It returns nil, clearing what it built, when a
// table has no room or a member comes twice.
func zsetBigFromSorted(c *Ctx, body []byte) *Table {
	big := newZSetBig(c)
	o := big.Order
	start, n := 0, 0 // the page being cut from body
	flush := func(end int) bool {
		if n == 0 {
			return true
		}
		id := o.NewID()
		_, first, _ := zAt(body, start)
		o.Dir = append(o.Dir, kvtable.PageRef{ID: id, N: uint32(n), Min: first})
		ok := putPage(o, id, body[start:end])
		start, n = end, 0
		return ok
	}
	for off := 0; off < len(body); {
		m, s, next := zAt(body, off)
		off = next
		var sb [maxScoreLen]byte
		before := big.Len()
		if big.SetVerbatim(m, sb[:putScore(&sb, s)], 0, false) != nil || big.Len() == before {
			big.Clear()
			return nil
		}
		n++
		if (n >= zsetPageFill || off-start > zsetPageFillBytes) && !flush(off) {
			big.Clear()
			return nil
		}
	}
	if !flush(len(body)) {
		big.Clear()
		return nil
	}
	o.Changed(0)
	return big
}

// appendZSetBody appends the pairs of sorted set z, in order, to dst.
func appendZSetBody(dst []byte, z zview) []byte {
	for pi := range z.npages() {
		dst = append(dst, z.page(pi)...)
	}
	return dst
}

// copyZSetBig returns a copy of big sorted set src, or nil when a table
// has no room.
func copyZSetBig(c *Ctx, src *Table) *Table {
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	buf.B = appendZSetBody(buf.B[:0], zview{big: src})
	return zsetBigFromSorted(c, buf.B)
}

// validZSetBody reports whether packed body b, already a well-formed list
// of pairs, holds 8-byte scores that are numbers, in order.
func validZSetBody(b []byte) bool {
	var pm []byte
	var ps float64
	for off, i := 0, 0; off < len(b); i++ {
		m, next := kvtable.ElemAt(b, off)
		if next >= len(b) || b[next] != 8 || len(b)-next < scoreElemLen {
			return false
		}
		s := decodeScore(b[next+1:])
		if math.IsNaN(s) || (i > 0 && !zLess(ps, pm, s, m)) {
			return false
		}
		pm, ps, off = m, s, next+scoreElemLen
	}
	return true
}
