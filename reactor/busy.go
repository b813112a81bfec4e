package reactor

import (
	"bytes"

	"github.com/corekv/corekv/reactor/sockets"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner/aof"
	"golang.org/x/sys/unix"
)

// A core whose shard runs a script past busy-reply-threshold does not come
// back to its loop until the script ends. Redis answers its clients from
// inside such a script, and so does the core: the script's watch calls
// serveWhileBusy from the script's thread (router.ServeWhileBusy), which
// makes a pass of a loop cut down to what cannot reach into the script:
//
//   - it reads its connections and answers each request -BUSY, but for the
//     commands Redis takes while busy (allow_busy: SCRIPT KILL, FUNCTION
//     KILL and STATS, SHUTDOWN NOSAVE, MULTI, DISCARD, AUTH, HELLO, QUIT,
//     …), which it runs here as home commands;
//   - it leaves alone the connection whose requests are running (the
//     script's caller, whose next requests wait for its reply, as in
//     Redis), and any connection that waits: blocked, held back, waiting
//     for replies from other shards or inside a transaction's call;
//   - a request that would need the keyspace or another shard to be
//     answered (WATCH, or DISCARD of a connection that watches keys) stops
//     its connection's reading until the script has ended.
//
// Events for other shards (the rings) wait too: their cores answer BUSY
// for this shard while it is busy (dispatch.go).

// serveWhileBusy is one pass of the busy loop.
func (c *Core) serveWhileBusy() {
	if c.busyServing || c.stopped {
		return
	}
	c.busyServing = true
	if c.busyEvents == nil {
		c.busyEvents = make([]unix.EpollEvent, 64)
	}
	n, err := sockets.EpollWait(c.epfd, c.busyEvents, 0, false)
	if err != nil && err != unix.EINTR {
		c.log.Error("epoll_wait", "err", err)
	}
	for i := 0; i < n; i++ {
		c.busyEvent(&c.busyEvents[i])
	}
	for _, cn := range c.conns {
		if cn == nil || !c.busyServable(cn) {
			continue
		}
		if cn.readable && !cn.drained {
			c.busyRead(cn)
		}
		if len(cn.in) > 0 {
			c.busyParse(cn)
		}
		if cn.dirty {
			c.busyFlush(cn)
		}
	}
	c.busyServing = false
}

// busyEvent is event for the busy loop: a hang-up is noted, not acted on,
// since closing a connection reaches into the shards (its watched keys).
func (c *Core) busyEvent(ev *unix.EpollEvent) {
	fd := int(ev.Fd)
	if fd == c.evfd {
		// The rings are looked at once the script has ended, on every turn.
		var buf [8]byte
		if n, _ := sockets.Read(c.evfd, buf[:]); n == len(buf) {
			c.stats.wakeupsRecv++
		}
		return
	}
	var cn *Conn
	if fd < len(c.conns) {
		cn = c.conns[fd]
	}
	if cn == nil {
		c.accept(fd)
		return
	}
	if ev.Events&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		cn.hup = true
	}
	c.readiness(cn, ev.Events)
}

// busyServable reports whether the busy loop may read and answer cn.
func (c *Core) busyServable(cn *Conn) bool {
	if cn.closed || cn.closing || cn.parsing || cn.running || cn.capture || cn.block != nil ||
		cn.stalled || cn.txnWait || cn.backlogged() {
		return false
	}
	for _, s := range cn.slots {
		if !s.Filled {
			return false // a reply in flight from another shard
		}
	}
	return true
}

// busyRead is read for the busy loop: what it finds is left for the
// loop's own read once the script has ended, but for the bytes.
func (c *Core) busyRead(cn *Conn) {
	n, free, full, err := c.fill(cn)
	switch {
	case full:
		// read's to close
	case n > 0:
		if n < free && !cn.hup {
			cn.drained = true
		}
	case n == 0 || err != unix.EINTR:
		// Drained, at its end, or failed: read sees the end or the
		// failure again and closes.
		cn.drained = true
	}
}

