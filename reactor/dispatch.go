package reactor

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// batchFlushBytes sends a peer's batch before the end of the turn once its
// arguments reach this size, so one huge pipeline does not build one huge
// message.
const batchFlushBytes = 1 << 20

// replyTurnBytes is about how many reply bytes a core produces for one peer
// in one turn; a batch that would produce more runs the rest in later turns
// (router.Batch.Execute), so large replies neither stall the loop nor pile
// up in one message.
const replyTurnBytes = 1 << 20

// freeKeep is how many recycled batches a core keeps. Batches that carried a
// peer's partial replies here join the list, so without a cap it would grow
// with every such reply.
const freeKeep = 64

// dispatchCmd runs one request of cn: it checks the command, then answers it
// here, runs it on this core's shard, or sends it to the shard that owns its
// keys.
//
// cmd is the command argv[0] names, already looked up (nil when unknown);
// shard is the shard of argv's first key when the caller already worked it
// out, else -1.
func (c *Core) dispatchCmd(cn *Conn, cmd *router.Command, argv [][]byte, shard int) {
	if !c.admit(cn, cmd, argv) {
		return
	}
	if cn.multi != nil && c.queueMulti(cn, cmd, argv) {
		return
	}
	c.stats.commands++
	if cn.info.lastCmd.Load() != &cmd.Name {
		// Stored only on change: a pipeline of one command pays one load.
		cn.info.lastCmd.Store(&cmd.Name)
	}
	if cn.trk.On {
		cn.trackReq = cn.tracksCmd(cmd, argv)
		c.route(cn, cmd, argv, shard)
		cn.trackReq = false
		cn.trackDone(cmd)
	} else {
		c.route(cn, cmd, argv, shard)
	}
	// Shown once it has run here or been sent on: EXEC shows itself
	// after the commands it runs (router.ExecClient's Ran).
	if c.monitoring && cmd.Home != router.HomeExec {
		c.feedMonitors(cn, cmd, cn.db, argv)
	}
}

// admit makes the checks every request of cn passes before it may run or
// be queued, in Redis's order: a known command with the right arity from
// an authenticated client, not refused by the server's state nor by the
// connection's Pub/Sub or MONITOR mode. It answers a refused one and
// reports false.
func (c *Core) admit(cn *Conn, cmd *router.Command, argv [][]byte) bool {
	if cmd == nil || cmd.Internal {
		cn.errorReply(c.rejectInMulti(cn, nil, resp.ErrUnknownCommand(argv)))
		return false
	}
	if !cmd.ArityOK(len(argv)) {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(c.rejectInMulti(cn, cmd, resp.ErrWrongArgs(cmd.Name)))
		return false
	}
	// A subcommand's arity too, before the gates: XGROUP CREATE with too
	// few arguments is an arity error, not OOM.
	if e := subcommandArityErr(cmd, argv); e != "" {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(c.rejectInMulti(cn, cmd, e))
		return false
	}
	if !cn.authed && cmd.Flags&router.FlagNoAuth == 0 {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(c.rejectInMulti(cn, cmd, resp.ErrNoAuth))
		return false
	}
	if c.gated {
		if e := c.gateRefusal(cn, cmd, argv); e != "" {
			c.shard.CmdStat(cmd.StatID(argv)).Rejected++
			cn.errorReply(c.rejectInMulti(cn, cmd, e))
			return false
		}
	}
	if cn.subs != nil && cn.proto == 2 && cn.subscribed() && !subscribedAllowed(cmd) {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(errSubscribed(cmd, argv))
		return false
	}
	if c.monitoring && cn.monitor && monitorRefuses(cmd, argv) {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(c.rejectInMulti(cn, cmd, errMonitorKeyspace))
		return false
	}
	return true
}

