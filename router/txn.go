package router

import (
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/corekv/corekv/shardowner/journal"
)

// Txn is a command in flight that must be atomic over several shards: a
// multi-key command whose keys span shards, SWAPDB, or a MULTI/EXEC block.
// It runs on the client's home core and goes through three phases:
//
//  1. Lock: it takes its keys (or whole shards) shard by shard, in
//     ascending shard order, with corekv.lock. Every transaction takes its
//     shards in the same order and holds what it has while it waits for
//     the next, so no two transactions ever wait for each other in a
//     cycle. A lock reply also says whether a key the client WATCHes on
//     that shard was touched.
//  2. Run: its body runs its commands as parts that pass the shards' locks
//     (Origin.Held), one or more hops; other commands on its keys wait in
//     the shards' queues (Locks), so no one sees part of it and it sees no
//     one else in between.
//  3. Unlock: corekv.unlock on every shard it locked, sent behind its parts
//     on the same rings, then the client's slot is filled.
type Txn struct {
	client int64
	seq    uint8 // Origin.Seq of everything it sends
	proto  int
	slot   *Slot // the client's slot, filled by Finish

	// The keys to lock, in the order added, and the shards to lock whole.
	keyBuf   []byte
	keyEnd   []int
	keyDB    []int
	keyShard []int
	whole    []bool // per shard
	shards   []int  // shards to lock, ascending

	next     int   // index in shards of the next to lock
	locking  *Slot // the lock request in flight
	stepping bool  // inside lockNext: a lock granted at once must not recurse
	touched  bool  // a WATCHed key was touched
	// eager runs the body as soon as the last lock request is sent: its
	// parts queue behind it on that shard. A transaction that must know
	// whether a watched key was touched waits for the last grant.
	eager   bool
	unblock bool // with eager: the connection's next commands may run then too (Slot.Locked)
	// atOnce runs the body before the first lock request is sent; its
	// parts wait in deferred until their shard's request is sent.
	atOnce   bool
	running  bool
	released int  // shards at the end of shards unlocked early (ReleaseLast)
	lastDone bool // the body has sent all it will: release the last shard once its parts are sent
	deferred []deferredPart
	dArgs    Args    // the deferred parts' arguments, one after another
	ex       txnExec // what an atOnce body submits through
	finished []byte  // the reply, when the body ended before the last grant came
	done     bool
	writes   bool   // may change data: each shard's part goes to its journal (Writes)
	acks     int    // unlock acknowledgements awaited before the reply (Exec.AcksDurable)
	answer   bool   // the reply waits for acks
	journal  uint64 // the transaction's number in the shards' journals; 0 until needed
	body     TxnBody
	argv     [][]byte // scratch for lock requests
	num      []byte
}

// deferredPart is a part submitted before its shard's lock request was
// sent; its arguments are in Txn.dArgs.
type deferredPart struct {
	shard     int
	cmd       *Command
	db, proto int
	nargs     int
	dest      *Slot
}

// txnExec is the Exec an atOnce body runs with: a part for a shard whose
// lock request is not sent yet waits for it, so that it reaches the shard
// behind the request and runs under the lock.
type txnExec struct {
	Exec
	t *Txn
}

func (x *txnExec) Submit(shard int, cmd *Command, db, proto int, argv [][]byte, dest *Slot) {
	t := x.t
	if !dest.held || !slices.Contains(t.shards[t.next:], shard) {
		x.Exec.Submit(shard, cmd, db, proto, argv, dest)
		return
	}
	t.dArgs.Append(argv)
	t.deferred = append(t.deferred, deferredPart{shard, cmd, db, proto, len(argv), dest})
}

// TxnBody is what a transaction does once it holds its keys.
type TxnBody interface {
	// Run starts the body; touched says a WATCHed key changed. The body
	// runs its parts with Txn.Submit and ends with Txn.Finish.
	Run(ex Exec, t *Txn, touched bool)
	// PartDone is called when the reply of a part the body submitted is
	// in its slot.
	PartDone(ex Exec, t *Txn, s *Slot)
}

