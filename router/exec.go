package router

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/valyala/bytebufferpool"
)

// EXEC's body. The connection queues its MULTI block in a Block; EXEC hands
// the block here, and an ExecTxn runs it as one Txn: it locks every key the
// block names (and every key the connection WATCHes) on every shard, runs
// the commands in order as parts, and answers their replies as one array.
// What only the connection knows (its database, protocol, watched keys, and
// how to run a home command such as SELECT) it asks through ExecClient.

// Block is the commands a connection queued since MULTI, with their
// arguments in one buffer.
type Block struct {
	cmds  []*Command
	nargs []int
	args  Args // every command's arguments, one after another
}

// Reset empties b for a new MULTI, letting go of buffers a big block grew.
func (b *Block) Reset() {
	if cap(b.cmds) > argsKeep {
		b.cmds, b.nargs = nil, nil
	}
	b.cmds, b.nargs = b.cmds[:0], b.nargs[:0]
	b.args.Reset()
}

// Add queues cmd with a copy of argv.
func (b *Block) Add(cmd *Command, argv [][]byte) {
	b.cmds = append(b.cmds, cmd)
	b.nargs = append(b.nargs, len(argv))
	b.args.Append(argv)
}

// HasFlag reports whether a queued command has flag f.
func (b *Block) HasFlag(f Flag) bool {
	for _, cmd := range b.cmds {
		if cmd.Flags&f != 0 {
			return true
		}
	}
	return false
}

// at returns queued command i, whose first argument is the arg-th of the
// block, and its arguments (valid until the next call).
func (b *Block) at(i, arg int) (*Command, [][]byte) {
	return b.cmds[i], b.args.Slice(arg, b.nargs[i])
}

// oneRound reports whether every command of b sends all its parts at once:
// none has a later round that starts from a reply.
func (b *Block) oneRound() bool {
	for _, cmd := range b.cmds {
		if MultiRound(cmd) {
			return false
		}
	}
	return true
}

// ExecClient is the connection whose block an ExecTxn runs.
type ExecClient interface {
	// DB and Proto are the connection's database and protocol now: a
	// SELECT or HELLO inside the block changes them for what follows.
	DB() int
	Proto() int
	// Watched returns the i-th key the connection WATCHes and its
	// database; ok is false past the last.
	Watched(i int) (db int, key []byte, ok bool)
	// Unwatch forgets the watched keys: EXEC ends a WATCH whatever the
	// check says.
	Unwatch()
	// RunHome runs a home command of the block (SELECT, PING, …) on the
	// connection and returns its reply in a filled slot.
	RunHome(cmd *Command, argv [][]byte) *Slot
	// Ran is told each command of the block once it has run or been sent,
	// and EXEC itself once the block has answered, for MONITOR.
	Ran(cmd *Command, argv [][]byte)
	// Replied is told each command's reply as it goes into EXEC's array:
	// the error statistics count the errors inside.
	Replied(reply []byte)
	// Tracks reports whether the keys cmd reads are tracked for the
	// connection (CLIENT TRACKING, and CLIENT CACHING run in the block).
	Tracks(cmd *Command, argv [][]byte) bool
}

var cmdExec = LookupString("exec")

// ExecTxn is EXEC's transaction; a connection keeps one for its next EXEC.
type ExecTxn struct {
	Txn
	core     Exec // the home core
	ex       Exec // what the parts are sent through (Run's)
	cl       ExecClient
	b        *Block
	parts    []*Slot // each command's reply
	next     int     // next command to start
	arg      int     // index in the block's arguments of next's first
	pending  int     // parts started and not yet answered
	wait     *Slot   // a multi-round command the next must wait for
	stepping bool
	name     [1][]byte // EXEC as the client spelled it, for monitors
	keyPos   []int
}

