package shardowner

import (
	"sync/atomic"

	"github.com/corekv/corekv/resp"
)

// CLIENT TRACKING's part on a shard: which clients read which of its keys,
// so that a change to one sends them its invalidation. As Redis's table it
// names keys alone, whatever their database. A client's registration of a
// key lasts until the key changes (the invalidation is sent once) or the
// shard's databases are flushed; one whose client has gone or stopped
// tracking is dropped when its key changes, the client's core finding no
// one to tell.
//
// A key is changed when the tables report it (kvtable.Watcher, as for
// WATCH: writes, TTLs, deletions, expiry and eviction included), so while
// the table holds keys each database has its watcher (watch.go).
//
// Invalidations go to the client's core through the Tracker, from the
// shard's own thread, so they follow, on the ring to that core, the reply
// of every read of the key the shard ran before the change: a client never
// gets an invalidation before the reply it invalidates.
//
// A client in BCAST mode registers prefixes on every shard instead
// (corekv.trackbcast): a change to any key under one of them is noted, and
// at the end of the shard's loop turn each client of the prefix is sent
// the keys noted, in one message (BroadcastTracked), as Redis sends them
// before it sleeps; a NOLOOP client is not sent the keys it changed first.

// Tracker is the part of a core that delivers invalidations to the
// tracking clients of every core.
type Tracker interface {
	// Invalidate tells client that keys changed; writer is the client
	// whose command changed them (0: none, as for expiry), for NOLOOP, or
	// BroadcastWriter for a BCAST client's keys under its prefixes.
	Invalidate(client, writer int64, keys [][]byte)
	// Flushed tells every core that the shard's databases were flushed,
	// for a null invalidation (all keys) to every tracking client.
	Flushed()
	// Deliver, FlushNotice and FlushRedirected are the parts on the
	// client's core of what Invalidate and Flushed send there
	// (corekv.invalidate, corekv.trackflush).
	Deliver(client, writer int64, redirected bool, keys [][]byte)
	FlushNotice(shard int)
	FlushRedirected(client int64)
}

// InternalInvalidate: corekv.invalidate client writer redirected key
// [key ...], an invalidation for a client of this core (Tracker.Deliver).
// Nobody reads its reply.
func InternalInvalidate(c *Ctx, argv [][]byte) {
	client, ok1 := resp.ParseInt(argv[1])
	writer, ok2 := resp.ParseInt(argv[2])
	if ok1 && ok2 && c.Shard.Tracker != nil {
		c.Shard.Tracker.Deliver(client, writer, len(argv[3]) == 1 && argv[3][0] == '1', argv[4:])
	}
	c.W.OK()
}

// InternalTrackFlush: corekv.trackflush shard client, a shard's flush
// notice for this core (client -1: Tracker.FlushNotice), or a flush's null
// invalidation for a client of it (Tracker.FlushRedirected).
func InternalTrackFlush(c *Ctx, argv [][]byte) {
	shard, ok1 := resp.ParseInt(argv[1])
	client, ok2 := resp.ParseInt(argv[2])
	switch {
	case !ok1 || !ok2 || c.Shard.Tracker == nil:
	case client < 0:
		c.Shard.Tracker.FlushNotice(int(shard))
	default:
		c.Shard.Tracker.FlushRedirected(client)
	}
	c.W.OK()
}

// BroadcastWriter is the writer of a BCAST client's invalidation: a key
// tracked for a client that reads it goes to one not in BCAST mode, one
// under a prefix to one in it, as a client may have switched since.
const BroadcastWriter = -1

// tracking is a shard's table of tracked keys, and its BCAST prefixes.
type tracking struct {
	keys     map[string][]int64 // key, then the clients that read it
	prefixes []*bcastPrefix
	noted    bool // a prefix has keys noted to broadcast
	// writer is the client whose command runs, for Tracker.Invalidate.
	writer int64
	// nKeys, nItems and nPrefixes are len(keys), the registrations and
	// len(prefixes), for INFO on any core.
	nKeys, nItems, nPrefixes atomic.Int64
	one                      [1][]byte // the key of a one-key invalidation
}

// bcastPrefix is one BCAST prefix: its clients (true: NOLOOP) and the keys
// under it changed this turn, with the first client that changed each.
type bcastPrefix struct {
	prefix  []byte
	clients map[int64]bool
	keys    [][]byte
	writers []int64
	seen    map[string]bool
}

// TrackKey remembers that client read key (CLIENT TRACKING): its next
// change sends client the invalidation.
func (s *Shard) TrackKey(client int64, key []byte) {
	t := &s.tracking
	if t.keys == nil {
		t.keys = make(map[string][]int64)
		s.setWatchers()
	}
	clients, ok := t.keys[string(key)]
	for _, c := range clients {
		if c == client {
			return
		}
	}
	if !ok {
		t.nKeys.Add(1)
	}
	t.keys[string(key)] = append(clients, client)
	t.nItems.Add(1)
}

// SetTrackingWriter names the client whose command runs next (0: none),
// which changes to tracked keys name as their writer.
func (s *Shard) SetTrackingWriter(client int64) { s.tracking.writer = client }

// trackMaxKeys is this shard's share of tracking-table-max-keys (0: no
// bound).
func (s *Shard) trackMaxKeys() int64 {
	if s.TrackingMaxKeys == nil {
		return 0
	}
	n := s.TrackingMaxKeys.Load()
	if n == 0 {
		return 0
	}
	return max((n+int64(s.Count)-1)/int64(s.Count), 1)
}

