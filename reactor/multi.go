package reactor

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
	"github.com/valyala/bytebufferpool"
)

// MULTI/EXEC/DISCARD and WATCH/UNWATCH. A connection in MULTI queues its
// commands here, on its home core; EXEC runs them as one router.Txn, which
// holds every key they name (and every key the connection WATCHes) on every
// shard until they have all run, so the block is isolated across shards as
// it is in Redis on one thread. WATCH registers the keys with the shards
// that own them; the transaction's lock replies say whether one was touched.

// Errors of the transaction commands, as Redis 7 words them.
const (
	errNestedMulti  resp.Error = "ERR MULTI calls can not be nested"
	errExecNoMulti  resp.Error = "ERR EXEC without MULTI"
	errDiscardMulti resp.Error = "ERR DISCARD without MULTI"
	errWatchInMulti resp.Error = "ERR WATCH inside MULTI is not allowed"
	errNoMulti      resp.Error = "ERR Command not allowed inside a transaction"
	errExecAbort    resp.Error = "EXECABORT Transaction discarded because of previous errors."
)

// multiState is a connection's MULTI block: the commands queued since MULTI,
// their arguments in one buffer, and whether one was refused while queueing
// (EXEC then answers EXECABORT).
type multiState struct {
	dirty  bool
	cmds   []*router.Command
	nargs  []int
	args   []byte
	argEnd []int
	argv   [][]byte
}

// multiKeep is the most argument bytes, or commands, a connection's MULTI
// state keeps for its next block.
const multiKeep = 64 << 10

func (m *multiState) reset() {
	m.dirty = false
	m.cmds, m.nargs, m.args, m.argEnd, m.argv = m.cmds[:0], m.nargs[:0], m.args[:0], m.argEnd[:0], m.argv[:0]
}

// queue adds a command to the block.
func (m *multiState) queue(cmd *router.Command, argv [][]byte) {
	m.cmds = append(m.cmds, cmd)
	m.nargs = append(m.nargs, len(argv))
	for _, a := range argv {
		m.args = append(m.args, a...)
		m.argEnd = append(m.argEnd, len(m.args))
	}
}

// each calls fn with every queued command and its arguments, in order.
func (m *multiState) each(fn func(i int, cmd *router.Command, argv [][]byte)) {
	arg, start := 0, 0
	for i, cmd := range m.cmds {
		m.argv = m.argv[:0]
		for k := 0; k < m.nargs[i]; k++ {
			end := m.argEnd[arg]
			m.argv = append(m.argv, m.args[start:end])
			start = end
			arg++
		}
		fn(i, cmd, m.argv)
	}
}

// watchedKeys are the keys a connection WATCHes, each with its database.
type watchedKeys struct {
	buf []byte
	end []int
	db  []int
}

func (k *watchedKeys) each(fn func(db int, key []byte)) {
	start := 0
	for i, end := range k.end {
		fn(k.db[i], k.buf[start:end])
		start = end
	}
}

func (k *watchedKeys) has(db int, key []byte) bool {
	found := false
	k.each(func(d int, kk []byte) { found = found || (d == db && string(kk) == string(key)) })
	return found
}

// runsInMulti reports whether cmd runs at once inside MULTI rather than
// being queued, as in Redis.
func runsInMulti(cmd *router.Command) bool {
	switch cmd.Home {
	case router.HomeExec, router.HomeDiscard, router.HomeMulti, router.HomeWatch, router.HomeQuit, router.HomeReset:
		return true
	}
	return false
}

// queueMulti queues cmd for cn's EXEC, or refuses it, which dooms the
// block. It reports false when cn is not in MULTI or cmd runs at once.
func (c *Core) queueMulti(cn *Conn, cmd *router.Command, argv [][]byte) bool {
	m := cn.multi
	if m == nil || runsInMulti(cmd) {
		return false
	}
	if cmd.Flags&router.FlagNoMulti != 0 {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		m.dirty = true
		cn.errorReply(errNoMulti)
		return true
	}
	if cmd.Route == router.RouteHome {
		if e := subcommandArityErr(cmd, argv); e != "" {
			c.shard.CmdStat(cmd.StatID(argv)).Rejected++
			m.dirty = true
			cn.errorReply(e)
			return true
		}
	}
	if !m.dirty {
		m.queue(cmd, argv)
	}
	w := cn.begin()
	w.Simple("QUEUED")
	cn.end()
	return true
}

