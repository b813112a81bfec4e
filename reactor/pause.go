package reactor

import (
	"time"

	"github.com/corekv/corekv/router"
)

// CLIENT PAUSE: until its end, every core holds back the requests the
// pause covers (all of them, or under WRITE those that may write:
// router.MayReplicate), leaving them unread in the connection's buffer as
// back-pressure does; a held connection counts as blocked. Active expiry
// and eviction wait too, and reads leave the expired keys they find, so
// that no key is deleted while writes are held (each core from its next
// loop turn, the pausing one at once). The
// requests run in order once the pause ends (its time, or CLIENT
// UNPAUSE), on every core. A request with the wrong number of arguments,
// or from a client that must authenticate, is answered at once.

// Pause modes, the more restrictive the higher.
const (
	pauseNone  = 0
	pauseWrite = 1
	pauseAll   = 2
)

// pause starts or extends a pause: the mode and the end time the more
// restrictive and the later of the old and the new.
func (s *Server) pause(mode int32, endMs int64) {
	s.mu.Lock()
	if s.pausing() == pauseNone {
		s.pauseMode.Store(pauseNone)
		s.pauseEnd.Store(0)
	}
	s.pauseMode.Store(max(s.pauseMode.Load(), mode))
	s.pauseEnd.Store(max(s.pauseEnd.Load(), endMs))
	s.mu.Unlock()
}

// unpause ends the pause and wakes every core to run what it held.
func (s *Server) unpause() {
	s.mu.Lock()
	s.pauseMode.Store(pauseNone)
	s.pauseEnd.Store(0)
	s.mu.Unlock()
	s.wakeCores()
}

// pausing is the pause mode now: none once the pause has ended.
func (s *Server) pausing() int32 {
	mode := s.pauseMode.Load()
	if mode == pauseNone || s.pauseEnd.Load() <= time.Now().UnixMilli() {
		return pauseNone
	}
	return mode
}

// pauses reports whether cn's request cmd argv waits for the pause to end.
func (c *Core) pauses(cn *Conn, cmd *router.Command, argv [][]byte) bool {
	mode := c.srv.pausing()
	if mode == pauseNone || cmd == nil || cmd.Internal || !cmd.ArityOK(len(argv)) ||
		subcommandArityErr(cmd, argv) != "" || !cn.authed && cmd.Flags&router.FlagNoAuth == 0 {
		return false
	}
	if mode == pauseAll {
		return true
	}
	if cmd.Home == router.HomeExec && cn.multi != nil {
		return cn.multi.block.MayReplicate(c.shard)
	}
	return router.MayReplicate(c.shard, cmd, argv)
}

// holdForPause keeps cn's requests unread until the pause ends.
func (c *Core) holdForPause(cn *Conn) {
	if cn.paused {
		return
	}
	cn.paused = true
	c.paused = append(c.paused, cn)
	c.srv.blocked.Add(1)
	cn.info.blocked.Store(true)
}

// resumePaused runs the connections the pause held, once it has ended.
func (c *Core) resumePaused() {
	if len(c.paused) == 0 || c.srv.pausing() != pauseNone {
		return
	}
	for _, cn := range c.paused {
		cn.paused = false
		c.srv.blocked.Add(-1)
		cn.info.blocked.Store(false)
		if !cn.closed {
			c.again(cn)
		}
	}
	clear(c.paused)
	c.paused = c.paused[:0]
}

// holdExpiry has this core's tables keep the expired keys reads find
// while a pause lasts, and its shard evict nothing, as Redis does (reads
// see expired keys missing).
func (c *Core) holdExpiry() {
	held := c.srv.pauseMode.Load() != pauseNone && c.srv.pausing() != pauseNone
	if held == c.expiryHeld {
		return
	}
	c.expiryHeld = held
	c.shard.HoldEviction = held
	for _, t := range c.shard.DBs {
		t.KeepExpired = held
	}
}

// pauseWait caps the loop's sleep at the pause's end while it holds
// connections.
func (c *Core) pauseWait(d int64, nowMs int64) int64 {
	if len(c.paused) == 0 {
		return d
	}
	return max(min(d, c.srv.pauseEnd.Load()-nowMs), 0)
}

// Pause is CLIENT PAUSE (servercmd.Core).
func (c *Core) Pause(writes bool, endMs int64) {
	mode := int32(pauseAll)
	if writes {
		mode = pauseWrite
	}
	c.srv.pause(mode, endMs)
	c.holdExpiry()
}

// Unpause is CLIENT UNPAUSE (servercmd.Core).
func (c *Core) Unpause() {
	c.srv.unpause()
	c.holdExpiry()
}
