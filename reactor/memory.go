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
	c.memGen = c.srv.memCfg.Gen.Load()
	c.holdExpiry() // a CLIENT PAUSE holds eviction back
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
	v := c.srv.memView(c.id)
	c.shard.MemOthers = v.tables + v.clients + c.srv.memStartup
	c.shard.OthersEvictable = v.evictable
	c.shard.PlanEviction(v.tables)
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

// memView is what the cores but id published: their shards' tables,
// whether any of those has a key to evict, and every core's client
// buffers (id's own too); id -1 reads every core.
type memView struct {
	tables, clients int64
	evictable       bool
}

func (s *Server) memView(id int) memView {
	var v memView
	for i, c := range s.cores {
		if i != id {
			v.tables += c.pub.mem.tables.Load()
			v.evictable = v.evictable || c.pub.mem.evictable.Load()
		}
		v.clients += c.pub.mem.clients.Load()
	}
	return v
}

// memoryInfo is what INFO memory shows of the server's memory.
func (s *Server) memoryInfo() servercmd.MemoryInfo {
	v := s.memView(-1)
	m := servercmd.MemoryInfo{Tables: v.tables, Clients: v.clients, Startup: s.memStartup}
	m.Used = m.Tables + m.Clients + m.Startup
	m.MaxMemory = s.memCfg.MaxMemory.Load()
	m.Policy = shardowner.PolicyNames[s.memCfg.Policy.Load()]
	return m
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
func oomRefuses(cn *Conn, cmd *router.Command, flags router.Flag) bool {
	if flags&router.FlagDenyOOM != 0 {
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
