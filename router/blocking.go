package router

import (
	"bytes"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/streamnode"
)

// Blocking is one shard's registry of parked blocking commands (BLPOP and
// the like; DESIGN.md §10, "a transaction that waits"). A blocking command
// whose keys have no elements parks here instead of answering, the way
// Locks parks a command behind held keys: the registry keeps its own copy
// of the arguments and where its reply goes (its client's slot, on the
// core From). For each database it maps a key to the commands that wait
// for it, first come first served.
//
// When a write creates a key that commands wait for (the shard tells the
// registry through shardowner.Waiters), the key becomes ready; once the
// command that created it has finished (and the transaction that holds it
// has let go), the core runs the waiters of each ready key again, in
// order, for that key alone (shardowner.Ctx.ServeKey), until one finds it
// empty or none is left. A served command leaves every key it waited for.
//
// A parked command ends when it is served, or when its client's core sends
// corekv.bcancel: its timeout came, CLIENT UNBLOCK, or its client went. A
// cancel that finds nothing (the command was served first) does nothing,
// so a client never gets two replies and no element goes to a client that
// has been told it timed out.
//
// A connection has at most one blocking command in flight, so the registry
// holds at most one command per client. It belongs to the shard's core.
type Blocking struct {
	shard   *shardowner.Shard
	dbs     []map[string]*waitQueue
	clients map[int64]*Blocked
	ready   []*waitQueue // keys made ready, in order, not yet served
	free    []*Blocked
	// A stream waiter's arguments with "$" made IDs (waitStream), and
	// its wake reply (WakeReply).
	streamArgv [][]byte
	idText     []byte
	wakeReply  resp.Writer
}

// Blocked is a parked blocking command: the command in flight, with its
// own copy of the arguments (Op.Argv is nil while it is parked).
type Blocked struct {
	Op
	args   Args
	queues []*waitQueue // the keys it waits for, each once
	pos    []int
	// Wake marks a wake-only registration (corekv.bwait) of a command
	// whose keys span shards: when one of its keys holds a Kind value it
	// is answered +1, without popping, and its client's core tries the
	// command again over all its shards.
	Wake bool
	Kind shardowner.Kind
	// serveKey is the ready key it is served for (Serve).
	serveKey []byte
}

// waitQueue is the commands that wait for one key.
type waitQueue struct {
	db    int
	key   string
	name  []byte // key's bytes, for handlers
	ws    []*Blocked
	ready bool // in Blocking.ready
}

var (
	// CmdXRead and CmdXReadGroup are XREAD and XREADGROUP, which block
	// only when asked to.
	CmdXRead       = LookupString("xread")
	CmdXReadGroup  = LookupString("xreadgroup")
	cmdBCancel     = LookupString("corekv.bcancel")
	cmdBWait       = LookupString("corekv.bwait")
	cmdBWaitStream = LookupString("corekv.bwaitstream")
	// CmdBCancel, CmdBWait and CmdBWaitStream are corekv.bcancel,
	// corekv.bwait and corekv.bwaitstream, for the reactor to send.
	CmdBCancel     = cmdBCancel
	CmdBWait       = cmdBWait
	CmdBWaitStream = cmdBWaitStream

	wordList    = []byte("list")
	wordZset    = []byte("zset")
	wordTimeout = []byte("timeout")
	wordError   = []byte("error")
	wordGone    = []byte("gone")
)

// Cancel modes of corekv.bcancel: the reply the cancelled command gets.
var (
	CancelTimeout = wordTimeout // as on timeout
	CancelError   = wordError   // CLIENT UNBLOCK … ERROR
	CancelGone    = wordGone    // none: the client has gone
)

// ErrUnblocked is the reply of a command CLIENT UNBLOCK … ERROR ended.
const ErrUnblocked resp.Error = "UNBLOCKED client unblocked via CLIENT UNBLOCK"

// Argv is the command's argument vector.
func (b *Blocked) Argv() [][]byte { return b.args.Argv() }