// rejectInMulti records that a command of cn was refused: inside MULTI the
// block is doomed, and a refused EXEC ends it.
func (c *Core) rejectInMulti(cn *Conn, cmd *router.Command, e resp.Error) resp.Error {
	if cn.multi == nil {
		return e
	}
	if cmd != nil && cmd.Home == router.HomeExec {
		c.discard(cn)
		// Redis words the arity error here without its ERR prefix.
		msg := string(e)
		if e == resp.ErrWrongArgs(cmd.Name) {
			msg = strings.TrimPrefix(msg, "ERR ")
		}
		return resp.Error("EXECABORT Transaction discarded because of: " + msg)
	}
	cn.multi.dirty = true
	return e
}

func (c *Core) multi(cn *Conn, argv [][]byte) {
	if cn.multi != nil {
		cn.errorReply(errNestedMulti)
		return
	}
	m := cn.multiMem
	if m == nil || cap(m.args) > multiKeep || cap(m.cmds) > multiKeep {
		m = &multiState{}
		cn.multiMem = m
	}
	m.reset()
	cn.multi = m
	cn.okReply()
}

func (c *Core) discardCmd(cn *Conn, argv [][]byte) {
	if cn.multi == nil {
		cn.errorReply(errDiscardMulti)
		return
	}
	c.discard(cn)
	cn.okReply()
}

// discard ends cn's MULTI block and forgets its watched keys.
func (c *Core) discard(cn *Conn) {
	cn.multi = nil
	c.unwatchAll(cn)
}

func (c *Core) watchCmd(cn *Conn, argv [][]byte) {
	if cn.multi != nil {
		cn.errorReply(errWatchInMulti)
		return
	}
	if cn.watched == nil {
		cn.watched = &watchedKeys{}
	}
	k := cn.watched
	n := c.srv.cfg.Shards
	for _, key := range argv[1:] {
		if k.has(cn.db, key) {
			continue
		}
		k.buf = append(k.buf, key...)
		k.end = append(k.end, len(k.buf))
		k.db = append(k.db, cn.db)
	}
	// One registration per shard, sent ahead of the connection's later
	// commands on the same rings. WATCH answers once every shard has
	// registered its keys (the last slot's +OK leaves behind the others,
	// whose replies are dropped): a write another client sends after that
	// answer, from any core, must find the key watched.
	id := strconv.AppendInt(nil, cn.id, 10)
	var last *router.Slot
	for sh := 0; sh < n; sh++ {
		sub := [][]byte{cmdWatchKeys.NameBytes(), id}
		for _, key := range argv[1:] {
			if router.ShardOf(key, n) == sh {
				sub = append(sub, key)
			}
		}
		if len(sub) > 2 {
			if last != nil {
				last.Discard = true
			}
			last = cn.reserve()
			c.Submit(sh, cmdWatchKeys, cn.db, cn.proto, sub, last)
		}
	}
	c.markDirty(cn)
}

func (c *Core) unwatchCmd(cn *Conn, argv [][]byte) {
	c.unwatchAll(cn)
	cn.okReply()
}

// unwatchAll forgets every key cn watches, on the shards that have them.
func (c *Core) unwatchAll(cn *Conn) {
	k := cn.watched
	if k == nil {
		return
	}
	cn.watched = nil
	n := c.srv.cfg.Shards
	on := make([]bool, n)
	k.each(func(db int, key []byte) { on[router.ShardOf(key, n)] = true })
	sub := [][]byte{cmdUnwatchKeys.NameBytes(), strconv.AppendInt(nil, cn.id, 10)}
	for sh, yes := range on {
		if yes {
			c.fireAndForget(sh, cmdUnwatchKeys, 0, cn.id, sub)
		}
	}
}

// fireAndForget runs an internal command on shard whose reply nobody reads.
func (c *Core) fireAndForget(shard int, cmd *router.Command, db int, client int64, argv [][]byte) {
	s := c.NewSlot()
	s.Orphan = true
	s.Client = client
	c.Submit(shard, cmd, db, 2, argv, s)
}

var (
	cmdWatchKeys   = router.LookupString("corekv.watch")
	cmdUnwatchKeys = router.LookupString("corekv.unwatch")
)