// route runs an admitted command of cn where it belongs (dispatchCmd).
func (c *Core) route(cn *Conn, cmd *router.Command, argv [][]byte, shard int) {
	if cmd.Flags&router.FlagBlocking != 0 && c.blockingCmd(cn, cmd, argv) {
		return
	}
	n := c.srv.cfg.Shards
	switch cmd.RouteFor(argv) {
	case router.RouteHome:
		errs := cn.w.Errors
		if size, shares := c.group.Shares(c.shard, cmd, argv); shares {
			// PING and ECHO: a reply about as long as the arguments.
			c.home(cn, cmd, argv)
			c.clock = c.group.Ran(c.shard, cmd, argv, router.Origin{Client: cn.id}, c.clock, size, size, cn.w.Errors != errs)
			return
		}
		c.clock = c.group.Close(c.shard, c.clock)
		c.home(cn, cmd, argv)
		c.clock = router.Account(c.shard, cmd, argv, router.Origin{Client: cn.id}, c.clock, cn.w.Errors != errs)
		return
	case router.RouteCursor:
		shard = c.id
		if cur, ok := shardowner.ParseCursor(argv[1]); ok {
			shard = int(cur % uint64(n))
		}
		c.runOn(cn, cmd, shard, argv)
		return
	case router.RouteAll:
		if cmd.Combine == router.CombinePublish {
			c.publishCmd(cn, cmd, argv)
			return
		}
		if n == 1 {
			c.runOn(cn, cmd, c.id, argv)
			return
		}
		c.startSplit(cn, cn.reserve(), cmd, argv)
		return
	}
	if !cmd.HasKeys(len(argv)) {
		if c.scriptAsTxn(cmd, argv) {
			c.startSplit(cn, cn.reserve(), cmd, argv)
			return
		}
		c.runOn(cn, cmd, c.id, argv)
		return
	}
	if shard < 0 {
		shard = router.ShardOf(argv[cmd.FirstKey], n)
	}
	if n > 1 && cmd.MultiKey() {
		c.keyPos = cmd.KeyIndexes(c.keyPos[:0], argv)
		rest := c.keyPos
		if len(rest) == 0 {
			// A script with no declared key runs here.
			shard = c.id
		} else {
			shard = router.ShardOf(argv[rest[0]], n)
			rest = rest[1:]
		}
		for _, i := range rest {
			if router.ShardOf(argv[i], n) != shard {
				if cmd.Split == router.SplitNone {
					break
				}
				c.startSplit(cn, cn.reserve(), cmd, argv)
				return
			}
		}
		if c.scriptAsTxn(cmd, argv) {
			c.startSplit(cn, cn.reserve(), cmd, argv)
			return
		}
	}
	c.runOn(cn, cmd, shard, argv)
}

// scriptAsTxn reports whether a script whose declared keys share a shard,
// or that declares none, runs as a transaction all the same: on a server
// of several shards, until its runs show that it keeps to that shard
// (router.ScriptHabits).
func (c *Core) scriptAsTxn(cmd *router.Command, argv [][]byte) bool {
	return cmd.RunAs != nil && c.srv.cfg.Shards > 1 && !c.scriptHabits.RunsOnShard(argv)
}

// startsTxn reports whether running cmd would start a transaction
// (router.Txn) for cn: a split over several shards, or EXEC. A connection
// has at most router.MaxTxns in flight.
func (c *Core) startsTxn(cn *Conn, cmd *router.Command, argv [][]byte) bool {
	n := c.srv.cfg.Shards
	switch {
	case cmd == nil || !cmd.ArityOK(len(argv)) || n == 1:
		return false
	case cmd.Home == router.HomeExec:
		return cn.multi != nil
	case cn.multi != nil:
		return false
	case cmd.RouteFor(argv) == router.RouteAll:
		return router.AtomicSplit(cmd)
	case cmd.Route != router.RouteKey || cmd.Split == router.SplitNone:
		return false
	case !cmd.HasKeys(len(argv)):
		return c.scriptAsTxn(cmd, argv)
	}
	c.keyPos = cmd.KeyIndexes(c.keyPos[:0], argv)
	if len(c.keyPos) == 0 {
		return c.scriptAsTxn(cmd, argv)
	}
	shard := router.ShardOf(argv[c.keyPos[0]], n)
	for _, i := range c.keyPos[1:] {
		if router.ShardOf(argv[i], n) != shard {
			return true
		}
	}
	return c.scriptAsTxn(cmd, argv)
}

