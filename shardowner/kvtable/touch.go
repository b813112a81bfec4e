package kvtable

import "unsafe"

// Touching is how a shard hides memory latency on pipelines: before running
// a batch of commands it prefetches, for every key, the index group and then
// the entry a lookup will need. Those loads do not depend on one another, so
// the CPU overlaps their cache misses instead of paying them one command at
// a time. Neither function changes the table; both return a word for the
// caller to sum, so that where no prefetch instruction is at hand the
// loads they make instead are kept.

// Hash returns the hash the table uses for key.
func (t *Table) Hash(key []byte) uint64 { return t.hash(key) }

// HintHash tells the table that key, this very slice and not only bytes
// equal to it, has hash h (Hash's, as the read-ahead found it), so that the
// lookups of the command about to run skip hashing its key. The caller
// clears the hint with HintHash(nil, 0) before key's bytes may change.
func (t *Table) HintHash(key []byte, h uint64) {
	t.hint = unsafe.SliceData(key)
	t.hintLen = len(key)
	t.hintHash = h
}

// group returns the first index group of the bucket a lookup of h reads
// first, or nil.
func (t *Table) group(h uint64) []uint64 {
	ix := &t.ix[0]
	if t.rehashIdx > int(uint32(h>>32)&ix.mask) {
		ix = &t.ix[1]
	}
	if ix.dir == nil {
		return nil
	}
	return ix.bucket(uint32(h>>32) & ix.mask)
}

// TouchBucket prefetches the index group of h's bucket.
func (t *Table) TouchBucket(h uint64) uint64 {
	if g := t.group(h); g != nil {
		return prefetch(unsafe.Pointer(&g[0]))
	}
	return 0
}

// TouchEntry prefetches the first entry of h's bucket whose hash bits match
// h: the entry a lookup will compare first. It reads the group, which
// TouchBucket has brought in, and returns the entry's slot word (0: none).
func (t *Table) TouchEntry(h uint64) uint64 {
	g := t.group(h)
	if g == nil {
		return 0
	}
	h32 := uint32(h >> 32)
	for i := range slotsPerGroup {
		x := g[i]
		if x == 0 {
			break
		}
		if uint32(x>>32) == h32 {
			it := t.ar.item(uint32(x))
			// On a tracking table, the access bytes a lookup updates
			// come first.
			first, last := t.entryStart(it), unsafe.Pointer(&it[len(it)-1])
			if uintptr(first)/64 != uintptr(last)/64 {
				// An item that spans two cache lines: its key may
				// be in the second.
				x += prefetch(last)
			}
			return x + prefetch(first)
		}
	}
	return 0
}

// HasBig reports whether the table holds any big aggregate, so that a
// pipeline on packed ones skips looking for members to touch.
func (t *Table) HasBig() bool { return len(t.objs) > len(t.objFree) }

// PeekBig returns the table of the big aggregate under key, whose hash is
// h, or nil, so that the member a command will look up there can be
// touched too. Unlike Get it neither deletes an expired key nor moves a
// rehash on.
func (t *Table) PeekBig(h uint64, key []byte) *Table {
	w := t.lookup(h, key)
	if w == 0 {
		return nil
	}
	it := t.ar.item(uint32(w))
	if it[0]&hdrEncMask != encObj {
		return nil
	}
	return t.objs[le.Uint32(it[valueOff(it):])]
}
