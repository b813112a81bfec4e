package kvtable

// Compaction: when a size class's pages are mostly free (under 3/4 of their
// items live) the sparsest page is chosen as victim and emptied a few
// entries at a time, each time an entry of the class is freed by a write.
// An emptied page is released. Moving an entry rewrites its index slot and
// its place in the TTL wheel; values returned by Get may move, which is why
// only writes compact.

const (
	// compactMoves is how many entries one freed entry pays to move.
	compactMoves = 2
	// compactRetry is how many frees of a class to wait after finding no
	// victim worth emptying.
	compactRetry = 64
)

func (t *Table) compactStep(c uint8) {
	a := &t.ar
	if c == largeClass {
		return
	}
	v := a.victim[c]
	if v == 0 {
		if a.retry[c] > 0 {
			a.retry[c]--
			return
		}
		if v = a.pickVictim(c); v == 0 {
			a.retry[c] = compactRetry
			return
		}
	}
	for moved := 0; moved < compactMoves && a.victim[c] == v; {
		p := &a.pages[v]
		pos := a.victimPos[c]
		if pos >= uint32(p.bump) {
			// Cannot happen while the page holds live items.
			panic("kvtable: compaction walked past a page's items")
		}
		a.victimPos[c]++
		ref := v<<refItemBits | pos
		if it := a.item(ref); it[0] != 0 {
			if !t.moveEntry(ref, it) {
				a.keepVictim(c)
				return
			}
			moved++
		}
	}
}

// keepVictim gives up emptying class c's victim, which the entries it holds
// found no room to move out of: it takes allocations again.
func (a *arena) keepVictim(c uint8) {
	v := a.victim[c]
	p := &a.pages[v]
	p.evac = false
	if p.used < p.nitems {
		a.pushPartial(v)
	}
	a.victim[c] = 0
	a.retry[c] = compactRetry
}

// moveEntry copies the live entry at ref to a new item and frees ref. It
// reports false, moving nothing, when the arena has no room for the copy.
func (t *Table) moveEntry(ref uint32, it []byte) bool {
	n := entryLen(it)
	nref := t.ar.alloc(n)
	if nref == 0 {
		return false
	}
	dst := t.ar.item(nref)
	copy(dst, it[:n])
	t.moveAccess(dst, it)
	if it[0]&hdrTTL != 0 {
		t.exp.set(entryExpIdx(it), nref)
	}
	t.reindex(t.hash(entryKey(it))&hashHigh|uint64(ref), nref)
	t.ar.free(ref)
	return true
}
