package reactor

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// statTotals are the server-wide counters INFO reports, summed over cores.
type statTotals struct {
	n    [counterCount]uint64
	errs map[string]uint64 // by error code
	hops hopStats
	cmds []shardowner.CmdStats
}

// counter names one of the counters every core publishes and INFO sums.
type counter int

const (
	cntCommands     counter = iota // total_commands_processed
	cntNetIn                       // total_net_input_bytes
	cntNetOut                      // total_net_output_bytes
	cntExpired                     // expired_keys
	cntExpireNs                    // expire_cycle_cpu_milliseconds, in ns
	cntExpireCapped                // expired_time_cap_reached_count
	cntConns                       // total_connections_received
	cntRejected                    // rejected_connections
	cntHits                        // keyspace_hits
	cntMisses                      // keyspace_misses
	cntSlowTurns                   // slow_loop_turns
	cntErrorReplies                // total_error_replies
	counterCount
)

// infoRequest is one INFO waiting for the cores' figures: the sections it
// shows and an entry per core, which that core's part fills.
type infoRequest struct {
	want map[string]bool
	figs []coreFigures
	// histogram marks a LATENCY HISTOGRAM of the commands named (all when
	// none is), answered from the same figures.
	histogram bool
	names     []string
}

// coreFigures are what one core published, read at one instant: its
// counters (counts) with what they were at the last CONFIG RESETSTAT (base),
// and its gauges.
type coreFigures struct {
	counts, base                      statTotals
	keys, expires, meanExpire         []int64 // per database
	arenaBytes, offHeapBytes          uint64
	instOps, instNetIn, instNetOut    uint64 // per second
	connected                         int64
	stalePerc                         float64
	longestTurnNs, longestTurnStatGen uint64
}

// figureParts says which per-command figures a reading copies: with their
// histograms they are the bulk of it, and most INFOs show none of them.
type figureParts struct{ cmds, lat bool }

var allParts = figureParts{cmds: true, lat: true}

// partsFor returns the parts the INFO sections in want show.
func partsFor(want map[string]bool) figureParts {
	return figureParts{cmds: want["commandstats"] || want["latencystats"], lat: want["latencystats"]}
}

// figures reads what core c published last.
func (c *Core) figures(parts figureParts) coreFigures {
	// The base first: the counters only grow, so whatever the core
	// publishes or takes as its base meanwhile, they are not below it.
	c.srv.mu.Lock()
	f := coreFigures{base: c.base}
	c.srv.mu.Unlock()
	if !parts.cmds {
		f.base.cmds = nil
	}
	f.counts = c.published(parts)
	p := &c.pub
	load := func(a []atomic.Int64) []int64 {
		v := make([]int64, len(a))
		for i := range a {
			v[i] = a[i].Load()
		}
		return v
	}
	f.keys, f.expires, f.meanExpire = load(p.keys), load(p.expires), load(p.meanExpire)
	f.arenaBytes, f.offHeapBytes = p.arenaBytes.Load(), p.offHeapBytes.Load()
	f.instOps, f.instNetIn, f.instNetOut = p.instOps.Load(), p.instNetIn.Load(), p.instNetOut.Load()
	f.connected = p.connected.Load()
	f.stalePerc = math.Float64frombits(p.stalePerc.Load())
	f.longestTurnNs, f.longestTurnStatGen = p.longestTurnNs.Load(), p.statGen.Load()
	return f
}

// allFigures reads what every core published last.
func (s *Server) allFigures(parts figureParts) []coreFigures {
	figs := make([]coreFigures, len(s.cores))
	for i, c := range s.cores {
		figs[i] = c.figures(parts)
	}
	return figs
}

// totals sums the cores' counters since the last CONFIG RESETSTAT.
func totals(figs []coreFigures) statTotals {
	t := statTotals{cmds: make([]shardowner.CmdStats, len(router.StatNames())), errs: map[string]uint64{}}
	for i := range figs {
		t.add(&figs[i].counts, false)
		t.add(&figs[i].base, true)
	}
	return t
}

// add adds o's counters to t, or takes them away when neg is set.
func (t *statTotals) add(o *statTotals, neg bool) {
	d := func(v uint64) uint64 {
		if neg {
			return -v
		}
		return v
	}
	for i := range t.n {
		t.n[i] += d(o.n[i])
	}
	for code, n := range o.errs {
		t.errs[code] += d(n)
	}
	for i := range t.hops {
		t.hops[i] += d(o.hops[i])
	}
	for i := range o.cmds {
		if neg {
			t.cmds[i].Sub(&o.cmds[i])
		} else {
			t.cmds[i].Add(&o.cmds[i])
		}
	}
}

