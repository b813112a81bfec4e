package router

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// Request is one command inside a Batch.
type Request struct {
	Cmd   *Command
	DB    uint8
	Proto uint8
	NArgs uint32
	Dest  *Slot // where the reply goes on the sending core; opaque to the owner
}

// Batch carries many commands from one core to the shard that owns their
// keys, and then their replies back. Its argument bytes are copied into one
// buffer and its replies are appended to another, so a batch of 64 commands
// is one ring message each way. Batches are recycled by the core that sent
// them, so the steady state allocates nothing.
type Batch struct {
	From     int  // core that sent the batch and will recycle it
	Done     bool // executed: the batch is travelling back with replies
	reqs     []Request
	args     []byte
	argEnd   []uint32
	replies  []byte
	replyEnd []uint32
	argv     [][]byte // scratch for rebuilding argv on the owner
	// w and ctx live in the batch so that passing them to handlers (through
	// a function value, which escapes) allocates nothing.
	w   resp.Writer
	ctx shardowner.Ctx
}

// Len is the number of requests in the batch.
func (b *Batch) Len() int { return len(b.reqs) }

// batchKeep is the largest buffer a recycled batch keeps; a bigger one was
// grown by an unusual request and is left to the collector.
const batchKeep = 1 << 20

// Reset empties the batch for reuse, keeping its buffers unless they grew
// large.
func (b *Batch) Reset() {
	b.Done = false
	if cap(b.args) > batchKeep {
		b.args = nil
	}
	if cap(b.replies) > batchKeep {
		b.replies = nil
	}
	b.reqs = b.reqs[:0]
	b.args = b.args[:0]
	b.argEnd = b.argEnd[:0]
	b.replies = b.replies[:0]
	b.replyEnd = b.replyEnd[:0]
}

// Add copies a command and its arguments into the batch.
func (b *Batch) Add(cmd *Command, db, proto int, argv [][]byte, dest *Slot) {
	for _, a := range argv {
		b.args = append(b.args, a...)
		b.argEnd = append(b.argEnd, uint32(len(b.args)))
	}
	b.reqs = append(b.reqs, Request{Cmd: cmd, DB: uint8(db), Proto: uint8(proto), NArgs: uint32(len(argv)), Dest: dest})
}

// Execute runs every request on the owner's shard and records the replies.
// It is called on the owning core only.
func (b *Batch) Execute(shard *shardowner.Shard) {
	b.w = resp.Writer{B: b.replies}
	b.ctx = shardowner.Ctx{Shard: shard, W: &b.w}
	w, ctx := &b.w, &b.ctx
	arg, start := 0, uint32(0)
	for i := range b.reqs {
		r := &b.reqs[i]
		b.argv = b.argv[:0]
		for k := uint32(0); k < r.NArgs; k++ {
			end := b.argEnd[arg]
			b.argv = append(b.argv, b.args[start:end])
			start = end
			arg++
		}
		ctx.DB = int(r.DB)
		w.Proto = int(r.Proto)
		r.Cmd.Run(ctx, b.argv)
		b.replyEnd = append(b.replyEnd, uint32(len(w.B)))
	}
	b.replies = w.B
	b.w = resp.Writer{}
	b.ctx = shardowner.Ctx{}
	b.Done = true
}

// Deliver hands each reply to its slot on the sending core.
func (b *Batch) Deliver(ex Exec) {
	start := uint32(0)
	for i := range b.reqs {
		end := b.replyEnd[i]
		Fill(ex, b.reqs[i].Dest, b.replies[start:end])
		b.reqs[i].Dest = nil
		start = end
	}
}

// Bytes is the size of the batch's arguments so far.
func (b *Batch) Bytes() int { return len(b.args) }