// exec runs cn's MULTI block as one transaction.
func (c *Core) exec(cn *Conn, argv [][]byte) {
	m := cn.multi
	if m == nil {
		cn.errorReply(errExecNoMulti)
		c.feedExec(cn, argv[0])
		return
	}
	cn.multi = nil
	if m.dirty {
		c.unwatchAll(cn)
		cn.errorReply(errExecAbort)
		c.feedExec(cn, argv[0])
		return
	}
	n := c.srv.cfg.Shards
	e := cn.execMem
	if e == nil {
		e = &execTxn{}
		cn.execMem = e
	}
	// The previous EXEC has answered: the barrier saw to it.
	parts := e.parts[:0]
	for range m.cmds {
		parts = append(parts, nil)
	}
	*e = execTxn{Txn: e.Txn, c: c, cn: cn, m: m, parts: parts, name: append(e.name[:0], argv[0]...)}
	slot := cn.reserve()
	slot.SetSeq(cn.nextTxnSeq())
	e.Begin(cn.id, cn.proto, n, slot)
	db := cn.db
	m.each(func(i int, cmd *router.Command, argv [][]byte) {
		if cmd.Flags&router.FlagWrite != 0 {
			e.Writes()
		}
		switch cmd.Route {
		case router.RouteHome:
			if cmd.Home == router.HomeSelect {
				if d, err := shardowner.DBIndex(argv[1], c.srv.cfg.Databases); err == "" {
					db = d
				}
			}
		case router.RouteAll:
			for sh := 0; sh < n; sh++ {
				e.LockShard(sh)
			}
		case router.RouteCursor:
			e.LockShard(cursorShard(argv, c.id, n))
		default:
			if !cmd.HasKeys(len(argv)) {
				e.LockShard(c.id)
				return
			}
			c.keyPos = cmd.KeyIndexes(c.keyPos[:0], argv)
			for _, k := range c.keyPos {
				e.LockKey(router.ShardOf(argv[k], n), db, argv[k])
			}
			if cmd.ReadsOthers != nil && cmd.ReadsOthers(argv) {
				e.LockShard(router.ShardOf(argv[cmd.FirstKey], n))
			}
			if to, key, ok := otherDB(cmd, argv, c.srv.cfg.Databases); ok {
				e.LockKey(router.ShardOf(key, n), to, key)
			}
		}
	})
	if k := cn.watched; k != nil {
		k.each(func(db int, key []byte) { e.LockKey(router.ShardOf(key, n), db, key) })
	}
	if e.Local(c.id) && !c.locks.Active() {
		// Nothing else runs on this core's shard until the block has
		// run: it needs no locks.
		e.RunUnlocked(c, e, cn.watched != nil && c.shard.WatchTouched(cn.id))
	} else {
		if cn.watched == nil {
			// No watch check to wait for: the commands may queue behind
			// the last lock request (Txn.RunEarly). The connection still
			// waits for EXEC's answer: the block's SELECTs and the
			// commands after EXEC share its database. A block of
			// one-round commands goes further: each part follows its
			// shard's lock request (Txn.RunAtOnce).
			if oneRound(m) {
				e.RunAtOnce(false)
			} else {
				e.RunEarly(false)
			}
		}
		e.Start(c, e)
	}
	if !slot.Filled {
		cn.barrier = slot
	}
	c.markDirty(cn)
}

// oneRound reports whether every command of m sends all its parts at
// once: none has a later round that starts from a reply.
func oneRound(m *multiState) bool {
	for _, cmd := range m.cmds {
		if router.MultiRound(cmd) {
			return false
		}
	}
	return true
}

// cursorShard is the shard a SCAN cursor names (this core's when the
// cursor is not a number: the command answers the error there).
func cursorShard(argv [][]byte, home, n int) int {
	if cur, ok := shardowner.ParseCursor(argv[1]); ok {
		return int(cur % uint64(n))
	}
	return home
}

