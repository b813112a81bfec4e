package reactor

import (
	"math"
	"strconv"
	"sync/atomic"

	"github.com/corekv/corekv/reactor/servercmd"
	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// This file is what the server commands (reactor/servercmd) see of a core
// and a connection, and the statistics plumbing INFO and CONFIG RESETSTAT
// send through the rings.

// Begin, End, OK, Error and Help write the reply of the command running
// (servercmd.Conn).
func (cn *Conn) Begin() *resp.Writer   { return cn.begin() }
func (cn *Conn) End()                  { cn.end() }
func (cn *Conn) OK()                   { cn.okReply() }
func (cn *Conn) Error(e resp.Error)    { cn.errorReply(e) }
func (cn *Conn) Help(lines []string)   { cn.helpReply(lines) }
func (cn *Conn) InExec() bool          { return cn.capture }
func (cn *Conn) SetName(name []byte)   { setName(cn, name) }
func (cn *Conn) SetNoEvict(on bool)    { cn.info.flagsNoE.Store(on) }
func (cn *Conn) SetNoTouch(on bool)    { cn.noTouch = on; cn.info.flagsNoT.Store(on) }
func (cn *Conn) ReplyMode() int        { return cn.replyMode }
func (cn *Conn) SetReplyMode(mode int) { cn.replyMode = mode }
func (cn *Conn) CloseAfterReply()      { cn.closing = true }
func (cn *Conn) ID() int64             { return cn.id }
func (cn *Conn) Authed() bool          { return cn.authed }
func (cn *Conn) SetAuthed()            { cn.authed = true }

// SetProto switches the connection's replies to RESP proto.
func (cn *Conn) SetProto(proto int) {
	cn.proto = proto
	cn.info.proto.Store(int32(proto))
}

// SetLib sets CLIENT SETINFO's library name or version, whichever is not
// nil.
func (cn *Conn) SetLib(name, ver *string) {
	if name != nil {
		cn.info.libName.Store(name)
	}
	if ver != nil {
		cn.info.libVer.Store(ver)
	}
}

// ClientFields reads what CLIENT LIST shows of cn. It reads only the
// atomics of the connection's info, so any core may call it.
func (cn *Conn) ClientFields() servercmd.ClientFields {
	in := &cn.info
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	f := servercmd.ClientFields{
		ID: in.id, Addr: in.addr, LAddr: in.laddr, FD: cn.fd,
		Name: str(in.name.Load()), LibName: str(in.libName.Load()), LibVer: str(in.libVer.Load()),
		LastCmd: str(in.lastCmd.Load()), Created: in.created, LastMs: in.lastMs.Load(),
		DB: in.db.Load(), Proto: in.proto.Load(),
		Subs: in.subs[subChannel].Load(), PSubs: in.subs[subPattern].Load(), SSubs: in.subs[subShard].Load(),
		Blocked: in.blocked.Load(), Killed: in.killed.Load(), Monitor: in.monitor.Load(),
		Tracking: in.tracking.Load(), TrackingBroken: in.trackBroken.Load(), Redir: -1,
	}
	if f.Tracking {
		f.Redir = in.redir.Load()
	}
	return f
}

// Figures publishes this core's figures and reads every core's
// (servercmd.Core).
func (c *Core) Figures(parts servercmd.Parts) []servercmd.Figures {
	c.publishStats()
	return c.srv.allFigures(parts)
}

// ConfigResetStat is CONFIG RESETSTAT: a part on every shard, or inside
// EXEC, which cannot wait, from what the other cores published last.
func (c *Core) ConfigResetStat(scn servercmd.Conn) {
	cn := scn.(*Conn)
	if cn.capture {
		c.publishStats()
		c.srv.resetStats()
		cn.okReply()
		return
	}
	c.allShards(cn, cmdResetAll, resetAllArgv)
}

// Server is the server's state for INFO, with the function libraries of
// this core's shard, which every shard holds alike.
func (c *Core) Server() servercmd.ServerInfo {
	si := c.srv.serverInfo()
	si.Libraries, si.Functions, si.FunctionBytes = router.FunctionStats(c.shard)
	return si
}

func (c *Core) Settings() *settings.Store   { return c.srv.conf }
func (c *Core) PubSub() servercmd.Directory { return &c.srv.ps }
func (c *Core) NowMs() int64                { return c.shard.Clock.Ms }
func (c *Core) SetActiveExpire(on bool)     { c.srv.activeExpire.Store(on) }

// Shutdown is SHUTDOWN's effect: the server stops, saving first as save
// says.
func (c *Core) Shutdown(save *bool) {
	c.log.Warn("user requested shutdown")
	if save != nil {
		c.srv.shutdownSave.Store(save)
	}
	c.srv.requestShutdown()
}

// Save is SAVE's and BGSAVE's effect (persist.go).
func (c *Core) Save(scn servercmd.Conn, mode string) error { return c.startSave(scn.(*Conn), mode) }

// DebugDigest sends every shard DEBUG DIGEST's or DIGEST-VALUE's part.
func (c *Core) DebugDigest(scn servercmd.Conn, keys [][]byte) {
	argv := append([][]byte{cmdDigest.NameBytes()}, keys...)
	c.allShards(scn.(*Conn), cmdDigest, argv)
}

// DebugObject runs DEBUG OBJECT's part on key's shard.
func (c *Core) DebugObject(scn servercmd.Conn, key []byte) {
	argv := [][]byte{cmdDebugObject.NameBytes(), key}
	c.runOn(scn.(*Conn), cmdDebugObject, router.ShardOf(key, c.srv.cfg.Shards), argv)
}

// DebugReload is DEBUG RELOAD's effect (persist.go).
func (c *Core) DebugReload(scn servercmd.Conn, flags []string) error {
	return c.debugReload(scn.(*Conn), flags)
}

// Saver is the server's snapshot state.
func (c *Core) Saver() *snapshot.Saver { return c.srv.saver }

// DebugSleep is DEBUG SLEEP, which blocks this core's loop.
func (c *Core) DebugSleep(cn servercmd.Conn, secs float64) { c.debugSleep(cn.(*Conn), secs) }

// Unblock is CLIENT UNBLOCK.
func (c *Core) Unblock(cn servercmd.Conn, argv [][]byte) { c.clientUnblock(cn.(*Conn), argv) }

// Clients returns the registered connections, ordered by id.
func (c *Core) Clients() []servercmd.Listed {
	conns := c.srv.connections()
	out := make([]servercmd.Listed, len(conns))
	for i, cn := range conns {
		out[i] = cn
	}
	return out
}

// Kill closes victim for CLIENT KILL sent by cn. Another client is closed
// at once by its core, whatever output waits for it (a client that stopped
// reading would never drain it); from then on CLIENT LIST and CLIENT KILL
// skip it. A client that kills itself gets its reply first, as in Redis.
func (c *Core) Kill(scn servercmd.Conn, v servercmd.Listed) {
	cn, victim := scn.(*Conn), v.(*Conn)
	if victim == cn {
		cn.closing = true
		return
	}
	victim.info.killed.Store(true)
	core := c.srv.cores[victim.info.core]
	core.kill.Store(true)
	core.forceWake()
}

// serverInfo gathers the server-wide figures INFO shows.
func (s *Server) serverInfo() servercmd.ServerInfo {
	si := servercmd.ServerInfo{
		Version: Version, Start: s.start, Port: s.port, Shards: s.cfg.Shards, Databases: s.cfg.Databases,
		Hz: s.hz.Load(), Clients: s.clients.Load(), MaxClients: s.maxClients.Load(), Blocked: s.blocked.Load(),
		ReplID: s.replID, StatGen: s.statGen.Load(), MemoryPeak: &s.memoryPeak,
	}
	si.Channels, si.Patterns, si.SShards = s.ps.sizes()
	si.Persist = s.saver.Status()
	si.AOF = s.aofStatus()
	si.Memory = s.memoryInfo()
	si.TrackingClients = s.tracking.Load()
	for _, c := range s.cores {
		si.CoreCPUs = append(si.CoreCPUs, c.cpu)
		keys, items := c.shard.Tracked()
		si.TrackingKeys += keys
		si.TrackingItems += items
	}
	si.TrackingPrefixes = s.cores[0].shard.TrackedPrefixes()
	s.conf.View(func(conf *settings.Config) { si.Percentiles = conf.LatencyPercentiles })
	return si
}

// figures reads what core c published last.
func (c *Core) figures(parts servercmd.Parts) servercmd.Figures {
	// The base first: the counters only grow, so whatever the core
	// publishes or takes as its base meanwhile, they are not below it.
	c.srv.mu.Lock()
	f := servercmd.Figures{Base: c.base}
	c.srv.mu.Unlock()
	if !parts.Cmds {
		f.Base.Cmds = nil
	}
	f.Counts = c.published(parts)
	p := &c.pub
	load := func(a []atomic.Int64) []int64 {
		v := make([]int64, len(a))
		for i := range a {
			v[i] = a[i].Load()
		}
		return v
	}
	f.Keys, f.Expires, f.MeanExpire = load(p.keys), load(p.expires), load(p.meanExpire)
	f.ArenaBytes, f.OffHeapBytes = p.arenaBytes.Load(), p.offHeapBytes.Load()
	f.InstOps, f.InstNetIn, f.InstNetOut = p.instOps.Load(), p.instNetIn.Load(), p.instNetOut.Load()
	f.Connected = p.connected.Load()
	f.StalePerc = math.Float64frombits(p.stalePerc.Load())
	f.LongestTurnNs, f.LongestTurnStatGen = p.longestTurnNs.Load(), p.statGen.Load()
	return f
}

// allFigures reads what every core published last.
func (s *Server) allFigures(parts servercmd.Parts) []servercmd.Figures {
	figs := make([]servercmd.Figures, len(s.cores))
	for i, c := range s.cores {
		figs[i] = c.figures(parts)
	}
	return figs
}

// published reads core c's counters as it last published them, with the
// per-command ones parts names.
func (c *Core) published(parts servercmd.Parts) servercmd.Totals {
	p := &c.pub
	var t servercmd.Totals
	for i := range t.N {
		t.N[i] = p.counters[i].Load()
	}
	for i := range t.Hops {
		t.Hops[i] = p.hops[i].Load()
	}
	t.Cmds, t.Errs = c.publishedCmds(parts)
	return t
}

// rebase makes the counters core c has published the zero its later
// figures count from.
func (c *Core) rebase() {
	b := c.published(servercmd.AllParts)
	c.srv.mu.Lock()
	c.base = b
	c.srv.mu.Unlock()
}

// resetStats is CONFIG RESETSTAT inside a transaction, which cannot wait
// for the other cores: it counts from what they published last.
func (s *Server) resetStats() {
	for _, c := range s.cores {
		c.rebase()
	}
	s.statGen.Add(1)
}

// The statistics commands INFO and CONFIG RESETSTAT send to every shard.
var (
	cmdInfoAll     = router.LookupString("corekv.info")
	cmdResetAll    = router.LookupString("corekv.resetstat")
	cmdDigest      = router.LookupString("corekv.digest")
	cmdDebugObject = router.LookupString("corekv.debugobject")
	resetAllArgv   = [][]byte{[]byte("corekv.resetstat")}
)

// Gather sends r's parts to every shard for cn (corekv.info <request>)
// (servercmd.Core).
func (c *Core) Gather(scn servercmd.Conn, r *servercmd.Request) {
	cn := scn.(*Conn)
	s := c.srv
	r.Prepare(len(s.cores))
	s.mu.Lock()
	s.infoSeq++
	id := s.infoSeq
	s.infoReqs[id] = r
	s.mu.Unlock()
	parts := [][]byte{cmdInfoAll.NameBytes(), strconv.AppendUint(nil, id, 10)}
	c.allShards(cn, cmdInfoAll, parts)
}

// allShards sends cmd, a CombineHome command, to every shard for cn; the
// reply comes from HomeReply once every shard has run it.
func (c *Core) allShards(cn *Conn, cmd *router.Command, argv [][]byte) {
	slot := cn.reserve()
	slot.SetSeq(cn.nextTxnSeq())
	router.StartSplit(c, slot, cmd, cn.db, cn.proto, argv)
	c.markDirty(cn)
}

// SnapshotStats is INFO's part on this core's shard
// (shardowner.StatsPublisher): it keeps this core's figures of now for the
// INFO request named id.
func (c *Core) SnapshotStats(id []byte) {
	c.publishStats()
	n, _ := strconv.ParseUint(string(id), 10, 64)
	s := c.srv
	s.mu.Lock()
	r := s.infoReqs[n]
	s.mu.Unlock()
	if r == nil {
		return
	}
	// Only this core writes its entry, and the client's core reads it
	// once every part is back.
	r.Take(c.id, c.figures(r.Parts()))
}

// ResetStats is CONFIG RESETSTAT's part on this core's shard
// (shardowner.StatsPublisher): what the core counted so far becomes the zero
// its later figures count from.
func (c *Core) ResetStats() {
	c.publishStats()
	c.rebase()
}

// HomeReply appends the reply of INFO or CONFIG RESETSTAT once every shard
// has run its part (router.Exec).
func (c *Core) HomeReply(dst []byte, cmd *router.Command, proto int, argv [][]byte) []byte {
	w := resp.Writer{B: dst, Proto: proto}
	switch cmd {
	case cmdInfoAll:
		n, _ := strconv.ParseUint(string(argv[1]), 10, 64)
		s := c.srv
		s.mu.Lock()
		r := s.infoReqs[n]
		delete(s.infoReqs, n)
		s.mu.Unlock()
		si := c.Server()
		r.Write(&w, &si)
	case cmdSnapshot:
		cutReply(&w, argv)
	case cmdLoad:
		c.log.Warn("DB reloaded by DEBUG RELOAD")
		w.OK()
	case cmdTrackBCast:
		w.OK()
	case cmdResetAll:
		// The cores reset their longest turns when they see the new
		// generation.
		c.srv.statGen.Add(1)
		w.OK()
	}
	return w.B
}
