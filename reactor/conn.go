package reactor

import (
	"sync/atomic"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/reactor/sockets"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/valyala/bytebufferpool"
	"golang.org/x/sys/unix"
)

const (
	// inInitial is a new connection's input buffer; it grows only for frames
	// that do not fit, up to resp.MaxQueryBuffer.
	inInitial = 16 << 10
	// outSoftLimit stops parsing a connection's further requests while this
	// many bytes are owed to the client: output it has not read, replies
	// waiting in slots, and an estimate for the replies still in flight
	// (see Conn.backlogged). The connection resumes when its output
	// drains. This is what keeps a client that pipelines without reading
	// from growing the server's memory.
	outSoftLimit = 1 << 20
	// slotLimit bounds the replies one connection may have waiting, filled
	// or not. It is above the deepest pipelines clients use
	// (redis-benchmark -P 64).
	slotLimit = 128
	// outKeep is the output buffer a drained connection keeps; a larger one
	// is dropped so a single big reply does not pin memory.
	outKeep = 256 << 10
	// replyGuess is what a reply still in flight is assumed to weigh until
	// the connection's replies tell otherwise: a new connection has at most
	// outSoftLimit/replyGuess requests in flight to other shards, however
	// large their replies turn out to be.
	replyGuess = outSoftLimit / 8
	// moveWhole is the reply size from which a slot's reply becomes the
	// output buffer instead of being copied into an empty one.
	moveWhole = 64 << 10
)

// Reply modes set by CLIENT REPLY.
const (
	replyOn       = servercmd.ReplyOn
	replyOff      = servercmd.ReplyOff
	replySkipNext = servercmd.ReplySkipNext
	replySkip     = servercmd.ReplySkip
)

// Conn is one client connection, owned by the core that accepted it.
type Conn struct {
	fd   int
	id   int64
	core *Core

	in    []byte      // len(in) is what has been read; cap is the buffer
	req   resp.Parser // how far the parse of the request at in[0] has got
	out   []byte
	outAt int // bytes of out already written
	// Under appendfsync always (aof.go): outBase counts the bytes written
	// before out's first, so that marks place output across the
	// buffer's moves; marks are the output waiting for the log's syncer,
	// released how far it may go; syncHeld: in the core's syncHeld.
	outBase  int64
	marks    []outMark
	released int64
	syncHeld bool

	// inBig holds in while in has grown past inInitial; inOwn is then the
	// connection's own buffer, which in goes back to.
	inBig *bytebufferpool.ByteBuffer
	inOwn []byte

	slots     []*router.Slot // replies not yet written, in request order
	sent      int            // slots at the front already written by Take
	slotBytes int            // bytes of the filled slots, as of the last count
	inFlight  int            // slots not yet filled, as of the last count
	replySize int            // expected size of a reply in flight, from recent replies
	w         resp.Writer
	noTouch   bool // CLIENT NO-TOUCH ON: its commands leave access data (info.flagsNoT for other cores)
	// trk is its CLIENT TRACKING state (tracking.go); trackReq: the keys
	// the request being routed reads are tracked; trackAfter: pushes held
	// back while its own reply is written.
	trk        servercmd.Tracking
	trackReq   bool
	trackAfter []byte
	replyAt    int  // where in w.B the reply begun by begin starts
	directing  bool // w.B is c.out (no slot)
	joined     bool // w.B is the reply of the last slot, which this reply joins
	running    bool // between begin and end: w.B holds the reply being written
	slot       *router.Slot
	// barrier is a reply of this connection the later requests wait for:
	// a split command until it holds its keys (Slot.Locked), after which
	// the shards make them wait for it; EXEC and DEBUG SLEEP until they
	// have answered.
	barrier *router.Slot
	// txnWait: the next request starts a transaction and waits for one
	// of the router.MaxTxns the connection has in flight to answer.
	txnWait bool
	txnSeq  uint8 // the Origin.Seq to try first for the next transaction

	// multi is the MULTI block being queued, nil outside MULTI; watched
	// the keys WATCHed, nil when none. capture sends the replies of home
	// commands run inside EXEC to captured instead of the client.
	multi    *multiState
	multiMem *multiState     // kept for the next MULTI
	execMem  *router.ExecTxn // kept for the next EXEC
	watched  *watchedKeys
	capture  bool
	captured []byte

	subs *connSubs // Pub/Sub subscriptions (pubsub.go), nil before the first
	// monitor: the connection is in the core's monitor list (monitor.go).
	monitor bool

	// block is the blocking command in flight (blocking.go), nil when
	// none; blockMem is kept for the next.
	block    *blockState
	blockMem *blockState

	db        int
	proto     int
	authed    bool
	replyMode int
	// pushing: the reply being written is Pub/Sub's (a subscription's
	// confirmations), which CLIENT REPLY OFF and SKIP leave alone, as they
	// leave published messages.
	pushing bool

	readable bool // the socket may hold unread bytes
	// drained: a read while a script was busy (busy.go) found the socket
	// empty; the next event clears it.
	drained  bool
	parsing  bool // its requests are being run (Core.parse)
	stalled  bool // parsing paused by back-pressure; bytes wait in in
	paused   bool // stalled by CLIENT PAUSE (pause.go)
	writable bool // the last write did not hit EAGAIN
	dirty    bool // in the core's flush list
	waiting  bool // in the core's list of connections waiting for peers
	hup      bool // epoll reported a hang-up: read until EOF
	eof      bool // the peer closed its side
	closing  bool // close once the pending replies are written
	closed   bool

	// Fields other cores read for CLIENT LIST / CLIENT KILL.
	info clientInfo
}

