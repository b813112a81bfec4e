package kvtable

// Watcher hears of the changes to a table's keys, for WATCH: a shard sets
// one on a table while some client watches a key of it, and clears it
// after, so that a table nobody watches pays one nil check per change.
//
// Its methods run in the middle of a table operation: they must not change
// the table, but for SetWatcher, and only Clearing may read it (Probe). The
// key they are given is valid during the call only.
type Watcher interface {
	// Touched is told that key was written, had its TTL set or removed, or
	// was deleted (expiry included); present is whether key still has an
	// entry.
	Touched(key []byte, present bool)
	// Clearing is told that Clear is about to empty the table.
	Clearing()
}

// SetWatcher sets the table's watcher; nil removes it.
func (t *Table) SetWatcher(w Watcher) { t.watcher = w }

// touched tells the watcher, if any, that key changed.
func (t *Table) touched(key []byte, present bool) {
	if t.watcher != nil {
		t.watcher.Touched(key, present)
	}
}

// Modified tells the watcher that a command changed key without the table
// seeing it: a write whose result the table does not hold (a SET whose
// expiry has already passed), or a change made in place to a value the
// table holds as an object.
func (t *Table) Modified(key []byte) {
	if t.watcher != nil {
		t.watcher.Touched(key, t.lookup(t.hash(key), key) != 0)
	}
}

// Probe reports whether key has an entry and whether that entry's TTL has
// passed, without deleting it as Get would.
func (t *Table) Probe(key []byte) (found, expired bool) {
	w := t.lookup(t.hash(key), key)
	if w == 0 {
		return false, false
	}
	return true, t.isExpired(t.ar.item(uint32(w)))
}

// Watching returns the table's watcher, nil when none: a change that WATCH
// must not see (an encoding conversion) sets nil around it.
func (t *Table) Watching() Watcher { return t.watcher }
