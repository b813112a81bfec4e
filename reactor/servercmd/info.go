package servercmd

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// Totals are the counters INFO reports, of one core or summed over all.
type Totals struct {
	N    [CounterCount]uint64
	Errs map[string]uint64 // by error code
	Hops HopStats
	Cmds []shardowner.CmdStats
}

// Counter names one of the counters every core publishes and INFO sums.
type Counter int

const (
	CntCommands     Counter = iota // total_commands_processed
	CntNetIn                       // total_net_input_bytes
	CntNetOut                      // total_net_output_bytes
	CntExpired                     // expired_keys
	CntExpireNs                    // expire_cycle_cpu_milliseconds, in ns
	CntExpireCapped                // expired_time_cap_reached_count
	CntConns                       // total_connections_received
	CntRejected                    // rejected_connections
	CntHits                        // keyspace_hits
	CntMisses                      // keyspace_misses
	CntSlowTurns                   // slow_loop_turns
	CntErrorReplies                // total_error_replies
	CntDirty                       // changes made, for rdb_changes_since_last_save
	CntEvicted                     // evicted_keys
	CounterCount
)

// Request is one INFO waiting for the cores' figures: the sections it
// shows and an entry per core, which that core's part fills.
type Request struct {
	want map[string]bool
	figs []Figures
	// histogram marks a LATENCY HISTOGRAM of the commands named (all when
	// none is), answered from the same figures.
	histogram bool
	names     []string
}

// Figures are what one core published, read at one instant: its
// counters (Counts) with what they were at the last CONFIG RESETSTAT (Base),
// and its gauges.
type Figures struct {
	Counts, Base                      Totals
	Keys, Expires, MeanExpire         []int64 // per database
	ArenaBytes, OffHeapBytes          uint64
	InstOps, InstNetIn, InstNetOut    uint64 // per second
	Connected                         int64
	StalePerc                         float64
	LongestTurnNs, LongestTurnStatGen uint64
}

// Parts says which per-command figures a reading copies: with their
// histograms they are the bulk of it, and most INFOs show none of them.
type Parts struct{ Cmds, Lat bool }

// AllParts reads every figure.
var AllParts = Parts{Cmds: true, Lat: true}

// PartsFor returns the parts the INFO sections in want show.
func PartsFor(want map[string]bool) Parts {
	return Parts{Cmds: want["commandstats"] || want["latencystats"], Lat: want["latencystats"]}
}

// totals sums the cores' counters since the last CONFIG RESETSTAT.
func totals(figs []Figures) Totals {
	t := Totals{Cmds: make([]shardowner.CmdStats, len(router.StatNames())), Errs: map[string]uint64{}}
	for i := range figs {
		t.add(&figs[i].Counts, false)
		t.add(&figs[i].Base, true)
	}
	return t
}

// add adds o's counters to t, or takes them away when neg is set.
func (t *Totals) add(o *Totals, neg bool) {
	d := func(v uint64) uint64 {
		if neg {
			return -v
		}
		return v
	}
	for i := range t.N {
		t.N[i] += d(o.N[i])
	}
	for code, n := range o.Errs {
		t.Errs[code] += d(n)
	}
	for i := range t.Hops {
		t.Hops[i] += d(o.Hops[i])
	}
	for i := range o.Cmds {
		if neg {
			t.Cmds[i].Sub(&o.Cmds[i])
		} else {
			t.Cmds[i].Add(&o.Cmds[i])
		}
	}
}

// HopStats count where the time of commands that travel between shards
// goes: batches and commands sent over the rings and executed for peers, the
// eventfd wake-ups they cost, and how the cores waited for work. hopNames
// names them in INFO: with a corekv_ prefix in the stats section, without it
// per shard.
type HopStats [HopCount]uint64

const (
	HopBatchesSent = iota
	HopCommandsSent
	HopBatchesReceived
	HopCommandsReceived
	HopWakeupsSent
	HopWakeupsReceived
	HopSleeps
	HopSpinPolls
	HopSpinPauses
	HopCount
)

var hopNames = [HopCount]string{"ring_batches_sent", "ring_commands_sent", "ring_batches_received",
	"ring_commands_received", "wakeups_sent", "wakeups_received", "sleeps", "spin_polls", "spin_pauses"}

// longestTurnUs is a core's longest loop turn, in microseconds, since the
// last CONFIG RESETSTAT: 0 until the core has seen the reset.
func longestTurnUs(s *ServerInfo, f *Figures) uint64 {
	if f.LongestTurnStatGen != s.StatGen {
		return 0
	}
	return f.LongestTurnNs / 1000
}

