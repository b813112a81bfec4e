package reactor

import (
	"bytes"
	"strconv"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// Blocking commands on the client's side (the shard's side is
// router.Blocking). A blocking command goes to the shard of its keys in a
// slot that is also the connection's barrier, so the connection's later
// requests wait unread until it answers, as a blocked client's do in
// Redis. Its timeout is an entry in the core's timer heap (no goroutine,
// no tick per client): when it comes, when CLIENT UNBLOCK names the client
// or when the client goes, the core sends corekv.bcancel to the shard,
// which answers the command if it is still parked there.

// blockState is a connection's blocking command in flight.
type blockState struct {
	slot     *router.Slot
	shard    int
	db       int
	deadline int64       // Unix ms; 0: none
	cancel   router.Args // corekv.bcancel with the keys; client and mode are filled in when sent
	ended    bool        // a cancel was sent

	// A command whose keys span shards (split): it runs as attempts over
	// all its shards, and between them waits on wake-only registrations
	// on each (corekv.bwait). stop is how it ends when the attempt in
	// flight finds nothing: timeout, error, or gone (nil: it goes on).
	split   bool
	cmd     *router.Command
	proto   int
	args    router.Args
	attempt *router.Slot
	regs    []blockReg
	stop    []byte
	scratch [][]byte
}

// blockReg is a wake-only registration on a shard, answered in slot.
type blockReg struct {
	shard int
	slot  *router.Slot
}

// blockTimer is a timeout in the core's heap.
type blockTimer struct {
	at   int64 // Unix ms
	cn   *Conn
	slot *router.Slot
}

// timeoutArg is the position of a blocking command's timeout.
func timeoutArg(cmd *router.Command, argc int) int {
	if cmd.NumKeys != 0 {
		return 1
	}
	return argc - 1
}

// blockTimeout is a blocking command's timeout in ms (0: for ever), and
// whether it may block at all: XREAD only with BLOCK. A timeout Redis
// refuses is answered by the shard, after the errors of the arguments
// some commands check first (BLMOVE, BLMPOP).
func blockTimeout(cmd *router.Command, argv [][]byte) (ms int64, blocks bool) {
	if cmd == router.CmdXRead || cmd == router.CmdXReadGroup {
		return shardowner.XReadBlocks(argv)
	}
	ms, _ = shardowner.BlockTimeout(argv[timeoutArg(cmd, len(argv))])
	return ms, true
}

// blockingCmd runs a blocking command for cn outside MULTI; it reports
// false, doing nothing, for one whose arguments ask it not to block (XREAD
// without BLOCK), which runs as any other command.
func (c *Core) blockingCmd(cn *Conn, cmd *router.Command, argv [][]byte) bool {
	ms, blocks := blockTimeout(cmd, argv)
	if !blocks {
		return false
	}
	n := c.srv.cfg.Shards
	c.keyPos = cmd.KeyIndexes(c.keyPos[:0], argv)
	if len(c.keyPos) == 0 {
		return false // malformed: the command answers its error
	}
	shard := router.ShardOf(argv[c.keyPos[0]], n)
	for _, i := range c.keyPos[1:] {
		if router.ShardOf(argv[i], n) != shard {
			c.blockingSplit(cn, cmd, argv, ms)
			return true
		}
	}
	slot := cn.reserve()
	cn.barrier = slot
	b := cn.blockMem
	if b == nil {
		b = &blockState{}
		cn.blockMem = b
	}
	b.slot, b.shard, b.db, b.ended, b.deadline = slot, shard, cn.db, false, 0
	b.split = false
	// The cancel names the keys the command waits for, so that it waits
	// behind the command where a transaction's locks hold it back.
	c.keyPos = router.WaitKeys(c.keyPos[:0], cmd, argv)
	b.scratch = append(b.scratch[:0], router.CmdBCancel.NameBytes(), nil, nil)
	for _, i := range c.keyPos {
		b.scratch = append(b.scratch, argv[i])
	}
	b.cancel.Set(b.scratch)
	cn.block = b
	cn.info.blocked.Store(true)
	c.srv.blocked.Add(1)
	if ms > 0 {
		b.deadline = time.Now().UnixMilli() + ms
		c.addBlockTimer(blockTimer{at: b.deadline, cn: cn, slot: slot})
	}
	c.Submit(shard, cmd, cn.db, cn.proto, argv, slot)
	c.markDirty(cn)
	return true
}

// blockingSplit runs a blocking command whose keys live on several
// shards. Each attempt runs it over all of them at one instant, as LMPOP's
// split does (a transaction that gathers the keys); an attempt that finds
// nothing registers a wake-only waiter on each shard, which answers once
// one of its keys there holds a value of the kind, and the next attempt
// follows. Fairness among such commands is best effort: a woken command
// tries again against whoever comes meanwhile.
func (c *Core) blockingSplit(cn *Conn, cmd *router.Command, argv [][]byte, ms int64) {
	slot := cn.reserve()
	cn.barrier = slot
	b := cn.blockMem
	if b == nil {
		b = &blockState{}
		cn.blockMem = b
	}
	b.slot, b.db, b.ended, b.deadline = slot, cn.db, false, 0
	b.split, b.cmd, b.proto, b.stop, b.attempt = true, cmd, cn.proto, nil, nil
	b.regs = b.regs[:0]
	b.args.Set(argv)
	cn.block = b
	cn.info.blocked.Store(true)
	c.srv.blocked.Add(1)
	c.shard.CmdStat(cmd.StatID(argv)).Calls++
	if ms > 0 {
		b.deadline = time.Now().UnixMilli() + ms
		c.addBlockTimer(blockTimer{at: b.deadline, cn: cn, slot: slot})
	}
	c.blockAttempt(cn)
	c.markDirty(cn)
}

// blockArgv is the split command's argument vector.
func (b *blockState) blockArgv() [][]byte { return b.args.Argv() }

// blockSlot returns an orphan slot whose reply comes back to
// blockSlotDone for cn.
func (c *Core) blockSlot(cn *Conn) *router.Slot {
	s := c.NewSlot()
	s.Orphan = true
	s.Client = cn.id
	if c.blockSlots == nil {
		c.blockSlots = make(map[*router.Slot]*Conn)
	}
	c.blockSlots[s] = cn
	return s
}

// blockAttempt runs one attempt of cn's split blocking command.
func (c *Core) blockAttempt(cn *Conn) {
	b := cn.block
	s := c.blockSlot(cn)
	s.SetSeq(cn.nextTxnSeq())
	b.attempt = s
	router.StartSplit(c, s, b.cmd, b.db, b.proto, b.blockArgv())
}

// blockRegister registers cn's split command on each shard of the keys it
// waits for.
func (c *Core) blockRegister(cn *Conn) {
	b := cn.block
	n := c.srv.cfg.Shards
	argv := b.blockArgv()
	c.keyPos = router.WaitKeys(c.keyPos[:0], b.cmd, argv)
	var num [20]byte
	id := strconv.AppendInt(num[:0], cn.id, 10)
	for sh := 0; sh < n; sh++ {
		reg := router.CmdBWait
		if router.IsStreamRead(b.cmd) {
			reg = router.CmdBWaitStream
			b.scratch = router.StreamWaitArgs(b.scratch[:0], id, b.cmd, argv, sh, n)
		} else {
			b.scratch = append(b.scratch[:0], router.CmdBWait.NameBytes(), id, router.WaitKind(b.cmd))
			for _, i := range c.keyPos {
				if router.ShardOf(argv[i], n) == sh {
					b.scratch = append(b.scratch, argv[i])
				}
			}
			if len(b.scratch) == 3 {
				b.scratch = b.scratch[:0]
			}
		}
		if len(b.scratch) == 0 {
			continue
		}
		s := c.blockSlot(cn)
		b.regs = append(b.regs, blockReg{shard: sh, slot: s})
		c.Submit(sh, reg, b.db, b.proto, b.scratch, s)
	}
}

// blockUnregister cancels cn's wake-only registrations; their slots come
// back answered 0 and are dropped.
func (c *Core) blockUnregister(cn *Conn) {
	b := cn.block
	n := c.srv.cfg.Shards
	argv := b.blockArgv()
	c.keyPos = router.WaitKeys(c.keyPos[:0], b.cmd, argv)
	var num [20]byte
	id := strconv.AppendInt(num[:0], cn.id, 10)
	for _, r := range b.regs {
		b.scratch = append(b.scratch[:0], router.CmdBCancel.NameBytes(), id, router.CancelGone)
		for _, i := range c.keyPos {
			if router.ShardOf(argv[i], n) == r.shard {
				b.scratch = append(b.scratch, argv[i])
			}
		}
		c.Submit(r.shard, router.CmdBCancel, b.db, b.proto, b.scratch, nil)
	}
	b.regs = b.regs[:0]
}

// nothing reports whether reply is what a blocking command that found
// nothing and may not wait answers: a null, or the null array.
func nothing(reply []byte) bool {
	s := string(reply)
	return s == "*-1\r\n" || s == "$-1\r\n" || s == "_\r\n"
}

// blockSlotDone handles the reply of an attempt or a registration of cn's
// split blocking command. Replies of earlier rounds, or for a command
// that has ended, are dropped.
func (c *Core) blockSlotDone(cn *Conn, s *router.Slot) {
	b := cn.block
	if b == nil || !b.split || cn.closed {
		return
	}
	if s == b.attempt {
		b.attempt = nil
		if !nothing(s.Reply) || b.stop != nil {
			c.blockFinish(cn, s.Reply)
			return
		}
		c.blockRegister(cn)
		return
	}
	for i, r := range b.regs {
		if r.slot != s {
			continue
		}
		b.regs = append(b.regs[:i], b.regs[i+1:]...)
		if b.attempt != nil || b.stop != nil {
			return
		}
		switch reply := s.Reply; {
		case string(reply) == ":0\r\n": // cancelled
		case len(reply) > 0 && reply[0] == '-':
			// A blocked XREADGROUP's stream or group is gone.
			c.blockUnregister(cn)
			c.shard.CmdStat(b.cmd.StatID(nil)).Failed++
			c.blockFinish(cn, reply)
		default:
			if len(reply) > 0 && reply[0] == '*' {
				// A stream's wait: "$" reads after the IDs it began at.
				router.ResolveStreamIDs(&b.args, b.cmd, r.shard, c.srv.cfg.Shards, reply)
			}
			c.blockUnregister(cn)
			c.blockAttempt(cn)
		}
		return
	}
}

// blockFinish answers cn's split blocking command: found is the last
// attempt's reply, used unless it found nothing and the command was
// stopped.
func (c *Core) blockFinish(cn *Conn, found []byte) {
	b := cn.block
	switch {
	case found != nil && !nothing(found):
	case bytes.Equal(b.stop, router.CancelError):
		found = []byte("-" + string(router.ErrUnblocked) + "\r\n")
		c.shard.CmdStat(b.cmd.StatID(nil)).Failed++
	case cn.proto == 3:
		found = []byte("_\r\n")
	default:
		found = []byte("*-1\r\n")
	}
	b.ended = true
	router.Fill(c, b.slot, found)
	c.markWaiting()
}

// owesReplies reports whether cn waits for replies a stop must let come: a
// blocking command still waiting is not one, as Redis closes a blocked
// client when it shuts down.
func (cn *Conn) owesReplies() bool {
	n := len(cn.slots)
	if b := cn.block; b != nil && n > 0 && cn.slots[n-1] == b.slot && !b.slot.Filled {
		n--
	}
	return n > 0
}

// blockEnded is told that cn's blocking command has answered, its reply
// taken from its slot.
func (c *Core) blockEnded(cn *Conn) {
	cn.block = nil
	cn.info.blocked.Store(false)
	c.srv.blocked.Add(-1)
}

// cancelBlock sends the cancel of cn's blocking command, once, in mode
// (router.CancelTimeout, CancelError or CancelGone).
func (c *Core) cancelBlock(cn *Conn, mode []byte) {
	b := cn.block
	if b == nil || b.ended || b.slot.Filled {
		return
	}
	if b.split {
		if b.stop != nil {
			return
		}
		b.stop = mode
		c.blockUnregister(cn)
		if b.attempt == nil && !bytes.Equal(mode, router.CancelGone) {
			c.blockFinish(cn, nil)
		}
		return
	}
	b.ended = true
	var num [20]byte
	argv := b.cancel.Argv()
	argv[1] = strconv.AppendInt(num[:0], cn.id, 10)
	argv[2] = mode
	c.Submit(b.shard, router.CmdBCancel, b.db, cn.proto, argv, nil)
}

// addBlockTimer pushes t onto the core's timeout heap.
func (c *Core) addBlockTimer(t blockTimer) {
	h := append(c.blockTimers, t)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].at <= h[i].at {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	c.blockTimers = h
}

// popBlockTimer removes the earliest timeout.
func (c *Core) popBlockTimer() {
	h := c.blockTimers
	last := len(h) - 1
	h[0] = h[last]
	h[last] = blockTimer{}
	h = h[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].at < h[m].at {
			m = l
		}
		if r < len(h) && h[r].at < h[m].at {
			m = r
		}
		if m == i {
			break
		}
		h[m], h[i] = h[i], h[m]
		i = m
	}
	c.blockTimers = h
}

