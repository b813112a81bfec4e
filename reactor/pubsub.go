package reactor

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// Pub/Sub across cores. A connection's subscriptions live on its own core,
// in that core's hub, which only the core's thread touches. PUBLISH runs as
// a plan (router.CombinePublish) with one part per core that has any
// subscriber of the kind it needs: each part travels in the ordinary
// batches, writes the message to that core's subscribers, and answers how
// many received it; the plan adds the counts. The rings are FIFO, so the
// messages of one publishing connection reach every subscriber in the
// order they were published. The server-wide directory (pubsubDir) exists
// only for PUBSUB and INFO: SUBSCRIBE and UNSUBSCRIBE update it under its
// mutex, and no publish or data command ever takes it.

// Subscription kinds.
const (
	subChannel = iota
	subPattern
	subShard
	subKinds
)

// subWords are the reply and message names of each kind.
var subWords = [subKinds]struct{ sub, unsub, message string }{
	{"subscribe", "unsubscribe", "message"},
	{"psubscribe", "punsubscribe", "pmessage"},
	{"ssubscribe", "sunsubscribe", "smessage"},
}

// connSubs is what one connection subscribes to.
type connSubs struct {
	names [subKinds]map[string]struct{}
	// softSince (Unix ms) is when the connection's output went over the
	// pubsub class's soft limit; 0 while it is under.
	softSince int64
}

// count is what the (un)subscribe replies of kind report: channels and
// patterns together, shard channels on their own.
func (s *connSubs) count(kind int) int {
	if kind == subShard {
		return len(s.names[subShard])
	}
	return len(s.names[subChannel]) + len(s.names[subPattern])
}

// subscribed reports whether cn is in subscribed mode.
func (cn *Conn) subscribed() bool {
	return cn.subs != nil && cn.subs.count(subChannel)+cn.subs.count(subShard) > 0
}

// patternSubs is one pattern's subscribers on a core.
type patternSubs struct {
	pat   []byte
	conns []*Conn
}

// hub is one core's subscriptions: who receives what is published.
type hub struct {
	core     *Core
	channels map[string][]*Conn
	shard    map[string][]*Conn
	patterns map[string]*patternSubs
	patList  []*patternSubs // patterns, for matching without a map walk
	w        resp.Writer
	argv     [][]byte // scratch for Broadcast
	// self is the connection whose PUBLISH runs its local part now, and
	// selfSlot that PUBLISH's reply: a message to self goes before the
	// reply, as in Redis, where a command's messages are written as it runs.
	self     *Conn
	selfSlot *router.Slot
	// any and anyShard count this core's channel and pattern subscriptions,
	// and its shard channel subscriptions, for publishers on other cores.
	any, anyShard atomic.Int64
}

func (h *hub) init(c *Core) {
	h.core = c
	h.channels = make(map[string][]*Conn)
	h.shard = make(map[string][]*Conn)
	h.patterns = make(map[string]*patternSubs)
}

// HasSubscribers reports whether a publish must visit shard's core
// (router.Exec).
func (c *Core) HasSubscribers(shard int, sharded bool) bool {
	h := &c.srv.cores[shard].ps
	if sharded {
		return h.anyShard.Load() > 0
	}
	return h.any.Load() > 0
}

// Publish writes msg to this core's subscribers of channel and returns how
// many received it (shardowner.Hub).
func (h *hub) Publish(channel, msg []byte, sharded bool) int {
	if sharded {
		list := h.shard[string(channel)]
		for _, cn := range list {
			h.push(cn, subShard, nil, channel, msg)
		}
		return len(list)
	}
	list := h.channels[string(channel)]
	for _, cn := range list {
		h.push(cn, subChannel, nil, channel, msg)
	}
	n := len(list)
	for _, p := range h.patList {
		if shardowner.MatchGlob(p.pat, channel, false) {
			for _, cn := range p.conns {
				h.push(cn, subPattern, p.pat, channel, msg)
			}
			n += len(p.conns)
		}
	}
	return n
}

// cmdPublish carries a keyspace notification to the other cores.
var cmdPublish = router.LookupString("publish")