// Begin readies t for a transaction of client whose reply fills slot.
// seq tells it apart from the client's other transactions in flight
// (Origin.Seq); slot's is used.
func (t *Txn) Begin(client int64, proto, shards int, slot *Slot) {
	t.client, t.proto, t.slot, t.seq = client, proto, slot, slot.seq
	slot.txn = t
	t.keyBuf, t.keyEnd, t.keyDB, t.keyShard = t.keyBuf[:0], t.keyEnd[:0], t.keyDB[:0], t.keyShard[:0]
	if cap(t.whole) < shards {
		t.whole = make([]bool, shards)
	}
	t.whole = t.whole[:shards]
	clear(t.whole)
	t.shards = t.shards[:0]
	t.next, t.locking, t.stepping, t.touched, t.body = 0, nil, false, false, nil
	t.eager, t.unblock, t.running, t.done, t.released = false, false, false, false, 0
	t.atOnce, t.lastDone = false, false
	t.writes, t.journal = false, 0
	t.acks, t.answer = 0, false
	t.deferred = t.deferred[:0]
	t.dArgs.Reset()
	t.finished = t.finished[:0]
}

// Writes says the transaction may change data: every shard it locks closes
// its part in the shard's journal as one of the transaction's parts, even a
// part that changed nothing there, so that whoever applies the journal can
// tell a whole transaction from a torn one. A transaction that only reads
// leaves no trace.
func (t *Txn) Writes() { t.writes = true }

// journalIDs numbers the transactions the shards' journals record, over
// every core: a number names one transaction's parts on all its shards.
var journalIDs atomic.Uint64

// SeedJournalIDs makes the transactions of this process number after n,
// the highest number the journal's files already hold.
func SeedJournalIDs(n uint64) {
	for {
		cur := journalIDs.Load()
		if cur >= n || journalIDs.CompareAndSwap(cur, n) {
			return
		}
	}
}

// journalMark returns the arguments a shard's journal closes t's part with:
// t's number and its count of parts (0: nothing to record).
func (t *Txn) journalMark(parts int) (uint64, int) {
	if !t.writes {
		return 0, 0
	}
	if t.journal == 0 {
		t.journal = journalIDs.Add(1)
	}
	return t.journal, parts
}

// RunEarly lets the body start once the last lock request is sent, rather
// than granted: its parts on that shard wait behind the request there, and
// the hop saved is a whole round trip. Only a body that ignores the watch
// check may. With unblock the connection's next commands may run from then
// on too (Slot.Locked): the shards order them after the transaction.
func (t *Txn) RunEarly(unblock bool) { t.eager, t.unblock = true, unblock }

// RunAtOnce goes further than RunEarly: the body starts before any lock
// request is sent, and each part goes right behind its shard's request,
// so the parts of the first shards run while the later locks are still
// being taken (no lock is let go before all are held). A transaction of
// two shards then takes one round trip whichever shard its client is on.
// Only a one-round body may: a later round started from a part's reply
// would not wait for the locks.
func (t *Txn) RunAtOnce(unblock bool) {
	t.RunEarly(unblock)
	t.atOnce = true
}

// Client is the ID of the connection the transaction runs for.
func (t *Txn) Client() int64 { return t.client }

// LockKey adds key of database db, which lives on shard, to what t locks.
func (t *Txn) LockKey(shard, db int, key []byte) {
	t.keyBuf = append(t.keyBuf, key...)
	t.keyEnd = append(t.keyEnd, len(t.keyBuf))
	t.keyDB = append(t.keyDB, db)
	t.keyShard = append(t.keyShard, shard)
	t.addShard(shard)
}

// LockShard makes t lock the whole of shard.
func (t *Txn) LockShard(shard int) {
	t.whole[shard] = true
	t.addShard(shard)
}

func (t *Txn) addShard(shard int) {
	if !slices.Contains(t.shards, shard) {
		t.shards = append(t.shards, shard)
	}
}

// Local reports whether everything t would lock lives on shard (or it
// locks nothing).
func (t *Txn) Local(shard int) bool {
	return len(t.shards) == 0 || (len(t.shards) == 1 && t.shards[0] == shard)
}

// RunUnlocked runs body without taking locks, for a transaction whose keys
// all live on the caller's own shard while nothing there is locked: its
// parts run at once, one after the other, with nothing in between.
// touched is the watch check's answer, read by the caller.
func (t *Txn) RunUnlocked(ex Exec, body TxnBody, touched bool) {
	t.body = body
	t.shards = t.shards[:0]
	t.running = true
	body.Run(ex, t, touched)
	if j := ex.Own().Journal; j != nil {
		// Its parts ran here, one after the other, and are the whole.
		id, parts := t.journalMark(1)
		j.EndTx(journal.Owner{Client: t.client, Seq: t.seq}, id, parts)
	}
}

