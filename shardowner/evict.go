package shardowner

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// Eviction: with maxmemory set, a write that finds the server's memory over
// the limit first deletes keys the policy picks, on the shard that runs it,
// until the server is back under the limit, the shard down to its share of
// the excess, or the time the policy allows per command
// (maxmemory-eviction-tenacity) spent; the loop goes on in later turns. The
// server's memory is this shard's tables (its Meter) plus what the loop
// counts elsewhere (MemOthers: the other shards' tables, client buffers,
// the process at start), so the limit is the whole server's. Each shard
// evicts its share of an excess in proportion to its size, so shards that
// evict at once free it once between them, and a shard that takes most
// writes, and grows, evicts most.
//
// Picking follows Redis: a policy samples maxmemory-samples keys of each
// database into a pool of the best candidates seen so far, and evicts the
// best one still there; the random policies take any key.

// EvictPolicy is maxmemory-policy.
type EvictPolicy int32

// The policies, in Redis's order of its names.
const (
	VolatileLRU EvictPolicy = iota
	VolatileLFU
	VolatileRandom
	VolatileTTL
	AllKeysLRU
	AllKeysLFU
	AllKeysRandom
	NoEviction
)

// PolicyNames are the policies' names, indexed by EvictPolicy.
var PolicyNames = []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
	"allkeys-lru", "allkeys-lfu", "allkeys-random", "noeviction"}

// Volatile reports whether p evicts only keys with a TTL.
func (p EvictPolicy) Volatile() bool { return p <= VolatileTTL }

// LFU reports whether p keeps access counts rather than access times.
func (p EvictPolicy) LFU() bool { return p == VolatileLFU || p == AllKeysLFU }

func (p EvictPolicy) score() kvtable.Score {
	switch p {
	case VolatileLRU, AllKeysLRU:
		return kvtable.ScoreLRU
	case VolatileLFU, AllKeysLFU:
		return kvtable.ScoreLFU
	case VolatileTTL:
		return kvtable.ScoreTTL
	}
	return kvtable.ScoreNone
}

// MemoryConfig is the memory settings, shared by the server's shards, which
// read them once per turn (SyncMemory).
type MemoryConfig struct {
	MaxMemory    atomic.Int64 // maxmemory in bytes; 0: no limit
	Policy       atomic.Int32 // maxmemory-policy (EvictPolicy)
	Samples      atomic.Int32 // maxmemory-samples
	Tenacity     atomic.Int32 // maxmemory-eviction-tenacity, 0-100
	LFULogFactor atomic.Int32 // lfu-log-factor
	LFUDecayTime atomic.Int32 // lfu-decay-time, minutes
	// Gen counts the changes (CONFIG SET): a core that sees it move takes
	// them up before its next command, not at its next loop turn only.
	Gen atomic.Uint64
}

// NewMemoryConfig returns Redis's defaults.
func NewMemoryConfig() *MemoryConfig {
	m := &MemoryConfig{}
	m.Policy.Store(int32(NoEviction))
	m.Samples.Store(5)
	m.Tenacity.Store(10)
	m.LFULogFactor.Store(10)
	m.LFUDecayTime.Store(1)
	return m
}

// evictPoolSize is how many candidates the pool keeps, as Redis's.
const evictPoolSize = 16

// evictCandidate is one key of the pool: a copy of its name, its database
// and its score (higher: evict sooner).
type evictCandidate struct {
	key   []byte
	db    int
	score uint64
	set   bool
}

// memState is the shard's view of the memory settings and its eviction
// state.
type memState struct {
	limit     int64 // maxmemory; 0: none
	policy    EvictPolicy
	samples   int
	tenacity  int           // maxmemory-eviction-tenacity, which timeLimit follows
	timeLimit time.Duration // per call of MakeRoom; < 0: no limit
	// floor is how far the shard evicts down while the server is over:
	// its share of the excess the loop last saw taken off what it held
	// then, so that shards evicting at once free the excess once between
	// them, each in proportion to its size (PlanEviction).
	floor   int64
	pool    [evictPoolSize]evictCandidate
	nextDB  int    // the random policies' round over the databases
	scratch []byte // the random policies' pick
}