// startSplit runs cmd over several shards for cn. The command's call is
// counted here, once; its parts add their time where they run.
// Until it holds its keys, the connection's later commands wait: they must
// not run on a key before the split has taken it. A publish holds no key,
// and the rings keep its parts in order behind the earlier ones.
func (c *Core) startSplit(cn *Conn, slot *router.Slot, cmd *router.Command, argv [][]byte) {
	c.shard.CmdStat(cmd.StatID(argv)).Calls++
	slot.SetSeq(cn.nextTxnSeq())
	router.StartSplit(c, slot, cmd, cn.db, cn.proto, argv)
	if !slot.Filled && cmd.Combine != router.CombinePublish {
		cn.barrier = slot
	}
	c.markDirty(cn)
}

// runOn runs a single-shard command. The direct path, a local key and no
// reply pending before it, writes the reply straight into the output buffer.
// It runs within parse, whose clock reading starts the command, and may
// share that reading with the commands around it (router.Group).
func (c *Core) runOn(cn *Conn, cmd *router.Command, shard int, argv [][]byte) {
	if shard == c.id && c.locks.Active() {
		// A transaction holds keys here: the command may have to wait.
		c.Submit(shard, cmd, cn.db, cn.proto, argv, cn.reserve())
		c.markDirty(cn)
		return
	}
	if shard == c.id {
		c.ctx.Shard = c.shard
		c.ctx.W = cn.begin()
		var hinted *shardowner.Table
		if c.keyHash != 0 {
			hinted = c.shard.DBs[cn.db]
			hinted.HintHash(c.hashedKey, c.keyHash)
		}
		// Its reply goes straight into the connection's writer. The op
		// is filled field by field: a composite literal is built aside
		// and copied in 16-byte loads of 8-byte stores, which the CPU
		// cannot forward.
		var op router.Op
		op.Cmd, op.DB, op.Proto, op.Argv, op.Origin.Client, op.From = cmd, cn.db, cn.proto, argv, cn.id, c.id
		op.Origin.NoTouch, op.Origin.Track = cn.noTouch, cn.trackReq
		c.clock, _ = router.Run(&c.ctx, &c.locks, &op, &c.group, c.clock, nil)
		if hinted != nil {
			hinted.HintHash(nil, 0)
		}
		c.ctx.W = nil
		cn.end()
		return
	}
	if e := router.BusyReply(shard); e != "" {
		// That shard's thread is inside a script past
		// busy-reply-threshold: answered here, as Redis answers while busy.
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(e)
		return
	}
	c.Submit(shard, cmd, cn.db, cn.proto, argv, cn.reserve())
	c.markDirty(cn)
}

// Submit runs cmd on shard for dest: at once when the shard is this core's,
// else by adding it to the batch for that core (router.Exec).
func (c *Core) Submit(shard int, cmd *router.Command, db, proto int, argv [][]byte, dest *router.Slot) {
	if shard == c.id {
		op := router.Op{Cmd: cmd, DB: db, Proto: proto, Argv: argv, Origin: dest.Origin(), From: c.id, Dest: dest}
		c.runHere(&op)
		c.runReady()
		return
	}
	b := c.outBatch[shard]
	if b == nil {
		b = c.newBatch()
		c.outBatch[shard] = b
	}
	b.Add(cmd, db, proto, argv, dest)
	if b.Bytes() >= batchFlushBytes {
		c.send(shard, b)
		c.outBatch[shard] = nil
	}
}

// runHere runs op on this core's shard, timed alone, its reply going to
// its slot (router.Run).
func (c *Core) runHere(op *router.Op) bool {
	c.ctx.Shard = c.shard
	c.ctx.W = &c.w
	_, answered := router.Run(&c.ctx, &c.locks, op, nil, router.Now(), c.toSlots())
	c.ctx.W = nil
	return answered
}

// toSlots is where router.Run sends the replies of this core's shard for
// slots: this core's own, or another's (sendReply).
func (c *Core) toSlots() *router.Replies {
	if c.replies.Ex == nil {
		c.replies = router.Replies{Ex: c, Self: c.id, Send: c.sendReply}
	}
	return &c.replies
}