// Serve is the parked command as an op to run (Run) for key alone, which
// has become ready: if it answers, Run ends its stay (Served); if it finds
// nothing, it stays parked and Run reports it unanswered.
func (b *Blocked) Serve(key []byte) *Op {
	b.Op.Argv = b.args.Argv()
	b.served, b.serveKey = b, key
	return &b.Op
}

// Len is how many commands are parked.
func (bk *Blocking) Len() int { return len(bk.clients) }

// WaitKeys appends to dst the positions of the keys cmd waits for: its
// source for BLMOVE and BRPOPLPUSH, all its keys for the others.
func WaitKeys(dst []int, cmd *Command, argv [][]byte) []int {
	if cmd.LastKey == 2 && cmd.NumKeys == 0 {
		return append(dst, 1)
	}
	return cmd.KeyIndexes(dst, argv)
}

// Park keeps cmd, which found nothing on shard sh, until one of its keys
// is ready or it is cancelled.
func (bk *Blocking) Park(sh *shardowner.Shard, cmd *Command, db, proto int, argv [][]byte, o Origin, from int, dest *Slot) {
	op := Op{Cmd: cmd, DB: db, Proto: proto, Argv: argv, Origin: o, From: from, Dest: dest}
	bk.park(sh, &op)
}

// park is Park for a command in flight.
func (bk *Blocking) park(sh *shardowner.Shard, op *Op) {
	argv := op.Argv
	if old := bk.clients[op.Origin.Client]; old != nil {
		// Not expected: a client parks one command at a time.
		bk.remove(old)
		bk.recycle(old)
	}
	if bk.clients == nil {
		bk.clients = make(map[int64]*Blocked)
		bk.dbs = make([]map[string]*waitQueue, len(sh.DBs))
	}
	bk.shard = sh
	var b *Blocked
	if n := len(bk.free); n > 0 {
		b = bk.free[n-1]
		bk.free = bk.free[:n-1]
	} else {
		b = new(Blocked)
	}
	// Not the whole Op: whatever held op before (a waiter that ends now)
	// is not the parked command's, and a recycled one's Argv and served
	// are nil already.
	b.Cmd, b.DB, b.Proto, b.Origin, b.From, b.Dest = op.Cmd, op.DB, op.Proto, op.Origin, op.From, op.Dest
	b.args.Set(argv)
	db := op.DB
	b.queues = b.queues[:0]
	b.pos = WaitKeys(b.pos[:0], op.Cmd, argv)
	m := bk.dbs[db]
	if m == nil {
		m = make(map[string]*waitQueue)
		bk.dbs[db] = m
	}
	for _, i := range b.pos {
		q := m[string(argv[i])]
		if q == nil {
			q = &waitQueue{db: db, key: string(argv[i])}
			q.name = []byte(q.key)
			m[q.key] = q
		}
		if len(q.ws) > 0 && q.ws[len(q.ws)-1] == b {
			continue // the same key twice
		}
		q.ws = append(q.ws, b)
		b.queues = append(b.queues, q)
	}
	bk.clients[op.Origin.Client] = b
	b.Wake = false
	sh.Waiters = bk
}

// Wait registers corekv.bwait <client> list|zset key [key ...]: a
// wake-only waiter for the keys (Blocked.Wake). Keys that already hold
// such a value are ready at once, so no element that came since the
// client's last attempt goes unnoticed.
func (bk *Blocking) Wait(sh *shardowner.Shard, db, proto int, argv [][]byte, o Origin, from int, dest *Slot) {
	op := Op{Cmd: cmdBWait, DB: db, Proto: proto, Argv: argv, Origin: o, From: from, Dest: dest}
	bk.wait(sh, &op)
}

// wait is Wait for a command in flight.
func (bk *Blocking) wait(sh *shardowner.Shard, op *Op) {
	if op.Cmd == cmdBWaitStream {
		bk.waitStream(sh, op)
		return
	}
	bk.park(sh, op)
	b := bk.clients[op.Origin.Client]
	b.Wake = true
	b.Kind = shardowner.KindList
	if bytes.Equal(op.Argv[2], wordZset) {
		b.Kind = shardowner.KindZSet
	}
	for _, q := range b.queues {
		if v, ok := sh.DBs[op.DB].Get([]byte(q.key)); ok && v.Kind == b.Kind {
			bk.markReady(q)
		}
	}
}