// RunBlock runs b as one transaction whose reply fills slot (a slot of
// cl's, its Origin.Seq set); name is EXEC as the client spelled it. locks
// are the home shard's.
func (e *ExecTxn) RunBlock(ex Exec, locks *Locks, cl ExecClient, b *Block, name []byte, slot *Slot) {
	n := ex.Shards()
	home := ex.Own().ID
	parts := e.parts[:0]
	for range b.cmds {
		parts = append(parts, nil)
	}
	spelled := append(e.name[0][:0], name...)
	*e = ExecTxn{Txn: e.Txn, core: ex, cl: cl, b: b, parts: parts, keyPos: e.keyPos}
	e.name[0] = spelled
	e.Begin(slot.Client, cl.Proto(), n, slot)
	e.lockBlock(ex, n, home)
	watching := false
	for i := 0; ; i++ {
		db, key, ok := cl.Watched(i)
		if !ok {
			break
		}
		watching = true
		e.LockKey(ShardOf(key, n), db, key)
	}
	if e.Local(home) && !locks.Active() {
		// Nothing else runs on the home shard until the block has run: it
		// needs no locks.
		e.RunUnlocked(ex, e, watching && ex.Own().WatchTouched(slot.Client))
		return
	}
	if !watching {
		// No watch check to wait for: the commands may queue behind the
		// last lock request (Txn.RunEarly). The connection still waits for
		// EXEC's answer: the block's SELECTs and the commands after EXEC
		// share its database. A block of one-round commands goes further:
		// each part follows its shard's lock request (Txn.RunAtOnce).
		if b.oneRound() {
			e.RunAtOnce(false)
		} else {
			e.RunEarly(false)
		}
	}
	e.Start(ex, e)
}

// lockBlock adds what the block's commands touch to the locks: their keys
// in the database each runs in, or whole shards for a command that names
// none.
func (e *ExecTxn) lockBlock(ex Exec, n, home int) {
	b := e.b
	db := e.cl.DB()
	arg := 0
	for i := range b.cmds {
		cmd, argv := b.at(i, arg)
		arg += b.nargs[i]
		if cmd.Flags&FlagWrite != 0 {
			e.Writes()
		}
		switch cmd.RouteFor(argv) {
		case RouteHome:
			if cmd.Home == HomeSelect {
				if d, err := shardowner.DBIndex(argv[1], ex.Databases()); err == "" {
					db = d
				}
			}
		case RouteAll:
			for sh := 0; sh < n; sh++ {
				e.LockShard(sh)
			}
		case RouteCursor:
			e.LockShard(cursorShard(argv, home, n))
		default:
			if !cmd.HasKeys(len(argv)) {
				e.LockShard(home)
				continue
			}
			e.keyPos = cmd.KeyIndexes(e.keyPos[:0], argv)
			if len(e.keyPos) == 0 {
				// A script with no declared key runs on the home shard.
				e.LockShard(home)
				continue
			}
			for _, k := range e.keyPos {
				e.LockKey(ShardOf(argv[k], n), db, argv[k])
			}
			if cmd.ReadsOthers != nil && cmd.ReadsOthers(argv) {
				e.LockShard(ShardOf(argv[e.keyPos[0]], n))
			}
			if to, key, ok := otherDB(cmd, argv, ex.Databases()); ok {
				e.LockKey(ShardOf(key, n), to, key)
			}
		}
	}
}

// cursorShard is the shard a SCAN cursor names (home when the cursor is
// not a number: the command answers the error there).
func cursorShard(argv [][]byte, home, n int) int {
	if cur, ok := shardowner.ParseCursor(argv[1]); ok {
		return int(cur % uint64(n))
	}
	return home
}

// otherDB returns the second database a MOVE or COPY … DB writes to, and
// the key written there.
func otherDB(cmd *Command, argv [][]byte, databases int) (int, []byte, bool) {
	switch cmd.Name {
	case "move":
		d, err := shardowner.DBIndex(argv[2], databases)
		return d, argv[1], err == ""
	case "copy":
		for i := 3; i+1 < len(argv); i++ {
			if resp.EqualFold(argv[i], "db") {
				d, err := shardowner.DBIndex(argv[i+1], databases)
				return d, argv[2], err == ""
			}
		}
	}
	return 0, nil, false
}

