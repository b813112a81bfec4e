package kvtable

import (
	"math"
	"unsafe"
)

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

// sampleTries bounds the keys SampleEvict looks at per key it wants (it
// skips expired ones); its rounds of probes are bounded to match.
const sampleTries = 4

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
	if volatile {
		return t.sampleVolatile(n, by, fn)
	}
	if t.Len() == 0 {
		return 0
	}
	if got := t.sampleRun(n, by, fn); got > 0 {
		return got
	}
	got, tries := 0, 0
	for rounds := 0; got < n && rounds < 2+sampleTries*n/randomProbes; rounds++ {
		ws, k := t.probeSlots()
		tries += k
		for _, w := range ws[:k] {
			if got < n && t.sampled(t.ar.item(uint32(w)), by, fn) {
				got++
			}
		}
	}
	// A table whose index is mostly empty buckets: randomSlot finds keys
	// there.
	for ; got < n && tries < sampleTries*n; tries++ {
		if t.sampled(t.ar.item(uint32(t.randomSlot())), by, fn) {
			got++
		}
	}
	return got
}

// runBuckets bounds the buckets sampleRun reads.
const runBuckets = 32

// sampleRun is SampleEvict's usual way: the keys of a run of consecutive
// buckets from a random one, as Redis samples its dictionary. A bucket
// holds a few keys whose access times have nothing to do with each other,
// so one or two index reads give the n keys, where probing for each key
// at a random place takes several; the run's index groups are adjacent
// and the entries' loads are asked for together. It returns 0 when the run
// finds no key (a table of mostly empty buckets).
func (t *Table) sampleRun(n int, by Score, fn func([]byte, uint64)) int {
	ix := t.randomIndex()
	var ws [2 * slotsPerGroup]uint64
	n = min(n, len(ws))
	k := 0
	r := t.rand()
	b := uint32(r) & ix.mask
	for range min(runBuckets, int(ix.mask)+1) {
		for g := ix.bucket(b); g != nil && k < len(ws); {
			for i := 0; i < slotsPerGroup && g[i] != 0 && k < len(ws); i++ {
				ws[k] = g[i]
				k++
			}
			next := uint32(g[linkWord])
			if next == 0 {
				break
			}
			g = ix.overflow(next)
		}
		if k >= n {
			break
		}
		b = (b + 1) & ix.mask
	}
	if k == 0 {
		return 0
	}
	// n of the run's keys from a random one on, round the run: the ones
	// at the end of a long chain are as likely as those at its head.
	start := int((r >> 32) % uint64(k))
	n = min(n, k)
	var sink uint64
	for j := range n {
		sink += prefetch(t.entryStart(t.ar.item(uint32(ws[(start+j)%k]))))
	}
	t.sink += sink
	got := 0
	for j := range n {
		if t.sampled(t.ar.item(uint32(ws[(start+j)%k])), by, fn) {
			got++
		}
	}
	return got
}

// sampleVolatile is SampleEvict of the keys with a TTL: from random
// positions of the TTL wheel, or, once a round of those finds none (a wheel
// whose segments are mostly free), by walks of its buckets.
func (t *Table) sampleVolatile(n int, by Score, fn func([]byte, uint64)) int {
	if t.exp.n == 0 {
		return 0
	}
	got, tries := 0, 0
	for rounds := 0; got < n && rounds < 2+sampleTries*n/randomProbes; rounds++ {
		refs, k := t.probeTTLRefs()
		if k == 0 {
			break
		}
		tries += k
		for _, ref := range refs[:k] {
			if got < n && t.sampled(t.ar.item(ref), by, fn) {
				got++
			}
		}
	}
	for ; got < n && tries < sampleTries*n; tries++ {
		if t.sampled(t.ar.item(t.walkTTLRef()), by, fn) {
			got++
		}
	}
	return got
}

// probeSlots is a round of randomSlot's probes that keeps every slot it
// hits rather than the first: it returns their slot words and how many.
// The table must not be empty.
func (t *Table) probeSlots() ([randomProbes]uint64, int) {
	ix := t.randomIndex()
	var rs, ws [randomProbes]uint64
	var sink uint64
	for i := range rs {
		rs[i] = t.rand()
		if g := ix.bucket(uint32(rs[i]) & ix.mask); g != nil {
			sink += prefetch(unsafe.Pointer(&g[0]))
		}
	}
	hits := 0
	for _, r := range rs {
		if w, ok := t.slotAt(ix, uint32(r)&ix.mask, int((r>>32)%randomChain)); ok {
			ws[hits] = w
			hits++
			sink += prefetch(t.entryStart(t.ar.item(uint32(w))))
		}
	}
	t.sink += sink
	return ws, hits
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

// probeTTLRefs is a round of probes at random positions of the TTL wheel:
// it returns the refs of those that hold one, and how many. Every key with
// a TTL has one position, so each is as likely as any other. As for the
// index, the loads of a round are asked for together.
func (t *Table) probeTTLRefs() ([randomProbes]uint32, int) {
	w := &t.exp
	segs := uint64(w.segNext - 1) // segments handed out, free ones included
	var pos [randomProbes]int
	var refs [randomProbes]uint32
	var sink uint64
	for i := range pos {
		r := t.rand()
		pos[i] = int(1+r%segs)<<segShift | segHead + int((r>>32)%segRefs)
		sink += prefetch(unsafe.Pointer(&w.seg(uint32(pos[i] >> segShift))[pos[i]&(segWords-1)]))
	}
	for i, p := range pos {
		refs[i] = w.at(p)
		if t.ar.handedOut(refs[i]) {
			sink += prefetch(t.entryStart(t.ar.item(refs[i])))
		}
	}
	t.sink += sink
	hits := 0
	for i, p := range pos {
		// A free segment, or a head segment's unused words, hold stale
		// refs or zeros: a ref is at p only if its entry says so (a free
		// item's header is 0).
		if ref := refs[i]; t.ar.handedOut(ref) {
			if it := t.ar.item(ref); it[0]&hdrTTL != 0 && entryExpIdx(it) == p {
				refs[hits] = ref
				hits++
			}
		}
	}
	return refs, hits
}

// handedOut reports whether ref is an item of a live page that has been
// handed out at least once, so that its bytes can be read.
func (a *arena) handedOut(ref uint32) bool {
	pi := ref >> refItemBits
	if pi == 0 || int(pi) >= len(a.pages) {
		return false
	}
	p := &a.pages[pi]
	return p.buf != nil && ref&refItemMask < uint32(p.bump)
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