// waitStream registers corekv.bwaitstream <client> <group> key id [key
// id ...]: a wake-only waiter of XREAD (group empty) or XREADGROUP over
// streams of several shards. "$" becomes the key's last ID now, and the
// waiter is answered those IDs when one of its keys has entries after
// its ID (for XREADGROUP, not yet delivered to the group), or the error
// that ends an XREADGROUP's wait (WakeReply). Keys that have such
// entries already are ready at once.
func (bk *Blocking) waitStream(sh *shardowner.Shard, op *Op) {
	argv := op.Argv
	bk.idText = bk.idText[:0]
	var ends []int
	for i := 4; i < len(argv); i += 2 {
		if len(argv[i]) == 1 && argv[i][0] == '$' {
			bk.idText = streamnode.AppendID(bk.idText, shardowner.StreamLastID(sh, op.DB, argv[i-1]))
		}
		ends = append(ends, len(bk.idText))
	}
	bk.streamArgv = append(bk.streamArgv[:0], argv...)
	start := 0
	for j, i := 0, 4; i < len(argv); i, j = i+2, j+1 {
		if ends[j] > start {
			bk.streamArgv[i] = bk.idText[start:ends[j]:ends[j]]
		}
		start = ends[j]
	}
	parked := *op
	parked.Argv = bk.streamArgv
	bk.park(sh, &parked)
	clear(bk.streamArgv)
	b := bk.clients[op.Origin.Client]
	b.Wake, b.Kind = true, shardowner.KindStream
	for _, q := range b.queues {
		if ready, _ := b.streamReady(sh, q.name); ready {
			bk.markReady(q)
		}
	}
}

// streamReady reports whether stream waiter b may go on for key (or
// must end, with err): shardowner.StreamWaitReady for key's ID.
func (b *Blocked) streamReady(sh *shardowner.Shard, key []byte) (ready bool, err resp.Error) {
	argv := b.args.Argv()
	var group []byte
	if len(argv[2]) > 0 {
		group = argv[2]
	}
	for i := 3; i+1 < len(argv); i += 2 {
		if !bytes.Equal(argv[i], key) {
			continue
		}
		id, _ := streamnode.ParseStrictID(argv[i+1], 0)
		return shardowner.StreamWaitReady(sh, b.DB, key, id, group)
	}
	return false, ""
}

// WakeReply is what wake-only waiter b answers, now that key is ready,
// and whether it answers at all: :1 when key holds a value of its kind;
// a stream's waiter, when key has entries for it, the IDs it waited after
// (one per key, "$" made the ID it stood for), or the error that ends an
// XREADGROUP's wait. The reply is good until the next call.
func (bk *Blocking) WakeReply(b *Blocked, key []byte) ([]byte, bool) {
	w := &bk.wakeReply
	w.B, w.Proto = w.B[:0], b.Proto
	if b.Kind != shardowner.KindStream {
		if v, ok := bk.shard.DBs[b.DB].Get(key); !ok || v.Kind != b.Kind {
			return nil, false
		}
		w.Int(1)
		return w.B, true
	}
	ready, err := b.streamReady(bk.shard, key)
	switch {
	case err != "":
		w.Err(err)
	case !ready:
		return nil, false
	default:
		argv := b.args.Argv()
		w.Array((len(argv) - 3) / 2)
		for i := 4; i < len(argv); i += 2 {
			w.Bulk(argv[i])
		}
	}
	return w.B, true
}

// WaitKind is the word corekv.bwait names the kind of value with.
func WaitKind(cmd *Command) []byte {
	if cmd.Group == "sorted-set" {
		return wordZset
	}
	return wordList
}

