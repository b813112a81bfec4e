package router

import (
	"time"

	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/journal"
)

// epoch is the origin of Now. It carries a monotonic reading, so time.Since
// reads only the monotonic clock, once.
var epoch = time.Now()

// Now is a monotonic clock reading in nanoseconds, for timing commands.
func Now() int64 { return int64(time.Since(epoch)) }

// Origin says for whom and as what a command runs on a shard.
type Origin struct {
	Client int64 // the connection's ID, for the slow log
	// Part marks one part of a command split over shards: the home core
	// counts the command's call and failure once, and the part adds its
	// time.
	Part bool
	// Lead marks the part that stands for the whole in the slow log.
	Lead bool
	// Held marks a part of a transaction (Txn): it runs under the keys
	// its transaction holds on the shard, where other commands wait.
	Held bool
	// Seq tells apart the transactions one connection has in flight
	// (MaxTxns at most): a transaction is (Client, Seq) to the shards.
	Seq uint8
	// NoTouch: the client is in CLIENT NO-TOUCH mode, so the keys the
	// command reads keep their access data (but under TOUCH).
	NoTouch bool
	// Track: the client tracks the keys this command reads (CLIENT
	// TRACKING, with CLIENT CACHING as its mode asks): a read-only
	// command's keys are remembered for it on their shard.
	Track bool
}

// MaxTxns is how many transactions one connection may have in flight; Seq
// counts modulo twice as many, so a new one never takes the number of one
// still running.
const MaxTxns = 16

// Call runs cmd with argv on the shard and database of ctx, its reply going
// to ctx.W. Every command that runs on a shard passes here (or, when a
// Group times small commands together, through run and Group.Ran; Run does
// either), whether its client is
// on this core, on another (router.Batch), or it is one part of a
// multi-shard plan, so this is where a command's run is accounted: its
// call, time and failure in the shard's command statistics, and the slow
// log. It is also where a change is journaled (run, journaled), which the
// append-only file and later the replicas consume; WATCH and keyspace
// notifications hear of changes from the tables and the handlers
// themselves.
//
// start is the clock (Now) when the command began; Call returns the clock
// when it ended, so that a caller running commands back to back reads the
// clock once per command.
//
// A blocking command may park (Blocking) unless it is a part of a plan or a
// transaction, which answers at once; one that parked (ctx.Blocked) is
// accounted when it answers.
func Call(ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin, start int64) int64 {
	if cmd.Flags&FlagBlocking != 0 {
		ctx.MayBlock = !o.Part && !o.Held && !ctx.Scripted
		ctx.Blocked = false
		failed := run(ctx, cmd, argv, o)
		ctx.MayBlock = false
		if ctx.Blocked {
			return start
		}
		return Account(ctx.Shard, cmd, argv, o, start, failed)
	}
	failed := run(ctx, cmd, argv, o)
	if ctx.Shard.Waiters != nil && (cmd.FlagsFor(argv)&FlagWrite != 0 || cmd.Internal) {
		signalKeys(ctx, cmd, argv)
	}
	return Account(ctx.Shard, cmd, argv, o, start, failed)
}

// signalKeys tells the shard's parked blocking commands of the keys a
// write named: the table reports the keys it creates, but a key replaced
// whole (RENAME, COPY … REPLACE or a STORE over a key of another type) may
// now hold what they wait for too, and a key deleted or overwritten (DEL,
// SET) or a group destroyed ends a blocked XREADGROUP with an error.
func signalKeys(ctx *shardowner.Ctx, cmd *Command, argv [][]byte) {
	var buf [16]int
	for _, i := range cmd.KeyIndexes(buf[:0], argv) {
		if ctx.Shard.Waiters.Waiting(ctx.DB, argv[i]) {
			ctx.Shard.Waiters.Created(ctx.DB, argv[i])
		}
	}
}

// run runs cmd's handler, for Call and for a command a Group times, and
// reports whether it replied an error. While the shard journals, it also
// records what the command changed (journaled).
func run(ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin) (failed bool) {
	if o.Track || ctx.Shard.Tracks() {
		return runTracked(ctx, cmd, argv, o)
	}
	return runCmd(ctx, cmd, argv, o)
}

