package router

import "github.com/corekv/corekv/shardowner"

// Slot is a place for one reply that is not ready yet. A connection keeps its
// slots in request order and writes a reply only when every earlier slot is
// filled, so pipelined replies leave in order even when later commands finish
// first. A command split over several shards has one slot for the client and
// one child slot per part; the parent is filled when its plan has combined
// every part.
type Slot struct {
	Reply  []byte
	Filled bool
	// Orphan is set when the connection that waits for the slot has gone;
	// the slot is recycled when its reply arrives instead of being written.
	Orphan bool
	// Discard drops the reply instead of writing it (CLIENT REPLY OFF/SKIP).
	Discard bool
	// Client is the ID of the connection the reply is for (Origin).
	Client int64
	// Locked is set when the split transaction whose reply this is holds
	// all its keys: from then on the shards order the connection's later
	// commands after it.
	Locked bool
	// Local marks a slot its connection filled on its own core, reply by
	// reply, rather than one awaited from a shard; opaque to the router.
	Local bool

	lead bool // the plan's part that stands for it in the slow log
	ack  bool // an unlock whose reply its transaction waits for (Txn.acks)
	// held marks what runs for owner as running under that
	// transaction's locks (Origin.Held).
	held bool
	seq  uint8 // Origin.Seq
	// NoTouch is Origin.NoTouch (the parts of a split take their
	// command's), Track Origin.Track.
	NoTouch bool
	Track   bool

	parent *Slot
	plan   *plan // the plan this slot is the result of, while it runs
	// owner is the transaction this slot is a part (or a lock request) of.
	owner *Txn
	txn   *Txn // the transaction this slot is the result of, while it runs

	// Sink, when set, may take the reply straight to the connection that
	// awaits it (see Fill).
	Sink Sink

	// Storage for a plan and a split's transaction, made by the first
	// that needs it and kept with the slot so they are reused too. They
	// live apart so that the slot, reset once per command, is small.
	mem   *plan
	split *splitTxn
}

// Reset clears s for reuse, keeping its reply buffer and its plan's
// buffers unless a plan grew them for an unusually large command.
func (s *Slot) Reset() {
	mem, split := s.mem, s.split
	if mem != nil && (cap(mem.args) > batchKeep || cap(mem.argEnd) > argsKeep) {
		mem = nil
	}
	if split != nil && (split.args.Large() || cap(split.keyBuf) > batchKeep) {
		split = nil
	}
	*s = Slot{Reply: s.Reply[:0], mem: mem, split: split}
}

// Origin is how the command whose reply fills s runs on its shard.
func (s *Slot) Origin() Origin {
	if s == nil {
		return Origin{}
	}
	return Origin{Client: s.Client, Part: s.parent != nil, Lead: s.lead, Held: s.held, Seq: s.seq, NoTouch: s.NoTouch, Track: s.Track}
}

// SetSeq sets the Origin.Seq of the transaction whose reply s will be.
func (s *Slot) SetSeq(seq uint8) { s.seq = seq }

// TxnSeq reports whether s is the reply of a transaction still running,
// and its Origin.Seq.
func (s *Slot) TxnSeq() (uint8, bool) {
	if s.txn == nil {
		return 0, false
	}
	return s.txn.seq, true
}

// Exec is what the router needs from the core it runs on to carry out a
// multi-shard plan: send a command to a shard (running it at once when the
// shard is local) and manage slots.
type Exec interface {
	// Submit runs or sends cmd with argv on shard; its reply fills dest. A
	// remote submission copies argv, so argv may be reused once Submit returns.
	Submit(shard int, cmd *Command, db, proto int, argv [][]byte, dest *Slot)
	NewSlot() *Slot
	FreeSlot(s *Slot)
	Shards() int
	Databases() int
	// Orphaned is called when a slot whose connection has gone is filled.
	Orphaned(s *Slot)
	// Failed counts a multi-shard command that answered an error in its
	// statistics stat (Command.StatID), once for the whole (its parts do not
	// count their errors).
	Failed(stat int)
	// Slowlog is the server's slow log settings: SLOWLOG's combined reply
	// holds at most slowlog-max-len entries over all shards.
	Slowlog() *shardowner.SlowlogConfig
	// Scratch is an empty keyspace of the core, on its clock, where a
	// gathering plan runs its command; the plan empties it after.
	Scratch() *shardowner.Shard
	// Own is the core's own shard, for what a transaction run without
	// locks (Txn.RunUnlocked) ends there itself.
	Own() *shardowner.Shard
	// HasSubscribers reports whether the core of shard may have clients a
	// publish reaches: shard-channel subscribers when sharded, else channel
	// or pattern subscribers. A publish skips the cores that have none.
	HasSubscribers(shard int, sharded bool) bool
	// HomeReply appends to dst the reply of a CombineHome command, which
	// the client's core builds once every shard has run its part.
	HomeReply(dst []byte, cmd *Command, proto int, argv [][]byte) []byte
	// AcksDurable reports whether a transaction that writes answers only
	// once every shard has acknowledged its unlock: the acknowledgement
	// leaves a shard once the part's records are as durable as the
	// append-only file promises.
	AcksDurable() bool
}

// Sink is what awaits a slot's reply: a connection.
type Sink interface {
	// Take sends reply on its way when s's reply may leave now, and s is
	// then the Sink's to recycle; it reports false, changing nothing, when
	// the reply must wait in s.
	Take(s *Slot, reply []byte) bool
}

// Fill stores reply in s and, when s is one part of a plan, moves the plan on.
// The reply of a plain slot whose connection can send it at once goes there
// directly (Sink), without a copy in the slot.
func Fill(ex Exec, s *Slot, reply []byte) {
	if s.Sink != nil && s.parent == nil && s.plan == nil && s.owner == nil && s.txn == nil && !s.Orphan &&
		s.Sink.Take(s, reply) {
		return
	}
	s.Reply = append(s.Reply[:0], reply...)
	Complete(ex, s)
}

// Complete marks s filled with the reply already written into s.Reply (a
// local part writes there directly, so there is nothing to copy) and, when
// s is one part of a plan, moves the plan on.
func Complete(ex Exec, s *Slot) {
	if p := s.parent; p != nil {
		s.Filled = true
		p.plan.partDone(ex, p)
		return
	}
	done(ex, s)
}

// done marks s filled and tells whoever waits for it: the transaction it is
// a part of, or, for an orphan, the core that recycles it.
func done(ex Exec, s *Slot) {
	s.Filled = true
	if t := s.owner; t != nil {
		t.partDone(ex, s)
		return
	}
	if s.Orphan {
		ex.Orphaned(s)
	}
}

// finish marks a plan's slot filled once its combined reply is in s.Reply.
func finish(ex Exec, s *Slot) {
	if s.plan != nil && isErr(s.Reply) {
		ex.Failed(s.plan.cmd.StatID(s.plan.argv))
	}
	s.plan = nil
	done(ex, s)
}
