package reactor

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// CLIENT TRACKING on the client's side (the shard's side is
// shardowner/tracking.go). A tracking connection's read-only commands (and
// scripts) carry Origin.Track, as its OPTIN or OPTOUT mode and CLIENT
// CACHING say, and their keys' shards remember them. A change to such a
// key makes its shard's core call Invalidate, which sends the invalidation
// to the client's core (corekv.invalidate, down the ring the key's replies
// take, so it follows every reply the shard sent the client before the
// change); there the connection gets it as a RESP3 push, or the client it
// redirects to gets it as a push or, in RESP2, as a message on
// __redis__:invalidate. A message for a connection that is writing its
// own reply (its own write invalidated a key it read) follows that reply,
// as in Redis 7.0.
//
// A flush tells every tracking client that all its keys changed (a null
// invalidation). Each shard sends each core a notice (corekv.trackflush)
// after the replies of what it ran before the flush; a core answers its
// tracking clients once every shard's notice of that flush has come, so a
// client gets one message per flush, after every reply it invalidates.

var (
	cmdInvalidate = router.LookupString("corekv.invalidate")
	cmdTrackFlush = router.LookupString("corekv.trackflush")
	cmdTrackBCast = router.LookupString("corekv.trackbcast")
)

// The invalidation messages' words.
var (
	wordInvalidate  = []byte("invalidate")
	wordRedirBroken = []byte("tracking-redir-broken")
	wordMessage     = []byte("message")
	chanInvalidate  = []byte("__redis__:invalidate")
	wordZero        = []byte("0")
	wordOne         = []byte("1")
	wordOn          = []byte("on")
	wordNoLoop      = []byte("noloop")
	wordOff         = []byte("off")
)

// Tracking is the connection's CLIENT TRACKING state (servercmd.Conn).
func (cn *Conn) Tracking() servercmd.Tracking { return cn.trk }

// SetCaching answers CLIENT CACHING for the next command (servercmd.Conn).
func (cn *Conn) SetCaching(v int8) { cn.trk.Caching = v }

// SetTracking turns tracking on with t's options, or off (servercmd.Conn).
// BCAST prefixes go to every shard, and the reply waits for them all.
func (cn *Conn) SetTracking(t servercmd.Tracking) (answered bool) {
	c := cn.core
	old := cn.trk
	if !t.On {
		if !old.On {
			return false
		}
		return c.untrack(cn, true)
	}
	if t.BCast {
		if len(t.Prefixes) == 0 {
			t.Prefixes = [][]byte{{}}
		}
		prefixes := append([][]byte(nil), old.Prefixes...)
		for _, p := range t.Prefixes {
			prefixes = append(prefixes, append([]byte(nil), p...))
		}
		slices.SortFunc(prefixes, bytes.Compare)
		t.Prefixes = prefixes
	}
	t.Caching = 0
	cn.trk = t
	cn.info.tracking.Store(true)
	cn.info.redir.Store(t.Redirect)
	cn.info.trackBroken.Store(false)
	if !old.On {
		c.srv.trackers.Store(cn.id, c.id)
		c.srv.tracking.Add(1)
		if c.tracked == nil {
			c.tracked = make(map[int64]*Conn)
		}
		c.tracked[cn.id] = cn
	}
	if !t.BCast {
		return false
	}
	mode := wordOn
	if t.NoLoop {
		mode = wordNoLoop
	}
	return c.bcastRegister(cn, mode, t.Prefixes, true)
}

// bcastRegister sends client cn's BCAST prefixes (mode on or noloop), or
// their end (off), to every shard: wait, it answers cn once all have
// them, and reports that it will.
func (c *Core) bcastRegister(cn *Conn, mode []byte, prefixes [][]byte, wait bool) bool {
	var num [20]byte
	argv := append([][]byte{cmdTrackBCast.NameBytes(), strconv.AppendInt(num[:0], cn.id, 10), mode}, prefixes...)
	if wait && !cn.capture {
		c.allShards(cn, cmdTrackBCast, argv)
		return true
	}
	for sh := range c.srv.cfg.Shards {
		s := c.NewSlot()
		s.Orphan = true
		c.Submit(sh, cmdTrackBCast, 0, 2, argv, s)
	}
	return false
}

// untrack forgets cn as a tracking connection (CLIENT TRACKING OFF, RESET,
// its close); a BCAST one's prefixes go from every shard, which cn's reply
// waits for when wait says so, and it reports whether it will answer.
func (c *Core) untrack(cn *Conn, wait bool) bool {
	if !cn.trk.On {
		return false
	}
	bcast := cn.trk.BCast
	c.srv.trackers.Delete(cn.id)
	c.srv.tracking.Add(-1)
	delete(c.tracked, cn.id)
	cn.trk = servercmd.Tracking{}
	cn.info.tracking.Store(false)
	cn.info.trackBroken.Store(false)
	if bcast {
		return c.bcastRegister(cn, wordOff, nil, wait)
	}
	return false
}