// runTracked is run where CLIENT TRACKING is in play: a change names the
// client whose command made it (NOLOOP), and a tracking client's read-only
// command has its keys remembered once it has run.
func runTracked(ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin) (failed bool) {
	sh := ctx.Shard
	sh.SetTrackingWriter(o.Client)
	failed = runCmd(ctx, cmd, argv, o)
	sh.SetTrackingWriter(0)
	// A command run whole on the client's core reads its keys' values
	// through corekv.dumps on their shards (gather.go).
	if o.Track && cmd.RunAs == nil && (cmd.FlagsFor(argv)&FlagReadonly != 0 || cmd == cmdDumps) {
		var buf [16]int
		for _, i := range cmd.KeyIndexes(buf[:0], argv) {
			sh.TrackKey(o.Client, argv[i])
		}
	}
	return failed
}

// runCmd is run's body.
func runCmd(ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin) (failed bool) {
	if o.NoTouch && cmd.Name != "touch" {
		sh := ctx.Shard
		sh.SetNoTouch(true)
		defer sh.SetNoTouch(false)
	}
	if cmd.RunAs != nil {
		return cmd.RunAs(ctx, argv, o)
	}
	whole := !o.Part && !o.Held && !ctx.Scripted
	if ctx.Shard.MemLimited() && (cmd.Flags&FlagWrite != 0 || whole && !cmd.Internal) && !ctx.Shard.MakeRoom() &&
		cmd.Flags&FlagDenyOOM != 0 && whole {
		// Redis evicts before every command a client sends (so that a
		// read's invalidations of evicted keys come before its reply),
		// and before every write. The home core refuses what it knows
		// to be out of memory; this is what became so within its turn.
		// A part of a command over several shards runs: its other parts
		// may have.
		ctx.W.Err(shardowner.ErrOOM)
		return true
	}
	if ctx.Shard.Snap != nil && (cmd.Flags&FlagWrite != 0 || cmd.Internal) {
		snapshotAhead(ctx, cmd, argv)
	}
	if j := ctx.Shard.Journal; j != nil {
		return journaled(j, ctx, cmd, argv, o)
	}
	errs := ctx.W.Errors
	cmd.Run(ctx, argv)
	return ctx.W.Errors != errs
}

// snapshotAhead lets a snapshot being walked write the keys cmd may
// change before it changes them (shardowner.BeforeWrite): the keys it
// names, and under MOVE and COPY … DB the key in the other database.
func snapshotAhead(ctx *shardowner.Ctx, cmd *Command, argv [][]byte) {
	sh := ctx.Shard
	var buf [16]int
	for _, i := range cmd.KeyIndexes(buf[:0], argv) {
		sh.BeforeWrite(ctx.DB, argv[i])
	}
	if to, ok := copyTarget(cmd, argv, len(sh.DBs)); ok && to != ctx.DB {
		sh.BeforeWrite(to, argv[2])
	}
	if cmd.Name == "move" && len(argv) == 3 {
		if to, err := shardowner.DBIndex(argv[2], len(sh.DBs)); err == "" && to != ctx.DB {
			sh.BeforeWrite(to, argv[1])
		}
	}
}

// journaled runs cmd as run does and records its change in the shard's
// journal: what the handler propagated itself (Ctx.Propagate), else, for a
// command that changed something, the command as received. A command every
// shard runs its slice of (FLUSHALL, SWAPDB) is recorded whenever it
// succeeds, as Redis propagates it even when there was nothing to change.
// A part of a transaction records into the transaction's part on this
// shard, which its unlock closes (shardowner.InternalUnlock).
func journaled(j *journal.Journal, ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin) (failed bool) {
	errs := ctx.W.Errors
	dirty := ctx.Shard.Dirty
	j.Begin(journal.Owner{Client: o.Client, Seq: o.Seq}, o.Held, ctx.Scripted)
	cmd.Run(ctx, argv)
	failed = ctx.W.Errors != errs
	if !j.Explicit() && !ctx.Blocked && !cmd.Internal {
		switch {
		case cmd.Route == RouteAll && cmd.FlagsFor(argv)&FlagWrite != 0:
			if !failed {
				j.Shared(ctx.DB, argv...)
			}
		case ctx.Shard.Dirty != dirty:
			// A write, or a read that writes what it computed
			// (PFCOUNT's cache, as Redis's may-replicate).
			j.Record(ctx.DB, argv...)
		}
	}
	j.End()
	return failed
}

// RecordKeys returns the keys a journal record names, by the command
// table, for journal.Merge: a command every shard runs (FLUSHALL, SWAPDB),
// and one the table does not know, touch all.
func RecordKeys(argv [][]byte) (keys [][]byte, all bool) {
	cmd := Lookup(argv[0])
	if cmd == nil || cmd.Route == RouteAll {
		return nil, true
	}
	if !cmd.HasKeys(len(argv)) {
		return nil, false
	}
	var buf [16]int
	for _, i := range cmd.KeyIndexes(buf[:0], argv) {
		keys = append(keys, argv[i])
	}
	return keys, false
}