// Start takes the locks, then runs body.
func (t *Txn) Start(ex Exec, body TxnBody) {
	t.body = body
	slices.Sort(t.shards)
	if t.atOnce {
		t.ex = txnExec{Exec: ex, t: t}
		t.running = true
		body.Run(&t.ex, t, false)
		if t.done && t.next == 0 {
			// Answered before sending anything (an arity error).
			return
		}
	}
	t.lockNext(ex)
}

// lockNext requests the locks of the next shards, one at a time; a lock
// granted at once (a local shard with nothing in the way) goes on to the
// next without waiting. Once every lock is held the body runs (or, with
// RunEarly, once the last is sent; with RunAtOnce it already runs, and each
// shard's deferred parts follow its request).
func (t *Txn) lockNext(ex Exec) {
	t.stepping = true
	for t.locking == nil && t.next < len(t.shards) && !t.done {
		sh := t.shards[t.next]
		t.next++
		s := ex.NewSlot()
		s.owner = t
		s.Client, s.seq = t.client, t.seq
		t.locking = s
		ex.Submit(sh, cmdLock, 0, t.proto, t.lockArgv(sh), s)
		t.sendDeferred(ex, sh)
	}
	t.stepping = false
	if t.atOnce {
		if t.next == len(t.shards) && !t.done {
			t.slot.Locked = t.unblock
			if t.lastDone {
				t.ReleaseLast(ex)
			}
		}
		return
	}
	if t.running || (t.locking != nil && !(t.eager && t.next == len(t.shards))) {
		return
	}
	t.running = true
	if t.unblock && t.slot != nil {
		t.slot.Locked = true
	}
	t.body.Run(ex, t, t.touched)
}

// sendDeferred sends the parts that waited for shard's lock request.
func (t *Txn) sendDeferred(ex Exec, shard int) {
	arg := 0
	for i := range t.deferred {
		d := &t.deferred[i]
		first := arg
		arg += d.nargs
		if d.shard != shard || d.dest == nil {
			continue
		}
		dest := d.dest
		d.dest = nil
		ex.Submit(shard, d.cmd, d.db, d.proto, t.dArgs.Slice(first, d.nargs), dest)
	}
	if t.next == len(t.shards) {
		clear(t.deferred)
		t.deferred = t.deferred[:0]
		t.dArgs.Reset()
	}
}

// lockArgv builds corekv.lock's arguments for shard: the client, then the
// database and name of each key there; none for a whole shard.
func (t *Txn) lockArgv(shard int) [][]byte {
	t.num = strconv.AppendInt(t.num[:0], t.client, 10)
	t.argv = append(t.argv[:0], cmdLock.NameBytes(), t.num)
	if t.whole[shard] {
		return t.argv
	}
	start := 0
	for i, end := range t.keyEnd {
		if t.keyShard[i] == shard {
			t.argv = append(t.argv, dbWords[t.keyDB[i]&255], t.keyBuf[start:end])
		}
		start = end
	}
	return t.argv
}

// dbWords are database numbers as arguments, so lock requests build no
// strings. Databases past 255 share a word with a lower one: their keys
// only wait for each other needlessly when their names are equal.
var dbWords = func() [][]byte {
	w := make([][]byte, 256)
	for i := range w {
		w[i] = []byte(strconv.Itoa(i))
	}
	return w
}()

// Submit runs cmd on shard as a part of the transaction; its reply fills the
// returned slot, and the body's PartDone is called then.
func (t *Txn) Submit(ex Exec, shard int, cmd *Command, db int, argv [][]byte) *Slot {
	s := t.NewPart(ex)
	ex.Submit(shard, cmd, db, t.proto, argv, s)
	return s
}

// NewPart returns a slot for a part of the transaction: what runs for it
// passes the transaction's locks, and its completion calls PartDone. A
// multi-shard plan started on it runs its parts the same way.
func (t *Txn) NewPart(ex Exec) *Slot {
	s := ex.NewSlot()
	s.owner = t
	s.held = true
	s.Client, s.seq = t.client, t.seq
	s.NoTouch, s.Track = t.slot.NoTouch, t.slot.Track
	return s
}

