package kvtable

import "sync/atomic"

// Meter counts the bytes a set of tables hold, for maxmemory: a shard sets
// one Meter on each of its databases, and the big aggregates stored in
// them are counted by it too (see SetMeter). Every change is added to
// Bytes where it happens, so reading Bytes costs nothing and is exact.
//
// What it counts, per table: its arena items in use, each by its page's
// stride (its size class and, in a tracking table, the access bytes before
// it; a large entry by its page), its index chunks and
// overflow chunks, its TTL wheel's segment chunks and level arrays, and
// the same for the pages' table of its Order. That is ArenaBytes less the
// free items of partly used pages and the small bookkeeping arrays that grow with the pages rather than with the
// data: page descriptors (64 bytes per page), the index and wheel chunk
// directories, the slice of big aggregates and their Table structs, an
// Order's directory and rank tree, and a big list's index (Table.List),
// which is a Go slice its owner manages.
//
// A Meter is used by the goroutine that owns its tables; only the bytes of
// a table the collector finds unreachable arrive from elsewhere, and are
// taken off Bytes at the next Settle (which Tick runs).
type Meter struct {
	Bytes int64

	lost atomic.Int64 // bytes of tables released by their cleanup, not yet taken off Bytes
}

// Settle takes off Bytes what tables that became unreachable without a
// Clear held: their cleanup runs on another goroutine, which does not
// write Bytes itself.
func (m *Meter) Settle() {
	if m.lost.Load() != 0 {
		m.Bytes -= m.lost.Swap(0)
	}
}

// SetMeter makes m count the bytes the table holds, and those of its big
// aggregates; nil stops the counting. What the table holds already moves
// from its old meter to m, so it may be called at any time, though a shard
// calls it on a new table. A big aggregate stored with SetBig in a metered
// table is counted by its meter from then on.
func (t *Table) SetMeter(m *Meter) {
	p := t.pool
	if p.meter != nil {
		p.meter.Bytes -= p.held
	}
	if m != nil {
		m.Bytes += p.held
	}
	p.meter = m
	for _, o := range t.objs {
		if o != nil && o.pool.meter != m {
			o.SetMeter(m)
		}
	}
}

// Metered returns the meter the table's bytes go to, nil when none.
func (t *Table) Metered() *Meter { return t.pool.meter }

// count adds d to the bytes the pool's tables hold, and to their meter.
// The pool is where they are counted because it is what the tables that
// share it (a table and its Order's pages) are released with.
func (p *blockPool) count(d int) {
	p.held += int64(d)
	if p.meter != nil {
		p.meter.Bytes += int64(d)
	}
}

// collect is a table's cleanup, once it is unreachable: it releases the
// pool, and leaves what the table held for its meter's next Settle, as it
// runs on another goroutine than the meter's owner.
func (p *blockPool) collect() {
	if p.meter != nil && p.held != 0 {
		p.meter.lost.Add(p.held)
	}
	p.meter, p.held = nil, 0
	p.release()
}