// Broadcast publishes msg on channel here and on every other core with
// subscribers, where the count that comes back is dropped
// (shardowner.Hub).
func (h *hub) Broadcast(channel, msg []byte) {
	h.Publish(channel, msg, false)
	c := h.core
	for peer := range c.srv.cores {
		if peer == c.id || !c.HasSubscribers(peer, false) {
			continue
		}
		s := c.NewSlot()
		s.Orphan = true
		h.argv = append(h.argv[:0], cmdPublish.NameBytes(), channel, msg)
		c.Submit(peer, cmdPublish, 0, 2, h.argv, s)
	}
}

// push writes one message to cn: into its output buffer, or, when replies
// are pending before it, into a filled slot after them, so it leaves in
// order. Messages that follow one another share a slot, so a subscriber
// that waits for a reply holds its messages' bytes and no slot per message.
func (h *hub) push(cn *Conn, kind int, pat, channel, msg []byte) {
	if cn.closed {
		return
	}
	w := &h.w
	w.Proto = cn.proto
	var s *router.Slot
	grow := false
	switch {
	case cn.running:
		// cn's own command is writing its reply: the message goes first.
		w.B = cn.w.B
	case len(cn.slots) == 0:
		w.B = cn.out
	default:
		if last := cn.slots[len(cn.slots)-1]; last.Filled && !last.Discard && cn != h.self {
			s, grow = last, true
			w.B = s.Reply
		} else {
			s = h.core.NewSlot()
			w.B = s.Reply[:0]
		}
	}
	if pat != nil {
		w.Push(4)
		w.BulkString(subWords[kind].message)
		w.Bulk(pat)
	} else {
		w.Push(3)
		w.BulkString(subWords[kind].message)
	}
	w.Bulk(channel)
	w.Bulk(msg)
	switch {
	case cn.running:
		cn.w.B = w.B
	case s == nil:
		cn.out = w.B
	case grow:
		cn.slotBytes += len(w.B) - len(s.Reply)
		s.Reply = w.B
	default:
		s.Reply, s.Filled = w.B, true
		cn.slotBytes += len(s.Reply)
		cn.slots = append(cn.slots, s)
		if cn == h.self && len(cn.slots) >= 2 && cn.slots[len(cn.slots)-2] == h.selfSlot {
			last := len(cn.slots) - 1
			cn.slots[last-1], cn.slots[last] = cn.slots[last], cn.slots[last-1]
		}
	}
	w.B = nil
	h.core.markDirty(cn)
}

func (h *hub) add(kind int, name string, cn *Conn) {
	switch kind {
	case subChannel:
		h.channels[name] = append(h.channels[name], cn)
	case subShard:
		h.shard[name] = append(h.shard[name], cn)
	case subPattern:
		p := h.patterns[name]
		if p == nil {
			p = &patternSubs{pat: []byte(name)}
			h.patterns[name] = p
			h.patList = append(h.patList, p)
		}
		p.conns = append(p.conns, cn)
	}
	h.counter(kind).Add(1)
}

func (h *hub) remove(kind int, name string, cn *Conn) {
	switch kind {
	case subChannel:
		if l := without(h.channels[name], cn); len(l) > 0 {
			h.channels[name] = l
		} else {
			delete(h.channels, name)
		}
	case subShard:
		if l := without(h.shard[name], cn); len(l) > 0 {
			h.shard[name] = l
		} else {
			delete(h.shard, name)
		}
	case subPattern:
		p := h.patterns[name]
		if p.conns = without(p.conns, cn); len(p.conns) == 0 {
			delete(h.patterns, name)
			for i, q := range h.patList {
				if q == p {
					last := len(h.patList) - 1
					h.patList[i] = h.patList[last]
					h.patList[last] = nil
					h.patList = h.patList[:last]
					break
				}
			}
		}
	}
	h.counter(kind).Add(-1)
}

func (h *hub) counter(kind int) *atomic.Int64 {
	if kind == subShard {
		return &h.anyShard
	}
	return &h.any
}

// without removes cn from list, keeping the order the others subscribed in.
func without(list []*Conn, cn *Conn) []*Conn {
	for i, x := range list {
		if x == cn {
			copy(list[i:], list[i+1:])
			list[len(list)-1] = nil
			return list[:len(list)-1]
		}
	}
	return list
}

// pubsubDir counts every core's subscriptions for PUBSUB and INFO, and holds
// the pubsub class's output limits.
type pubsubDir struct {
	mu    sync.Mutex
	names [subKinds]map[string]int // subscriptions per channel, pattern, shard channel

	hard, soft, softSecs atomic.Int64
}