// partDone routes a filled slot of t: a lock reply moves the lock phase
// on, any other is the body's.
func (t *Txn) partDone(ex Exec, s *Slot) {
	if s.ack {
		ex.FreeSlot(s)
		if t.acks--; t.acks == 0 && t.answer {
			t.answerSlot(ex)
		}
		return
	}
	if s != t.locking {
		t.body.PartDone(ex, t, s)
		return
	}
	if string(s.Reply) == ":1\r\n" {
		t.touched = true
	}
	ex.FreeSlot(s)
	t.locking = nil
	switch {
	case t.done:
		// The body ended first (RunEarly): now the unlocks may go.
		t.unlock(ex)
	case !t.stepping:
		t.lockNext(ex)
	}
}

// Finish unlocks every shard t locked and answers reply on the client's
// slot. The unlocks travel behind the parts, so each shard releases after
// running them.
func (t *Txn) Finish(ex Exec, reply []byte) {
	t.finished = append(t.finished[:0], reply...)
	t.done = true
	if t.locking == nil {
		t.unlock(ex)
	}
}

// Restart lets go of every lock t holds and takes them again, in order,
// with what the body added since (LockKey, LockShard), then runs the body
// anew: for a body that found, before changing anything, that it must hold
// more than it does. Taking a lock out of order could wait in a cycle with
// another transaction; letting go first cannot. The unlocks close no part
// in the journals: the body runs Writes again if it writes. Only a body
// that runs once every lock is granted (neither RunEarly nor RunAtOnce)
// may restart.
func (t *Txn) Restart(ex Exec) {
	t.writes = false
	for _, sh := range t.shards[:t.next-t.released] {
		t.sendUnlock(ex, sh)
	}
	t.next, t.released, t.running, t.touched = 0, 0, false, false
	slices.Sort(t.shards)
	t.lockNext(ex)
}

// ReleaseLast unlocks the last shard now, for a body that has sent every
// part it will send there: the unlock travels right behind them and the
// shard releases as soon as it has run them, instead of a round trip
// later. The others stay locked until Finish, so no one sees part of the
// transaction before all of it has its keys.
func (t *Txn) ReleaseLast(ex Exec) {
	if t.atOnce && (t.next < len(t.shards) || t.stepping) {
		// Its parts there are not all sent yet: lockNext releases it
		// after them.
		t.lastDone = true
		return
	}
	if t.released == 0 && t.next == len(t.shards) && t.next > 0 {
		t.released = 1
		t.sendUnlock(ex, t.shards[t.next-1])
	}
}

// sendUnlock sends corekv.unlock client seq id parts to shard: the last
// three close the transaction's part in the shard's journal.
func (t *Txn) sendUnlock(ex Exec, shard int) {
	// Every shard it asked for a lock gets an unlock, and no other: a
	// body that ended early (an error) never asked the shards after next.
	id, parts := t.journalMark(t.next)
	t.num = strconv.AppendInt(t.num[:0], t.client, 10)
	n := len(t.num)
	t.num = strconv.AppendInt(t.num, int64(t.seq), 10)
	m := len(t.num)
	t.num = strconv.AppendUint(t.num, id, 10)
	k := len(t.num)
	t.num = strconv.AppendInt(t.num, int64(parts), 10)
	t.argv = append(t.argv[:0], cmdUnlock.NameBytes(), t.num[:n], t.num[n:m], t.num[m:k], t.num[k:])
	s := ex.NewSlot()
	s.Client, s.seq = t.client, t.seq
	if parts > 0 && ex.AcksDurable() {
		// The reply waits for this part to be durable there.
		s.owner, s.ack = t, true
		t.acks++
	} else {
		s.Orphan = true // nobody reads the reply
	}
	ex.Submit(shard, cmdUnlock, 0, t.proto, t.argv, s)
}

// unlock sends the unlocks and answers the reply Finish kept.
func (t *Txn) unlock(ex Exec) {
	for _, sh := range t.shards[:t.next-t.released] {
		t.sendUnlock(ex, sh)
	}
	if t.acks > 0 {
		t.answer = true
		return
	}
	t.answerSlot(ex)
}

// answerSlot answers the reply Finish kept.
func (t *Txn) answerSlot(ex Exec) {
	t.answer = false
	s := t.slot
	t.slot, t.body = nil, nil
	s.Reply = append(s.Reply[:0], t.finished...)
	s.txn = nil
	if cap(t.finished) > batchKeep {
		t.finished = nil
	}
	done(ex, s)
}