// busyParse answers the complete requests in cn's input buffer
// (dispatchBusy) and keeps the rest for later. An inline request is
// parsed from a copy, since the parser decodes it in place and a request
// left for later must stay as it came.
func (c *Core) busyParse(cn *Conn) {
	pos := 0
	cn.req.Unauthenticated = !cn.authed
	for pos < len(cn.in) && !cn.closing && !cn.backlogged() {
		buf := cn.in[pos:]
		if buf[0] != '*' {
			nl := bytes.IndexByte(buf, '\n')
			if nl < 0 {
				break
			}
			c.busyLine = append(c.busyLine[:0], buf[:nl+1]...)
			buf = c.busyLine
		}
		args, m, err := cn.req.Parse(buf, c.busyArgv[:0])
		c.busyArgv = args
		if err != nil {
			cn.errorReply(resp.Error("ERR " + err.Error()))
			cn.closing = true
			pos = len(cn.in)
			break
		}
		if m == 0 {
			if buf[0] != '*' {
				cn.req.Reset() // parsed from the copy
			}
			break
		}
		if len(args) > 0 && !c.dispatchBusy(cn, args) {
			cn.req.Reset() // parsed, not run: parsed again later
			break
		}
		cn.requestDone()
		pos += m
	}
	rest := copy(cn.in, cn.in[pos:])
	cn.in = cn.in[:rest]
}

// dispatchBusy answers one request of cn while the shard is busy: as
// dispatchCmd checks it, then -BUSY, or the allowed command run. It
// reports false, having answered nothing, for a request that must wait
// for the script's end.
func (c *Core) dispatchBusy(cn *Conn, argv [][]byte) bool {
	cmd := c.lookup(argv[0])
	if cmd != nil && cmd.Home == router.HomeExec && cn.multi != nil && cn.watched != nil {
		return false // refused or run, EXEC forgets the watched keys
	}
	if !c.admit(cn, cmd, argv) {
		return true
	}
	if cmd.FlagsFor(argv)&router.FlagAllowBusy == 0 {
		e := router.BusyReply(c.id)
		if e == "" {
			e = router.ErrBusyEval
		}
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(c.rejectInMulti(cn, cmd, e))
		return true
	}
	if !busyRunnable(cn, cmd, argv) {
		return false
	}
	if cn.multi != nil && c.queueMulti(cn, cmd, argv) {
		return true
	}
	if e := subcommandArityErr(cmd, argv); e != "" {
		c.shard.CmdStat(cmd.StatID(argv)).Rejected++
		cn.errorReply(e)
		return true
	}
	c.stats.commands++
	start, errs := router.Now(), cn.w.Errors
	c.home(cn, cmd, argv)
	router.Account(c.shard, cmd, argv, router.Origin{Client: cn.id}, start, cn.w.Errors != errs)
	if c.srv.monitors.Load() > 0 {
		c.feedMonitors(cn, cmd, cn.db, argv)
	}
	return true
}

// busyRunnable reports whether an allowed command may run from inside the
// script: a home command that needs neither the keyspace nor another
// shard. Forgetting watched keys, or a subscription, asks their shards.
func busyRunnable(cn *Conn, cmd *router.Command, argv [][]byte) bool {
	if cmd.RouteFor(argv) != router.RouteHome {
		return false
	}
	switch cmd.Home {
	case router.HomeAuth, router.HomeHello, router.HomeQuit, router.HomeMulti, router.HomeShutdown,
		router.HomeScript, router.HomeFunction:
		return true
	case router.HomeDiscard, router.HomeUnwatch:
		return cn.watched == nil
	case router.HomeReset:
		return cn.watched == nil && cn.subs == nil && !cn.monitor
	}
	return false
}

// busyFlush writes cn's answers, as flushAll would; what it cannot write
// now, flushAll does after the script.
func (c *Core) busyFlush(cn *Conn) {
	cn.collect()
	if cn.holdOutput() {
		return
	}
	limit := len(cn.out)
	if c.aofLog != nil && c.aofLog.Fsync() == aof.FsyncAlways {
		// Under appendfsync always output waits for the log's syncer.
		limit, _ = c.syncLimit(cn)
	}
	cn.flush(limit) // a failed socket fails flushAll's write too, which closes it
}
