package router

import (
	"hash/maphash"
	"slices"

	"github.com/corekv/corekv/resp"
)

// Locks are one shard's key intents, in the manner of VLL (Ren, Thomson,
// Abadi: "VLL: a lock manager redesign for main memory database systems"):
// a transaction (Txn) that spans shards takes its keys on each of them
// before it runs, and a command that arrives for a key some transaction
// holds, or that an earlier waiting command wants, waits in the shard's
// queue until its turn. While no transaction holds anything on the shard,
// Active is false and every command runs directly: the single-shard path
// pays one comparison.
//
// Keys are identified by a hash of their database and name; two keys that
// share a hash only wait for each other needlessly.
//
// Locks belong to the shard's core; nothing here is safe for another
// thread.
type Locks struct {
	holders  []*Waiter        // granted lock requests, one per transaction holding keys here
	held     map[uint64]int32 // ids held, counted over holders
	heldAll  int              // holders of the whole shard
	queue    []*Waiter        // waiting, in arrival order
	ready    []*Waiter        // may run now, in arrival order; the core runs them (TakeReady)
	claimed  map[uint64]int32 // ids of queue and ready, counted
	claimAll int              // queue and ready entries that want the whole shard
	unlocks  int              // unlocks in queue, waiting for their transaction's parts
	blocked  map[uint64]bool  // scratch for schedule
	free     []*Waiter

	// parked is the shard's blocking commands that wait for elements
	// (Blocked): like the queue, commands that answer later.
	parked *Blocking
}

// Blocked is the shard's registry of parked blocking commands.
func (l *Locks) Blocked() *Blocking {
	if l.parked == nil {
		l.parked = new(Blocking)
	}
	return l.parked
}

// Waiter is a command that could not run when it arrived: the command in
// flight, with its own copy of the arguments (Op.Argv is nil while it
// waits).
type Waiter struct {
	Op
	args Args
	ids  []uint64
	pos  []int // scratch for the positions of the keys
	all  bool
	kind waitKind
}

type waitKind uint8

const (
	waitCommand waitKind = iota // a client's command, or a transaction's part
	waitLock                    // corekv.lock: becomes a holder when its turn comes
	waitUnlock                  // corekv.unlock: waits for the holder's parts queued before it
)

// Argv is the waiter's argument vector.
func (w *Waiter) Argv() [][]byte { return w.args.Argv() }

// Resume is the waiter as an op to run (Run) once TakeReady returned it:
// it has passed the locks, and Run ends it (Done).
func (w *Waiter) Resume() *Op {
	w.Op.Argv = w.args.Argv()
	w.waiter = w
	return &w.Op
}

var lockSeed = maphash.MakeSeed()

// lockID names key of database db in a shard's Locks.
func lockID(db int, key []byte) uint64 {
	return maphash.Bytes(lockSeed, key) ^ uint64(db+1)*0x9e3779b97f4a7c15
}

// Active reports whether anything is held or waiting on the shard; when it
// is not, every command may run at once.
func (l *Locks) Active() bool {
	return len(l.holders) > 0 || len(l.queue) > 0 || len(l.ready) > 0
}

// KeyFree reports whether no transaction holds or waits for key of
// database db: a parked command may be served for it now.
func (l *Locks) KeyFree(db int, key []byte) bool {
	if !l.Active() {
		return true
	}
	if l.heldAll > 0 || l.claimAll > 0 {
		return false
	}
	id := lockID(db, key)
	return l.held[id] == 0 && l.claimed[id] == 0
}

// Holder returns the transaction (its client and Origin.Seq) that holds key
// of database db here, if one does.
func (l *Locks) Holder(db int, key []byte) (client int64, seq uint8, ok bool) {
	if len(l.holders) == 0 {
		return 0, 0, false
	}
	id := lockID(db, key)
	for _, w := range l.holders {
		if w.all || slices.Contains(w.ids, id) {
			return w.Origin.Client, w.Origin.Seq, true
		}
	}
	return 0, 0, false
}

// Held reports how many transactions hold keys here, and Waiting how many
// commands wait (for INFO and tests).
func (l *Locks) Held() int    { return len(l.holders) }
func (l *Locks) Waiting() int { return len(l.queue) + len(l.ready) }

// Admit decides whether a command that arrived for this shard may run now.
// When it may not, Admit keeps a copy of it to run later (TakeReady) and
// reports false; the caller then owes no reply for it now. A lock request
// that may run is granted here; an unlock that may run releases here.
func (l *Locks) Admit(cmd *Command, db, proto int, argv [][]byte, o Origin, from int, dest *Slot) bool {
	op := Op{Cmd: cmd, DB: db, Proto: proto, Argv: argv, Origin: o, From: from, Dest: dest}
	return l.admit(&op)
}