func (d *pubsubDir) init() {
	for k := range d.names {
		d.names[k] = make(map[string]int)
	}
}

func (d *pubsubDir) setLimits(l [3]int64) {
	d.hard.Store(l[0])
	d.soft.Store(l[1])
	d.softSecs.Store(l[2])
}

func (d *pubsubDir) change(kind int, name string, delta int) {
	d.mu.Lock()
	if n := d.names[kind][name] + delta; n > 0 {
		d.names[kind][name] = n
	} else {
		delete(d.names[kind], name)
	}
	d.mu.Unlock()
}

// Channels, Subscribers and Patterns are what PUBSUB reads
// (servercmd.Directory).
func (d *pubsubDir) Channels(shard bool) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := make([]string, 0, len(d.names[dirKind(shard)]))
	for name := range d.names[dirKind(shard)] {
		names = append(names, name)
	}
	return names
}

func (d *pubsubDir) Subscribers(shard bool, names [][]byte) []int {
	counts := make([]int, len(names))
	d.mu.Lock()
	for i, name := range names {
		counts[i] = d.names[dirKind(shard)][string(name)]
	}
	d.mu.Unlock()
	return counts
}

func (d *pubsubDir) Patterns() int {
	_, n, _ := d.sizes()
	return n
}

func dirKind(shard bool) int {
	if shard {
		return subShard
	}
	return subChannel
}

// sizes is how many channels, patterns and shard channels have subscribers.
func (d *pubsubDir) sizes() (channels, patterns, shard int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.names[subChannel]), len(d.names[subPattern]), len(d.names[subShard])
}

// publishCmd runs PUBLISH or SPUBLISH for cn: its part here runs at once,
// the others travel to the cores with subscribers.
func (c *Core) publishCmd(cn *Conn, cmd *router.Command, argv [][]byte) {
	s := cn.reserve()
	c.ps.self, c.ps.selfSlot = cn, s
	if c.srv.cfg.Shards == 1 {
		c.Submit(c.id, cmd, cn.db, cn.proto, argv, s)
	} else {
		c.startSplit(cn, s, cmd, argv)
	}
	c.ps.self, c.ps.selfSlot = nil, nil
	c.markDirty(cn)
}

func (c *Core) subscribeCmd(cn *Conn, argv [][]byte)    { c.subscribe(cn, subChannel, argv[1:]) }
func (c *Core) psubscribeCmd(cn *Conn, argv [][]byte)   { c.subscribe(cn, subPattern, argv[1:]) }
func (c *Core) ssubscribeCmd(cn *Conn, argv [][]byte)   { c.subscribe(cn, subShard, argv[1:]) }
func (c *Core) unsubscribeCmd(cn *Conn, argv [][]byte)  { c.unsubscribe(cn, subChannel, argv[1:]) }
func (c *Core) punsubscribeCmd(cn *Conn, argv [][]byte) { c.unsubscribe(cn, subPattern, argv[1:]) }
func (c *Core) sunsubscribeCmd(cn *Conn, argv [][]byte) { c.unsubscribe(cn, subShard, argv[1:]) }

// subscribe adds cn to each name of kind it has not subscribed to yet, and
// answers one confirmation per name.
func (c *Core) subscribe(cn *Conn, kind int, names [][]byte) {
	if cn.subs == nil {
		cn.subs = new(connSubs)
	}
	set := cn.subs.names[kind]
	if set == nil {
		set = make(map[string]struct{})
		cn.subs.names[kind] = set
	}
	cn.pushing = true
	w := cn.begin()
	for _, b := range names {
		if _, ok := set[string(b)]; !ok {
			name := string(b)
			set[name] = struct{}{}
			c.ps.add(kind, name, cn)
			c.srv.ps.change(kind, name, 1)
		}
		subReply(w, subWords[kind].sub, b, cn.subs.count(kind))
	}
	cn.end()
	cn.pushing = false
	cn.publishSubs()
}

