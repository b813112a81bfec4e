package kvtable

import (
	"math/bits"
	"unsafe"
)

// The TTL wheel holds the refs of the entries that have a TTL, ordered by
// expiry time, so that active expiry finds every expired key in O(1) and
// looks at no live key, but for those of the last level that expire past
// its window, which are placed again when their bucket comes round.
//
// Level l cuts time into slices of 2^(slice0Shift+l*levelShift) ms and has
// wheelSlots buckets: bucket q&wheelMask holds the keys whose expiry falls
// in slice q, for q from next[l] (the first slice not yet drained) to
// next[l]+wheelSlots-1. A key goes into the lowest level whose window holds
// its expiry, where slices are at most 1/128 of its TTL (8 ms on level 0),
// and stays there: keys never cascade between levels. A bucket is drained
// once its slice has ended, when every key in it has expired, so a key is
// deleted at most one slice late. Expiries past the last level's window go
// to its last bucket and are placed again when it is drained.
//
// A bucket is a chain of segments of segWords uint32 words: the next (older)
// segment, the bucket's id, then segRefs refs. Only the chain's head is
// partly filled, and removal moves the bucket's last ref into the hole; an
// entry with a TTL records its position (segment<<segShift | word), so
// removal is O(1). Segments come in chunks: the first on the Go heap, grown
// by doubling, the others blocks of the table's pool. Nothing here holds a
// Go pointer.

const (
	wheelBits   = 10
	wheelSlots  = 1 << wheelBits
	wheelMask   = wheelSlots - 1
	wheelLevels = 11 // the last window spans 2^43 ms, 278 years
	slice0Shift = 3
	levelShift  = 3

	segShift      = 4
	segWords      = 1 << segShift
	segHead       = 2 // words before the refs: next segment, bucket id
	segRefs       = segWords - segHead
	segChunkShift = 10
	segChunkLen   = 1 << segChunkShift
	segChunkWords = segChunkLen * segWords // a block of the pool

	noneDue = 1<<63 - 1
)

// levelBytes is the size of a level's bucket array.
const levelBytes = int(unsafe.Sizeof([wheelSlots]wheelBucket{}))

type wheelBucket struct {
	head uint32 // the chain's newest segment, 0 for none
	n    uint32 // refs in the chain
}

type wheel struct {
	levels [wheelLevels]*[wheelSlots]wheelBucket // allocated on first use
	next   [wheelLevels]int64                    // first slice not drained, per level
	count  [wheelLevels]int                      // refs per level
	n      int
	// due is a time before which no non-empty bucket's slice ends: active
	// expiry has nothing to do before it.
	due int64

	segs    [][]uint32
	segNext uint32 // next segment never handed out; segment 0 is never used
	segFree uint32 // first free segment, linked through its word 0

	sumHi, sumLo uint64 // sum of the expiry times, for the mean TTL
	pool         *blockPool
}

func newWheel(pool *blockPool) wheel { return wheel{due: noneDue, segNext: 1, pool: pool} }

func sliceShift(l int) uint { return uint(slice0Shift + l*levelShift) }

func (w *wheel) seg(s uint32) []uint32 {
	c := w.segs[s>>segChunkShift]
	o := (s & (segChunkLen - 1)) * segWords
	return c[o : o+segWords : o+segWords]
}

func (w *wheel) at(pos int) uint32 { return w.seg(uint32(pos >> segShift))[pos&(segWords-1)] }

func (w *wheel) set(pos int, ref uint32) { w.seg(uint32(pos >> segShift))[pos&(segWords-1)] = ref }

func (w *wheel) newSeg() uint32 {
	if s := w.segFree; s != 0 {
		w.segFree = w.seg(s)[0]
		return s
	}
	s := w.segNext
	w.segNext++
	c := int(s >> segChunkShift)
	need := int(s&(segChunkLen-1)+1) * segWords
	switch {
	case c == len(w.segs) && c == 0:
		w.segs = append(w.segs, make([]uint32, 4*segWords))
		w.pool.count(4 * 4 * segWords)
	case c == len(w.segs):
		w.segs = append(w.segs, blockU32(w.pool.get(false)))
		w.pool.count(blockBytes)
	case need > len(w.segs[c]):
		// Only the first chunk starts short; it doubles up to full size.
		old := w.segs[c]
		if n := 2 * len(old); n < segChunkWords {
			w.segs[c] = make([]uint32, n)
		} else {
			w.segs[c] = blockU32(w.pool.get(false))
		}
		copy(w.segs[c], old)
		w.pool.count(4 * (len(w.segs[c]) - len(old)))
	}
	return s
}