// Waiting reports whether commands wait for key of database db
// (shardowner.Waiters).
func (bk *Blocking) Waiting(db int, key []byte) bool {
	if db >= len(bk.dbs) || bk.dbs[db] == nil {
		return false
	}
	q := bk.dbs[db][string(key)]
	return q != nil && len(q.ws) > 0
}

// Created marks key ready when commands wait for it (shardowner.Waiters).
func (bk *Blocking) Created(db int, key []byte) {
	if db >= len(bk.dbs) || bk.dbs[db] == nil {
		return
	}
	if q := bk.dbs[db][string(key)]; q != nil {
		bk.markReady(q)
	}
}

// Flushed marks ready every key waited for in database db, which was
// emptied: a blocked XREADGROUP ends (shardowner.Waiters).
func (bk *Blocking) Flushed(db int) { bk.Swapped(db, db) }

// Swapped marks ready every key waited for in databases a and b: what
// they hold changed (shardowner.Waiters).
func (bk *Blocking) Swapped(a, b int) {
	for _, db := range [2]int{a, b} {
		for _, q := range bk.dbs[db] {
			bk.markReady(q)
		}
	}
}

func (bk *Blocking) markReady(q *waitQueue) {
	if !q.ready && len(q.ws) > 0 {
		q.ready = true
		bk.ready = append(bk.ready, q)
	}
}

// HasReady reports whether a key is ready to be served.
func (bk *Blocking) HasReady() bool { return len(bk.ready) > 0 }

// Ready is a key to serve: its database and name, and its first waiter.
type Ready struct {
	q *waitQueue
}

// NextReady takes the first ready key whose key free says may be served
// now; keys it may not stay ready for later. ok is false when none may.
func (bk *Blocking) NextReady(free func(db int, key []byte) bool) (r Ready, ok bool) {
	for i, q := range bk.ready {
		if len(q.ws) == 0 {
			q.ready = false
			bk.dropEmpty(q)
			continue
		}
		if !free(q.db, q.name) {
			continue
		}
		q.ready = false
		// Drop it and the empty ones before it.
		rest := bk.ready[:0]
		for _, p := range bk.ready[:i] {
			if p.ready {
				rest = append(rest, p)
			}
		}
		rest = append(rest, bk.ready[i+1:]...)
		clear(bk.ready[len(rest):])
		bk.ready = rest
		return Ready{q}, true
	}
	keep := bk.ready[:0]
	for _, q := range bk.ready {
		if q.ready {
			keep = append(keep, q)
		}
	}
	clear(bk.ready[len(keep):])
	bk.ready = keep
	return Ready{}, false
}

// Again makes the key ready again, to be served later.
func (bk *Blocking) Again(r Ready) { bk.markReady(r.q) }

// Key is the ready key's database and name.
func (r Ready) Key() (int, []byte) { return r.q.db, r.q.name }

// Nth is the command that has waited the i-th longest for the key (0: the
// longest), nil when there are not so many.
func (r Ready) Nth(i int) *Blocked {
	if i >= len(r.q.ws) {
		return nil
	}
	return r.q.ws[i]
}

// Served removes b, which has answered, from the registry.
func (bk *Blocking) Served(b *Blocked) {
	bk.remove(b)
	bk.recycle(b)
}

// remove takes b out of its queues and of the clients; empty queues go.
func (bk *Blocking) remove(b *Blocked) {
	for _, q := range b.queues {
		for i, w := range q.ws {
			if w == b {
				q.ws = append(q.ws[:i], q.ws[i+1:]...)
				break
			}
		}
		bk.dropEmpty(q)
	}
	b.queues = b.queues[:0]
	delete(bk.clients, b.Origin.Client)
	if len(bk.clients) == 0 {
		// Nothing waits: key creation costs the shard one nil check.
		bk.shard.Waiters = nil
		for i, q := range bk.ready {
			q.ready = false
			bk.ready[i] = nil
		}
		bk.ready = bk.ready[:0]
		for db := range bk.dbs {
			bk.dbs[db] = nil
		}
	}
}

