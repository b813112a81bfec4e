package shardowner

import (
	"log/slog"
	"math/bits"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/journal"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// Clock is the shard's notion of now, in Unix milliseconds. The loop sets it
// once per turn so that every command of a turn sees the same time and no
// handler pays for a clock read.
type Clock = kvtable.Clock

// Shard is one slice of the keyspace: a table per database, owned by one
// thread.
type Shard struct {
	ID    int // index of this shard
	Count int // number of shards in the process
	DBs   []*Table
	Clock Clock
	Stats Stats

	Cmds    []CmdStats      // per statistics index (router's Command.StatID)
	noStats CmdStats        // CmdStat(-1): runs counted nowhere
	Slow    SlowLog         // this shard's part of SLOWLOG
	Slowlog *SlowlogConfig  // shared by the server's shards; nil: no slow log
	Enc     *EncodingConfig // shared by the server's shards

	watch    watches  // WATCH registrations (watch.go)
	tracking tracking // CLIENT TRACKING's tracked keys (tracking.go)

	// Waiters is the registry of the blocking commands parked on the
	// shard (blocking.go), told of the keys writes create; nil while
	// nothing waits.
	Waiters Waiters

	// Hub delivers messages to the subscribers whose connections live on
	// this shard's core (pubsub.go); nil: nobody subscribes here.
	Hub Hub
	// Tracker delivers the invalidations of tracked keys (tracking.go);
	// nil: nobody tracks. TrackingMaxKeys is tracking-table-max-keys,
	// shared by the server's shards; nil: no bound.
	Tracker         Tracker
	TrackingMaxKeys *atomic.Int64
	// HoldEviction: CLIENT PAUSE holds evictions back, as Redis does;
	// MakeRoom then evicts nothing.
	HoldEviction bool
	// Publisher publishes the statistics of the shard's core when INFO or
	// CONFIG RESETSTAT asks (callstats.go); nil: nobody reads them.
	Publisher StatsPublisher
	// Events is notify-keyspace-events (notify.go); nil: none.
	Events *NotifyConfig

	// Journal collects the records of what changes the shard's data, for
	// whoever consumes them; nil: nobody does, and nothing is recorded.
	Journal *journal.Journal
	// Log is the core's logger, for what a handler cannot answer whole
	// (why a file did not load); nil: nothing is logged.
	Log *slog.Logger
	// Snap is the snapshot being walked (snapshot.go); nil: none.
	Snap *Snapshot
	// SnapshotFor finds the sink of the snapshot a cut names, telling it
	// the shard's change count at the cut; nil, or a nil sink: no such
	// snapshot runs.
	SnapshotFor func(id, dirty uint64) SnapshotSink
	// Scripting is the state of the shard's scripts, the router's
	// (router/script.go); nil until the shard runs its first.
	Scripting any
	// Functions are the shard's function libraries (FUNCTION LOAD), kept
	// by the router (router/function.go): snapshots save them, loading a
	// file loads them. nil: the shard keeps none, and a file that holds
	// some does not load.
	Functions FunctionStore
	// Dirty counts the changes made to the shard's data: a handler's
	// keyspace event (Notify) is one, whether or not events are enabled.
	// The call path compares it around a command to know whether the
	// command changed anything.
	Dirty uint64

	notifyChan, notifyMsg []byte // scratch for Notify

	// recording: notifications are kept, not published (notify.go).
	recording   bool
	recorded    []recordedEvent
	recordedOut []RecordedEvent
	recBuf      []byte
	touches     []byte // the keys written while recording, each after its length (notify.go)

	// Meter counts the bytes the shard's tables hold, big aggregates'
	// included; MemOthers is the rest of the server's memory as the loop
	// last counted it (evict.go).
	Meter     kvtable.Meter
	MemOthers int64
	// OthersEvictable: another shard had a key the policy may evict.
	OthersEvictable bool
	mem             memState
	access          kvtable.Access // how the databases' tables keep access data

	rng   uint64      // random draws of the hash and set commands (wyrand)
	lists listScratch // big lists' write keys and tail offsets (listnodes.go)

	streamKey   [5]byte     // streams' node keys (streams.go)
	streamPairs streamPairs // an entry's fields and values (streams.go)
}

// rand returns a pseudo-random number.
func (s *Shard) rand() uint64 {
	s.rng += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(s.rng, s.rng^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Stats are the shard's keyspace counters, as INFO reports them.
type Stats struct {
	Hits    uint64 // reads that found their key (keyspace_hits)
	Misses  uint64 // reads that did not (keyspace_misses)
	Evicted uint64 // keys deleted to stay under maxmemory (evicted_keys)
}

func (s *Stats) countLookup(found bool) {
	if found {
		s.Hits++
	} else {
		s.Misses++
	}
}

// ArenaBytes is the memory the shard's tables hold, index and arenas
// together.
func (s *Shard) ArenaBytes() int {
	n := 0
	for _, t := range s.DBs {
		n += t.ArenaBytes()
	}
	return n
}

// OffHeapBytes is the memory the shard's tables hold outside the Go heap.
func (s *Shard) OffHeapBytes() int {
	n := 0
	for _, t := range s.DBs {
		n += t.OffHeapBytes()
	}
	return n
}

// NewShard returns shard id of count, with the given number of databases.
func NewShard(id, count, databases int) *Shard {
	s := &Shard{ID: id, Count: count, DBs: make([]*Table, databases), Enc: NewEncodingConfig(),
		rng: uint64(id)*0x9e3779b97f4a7c15 + uint64(time.Now().UnixNano())}
	for i := range s.DBs {
		s.DBs[i] = s.newDBTable()
	}
	return s
}

// newDBTable returns an empty table for a database of the shard, with its
// expiry and creation hooks.
func (s *Shard) newDBTable() *Table {
	t := NewTable(&s.Clock)
	t.SetMeter(&s.Meter)
	t.TrackAccess(&s.access)
	t.OnExpire = s.expireHook(t, s.tableHook(t, NotifyExpired, "expired"))
	t.OnNew = s.newHook(t, s.tableHook(t, NotifyNew, "new"))
	return t
}

// errFull answers a write that the shard's table has no room for
// (kvtable.ErrFull: its arena ran out of page numbers, whatever maxmemory
// says). Redis's nearest reply is its OOM error, whose first words clients
// recognise; this one names what is full, which is not maxmemory (ErrOOM).
const errFull resp.Error = "OOM command not allowed when the shard's key table is full"

// stored reports whether a table write went through, answering errFull
// when it did not.
func stored(c *Ctx, err error) bool {
	if err != nil {
		c.W.Err(errFull)
		return false
	}
	return true
}

// FunctionStore is where a shard keeps its function libraries.
type FunctionStore interface {
	// Codes are the libraries' codes, in load order.
	Codes() [][]byte
	// Restore loads the libraries of codes, as an RDB file holds them: a
	// library whose name is held already is an error, unless replace.
	Restore(codes [][]byte, replace bool) error
	// Flush drops every library.
	Flush()
}

// Ctx is what a handler runs with: the shard, the client's selected
// database, and the writer its reply goes to.
type Ctx struct {
	Shard *Shard
	DB    int
	W     *resp.Writer

	// MayBlock lets a blocking command park instead of answering when it
	// finds nothing (blocking.go); it then sets Blocked and writes no
	// reply. ServeKey is the key a parked command is run again for.
	MayBlock bool
	Blocked  bool
	ServeKey []byte
	// Scripted: a script called the command (router/script.go). It never
	// blocks, memory is the script's to check (script.Guard), its change
	// goes into the script's part of the journal, and its reply must not
	// depend on a value's layout (SORT of a set BY a constant is sorted).
	Scripted bool
	// Obey: the command comes from the append-only file, which records
	// what happened: options a client may not combine are taken as
	// Redis's loader takes them (XADD's exact trim with a LIMIT).
	Obey bool
}

// Journaling reports whether the shard records its changes (Propagate
// then matters).
func (c *Ctx) Journaling() bool { return c.Shard.Journal != nil }

// Propagate records argv as what the running command did, in the client's
// database, in place of the command as received: a handler whose command
// would replay differently than it ran (a relative TTL, a random pick, a
// blocked pop) says so here, once per effect. It does nothing unless the
// shard journals.
func (c *Ctx) Propagate(argv ...[]byte) {
	if j := c.Shard.Journal; j != nil {
		j.Propagate(c.DB, argv...)
	}
}

// PreventPropagation records nothing for the running command, whatever
// it changed, as Redis's preventCommandPropagation: for a command whose
// effects need no replay or were propagated in another form already.
func (c *Ctx) PreventPropagation() {
	if j := c.Shard.Journal; j != nil {
		j.Suppress()
	}
}

// Table returns the table of the client's selected database.
func (c *Ctx) Table() *Table { return c.Shard.DBs[c.DB] }

// Handler executes one command on the shard that owns its keys. argv[0] is
// the command name as the client sent it.
type Handler func(c *Ctx, argv [][]byte)
