package router

import "github.com/corekv/corekv/shardowner"

// Op is a command in flight on its shard: what runs, in which database and
// protocol, with which arguments, for whom, and where its reply goes.
// Whatever brought it to the shard (its client's own core, a peer's batch,
// the shard's lock queue, a parked command woken), it runs through Run.
type Op struct {
	Cmd    *Command
	DB     int
	Proto  int
	Argv   [][]byte
	Origin Origin
	From   int   // the core that awaits the reply
	Dest   *Slot // the reply's slot on core From; nil: none is awaited there

	// Set for an op that has passed the shard's locks already: one the
	// lock queue made ready (waiter), or a parked command served for one
	// key (served). Run ends their stay there.
	waiter *Waiter
	served *Blocked
}

// Run runs op on ctx.Shard, whose locks are l, writing its reply with
// ctx.W. It is the one way a command runs on a shard:
//
//  1. admit: while a transaction holds or waits for keys there (Locks), a
//     command that wants them waits in the queue with its own copy of the
//     arguments, and Run reports it unanswered;
//  2. intercept the internal commands the shard's registries handle
//     themselves: corekv.bwait registers a wake-only waiter, and
//     corekv.bcancel answers a parked command, which becomes op's
//     destination;
//  3. call: the handler through Call, or, when g is not nil (commands run
//     back to back), through run with g's shared clock readings for a
//     command that may share them (Group.Shares), else through Call once
//     g's pending commands are accounted;
//  4. park a blocking command that found nothing (Blocking), unanswered;
//  5. route the reply. With to nil, ctx.W is the destination itself (a
//     connection's output, a batch's replies) and the caller reads op.Dest
//     for whose reply it is; otherwise Run writes the reply into op's slot
//     through to: in place for a slot of this core, else to its core.
//
// start is the clock when the command began; Run returns the clock when it
// ended (start when nothing ran or its time is pending in g), and whether
// op answered now rather than waiting or parking.
func Run(ctx *shardowner.Ctx, l *Locks, op *Op, g *Group, start int64, to *Replies) (end int64, answered bool) {
	cmd := op.Cmd
	if to != nil || op.waiter != nil || op.served != nil || cmd.Internal || l.Active() {
		return runAny(ctx, l, op, g, start, to)
	}
	// The common case, a command with nothing in its way whose reply
	// goes into ctx.W, needs steps 3 and 4 alone; the others live in
	// runAny, so that this path keeps a small frame.
	ctx.DB = op.DB
	ctx.W.Proto = op.Proto
	end = g.call(ctx, cmd, op.Argv, op.Origin, start)
	if !ctx.Blocked {
		return end, true
	}
	ctx.Blocked = false
	l.Blocked().park(ctx.Shard, op)
	return end, false
}

// runAny is Run with every step, for an op that may have to wait, is
// intercepted, has passed the locks already, or replies into a slot.
func runAny(ctx *shardowner.Ctx, l *Locks, op *Op, g *Group, start int64, to *Replies) (end int64, answered bool) {
	cmd := op.Cmd
	w, b := op.waiter, op.served
	if w == nil && b == nil && (cmd.Internal || l.Active()) && !l.admit(op) {
		return start, false
	}
	var inPlace *Slot // a slot of this core the handler writes into
	if to != nil {
		if op.Dest != nil && op.From == to.Self && b == nil {
			inPlace = op.Dest
			ctx.W.B = inPlace.Reply[:0]
		} else {
			ctx.W.B = to.scratch[:0]
		}
	}
	end, answered = start, true
	switch cmd {
	case cmdBWait, cmdBWaitStream:
		l.Blocked().wait(ctx.Shard, op)
		answered = false
	case cmdBCancel:
		op.Dest, op.From = l.Blocked().Cancel(ctx.Shard, ctx.W, op.Argv)
	default:
		ctx.DB = op.DB
		ctx.W.Proto = op.Proto
		if b != nil {
			ctx.ServeKey = b.serveKey
		}
		end = g.call(ctx, cmd, op.Argv, op.Origin, start)
		if b != nil {
			ctx.ServeKey = nil
		}
		if ctx.Blocked {
			ctx.Blocked = false
			answered = false
			if b == nil {
				l.Blocked().park(ctx.Shard, op)
			}
		}
	}
	// Read before the holders go: recycled, they may be reused by what
	// the reply sets off.
	dest, from := op.Dest, op.From
	if w != nil {
		l.Done(w)
	}
	if b != nil {
		if answered {
			l.Blocked().Served(b)
		} else {
			op.served, b.serveKey = nil, nil // it stays parked
		}
	}
	if to == nil {
		return end, answered
	}
	reply := ctx.W.B
	ctx.W.B = nil
	if inPlace != nil {
		// The buffer is the slot's, answered or not.
		inPlace.Reply = reply
		if answered {
			Complete(to.Ex, inPlace)
		}
		return end, answered
	}
	if answered {
		to.Reply(from, dest, reply)
	}
	to.keep(reply)
	return end, answered
}

// call runs cmd through Call, or, for a command that shares g's clock
// readings (Shares), through run with its time pending in g. With g nil
// it is Call.
func (g *Group) call(ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin, start int64) int64 {
	if g == nil {
		return Call(ctx, cmd, argv, o, start)
	}
	sh := ctx.Shard
	size, shares := g.Shares(sh, cmd, argv)
	if !shares {
		return Call(ctx, cmd, argv, o, g.Close(sh, start))
	}
	before := len(ctx.W.B)
	failed := run(ctx, cmd, argv, o)
	if sh.Waiters != nil && cmd.FlagsFor(argv)&FlagWrite != 0 {
		signalKeys(ctx, cmd, argv)
	}
	return g.Ran(sh, cmd, argv, o, start, size, len(ctx.W.B)-before, failed)
}

// Replies routes the replies Run writes for slots: a slot of this core is
// filled through Ex, a reply for another core's slot goes to Send, which
// adds it to what travels back to that core.
type Replies struct {
	Ex      Exec
	Self    int
	Send    func(from int, dest *Slot, reply []byte)
	scratch []byte // reply buffer for slots not written in place
}

// scratchKeep is the largest reply buffer Replies keeps between replies.
const scratchKeep = 256 << 10

// Reply sends reply to dest on core from: filled here when the slot is
// this core's, else through Send. A nil dest awaits nothing.
func (r *Replies) Reply(from int, dest *Slot, reply []byte) {
	switch {
	case dest == nil:
	case from == r.Self:
		Fill(r.Ex, dest, reply)
	default:
		r.Send(from, dest, reply)
	}
}

// keep keeps buf, whose contents have gone on, for the next reply.
func (r *Replies) keep(buf []byte) {
	if cap(buf) > scratchKeep {
		buf = nil
	}
	r.scratch = buf[:0]
}