// admit is Admit for a command in flight.
func (l *Locks) admit(op *Op) bool {
	kind := kindOf(op.Cmd)
	// A publish touches no key, so no transaction's locks concern it.
	if kind == waitCommand && (!l.Active() || op.Cmd.Combine == CombinePublish && op.Cmd.Route == RouteAll) {
		return true
	}
	w := l.newWaiter()
	// Field by field: a recycled waiter's Argv, waiter and served are
	// nil already, and each pointer stored into it costs a write barrier
	// check.
	w.Cmd, w.DB, w.Proto, w.Origin, w.From, w.Dest = op.Cmd, op.DB, op.Proto, op.Origin, op.From, op.Dest
	w.kind = kind
	w.fill(op.Cmd, op.DB, op.Argv)
	if l.mayRun(w, op.Origin) {
		switch kind {
		case waitLock:
			l.grant(w)
			return true
		case waitUnlock:
			l.release(ownerOf(op.Origin))
		}
		l.recycle(w)
		return true
	}
	w.args.Set(op.Argv)
	l.claim(w, 1)
	if kind == waitUnlock {
		l.unlocks++
	}
	l.queue = append(l.queue, w)
	return false
}

func kindOf(cmd *Command) waitKind {
	switch cmd {
	case cmdLock:
		return waitLock
	case cmdUnlock:
		return waitUnlock
	}
	return waitCommand
}

// fill sets the ids w needs from its command's keys: corekv.lock names
// (db, key) pairs itself, and a command that is not confined to its keys
// (no keys, every shard, or keys its arguments lead to) needs the whole
// shard.
func (w *Waiter) fill(cmd *Command, db int, argv [][]byte) {
	w.ids = w.ids[:0]
	w.all = false
	switch {
	case cmd == cmdLock:
		for i := 2; i+1 < len(argv); i += 2 {
			d, _ := resp.ParseInt(argv[i])
			w.ids = append(w.ids, lockID(int(d), argv[i+1]))
		}
		w.all = len(argv) <= 2
	case cmd == cmdUnlock:
	case cmd.Route != RouteKey || !cmd.HasKeys(len(argv)) || cmd.ReadsOthers != nil && cmd.ReadsOthers(argv):
		w.all = true
	default:
		w.pos = cmd.KeyIndexes(w.pos[:0], argv)
		for _, i := range w.pos {
			w.ids = append(w.ids, lockID(db, argv[i]))
		}
	}
}

// mayRun reports whether w, arriving now, may run before anything waiting.
func (l *Locks) mayRun(w *Waiter, o Origin) bool {
	switch w.kind {
	case waitUnlock:
		return !l.partsWaiting(ownerOf(o))
	case waitCommand:
		if o.Held {
			// A part of a transaction runs under its holder's locks.
			return l.holds(ownerOf(o))
		}
	}
	return !l.heldAny(w) && !l.claimedAny(w)
}

// owner names a transaction: its connection, and which of the
// connection's transactions in flight it is.
type owner struct {
	client int64
	seq    uint8
}

func ownerOf(o Origin) owner { return owner{o.Client, o.Seq} }

// holds reports whether transaction t holds keys here.
func (l *Locks) holds(t owner) bool {
	for _, h := range l.holders {
		if ownerOf(h.Origin) == t {
			return true
		}
	}
	return false
}

// partsWaiting reports whether a part of transaction t waits here:
// its unlock must come after them.
func (l *Locks) partsWaiting(t owner) bool {
	for _, q := range [2][]*Waiter{l.ready, l.queue} {
		for _, w := range q {
			if ownerOf(w.Origin) == t && (w.Origin.Held || w.kind == waitLock) {
				return true
			}
		}
	}
	return false
}

// heldAny reports whether a holder holds something w needs. A plain
// command of the holder's own client waits too: it came after the
// transaction began and must see its result.
func (l *Locks) heldAny(w *Waiter) bool {
	if len(l.holders) == 0 {
		return false
	}
	if w.all || l.heldAll > 0 {
		return true
	}
	for _, id := range w.ids {
		if l.held[id] > 0 {
			return true
		}
	}
	return false
}

// claimedAny reports whether an entry waiting (or ready) wants something w
// needs: w then waits behind it.
func (l *Locks) claimedAny(w *Waiter) bool {
	if len(l.queue)+len(l.ready) == 0 {
		return false
	}
	if w.all || l.claimAll > 0 {
		return true
	}
	for _, id := range w.ids {
		if l.claimed[id] > 0 {
			return true
		}
	}
	return false
}

func (l *Locks) claim(w *Waiter, d int32) {
	if w.all {
		l.claimAll += int(d)
		return
	}
	if l.claimed == nil {
		l.claimed = make(map[uint64]int32)
	}
	for _, id := range w.ids {
		if n := l.claimed[id] + d; n != 0 {
			l.claimed[id] = n
		} else {
			delete(l.claimed, id)
		}
	}
}

// grant makes w a holder.
func (l *Locks) grant(w *Waiter) {
	l.holders = append(l.holders, w)
	if w.all {
		l.heldAll++
		return
	}
	if l.held == nil {
		l.held = make(map[uint64]int32)
	}
	for _, id := range w.ids {
		l.held[id]++
	}
}

