package shardowner

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// WATCH's part on a shard: which clients watch which keys of its databases,
// and whether a key a client watches was touched since. EXEC fails when any
// shard answers that one was.
//
// A key is touched by every command that writes it, sets or removes its TTL
// or deletes it, expiry included, and by FLUSHDB, FLUSHALL and SWAPDB when it
// exists; the tables report the changes (kvtable.Watcher). As in Redis 7.0,
// a key that had expired but was not deleted yet when it was watched (stale)
// is no key: its deletion, by expiry, DEL or a flush, changes nothing, and
// EXEC does not fail because it has expired. A key that was live when
// watched and has expired since counts as touched even before it is
// deleted.
//
// A client found touched is dirty until Unwatch, and its keys are forgotten
// at once: EXEC will fail whatever happens to them. Unwatch forgets the
// client, and the maps go when they empty, so what a shard holds is bounded
// by the keys its clients watch now and a mark per client found touched;
// the caller unwatches a client at EXEC, DISCARD, UNWATCH and disconnection.
//
// The internal commands the router sends for WATCH, UNWATCH and EXEC:
//
//	corekv.watch <client-id> key [key ...]   +OK, keys of the selected database
//	corekv.unwatch <client-id>               +OK
//	corekv.watched <client-id>               :1 when a watched key was touched, else :0

// watchReg is one client's watch of one key.
type watchReg struct {
	db    int
	key   string
	stale bool // the key had expired, undeleted, when watched; cleared when it is deleted
}

// watchClient is what a shard knows of one client that watches keys on it.
type watchClient struct {
	regs  []*watchReg
	dirty bool // a watched key was touched: EXEC fails
}

// watchDB is the watches of one database, and the watcher of its table
// while it has any.
type watchDB struct {
	s    *Shard
	db   int
	keys map[string]map[int64]*watchReg // key, then client
}

// watches is a shard's WATCH state.
type watches struct {
	dbs     []watchDB
	clients map[int64]*watchClient
	n       int // registrations
}

// Watch registers client's watch of key in database db. A key watched
// twice is registered once, and nothing is registered for a client already
// found dirty.
func (s *Shard) Watch(db int, key []byte, client int64) {
	w := &s.watch
	s.initWatchDBs()
	if w.clients == nil {
		w.clients = make(map[int64]*watchClient)
	}
	c := w.clients[client]
	if c == nil {
		c = &watchClient{}
		w.clients[client] = c
	}
	if c.dirty {
		return
	}
	d := &w.dbs[db]
	m := d.keys[string(key)]
	if _, ok := m[client]; ok {
		return
	}
	if m == nil {
		if d.keys == nil {
			d.keys = make(map[string]map[int64]*watchReg)
			s.DBs[db].SetWatcher(d)
		}
		m = make(map[int64]*watchReg, 1)
		d.keys[string(key)] = m
	}
	found, expired := s.DBs[db].Probe(key)
	r := &watchReg{db: db, key: string(key), stale: found && expired}
	m[client] = r
	c.regs = append(c.regs, r)
	w.n++
}

// WatchTouched reports whether a key client watches on this shard was
// touched since it was watched, or was live then and has expired since.
func (s *Shard) WatchTouched(client int64) bool {
	c := s.watch.clients[client]
	if c == nil {
		return false
	}
	if c.dirty {
		return true
	}
	for _, r := range c.regs {
		if r.stale {
			continue
		}
		if found, expired := s.DBs[r.db].Probe([]byte(r.key)); found && expired {
			return true
		}
	}
	return false
}

// Unwatch forgets every key client watches on this shard, and whether it
// was touched.
func (s *Shard) Unwatch(client int64) {
	w := &s.watch
	c := w.clients[client]
	if c == nil {
		return
	}
	s.dropRegs(client, c)
	delete(w.clients, client)
	if len(w.clients) == 0 {
		w.clients = nil
	}
}

// Watching is the number of (client, key) watches registered on this shard.
func (s *Shard) Watching() int { return s.watch.n }

// dropRegs removes the registrations of client c from the databases' maps.
func (s *Shard) dropRegs(client int64, c *watchClient) {
	w := &s.watch
	for _, r := range c.regs {
		d := &w.dbs[r.db]
		m := d.keys[r.key]
		delete(m, client)
		if len(m) > 0 {
			continue
		}
		delete(d.keys, r.key)
		if len(d.keys) == 0 {
			d.keys = nil
			s.DBs[r.db].SetWatcher(s.watcherOf(r.db))
		}
	}
	w.n -= len(c.regs)
	c.regs = nil
}

// dirty marks client as touched and forgets its keys.
func (s *Shard) dirty(client int64) {
	c := s.watch.clients[client]
	c.dirty = true
	s.dropRegs(client, c)
}