// clientInfo is the part of a connection that CLIENT LIST, CLIENT INFO and
// CLIENT KILL read from any core.
type clientInfo struct {
	id       int64
	addr     string
	laddr    string
	created  int64 // Unix ms
	lastCmd  atomic.Pointer[string]
	lastMs   atomic.Int64
	db       atomic.Int32
	proto    atomic.Int32
	name     atomic.Pointer[string]
	libName  atomic.Pointer[string]
	libVer   atomic.Pointer[string]
	killed   atomic.Bool
	flagsNoE atomic.Bool
	flagsNoT atomic.Bool
	subs     [subKinds]atomic.Int32 // channels, patterns, shard channels
	blocked  atomic.Bool            // a blocking command is in flight (flag b)
	monitor  atomic.Bool            // in monitor mode (flag O)
	// tracking, trackBroken: flags t and R; redir: the tracking redirection.
	tracking    atomic.Bool
	trackBroken atomic.Bool
	redir       atomic.Int64
	unblock     atomic.Int32 // CLIENT UNBLOCK's request, for the connection's core
	core        int
}

// pending is the number of reply slots waiting, filled or not.
func (c *Conn) pending() int { return len(c.slots) }

// begin returns the writer for the reply of the command being run. With no
// slot pending, or only sent ones, the reply goes straight into the output
// buffer; otherwise it goes into a slot, filled at end, so it still leaves
// in order: the slot before it when that one holds replies written here too
// (a run of local commands between two hops shares one slot), else a new
// one.
func (c *Conn) begin() *resp.Writer {
	c.w.Proto = c.proto
	if c.capture {
		c.w.B = c.captured
		return &c.w
	}
	c.running = true
	n := len(c.slots)
	if n == c.sent {
		// Every pending slot is written (Take): none holds a reply back.
		c.directing = true
		c.w.B = c.out
		c.replyAt = len(c.w.B)
		return &c.w
	}
	c.directing = false
	if last := c.slots[n-1]; last.Local && !last.Discard && !c.discardReply() {
		c.joined = true
		c.slot = last
		c.w.B = last.Reply
		c.replyAt = len(c.w.B)
		return &c.w
	}
	c.slot = c.core.NewSlot()
	c.w.B = c.slot.Reply[:0]
	c.replyAt = 0
	return &c.w
}

// end commits the reply begun by begin, and writes the pushes held back
// while it was written.
func (c *Conn) end() {
	c.commit()
	if c.trackAfter != nil {
		c.core.pushAfterReply(c)
	}
}

