package router

import (
	"bytes"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/valyala/bytebufferpool"
)

// Request is one command inside a Batch.
type Request struct {
	Cmd   *Command
	DB    uint8
	Proto uint8
	// Origin and Client are the command's Origin, kept as a bit set
	// beside DB and Proto so that a Request stays 32 bytes.
	Origin originBits
	NArgs  uint32
	Client int64
	Dest   *Slot // where the reply goes on the sending core; opaque to the owner
}

// Batch carries many commands from one core to the shard that owns their
// keys, and then their replies back. Its argument bytes are copied into one
// buffer and its replies are appended to another, so a batch of 64 commands
// is one ring message each way. Batches are recycled by the core that sent
// them, so the steady state allocates nothing.
//
// The owner may run a batch in several turns (see Execute): the requests
// run in order from a cursor, and the replies of a turn that stops early
// travel back in a batch of their own (TakeReplies).
type Batch struct {
	From     int  // core that sent the batch and will recycle it
	Done     bool // every request has run: the batch is travelling back with replies
	reqs     []Request
	args     []byte
	argEnd   []int
	replies  *bytebufferpool.ByteBuffer // nil until the owner runs the batch
	replyEnd []int                      // end of each reply in replies, for reqs[first:next]
	first    int                        // first request whose reply is in replies
	next     int                        // first request not yet run
	nextArg  int                        // index in argEnd of next's first argument
	argv     [][]byte                   // scratch for rebuilding argv on the owner
	touched  int                        // requests before this one had their keys touched (touchAhead)
	sink     uint64                     // where touchAhead's loads go, so they are not optimised away
	stats    int                        // requests that are statistics parts (CombineHome)
	// w and ctx live in the batch so that passing them to handlers (through
	// a function value, which escapes) allocates nothing.
	w   resp.Writer
	ctx shardowner.Ctx
}

// Len is the number of requests in the batch.
func (b *Batch) Len() int { return len(b.reqs) }

// Hops is the number of requests in the batch that count as hops between
// shards: all but INFO's and CONFIG RESETSTAT's parts, so that reading the
// hop counters does not move them.
func (b *Batch) Hops() int { return len(b.reqs) - b.stats }

// batchKeep is the largest argument buffer a recycled batch keeps; a bigger
// one was grown by an unusual request and is left to the collector.
const batchKeep = 1 << 20

// argsKeep is the most arguments a recycled batch or plan keeps room for: a
// request with a million arguments must not pin its offsets and slices.
const argsKeep = 1024

// replyPool holds the reply buffers of batches. Their size follows the
// replies (a few bytes per GET, up to a turn's reply budget and one large
// reply), and the pool keeps the sizes batches commonly need rather than the
// largest one ever seen.
var replyPool bytebufferpool.Pool

// replyKeep is the largest reply buffer returned to the pool; the pool
// learns which sizes to keep only after many buffers, so one grown by a
// huge reply is left to the collector at once.
const replyKeep = 8 << 20

// Reset empties the batch for reuse, keeping its argument buffer unless it
// grew large and returning its reply buffer to the pool.
func (b *Batch) Reset() {
	b.Done = false
	if cap(b.args) > batchKeep {
		b.args = nil
	}
	if cap(b.argEnd) > argsKeep {
		b.argEnd, b.argv = nil, nil
	}
	if b.replies != nil {
		if cap(b.replies.B) <= replyKeep {
			replyPool.Put(b.replies)
		}
		b.replies = nil
	}
	b.reqs = b.reqs[:0]
	b.args = b.args[:0]
	b.argEnd = b.argEnd[:0]
	b.replyEnd = b.replyEnd[:0]
	b.first, b.next, b.nextArg, b.touched, b.stats = 0, 0, 0, 0, 0
}