// otherDB returns the second database a MOVE or COPY … DB writes to, and
// the key written there.
func otherDB(cmd *router.Command, argv [][]byte, databases int) (int, []byte, bool) {
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

// execTxn is EXEC's transaction: once it holds its keys it runs the queued
// commands in order — home commands here, the others as parts on their
// shards — and answers their replies as one array.
type execTxn struct {
	router.Txn
	c        *Core
	ex       router.Exec // what the parts are sent through (Run's)
	cn       *Conn
	m        *multiState
	parts    []*router.Slot // each command's reply
	next     int            // next command to start
	arg      int            // index in m.argEnd of next's first argument
	pending  int            // parts started and not yet answered
	wait     *router.Slot   // a multi-round command the next must wait for
	stepping bool
	name     []byte // EXEC as the client spelled it, for monitors
}

func (e *execTxn) Run(ex router.Exec, t *router.Txn, touched bool) {
	e.ex = ex
	e.c.unwatchAll(e.cn)
	if touched {
		w := resp.Writer{Proto: e.cn.proto}
		w.NullArray()
		e.Finish(ex, w.B)
		e.c.feedExec(e.cn, e.name)
		return
	}
	e.step()
}

func (e *execTxn) PartDone(ex router.Exec, t *router.Txn, s *router.Slot) {
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
func (e *execTxn) step() {
	c, cn := e.c, e.cn
	n := c.srv.cfg.Shards
	e.stepping = true
	monitoring := c.srv.monitors.Load() > 0
	for e.next < len(e.m.cmds) && e.wait == nil {
		i := e.next
		e.next++
		arg := e.arg
		e.arg += e.m.nargs[i]
		e.m.at(i, arg, func(cmd *router.Command, argv [][]byte) {
			switch {
			case cmd.Route == router.RouteHome:
				e.parts[i] = c.runCaptured(cn, cmd, argv)
				return
			case cmd.Route == router.RouteCursor:
				e.submit(i, cursorShard(argv, c.id, n), cmd, argv)
				return
			case cmd.Route == router.RouteAll:
				if n > 1 {
					e.split(i, cmd, argv)
					return
				}
				e.submit(i, c.id, cmd, argv)
				return
			case !cmd.HasKeys(len(argv)):
				e.submit(i, c.id, cmd, argv)
				return
			}
			c.keyPos = cmd.KeyIndexes(c.keyPos[:0], argv)
			shard := router.ShardOf(argv[c.keyPos[0]], n)
			if cmd.Split != router.SplitNone {
				for _, k := range c.keyPos[1:] {
					if router.ShardOf(argv[k], n) != shard {
						e.split(i, cmd, argv)
						return
					}
				}
			}
			e.submit(i, shard, cmd, argv)
		})
		if monitoring {
			// After it has run or been sent, as dispatchCmd shows a
			// command: its argument vector is still m.argv.
			c.feedMonitors(cn, e.m.cmds[i], cn.db, e.m.argv)
		}
	}
	e.stepping = false
	if e.next == len(e.m.cmds) && e.wait == nil {
		if e.pending == 0 {
			e.finish()
			return
		}
		// Every command has sent all it will: the last shard may let go
		// as soon as it has run them.
		e.ReleaseLast(c)
	}
}

func (e *execTxn) submit(i, shard int, cmd *router.Command, argv [][]byte) {
	s := e.NewPart(e.c)
	e.parts[i] = s
	e.pending++
	e.ex.Submit(shard, cmd, e.cn.db, e.cn.proto, argv, s)
}

func (e *execTxn) split(i int, cmd *router.Command, argv [][]byte) {
	s := e.NewPart(e.c)
	e.parts[i] = s
	e.pending++
	e.c.shard.CmdStat(cmd.StatID(argv)).Calls++
	router.StartSplit(e.ex, s, cmd, e.cn.db, e.cn.proto, argv)
	if router.MultiRound(cmd) && !s.Filled {
		e.wait = s
	}
}

// finish answers the array of the commands' replies and ends the
// transaction.
func (e *execTxn) finish() {
	buf := bytebufferpool.Get()
	w := resp.Writer{B: buf.B, Proto: e.cn.proto}
	w.Array(len(e.parts))
	for i, s := range e.parts {
		e.c.countError(s.Reply)
		w.B = append(w.B, s.Reply...)
		e.c.FreeSlot(s)
		e.parts[i] = nil
	}
	e.Finish(e.c, w.B)
	buf.B = w.B
	bytebufferpool.Put(buf)
	e.c.feedExec(e.cn, e.name)
}

// at calls fn with queued command i, whose first argument is the arg-th
// of the block, and its arguments.
func (m *multiState) at(i, arg int, fn func(cmd *router.Command, argv [][]byte)) {
	start := 0
	if arg > 0 {
		start = m.argEnd[arg-1]
	}
	m.argv = m.argv[:0]
	for k := 0; k < m.nargs[i]; k++ {
		end := m.argEnd[arg+k]
		m.argv = append(m.argv, m.args[start:end])
		start = end
	}
	fn(m.cmds[i], m.argv)
}

// runCaptured runs a home command of cn inside EXEC and returns its reply
// in a filled slot, instead of writing it to cn.
func (c *Core) runCaptured(cn *Conn, cmd *router.Command, argv [][]byte) *router.Slot {
	s := c.NewSlot()
	s.Filled = true
	if cn.closed {
		return s
	}
	cn.capture = true
	cn.captured = s.Reply[:0]
	start := router.Now()
	errs := cn.w.Errors
	c.home(cn, cmd, argv)
	router.Account(c.shard, cmd, argv, router.Origin{Client: cn.id}, start, cn.w.Errors != errs)
	// The command's error is its own, not a failure of the EXEC it runs in.
	cn.w.Errors = errs
	s.Reply = cn.captured
	cn.captured = nil
	cn.capture = false
	return s
}
