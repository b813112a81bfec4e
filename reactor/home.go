package reactor

import (
	"crypto/sha256"
	"crypto/subtle"
	"time"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// homeHandler answers a command that runs on the client's home core.
type homeHandler func(c *Core, cn *Conn, argv [][]byte)

// serverCmd runs a servercmd handler as a home command.
func serverCmd(h func(servercmd.Core, servercmd.Conn, [][]byte)) homeHandler {
	return func(c *Core, cn *Conn, argv [][]byte) { h(c, cn, argv) }
}

// homeHandlers maps the command table's HomeID to its handler: the table
// says which commands run here, this says how.
var homeHandlers = [router.HomeCount]homeHandler{
	router.HomeAuth:         serverCmd(servercmd.Auth),
	router.HomeClient:       serverCmd(servercmd.Client),
	router.HomeCommand:      serverCmd(servercmd.Command),
	router.HomeConfig:       serverCmd(servercmd.Config),
	router.HomeDebug:        serverCmd(servercmd.Debug),
	router.HomeEcho:         (*Core).echo,
	router.HomeHello:        serverCmd(servercmd.Hello),
	router.HomeInfo:         serverCmd(servercmd.Info),
	router.HomeLastSave:     serverCmd(servercmd.LastSave),
	router.HomeSave:         serverCmd(servercmd.Save),
	router.HomeBgSave:       serverCmd(servercmd.BgSave),
	router.HomeBgRewriteAOF: serverCmd(servercmd.BgRewriteAOF),
	router.HomePing:         (*Core).ping,
	router.HomeQuit:         (*Core).quit,
	router.HomeReset:        (*Core).reset,
	router.HomeSelect:       (*Core).selectDB,
	router.HomeShutdown:     serverCmd(servercmd.Shutdown),
	router.HomeTime:         serverCmd(servercmd.Time),
	router.HomeMulti:        (*Core).multi,
	router.HomeExec:         (*Core).exec,
	router.HomeDiscard:      (*Core).discardCmd,
	router.HomeWatch:        (*Core).watchCmd,
	router.HomeUnwatch:      (*Core).unwatchCmd,

	router.HomeSubscribe:    (*Core).subscribeCmd,
	router.HomeUnsubscribe:  (*Core).unsubscribeCmd,
	router.HomePSubscribe:   (*Core).psubscribeCmd,
	router.HomePUnsubscribe: (*Core).punsubscribeCmd,
	router.HomeSSubscribe:   (*Core).ssubscribeCmd,
	router.HomeSUnsubscribe: (*Core).sunsubscribeCmd,
	router.HomePubsub:       serverCmd(servercmd.Pubsub),
	router.HomeLatency:      serverCmd(servercmd.Latency),
	router.HomeMonitor:      (*Core).monitorCmd,
	router.HomeScript:       serverCmd(servercmd.Script),
	router.HomeFunction:     serverCmd(servercmd.Function),
}

// home answers the commands that run on the client's own core: connection
// state and server-wide commands that touch no keyspace.
func (c *Core) home(cn *Conn, cmd *router.Command, argv [][]byte) {
	if h := homeHandlers[cmd.Home]; h != nil {
		h(c, cn, argv)
		return
	}
	cn.errorReply(resp.ErrUnknownCommand(argv))
}

func (c *Core) echo(cn *Conn, argv [][]byte) {
	w := cn.begin()
	w.Bulk(argv[1])
	cn.end()
}

func (c *Core) quit(cn *Conn, argv [][]byte) {
	cn.okReply()
	cn.closing = true
}

func (c *Core) reset(cn *Conn, argv [][]byte) {
	c.discard(cn)
	c.unsubscribeAll(cn)
	c.unmonitor(cn)
	c.untrack(cn, false)
	cn.db, cn.proto = 0, 2
	if cn.replyMode != replySkip {
		// A RESET that CLIENT REPLY SKIP covers loses its own reply, as
		// in Redis.
		cn.replyMode = replyOn
	}
	cn.info.proto.Store(2)
	cn.info.db.Store(0)
	cn.info.name.Store(nil)
	cn.authed = c.srv.requirePass() == ""
	w := cn.begin()
	w.Simple("RESET")
	cn.end()
}

func (c *Core) ping(cn *Conn, argv [][]byte) {
	if len(argv) > 2 {
		cn.errorReply(resp.ErrWrongArgs("ping"))
		return
	}
	if cn.proto == 2 && cn.subscribed() {
		pingSubscribed(cn, argv)
		return
	}
	w := cn.begin()
	if len(argv) == 2 {
		w.Bulk(argv[1])
	} else {
		w.Simple("PONG")
	}
	cn.end()
}

func (c *Core) selectDB(cn *Conn, argv [][]byte) {
	n, e := shardowner.DBIndex(argv[1], c.srv.cfg.Databases)
	if e != "" {
		cn.errorReply(e)
		return
	}
	cn.db = n
	cn.info.db.Store(int32(n))
	cn.okReply()
}

// CheckPass answers whether user/pass authenticate the default user, and
// the error to send when they do not (servercmd.Core).
func (c *Core) CheckPass(user, pass []byte) resp.Error {
	want := c.srv.requirePass()
	if user != nil && string(user) != "default" {
		return resp.ErrWrongPass
	}
	if want == "" {
		if user == nil {
			return resp.ErrAuthNoPass
		}
		return ""
	}
	if !samePassword(pass, want) {
		return resp.ErrWrongPass
	}
	return ""
}

// samePassword compares digests of fixed size in constant time, so that how
// long the comparison takes tells nothing about the password, not even its
// length.
func samePassword(pass []byte, want string) bool {
	got, exp := sha256.Sum256(pass), sha256.Sum256([]byte(want))
	return subtle.ConstantTimeCompare(got[:], exp[:]) == 1
}

func setName(cn *Conn, name []byte) {
	if len(name) == 0 {
		cn.info.name.Store(nil)
		return
	}
	s := string(name)
	cn.info.name.Store(&s)
}

// debugSleepTurnMax bounds how long DEBUG SLEEPs may block a shard's loop in
// one turn. Up to it a sleep blocks the thread as in Redis, so that every
// client of the shard waits (what tests of timeouts and of the stall
// counters rely on). Past it the client that asked waits alone for the
// rest: its reply, and its later requests, are held back until the time is
// up, while the shard serves everybody else. So the shard's other clients,
// and the cross-shard commands that need it, wait at most this long per
// turn however long or how many sleeps a client asks for.
const debugSleepTurnMax = 500 * time.Millisecond

// maxDebugSleep keeps a sleep's deadline within int64 nanoseconds.
const maxDebugSleep = 100 * 365 * 24 * time.Hour

// debugSleeper is a DEBUG SLEEP waiting out its time off the shard's turn.
type debugSleeper struct {
	cn    *Conn
	slot  *router.Slot // the reply, held back until then
	until int64        // Unix ns
}

// debugSleep blocks the thread for what is left of this turn's
// debugSleepTurnMax and holds cn back for the rest. Like Redis it sleeps
// whole microseconds, and not at all when the count of them is not a
// positive int64 (a negative time, NaN, or one too large to convert).
func (c *Core) debugSleep(cn *Conn, secs float64) {
	d := time.Duration(0)
	switch us := secs * 1e6; {
	case !(us > 0 && us < 1<<63):
	case us >= float64(maxDebugSleep/time.Microsecond):
		d = maxDebugSleep
	default:
		d = time.Duration(us) * time.Microsecond
	}
	block := min(d, debugSleepTurnMax-c.debugSlept)
	if block > 0 {
		time.Sleep(block)
		c.debugSlept += block
	}
	if d <= block || cn.capture {
		// Inside EXEC the reply is part of EXEC's: the sleep is cut to
		// what one turn may block.
		cn.okReply()
		return
	}
	// The barrier keeps cn's later requests unread until the reply is in.
	slot := cn.reserve()
	cn.barrier = slot
	c.sleepers = append(c.sleepers, debugSleeper{cn: cn, slot: slot, until: time.Now().Add(d - block).UnixNano()})
}

// wakeSleepers answers the DEBUG SLEEPs whose time is up, those of clients
// that hung up or are closing (so that they do not hold their descriptor
// and maxclients slot for the rest of the sleep), and all of them once the
// server stops.
func (c *Core) wakeSleepers(now int64) {
	keep := c.sleepers[:0]
	for _, s := range c.sleepers {
		if now < s.until && !c.stopped && !s.cn.hup && !s.cn.closing && !s.cn.closed {
			keep = append(keep, s)
			continue
		}
		s.slot.Reply = append(s.slot.Reply[:0], "+OK\r\n"...)
		router.Complete(c, s.slot)
		if !s.cn.closed {
			c.markDirty(s.cn)
		}
	}
	clear(c.sleepers[len(keep):])
	c.sleepers = keep
}

// sleepersTimeout caps timeout (ms) at the next DEBUG SLEEP's end.
func (c *Core) sleepersTimeout(timeout int, now int64) int {
	for _, s := range c.sleepers {
		ms := (s.until - now + int64(time.Millisecond) - 1) / int64(time.Millisecond)
		timeout = min(timeout, int(max(ms, 0)))
	}
	return timeout
}

// subcommandArityErr is the arity error for a known subcommand of a
// container command called with the wrong number of arguments (Redis 7's
// "wrong number of arguments for 'client|setname' command"), or "". Like any
// arity error it refuses the request before it runs.
func subcommandArityErr(cmd *router.Command, argv [][]byte) resp.Error {
	if len(cmd.Subcommands) == 0 || len(argv) < 2 {
		return ""
	}
	if sub := cmd.Subcommand(argv[1]); sub != nil && !sub.ArityOK(len(argv)) {
		return resp.ErrWrongArgs(sub.Name)
	}
	return ""
}