// SyncMemory takes the memory settings of cfg, as the loop does each turn;
// while loading the shard has no limit.
func (s *Shard) SyncMemory(cfg *MemoryConfig, loading bool) {
	m := &s.mem
	m.limit = cfg.MaxMemory.Load()
	if loading {
		m.limit = 0
	}
	p := EvictPolicy(cfg.Policy.Load())
	if p != m.policy {
		m.policy = p
		m.clearPool()
	}
	m.samples = int(cfg.Samples.Load())
	if t := int(cfg.Tenacity.Load()); t != m.tenacity {
		m.tenacity, m.timeLimit = t, tenacityLimit(t)
	}
	s.access.LFU = p.LFU()
	s.access.LogFactor = int(cfg.LFULogFactor.Load())
	s.access.DecayMinutes = int(cfg.LFUDecayTime.Load())
}

// tenacityLimit is the time one eviction pass may take: 50 µs per step up
// to 10 (Redis's default, 500 µs; at 0 a pass stops after its first 16
// keys), 15% more per step above, no limit (-1) at 100.
func tenacityLimit(t int) time.Duration {
	switch {
	case t <= 10:
		return time.Duration(t) * 50 * time.Microsecond
	case t < 100:
		return time.Duration(500 * math.Pow(1.15, float64(t-10)) * float64(time.Microsecond))
	}
	return -1
}

func (m *memState) clearPool() {
	for i := range m.pool {
		m.pool[i].set = false
	}
}

// SetNoTouch makes the shard's reads leave the keys' access data as it is
// (CLIENT NO-TOUCH), or undoes it.
func (s *Shard) SetNoTouch(on bool) {
	for _, t := range s.DBs {
		t.NoTouch = on
	}
}

// MemLimited reports whether maxmemory is set.
func (s *Shard) MemLimited() bool { return s.mem.limit > 0 }

// EvictFloor is how far the shard evicts down this turn (PlanEviction).
func (s *Shard) EvictFloor() int64 { return s.mem.floor }

// MemUsed is the bytes the shard's tables hold (kvtable.Meter).
func (s *Shard) MemUsed() int64 { return s.Meter.Bytes }

// MemOver is how far the server's memory is over maxmemory, by this shard's
// view: its own tables now, the rest as the loop last counted it.
func (s *Shard) MemOver() int64 {
	if s.mem.limit <= 0 {
		return 0
	}
	return s.Meter.Bytes + s.MemOthers - s.mem.limit
}

// PlanEviction sets how far the shard evicts before the loop next counts:
// otherTables is the other shards' share of MemOthers. A shard over its
// share of the limit evicts down to it; under it, a write that takes the
// server over evicts what it takes.
func (s *Shard) PlanEviction(otherTables int64) {
	own := s.Meter.Bytes
	over := s.MemOver()
	s.mem.floor = 0
	if over > 0 && own+otherTables > 0 {
		s.mem.floor = own - int64(float64(over)*float64(own)/float64(own+otherTables))
	}
}

// Evictable reports whether the policy has a key of this shard to evict.
func (s *Shard) Evictable() bool {
	p := s.mem.policy
	if p == NoEviction {
		return false
	}
	for _, t := range s.DBs {
		if p.Volatile() && t.ExpiresLen() > 0 || !p.Volatile() && t.Len() > 0 {
			return true
		}
	}
	return false
}

// ErrOOM is Redis's refusal of a command that may grow memory past
// maxmemory.
const ErrOOM resp.Error = "OOM command not allowed when used memory > 'maxmemory'."

// MakeRoom evicts keys while the server is over maxmemory and the shard
// above its floor (PlanEviction), within the policy's time limit. The call
// path runs it before every write, the loop once per turn. It reports
// false when the server stays over with no key left that the policy could
// evict, on this shard or, as the loop last saw, any other: a command that
// may grow memory is then refused, as Redis refuses it.
func (s *Shard) MakeRoom() bool {
	if s.MemOver() <= 0 || s.HoldEviction {
		return true
	}
	if s.mem.policy == NoEviction {
		return false
	}
	start := time.Now()
	n := 0
	for s.MemOver() > 0 && s.Meter.Bytes > s.mem.floor {
		if !s.evictOne() {
			return s.OthersEvictable
		}
		n++
		if n%16 == 0 && s.mem.timeLimit >= 0 && time.Since(start) >= s.mem.timeLimit {
			break // the rest in later turns
		}
	}
	return true
}