// Add copies a command and its arguments into the batch.
func (b *Batch) Add(cmd *Command, db, proto int, argv [][]byte, dest *Slot) {
	// The slices are grown in locals and stored once: a store into the
	// batch, on the heap, costs a write barrier check each time.
	args, argEnd := b.args, b.argEnd
	for _, a := range argv {
		args = append(args, a...)
		argEnd = append(argEnd, len(args))
	}
	b.args, b.argEnd = args, argEnd
	var client int64
	var o originBits
	if dest != nil {
		client, o = dest.Client, dest.originBits()
	}
	b.reqs = append(b.reqs, Request{Cmd: cmd, DB: uint8(db), Proto: uint8(proto), Origin: o,
		NArgs: uint32(len(argv)), Client: client, Dest: dest})
	if cmd.Combine == CombineHome && cmd.Route == RouteAll {
		b.stats++
	}
}

// Execute runs the requests not yet run on the owner's shard, in order, and
// records their replies. A request that locks hold back (Locks.Admit) waits
// in the shard's queue instead, and its reply travels back later on its
// own (AddReply). Execute stops early, after at least one request, once the
// replies of this call reach limit bytes, so that a batch of large replies
// is copied a bounded amount at a time; it sets Done when every request has
// run. It returns the reply bytes it produced. It is called on the owning
// core only.
func (b *Batch) Execute(shard *shardowner.Shard, locks *Locks, limit int) int {
	if b.replies == nil {
		b.replies = replyPool.Get()
	}
	b.w = resp.Writer{B: b.replies.B}
	b.ctx = shardowner.Ctx{Shard: shard, W: &b.w}
	w, ctx := &b.w, &b.ctx
	before := len(w.B)
	var g Group
	now := Now()
	for ran := 0; b.next < len(b.reqs) && (ran == 0 || len(w.B)-before < limit); ran++ {
		if b.next >= b.touched {
			b.touchAhead(shard)
		}
		r := &b.reqs[b.next]
		b.argv = b.nextArgv(r.NArgs)
		// Field by field, as the reactor's direct path fills its op.
		var op Op
		op.Cmd, op.DB, op.Proto, op.Argv, op.Origin = r.Cmd, int(r.DB), int(r.Proto), b.argv, r.Origin.origin(r.Client)
		op.From, op.Dest = b.From, r.Dest
		var answered bool
		if now, answered = Run(ctx, locks, &op, &g, now, nil); !answered {
			// Its reply will come on its own: Deliver skips this one.
			r.Dest = nil
		} else if op.Dest != r.Dest {
			// A cancel answers the cancelled command's slot, on the
			// core that sent the cancel.
			r.Dest = op.Dest
		}
		b.replyEnd = append(b.replyEnd, len(w.B))
		b.next++
	}
	g.Close(shard, now)
	b.replies.B = w.B
	n := len(w.B) - before
	b.w = resp.Writer{}
	b.ctx = shardowner.Ctx{}
	b.Done = b.next == len(b.reqs)
	return n
}

// nextArgv returns the argument vector of the next n arguments, in b.argv's
// storage, and moves past them.
func (b *Batch) nextArgv(n uint32) [][]byte {
	// In locals: each store into the batch, on the heap, costs a write
	// barrier check.
	argv, args, argEnd, next := b.argv[:0], b.args, b.argEnd, b.nextArg
	start := 0
	if next > 0 {
		start = argEnd[next-1]
	}
	for range n {
		end := argEnd[next]
		argv = append(argv, args[start:end])
		start = end
		next++
	}
	b.nextArg = next
	return argv
}

// batchAhead is how many requests of a batch touchAhead reads ahead.
const batchAhead = 64

// touchAhead reads, for the next batchAhead requests, first the index
// groups and then the entries their first keys' lookups will need, as the
// reactor does for a connection's pipeline: the loads of one pass do not
// depend on each other, so their cache misses overlap instead of stalling
// each command in turn.
func (b *Batch) touchAhead(shard *shardowner.Shard) {
	var hashes [batchAhead]uint64
	from := b.next
	end := min(from+batchAhead, len(b.reqs))
	b.touched = end
	if b.keyHashes(shard, from, end, hashes[:]) < 2 {
		return
	}
	for i := from; i < end; i++ {
		if h := hashes[i-from]; h != 0 {
			b.sink += shard.DBs[b.reqs[i].DB].TouchBucket(h)
		}
	}
	for i := from; i < end; i++ {
		if h := hashes[i-from]; h != 0 {
			b.sink += shard.DBs[b.reqs[i].DB].TouchEntry(h)
		}
	}
}