// sendReply adds reply, for slot dest on core from, to the replies going
// back to that core.
func (c *Core) sendReply(from int, dest *router.Slot, reply []byte) {
	b := c.outReplies[from]
	if b == nil {
		b = c.newBatch()
		c.outReplies[from] = b
	}
	b.AddReply(dest, reply)
}

// NewSlot returns an empty reply slot (router.Exec).
func (c *Core) NewSlot() *router.Slot {
	if n := len(c.slots); n > 0 {
		s := c.slots[n-1]
		c.slots = c.slots[:n-1]
		return s
	}
	return new(router.Slot)
}

// FreeSlot recycles a slot (router.Exec).
func (c *Core) FreeSlot(s *router.Slot) {
	s.Reset()
	if cap(s.Reply) > outKeep {
		s.Reply = nil
	}
	c.slots = append(c.slots, s)
}

// Orphaned recycles a slot whose connection closed before its reply came
// (router.Exec).
func (c *Core) Orphaned(s *router.Slot) {
	if cn := c.blockSlots[s]; cn != nil {
		delete(c.blockSlots, s)
		c.blockSlotDone(cn, s)
	}
	c.FreeSlot(s)
}

// Failed counts a multi-shard command's error reply (router.Exec) in
// statistics stat (Command.StatID).
func (c *Core) Failed(stat int) { c.shard.CmdStat(stat).Failed++ }

// Slowlog is the server's slow log settings (router.Exec).
func (c *Core) Slowlog() *shardowner.SlowlogConfig { return c.shard.Slowlog }

// Scratch is the core's scratch keyspace, for commands run whole here over
// values gathered from several shards (router.Exec).
func (c *Core) Scratch() *shardowner.Shard {
	if c.scratchShard == nil {
		c.scratchShard = shardowner.NewShard(c.id, c.srv.cfg.Shards, c.srv.cfg.Databases)
		c.scratchShard.Enc = c.shard.Enc
		// For the events it records (no Hub: it publishes none).
		c.scratchShard.Events = c.shard.Events
	}
	c.scratchShard.Clock.Ms = c.shard.Clock.Ms
	return c.scratchShard
}

// Own is the core's own shard (router.Exec).
func (c *Core) Own() *shardowner.Shard { return c.shard }

// Shards is the number of shards (router.Exec).
func (c *Core) Shards() int { return c.srv.cfg.Shards }

// Databases is the number of databases (router.Exec).
func (c *Core) Databases() int { return c.srv.cfg.Databases }

func (c *Core) newBatch() *router.Batch {
	if n := len(c.free); n > 0 {
		b := c.free[n-1]
		c.free = c.free[:n-1]
		// A batch that carried a peer's partial replies here is ours now.
		b.From = c.id
		return b
	}
	return &router.Batch{From: c.id}
}

// send pushes b to peer's ring, or queues it when the ring is full, and
// wakes the peer if it sleeps. Replies wait for the turn's records while
// the append-only file is on (aof.go).
func (c *Core) send(peer int, b *router.Batch) {
	if b.Done && c.aofLog != nil && c.shard.Journal != nil {
		c.hold(peer, b)
		return
	}
	c.push(peer, b)
}

// push is send without the wait.
func (c *Core) push(peer int, b *router.Batch) {
	// Once pushed, b belongs to the peer: read nothing of it after Push.
	if n := b.Hops(); !b.Done && n > 0 {
		c.stats.ringSent++
		c.stats.ringCmdsSent += uint64(n)
	}
	if len(c.overflow[peer]) == 0 && c.srv.mesh.To(c.id, peer).Push(b) {
		c.wakePeer(peer)
		return
	}
	c.overflow[peer] = append(c.overflow[peer], b)
}

// publish sends every batch filled this turn, and retries queued ones.
func (c *Core) publish() {
	for peer, q := range c.overflow {
		if len(q) == 0 {
			continue
		}
		ring := c.srv.mesh.To(c.id, peer)
		i := 0
		for i < len(q) && ring.Push(q[i]) {
			i++
		}
		if i > 0 {
			c.wakePeer(peer)
		}
		m := copy(q, q[i:])
		clear(q[m:])
		c.overflow[peer] = q[:m]
	}
	for peer, b := range c.outBatch {
		if b != nil && b.Len() > 0 {
			c.outBatch[peer] = nil
			c.send(peer, b)
		}
	}
	for peer, b := range c.outReplies {
		if b != nil {
			c.outReplies[peer] = nil
			c.send(peer, b)
		}
	}
}