// evictOne evicts the key the policy picks, reporting false when there is
// none.
func (s *Shard) evictOne() bool {
	// An eviction is no command's change: its invalidations name no
	// writer, and come before the reply of the command it runs for.
	writer := s.tracking.writer
	s.tracking.writer = 0
	defer func() { s.tracking.writer = writer }()
	m := &s.mem
	volatile := m.policy.Volatile()
	score := m.policy.score()
	if score == kvtable.ScoreNone {
		for range s.DBs {
			m.nextDB = (m.nextDB + 1) % len(s.DBs)
			t := s.DBs[m.nextDB]
			found := false
			t.SampleEvict(1, volatile, score, func(k []byte, _ uint64) {
				if !found {
					m.scratch, found = append(m.scratch[:0], k...), true
				}
			})
			if found && s.evictKey(m.nextDB, m.scratch) {
				return true
			}
		}
		return false
	}
	// Every candidate a sampling round offers is live, so a round that
	// finds only ghosts is rare; a few rounds bound the search all the same.
	for range 4 {
		seen := false
		for db, t := range s.DBs {
			if volatile && t.ExpiresLen() == 0 || t.Len() == 0 {
				continue
			}
			seen = true
			t.SampleEvict(m.samples, volatile, score, func(k []byte, sc uint64) {
				m.offer(db, k, sc)
			})
		}
		if !seen {
			return false
		}
		// The best candidate still there is the pick; one deleted or
		// changed since it was sampled is dropped.
		for i := evictPoolSize - 1; i >= 0; i-- {
			c := &m.pool[i]
			if !c.set {
				continue
			}
			c.set = false
			if volatile {
				// It may have lost its TTL since.
				if v, ok := peek(s.DBs[c.db], c.key); !ok || v.ExpireAt == 0 {
					continue
				}
			}
			if s.evictKey(c.db, c.key) { // false: gone since
				return true
			}
		}
	}
	return false
}

// peek looks key up without counting it as an access.
func peek(t *Table, key []byte) (Value, bool) {
	was := t.NoTouch
	t.NoTouch = true
	v, ok := t.Get(key)
	t.NoTouch = was
	return v, ok
}

// offer puts a sampled key into the pool if it beats the worst candidate
// there, keeping the pool in ascending order of score.
func (m *memState) offer(db int, key []byte, score uint64) {
	p := &m.pool
	full := p[evictPoolSize-1].set
	if full && score <= p[0].score {
		return // no better than the worst of a full pool
	}
	// Find where it goes: after every candidate it beats. A key sampled
	// again, not accessed since, has the same score: only those can be it.
	i := 0
	for i < evictPoolSize && p[i].set && p[i].score <= score {
		if p[i].score == score && p[i].db == db && string(p[i].key) == string(key) {
			return // already there
		}
		i++
	}
	if i == 0 && full {
		return
	}
	if !p[evictPoolSize-1].set {
		// Room at the end: shift the better ones right.
		spare := p[evictPoolSize-1].key
		copy(p[i+1:], p[i:evictPoolSize-1])
		p[i].key = spare
	} else {
		// Full: drop the worst, shift the worse ones left.
		i--
		spare := p[0].key
		copy(p[:i], p[1:i+1])
		p[i].key = spare
	}
	p[i].key = append(p[i].key[:0], key...)
	p[i].db, p[i].score, p[i].set = db, score, true
}

// evictKey deletes key of database db as an eviction: the snapshot walk
// keeps it first, the journal records a DEL, watchers see the change, and
// the evicted event goes out.
func (s *Shard) evictKey(db int, key []byte) bool {
	t := s.DBs[db]
	if s.Snap != nil {
		s.BeforeWrite(db, key)
	}
	if !t.Delete(key) {
		return false
	}
	if j := s.Journal; j != nil {
		j.Expired(db, key)
	}
	s.Stats.Evicted++
	s.notify(db, NotifyEvicted, "evicted", key)
	return true
}