// trackEvictStep is the most keys a turn evicts from the tracking table
// when it holds more than tracking-table-max-keys allow.
const trackEvictStep = 1000

// trackEvict evicts keys from the tracking table while it holds more than
// its share of tracking-table-max-keys, at most trackEvictStep a call:
// their clients get their invalidations, as for a change.
func (s *Shard) trackEvict() {
	limit := s.trackMaxKeys()
	t := &s.tracking
	if limit == 0 || int64(len(t.keys)) <= limit {
		return
	}
	for n := 0; n < trackEvictStep && t.keys != nil && int64(len(t.keys)) > limit; n++ {
		for k := range t.keys {
			s.trackInvalidate([]byte(k))
			break
		}
	}
}

// Tracked is the number of keys this shard tracks and of their clients'
// registrations (INFO's tracking_total_keys, tracking_total_items).
func (s *Shard) Tracked() (keys, items int64) {
	return s.tracking.nKeys.Load(), s.tracking.nItems.Load()
}

// trackTouched sends the invalidation of key to the clients that read it,
// and forgets them; under a BCAST prefix it notes key for the turn's
// broadcast.
func (s *Shard) trackTouched(key []byte) {
	t := &s.tracking
	for _, p := range t.prefixes {
		if len(key) < len(p.prefix) || string(key[:len(p.prefix)]) != string(p.prefix) || p.seen[string(key)] {
			continue
		}
		if p.seen == nil {
			p.seen = make(map[string]bool)
		}
		p.seen[string(key)] = true
		p.keys = append(p.keys, append([]byte(nil), key...))
		p.writers = append(p.writers, t.writer)
		t.noted = true
	}
	s.trackInvalidate(key)
}

// trackInvalidate sends the invalidation of key to the clients that read
// it, and forgets them.
func (s *Shard) trackInvalidate(key []byte) {
	t := &s.tracking
	clients, ok := t.keys[string(key)]
	if !ok {
		return
	}
	delete(t.keys, string(key))
	t.nKeys.Add(-1)
	t.nItems.Add(-int64(len(clients)))
	if s.Tracker != nil {
		t.one[0] = key
		for _, c := range clients {
			s.Tracker.Invalidate(c, t.writer, t.one[:])
		}
		t.one[0] = nil
	}
	if len(t.keys) == 0 {
		t.keys = nil
		s.setWatchers()
	}
}

// BroadcastTracked sends each BCAST client the keys under its prefixes
// changed since the last call, one message per prefix; the core calls it
// at the end of its loop turn.
func (s *Shard) BroadcastTracked() {
	t := &s.tracking
	if t.keys != nil {
		s.trackEvict()
	}
	if !t.noted {
		return
	}
	t.noted = false
	var keys [][]byte
	for _, p := range t.prefixes {
		if len(p.keys) == 0 {
			continue
		}
		for client, noloop := range p.clients {
			keys = keys[:0]
			for i, k := range p.keys {
				if !noloop || p.writers[i] != client {
					keys = append(keys, k)
				}
			}
			if len(keys) > 0 && s.Tracker != nil {
				s.Tracker.Invalidate(client, BroadcastWriter, keys)
			}
		}
		clear(p.keys)
		p.keys, p.writers = p.keys[:0], p.writers[:0]
		clear(p.seen)
	}
}

// InternalTrackBCast: corekv.trackbcast client on|noloop|off [prefix ...]
// registers client's BCAST prefixes on this shard (on, or noloop for
// NOLOOP), or forgets all of them (off).
func InternalTrackBCast(c *Ctx, argv [][]byte) {
	client, ok := resp.ParseInt(argv[1])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	s := c.Shard
	t := &s.tracking
	before := len(t.prefixes)
	if resp.EqualFold(argv[2], "off") {
		kept := t.prefixes[:0]
		for _, p := range t.prefixes {
			delete(p.clients, client)
			if len(p.clients) > 0 {
				kept = append(kept, p)
			}
		}
		clear(t.prefixes[len(kept):])
		t.prefixes = kept
	} else {
		noloop := resp.EqualFold(argv[2], "noloop")
		for _, prefix := range argv[3:] {
			var p *bcastPrefix
			for _, q := range t.prefixes {
				if string(q.prefix) == string(prefix) {
					p = q
				}
			}
			if p == nil {
				p = &bcastPrefix{prefix: append([]byte(nil), prefix...), clients: make(map[int64]bool)}
				t.prefixes = append(t.prefixes, p)
			}
			p.clients[client] = noloop
		}
	}
	if (before == 0) != (len(t.prefixes) == 0) {
		s.setWatchers()
	}
	t.nPrefixes.Store(int64(len(t.prefixes)))
	c.W.OK()
}

// TrackedPrefixes is the number of BCAST prefixes this shard holds (INFO's
// tracking_total_prefixes: each shard holds every client's).
func (s *Shard) TrackedPrefixes() int64 { return s.tracking.nPrefixes.Load() }

// trackFlushed forgets every tracked key of the shard after FLUSHDB or
// FLUSHALL, and has every tracking client told, as Redis tells them of a
// flush of any database.
func (s *Shard) trackFlushed() {
	t := &s.tracking
	if t.keys != nil {
		t.keys = nil
		t.nKeys.Store(0)
		t.nItems.Store(0)
		s.setWatchers()
	}
	if s.Tracker != nil {
		s.Tracker.Flushed()
	}
}

// Tracks reports whether the shard tracks keys or BCAST prefixes, whose
// changes then name their writer (SetTrackingWriter).
func (s *Shard) Tracks() bool { return s.tracking.keys != nil || len(s.tracking.prefixes) > 0 }