// commit is end's commit of the reply.
func (c *Conn) commit() {
	if c.capture {
		c.captured = c.w.B
		c.w.B = nil
		return
	}
	c.running = false
	if c.directing {
		c.core.countError(c.w.B[len(c.out):])
		if c.discardReply() {
			c.w.B = c.w.B[:len(c.out)]
		}
		c.out = c.w.B
		c.w.B = nil
		c.core.markDirty(c)
		return
	}
	s := c.slot
	c.slot = nil
	if c.joined {
		c.joined = false
		c.core.countError(c.w.B[len(s.Reply):])
		if c.discardReply() {
			// CLIENT REPLY OFF or SKIP drops its own reply.
			c.w.B = c.w.B[:len(s.Reply)]
		}
		c.slotBytes += len(c.w.B) - len(s.Reply)
		s.Reply = c.w.B
		c.w.B = nil
		c.core.markDirty(c)
		return
	}
	c.core.countError(c.w.B)
	s.Reply = c.w.B
	s.Filled = true
	s.Local = true
	s.Discard = c.discardReply()
	c.w.B = nil
	if !s.Discard {
		c.slotBytes += len(s.Reply)
	}
	c.slots = append(c.slots, s)
	c.core.markDirty(c)
}

// discardReply reports whether CLIENT REPLY OFF/SKIP drops the reply of the
// request running: any but Pub/Sub's.
func (c *Conn) discardReply() bool {
	return !c.pushing && (c.replyMode == replyOff || c.replyMode == replySkip)
}

// requestDone moves CLIENT REPLY SKIP on by one request. As in Redis, the
// request after SKIP is the one skipped whatever it is: a refused command
// or an empty line counts too.
func (c *Conn) requestDone() {
	switch c.replyMode {
	case replySkip:
		c.replyMode = replyOn
	case replySkipNext:
		c.replyMode = replySkip
	}
}

// reserve appends an empty slot for a reply that another core (or a plan)
// will produce.
func (c *Conn) reserve() *router.Slot {
	s := c.core.NewSlot()
	s.Discard = c.discardReply()
	s.Client = c.id
	s.NoTouch, s.Track = c.noTouch, c.trackReq
	s.Sink = c
	c.slots = append(c.slots, s)
	c.inFlight++
	if !c.waiting {
		c.waiting = true
		c.core.waiting = append(c.core.waiting, c)
	}
	return s
}

// okReply answers +OK for the current command.
func (c *Conn) okReply() {
	c.begin().OK()
	c.end()
}

// errorReply answers e for the current command.
func (c *Conn) errorReply(e resp.Error) {
	c.begin().Err(e)
	c.end()
}

// collect moves the filled prefix of the slots into the output buffer (see
// moveFilled), then counts what the remaining slots hold for backlogged.
func (c *Conn) collect() {
	n := c.moveFilled(c.slots)
	c.dropSlots(n)
	c.sent = max(c.sent-n, 0)
	c.slotBytes, c.inFlight = 0, 0
	for _, s := range c.slots {
		switch {
		case !s.Filled:
			c.inFlight++
		case !s.Discard:
			c.slotBytes += len(s.Reply)
		}
	}
}

// moveFilled moves the replies of the filled slots at the front of slots
// into the output buffer and recycles the slots, as long as less than
// outSoftLimit waits there: what the socket cannot take stays in the
// slots, so one turn copies a bounded amount. It returns how many it
// moved.
func (c *Conn) moveFilled(slots []*router.Slot) int {
	n := 0
	for i, s := range slots {
		if !s.Filled || c.outPending() >= outSoftLimit {
			break
		}
		if !s.Local && i >= c.sent {
			// A local reply was counted as it was written (end), one
			// that Take sent as it arrived.
			c.core.countError(s.Reply)
		}
		if !s.Discard {
			if !s.Local {
				// Replies written here never were in flight.
				c.learn(len(s.Reply))
			}
			if c.outPending() == 0 && len(s.Reply) >= moveWhole {
				// Take the reply's buffer rather than copy it; the slot
				// gets the empty one.
				c.out, s.Reply = s.Reply, c.out[:0]
				c.outBase += int64(c.outAt)
				c.outAt = 0
			} else {
				c.out = append(c.out, s.Reply...)
			}
		}
		if s == c.barrier {
			c.barrier = nil
		}
		if c.block != nil && s == c.block.slot {
			c.core.blockEnded(c)
		}
		c.core.FreeSlot(s)
		n++
	}
	return n
}

