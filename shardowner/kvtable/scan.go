package kvtable

import "math/bits"

// Scan visits about count keys from cursor and returns the cursor to resume
// from; 0 means the scan is complete. Every key present for the whole scan is
// visited at least once, also across growth, shrinking and an incremental
// rehash in progress; a key may be visited more than once. Expired keys are
// skipped. fn must not write to the table; it may read it (Get, Exists),
// which then leaves a rehash in progress as it is until Scan returns (as
// SINTER s s does).
//
// The cursor is a bucket number with its bits reversed, incremented from the
// top: a bucket of a table of 2^n buckets splits into buckets of bigger
// tables that share its low n bits, and those come right after it in this
// order, so resizing between calls never skips a visited prefix.
func (t *Table) Scan(cursor uint64, count int, fn func(key []byte, v Value)) uint64 {
	if t.Len() == 0 {
		return 0
	}
	count = max(count, 1)
	emitted := 0
	steps := 10 * count
	t.scanning++
	for {
		cursor = t.scanStep(cursor, &emitted, fn)
		steps--
		if cursor == 0 || emitted >= count || steps <= 0 {
			t.scanning--
			return cursor
		}
	}
}

// nextCursor advances a reversed cursor over a table with mask m.
func nextCursor(v, m uint64) uint64 {
	v |= ^m
	return bits.Reverse64(bits.Reverse64(v) + 1)
}

func (t *Table) scanStep(v uint64, emitted *int, fn func([]byte, Value)) uint64 {
	if !t.rehashing() {
		ix := &t.ix[0]
		m := uint64(ix.mask)
		*emitted += t.scanBucket(ix, uint32(v&m), fn)
		return nextCursor(v, m)
	}
	small, large := &t.ix[0], &t.ix[1]
	if small.mask > large.mask {
		small, large = large, small
	}
	m0, m1 := uint64(small.mask), uint64(large.mask)
	*emitted += t.scanBucket(small, uint32(v&m0), fn)
	// Then every bucket of the larger table that the small bucket expands
	// to.
	for {
		*emitted += t.scanBucket(large, uint32(v&m1), fn)
		v = nextCursor(v, m1)
		if v&(m0^m1) == 0 {
			return v
		}
	}
}

func (t *Table) scanBucket(ix *index, b uint32, fn func([]byte, Value)) int {
	n := 0
	g := ix.bucket(b)
	for g != nil {
		for i := 0; i < slotsPerGroup && g[i] != 0; i++ {
			it := t.ar.item(uint32(g[i]))
			if !t.isExpired(it) {
				fn(entryKey(it), t.value(it))
				n++
			}
		}
		next := uint32(g[linkWord])
		if next == 0 {
			break
		}
		g = ix.overflow(next)
	}
	return n
}