// Run starts the block once its keys are held (TxnBody).
func (e *ExecTxn) Run(ex Exec, t *Txn, touched bool) {
	e.ex = ex
	e.cl.Unwatch()
	if touched {
		w := resp.Writer{Proto: e.cl.Proto()}
		w.NullArray()
		e.Finish(ex, w.B)
		e.cl.Ran(cmdExec, e.name[:])
		return
	}
	e.step()
}

// PartDone moves the block on when a command's reply is in (TxnBody).
func (e *ExecTxn) PartDone(ex Exec, t *Txn, s *Slot) {
	e.pending--
	if s == e.wait {
		e.wait = nil
	}
	if !e.stepping {
		e.step()
	}
}

// step starts the commands not yet started, in order, until one must be
// waited for; once every command has answered it finishes.
func (e *ExecTxn) step() {
	b := e.b
	e.stepping = true
	for e.next < len(b.cmds) && e.wait == nil {
		i := e.next
		e.next++
		cmd, argv := b.at(i, e.arg)
		e.arg += b.nargs[i]
		e.startCmd(i, cmd, argv)
		e.cl.Ran(cmd, argv)
	}
	e.stepping = false
	if e.next == len(b.cmds) && e.wait == nil {
		if e.pending == 0 {
			e.finish()
			return
		}
		// Every command has sent all it will: the last shard may let go
		// as soon as it has run them.
		e.ReleaseLast(e.core)
	}
}

// startCmd runs command i of the block: a home command on the connection,
// the others as a part on their shard, or split over several.
func (e *ExecTxn) startCmd(i int, cmd *Command, argv [][]byte) {
	n := e.core.Shards()
	home := e.core.Own().ID
	switch route := cmd.RouteFor(argv); {
	case route == RouteHome:
		e.parts[i] = e.cl.RunHome(cmd, argv)
		return
	case cmd.Route == RouteCursor:
		e.submit(i, cursorShard(argv, home, n), cmd, argv)
		return
	case cmd.Route == RouteAll:
		if n > 1 {
			e.split(i, cmd, argv)
			return
		}
		e.submit(i, home, cmd, argv)
		return
	case !cmd.HasKeys(len(argv)):
		e.submit(i, home, cmd, argv)
		return
	}
	e.keyPos = cmd.KeyIndexes(e.keyPos[:0], argv)
	if len(e.keyPos) == 0 {
		e.submit(i, home, cmd, argv)
		return
	}
	shard := ShardOf(argv[e.keyPos[0]], n)
	if cmd.Split != SplitNone {
		for _, k := range e.keyPos[1:] {
			if ShardOf(argv[k], n) != shard {
				e.split(i, cmd, argv)
				return
			}
		}
	}
	e.submit(i, shard, cmd, argv)
}

func (e *ExecTxn) submit(i, shard int, cmd *Command, argv [][]byte) {
	s := e.NewPart(e.core)
	s.Track = e.cl.Tracks(cmd, argv)
	e.parts[i] = s
	e.pending++
	e.ex.Submit(shard, cmd, e.cl.DB(), e.cl.Proto(), argv, s)
}

func (e *ExecTxn) split(i int, cmd *Command, argv [][]byte) {
	s := e.NewPart(e.core)
	s.Track = e.cl.Tracks(cmd, argv)
	e.parts[i] = s
	e.pending++
	e.core.Own().CmdStat(cmd.StatID(argv)).Calls++
	StartSplit(e.ex, s, cmd, e.cl.DB(), e.cl.Proto(), argv)
	if MultiRound(cmd) && !s.Filled {
		e.wait = s
	}
}

// finish answers the array of the commands' replies and ends the
// transaction.
func (e *ExecTxn) finish() {
	buf := bytebufferpool.Get()
	w := resp.Writer{B: buf.B, Proto: e.cl.Proto()}
	w.Array(len(e.parts))
	for i, s := range e.parts {
		e.cl.Replied(s.Reply)
		w.B = append(w.B, s.Reply...)
		e.core.FreeSlot(s)
		e.parts[i] = nil
	}
	e.Finish(e.core, w.B)
	buf.B = w.B
	bytebufferpool.Put(buf)
	e.cl.Ran(cmdExec, e.name[:])
}