// Account records a run of cmd that began at start on shard sh and returns
// the clock now. Commands that run on the client's home core outside any
// keyspace (RouteHome) are accounted through it directly.
func Account(sh *shardowner.Shard, cmd *Command, argv [][]byte, o Origin, start int64, failed bool) int64 {
	end := Now()
	d := end - start
	// Shard-to-shard commands (a transaction's locks, a move's halves) are
	// parts of what a client asked for: neither calls nor slow log entries
	// of their own.
	part := o.Part || cmd.Internal
	stat := cmd.StatID(argv)
	sh.Record(stat, uint64(d), !part, failed && !part)
	// A subcommand its container lacks is refused in Redis, not run: in
	// neither the statistics nor the slow log.
	if stat >= 0 && slowLogged(sh, cmd, o, d) {
		sh.LogSlow(argv, d/1000, o.Client)
	}
	return end
}

// slowLogged reports whether a run of cmd for o that took d nanoseconds
// enters the slow log: a plan's part stands for its command only if it is
// the lead, shard-to-shard commands never do, and EXEC is logged as the
// commands it runs.
func slowLogged(sh *shardowner.Shard, cmd *Command, o Origin, d int64) bool {
	cfg := sh.Slowlog
	if cfg == nil || (o.Part && !o.Lead) || cmd.Internal || cmd.Flags&FlagSkipSlowlog != 0 {
		return false
	}
	t := cfg.SlowerThan.Load()
	return t >= 0 && d/1000 >= t
}

// A clock reading costs more than a small command's accounting, and a
// pipeline runs dozens of small commands between two reads of its socket,
// so a Group lets such commands share readings: it reads the clock once for
// up to groupMax of them and gives each a share of the time they took
// together, in proportion to the bytes it read and wrote plus a fixed cost.
// Usec in INFO commandstats stays a sum of measured time, and the latency
// histogram gets each command's share.
//
// The slow log needs each slow command's own time, so a command shares only
// when nothing but its bytes can make it slow, and its arguments cannot make
// it slow enough to be logged:
//   - it is one of shareable, commands whose work is bounded by their
//     arguments and their reply (not APPEND or SETRANGE, which may move a
//     whole value, nor COPY, KEYS, SCAN or a command of the home core other
//     than PING and ECHO);
//   - its arguments are under bigBytes;
//   - slowlog-log-slower-than is off or at least shareFloor µs, far more
//     than such a command takes.
//
// Any other command is timed alone, from the reading that closes the group
// before it. A reply of bigBytes or more closes its group at once and, by
// its weight, takes nearly all of the group's time, so it is logged with
// close to its own time. Time a group loses while the OS runs another
// thread is shared by its commands and logs none of them: it is not theirs.
const (
	groupMax    = 64
	bigBytes    = 16 << 10
	shareFloor  = 1000 // µs
	fixedWeight = 256  // a small command's table work, in bytes copied
)

// Sharing classes of a command (see Group).
const (
	shareNever  = iota
	shareAlways // its work is bounded by its bytes
	// sharePacked: a command on one member of a hash, set or sorted set.
	// Its work is bounded by its bytes and by the largest packed
	// encoding the thresholds allow (a listpack scanned, an intset
	// converted), so it shares while those are small (packedBounded).
	sharePacked
)

// shareable gives, by command ID, the commands' sharing classes.
var shareable = func() []uint8 {
	class := make([]uint8, len(commands))
	for _, name := range []string{
		"get", "set", "setex", "psetex", "setnx", "getset", "getdel", "getex", "mget", "mset",
		"incr", "decr", "incrby", "decrby", "strlen",
		"exists", "del", "unlink", "touch", "type", "persist",
		"ttl", "pttl", "expiretime", "pexpiretime", "expire", "pexpire", "expireat", "pexpireat",
		// A list's pushes and pops touch one node at an end, and a node
		// holds at most 64 KB whatever list-max-listpack-size says.
		"lpush", "rpush", "lpushx", "rpushx", "lpop", "rpop", "llen",
		"ping", "echo",
	} {
		class[byName[name].ID] = shareAlways
	}
	for _, name := range []string{
		"hset", "hsetnx", "hmset", "hget", "hmget", "hdel", "hlen", "hexists", "hstrlen", "hincrby", "hincrbyfloat",
		"sadd", "srem", "sismember", "smismember", "scard",
		"zadd", "zincrby", "zrem", "zscore", "zmscore", "zcard",
		// A pop's work is its reply's: one member, or count of them.
		"spop", "zpopmin", "zpopmax",
	} {
		class[byName[name].ID] = sharePacked
	}
	return class
}()