// dropEmpty forgets q once nothing waits in it and it is not ready.
func (bk *Blocking) dropEmpty(q *waitQueue) {
	if len(q.ws) == 0 && !q.ready && bk.dbs[q.db][q.key] == q {
		delete(bk.dbs[q.db], q.key)
	}
}

func (bk *Blocking) recycle(b *Blocked) {
	b.Cmd, b.Dest, b.Op.Argv, b.served, b.serveKey = nil, nil, nil, nil, nil
	if b.args.Large() || len(bk.free) >= freeWaiters {
		return
	}
	bk.free = append(bk.free, b)
}

// Cancel ends the command parked for corekv.bcancel's argv, if it is still
// here: it writes the command's reply for the cancel's mode to w and
// returns its slot and core. It returns nil when nothing was parked for
// the client, or when the client has gone (no reply); a wake-only
// registration is answered 0. A command ended by its timeout or CLIENT
// UNBLOCK counts as a call on sh, as in Redis: a failed one when unblocked
// with an error.
func (bk *Blocking) Cancel(sh *shardowner.Shard, w *resp.Writer, argv [][]byte) (dest *Slot, from int) {
	client, _ := resp.ParseInt(argv[1])
	b := bk.clients[client]
	if b == nil {
		return nil, 0
	}
	dest, from = b.Dest, b.From
	w.Proto = b.Proto
	defer func() {
		bk.remove(b)
		bk.recycle(b)
	}()
	switch {
	case b.Wake:
		// Its slot goes back, to be recycled, whatever the mode.
		w.Int(0)
		return dest, from
	case bytes.Equal(argv[2], wordGone):
		return nil, 0
	case bytes.Equal(argv[2], wordError):
		w.Err(ErrUnblocked)
	default:
		w.NullArray()
	}
	failed := bytes.Equal(argv[2], wordError)
	Account(sh, b.Cmd, b.Argv(), b.Origin, Now(), failed)
	return dest, from
}

// IsStreamRead reports whether cmd is XREAD or XREADGROUP, whose waits over
// several shards register with corekv.bwaitstream.
func IsStreamRead(cmd *Command) bool { return cmd == CmdXRead || cmd == CmdXReadGroup }

// StreamWaitArgs appends to dst the corekv.bwaitstream registration for
// client's XREAD or XREADGROUP argv on shard sh of n: its group ("" for
// XREAD) and each of its keys there with the ID it reads after. It
// appends nothing when no key lives there.
func StreamWaitArgs(dst [][]byte, client []byte, cmd *Command, argv [][]byte, sh, n int) [][]byte {
	var pos [16]int
	keys := cmd.KeyIndexes(pos[:0], argv)
	var group []byte
	if cmd == CmdXReadGroup {
		group = argv[2]
	}
	start := len(dst)
	dst = append(dst, cmdBWaitStream.NameBytes(), client, group)
	any := false
	for _, i := range keys {
		if ShardOf(argv[i], n) == sh {
			dst = append(dst, argv[i], argv[i+len(keys)])
			any = true
		}
	}
	if !any {
		return dst[:start]
	}
	return dst
}

// ResolveStreamIDs rewrites, in a (an XREAD's arguments), the "$" IDs of
// its keys on shard sh of n with the IDs woken, that shard's
// corekv.bwaitstream reply, lists for them, so that the next try reads
// after the IDs the wait began at.
func ResolveStreamIDs(a *Args, cmd *Command, sh, n int, woken []byte) {
	count, h := arrayHeader(woken)
	ids := woken[h:]
	argv := a.Argv()
	var pos [16]int
	keys := cmd.KeyIndexes(pos[:0], argv)
	out := make([][]byte, len(argv))
	for i := range argv {
		out[i] = append([]byte(nil), argv[i]...)
	}
	for _, i := range keys {
		if ShardOf(argv[i], n) != sh || count == 0 || len(ids) == 0 {
			continue
		}
		count--
		l := elemLen(ids)
		if id := out[i+len(keys)]; len(id) == 1 && id[0] == '$' {
			out[i+len(keys)] = append([]byte(nil), bulkBody(ids)...)
		}
		ids = ids[l:]
	}
	a.Set(out)
}
