package reactor

import (
	"cmp"
	"slices"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/reactor/monitorline"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
)

// MONITOR, as Redis 7.0 has it. A monitoring connection lives on its own
// core, in that core's monitor list, which only the core's thread touches.
// A client's command is shown once, by its home core, as the client sent
// it: admitted commands from dispatchCmd, the commands an EXEC runs from
// its transaction (router.ExecTxn). A script's command, and each command
// it runs (from "lua"), are shown by the core whose shard runs it, as it
// starts and as they run (router.ScriptMonitor). The core formats the line once and
// writes it to its own monitors; every other core with a monitor gets it
// as an internal command (corekv.monitor) in the ordinary batches, and
// that core's hub writes it to its monitors. Nothing touches another
// core's connections.
//
// A core holds the lines of a turn, its own and its peers', and writes
// them to its monitors in time order just before it flushes
// (deliverMonitorLines); a line newer than the turn's drain of the rings
// waits for the next turn. A line reaches the rings before the reply of
// its command leaves its core, so a command sent after another's reply
// was read shows after it, even when the two clients live on different
// cores.
//
// With no monitor anywhere the cost is one atomic load per parsed batch of
// requests (Server.monitors into Core.monitoring) and a flag test per
// command.

// errMonitorKeyspace is the refusal of a command that reads or writes the
// keyspace on a monitoring connection: Redis marks monitors as replicas,
// which may not touch data.
const errMonitorKeyspace resp.Error = "ERR Replica can't interact with the keyspace"

// errMonitorDenyBlocking answers MONITOR inside EXEC: a transaction's
// client expects one reply per command.
const errMonitorDenyBlocking resp.Error = "ERR MONITOR isn't allowed for DENY BLOCKING client"

// monitorLineKeep is the largest line buffer a core keeps between lines.
const monitorLineKeep = 64 << 10

// coreMonitors are one core's monitoring connections.
type coreMonitors struct {
	conns []*Conn
	// count is len(conns), for the other cores deciding whether to send
	// this one their lines.
	count atomic.Int32
	line  []byte   // scratch for the line being formatted
	argv  [][]byte // scratch for the line's trip to a peer
	exec  [1][]byte

	// held are the lines to write, ends their ends in it, and at their
	// times (µs); the first carried of them were held back last turn.
	// drainAt (µs) is when this turn began to drain the rings. keep* and
	// out are deliver's scratch.
	held     []byte
	ends     []int
	at       []int64
	carried  int
	drainAt  int64
	idx      []int
	out      []byte
	keep     []byte
	keepEnds []int
	keepAt   []int64
}

// hold keeps line, shown at time at (µs), for deliver.
func (m *coreMonitors) hold(line []byte, at int64) {
	m.held = append(m.held, line...)
	m.ends = append(m.ends, len(m.held))
	m.at = append(m.at, at)
}

// deliverMonitorLines writes the lines held to this core's monitors,
// oldest first. A line newer than the start of this turn's drain waits
// for the next turn: a line its command's client saw answered before it
// may have landed in a ring the drain had already passed, and shows
// first. What waited once goes out next time whatever its time says, so a
// clock stepped back delays nothing longer, and so does every line older
// than it.
func (c *Core) deliverMonitorLines() {
	m := &c.mon
	// Stable: lines of the same microsecond keep their arrival order,
	// which is one core's order.
	idx := m.idx[:0]
	for i := range m.ends {
		idx = append(idx, i)
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(m.at[a], m.at[b]) })
	cut := m.drainAt
	for _, at := range m.at[:m.carried] {
		cut = max(cut, at+1)
	}
	m.out = m.out[:0]
	m.keep, m.keepEnds, m.keepAt = m.keep[:0], m.keepEnds[:0], m.keepAt[:0]
	for _, i := range idx {
		start := 0
		if i > 0 {
			start = m.ends[i-1]
		}
		line := m.held[start:m.ends[i]]
		if m.at[i] >= cut {
			m.keep = append(m.keep, line...)
			m.keepEnds = append(m.keepEnds, len(m.keep))
			m.keepAt = append(m.keepAt, m.at[i])
			continue
		}
		m.out = append(m.out, line...)
	}
	if len(m.out) > 0 {
		for _, cn := range m.conns {
			c.ps.pushRaw(cn, m.out)
		}
	}
	m.held, m.keep = m.keep, m.held[:0]
	m.ends, m.keepEnds = m.keepEnds, m.ends[:0]
	m.at, m.keepAt = m.keepAt, m.at[:0]
	m.carried = len(m.ends)
	m.idx = idx[:0]
	if cap(m.keep) > monitorLineKeep || cap(m.out) > monitorLineKeep {
		m.keep, m.out, m.keepEnds, m.keepAt, m.idx = nil, nil, nil, nil, nil
	}
}

var (
	cmdMonitorFeed = router.LookupString("corekv.monitor")
	cmdExec        = router.LookupString("exec")
)

// monitorCmd makes cn a monitor. A second MONITOR gets no reply at all, as
// in Redis.
func (c *Core) monitorCmd(cn *Conn, argv [][]byte) {
	if cn.capture {
		cn.errorReply(errMonitorDenyBlocking)
		return
	}
	if cn.monitor {
		return
	}
	cn.monitor = true
	cn.info.monitor.Store(true)
	c.mon.conns = append(c.mon.conns, cn)
	c.mon.count.Add(1)
	c.srv.monitors.Add(1)
	// The requests after MONITOR in this batch see the monitor too.
	c.monitoring = true
	cn.okReply()
}