// packedMax is the most entries, and bytes of one, that packed encodings
// may hold for sharePacked commands to share: scanning or converting such
// a value takes far less than shareFloor.
const packedMax = 4096

// packedBounded reports whether the shard's thresholds keep packed
// encodings within packedMax.
func packedBounded(sh *shardowner.Shard) bool {
	e := sh.Enc
	return e == nil || e.HashMaxEntries.Load() <= packedMax && e.HashMaxValue.Load() <= packedMax &&
		e.SetMaxIntset.Load() <= packedMax && e.ZSetMaxEntries.Load() <= packedMax && e.ZSetMaxValue.Load() <= packedMax
}

// Group times the commands one shard runs back to back (see above). The
// zero value is ready; Close must follow the last command Run ran with it.
type Group struct {
	n     int
	share uint8 // the highest sharing class that shares, decided as a group starts
	pend  [groupMax]pending
}

// pending is a command run whose time is not yet accounted.
type pending struct {
	id           int32
	weight       uint32
	call, failed bool
}

// Shares reports whether cmd with argv, whose bytes come to size, shares
// the group's readings (see Group). A caller that runs such a command
// itself, as the home core runs PING, accounts it with Ran.
func (g *Group) Shares(sh *shardowner.Shard, cmd *Command, argv [][]byte) (size int, shares bool) {
	for _, a := range argv {
		size += len(a)
	}
	if g.n == 0 {
		g.share = sharing(sh)
	}
	c := shareable[cmd.ID]
	return size, c != shareNever && c <= g.share && size < bigBytes
}

// Ran adds to the group a run of cmd that Shares let share, with out bytes
// of reply, and returns the reading the next command starts from, as Call.
func (g *Group) Ran(sh *shardowner.Shard, cmd *Command, argv [][]byte, o Origin, start int64, size, out int, failed bool) int64 {
	out = min(max(out, 0), 1<<30)
	g.pend[g.n] = pending{id: int32(cmd.StatID(argv)), weight: uint32(fixedWeight + size + out), call: !o.Part, failed: failed && !o.Part}
	g.n++
	if out >= bigBytes {
		end := Now()
		if d := g.spread(sh, end-start); slowLogged(sh, cmd, o, d) {
			sh.LogSlow(argv, d/1000, o.Client)
		}
		return end
	}
	if g.n == groupMax {
		return g.Close(sh, start)
	}
	return start
}

// Close accounts the pending commands, which ran from start until now, and
// returns the clock now; with none pending it returns start.
func (g *Group) Close(sh *shardowner.Shard, start int64) int64 {
	if g.n == 0 {
		return start
	}
	end := Now()
	g.spread(sh, end-start)
	return end
}

// spread gives the pending commands their shares of d nanoseconds and
// returns the last one's, which takes what rounding left. A run of equal
// pending commands is recorded at once.
func (g *Group) spread(sh *shardowner.Shard, d int64) int64 {
	var total uint64
	for _, p := range g.pend[:g.n] {
		total += uint64(p.weight)
	}
	per := float64(d) / float64(total)
	last := g.n - 1
	left := d
	for i := 0; i < last; {
		p := g.pend[i]
		j := i + 1
		for j < last && g.pend[j] == p {
			j++
		}
		x := min(int64(per*float64(p.weight)), left/int64(j-i))
		left -= x * int64(j-i)
		sh.RecordN(int(p.id), uint64(x), uint64(j-i), p.call, p.failed)
		i = j
	}
	p := g.pend[last]
	sh.Record(int(p.id), uint64(left), p.call, p.failed)
	g.n = 0
	return left
}

// sharing returns the highest sharing class whose commands may share clock
// readings on sh: none unless the slow log's threshold lets small commands
// share, sharePacked if the encoding thresholds allow it too.
func sharing(sh *shardowner.Shard) uint8 {
	if sh.Slowlog != nil {
		if t := sh.Slowlog.SlowerThan.Load(); t >= 0 && t < shareFloor {
			return shareNever
		}
	}
	if packedBounded(sh) {
		return sharePacked
	}
	return shareAlways
}