// unsubscribe removes cn from the names of kind, or from all of them when
// none is given, answering one confirmation per name (one with a null name
// when there was nothing to leave).
func (c *Core) unsubscribe(cn *Conn, kind int, names [][]byte) {
	if cn.subs == nil {
		cn.subs = new(connSubs)
	}
	set := cn.subs.names[kind]
	cn.pushing = true
	w := cn.begin()
	word := subWords[kind].unsub
	if len(names) == 0 {
		if len(set) == 0 {
			subReply(w, word, nil, cn.subs.count(kind))
		}
		for name := range set {
			c.leave(cn, kind, name)
			subReply(w, word, []byte(name), cn.subs.count(kind))
		}
	} else {
		for _, b := range names {
			if _, ok := set[string(b)]; ok {
				c.leave(cn, kind, string(b))
			}
			subReply(w, word, b, cn.subs.count(kind))
		}
	}
	cn.end()
	cn.pushing = false
	cn.publishSubs()
}

func (c *Core) leave(cn *Conn, kind int, name string) {
	delete(cn.subs.names[kind], name)
	c.ps.remove(kind, name, cn)
	c.srv.ps.change(kind, name, -1)
}

// unsubscribeAll drops every subscription of cn without a reply (RESET, a
// closed connection).
func (c *Core) unsubscribeAll(cn *Conn) {
	if cn.subs == nil {
		return
	}
	for kind, set := range cn.subs.names {
		for name := range set {
			c.leave(cn, kind, name)
		}
	}
	cn.subs = nil
	cn.publishSubs()
}

// publishSubs stores cn's subscription counts for CLIENT LIST.
func (cn *Conn) publishSubs() {
	var n [subKinds]int32
	if cn.subs != nil {
		for k := range n {
			n[k] = int32(len(cn.subs.names[k]))
		}
	}
	for k := range n {
		cn.info.subs[k].Store(n[k])
	}
}

func subReply(w *resp.Writer, word string, name []byte, count int) {
	w.Push(3)
	w.BulkString(word)
	if name == nil {
		w.Null()
	} else {
		w.Bulk(name)
	}
	w.Int(int64(count))
}

// subscribedAllowed reports whether cmd may run on a RESP2 connection in
// subscribed mode.
func subscribedAllowed(cmd *router.Command) bool {
	switch cmd.Home {
	case router.HomePing, router.HomeQuit, router.HomeReset, router.HomeSubscribe, router.HomeUnsubscribe,
		router.HomePSubscribe, router.HomePUnsubscribe, router.HomeSSubscribe, router.HomeSUnsubscribe:
		return true
	}
	return false
}

// errSubscribed is the refusal of a command a RESP2 connection may not run
// in subscribed mode; a known subcommand is named as Redis names it.
func errSubscribed(cmd *router.Command, argv [][]byte) resp.Error {
	name := cmd.Name
	if subs, ok := servercmd.ContainerSubcommands(cmd.Name); ok && len(argv) > 1 {
		if _, known := subs[strings.ToLower(string(argv[1]))]; known {
			name += "|" + strings.ToLower(string(argv[1]))
		}
	}
	return resp.Error("ERR Can't execute '" + name +
		"': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context")
}

// pingSubscribed answers PING in RESP2 subscribed mode: ["pong", arg].
func pingSubscribed(cn *Conn, argv [][]byte) {
	w := cn.begin()
	w.Array(2)
	w.BulkString("pong")
	if len(argv) == 2 {
		w.Bulk(argv[1])
	} else {
		w.BulkString("")
	}
	cn.end()
}

// overLimit reports whether cn holds more output than its class allows: the
// pubsub class's hard limit, or its soft limit for longer than its seconds,
// for a subscriber; the normal class's hard limit otherwise.
func (c *Core) overLimit(cn *Conn, owed int64) bool {
	if !cn.subscribed() {
		limit := c.srv.outputLimit()
		return limit > 0 && owed > limit
	}
	d := &c.srv.ps
	hard := d.hard.Load()
	if safety := c.srv.cfg.OutputSafetyCap; safety > 0 && (hard <= 0 || hard > safety) {
		hard = safety
	}
	if hard > 0 && owed > hard {
		return true
	}
	if soft := d.soft.Load(); soft > 0 && owed > soft {
		now := c.shard.Clock.Ms
		if cn.subs.softSince == 0 {
			cn.subs.softSince = now
		}
		return now-cn.subs.softSince > d.softSecs.Load()*1000
	}
	cn.subs.softSince = 0
	return false
}