// unmonitor ends cn's monitor mode (RESET, a closed connection).
func (c *Core) unmonitor(cn *Conn) {
	if !cn.monitor {
		return
	}
	cn.monitor = false
	cn.info.monitor.Store(false)
	c.mon.conns = without(c.mon.conns, cn)
	c.mon.count.Add(-1)
	c.srv.monitors.Add(-1)
}

// monitorRefuses reports whether a monitoring connection may not run cmd:
// what reads or writes keys, and a publish, which Redis would replicate.
func monitorRefuses(cmd *router.Command, argv [][]byte) bool {
	flags, known := effectiveFlags(cmd, argv)
	return known && (flags&(router.FlagReadonly|router.FlagWrite) != 0 ||
		cmd.Route == router.RouteAll && cmd.Combine == router.CombinePublish)
}

// effectiveFlags are the flags of what argv runs: a container's
// subcommand's own. known is false for a subcommand the container lacks,
// which Redis refuses before running anything.
func effectiveFlags(cmd *router.Command, argv [][]byte) (flags router.Flag, known bool) {
	if len(cmd.Subcommands) == 0 || len(argv) < 2 {
		return cmd.Flags, true
	}
	if s := cmd.Subcommand(argv[1]); s != nil {
		return s.Flags, true
	}
	return 0, false
}

// feedMonitors shows cn's command argv, run in database db, to every
// monitor. It is called after the command has run on this core (or been
// sent on), so that a password its handler redacted shows redacted and a
// SELECT shows the database it chose, as Redis shows them. Admin commands
// are never shown.
func (c *Core) feedMonitors(cn *Conn, cmd *router.Command, db int, argv [][]byte) {
	if flags, known := effectiveFlags(cmd, argv); !known || flags&(router.FlagAdmin|router.FlagSkipMonitor) != 0 {
		return
	}
	c.showLine(db, cn.info.addr, argv)
}

// Monitoring, ShowScript and ShowScriptCall are the core's
// router.ScriptMonitor: what its shard's scripts run, shown as Redis shows
// it.
func (c *Core) Monitoring() bool { return c.srv.monitors.Load() > 0 }

func (c *Core) ShowScript(client int64, db int, argv [][]byte) {
	c.showLine(db, c.srv.clientAddr(client), argv)
}

func (c *Core) ShowScriptCall(db int, argv [][]byte) { c.showLine(db, "lua", argv) }

// showLine shows argv, from addr in database db, to every monitor: this
// core's, and through the rings every other core's.
func (c *Core) showLine(db int, addr string, argv [][]byte) {
	m := &c.mon
	now := time.Now()
	m.line = monitorline.Append(m.line[:0], now, db, addr, argv)
	for peer := range c.srv.cores {
		if peer == c.id {
			if len(m.conns) > 0 {
				m.hold(m.line, now.UnixMicro())
			}
			continue
		}
		if c.srv.cores[peer].mon.count.Load() == 0 {
			continue
		}
		s := c.NewSlot()
		s.Orphan = true
		m.argv = append(m.argv[:0], cmdMonitorFeed.NameBytes(), m.line)
		c.Submit(peer, cmdMonitorFeed, 0, 2, m.argv, s)
	}
	if cap(m.line) > monitorLineKeep {
		m.line = nil
	}
	clear(m.argv)
}

// feedExec shows an EXEC, spelled name, once the commands it ran have
// been shown.
func (c *Core) feedExec(cn *Conn, name []byte) {
	if c.srv.monitors.Load() == 0 {
		return
	}
	c.mon.exec[0] = name
	c.feedMonitors(cn, cmdExec, cn.db, c.mon.exec[:])
	c.mon.exec[0] = nil
}

// Monitor keeps a peer's MONITOR line for this core's monitoring
// connections, to be written with the turn's others (shardowner.Hub).
func (h *hub) Monitor(line []byte) {
	if m := &h.core.mon; len(m.conns) > 0 {
		m.hold(line, monitorline.Time(line))
	}
}

// pushRaw writes bytes that are no reply to cn, behind the replies it is
// owed, the way push writes a published message. A connection that is
// closing, or that has turned replies off, gets nothing, as in Redis.
func (h *hub) pushRaw(cn *Conn, b []byte) {
	if cn.closed || cn.closing || cn.replyMode == replyOff {
		return
	}
	switch {
	case cn.running:
		cn.w.B = append(cn.w.B, b...)
	case len(cn.slots) == 0:
		cn.out = append(cn.out, b...)
	default:
		if last := cn.slots[len(cn.slots)-1]; last.Filled && !last.Discard {
			last.Reply = append(last.Reply, b...)
			cn.slotBytes += len(b)
		} else {
			s := h.core.NewSlot()
			s.Reply, s.Filled = append(s.Reply[:0], b...), true
			cn.slotBytes += len(s.Reply)
			cn.slots = append(cn.slots, s)
		}
	}
	h.core.markDirty(cn)
}
