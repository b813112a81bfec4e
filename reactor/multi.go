package reactor

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
)

// MULTI/EXEC/DISCARD and WATCH/UNWATCH on the connection's side. A
// connection in MULTI queues its commands in a router.Block, on its home
// core; EXEC hands the block to a router.ExecTxn, which holds every key the
// block names (and every key the connection WATCHes) on every shard until
// the commands have all run, so the block is isolated across shards as it
// is in Redis on one thread. WATCH registers the keys with the shards that
// own them; the transaction's lock replies say whether one was touched.

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
// and whether one was refused while queueing (EXEC then answers EXECABORT).
type multiState struct {
	dirty bool
	block router.Block
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
	if !m.dirty {
		m.block.Add(cmd, argv)
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
	if m == nil {
		m = &multiState{}
		cn.multiMem = m
	}
	m.dirty = false
	m.block.Reset()
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

// exec runs cn's MULTI block as one transaction (router.ExecTxn).
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
	if cn.execMem == nil {
		cn.execMem = &router.ExecTxn{}
	}
	// The previous EXEC has answered: the barrier saw to it.
	slot := cn.reserve()
	slot.SetSeq(cn.nextTxnSeq())
	cn.execMem.RunBlock(c, &c.locks, cn, &m.block, argv[0], slot)
	if !slot.Filled {
		cn.barrier = slot
	}
	c.markDirty(cn)
}

// DB, Proto, Watched, Unwatch, RunHome, Ran and Replied are what EXEC's
// transaction asks of the connection (router.ExecClient; Proto is
// servercmd.Conn's too).
func (cn *Conn) DB() int    { return cn.db }
func (cn *Conn) Proto() int { return cn.proto }
func (cn *Conn) Unwatch()   { cn.core.unwatchAll(cn) }

// Watched returns cn's i-th watched key and its database.
func (cn *Conn) Watched(i int) (db int, key []byte, ok bool) {
	k := cn.watched
	if k == nil || i >= len(k.end) {
		return 0, nil, false
	}
	start := 0
	if i > 0 {
		start = k.end[i-1]
	}
	return k.db[i], k.buf[start:k.end[i]], true
}

// Ran shows a command EXEC ran to the monitors.
func (cn *Conn) Ran(cmd *router.Command, argv [][]byte) {
	if c := cn.core; c.srv.monitors.Load() > 0 {
		c.feedMonitors(cn, cmd, cn.db, argv)
	}
}

// Replied counts an error inside EXEC's reply.
func (cn *Conn) Replied(reply []byte) { cn.core.countError(reply) }

// RunHome runs a home command of cn inside EXEC and returns its reply in a
// filled slot, instead of writing it to cn.
func (cn *Conn) RunHome(cmd *router.Command, argv [][]byte) *router.Slot {
	c := cn.core
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
