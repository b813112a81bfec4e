package reactor

import (
	"runtime"
	"sync/atomic"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// maxmemory on the loop's side. The server's memory, as INFO's used_memory
// shows it and eviction counts it, is the shards' tables (each shard's
// Meter), the clients' query and output buffers, and the process as it was
// before any key (startup). Each core publishes its part once per turn
// while a limit is set and takes the others' sum for its shard
// (Shard.MemOthers), which evicts before its writes (Shard.MakeRoom) and,
// while the server stays over, between turns. A core refuses the commands
// Redis refuses (shardowner.ErrOOM) only when no shard has a key the policy could
// evict.

// memPublished is what a core tells the others about its memory.
type memPublished struct {
	tables    atomic.Int64 // its shard's Meter
	clients   atomic.Int64 // its connections' buffers, as of its last timer
	evictable atomic.Bool  // its shard has a key the policy may evict
}

// syncMemory runs once per turn: the shard takes the settings, and with a
// limit set the core publishes its memory, evicts while over and decides
// whether writes are refused.
func (c *Core) syncMemory() {
	// A load, as Redis's, evicts nothing: the limit applies once it is done.
	c.shard.SyncMemory(c.srv.memCfg, c.loadingGate)
	if !c.shard.MemLimited() {
		c.evicting = false
		if c.oom {
			c.oom = false
			c.regate()
		}
		return
	}
	c.publishMemory()
	c.shard.MemOthers = c.srv.memOthers(c.id)
	c.shard.OthersEvictable = c.srv.anyEvictable(c.id)
	c.shard.PlanEviction(c.srv.otherTables(c.id))
	c.evicting = false
	if c.shard.MemOver() > 0 {
		c.shard.MakeRoom()
		c.publishMemory()
		// Still over with keys to evict: the next turn comes at once, as
		// Redis's eviction goes on in its event loop until done.
		c.evicting = c.shard.MemOver() > 0 && c.shard.MemUsed() > c.shard.EvictFloor() && c.pub.mem.evictable.Load()
	}
	if c.shard.MemOver() > 0 && c.shard.OthersEvictable {
		// The rest of the excess is the other shards' to evict: a core
		// asleep would come to it at its next timer only.
		for i, p := range c.srv.cores {
			if i != c.id && p.pub.mem.evictable.Load() {
				c.wakePeer(i)
			}
		}
	}
	oom := c.shard.MemOver() > 0 && !c.shard.OthersEvictable && !c.pub.mem.evictable.Load()
	if oom != c.oom {
		c.oom = oom
		c.regate()
	}
}

func (c *Core) publishMemory() {
	m := &c.pub.mem
	if used := c.shard.MemUsed(); m.tables.Load() != used {
		m.tables.Store(used)
	}
	if e := c.shard.Evictable(); m.evictable.Load() != e {
		m.evictable.Store(e)
	}
}

// countClientBuffers publishes the bytes of the core's connections'
// buffers, at each timer run: a look at every connection, too slow for
// every turn.
func (c *Core) countClientBuffers() {
	var n int64
	for _, cn := range c.conns {
		if cn != nil {
			n += int64(cap(cn.in) + cap(cn.out))
		}
	}
	c.pub.mem.clients.Store(n)
}

// memOthers is the server's memory but core id's tables.
func (s *Server) memOthers(id int) int64 {
	n := s.memStartup
	for i, c := range s.cores {
		if i != id {
			n += c.pub.mem.tables.Load()
		}
		n += c.pub.mem.clients.Load()
	}
	return n
}

// otherTables is the bytes of every shard's tables but core id's.
func (s *Server) otherTables(id int) int64 {
	var n int64
	for i, c := range s.cores {
		if i != id {
			n += c.pub.mem.tables.Load()
		}
	}
	return n
}

// memoryInfo is what INFO memory shows of the server's memory.
func (s *Server) memoryInfo() servercmd.MemoryInfo {
	m := servercmd.MemoryInfo{Startup: s.memStartup}
	for _, c := range s.cores {
		m.Tables += c.pub.mem.tables.Load()
		m.Clients += c.pub.mem.clients.Load()
	}
	m.Used = m.Tables + m.Clients + m.Startup
	m.MaxMemory = s.memCfg.MaxMemory.Load()
	m.Policy = shardowner.PolicyNames[s.memCfg.Policy.Load()]
	return m
}

// anyEvictable reports whether a core but id published that its shard has
// a key to evict.
func (s *Server) anyEvictable(id int) bool {
	for i, c := range s.cores {
		if i != id && c.pub.mem.evictable.Load() {
			return true
		}
	}
	return false
}

// measureStartup records the process's memory before any key: the Go heap
// and stacks in use.
func (s *Server) measureStartup() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s.memStartup = int64(ms.HeapInuse + ms.StackInuse)
}

// oomRefuses reports whether cmd of cn is refused while the server is out
// of memory: what Redis flags denyoom, EXEC of a block holding one, and
// inside MULTI anything but EXEC, DISCARD, QUIT and RESET, whose queueing
// would grow memory too.
func oomRefuses(cn *Conn, cmd *router.Command) bool {
	if cmd.Flags&router.FlagDenyOOM != 0 {
		return true
	}
	if cn.multi == nil {
		return false
	}
	switch cmd.Home {
	case router.HomeExec:
		return cn.multi.block.HasFlag(router.FlagDenyOOM)
	case router.HomeDiscard, router.HomeQuit, router.HomeReset:
		return false
	}
	return true
}