// Touched is the table's report of a change to key (kvtable.Watcher),
// for WATCH and CLIENT TRACKING.
func (d *watchDB) Touched(key []byte, present bool) {
	if d.s.Tracks() {
		d.s.trackTouched(key)
	}
	for client, r := range d.keys[string(key)] {
		if r.stale {
			// Redis leaves a stale key's watch alone until the key is
			// deleted, which ends its staleness.
			if !present {
				r.stale = false
			}
			continue
		}
		d.s.dirty(client)
	}
}

// Clearing is the table's report that FLUSHDB or FLUSHALL is about to empty
// it: the watched keys it holds are touched, but for stale ones, which only
// stop being stale.
func (d *watchDB) Clearing() {
	t := d.s.DBs[d.db]
	for key, m := range d.keys {
		if found, _ := t.Probe([]byte(key)); !found {
			continue
		}
		for client, r := range m {
			if r.stale {
				r.stale = false
				continue
			}
			d.s.dirty(client)
		}
	}
}

// TouchSwapped applies SWAPDB db1 db2 to the watches of the two databases,
// as Redis 7.0 does: a watched key is touched when it exists in either
// database, unless it is stale, or stale or missing on both sides of the
// swap. It must run just before s.DBs[db1] and s.DBs[db2] are swapped, and
// hands each table the other database's watcher so that they follow; SwapDB
// does both.
func (s *Shard) TouchSwapped(db1, db2 int) {
	if db1 == db2 {
		return
	}
	if s.watch.dbs != nil {
		s.touchReplaced(db1, db2)
		s.touchReplaced(db2, db1)
	}
	s.DBs[db1].SetWatcher(s.watcherOf(db2))
	s.DBs[db2].SetWatcher(s.watcherOf(db1))
}

// SwapDB swaps the keyspaces of databases db1 and db2, touching watched keys
// as SWAPDB does.
func (s *Shard) SwapDB(db1, db2 int) {
	s.TouchSwapped(db1, db2)
	s.DBs[db1], s.DBs[db2] = s.DBs[db2], s.DBs[db1]
	if s.Waiters != nil {
		s.Waiters.Swapped(db1, db2)
	}
}

// touchReplaced touches the keys watched in database e whose contents
// database r's are about to replace.
func (s *Shard) touchReplaced(e, r int) {
	te, tr := s.DBs[e], s.DBs[r]
	for key, m := range s.watch.dbs[e].keys {
		inE, _ := te.Probe([]byte(key))
		inR, expR := tr.Probe([]byte(key))
		if !inE && !inR {
			continue
		}
		for client, w := range m {
			switch {
			case w.stale && !inR:
				w.stale = false // a stale key replaced by none
				continue
			case w.stale && expR:
				continue // a stale key replaced by a stale key
			case !w.stale && !inE && expR:
				w.stale = true // no key replaced by a stale key
				continue
			}
			s.dirty(client)
		}
	}
}

// watcherOf is the watcher for database db's table: nil while nothing in it
// is watched.
func (s *Shard) watcherOf(db int) kvtable.Watcher {
	if s.watch.dbs == nil || s.watch.dbs[db].keys == nil && !s.Tracks() {
		return nil
	}
	return &s.watch.dbs[db]
}

// initWatchDBs makes the databases' watchers, once.
func (s *Shard) initWatchDBs() {
	if w := &s.watch; w.dbs == nil {
		w.dbs = make([]watchDB, len(s.DBs))
		for i := range w.dbs {
			w.dbs[i] = watchDB{s: s, db: i}
		}
	}
}

// setWatchers gives each database the watcher it needs now: one while
// keys of it are watched or the shard tracks keys.
func (s *Shard) setWatchers() {
	s.initWatchDBs()
	for db, t := range s.DBs {
		t.SetWatcher(s.watcherOf(db))
	}
}

// clientID reads the client id argument of the internal WATCH commands.
func clientID(c *Ctx, arg []byte) (int64, bool) {
	id, ok := resp.ParseInt(arg)
	if !ok {
		c.W.Err(resp.ErrNotInteger)
	}
	return id, ok
}

// InternalWatch: corekv.watch <client-id> key [key ...].
func InternalWatch(c *Ctx, argv [][]byte) {
	id, ok := clientID(c, argv[1])
	if !ok {
		return
	}
	for _, k := range argv[2:] {
		c.Shard.Watch(c.DB, k, id)
	}
	c.W.OK()
}

// InternalUnwatch: corekv.unwatch <client-id>.
func InternalUnwatch(c *Ctx, argv [][]byte) {
	id, ok := clientID(c, argv[1])
	if !ok {
		return
	}
	c.Shard.Unwatch(id)
	c.W.OK()
}

// InternalWatched: corekv.watched <client-id>. It keeps the watches: EXEC
// asks every shard before it unwatches.
func InternalWatched(c *Ctx, argv [][]byte) {
	id, ok := clientID(c, argv[1])
	if !ok {
		return
	}
	if c.Shard.WatchTouched(id) {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}
