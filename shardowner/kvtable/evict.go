package kvtable

import "math"

// Score is what SampleEvict rates the keys it samples by: the higher the
// score, the sooner the key should be evicted.
type Score uint8

// Scores.
const (
	// ScoreNone is 0 for every key: the random policies take the first.
	ScoreNone Score = iota
	// ScoreLRU is the key's idle time in ms (IdleMs).
	ScoreLRU
	// ScoreLFU is 255 less the key's decayed LFU counter (Freq).
	ScoreLFU
	// ScoreTTL is math.MaxUint64 less the key's expiry time, so that the
	// key that expires first scores highest; 0 for a key without a TTL.
	ScoreTTL
)

// Sampling bounds: SampleEvict looks at no more than sampleTries slots per
// key it wants, and probes the TTL wheel at most ttlProbes times for one.
const (
	sampleTries = 4
	ttlProbes   = 16
)

// SampleEvict picks about n random live keys, for maxmemory eviction as
// Redis's eviction pool samples a database, and calls fn with each key and
// its score; it returns how many keys it passed to fn, which can be fewer
// than n (a small table, many keys past their TTL) and can repeat a key.
// With volatile, only keys with a TTL are sampled, from the TTL wheel;
// otherwise any key, from the index. Every key is about as likely as any
// other, but for the keys of a sparse TTL wheel (see walkTTLRef).
//
// Its work is O(n) and independent of the table's size, but for the TTL
// wheel of a table most of whose TTL keys are gone, where finding a key
// can walk up to one level's 1024 buckets. Expired keys it meets are
// skipped and left where they are: SampleEvict changes nothing in the
// table, access data included, so the keys it passes stay valid together.
// The key aliases table memory and is valid until the next write; fn must
// not write to the table.
func (t *Table) SampleEvict(n int, volatile bool, by Score, fn func(key []byte, score uint64)) int {
	got := 0
	if volatile {
		if t.exp.n == 0 {
			return 0
		}
		probe := true
		for tries := 0; got < n && tries < sampleTries*n; tries++ {
			ref, ok := uint32(0), false
			if probe {
				// Once the wheel turns out sparse, it is walked.
				ref, ok = t.probeTTLRef()
				probe = ok
			}
			if !ok {
				ref = t.walkTTLRef()
			}
			if t.sampled(t.ar.item(ref), by, fn) {
				got++
			}
		}
		return got
	}
	if t.Len() == 0 {
		return 0
	}
	for tries := 0; got < n && tries < sampleTries*n; tries++ {
		if t.sampled(t.ar.item(uint32(t.randomSlot())), by, fn) {
			got++
		}
	}
	return got
}

// sampled passes the entry it to fn with its score, unless it has expired.
func (t *Table) sampled(it []byte, by Score, fn func([]byte, uint64)) bool {
	if t.isExpired(it) {
		return false
	}
	var s uint64
	switch by {
	case ScoreLRU:
		if t.acc != nil {
			s = uint64(t.idleMs(getAccess(accessAt(it))))
		}
	case ScoreLFU:
		c := uint32(0)
		if t.acc != nil && t.acc.LFU {
			c = t.lfuDecayed(getAccess(accessAt(it)))
		}
		s = uint64(lfuMax - c)
	case ScoreTTL:
		if e := entryExpire(it); e != 0 {
			s = math.MaxUint64 - uint64(e)
		}
	}
	fn(entryKey(it), s)
	return true
}

// probeTTLRef returns the ref at a random position of the TTL wheel that
// holds one, trying ttlProbes positions: every key with a TTL has one
// position, so each is as likely as any other. It fails when the wheel's
// segments are mostly free or unfilled.
func (t *Table) probeTTLRef() (uint32, bool) {
	w := &t.exp
	segs := uint64(w.segNext - 1) // segments handed out, free ones included
	for range ttlProbes {
		r := t.rand()
		s := 1 + uint32(r%segs)
		pos := int(s)<<segShift | segHead + int((r>>32)%segRefs)
		if ref := w.at(pos); t.heldAt(ref, pos) {
			return ref, true
		}
	}
	return 0, false
}

// heldAt reports whether ref, read at position pos of the TTL wheel, is
// the ref of an entry that is there: a free segment or one's unused words
// hold stale refs, or zeros.
func (t *Table) heldAt(ref uint32, pos int) bool {
	a := &t.ar
	pi := ref >> refItemBits
	if pi == 0 || int(pi) >= len(a.pages) {
		return false
	}
	p := &a.pages[pi]
	if p.buf == nil || ref&refItemMask >= uint32(p.bump) {
		return false
	}
	it := a.item(ref)
	return it[0]&hdrTTL != 0 && entryExpIdx(it) == pos // a free item's header is 0
}

// walkTTLRef returns the ref of a random key with a TTL, by way of the
// wheel's buckets: a level picked by its share of the keys, the first
// bucket holding keys from a random slice of its window, and a random ref
// of the first segments of that bucket. Keys of buckets that follow empty
// ones, and of short chains, are the likelier; the wheel must hold a key.
func (t *Table) walkTTLRef() uint32 {
	w := &t.exp
	r := int(t.rand() % uint64(w.n))
	l := 0
	for r >= w.count[l] {
		r -= w.count[l]
		l++
	}
	q := w.next[l] + int64(t.rand()%wheelSlots)
	b := &w.levels[l][q&wheelMask]
	for b.n == 0 {
		if q++; q == w.next[l]+wheelSlots {
			q = w.next[l]
		}
		b = &w.levels[l][q&wheelMask]
	}
	// The head segment holds (n-1)%segRefs+1 refs, the others segRefs;
	// pick among the refs of the first few segments.
	const segsLooked = 4
	head := int(b.n-1)%segRefs + 1
	i := int(t.rand() % uint64(min(int(b.n), head+(segsLooked-1)*segRefs)))
	s := b.head
	for i >= head {
		i -= head
		head = segRefs
		s = w.seg(s)[0]
	}
	return w.seg(s)[segHead+i]
}