// tracksCmd reports whether the keys cmd reads are tracked for cn: it
// tracks, not in BCAST mode, cmd reads (or is a script, whose reads are),
// and OPTIN's CLIENT CACHING YES or OPTOUT's lack of CLIENT CACHING NO
// says so.
func (cn *Conn) tracksCmd(cmd *router.Command, argv [][]byte) bool {
	t := &cn.trk
	if !t.On || t.BCast || cmd.RunAs == nil && cmd.FlagsFor(argv)&router.FlagReadonly == 0 {
		return false
	}
	switch {
	case t.OptIn:
		return t.Caching == servercmd.CachingYes
	case t.OptOut:
		return t.Caching != servercmd.CachingNo
	}
	return true
}

// Tracks reports whether the keys cmd reads inside EXEC are tracked
// (router.ExecClient).
func (cn *Conn) Tracks(cmd *router.Command, argv [][]byte) bool { return cn.tracksCmd(cmd, argv) }

// trackDone ends CLIENT CACHING's effect once a command other than CLIENT
// (any of its subcommands) has run outside MULTI, as Redis does: inside
// MULTI it lasts through EXEC.
func (cn *Conn) trackDone(cmd *router.Command) {
	if cn.trk.Caching != 0 && cn.multi == nil && cmd.Home != router.HomeClient {
		cn.trk.Caching = 0
	}
}

// Invalidate tells client that keys changed (shardowner.Tracker): at once
// when it lives on this core, else through its core.
func (c *Core) Invalidate(client, writer int64, keys [][]byte) {
	v, ok := c.srv.trackers.Load(client)
	if !ok {
		return // gone, or no longer tracking
	}
	if core := v.(int); core != c.id {
		c.sendInvalidation(core, client, writer, false, keys)
		return
	}
	c.invalidate(client, writer, false, keys, false)
}

// sendInvalidation sends corekv.invalidate to core.
func (c *Core) sendInvalidation(core int, client, writer int64, redirected bool, keys [][]byte) {
	s := c.NewSlot()
	s.Orphan = true
	var a, b [20]byte
	flag := wordZero
	if redirected {
		flag = wordOne
	}
	c.trackArgv = append(c.trackArgv[:0], cmdInvalidate.NameBytes(), strconv.AppendInt(a[:0], client, 10),
		strconv.AppendInt(b[:0], writer, 10), flag)
	c.trackArgv = append(c.trackArgv, keys...)
	c.Submit(core, cmdInvalidate, 0, 2, c.trackArgv, s)
	clear(c.trackArgv)
	c.noteTrackOut(core)
}

// flushInvalidations sends peer the batch that holds invalidations for it
// before the replies that go back to it now: a read that ran after a write
// must not answer before that write's invalidation.
func (c *Core) flushInvalidations(peer int) {
	if c.trackOut == nil || !c.trackOut[peer] {
		return
	}
	c.trackOut[peer] = false
	if b := c.outBatch[peer]; b != nil && b.Len() > 0 {
		c.outBatch[peer] = nil
		c.send(peer, b)
	}
}

// noteTrackOut marks that the batch for core holds an invalidation.
func (c *Core) noteTrackOut(core int) {
	if c.trackOut == nil {
		c.trackOut = make([]bool, len(c.srv.cores))
	}
	c.trackOut[core] = true
}

// Deliver is corekv.invalidate's part on this core (shardowner.Tracker):
// client is a connection here; redirected, it is the client another
// connection redirects to.
func (c *Core) Deliver(client, writer int64, redirected bool, keys [][]byte) {
	c.invalidate(client, writer, redirected, keys, false)
}

// invalidate writes the invalidation of keys (flush: all keys) to client,
// a connection of this core, or has it sent to the client it redirects to.
func (c *Core) invalidate(client, writer int64, redirected bool, keys [][]byte, flush bool) {
	if redirected {
		if cn := c.connByID(client); cn != nil {
			c.pushInvalidation(cn, keys, flush, true, false)
		}
		return
	}
	cn := c.tracked[client]
	if cn == nil || cn.closed {
		return
	}
	t := &cn.trk
	if !flush && (t.NoLoop && writer == client || t.BCast != (writer == shardowner.BroadcastWriter)) {
		return
	}
	if t.Redirect == 0 {
		c.pushInvalidation(cn, keys, flush, false, writer == 0)
		return
	}
	core, ok := c.srv.coreOf(t.Redirect)
	switch {
	case !ok:
		cn.trk.BrokenRedirect = true
		cn.info.trackBroken.Store(true)
		if cn.proto == 3 {
			var w resp.Writer
			w.Proto = 3
			w.Push(2)
			w.Bulk(wordRedirBroken)
			w.Int(t.Redirect)
			c.pushTo(cn, w.B, false)
		}
	case core == c.id:
		if to := c.connByID(t.Redirect); to != nil {
			c.pushInvalidation(to, keys, flush, true, false)
		}
	case flush:
		c.sendFlushTo(core, t.Redirect)
	default:
		c.sendInvalidation(core, t.Redirect, writer, true, keys)
	}
}

