package router

import (
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// Flag describes a command the way Redis's command table does; the names are
// the ones COMMAND INFO reports, in the order it reports them.
type Flag uint32

// Command flags.
const (
	FlagWrite Flag = 1 << iota
	FlagReadonly
	FlagDenyOOM
	FlagAdmin
	FlagPubSub
	FlagNoScript
	FlagBlocking
	FlagLoading
	FlagStale
	FlagSkipMonitor
	FlagSkipSlowlog
	FlagFast
	FlagNoAuth
	FlagNoMandatoryKeys // may run with no key (EVAL with numkeys 0)
	FlagNoAsyncLoading  // refused while a replica loads its master's data in the background (SAVE, BGSAVE)
	FlagNoMulti         // refused inside MULTI (SHUTDOWN)
	FlagMovableKeys     // keys that FirstKey, LastKey and Step do not describe (SORT, a key count)
	FlagAllowBusy
)

var flagNames = []string{"write", "readonly", "denyoom", "admin", "pubsub", "noscript",
	"blocking", "loading", "stale", "skip_monitor", "skip_slowlog", "fast", "no_auth", "no_mandatory_keys", "no_async_loading", "no_multi", "movablekeys", "allow_busy"}

// Category is a set of Redis's ACL categories. The bits stand in Redis's
// order, which is the order COMMAND INFO lists a command's categories in.
type Category uint32

// ACL categories.
const (
	CatKeyspace Category = 1 << iota
	CatRead
	CatWrite
	CatSet
	CatSortedSet
	CatList
	CatHash
	CatString
	CatBitmap
	CatHyperLogLog
	CatGeo
	CatStream
	CatPubSub
	CatAdmin
	CatFast
	CatSlow
	CatBlocking
	CatDangerous
	CatConnection
	CatTransaction
	CatScripting
)

var categoryNames = []string{"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous",
	"connection", "transaction", "scripting"}

// CategoryNames returns the names of the categories in c, in Redis's order.
func CategoryNames(c Category) []string { return bitNames(uint32(c), categoryNames) }

// CategoryByName finds the ACL category named name, in any letter case.
func CategoryByName(name string) (Category, bool) {
	for i, n := range categoryNames {
		if strings.EqualFold(n, name) {
			return 1 << i, true
		}
	}
	return 0, false
}

// bitNames returns names[i] for each bit i set in bits, in bit order.
func bitNames(bits uint32, names []string) []string {
	var out []string
	for i, n := range names {
		if bits&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

// Route says where a command runs and, when its keys may live on several
// shards, how the parts are combined into one reply.
type Route uint8

// Routes.
const (
	// RouteHome runs on the connection's own core without touching a keyspace
	// (PING, SELECT, CLIENT, CONFIG, …); the reactor answers it.
	RouteHome Route = iota
	// RouteKey runs on the shard that owns the command's keys. A command with
	// several keys on several shards is split by its Split rule.
	RouteKey
	// RouteAll runs on every shard and combines the replies by Combine.
	RouteAll
	// RouteCursor runs on the shard encoded in the SCAN cursor.
	RouteCursor
)

// Split says how a multi-key command whose keys span shards is cut into
// per-shard parts and how their replies are put back together.
type Split uint8

// Split rules.
const (
	SplitNone    Split = iota // single key, or cross-shard not allowed
	SplitSumInt               // DEL/EXISTS/UNLINK/TOUCH: per-shard part with the same name, integer replies added
	SplitPairsOK              // MSET: key/value pairs per shard, +OK
	SplitPerKey               // MGET: one GET per key, replies concatenated under one array header
	SplitMSETNX               // MSETNX: EXISTS on every part, then MSET if none existed
	SplitMoveKey              // RENAME/RENAMENX/COPY: take or dump the source, restore at the destination
	SplitGather               // run whole on the home core over the keys' values, gathered from their shards (gather.go)
)

// Combine says how replies of a RouteAll command become one reply.
type Combine uint8

// Combine rules.
const (
	CombineSumInt      Combine = iota // DBSIZE
	CombineOK                         // FLUSHDB, FLUSHALL
	CombineConcatArray                // KEYS
	CombineRandomKey                  // RANDOMKEY: a shard's key, shards weighted by their key counts
	CombineSlowlog                    // SLOWLOG: entries merged newest first, lengths summed
	// CombinePublish: PUBLISH/SPUBLISH, sent only to the shards whose core
	// has subscribers (Exec.HasSubscribers), receiver counts added. It
	// takes no locks: a message touches no key.
	CombinePublish
	// CombineHome: the client's core answers through Exec.HomeReply once
	// every shard has run its part (INFO, CONFIG RESETSTAT).
	CombineHome
	// CombineCut: as CombineHome, but every shard's part runs under the
	// locks of all shards, at one instant for every transaction (a
	// snapshot's cut, DEBUG RELOAD's load).
	CombineCut
	// CombineDigest: DEBUG DIGEST's parts XORed (CombineDigest's plan).
	CombineDigest
	// CombineFirst: every shard answers alike (FUNCTION, whose libraries
	// each shard keeps); the first shard's reply stands for all.
	CombineFirst
)

// HomeID names the reactor's handler of a RouteHome command: connection
// and server commands need the connection or the whole server, which this
// package does not know, so the table names them and the reactor maps each
// name to its function.
type HomeID uint8

// Home command handlers.
const (
	HomeNone HomeID = iota
	HomeAuth
	HomeClient
	HomeCommand
	HomeConfig
	HomeDebug
	HomeEcho
	HomeHello
	HomeInfo
	HomeLastSave
	HomeSave
	HomeBgSave
	HomeBgRewriteAOF
	HomePing
	HomeQuit
	HomeReset
	HomeSelect
	HomeShutdown
	HomeTime
	HomeMulti
	HomeExec
	HomeDiscard
	HomeWatch
	HomeUnwatch
	HomeSubscribe
	HomeUnsubscribe
	HomePSubscribe
	HomePUnsubscribe
	HomeSSubscribe
	HomeSUnsubscribe
	HomePubsub
	HomeLatency
	HomeMonitor
	HomeScript
	HomeFunction // FUNCTION's subcommands that run at home (KILL, STATS, HELP)
	HomeCount    // number of home handlers, for tables indexed by HomeID
)

// Command is one row of the command table.
type Command struct {
	Name     string // lower case, as COMMAND reports it
	Arity    int    // argc including the name; negative means at least -Arity
	Flags    Flag
	FirstKey int // position of the first key, 0 if none
	LastKey  int // position of the last key; negative counts from the end
	Step     int // distance between keys
	// NumKeys is the position of a key count whose keys follow it
	// (SINTERCARD, ZUNION, LMPOP…); FirstKey…LastKey then name the keys
	// before the count (a destination) and the first counted one.
	NumKeys int
	// Keys, when set, finds the keys by reading the arguments (SORT's
	// STORE destination) in place of FirstKey…LastKey and NumKeys.
	Keys func(dst []int, argv [][]byte) []int
	// ReadsOthers, when set, reports whether argv makes the command read
	// keys that no key position names (SORT's BY and GET patterns): such a
	// command holds its shard whole, so that it never sees a transaction
	// half done there.
	ReadsOthers func(argv [][]byte) bool
	// Member is the position of the member or field the command looks up
	// in the key's aggregate (SADD, HGET, ZSCORE…), 0 if none: a shard
	// reads it ahead in a big aggregate's own table.
	Member  int
	Route   Route
	Split   Split
	Combine Combine
	Run     shardowner.Handler // nil for RouteHome commands
	// RunAs, when set, runs the command in place of Run on the call path,
	// knowing for whom it runs: a script, whose calls are commands of the
	// same client (script.go). Run then serves the AOF loader.
	RunAs    func(c *shardowner.Ctx, argv [][]byte, o Origin) (failed bool)
	Home     HomeID // the reactor's handler of a RouteHome command
	Internal bool   // shard-to-shard only: not callable by clients, not in COMMAND
	// Cats are the command's ACL categories beyond those its flags imply
	// (Categories).
	Cats Category
	// Subcommands are a container command's subcommands (CONFIG GET…),
	// named "container|sub", for COMMAND INFO and GETKEYS; the container
	// runs them itself.
	Subcommands []Command
	// Specs to args describe the command for COMMAND; routing reads none
	// of them, so they stay out of its way at the end.
	//
	// Specs are the key specifications COMMAND reports, as Redis has them
	// (parseKeySpecs reads the notation): FirstKey…LastKey and NumKeys
	// route, these describe; a test holds them to agree.
	Specs string
	// VarFlags, for a command whose key spec has variable_flags, says what
	// it does with its key for argv (SET's GET).
	VarFlags func(argv [][]byte) KeyFlag
	// Tips are Redis's hints to clients about the reply and where to send
	// the command, separated by spaces.
	Tips string
	// COMMAND DOCS: Redis 7.0's documentation of the command.
	Group      string // generic, string, hash, set, connection, server…
	Summary    string
	Since      string // the version that brought it
	Complexity string
	// Deprecated is the version since which the command is deprecated and
	// what replaces it, separated by a space.
	Deprecated string
	SysCmd     bool     // documented as a system command (DEBUG)
	History    []string // changes, each a version then what changed
	Args       string   // the arguments, in parseArgs's notation
	keySpecs   []KeySpec
	args       []Arg
	ID         int // index in the table, or a subcommand's past it (StatID), set at init
}

// ArityOK reports whether argc arguments (name included) fit the arity.
func (c *Command) ArityOK(argc int) bool {
	if c.Arity >= 0 {
		return argc == c.Arity
	}
	return argc >= -c.Arity
}

// Categories returns the command's ACL categories: those stated in Cats and
// those its flags imply, as Redis derives them (a command that is not fast
// is slow).
func (c *Command) Categories() Category {
	cats := c.Cats
	if c.Flags&FlagWrite != 0 {
		cats |= CatWrite
	}
	if c.Flags&FlagReadonly != 0 && cats&CatScripting == 0 {
		// EVAL_RO is read-only but runs what it is given: not @read.
		cats |= CatRead
	}
	if c.Flags&FlagAdmin != 0 {
		cats |= CatAdmin | CatDangerous
	}
	if c.Flags&FlagPubSub != 0 {
		cats |= CatPubSub
	}
	if c.Flags&FlagFast != 0 {
		cats |= CatFast
	}
	if c.Flags&FlagBlocking != 0 {
		cats |= CatBlocking
	}
	if cats&CatFast == 0 {
		cats |= CatSlow
	}
	return cats
}

// StatID returns the index of the statistics a run of c with argv counts
// in (StatNames): the subcommand's for a container, as Redis counts them,
// or -1, counted nowhere, when the container has no subcommand of that
// name (Redis refuses it before it counts).
func (c *Command) StatID(argv [][]byte) int {
	if len(c.Subcommands) == 0 || len(argv) < 2 {
		return c.ID
	}
	if s := c.Subcommand(argv[1]); s != nil {
		return s.ID
	}
	return -1
}

// RouteFor is the route of cmd run with argv: a subcommand that names a
// home handler runs at home though its container runs on the shards
// (FUNCTION KILL and STATS, which answer while a shard is busy).
func (c *Command) RouteFor(argv [][]byte) Route {
	if c.Route != RouteHome && c.Home != HomeNone && len(argv) > 1 {
		if s := c.Subcommand(argv[1]); s != nil && s.Home != HomeNone {
			return RouteHome
		}
	}
	return c.Route
}

// FlagsFor are the flags of cmd run with argv: a container's and its
// subcommand's.
func (c *Command) FlagsFor(argv [][]byte) Flag {
	if len(c.Subcommands) > 0 && len(argv) > 1 {
		if s := c.Subcommand(argv[1]); s != nil {
			return c.Flags | s.Flags
		}
	}
	return c.Flags
}

// Subcommand finds the subcommand of a container named sub in any letter
// case, or returns nil.
func (c *Command) Subcommand(sub []byte) *Command {
	for i := range c.Subcommands {
		s := &c.Subcommands[i]
		if resp.EqualFold(sub, s.Name[len(c.Name)+1:]) {
			return s
		}
	}
	return nil
}