// published reads core c's counters as it last published them, with the
// per-command ones parts names.
func (c *Core) published(parts figureParts) statTotals {
	p := &c.pub
	var t statTotals
	for i := range t.n {
		t.n[i] = p.counters[i].Load()
	}
	for i := range t.hops {
		t.hops[i] = p.hops[i].Load()
	}
	t.cmds, t.errs = c.publishedCmds(parts)
	return t
}

// hopStats count where the time of commands that travel between shards
// goes: batches and commands sent over the rings and executed for peers, the
// eventfd wake-ups they cost, and how the cores waited for work. hopNames
// names them in INFO: with a corekv_ prefix in the stats section, without it
// per shard.
type hopStats [hopCount]uint64

const (
	hopBatchesSent = iota
	hopCommandsSent
	hopBatchesReceived
	hopCommandsReceived
	hopWakeupsSent
	hopWakeupsReceived
	hopSleeps
	hopSpinPolls
	hopSpinPauses
	hopCount
)

var hopNames = [hopCount]string{"ring_batches_sent", "ring_commands_sent", "ring_batches_received",
	"ring_commands_received", "wakeups_sent", "wakeups_received", "sleeps", "spin_polls", "spin_pauses"}

// rebase makes the counters core c has published the zero its later
// figures count from.
func (c *Core) rebase() {
	b := c.published(allParts)
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

// longestTurnUs is a core's longest loop turn, in microseconds, since the
// last CONFIG RESETSTAT: 0 until the core has seen the reset.
func (s *Server) longestTurnUs(f *coreFigures) uint64 {
	if f.longestTurnStatGen != s.statGen.Load() {
		return 0
	}
	return f.longestTurnNs / 1000
}

var infoDefault = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "errorstats", "keyspace", "corekv"}

// The statistics commands INFO and CONFIG RESETSTAT send to every shard.
var (
	cmdInfoAll   = router.LookupString("corekv.info")
	cmdResetAll  = router.LookupString("corekv.resetstat")
	resetAllArgv = [][]byte{[]byte("corekv.resetstat")}
)

// info answers INFO with what every core published when INFO's part
// reached it: the part travels to each shard in order behind the client's
// earlier commands and takes the core's figures there (SnapshotStats), so
// INFO counts every command the client sent before it and none after.
// Inside EXEC, which cannot wait, the figures of the other cores are as of
// their last timer tick.
func (c *Core) info(cn *Conn, argv [][]byte) {
	if cn.capture {
		c.publishStats()
		w := cn.begin()
		want := infoSections(argv[1:])
		w.Verbatim("txt", []byte(c.srv.infoText(want, c.srv.allFigures(partsFor(want)))))
		cn.end()
		return
	}
	c.infoRequest(cn, &infoRequest{want: infoSections(argv[1:])})
}

// infoRequest sends r's parts to every shard for cn (corekv.info <request>).
func (c *Core) infoRequest(cn *Conn, r *infoRequest) {
	s := c.srv
	r.figs = make([]coreFigures, len(s.cores))
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
	r.figs[c.id] = c.figures(partsFor(r.want))
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
		if r.histogram {
			writeLatencyHistogram(&w, totals(r.figs).cmds, r.names)
			break
		}
		w.Verbatim("txt", []byte(s.infoText(r.want, r.figs)))
	case cmdResetAll:
		// The cores reset their longest turns when they see the new
		// generation.
		c.srv.statGen.Add(1)
		w.OK()
	}
	return w.B
}

// infoSections returns the sections INFO's arguments ask for.
func infoSections(args [][]byte) map[string]bool {
	want := map[string]bool{}
	if len(args) == 0 {
		for _, s := range infoDefault {
			want[s] = true
		}
	}
	for _, a := range args {
		s := strings.ToLower(string(a))
		switch s {
		case "all", "everything":
			for _, d := range infoDefault {
				want[d] = true
			}
			want["commandstats"] = true
			want["latencystats"] = true
		case "default":
			for _, d := range infoDefault {
				want[d] = true
			}
		default:
			want[s] = true
		}
	}
	return want
}