// pushInvalidation writes an invalidation to cn: a RESP3 push, or, to a
// RESP2 client that receives another's invalidations and subscribes, a
// message on __redis__:invalidate. The keys are an array, for a flush a
// null.
func (c *Core) pushInvalidation(cn *Conn, keys [][]byte, flush, redirected bool, early bool) {
	w := resp.Writer{Proto: cn.proto}
	switch {
	case cn.proto == 3:
		w.Push(2)
		w.Bulk(wordInvalidate)
	case redirected && cn.subscribed():
		w.Array(3)
		w.Bulk(wordMessage)
		w.Bulk(chanInvalidate)
	default:
		return // a RESP2 connection without a redirection gets nothing
	}
	if flush {
		w.Null()
	} else {
		w.Array(len(keys))
		for _, k := range keys {
			w.Bulk(k)
		}
	}
	c.pushTo(cn, w.B, early)
}

// pushTo writes msg, a whole push, to cn after the replies already written
// or pending: into its output buffer when none is pending, else after the
// last slot. While cn's own command writes its reply, msg follows that
// reply (trackAfter), but early, for a change no command made (an
// eviction before the command), goes before it while it has written
// nothing yet.
func (c *Core) pushTo(cn *Conn, msg []byte, early bool) {
	if cn.closed {
		return
	}
	if cn.running {
		if early && len(cn.w.B) == cn.replyAt {
			cn.w.B = append(cn.w.B, msg...)
			cn.replyAt = len(cn.w.B)
			return
		}
		cn.trackAfter = append(cn.trackAfter, msg...)
		return
	}
	if len(cn.slots) == 0 {
		cn.out = append(cn.out, msg...)
	} else if last := cn.slots[len(cn.slots)-1]; last.Filled && !last.Discard {
		last.Reply = append(last.Reply, msg...)
		cn.slotBytes += len(msg)
	} else {
		s := c.NewSlot()
		s.Reply = append(s.Reply[:0], msg...)
		s.Filled = true
		cn.slotBytes += len(s.Reply)
		cn.slots = append(cn.slots, s)
	}
	c.markDirty(cn)
}

// pushAfterReply writes what was held back while cn wrote its reply.
func (c *Core) pushAfterReply(cn *Conn) {
	msg := cn.trackAfter
	cn.trackAfter = nil
	c.pushTo(cn, msg, false)
}

// Flushed sends every core the notice that this shard was flushed
// (shardowner.Tracker).
func (c *Core) Flushed() {
	for core := range c.srv.cores {
		if core == c.id {
			c.FlushNotice(c.id)
			continue
		}
		c.sendFlushTo(core, -1)
	}
}

// sendFlushTo sends corekv.trackflush to core: this shard's flush notice
// (client -1), or a flush's null invalidation for client, who gets
// another's invalidations there.
func (c *Core) sendFlushTo(core int, client int64) {
	s := c.NewSlot()
	s.Orphan = true
	var a, b [20]byte
	c.trackArgv = append(c.trackArgv[:0], cmdTrackFlush.NameBytes(), strconv.AppendInt(a[:0], int64(c.id), 10),
		strconv.AppendInt(b[:0], client, 10))
	c.Submit(core, cmdTrackFlush, 0, 2, c.trackArgv, s)
	clear(c.trackArgv)
	c.noteTrackOut(core)
}

// FlushNotice takes shard's notice of a flush (corekv.trackflush): once
// every shard's notice of a flush has come, this core's tracking clients
// are told.
func (c *Core) FlushNotice(shard int) {
	if c.flushSeen == nil {
		c.flushSeen = make([]uint64, len(c.srv.cores))
	}
	c.flushSeen[shard]++
	least := c.flushSeen[0]
	for _, n := range c.flushSeen[1:] {
		least = min(least, n)
	}
	for ; c.flushDone < least; c.flushDone++ {
		for id := range c.tracked {
			c.invalidate(id, 0, false, nil, true)
		}
	}
}

// FlushRedirected writes a flush's null invalidation to client, a
// connection of this core that receives another's invalidations.
func (c *Core) FlushRedirected(client int64) {
	if cn := c.connByID(client); cn != nil {
		c.pushInvalidation(cn, nil, true, true, false)
	}
}

// connByID returns the connection of this core with that ID, nil when it
// is gone or lives on another core.
func (c *Core) connByID(id int64) *Conn {
	if cn := c.tracked[id]; cn != nil {
		return cn
	}
	c.srv.mu.Lock()
	cn := c.srv.registry[id]
	c.srv.mu.Unlock()
	if cn == nil || cn.core != c || cn.closed {
		return nil
	}
	return cn
}

// ClientExists reports whether a connection has that ID (servercmd.Core).
func (c *Core) ClientExists(id int64) bool {
	_, ok := c.srv.coreOf(id)
	return ok
}

// coreOf returns the core of the connection with that ID.
func (s *Server) coreOf(id int64) (int, bool) {
	s.mu.Lock()
	cn := s.registry[id]
	s.mu.Unlock()
	if cn == nil || cn.info.killed.Load() {
		return 0, false
	}
	return cn.info.core, true
}