// dropSlots removes the first n slots, which are recycled.
func (c *Conn) dropSlots(n int) {
	if n > 0 {
		m := copy(c.slots, c.slots[n:])
		clear(c.slots[m:])
		c.slots = c.slots[:m]
	}
}

// Take writes the reply of s, a slot of c that another shard answered,
// straight into the output buffer when every slot before it has been
// written, then the filled slots behind it (router.Sink). The reply is
// copied once, from the batch that brought it, instead of into s and then
// into the output. The slots written here stay at the front, marked sent
// (filled, nothing to write), until collect recycles them all at once. A
// slot the connection waits on (barrier, blocking command) and a large
// reply, which collect may move rather than copy, go the slow way.
func (c *Conn) Take(s *router.Slot, reply []byte) bool {
	i := c.sent
	if c.closed || c.running || i >= len(c.slots) || c.slots[i] != s || c.waitsOn(s) ||
		c.outPending() >= outSoftLimit {
		return false
	}
	c.core.countError(reply)
	if !s.Discard {
		c.learn(len(reply))
		c.out = append(c.out, reply...)
	}
	s.Filled, s.Discard = true, true
	// The counts stay as collect left them, less this reply, until the
	// next collect: they count the slots sent here as still owed, which
	// only errs towards pausing the client early.
	c.inFlight = max(c.inFlight-1, 0)
	for i++; i < len(c.slots); i++ {
		t := c.slots[i]
		if !t.Filled || c.waitsOn(t) || len(t.Reply) >= moveWhole || c.outPending() >= outSoftLimit {
			break
		}
		if !t.Local {
			c.core.countError(t.Reply)
		}
		if !t.Discard {
			if !t.Local {
				c.learn(len(t.Reply))
			}
			c.out = append(c.out, t.Reply...)
		}
		t.Discard = true
	}
	c.sent = i
	c.core.markDirty(c)
	return true
}

// waitsOn reports whether s is a reply the connection's reading waits
// for: its barrier or its blocking command's.
func (c *Conn) waitsOn(s *router.Slot) bool {
	return s == c.barrier || (c.block != nil && s == c.block.slot)
}

// learn updates the expected reply size with one reply of size n: a large
// reply counts at once, small ones wear the expectation down gradually, so
// a run of small replies opens the pipeline again while a client cannot
// make one cheap reply stand for a burst of large ones.
func (c *Conn) learn(n int) {
	if n >= c.replySize {
		c.replySize = n
	} else {
		c.replySize -= (c.replySize - n + 7) / 8
	}
}

// helpReply answers a HELP subcommand: its lines as an array of simple
// strings, as Redis sends them.
func (c *Conn) helpReply(lines []string) {
	w := c.begin()
	w.SimpleArray(lines)
	c.end()
}

// outPending is the output not yet written to the socket.
func (c *Conn) outPending() int { return len(c.out) - c.outAt }

// owed is what the client has yet to read that the server already holds:
// its unwritten output and the replies waiting in its slots, as of the last
// collect. The output limit applies to it, so replies that arrived for a
// client that does not read count as its output would.
func (c *Conn) owed() int { return c.outPending() + c.slotBytes }

// holdLimit is the most output a connection holds back while replies are
// in flight from other shards (see holdOutput).
const holdLimit = 64 << 10

// holdOutput reports whether the connection's output should wait for the
// replies in flight from other shards, so that a pipeline's replies leave
// in one write rather than one per loop turn. Only replies that come back
// within a turn or two are waited for: not while a blocking command, a
// barrier or a transaction wait is in flight, and only while the output is
// small.
func (c *Conn) holdOutput() bool {
	return c.inFlight > 0 && c.outPending() > 0 && c.outPending() < holdLimit && c.writable &&
		c.block == nil && c.barrier == nil && !c.txnWait
}