// infoText builds the INFO reply for the wanted sections, in Redis's order,
// from the cores' figures.
func (s *Server) infoText(want map[string]bool, figs []coreFigures) string {
	var b strings.Builder
	section := func(name string) bool {
		if !want[name] {
			return false
		}
		if b.Len() > 0 {
			b.WriteString("\r\n")
		}
		title := strings.ToUpper(name[:1]) + name[1:]
		if name == "cpu" {
			title = "CPU"
		}
		b.WriteString("# " + title + "\r\n")
		return true
	}
	kv := func(k string, v any) { fmt.Fprintf(&b, "%s:%v\r\n", k, v) }
	t := totals(figs)
	uptime := time.Since(s.start)
	if section("server") {
		kv("redis_version", RedisVersion)
		kv("corekv_version", Version)
		kv("redis_mode", "standalone")
		kv("os", runtime.GOOS+" "+runtime.GOARCH)
		kv("arch_bits", 64)
		kv("multiplexing_api", "epoll")
		kv("go_version", runtime.Version())
		kv("process_id", os.Getpid())
		kv("tcp_port", s.port)
		kv("server_time_usec", time.Now().UnixMicro())
		kv("uptime_in_seconds", int64(uptime.Seconds()))
		kv("uptime_in_days", int64(uptime.Hours()/24))
		kv("hz", s.hz.Load())
		kv("configured_hz", s.hz.Load())
		kv("shards", s.cfg.Shards)
		kv("executable", os.Args[0])
	}
	if section("clients") {
		kv("connected_clients", s.clients.Load())
		kv("maxclients", s.maxClients.Load())
		kv("blocked_clients", s.blocked.Load())
	}
	if section("memory") {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		rss := readRSS()
		var dataset, offHeap uint64
		for i := range figs {
			dataset += figs[i].arenaBytes
			offHeap += figs[i].offHeapBytes
		}
		// Most of the keyspace lives in blocks the shards map themselves,
		// outside the Go heap; used_memory counts both.
		used := ms.HeapInuse + ms.StackInuse + offHeap
		peak := s.memoryPeak.Load()
		for used > peak && !s.memoryPeak.CompareAndSwap(peak, used) {
			peak = s.memoryPeak.Load()
		}
		kv("used_memory", used)
		kv("used_memory_human", humanBytes(used))
		kv("used_memory_rss", rss)
		kv("used_memory_rss_human", humanBytes(rss))
		kv("used_memory_peak", max(peak, used))
		kv("used_memory_peak_human", humanBytes(max(peak, used)))
		kv("used_memory_dataset", dataset)
		kv("used_memory_go_heap", ms.HeapInuse)
		kv("used_memory_off_heap", offHeap)
		kv("total_system_memory", totalMemory())
		kv("maxmemory", 0)
		kv("maxmemory_policy", "noeviction")
		ratio := 0.0
		if used > 0 {
			ratio = float64(rss) / float64(used)
		}
		kv("mem_fragmentation_ratio", strconv.FormatFloat(ratio, 'f', 2, 64))
		kv("mem_allocator", "go")
		kv("gc_cycles", ms.NumGC)
	}
	if section("persistence") {
		// corekv keeps nothing on disk: never loading, saving or writing an
		// AOF. It does not count changes since a save, so it has no
		// rdb_changes_since_last_save.
		kv("loading", 0)
		kv("async_loading", 0)
		kv("rdb_bgsave_in_progress", 0)
		kv("rdb_last_save_time", s.start.Unix())
		kv("rdb_last_bgsave_status", "ok")
		kv("rdb_saves", 0)
		kv("aof_enabled", 0)
		kv("aof_rewrite_in_progress", 0)
		kv("aof_rewrite_scheduled", 0)
		kv("aof_last_bgrewrite_status", "ok")
		kv("aof_last_write_status", "ok")
	}
	if section("stats") {
		kv("total_connections_received", t.n[cntConns])
		kv("total_commands_processed", t.n[cntCommands])
		var ops, in, out uint64
		for i := range figs {
			ops, in, out = ops+figs[i].instOps, in+figs[i].instNetIn, out+figs[i].instNetOut
		}
		kv("instantaneous_ops_per_sec", ops)
		kv("total_net_input_bytes", t.n[cntNetIn])
		kv("total_net_output_bytes", t.n[cntNetOut])
		kv("instantaneous_input_kbps", strconv.FormatFloat(float64(in)/1024, 'f', 2, 64))
		kv("instantaneous_output_kbps", strconv.FormatFloat(float64(out)/1024, 'f', 2, 64))
		kv("rejected_connections", t.n[cntRejected])
		kv("expired_keys", t.n[cntExpired])
		kv("expired_stale_perc", strconv.FormatFloat(stalePerc(figs), 'f', 2, 64))
		kv("expired_time_cap_reached_count", t.n[cntExpireCapped])
		kv("expire_cycle_cpu_milliseconds", t.n[cntExpireNs]/1e6)
		kv("evicted_keys", 0)
		kv("keyspace_hits", t.n[cntHits])
		kv("keyspace_misses", t.n[cntMisses])
		channels, patterns, shardChannels := s.ps.sizes()
		kv("pubsub_channels", channels)
		kv("pubsub_patterns", patterns)
		kv("pubsubshard_channels", shardChannels)
		kv("unexpected_error_replies", 0)
		kv("total_error_replies", t.n[cntErrorReplies])
		var longest uint64
		for i := range figs {
			longest = max(longest, s.longestTurnUs(&figs[i]))
		}
		// Not in Redis: loop turns of a shard that ran 1 ms or longer, and
		// the longest, so that stalls show without a profiler.
		kv("slow_loop_turns", t.n[cntSlowTurns])
		kv("longest_loop_turn_usec", longest)
		// Not in Redis either: what commands for other shards cost (see
		// hopStats).
		for i, v := range t.hops {
			kv("corekv_"+hopNames[i], v)
		}
	}
	if section("replication") {
		// A master without replicas, as Redis reports itself before any
		// replica connects.
		kv("role", "master")
		kv("connected_slaves", 0)
		kv("master_failover_state", "no-failover")
		kv("master_replid", s.replID)
		kv("master_replid2", strings.Repeat("0", 40))
		kv("master_repl_offset", 0)
		kv("second_repl_offset", -1)
		kv("repl_backlog_active", 0)
		kv("repl_backlog_size", 1<<20)
		kv("repl_backlog_first_byte_offset", 0)
		kv("repl_backlog_histlen", 0)
	}
	if section("cpu") {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		kv("used_cpu_sys", fmt.Sprintf("%d.%06d", ru.Stime.Sec, ru.Stime.Usec))
		kv("used_cpu_user", fmt.Sprintf("%d.%06d", ru.Utime.Sec, ru.Utime.Usec))
	}
	if section("commandstats") {
		writeCommandStats(&b, t.cmds)
	}
	if section("errorstats") {
		writeErrorStats(&b, t.errs)
	}
	if section("latencystats") {
		s.mu.Lock()
		percentiles := s.conf.LatencyPercentiles
		s.mu.Unlock()
		writeLatencyStats(&b, t.cmds, percentiles)
	}
	if section("keyspace") {
		now := time.Now().UnixMilli()
		for db := 0; db < s.cfg.Databases; db++ {
			var keys, expires int64
			ttlSum := 0.0 // over the shards' keys with a TTL, in ms
			for i := range figs {
				f := &figs[i]
				keys += f.keys[db]
				n := f.expires[db]
				expires += n
				if n > 0 {
					ttlSum += float64(n) * float64(max(f.meanExpire[db]-now, 0))
				}
			}
			avgTTL := int64(0)
			if expires > 0 {
				avgTTL = int64(ttlSum / float64(expires))
			}
			if keys > 0 {
				fmt.Fprintf(&b, "db%d:keys=%d,expires=%d,avg_ttl=%d\r\n", db, keys, expires, avgTTL)
			}
		}
	}
	if section("corekv") {
		for i, c := range s.cores {
			f := &figs[i]
			var keys int64
			for _, n := range f.keys {
				keys += n
			}
			fmt.Fprintf(&b, "shard%d:cpu=%d,keys=%d,arena_bytes=%d,off_heap_bytes=%d,ops=%d,connected_clients=%d,",
				c.id, c.cpu, keys, f.arenaBytes, f.offHeapBytes, f.counts.n[cntCommands], f.connected)
			for i, v := range f.counts.hops {
				fmt.Fprintf(&b, "%s=%d,", hopNames[i], v)
			}
			fmt.Fprintf(&b, "slow_loop_turns=%d,longest_loop_turn_usec=%d\r\n", f.counts.n[cntSlowTurns], s.longestTurnUs(f))
		}
	}
	return b.String()
}

// stalePerc is expired_stale_perc: the shards' moving averages of the share
// of keys with a TTL that had expired and were not deleted yet, weighted by
// their keys with a TTL.
func stalePerc(figs []coreFigures) float64 {
	var sum, n float64
	for i := range figs {
		var e int64
		for _, x := range figs[i].expires {
			e += x
		}
		sum += float64(e) * figs[i].stalePerc
		n += float64(e)
	}
	if n == 0 {
		return 0
	}
	return sum / n
}

// readRSS returns the resident set size in bytes from /proc.
func readRSS() uint64 {
	data, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) < 2 {
		return 0
	}
	pages, _ := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize())
}

func totalMemory() uint64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return si.Totalram * uint64(si.Unit)
}

func humanBytes(n uint64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', 2, 64) + "G"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 2, 64) + "M"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 2, 64) + "K"
	}
	return strconv.FormatUint(n, 10) + "B"
}