func (w *wheel) freeSeg(s uint32) {
	w.seg(s)[0] = w.segFree
	w.segFree = s
}

// place returns the level and slice for a key expiring at e.
func (w *wheel) place(e, now int64) (int, int64) {
	for l := range wheelLevels {
		sh := sliceShift(l)
		if w.count[l] == 0 {
			w.next[l] = max(w.next[l], now>>sh)
		}
		q := max(e>>sh, w.next[l])
		if q < w.next[l]+wheelSlots {
			return l, q
		}
	}
	l := wheelLevels - 1
	return l, w.next[l] + wheelSlots - 1
}

// push adds ref, expiring at e, and returns its position.
func (w *wheel) push(ref uint32, e, now int64) int {
	l, q := w.place(e, now)
	if w.levels[l] == nil {
		w.levels[l] = new([wheelSlots]wheelBucket)
		w.pool.count(levelBytes)
	}
	b := &w.levels[l][q&wheelMask]
	off := b.n % segRefs
	if off == 0 {
		s := w.newSeg()
		g := w.seg(s)
		g[0], g[1] = b.head, uint32(l<<wheelBits|int(q&wheelMask))
		b.head = s
	}
	w.seg(b.head)[segHead+off] = ref
	b.n++
	w.count[l]++
	w.n++
	w.due = min(w.due, (q+1)<<sliceShift(l))
	var c uint64
	w.sumLo, c = bits.Add64(w.sumLo, uint64(e), 0)
	w.sumHi += c
	return int(b.head)<<segShift | int(segHead+off)
}

// remove takes out the ref at pos, which expires at e. The bucket's last
// ref moves into the hole: remove returns it and whether it moved, for the
// caller to record its new position.
func (w *wheel) remove(pos int, e int64) (uint32, bool) {
	s, off := uint32(pos>>segShift), pos&(segWords-1)
	g := w.seg(s)
	id := g[1]
	l := int(id >> wheelBits)
	b := &w.levels[l][id&wheelMask]
	h := b.head
	hg := w.seg(h)
	last := segHead + int((b.n-1)%segRefs)
	moved, ok := hg[last], h != s || last != off
	if ok {
		g[off] = moved
	}
	b.n--
	w.count[l]--
	w.n--
	var bw uint64
	w.sumLo, bw = bits.Sub64(w.sumLo, uint64(e), 0)
	w.sumHi -= bw
	if last == segHead {
		b.head = hg[0]
		w.freeSeg(h)
	}
	if w.n == 0 {
		w.empty()
	}
	return moved, ok
}

// empty forgets the segments of a wheel that holds no key, handing its
// blocks back to the pool; a short first chunk stays for reuse.
func (w *wheel) empty() {
	keep := 0
	if len(w.segs) > 0 && len(w.segs[0]) < segChunkWords {
		keep = 1
	}
	for i := len(w.segs) - 1; i >= keep; i-- {
		w.pool.count(-4 * len(w.segs[i]))
		w.pool.put(blockOf(w.segs[i]))
		w.segs[i] = nil
	}
	w.segs = w.segs[:keep]
	w.segNext, w.segFree = 1, 0
	w.due = noneDue
}

// nextDue is when the first non-empty bucket of level l, which holds keys,
// becomes due: the end of its slice.
func (w *wheel) nextDue(l int) int64 {
	q := w.next[l]
	for w.levels[l][q&wheelMask].n == 0 && q < w.next[l]+wheelSlots-1 {
		q++
	}
	return (q + 1) << sliceShift(l)
}

// dueKeys counts the keys in buckets whose slice has ended.
func (w *wheel) dueKeys(now int64) int {
	n := 0
	for l := range wheelLevels {
		if w.count[l] == 0 {
			continue
		}
		end := min(now>>sliceShift(l), w.next[l]+wheelSlots)
		for q := w.next[l]; q < end; q++ {
			n += int(w.levels[l][q&wheelMask].n)
		}
	}
	return n
}

// meanExpire is the mean expiry time of the keys with a TTL.
func (w *wheel) meanExpire() int64 {
	if w.n == 0 || w.sumHi >= uint64(w.n) {
		return 0
	}
	q, _ := bits.Div64(w.sumHi, w.sumLo, uint64(w.n))
	return int64(q)
}

func (w *wheel) bytes() int {
	n := 0
	for _, c := range w.segs {
		n += 4 * len(c)
	}
	for _, lv := range w.levels {
		if lv != nil {
			n += levelBytes
		}
	}
	return n
}
