package reactor

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corekv/corekv/shardowner"
)

// statTotals are the server-wide counters INFO reports, summed over cores.
type statTotals struct {
	commands, netIn, netOut, expired, conns, rejected, hits, misses, slowTurns uint64
	expireNs, expireCapped                                                     uint64
	hops                                                                       hopStats
	cmds                                                                       []shardowner.CmdStats
}

func (s *Server) totals() statTotals {
	var t statTotals
	for _, c := range s.cores {
		p := &c.pub
		t.commands += p.commands.Load()
		t.netIn += p.netIn.Load()
		t.netOut += p.netOut.Load()
		t.expired += p.expired.Load()
		t.expireNs += p.expireNs.Load()
		t.expireCapped += p.expireCapped.Load()
		t.conns += p.conns.Load()
		t.rejected += p.rejected.Load()
		t.hits += p.hits.Load()
		t.misses += p.misses.Load()
		t.slowTurns += p.slowTurns.Load()
		for i := range t.hops {
			t.hops[i] += c.pub.hops[i].Load()
		}
	}
	s.mu.Lock()
	b := s.baseline
	s.mu.Unlock()
	t.commands -= b.commands
	t.netIn -= b.netIn
	t.netOut -= b.netOut
	t.expired -= b.expired
	t.expireNs -= b.expireNs
	t.expireCapped -= b.expireCapped
	t.conns -= b.conns
	t.rejected -= b.rejected
	t.hits -= b.hits
	t.misses -= b.misses
	t.slowTurns -= b.slowTurns
	for i := range t.hops {
		t.hops[i] -= b.hops[i]
	}
	t.cmds = s.cmdTotals(b.cmds)
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

// resetStats is CONFIG RESETSTAT: later INFO figures count from now.
func (s *Server) resetStats() {
	s.mu.Lock()
	s.baseline = statTotals{}
	s.mu.Unlock()
	t := s.totals()
	s.mu.Lock()
	s.baseline = t
	s.mu.Unlock()
	s.statGen.Add(1)
}

// longestTurnUs is core c's longest loop turn, in microseconds, since the
// last CONFIG RESETSTAT: 0 until the core has seen the reset.
func (s *Server) longestTurnUs(c *Core) uint64 {
	if c.pub.statGen.Load() != s.statGen.Load() {
		return 0
	}
	return c.pub.longestTurnNs.Load() / 1000
}

var infoDefault = []string{"server", "clients", "memory", "persistence", "stats", "replication", "cpu", "keyspace", "corekv"}

func (c *Core) info(cn *Conn, argv [][]byte) {
	want := map[string]bool{}
	if len(argv) == 1 {
		for _, s := range infoDefault {
			want[s] = true
		}
	}
	for _, a := range argv[1:] {
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
	// This core's figures are current, so that the connection's own earlier
	// commands show; other cores' are as of their last timer tick.
	c.publishStats()
	text := c.srv.infoText(want)
	w := cn.begin()
	w.Verbatim("txt", []byte(text))
	cn.end()
}

// infoText builds the INFO reply for the wanted sections, in Redis's order.
func (s *Server) infoText(want map[string]bool) string {
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
	t := s.totals()
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
		for _, c := range s.cores {
			dataset += c.pub.arenaBytes.Load()
			offHeap += c.pub.offHeapBytes.Load()
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
		kv("total_connections_received", t.conns)
		kv("total_commands_processed", t.commands)
		kv("instantaneous_ops_per_sec", 0)
		kv("total_net_input_bytes", t.netIn)
		kv("total_net_output_bytes", t.netOut)
		kv("rejected_connections", t.rejected)
		kv("expired_keys", t.expired)
		kv("expired_stale_perc", strconv.FormatFloat(s.stalePerc(), 'f', 2, 64))
		kv("expired_time_cap_reached_count", t.expireCapped)
		kv("expire_cycle_cpu_milliseconds", t.expireNs/1e6)
		kv("evicted_keys", 0)
		kv("keyspace_hits", t.hits)
		kv("keyspace_misses", t.misses)
		channels, patterns, shardChannels := s.ps.sizes()
		kv("pubsub_channels", channels)
		kv("pubsub_patterns", patterns)
		kv("pubsubshard_channels", shardChannels)
		var longest uint64
		for _, c := range s.cores {
			longest = max(longest, s.longestTurnUs(c))
		}
		// Not in Redis: loop turns of a shard that ran 1 ms or longer, and
		// the longest, so that stalls show without a profiler.
		kv("slow_loop_turns", t.slowTurns)
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
	if section("latencystats") {
		writeLatencyStats(&b, t.cmds)
	}
	if section("keyspace") {
		now := time.Now().UnixMilli()
		for db := 0; db < s.cfg.Databases; db++ {
			var keys, expires int64
			ttlSum := 0.0 // over the shards' keys with a TTL, in ms
			for _, c := range s.cores {
				keys += c.pub.keys[db].Load()
				n := c.pub.expires[db].Load()
				expires += n
				if n > 0 {
					ttlSum += float64(n) * float64(max(c.pub.meanExpire[db].Load()-now, 0))
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
		for _, c := range s.cores {
			var keys int64
			for db := range c.pub.keys {
				keys += c.pub.keys[db].Load()
			}
			fmt.Fprintf(&b, "shard%d:cpu=%d,keys=%d,arena_bytes=%d,off_heap_bytes=%d,ops=%d,connected_clients=%d,",
				c.id, c.cpu, keys, c.pub.arenaBytes.Load(), c.pub.offHeapBytes.Load(), c.pub.commands.Load(), c.pub.connected.Load())
			for i := range c.pub.hops {
				fmt.Fprintf(&b, "%s=%d,", hopNames[i], c.pub.hops[i].Load())
			}
			fmt.Fprintf(&b, "slow_loop_turns=%d,longest_loop_turn_usec=%d\r\n", c.pub.slowTurns.Load(), s.longestTurnUs(c))
		}
	}
	return b.String()
}

// stalePerc is expired_stale_perc: the shards' moving averages of the share
// of keys with a TTL that had expired and were not deleted yet, weighted by
// their keys with a TTL.
func (s *Server) stalePerc() float64 {
	var sum, n float64
	for _, c := range s.cores {
		var e int64
		for db := range c.pub.expires {
			e += c.pub.expires[db].Load()
		}
		sum += float64(e) * math.Float64frombits(c.pub.stalePerc.Load())
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