// flush writes pending output up to limit with one write. It reports
// false when the connection failed and must be closed.
func (c *Conn) flush(limit int) bool {
	if limit <= c.outAt || !c.writable {
		return true
	}
	n, err := sockets.Write(c.fd, c.out[c.outAt:limit])
	if n > 0 {
		c.outAt += n
		c.core.stats.netOut += uint64(n)
	}
	if err != nil && err != unix.EAGAIN && err != unix.EINTR {
		return false
	}
	if c.outAt == len(c.out) {
		c.outBase += int64(c.outAt)
		c.outAt = 0
		if cap(c.out) > outKeep {
			c.out = nil
		} else {
			c.out = c.out[:0]
		}
	} else if c.outAt < limit {
		// Short write: wait for EPOLLOUT (edge-triggered, registered once).
		c.writable = false
		if c.outAt > len(c.out)/2 && c.outPending() <= outKeep {
			c.outBase += int64(c.outAt)
			// Move the small unwritten tail to the front, so the buffer
			// does not grow at its end; out of a large buffer, into a
			// new one, so that the large one is not kept.
			if cap(c.out) > outKeep {
				c.out = append(make([]byte, 0, outKeep), c.out[c.outAt:]...)
			} else {
				c.out = c.out[:copy(c.out, c.out[c.outAt:])]
			}
			c.outAt = 0
		}
	}
	return true
}

// backlogged reports whether the connection should stop parsing requests
// until its output drains or the plan it waits for completes. What counts
// is the bytes owed to the client, replies in flight included: those are
// not known until they arrive, so each counts as the connection's recent
// replies weigh, and a connection whose replies are large has few in
// flight.
func (c *Conn) backlogged() bool {
	return c.owed()+c.inFlight*c.replySize > outSoftLimit ||
		len(c.slots) > slotLimit || (c.barrier != nil && !c.barrier.Filled && !c.barrier.Locked) ||
		(c.txnWait && c.txnsInFlight() >= router.MaxTxns)
}

// txnsInFlight counts the connection's transactions still running.
func (c *Conn) txnsInFlight() int {
	n := 0
	for _, s := range c.slots {
		if _, ok := s.TxnSeq(); ok {
			n++
		}
	}
	return n
}

// nextTxnSeq returns an Origin.Seq that none of the connection's
// transactions in flight has, for the next one.
func (c *Conn) nextTxnSeq() uint8 {
	var used [2 * router.MaxTxns]bool
	for _, s := range c.slots {
		if seq, ok := s.TxnSeq(); ok {
			used[seq] = true
		}
	}
	for used[c.txnSeq] {
		c.txnSeq = (c.txnSeq + 1) % (2 * router.MaxTxns)
	}
	seq := c.txnSeq
	c.txnSeq = (c.txnSeq + 1) % (2 * router.MaxTxns)
	return seq
}

// inPool holds the input buffers that grew for a large request, once what is
// left of one fits the connection's own buffer again. A client that streams
// requests over inInitial grows and gives up a buffer every few requests;
// made afresh each time, those buffers would be garbage that grows the heap
// between collections.
var inPool bytebufferpool.Pool

// inPoolMax is the biggest input buffer inPool takes back; a bigger one is
// left to the collector, so that the pool never holds much.
const inPoolMax = 1 << 20

// growIn doubles cn's input buffer, keeping what it holds.
func (cn *Conn) growIn() {
	b := inPool.Get()
	if n := 2 * cap(cn.in); cap(b.B) < n {
		b.B = make([]byte, 0, n)
	}
	b.B = append(b.B[:0], cn.in...)
	if cn.inBig != nil {
		putIn(cn.inBig)
	} else {
		cn.inOwn = cn.in[:0]
	}
	cn.inBig, cn.in = b, b.B
}

// shrinkIn moves what is left in cn's grown input buffer back to its own.
func (cn *Conn) shrinkIn() {
	own := cn.inOwn
	if own == nil {
		own = make([]byte, 0, inInitial)
	}
	cn.in = append(own[:0], cn.in...)
	if cn.inBig != nil {
		putIn(cn.inBig)
	}
	cn.inBig, cn.inOwn = nil, nil
}

func putIn(b *bytebufferpool.ByteBuffer) {
	if cap(b.B) <= inPoolMax {
		// The pool learns its sizes from the lengths it is given.
		b.B = b.B[:cap(b.B)]
		inPool.Put(b)
	}
}