// blockTimeouts cancels the blocking commands whose time has come; entries
// of commands that have answered since are dropped.
func (c *Core) blockTimeouts(now int64) {
	for len(c.blockTimers) > 0 && c.blockTimers[0].at <= now {
		t := c.blockTimers[0]
		c.popBlockTimer()
		if b := t.cn.block; b != nil && b.slot == t.slot && !t.cn.closed {
			c.cancelBlock(t.cn, router.CancelTimeout)
		}
	}
}

// blockWait caps timeout (ms) at the next blocking command's timeout.
func (c *Core) blockWait(timeout int, now int64) int {
	if len(c.blockTimers) == 0 {
		return timeout
	}
	return min(timeout, int(max(c.blockTimers[0].at-now, 0)))
}

// serveBlocked runs the parked commands waiting for the keys that became
// ready, each key's in the order they came, and sends their replies.
func (c *Core) serveBlocked() {
	bk := c.locks.Blocked()
	if !bk.HasReady() || c.serving {
		return
	}
	c.serving = true
	for {
		r, ok := bk.NextReady(c.locks.KeyFree)
		if !ok {
			break
		}
		db, key := r.Key()
		// passed counts the XREADs that found nothing new for them: the
		// next waiter may find something all the same (its own ID).
		passed := 0
		for b := r.Nth(passed); b != nil; b = r.Nth(passed) {
			if !c.locks.KeyFree(db, key) {
				// A reply answered here started a transaction on the
				// key (a woken client's next try): serve it after that.
				bk.Again(r)
				break
			}
			if b.Wake {
				// Wake its client's core; the element stays for it, or
				// for the next waiter. A stream's waiter may find nothing
				// for it where the next finds something (its own ID).
				reply, ok := bk.WakeReply(b, key)
				if !ok {
					if b.Kind == shardowner.KindStream {
						passed++
						continue
					}
					break
				}
				dest, from := b.Dest, b.From
				bk.Served(b)
				c.toSlots().Reply(from, dest, reply)
				continue
			}
			if !c.runHere(b.Serve(key)) {
				if b.Cmd == router.CmdXRead || b.Cmd == router.CmdXReadGroup {
					passed++
					continue
				}
				// The key has nothing for it, nor for those after it.
				break
			}
		}
	}
	c.serving = false
	c.markWaiting()
}