// keyHashes sets hashes[i-from], for the requests from b.next = from to end,
// to the table hash of the request's first key with its low bit set, or 0
// for a request that looks up no key or the same key as the request before
// it (a pipeline of pushes to one list), and returns how many it hashed.
func (b *Batch) keyHashes(shard *shardowner.Shard, from, end int, hashes []uint64) int {
	arg, n := b.nextArg, 0
	var prev []byte
	prevDB := -1
	for i := from; i < end; i++ {
		r := &b.reqs[i]
		nargs := int(r.NArgs)
		hashes[i-from] = 0
		if r.Cmd.Route == RouteKey && !r.Cmd.Internal && r.Cmd.HasKeys(nargs) && int(r.DB) < len(shard.DBs) {
			k := arg + r.Cmd.FirstKey
			start := 0
			if k > 0 {
				start = b.argEnd[k-1]
			}
			key := b.args[start:b.argEnd[k]]
			if int(r.DB) != prevDB || !bytes.Equal(key, prev) {
				hashes[i-from] = shard.DBs[r.DB].Hash(key) | 1
				prev, prevDB = key, int(r.DB)
				n++
			}
		}
		arg += nargs
	}
	return n
}

// TakeReplies moves the replies b holds, and the destinations of the
// requests they answer, into r, an empty batch, so they can travel back to
// the sender while b waits to run the rest.
func (b *Batch) TakeReplies(r *Batch) {
	for i := b.first; i < b.next; i++ {
		r.reqs = append(r.reqs, b.reqs[i])
		b.reqs[i].Dest = nil
	}
	r.replies, b.replies = b.replies, r.replies
	r.replyEnd, b.replyEnd = b.replyEnd, r.replyEnd[:0]
	r.next = len(r.reqs)
	r.Done = true
	b.first = b.next
}

// Deliver hands each reply to its slot on the sending core.
func (b *Batch) Deliver(ex Exec) {
	start := 0
	for i, end := range b.replyEnd {
		r := &b.reqs[b.first+i]
		if r.Dest != nil {
			Fill(ex, r.Dest, b.replies.B[start:end])
			r.Dest = nil
		}
		start = end
	}
}

// AddReply adds to a batch travelling back (Done) the reply of a request
// that waited in the owner's lock queue.
func (b *Batch) AddReply(dest *Slot, reply []byte) {
	if b.replies == nil {
		b.replies = replyPool.Get()
	}
	b.Done = true
	b.reqs = append(b.reqs, Request{Dest: dest})
	b.replies.B = append(b.replies.B, reply...)
	b.replyEnd = append(b.replyEnd, len(b.replies.B))
	b.next = len(b.reqs)
}

// originBits packs an Origin's flags into a Request.
type originBits uint16

const (
	originPart originBits = 1 << iota
	originLead
	originHeld
	originNoTouch
	originSeqShift = 4 // Origin.Seq in the bits above the flags

	originTrack originBits = 1 << 15 // above Origin.Seq's bits
)

// originBits packs s.Origin() without building it.
func (s *Slot) originBits() originBits {
	b := originBits(s.seq) << originSeqShift
	if s.parent != nil {
		b |= originPart
	}
	if s.lead {
		b |= originLead
	}
	if s.held {
		b |= originHeld
	}
	if s.NoTouch {
		b |= originNoTouch
	}
	if s.Track {
		b |= originTrack
	}
	return b
}

func (b originBits) origin(client int64) Origin {
	return Origin{Client: client, Part: b&originPart != 0, Lead: b&originLead != 0, Held: b&originHeld != 0,
		NoTouch: b&originNoTouch != 0, Track: b&originTrack != 0, Seq: uint8(b >> originSeqShift)}
}

// Bytes is the size of the batch's arguments so far.
func (b *Batch) Bytes() int { return len(b.args) }