// runReady runs the commands that waited for a transaction's keys and may
// run now (router.Locks), and sends their replies where they are awaited.
// A reply filled here can move a local transaction on, which can release
// keys and make more commands ready: the loop takes them too, and a call
// from inside it returns at once.
func (c *Core) runReady() {
	if c.runningReady {
		return
	}
	c.runningReady = true
	for w := c.locks.TakeReady(); w != nil; w = c.locks.TakeReady() {
		c.runHere(w.Resume())
	}
	c.runningReady = false
	c.markWaiting()
}

func (c *Core) overflowing() bool {
	for _, q := range c.overflow {
		if len(q) > 0 {
			return true
		}
	}
	return false
}

// inboundEmpty reports whether no peer has published anything for this core.
func (c *Core) inboundEmpty() bool {
	for peer := range c.srv.cores {
		if peer != c.id && !c.srv.mesh.To(peer, c.id).Empty() {
			return false
		}
	}
	return true
}

// drainInbound executes the requests peers sent and delivers the replies
// that came back to this core's own requests. It reports whether there was
// anything.
func (c *Core) drainInbound() bool {
	any := false
	for peer := range c.srv.cores {
		if peer == c.id {
			continue
		}
		budget := replyTurnBytes
		if b := c.resume[peer]; b != nil {
			// A batch stopped last turn runs on before anything newer from
			// this peer, so each connection's requests keep their order.
			any = true
			c.resume[peer] = nil
			if budget -= c.execute(peer, b, budget); c.resume[peer] != nil {
				continue
			}
		}
		ring := c.srv.mesh.To(peer, c.id)
		for budget > 0 {
			b := ring.Pop()
			if b == nil {
				break
			}
			any = true
			if b.Done {
				// Our own batch, or part of its replies, back.
				b.Deliver(c)
				b.Reset()
				if len(c.free) < freeKeep {
					c.free = append(c.free, b)
				}
				continue
			}
			if n := b.Hops(); n > 0 {
				c.stats.ringRecv++
				c.stats.ringCmds += uint64(n)
			}
			if budget -= c.execute(peer, b, budget); c.resume[peer] != nil {
				break
			}
		}
	}
	if any {
		// Replies filled slots of connections that may now flush.
		c.markWaiting()
	}
	return any
}

// execute runs peer's batch b with budget reply bytes and sends it back. A
// batch that stops early sends back only the replies so far and waits in
// resume for the next turn. It returns the reply bytes produced.
func (c *Core) execute(peer int, b *router.Batch, budget int) int {
	if c.srv.memCfg.Gen.Load() != c.memGen {
		c.syncMemory() // a CONFIG SET on another core before these commands
	}
	n := b.Execute(c.shard, &c.locks, budget)
	c.runReady()
	c.serveBlocked()
	c.flushInvalidations(peer)
	if b.Done {
		c.send(peer, b)
		return n
	}
	r := c.newBatch()
	b.TakeReplies(r)
	c.send(peer, r)
	c.resume[peer] = b
	return n
}

// resuming reports whether a peer's batch waits to run on.
func (c *Core) resuming() bool {
	for _, b := range c.resume {
		if b != nil {
			return true
		}
	}
	return false
}

// markWaiting marks dirty every waiting connection whose first slot is
// filled, or that back-pressure stopped (replies filled behind its first
// slot may let it go on), and forgets those that wait no more.
func (c *Core) markWaiting() {
	keep := c.waiting[:0]
	for _, cn := range c.waiting {
		if cn.closed || len(cn.slots) == 0 {
			cn.waiting = false
			continue
		}
		if cn.slots[0].Filled || cn.stalled {
			c.markDirty(cn)
		}
		keep = append(keep, cn)
	}
	clear(c.waiting[len(keep):])
	c.waiting = keep
}
