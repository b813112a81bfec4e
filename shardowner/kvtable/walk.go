package kvtable

import "unsafe"

// A snapshot walks a table bucket by bucket over many loop turns while
// commands go on writing it, and serializes a bucket before its first write
// (copy on write, by the bucket). For that a key must stay in its bucket
// for the whole walk: Freeze stops the index from being resized, so no
// rehash moves keys and no new resize starts (buckets' chains grow longer
// instead, for the while). A resize already under way stays where it is,
// both indexes in use; a walk position then names a bucket of either.
//
// Walk positions: [0, len(ix[0])) are the buckets of ix[0] (those below
// rehashIdx are empty while a resize is frozen), and, while resizing,
// [len(ix[0]), len(ix[0])+len(ix[1])) those of ix[1].

// Freeze stops (on) or lets go on (off) the resizing of the table's
// index. Freezes nest.
func (t *Table) Freeze(on bool) {
	if on {
		t.frozen++
		t.scanning++
	} else {
		t.frozen--
		t.scanning--
	}
}

// WalkLen is the number of walk positions of a frozen table.
func (t *Table) WalkLen() int {
	n := 0
	for k := range 2 {
		if t.ix[k].dir != nil {
			n += int(t.ix[k].mask) + 1
		}
	}
	return n
}

// WalkPos is the walk position of the bucket that holds key, or would
// hold it if written now, in a frozen table.
func (t *Table) WalkPos(key []byte) int {
	h32 := uint32(t.hash(key) >> 32)
	ix := &t.ix[0]
	if ix.dir == nil {
		return 0
	}
	b := h32 & ix.mask
	if !t.rehashing() || t.rehashIdx <= int(b) {
		return int(b)
	}
	return int(ix.mask) + 1 + int(h32&t.ix[1].mask)
}

// Accessed is an entry's access data as a snapshot writes it: its idle
// time, and under LFU its counter decayed to now (both 0 on a table that
// tracks nothing).
type Accessed struct {
	IdleMs int64
	Freq   int
}

// WalkAt calls fn with every entry of the bucket at walk position pos,
// those whose TTL has passed included, and changes nothing (no expiry, no
// resize step, no access data). The key and value are valid during the
// call only, and fn must not write the table.
func (t *Table) WalkAt(pos int, fn func(key []byte, v Value, a Accessed)) {
	ix := &t.ix[0]
	if ix.dir == nil {
		return
	}
	if n0 := int(ix.mask) + 1; pos >= n0 {
		pos -= n0
		ix = &t.ix[1]
	}
	if ix.dir == nil || pos > int(ix.mask) {
		return
	}
	// The entries' first lines are asked for together, so that their
	// cache misses overlap rather than come one after another.
	for g := ix.bucket(uint32(pos)); g != nil; {
		for i := 0; i < slotsPerGroup && g[i] != 0; i++ {
			t.sink += prefetch(unsafe.Pointer(unsafe.SliceData(t.ar.item(uint32(g[i])))))
		}
		next := uint32(g[linkWord])
		if next == 0 {
			break
		}
		g = ix.overflow(next)
	}
	for g := ix.bucket(uint32(pos)); g != nil; {
		for i := 0; i < slotsPerGroup && g[i] != 0; i++ {
			it := t.ar.item(uint32(g[i]))
			var a Accessed
			if t.acc != nil {
				raw := getAccess(accessAt(it))
				a.IdleMs = t.idleMs(raw)
				if t.acc.LFU {
					a.Freq = int(t.lfuDecayed(raw))
				}
			}
			fn(entryKey(it), t.value(it), a)
		}
		next := uint32(g[linkWord])
		if next == 0 {
			break
		}
		g = ix.overflow(next)
	}
}