// release drops what transaction t holds here and lets the waiters
// that may now run go ready.
func (l *Locks) release(t owner) {
	for i, h := range l.holders {
		if ownerOf(h.Origin) != t {
			continue
		}
		if h.all {
			l.heldAll--
		}
		for _, id := range h.ids {
			if n := l.held[id] - 1; n > 0 {
				l.held[id] = n
			} else {
				delete(l.held, id)
			}
		}
		l.holders = append(l.holders[:i], l.holders[i+1:]...)
		wake := l.wakes(h)
		l.recycle(h)
		if wake {
			l.schedule()
		}
		return
	}
}

// wakes reports whether w, a holder released or a ready entry done, can
// have been in the way of a queued entry: one that wants an id of w's, or
// the whole shard, or any when w had the whole shard, or an unlock waiting
// for its transaction's parts. Otherwise nothing queued can run now that
// could not before, and schedule's pass over the queue is skipped.
func (l *Locks) wakes(w *Waiter) bool {
	if len(l.queue) == 0 {
		return false
	}
	if w.all || l.claimAll > 0 || l.unlocks > 0 {
		return true
	}
	for _, id := range w.ids {
		if l.claimed[id] > 0 {
			return true
		}
	}
	return false
}

// schedule moves to ready, in order, every queued entry that nothing
// before it blocks: not a holder other than its own transaction, and no
// earlier entry still waiting for something it needs. Lock requests among
// them become holders at once, so what comes after them waits for them.
func (l *Locks) schedule() {
	if len(l.queue) == 0 {
		return
	}
	if l.blocked == nil {
		l.blocked = make(map[uint64]bool)
	}
	clear(l.blocked)
	blockAll := false
	for _, w := range l.ready {
		blockAll = blockAll || w.all
		for _, id := range w.ids {
			l.blocked[id] = true
		}
	}
	keep := l.queue[:0]
	for _, w := range l.queue {
		run := false
		switch {
		case w.kind == waitUnlock:
			run = !l.partWaitsBefore(keep, ownerOf(w.Origin))
		case w.kind == waitCommand && w.Origin.Held:
			run = l.holds(ownerOf(w.Origin))
		default:
			run = !blockAll && !l.heldAny(w) && !l.blockedBy(w)
		}
		if !run {
			blockAll = blockAll || w.all
			for _, id := range w.ids {
				l.blocked[id] = true
			}
			keep = append(keep, w)
			continue
		}
		switch w.kind {
		case waitLock:
			// Granted now; its reply goes out when the core runs it.
			l.claim(w, -1)
			l.grant(w)
		case waitUnlock:
			l.unlocks--
		}
		l.ready = append(l.ready, w)
	}
	clear(l.queue[len(keep):])
	l.queue = keep
}

func (l *Locks) blockedBy(w *Waiter) bool {
	if w.all {
		return len(l.blocked) > 0
	}
	for _, id := range w.ids {
		if l.blocked[id] {
			return true
		}
	}
	return false
}

// partWaitsBefore reports whether a part of transaction t is among
// the entries before an unlock: in ready, or kept waiting in the queue.
func (l *Locks) partWaitsBefore(kept []*Waiter, t owner) bool {
	for _, q := range [2][]*Waiter{l.ready, kept} {
		for _, w := range q {
			if ownerOf(w.Origin) == t && (w.Origin.Held || w.kind == waitLock) {
				return true
			}
		}
	}
	return false
}

// TakeReady returns the first waiter that may run now, or nil. The caller
// runs it (its locks are already accounted), then calls Done.
func (l *Locks) TakeReady() *Waiter {
	if len(l.ready) == 0 {
		return nil
	}
	w := l.ready[0]
	copy(l.ready, l.ready[1:])
	l.ready[len(l.ready)-1] = nil
	l.ready = l.ready[:len(l.ready)-1]
	return w
}

// Done ends a waiter taken with TakeReady: an unlock releases its
// transaction's keys, and anything it was in the way of may go ready. A
// lock request stays, as the holder, until its unlock.
func (l *Locks) Done(w *Waiter) {
	if w.kind == waitLock {
		if l.wakes(w) {
			l.schedule()
		}
		return
	}
	l.claim(w, -1)
	if w.kind == waitUnlock {
		l.release(ownerOf(w.Origin))
	} else if l.wakes(w) {
		l.schedule()
	}
	l.recycle(w)
}

func (l *Locks) newWaiter() *Waiter {
	if n := len(l.free); n > 0 {
		w := l.free[n-1]
		l.free = l.free[:n-1]
		return w
	}
	return new(Waiter)
}

// recycle keeps w for reuse unless it grew for a large command.
func (l *Locks) recycle(w *Waiter) {
	w.Cmd, w.Dest, w.Op.Argv, w.waiter = nil, nil, nil, nil
	if w.args.Large() || cap(w.ids) > argsKeep || len(l.free) >= freeWaiters {
		return
	}
	l.free = append(l.free, w)
}

// freeWaiters is how many recycled waiters a shard keeps.
const freeWaiters = 256