// clientUnblock is CLIENT UNBLOCK client-id [TIMEOUT|ERROR]: 1 when the
// client was blocked, and its command then answers as on timeout or with
// the UNBLOCKED error.
func (c *Core) clientUnblock(cn *Conn, argv [][]byte) {
	id, ok := resp.ParseInt(argv[2])
	if !ok {
		cn.errorReply(resp.ErrNotInteger)
		return
	}
	mode := int32(unblockTimeout)
	if len(argv) == 4 {
		switch {
		case resp.EqualFold(argv[3], "timeout"):
		case resp.EqualFold(argv[3], "error"):
			mode = unblockError
		default:
			cn.errorReply("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR")
			return
		}
	}
	var n int64
	if other := findConn(c.srv.connections(), id); other != nil && other.info.blocked.Load() &&
		other.info.unblock.CompareAndSwap(0, mode) {
		n = 1
		core := c.srv.cores[other.info.core]
		core.unblockReq.Store(true)
		if core != c {
			core.forceWake()
		}
	}
	w := cn.begin()
	w.Int(n)
	cn.end()
}

// CLIENT UNBLOCK requests, in clientInfo.unblock.
const (
	unblockTimeout = 1
	unblockError   = 2
)

// unblockMarked cancels the blocking commands CLIENT UNBLOCK named.
func (c *Core) unblockMarked() {
	for _, cn := range c.conns {
		if cn == nil {
			continue
		}
		mode := cn.info.unblock.Swap(0)
		switch {
		case mode == 0 || cn.block == nil:
		case mode == unblockError:
			c.cancelBlock(cn, router.CancelError)
		default:
			c.cancelBlock(cn, router.CancelTimeout)
		}
	}
}