var infoDefault = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "errorstats", "keyspace", "corekv"}

// Info answers INFO with what every core published when INFO's part
// reached it: the part travels to each shard in order behind the client's
// earlier commands and takes the core's figures there (Request.Take), so
// INFO counts every command the client sent before it and none after.
// Inside EXEC, which cannot wait, the figures of the other cores are as of
// their last timer tick.
func Info(c Core, cn Conn, argv [][]byte) {
	want := infoSections(argv[1:])
	if cn.InExec() {
		si := c.Server()
		w := cn.Begin()
		w.Verbatim("txt", []byte(infoText(&si, want, c.Figures(PartsFor(want)))))
		cn.End()
		return
	}
	c.Gather(cn, &Request{want: want})
}

// Prepare readies r for the figures of cores cores.
func (r *Request) Prepare(cores int) { r.figs = make([]Figures, cores) }

// Parts are the figures r needs of each core.
func (r *Request) Parts() Parts { return PartsFor(r.want) }

// Take keeps core's figures; only that core calls it, before the reply is
// written.
func (r *Request) Take(core int, f Figures) { r.figs[core] = f }

// Write appends r's reply once every core's figures are in.
func (r *Request) Write(w *resp.Writer, s *ServerInfo) {
	if r.histogram {
		writeLatencyHistogram(w, totals(r.figs).Cmds, r.names)
		return
	}
	w.Verbatim("txt", []byte(infoText(s, r.want, r.figs)))
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
func infoText(s *ServerInfo, want map[string]bool, figs []Figures) string {
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
	uptime := time.Since(s.Start)
	if section("server") {
		kv("redis_version", settings.RedisVersion)
		kv("corekv_version", s.Version)
		kv("redis_mode", "standalone")
		kv("os", runtime.GOOS+" "+runtime.GOARCH)
		kv("arch_bits", 64)
		kv("multiplexing_api", "epoll")
		kv("go_version", runtime.Version())
		kv("process_id", os.Getpid())
		kv("tcp_port", s.Port)
		kv("server_time_usec", time.Now().UnixMicro())
		kv("uptime_in_seconds", int64(uptime.Seconds()))
		kv("uptime_in_days", int64(uptime.Hours()/24))
		kv("hz", s.Hz)
		kv("configured_hz", s.Hz)
		kv("shards", s.Shards)
		kv("executable", os.Args[0])
	}
	if section("clients") {
		kv("connected_clients", s.Clients)
		kv("maxclients", s.MaxClients)
		kv("blocked_clients", s.Blocked)
		kv("tracking_clients", s.TrackingClients)
	}
	if section("memory") {
		rss := readRSS()
		m := &s.Memory
		used := uint64(m.Used)
		peak := s.MemoryPeak.Load()
		for used > peak && !s.MemoryPeak.CompareAndSwap(peak, used) {
			peak = s.MemoryPeak.Load()
		}
		peak = max(peak, used)
		var offHeap uint64
		for i := range figs {
			offHeap += figs[i].OffHeapBytes
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		kv("used_memory", used)
		kv("used_memory_human", humanBytes(used))
		kv("used_memory_rss", rss)
		kv("used_memory_rss_human", humanBytes(rss))
		kv("used_memory_peak", peak)
		kv("used_memory_peak_human", humanBytes(peak))
		kv("used_memory_peak_perc", percent(used, peak))
		kv("used_memory_overhead", m.Startup+m.Clients)
		kv("used_memory_startup", m.Startup)
		kv("used_memory_dataset", m.Tables)
		kv("used_memory_dataset_perc", percent(uint64(m.Tables), used))
		kv("used_memory_go_heap", ms.HeapInuse)
		kv("used_memory_off_heap", offHeap)
		kv("total_system_memory", totalMemory())
		kv("total_system_memory_human", humanBytes(totalMemory()))
		// The interpreters' own memory (used_memory_lua, used_memory_vm_*)
		// is not measured: Go keeps no account of it.
		scripts, scriptBytes, _ := router.Scripts.Stats()
		kv("used_memory_scripts_eval", scriptBytes)
		kv("number_of_cached_scripts", scripts)
		kv("number_of_functions", s.Functions)
		kv("number_of_libraries", s.Libraries)
		kv("used_memory_functions", s.FunctionBytes)
		kv("used_memory_scripts", scriptBytes+s.FunctionBytes)
		kv("used_memory_scripts_human", humanBytes(uint64(scriptBytes+s.FunctionBytes)))
		kv("maxmemory", m.MaxMemory)
		kv("maxmemory_human", humanBytes(uint64(m.MaxMemory)))
		kv("maxmemory_policy", m.Policy)
		ratio := 0.0
		if used > 0 {
			ratio = float64(rss) / float64(used)
		}
		kv("mem_fragmentation_ratio", strconv.FormatFloat(ratio, 'f', 2, 64))
		kv("mem_fragmentation_bytes", int64(rss)-int64(used))
		// The append-only file's and the journal's buffers are not
		// counted in used_memory at all.
		kv("mem_not_counted_for_evict", 0)
		kv("mem_clients_normal", m.Clients)
		kv("mem_allocator", "go")
		// A value is freed at once (no lazy free thread): none pends.
		kv("lazyfree_pending_objects", 0)
		kv("lazyfreed_objects", 0)
		kv("gc_cycles", ms.NumGC)
	}
	if section("persistence") {
		// A snapshot takes no fork: no copy-on-write.
		p := &s.Persist
		kv("loading", b2i(p.Loading))
		kv("async_loading", 0)
		kv("current_cow_peak", 0)
		kv("current_cow_size", 0)
		kv("current_cow_size_age", 0)
		kv("current_fork_perc", "0.00")
		kv("current_save_keys_processed", 0)
		kv("current_save_keys_total", 0)
		kv("rdb_changes_since_last_save", t.N[CntDirty]-p.DirtyAtSave)
		kv("rdb_bgsave_in_progress", b2i(p.InProgress))
		kv("rdb_last_save_time", p.LastSave.Unix())
		kv("rdb_last_bgsave_status", okErr(p.LastOK))
		kv("rdb_last_bgsave_time_sec", p.LastSecs)
		kv("rdb_current_bgsave_time_sec", p.CurrentSecs)
		kv("rdb_saves", p.Saves)
		kv("rdb_last_cow_size", 0)
		kv("rdb_last_load_keys_expired", p.LoadExpired)
		kv("rdb_last_load_keys_loaded", p.LoadLoaded)
		if p.Loading {
			// Redis's progress fields, as it shows them while loading.
			secs := time.Since(p.LoadingSince).Seconds()
			perc := 0.0
			if p.LoadingTotal > 0 {
				perc = float64(p.LoadingAt) * 100 / float64(p.LoadingTotal)
			}
			eta := 1
			if p.LoadingAt > 0 {
				eta = int(secs * float64(p.LoadingTotal-p.LoadingAt) / float64(p.LoadingAt))
			}
			kv("loading_start_time", p.LoadingSince.Unix())
			kv("loading_total_bytes", p.LoadingTotal)
			kv("loading_rdb_used_mem", 0)
			kv("loading_loaded_bytes", p.LoadingAt)
			kv("loading_loaded_perc", fmt.Sprintf("%.2f", perc))
			kv("loading_eta_seconds", eta)
		}
		a := &s.AOF
		kv("aof_enabled", b2i(a.Enabled))
		kv("aof_rewrite_in_progress", b2i(a.RewriteInProgress))
		kv("aof_rewrite_scheduled", b2i(a.RewriteScheduled))
		kv("aof_last_rewrite_time_sec", a.LastRewriteSecs)
		kv("aof_current_rewrite_time_sec", a.CurrentRewriteSecs)
		kv("aof_last_bgrewrite_status", okErr(a.LastRewriteOK))
		kv("aof_rewrites", a.Rewrites)
		kv("aof_rewrites_consecutive_failures", a.ConsecutiveFails)
		kv("aof_last_write_status", okErr(a.LastWriteOK))
		kv("aof_last_cow_size", 0)
		kv("module_fork_in_progress", 0)
		kv("module_fork_last_cow_size", 0)
		if a.Enabled {
			kv("aof_current_size", a.CurrentSize)
			kv("aof_base_size", a.BaseSize)
			kv("aof_pending_rewrite", b2i(a.RewriteScheduled))
			kv("aof_buffer_length", 0)
			kv("aof_pending_bio_fsync", a.PendingFsync)
			kv("aof_delayed_fsync", a.DelayedFsync)
		}
	}
	if section("stats") {
		kv("total_connections_received", t.N[CntConns])
		kv("total_commands_processed", t.N[CntCommands])
		var ops, in, out uint64
		for i := range figs {
			ops, in, out = ops+figs[i].InstOps, in+figs[i].InstNetIn, out+figs[i].InstNetOut
		}
		kv("instantaneous_ops_per_sec", ops)
		kv("total_net_input_bytes", t.N[CntNetIn])
		kv("total_net_output_bytes", t.N[CntNetOut])
		kv("instantaneous_input_kbps", strconv.FormatFloat(float64(in)/1024, 'f', 2, 64))
		kv("instantaneous_output_kbps", strconv.FormatFloat(float64(out)/1024, 'f', 2, 64))
		kv("rejected_connections", t.N[CntRejected])
		kv("expired_keys", t.N[CntExpired])
		kv("expired_stale_perc", strconv.FormatFloat(stalePerc(figs), 'f', 2, 64))
		kv("expired_time_cap_reached_count", t.N[CntExpireCapped])
		kv("expire_cycle_cpu_milliseconds", t.N[CntExpireNs]/1e6)
		kv("evicted_keys", t.N[CntEvicted])
		kv("evicted_clients", 0)
		_, _, evictedScripts := router.Scripts.Stats()
		kv("evicted_scripts", evictedScripts) // Redis 7.4's
		kv("keyspace_hits", t.N[CntHits])
		kv("keyspace_misses", t.N[CntMisses])
		channels, patterns, shardChannels := s.Channels, s.Patterns, s.SShards
		kv("pubsub_channels", channels)
		kv("pubsub_patterns", patterns)
		kv("pubsubshard_channels", shardChannels)
		kv("tracking_total_keys", s.TrackingKeys)
		kv("tracking_total_items", s.TrackingItems)
		kv("tracking_total_prefixes", s.TrackingPrefixes)
		kv("unexpected_error_replies", 0)
		kv("total_error_replies", t.N[CntErrorReplies])
		var longest uint64
		for i := range figs {
			longest = max(longest, longestTurnUs(s, &figs[i]))
		}
		// Not in Redis: loop turns of a shard that ran 1 ms or longer, and
		// the longest, so that stalls show without a profiler.
		kv("slow_loop_turns", t.N[CntSlowTurns])
		kv("longest_loop_turn_usec", longest)
		// Not in Redis either: what commands for other shards cost (see
		// HopStats).
		for i, v := range t.Hops {
			kv("corekv_"+hopNames[i], v)
		}
	}
	if section("replication") {
		// A master without replicas, as Redis reports itself before any
		// replica connects.
		kv("role", "master")
		kv("connected_slaves", 0)
		kv("master_failover_state", "no-failover")
		kv("master_replid", s.ReplID)
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
		writeCommandStats(&b, t.Cmds)
	}
	if section("errorstats") {
		writeErrorStats(&b, t.Errs)
	}
	if section("latencystats") {
		writeLatencyStats(&b, t.Cmds, s.Percentiles)
	}
	if section("keyspace") {
		now := time.Now().UnixMilli()
		for db := 0; db < s.Databases; db++ {
			var keys, expires int64
			ttlSum := 0.0 // over the shards' keys with a TTL, in ms
			for i := range figs {
				f := &figs[i]
				keys += f.Keys[db]
				n := f.Expires[db]
				expires += n
				if n > 0 {
					ttlSum += float64(n) * float64(max(f.MeanExpire[db]-now, 0))
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
		for i := range figs {
			f := &figs[i]
			var keys int64
			for _, n := range f.Keys {
				keys += n
			}
			fmt.Fprintf(&b, "shard%d:cpu=%d,keys=%d,arena_bytes=%d,off_heap_bytes=%d,ops=%d,connected_clients=%d,",
				i, s.CoreCPUs[i], keys, f.ArenaBytes, f.OffHeapBytes, f.Counts.N[CntCommands], f.Connected)
			for i, v := range f.Counts.Hops {
				fmt.Fprintf(&b, "%s=%d,", hopNames[i], v)
			}
			fmt.Fprintf(&b, "slow_loop_turns=%d,longest_loop_turn_usec=%d\r\n", f.Counts.N[CntSlowTurns], longestTurnUs(s, f))
		}
	}
	return b.String()
}

// stalePerc is expired_stale_perc: the shards' moving averages of the share
// of keys with a TTL that had expired and were not deleted yet, weighted by
// their keys with a TTL.
func stalePerc(figs []Figures) float64 {
	var sum, n float64
	for i := range figs {
		var e int64
		for _, x := range figs[i].Expires {
			e += x
		}
		sum += float64(e) * figs[i].StalePerc
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

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

// percent is part of whole as Redis shows it, "99.48%".
func percent(part, whole uint64) string {
	if whole == 0 {
		return "0.00%"
	}
	return strconv.FormatFloat(float64(part)*100/float64(whole), 'f', 2, 64) + "%"
}
