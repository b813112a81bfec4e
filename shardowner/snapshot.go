package shardowner

import (
	"time"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
	"github.com/corekv/corekv/shardowner/rdbfile"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// A snapshot is the keyspace as it was at one instant, written as RDB
// records while commands go on changing it, without a copy of it and
// without fork. The cut (StartSnapshot) runs on every shard under the locks
// of all of them, as FLUSHALL does, so a transaction over shards is in the
// snapshot whole or not at all. From then on:
//
//   - each table is frozen (kvtable.Freeze): keys stay in their buckets;
//   - the loop walks the buckets in order, for a bounded time per turn
//     (SnapshotStep), and hands the records to the sink in chunks;
//   - before a command writes a key (BeforeWrite, from the call path), or
//     a key expires, a bucket the walk has not reached yet is written
//     first, as it is, and marked so the walk skips it: a write never
//     reaches the snapshot, and every key of the cut does, once;
//   - FLUSHDB and FLUSHALL give the database a new table and leave the old
//     one to the walk, which empties it once it has written it; SWAPDB
//     moves tables, which the walk holds by identity.
//
// Keys whose TTL had passed at the cut are left out, as loading would drop
// them. A big aggregate goes out whole when its bucket does.

// SnapshotSink receives a snapshot's records from the shards, each shard's
// in order; its methods are called on the shard's thread and must not wait
// for the disk.
type SnapshotSink interface {
	// Functions gives the sink the code of each function library, in
	// load order; the first shard calls it before its Cut (every shard
	// holds the same libraries).
	Functions(codes [][]byte)
	// Cut tells the sink the number of keys and of keys with a TTL of each
	// database of the shard at the cut, before any chunk.
	Cut(shard int, keys, expires []int)
	// Chunk takes records of database db (RDB key records: expiry,
	// type, key, object, strings plain: compressing them is the sink's
	// work, off the shard's thread); the sink owns buf from then on.
	Chunk(shard, db int, buf *bytebufferpool.ByteBuffer)
	// Done says the shard has sent all its records.
	Done(shard int)
	// Backlog is the bytes handed over and not written yet: the walk
	// waits while it is high, so the disk sets its pace, not the clients.
	Backlog() int
}

// Snapshot is a shard's part of a snapshot in progress.
type Snapshot struct {
	sink  SnapshotSink
	shard int
	cut   int64 // Unix ms of the cut
	// stepBuckets is how many buckets a step visits at most, whatever its
	// budget (tests take small steps).
	stepBuckets int
	dbs         []snapDB
	db          int // the database the walk is in

	buf   *bytebufferpool.ByteBuffer
	bufDB int
	// access is the access data the file carries for each key, per the
	// policy at the cut.
	access snapAccess
}

// snapAccess says which access data a snapshot writes.
type snapAccess uint8

const (
	noAccess snapAccess = iota
	idleAccess
	freqAccess
)

// snapDB is one database's table as the walk sees it.
type snapDB struct {
	t        *Table
	next     int      // the walk's next position
	n        int      // positions at the cut
	ahead    []uint64 // positions written before the walk reached them, a bit each
	detached bool     // a FLUSH gave the database a new table: Clear this one when walked
}

// Snapshot tuning: how big a chunk grows before it goes to the sink, how
// many buckets a step visits between two looks at the clock, and how much
// may wait for the disk before the walk pauses.
const (
	snapChunk       = 64 << 10
	snapClockEvery  = 16
	snapStepBuckets = 1 << 30
	snapBacklog     = 8 << 20
)

// errNoSnapshot answers a cut whose snapshot has ended (it failed on
// another shard first).
const errNoSnapshot resp.Error = "ERR no such snapshot"

// InternalSnapshot: corekv.snapshot id mode. The cut of snapshot id on
// this shard (StartSnapshot); every shard runs it under the locks of all
// (router's CombineCut), and the client's core answers for mode.
func InternalSnapshot(c *Ctx, argv [][]byte) {
	id, ok := resp.ParseInt(argv[1])
	var sink SnapshotSink
	if ok && c.Shard.SnapshotFor != nil {
		sink = c.Shard.SnapshotFor(uint64(id), c.Shard.Dirty)
	}
	if sink == nil {
		c.W.Err(errNoSnapshot)
		return
	}
	c.Shard.AbortSnapshot()
	c.Shard.StartSnapshot(sink)
	c.W.OK()
}

// StartSnapshot cuts the shard's keyspace for sink; Snap is set until the
// shard has walked it all.
func (s *Shard) StartSnapshot(sink SnapshotSink) {
	sn := &Snapshot{sink: sink, shard: s.ID, cut: s.Clock.Ms, dbs: make([]snapDB, len(s.DBs)), bufDB: -1, stepBuckets: snapStepBuckets}
	switch s.mem.policy {
	case VolatileLRU, AllKeysLRU:
		sn.access = idleAccess
	case VolatileLFU, AllKeysLFU:
		sn.access = freqAccess
	}
	keys, expires := make([]int, len(s.DBs)), make([]int, len(s.DBs))
	for i, t := range s.DBs {
		t.Freeze(true)
		n := t.WalkLen()
		sn.dbs[i] = snapDB{t: t, n: n, ahead: make([]uint64, (n+63)/64)}
		keys[i], expires[i] = t.Len(), t.ExpiresLen()
	}
	s.Snap = sn
	if s.ID == 0 && s.Functions != nil {
		sink.Functions(s.Functions.Codes())
	}
	sink.Cut(s.ID, keys, expires)
}

// SnapshotPacer gives the walk its share of a core's time: clients come
// first. While requests took snapActiveShare or more of the core's time in
// the last snapWindow, the walk runs steps of at most snapActiveStep and,
// after each, waits until snapShare times the step's time has passed, so
// that it takes about 1/snapShare of the core (and the file's writer about
// as much again) whether the requests come back to back or one by one.
// Otherwise (an idle core, or one a monitor polls now and then) it runs
// steps of snapIdleStep back to back.
type SnapshotPacer struct {
	next        time.Time     // an active core's next step, not before
	windowStart time.Time     // of the window work is summed over
	work        time.Duration // requests' time in the window
	active      bool          // the last window's requests took their share
}

// Snapshot pacing.
const (
	snapWindow      = 10 * time.Millisecond
	snapActiveShare = 20 // a twentieth of the core: requests come first
	snapActiveStep  = 200 * time.Microsecond
	snapIdleStep    = 2 * time.Millisecond
	snapShare       = 8
)

// Step runs the walk of s if its turn has come at now, after a loop turn
// whose requests took work, and returns when the loop should come back
// for it: now for at once, later to let clients go first; waiting says the
// walk waits for the sink instead.
func (p *SnapshotPacer) Step(s *Shard, now time.Time, work time.Duration) (next time.Time, waiting bool) {
	p.work += work
	if d := now.Sub(p.windowStart); d >= snapWindow {
		p.active = p.work*snapActiveShare >= d
		p.windowStart, p.work = now, 0
	}
	if !p.active {
		return now, s.SnapshotStep(snapIdleStep)
	}
	if now.Before(p.next) {
		return p.next, false
	}
	waiting = s.SnapshotStep(snapActiveStep)
	end := time.Now()
	p.next = now.Add(snapShare * end.Sub(now))
	return p.next, waiting
}

// SnapshotNow writes a snapshot of shards to sink at once, from a
// goroutine that owns them all (the cores have stopped: the save at
// shutdown). A snapshot they were walking is dropped.
func SnapshotNow(shards []*Shard, sink SnapshotSink) {
	for _, s := range shards {
		s.AbortSnapshot()
		s.StartSnapshot(sink)
	}
	for _, s := range shards {
		for s.Snap != nil {
			if s.SnapshotStep(time.Second) {
				time.Sleep(time.Millisecond)
			}
		}
	}
}

// SnapshotStep walks the snapshot for about budget (the loop gives it what
// its clients leave) and reports whether the walk waits for the sink: the
// loop need not come back at once.
func (s *Shard) SnapshotStep(budget time.Duration) (waiting bool) {
	sn := s.Snap
	if sn.sink.Backlog() > snapBacklog {
		return true
	}
	deadline := time.Now().Add(budget)
	for visited := 0; sn.db < len(sn.dbs); {
		d := &sn.dbs[sn.db]
		for d.next < d.n {
			pos := d.next
			d.next++
			visited++
			if d.ahead[pos>>6]&(1<<(pos&63)) == 0 {
				sn.writeBucket(sn.db, d, pos)
			}
			if visited >= sn.stepBuckets || visited%snapClockEvery == 0 && time.Now().After(deadline) {
				return false
			}
		}
		sn.finishDB(d)
		sn.db++
	}
	sn.flush()
	sn.sink.Done(s.ID)
	s.Snap = nil
	return false
}

// finishDB lets a walked table resize again, or empties a detached one.
func (sn *Snapshot) finishDB(d *snapDB) {
	if d.t == nil {
		return
	}
	d.t.Freeze(false)
	if d.detached {
		d.t.Clear()
	}
	d.t, d.ahead = nil, nil
}

// AbortSnapshot drops the shard's part of a snapshot that will not
// complete.
func (s *Shard) AbortSnapshot() {
	sn := s.Snap
	if sn == nil {
		return
	}
	for i := range sn.dbs {
		sn.finishDB(&sn.dbs[i])
	}
	if sn.buf != nil {
		snapshot.Chunks.Put(sn.buf)
		sn.buf = nil
	}
	s.Snap = nil
}

// BeforeWrite writes ahead of the walk the bucket of key in database db,
// unless the walk has been there: a command is about to change key.
func (s *Shard) BeforeWrite(db int, key []byte) {
	sn := s.Snap
	t := s.DBs[db]
	for i := range sn.dbs {
		d := &sn.dbs[i]
		if d.t != t {
			continue
		}
		// A table empty at the cut gets its first bucket on its first
		// write: positions past the cut's hold no key of the cut.
		pos := t.WalkPos(key)
		if pos >= d.next && pos < d.n && d.ahead[pos>>6]&(1<<(pos&63)) == 0 {
			d.ahead[pos>>6] |= 1 << (pos & 63)
			sn.writeBucket(i, d, pos)
		}
		return
	}
}

// beforeExpire is BeforeWrite for a key of table t about to expire.
func (s *Shard) beforeExpire(t *Table, key []byte) {
	if s.Snap == nil {
		return
	}
	for db, d := range s.DBs {
		if d == t {
			s.BeforeWrite(db, key)
			return
		}
	}
}

// detachForSnapshot gives database db a new, empty table when the
// snapshot still has to walk the one it has, and reports whether it did:
// the caller's FLUSH has nothing left to clear.
func (s *Shard) detachForSnapshot(db int) bool {
	sn := s.Snap
	if sn == nil {
		return false
	}
	old := s.DBs[db]
	for i := range sn.dbs {
		d := &sn.dbs[i]
		if d.t != old {
			continue
		}
		nt := s.newDBTable()
		if w := old.Watching(); w != nil {
			w.Clearing()
			old.SetWatcher(nil)
			nt.SetWatcher(w)
		}
		s.DBs[db] = nt
		d.detached = true
		return true
	}
	return false
}

// writeBucket appends the records of the bucket at pos of database db.
func (sn *Snapshot) writeBucket(db int, d *snapDB, pos int) {
	d.t.WalkAt(pos, func(key []byte, v Value, a kvtable.Accessed) {
		if v.ExpireAt != 0 && v.ExpireAt <= sn.cut {
			return
		}
		if sn.buf != nil && (sn.bufDB != db || len(sn.buf.B) >= snapChunk) {
			sn.flush()
		}
		if sn.buf == nil {
			sn.buf, sn.bufDB = snapshot.Chunks.Get(), db
			sn.buf.B = sn.buf.B[:0]
		}
		// Under an LRU or LFU policy Redis writes each key's idle time or
		// counter, after its expiry, and a load takes them back.
		b := sn.buf.B
		if v.ExpireAt != 0 {
			b = rdbfile.AppendExpire(b, v.ExpireAt)
		}
		switch sn.access {
		case idleAccess:
			b = rdbfile.AppendIdle(b, uint64(a.IdleMs/1000))
		case freqAccess:
			b = rdbfile.AppendFreq(b, byte(a.Freq))
		}
		sn.buf.B = appendKeyBody(b, key, v)
	})
}

func (sn *Snapshot) flush() {
	if sn.buf == nil {
		return
	}
	sn.sink.Chunk(sn.shard, sn.bufDB, sn.buf)
	sn.buf = nil
}
