package reactor

import (
	"math"
	"time"
)

// Active expiry runs at the end of every turn in which a table has keys
// whose expiry slice has ended (kvtable's TTL wheel finds them without
// sampling). Two bounds keep it from stalling the shard: a run takes at
// most expireTurnNs (more with effort), or the turn's own work times
// share/(100-share) when that is more, never over expireTurnStretch times
// the first bound; and over time runs take at most share percent of the CPU,
// through a credit that grows with wall time.
// share starts at expireSharePct; while keys stay due from one timer tick to
// the next it grows, up to expireShareMax, so that expiry keeps up with any
// rate of writes (they slow down instead of memory growing), and it drops
// back once expiry has caught up. While keys stay due the loop comes back as
// soon as the credit allows, also when idle.

const (
	expireTurnNs      = 250_000 // per run, at effort 1
	expireTurnStep    = 50_000  // more per run, for each effort step above 1
	expireTurnStretch = 4       // times the per-run bound, for a run after a long turn
	expireSharePct    = 25      // CPU share at effort 1
	expireShareInc    = 2       // more, for each effort step above 1
	expireShareMax    = 90
)

// expireState is a core's active-expiry bookkeeping.
type expireState struct {
	credit  int64 // ns of expiry work the core may do now
	last    int64 // Unix ns when the credit was last topped up
	share   int64 // CPU share in percent, 0 until the first run
	next    int   // the database the next run starts with
	backlog bool  // the last run left keys due
	behind  bool  // a run left keys due since the last timer tick
	stale   float64
}

func (s *Server) expireBaseShare() int64 {
	return expireSharePct + expireShareInc*int64(s.expireEffort.Load()-1)
}

// expire runs active expiry at the end of a turn that started at startNs
// and has run until nowNs, and reports whether it took time to.
func (c *Core) expire(startNs, nowNs int64) bool {
	e := &c.exp
	if e.share == 0 {
		e.share = c.srv.expireBaseShare()
	}
	maxCredit := e.share * int64(time.Second) / 100 / int64(c.srv.hz.Load())
	if e.last != 0 {
		e.credit = min(e.credit+(nowNs-e.last)*e.share/100, maxCredit)
	}
	e.last = nowNs
	if !c.srv.activeExpire.Load() || !c.expireDue() || c.srv.pausing() != pauseNone {
		e.backlog = false
		return false
	}
	run := expireTurnNs + expireTurnStep*int64(c.srv.expireEffort.Load()-1)
	run = max(run, min((nowNs-startNs)*e.share/(100-e.share), expireTurnStretch*run))
	budget := min(run, e.credit)
	if budget <= 0 {
		e.backlog, e.behind = true, true
		return false
	}
	start := time.Now()
	dbs := c.shard.DBs
	for i := range dbs {
		t := dbs[(e.next+i)%len(dbs)]
		if !t.ExpireDue() {
			continue
		}
		left := budget - int64(time.Since(start))
		if left <= 0 {
			break
		}
		t.ActiveExpire(left)
	}
	// The next run starts one database further, so that none waits on
	// another's backlog for long.
	e.next = (e.next + 1) % len(dbs)
	spent := int64(time.Since(start))
	e.credit -= spent
	c.stats.expireNs += uint64(spent)
	e.backlog = c.expireDue()
	if e.backlog {
		e.behind = true
		c.stats.expireCapped++
	}
	return true
}

// adaptExpire, on each timer tick, raises the CPU share of active expiry
// while keys stay due and resets it once they do not.
func (c *Core) adaptExpire() {
	e := &c.exp
	base := c.srv.expireBaseShare()
	if e.behind {
		e.share = min(2*max(e.share, base), expireShareMax)
	} else {
		e.share = base
	}
	e.behind = false
}

func (c *Core) expireDue() bool {
	for _, t := range c.shard.DBs {
		if t.ExpireDue() {
			return true
		}
	}
	return false
}

// expireWait is how many ms the loop may sleep before active expiry has
// work: 0 while a backlog has credit to spend, math.MaxInt when no key has
// a TTL.
func (c *Core) expireWait(nowMs int64) int {
	if !c.srv.activeExpire.Load() {
		return math.MaxInt
	}
	e := &c.exp
	if e.backlog {
		if e.credit > 0 {
			return 0
		}
		// Time for the share to earn the deficit back.
		return int(-e.credit*100/e.share/int64(time.Millisecond)) + 1
	}
	next := int64(math.MaxInt64)
	for _, t := range c.shard.DBs {
		next = min(next, t.NextExpire())
	}
	if next == math.MaxInt64 {
		return math.MaxInt
	}
	return int(max(next-nowMs, 0))
}

// updateStale folds the share of keys with a TTL that are due but not yet
// deleted into expired_stale_perc, a moving average as Redis keeps it.
func (c *Core) updateStale() {
	var stale, ttl int
	if c.exp.backlog {
		for _, t := range c.shard.DBs {
			stale += t.StaleKeys()
			ttl += t.ExpiresLen()
		}
	}
	cur := 0.0
	if ttl > 0 {
		cur = 100 * float64(stale) / float64(ttl)
	}
	c.exp.stale = c.exp.stale*0.95 + cur*0.05
}
