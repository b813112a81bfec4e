package main

// The --gc mode: with N keys loaded, how long does one GC cycle of corekv mark, how large is the heap, and does
// the tail latency of GET move with N? redis-server runs beside it for the size and latency columns.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

const (
	gcValueSize = 16 // bytes per value loaded by the --gc mode
	gcPipeline  = 16 // -P of its GET runs
	gcGetRuns   = 3  // GET runs per server, key count and client count
	// The second set of GET runs is light: gcLightClients connections
	// without pipelining, gcLightShare of --gc-requests each. With --clients
	// (50) at -P 16, redis-benchmark and the server are both saturated, so a
	// request's latency is mostly its wait in queues, and those grow with the
	// cost of every request before it (a GET at 10M keys misses cache; at
	// 100k it does not). The light runs leave the server idle part of the
	// time, so their tail shows pauses (a GC cycle, a long loop turn, the
	// host) rather than queues.
	gcLightClients = 10
	gcLightShare   = 6
	gcForced       = 9 // full GC cycles forced after the load
)

// gcCycle is one line of the Go runtime's GODEBUG=gctrace=1 output:
//
//	gc 10 @6.280s 0%: 0.40+3.6+0.085 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->493->420 MB, 503 MB goal, ...
//
// The clock triple is stop-the-world sweep termination, concurrent mark, stop-the-world mark termination; the
// middle of the cpu figures splits the mark's CPU time into assist, background and idle workers.
type gcCycle struct {
	Num             int     `json:"num"`
	AtS             float64 `json:"at_s"` // seconds since the process started
	Pct             float64 `json:"pct"`  // percent of the CPU spent in GC since the process started
	SweepTermMs     float64 `json:"sweep_term_ms"`
	MarkMs          float64 `json:"mark_ms"` // wall time of the concurrent mark
	MarkTermMs      float64 `json:"mark_term_ms"`
	AssistCPUMs     float64 `json:"assist_cpu_ms"`
	BackgroundCPUMs float64 `json:"background_cpu_ms"`
	IdleCPUMs       float64 `json:"idle_cpu_ms"`
	HeapStartMB     int64   `json:"heap_start_mb"`
	HeapEndMB       int64   `json:"heap_end_mb"`
	HeapLiveMB      int64   `json:"heap_live_mb"` // marked live at the end of the cycle
	GoalMB          int64   `json:"goal_mb"`
	Procs           int     `json:"procs"`
	Forced          bool    `json:"forced,omitempty"`
}

// markCPUMs is the CPU time of the concurrent mark: assist + background + idle workers.
func (c gcCycle) markCPUMs() float64 { return c.AssistCPUMs + c.BackgroundCPUMs + c.IdleCPUMs }

// parseGCLine reads one gctrace line; ok is false for any other line.
func parseGCLine(line string) (c gcCycle, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(line), "gc ")
	if !found {
		return c, false
	}
	rest, c.Forced = strings.CutSuffix(rest, " (forced)")
	parts := strings.Split(rest, ", ")
	if len(parts) < 4 {
		return c, false
	}
	var err error
	bad := func(e error) {
		if err == nil {
			err = e
		}
	}
	float := func(s string) float64 {
		v, e := strconv.ParseFloat(s, 64)
		bad(e)
		return v
	}
	integer := func(s string) int64 {
		v, e := strconv.ParseInt(s, 10, 64)
		bad(e)
		return v
	}
	floats := func(s, sep string, n int) []float64 {
		f := strings.Split(s, sep)
		if len(f) != n {
			bad(errors.New("wrong number of figures"))
			return make([]float64, n)
		}
		out := make([]float64, n)
		for i := range f {
			out[i] = float(f[i])
		}
		return out
	}

	// "10 @6.280s 0%: 0.40+3.6+0.085 ms clock"
	head := strings.Fields(parts[0])
	if len(head) != 6 || head[4] != "ms" || head[5] != "clock" || !strings.HasPrefix(head[1], "@") ||
		!strings.HasSuffix(head[1], "s") || !strings.HasSuffix(head[2], "%:") {
		return c, false
	}
	c.Num = int(integer(head[0]))
	c.AtS = float(strings.TrimSuffix(strings.TrimPrefix(head[1], "@"), "s"))
	c.Pct = float(strings.TrimSuffix(head[2], "%:"))
	clock := floats(head[3], "+", 3)
	c.SweepTermMs, c.MarkMs, c.MarkTermMs = clock[0], clock[1], clock[2]

	// "0.40+0/0.53/0.41+0.085 ms cpu": the first and last figures repeat the stop-the-world phases.
	cpu := strings.Fields(parts[1])
	if len(cpu) != 3 || cpu[1] != "ms" || cpu[2] != "cpu" {
		return c, false
	}
	phases := strings.Split(cpu[0], "+")
	if len(phases) != 3 {
		return c, false
	}
	mark := floats(phases[1], "/", 3)
	c.AssistCPUMs, c.BackgroundCPUMs, c.IdleCPUMs = mark[0], mark[1], mark[2]

	// "493->493->420 MB"
	heap := strings.Fields(parts[2])
	if len(heap) != 2 || heap[1] != "MB" {
		return c, false
	}
	sizes := strings.Split(heap[0], "->")
	if len(sizes) != 3 {
		return c, false
	}
	c.HeapStartMB, c.HeapEndMB, c.HeapLiveMB = integer(sizes[0]), integer(sizes[1]), integer(sizes[2])

	// "503 MB goal", "0 MB stacks", "0 MB globals", "2 P": older runtimes print fewer of these.
	for _, p := range parts[3:] {
		f := strings.Fields(p)
		switch {
		case len(f) == 3 && f[1] == "MB" && f[2] == "goal":
			c.GoalMB = integer(f[0])
		case len(f) == 2 && f[1] == "P":
			c.Procs = int(integer(f[0]))
		}
	}
	if err != nil || c.Procs == 0 {
		return gcCycle{}, false
	}
	return c, true
}

// gcCyclesIn parses the gctrace lines of a server log that start at a byte offset in [from, to). The runtime
// may write one line in several pieces; a line belongs to the span where it starts.
func gcCyclesIn(log []byte, from, to int64) []gcCycle {
	var out []gcCycle
	for off := int64(0); off < int64(len(log)); {
		end := bytes.IndexByte(log[off:], '\n')
		next := int64(len(log))
		if end >= 0 {
			next = off + int64(end) + 1
		}
		if off >= from && off < to {
			if c, ok := parseGCLine(string(log[off:next])); ok {
				out = append(out, c)
			}
		}
		off = next
	}
	return out
}

// withGCTrace is environ with gctrace=1 added to GODEBUG; other GODEBUG settings stay (a later setting wins).
func withGCTrace(environ []string) []string {
	out := make([]string, 0, len(environ)+1)
	debug := "gctrace=1"
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GODEBUG="); ok {
			if v != "" {
				debug = v + "," + debug
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "GODEBUG="+debug)
}

// loadKeys SETs key:000000000000 … key:<keys-1> to value on one connection: this goroutine writes the commands
// through a bufio.Writer while a second one reads the replies and checks that each is +OK. It returns when
// every reply arrived, at the first bad reply or error, or when timeout (or ctx) ends.
func loadKeys(ctx context.Context, addr string, keys int, value string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("load: %w", err)
	}
	defer conn.Close()
	// The end of ctx unblocks both sides: reads and writes past a deadline fail at once.
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	replies := make(chan error, 1)
	go func() {
		err := readOKs(conn, keys)
		if err != nil {
			conn.SetDeadline(time.Unix(1, 0)) // stop the writer too
		}
		replies <- err
	}()

	w := bufio.NewWriterSize(conn, 256<<10)
	var (
		cmd      []byte
		writeErr error
	)
	for i := 0; i < keys && writeErr == nil; i++ {
		cmd = appendBenchSet(cmd[:0], i, value)
		_, writeErr = w.Write(cmd)
	}
	if writeErr == nil {
		writeErr = w.Flush()
	}
	readErr := <-replies
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return fmt.Errorf("load: %d keys not loaded within %v", keys, timeout)
	case ctx.Err() != nil:
		return ctx.Err()
	case readErr != nil:
		return fmt.Errorf("load: %w", readErr)
	case writeErr != nil:
		return fmt.Errorf("load: %w", writeErr)
	}
	return nil
}

// readOKs reads n replies from r and fails at the first that is not +OK.
func readOKs(r io.Reader, n int) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for i := 0; i < n; i++ {
		line, err := br.ReadSlice('\n')
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("reply %d of %d: %w", i+1, n, err)
		}
		if string(line) != "+OK\r\n" {
			return fmt.Errorf("SET %s answered %q", benchKey(i), strings.TrimSpace(string(line)))
		}
	}
	return nil
}

// appendBenchSet appends SET key:%012d value as a RESP array; the same bytes as
// appendCommand(dst, "SET", benchKey(i), value), without formatting a string per key.
func appendBenchSet(dst []byte, i int, value string) []byte {
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], int64(i), 10)
	keyLen := 4 + max(12, len(d))
	dst = append(dst, "*3\r\n$3\r\nSET\r\n$"...)
	dst = strconv.AppendInt(dst, int64(keyLen), 10)
	dst = append(dst, "\r\nkey:"...)
	for pad := 12 - len(d); pad > 0; pad-- {
		dst = append(dst, '0')
	}
	dst = append(dst, d...)
	dst = append(dst, "\r\n$"...)
	dst = strconv.AppendInt(dst, int64(len(value)), 10)
	dst = append(dst, '\r', '\n')
	dst = append(dst, value...)
	return append(dst, '\r', '\n')
}

// gcResult is the --gc measurement of one server at one key count.
type gcResult struct {
	Target      target  `json:"target"`
	Keys        int     `json:"keys"`
	DBSize      int64   `json:"dbsize"`
	RSSStart    int64   `json:"rss_start_bytes"`
	RSSLoaded   int64   `json:"rss_loaded_bytes"`
	BytesPerKey float64 `json:"bytes_per_key"`
	LoadS       float64 `json:"load_s"` // wall time of the loader
	// LoadLongestTurnMs is corekv's longest loop turn while the keys loaded
	// (INFO stats of the fresh server): a table that grows in steps keeps it
	// short at every key count.
	LoadLongestTurnMs float64 `json:"load_longest_loop_turn_ms"`
	// Traced is true for corekv, which runs with GODEBUG=gctrace=1; the GC fields of redis stay empty.
	Traced       bool      `json:"traced"`
	LoadCycles   []gcCycle `json:"load_gc_cycles"`   // cycles that started while the keys were loading
	ForcedCycles []gcCycle `json:"forced_gc_cycles"` // full cycles forced once the keys were loaded
	GetCycles    []gcCycle `json:"get_gc_cycles"`    // cycles that started during the GET runs
	// Medians over ForcedCycles, 0 when there were none:
	MarkClockMs float64 `json:"mark_clock_ms"`
	MarkCPUMs   float64 `json:"mark_cpu_ms"`
	HeapMB      int64   `json:"heap_mb"`
	// corekv's own view of its loop during the GET runs (INFO stats after a
	// CONFIG RESETSTAT): turns of 1 ms or more, and the longest.
	SlowTurns     int64    `json:"slow_loop_turns"`
	LongestTurnMs float64  `json:"longest_loop_turn_ms"`
	Runs          []sample `json:"get_runs"`
	Clients       int      `json:"clients"`     // of the runs below
	GetRPS        float64  `json:"get_rps"`     // median of the good runs
	GetP999Ms     float64  `json:"get_p999_ms"` // median of the good runs
	// The same for the light runs (gcLightClients clients, -P 1), after the runs above.
	LightRuns      []sample `json:"light_get_runs"`
	LightGetRPS    float64  `json:"light_get_rps"`
	LightGetP999Ms float64  `json:"light_get_p999_ms"`
	Error          string   `json:"error,omitempty"`
}

// gcTargets are the servers of the --gc mode: corekv with one shard, then redis, both on all server CPUs.
func gcTargets(cfg *config) []target {
	return []target{{Server: "corekv", Shards: 1, CPUs: cfg.ServerCPUs}, {Server: "redis", CPUs: cfg.ServerCPUs}}
}

// gcLoadTimeout bounds the loader: --cell-timeout plus a second per 100k keys.
func gcLoadTimeout(cfg *config, keys int) time.Duration {
	return cfg.CellTimeout + time.Duration(keys/100000)*time.Second
}

// runGC measures every target at every --gc-keys count, each on a fresh server.
func runGC(ctx context.Context, cfg *config, tl *tools, work string, stdout io.Writer) ([]gcResult, error) {
	var out []gcResult
	tgs := gcTargets(cfg)
	fmt.Fprintf(stdout, "gc: %d key counts x %d servers; %d GET runs of %d requests each at P=%d; server CPUs %s, client CPUs %s\n",
		len(cfg.GCKeys), len(tgs), gcGetRuns, cfg.GCRequests, gcPipeline, cfg.ServerCPUs, formatCPUList(cfg.clientCPUList))
	for _, n := range cfg.GCKeys {
		for _, t := range tgs {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			g := measureGC(ctx, cfg, tl, t, n, work, stdout)
			out = append(out, g)
			if g.Error != "" {
				fmt.Fprintf(stdout, "gc %-9s %5s keys FAILED: %s\n", t.label(), shortCount(n), firstLine(g.Error))
				if ctx.Err() != nil {
					return out, ctx.Err()
				}
				continue
			}
			fmt.Fprintf(stdout, "gc %-9s %5s keys  %s\n", t.label(), shortCount(n), g.line())
		}
	}
	return out, nil
}

func (g gcResult) line() string {
	s := fmt.Sprintf("%.1f B/key  load %.1fs", g.BytesPerKey, g.LoadS)
	if g.Traced {
		s += fmt.Sprintf(" (longest turn %s ms)", turnMs(g.LoadLongestTurnMs))
		s += fmt.Sprintf("  GC load %d cycles, forced GC mark %s ms clock %s ms cpu, heap %s MB  GC get %d"+
			"  loop turns >=1ms %d, longest %.3f ms",
			len(g.LoadCycles), g.markClock(), g.markCPU(), g.heapMB(),
			len(g.GetCycles), g.SlowTurns, g.LongestTurnMs)
	}
	return s + fmt.Sprintf("  GET %s req/s p99.9 %s ms, light (-c %d -P 1) %s req/s p99.9 %s ms", groupDigits(g.GetRPS),
		fmtMs(g.GetP999Ms), gcLightClients, groupDigits(g.LightGetRPS), fmtMs(g.LightGetP999Ms))
}

// measureGC starts t afresh, loads keys keys, and runs the GET benchmark gcGetRuns times saturated, then
// gcGetRuns times light. corekv runs with
// GODEBUG=gctrace=1 and --pprof: between the load and the GET runs the harness forces gcForced full GC cycles
// through the pprof heap endpoint (?gc=1), so that every key count has cycles that marked the whole loaded
// heap, whether or not the load itself started one. Its log is cut by byte offsets into the load, the forced
// cycles and the GET runs.
func measureGC(ctx context.Context, cfg *config, tl *tools, t target, keys int, work string,
	stdout io.Writer) gcResult {
	g := gcResult{Target: t, Keys: keys, Traced: t.Server == "corekv" && !cfg.OnlyRedis}
	var env, args []string
	var pprofAddr string
	if g.Traced {
		env = withGCTrace(os.Environ())
		port, err := freePort()
		if err != nil {
			g.Error = err.Error()
			return g
		}
		pprofAddr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		args = []string{"--pprof", pprofAddr}
	}
	srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, args, env...)
	if err != nil {
		g.Error = err.Error()
		return g
	}
	defer srv.stop()
	logSize := func() int64 {
		fi, err := os.Stat(srv.logPath)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	settle := func() { time.Sleep(300 * time.Millisecond) }
	fail := func(err error) gcResult {
		g.Error = err.Error()
		if !srv.alive() {
			g.Error += logTail(srv.logPath)
		}
		return g
	}

	settle()
	if g.RSSStart, err = rssBytes(srv.pid()); err != nil {
		return fail(err)
	}
	loadFrom := logSize()
	t0 := time.Now()
	if err := loadKeys(ctx, srv.addr(), keys, strings.Repeat("x", gcValueSize), gcLoadTimeout(cfg, keys)); err != nil {
		return fail(err)
	}
	g.LoadS = time.Since(t0).Seconds()
	loadTo := logSize()
	if g.Traced {
		if _, g.LoadLongestTurnMs, err = loopTurns(srv.addr()); err != nil {
			return fail(err)
		}
	}
	settle()
	if g.DBSize, err = dbSize(srv.addr()); err != nil {
		return fail(err)
	}
	if g.DBSize != int64(keys) {
		return fail(fmt.Errorf("DBSIZE is %d after loading %d keys", g.DBSize, keys))
	}
	if g.RSSLoaded, err = rssBytes(srv.pid()); err != nil {
		return fail(err)
	}
	g.BytesPerKey = float64(g.RSSLoaded-g.RSSStart) / float64(keys)
	if g.Traced {
		// A shard polls for a second after its last request (see reactor's
		// rawWaitWindow); on a shared CPU that polling would slow the
		// collector's workers and be counted as mark time.
		time.Sleep(1500 * time.Millisecond)
	}
	forcedFrom := logSize()
	if g.Traced {
		for range gcForced {
			if err := forceGC(ctx, pprofAddr); err != nil {
				return fail(err)
			}
		}
	}
	forcedTo := logSize()

	// getRuns runs cell c gcGetRuns times and returns the runs with the
	// medians of the good ones.
	getRuns := func(c cell) (runs []sample, rps, p999 float64, err error) {
		var rs, ps []float64
		for i := 0; i < gcGetRuns; i++ {
			if err := ctx.Err(); err != nil {
				return runs, 0, 0, err
			}
			s := runBenchmark(ctx, cfg, tl, srv, c)
			runs = append(runs, s)
			fmt.Fprintf(stdout, "gc %-9s %5s keys  GET c=%d P=%d run %d: %s\n", t.label(), shortCount(keys), c.Clients,
				c.Pipeline, i+1, s.line())
			if !srv.alive() {
				return runs, 0, 0, fmt.Errorf("%s exited during the GET runs", t.label())
			}
			if s.Error == "" {
				rs, ps = append(rs, s.RPS), append(ps, s.P999Ms)
			}
		}
		return runs, median(rs), median(ps), nil
	}
	if g.Traced {
		if _, err := command(srv.addr(), 10*time.Second, "CONFIG", "RESETSTAT"); err != nil {
			return fail(err)
		}
	}
	getFrom := logSize()
	g.Clients = cfg.Clients
	heavy := cell{Test: "get", Pipeline: gcPipeline, Clients: cfg.Clients, Keyspace: keys, Size: gcValueSize,
		Requests: cfg.GCRequests}
	if g.Runs, g.GetRPS, g.GetP999Ms, err = getRuns(heavy); err != nil {
		return fail(err)
	}
	if g.Traced {
		if g.SlowTurns, g.LongestTurnMs, err = loopTurns(srv.addr()); err != nil {
			return fail(err)
		}
	}
	light := cell{Test: "get", Pipeline: 1, Clients: gcLightClients, Keyspace: keys, Size: gcValueSize,
		Requests: max(cfg.GCRequests/gcLightShare, 1000)}
	if g.LightRuns, g.LightGetRPS, g.LightGetP999Ms, err = getRuns(light); err != nil {
		return fail(err)
	}
	getTo := logSize()

	if g.Traced {
		log, err := os.ReadFile(srv.logPath)
		if err != nil {
			return fail(err)
		}
		g.LoadCycles = gcCyclesIn(log, loadFrom, loadTo)
		g.GetCycles = gcCyclesIn(log, getFrom, getTo)
		g.ForcedCycles = gcCyclesIn(log, forcedFrom, forcedTo)
		if len(g.ForcedCycles) != gcForced {
			return fail(fmt.Errorf("forced %d GC cycles, the log shows %d", gcForced, len(g.ForcedCycles)))
		}
		var clock, cpu, heap []float64
		for _, c := range g.ForcedCycles {
			clock, cpu, heap = append(clock, c.MarkMs), append(cpu, c.markCPUMs()), append(heap, float64(c.HeapLiveMB))
		}
		g.MarkClockMs, g.MarkCPUMs, g.HeapMB = median(clock), median(cpu), int64(median(heap))
	}
	return g
}

// loopTurns reads corekv's loop-turn figures from INFO stats: turns of 1 ms
// or more, and the longest of them in ms (0 when there was none), since the
// start or the last CONFIG RESETSTAT.
func loopTurns(addr string) (slow int64, longestMs float64, err error) {
	time.Sleep(200 * time.Millisecond) // INFO's figures are published every 100 ms
	st, err := infoInts(addr, "stats")
	if err != nil {
		return 0, 0, err
	}
	return st["slow_loop_turns"], float64(st["longest_loop_turn_usec"]) / 1000, nil
}

// forceGC asks corekv's pprof endpoint for a heap profile with gc=1, which runs one full, blocking GC cycle
// before it answers.
func forceGC(ctx context.Context, addr string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/debug/pprof/heap?gc=1", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("force a GC through pprof: %w", err)
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return fmt.Errorf("force a GC through pprof: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("force a GC through pprof: %s", resp.Status)
	}
	return nil
}

// gcTrends is one sentence per server: how GET p99.9 and (for corekv) the mark time of the forced GC cycles
// changed from the smallest to the largest key count.
func gcTrends(results []gcResult) []string {
	var order []string
	byServer := map[string][]gcResult{}
	for _, g := range results {
		if g.Error != "" {
			continue
		}
		l := g.Target.label()
		if byServer[l] == nil {
			order = append(order, l)
		}
		byServer[l] = append(byServer[l], g)
	}
	var out []string
	for _, l := range order {
		gs := byServer[l]
		lo, hi := gs[0], gs[0]
		for _, g := range gs {
			if g.Keys < lo.Keys {
				lo = g
			}
			if g.Keys > hi.Keys {
				hi = g
			}
		}
		if lo.Keys == hi.Keys {
			continue
		}
		s := fmt.Sprintf("%s, %s → %s keys: GET p99.9 %s → %s ms (%s) with %d clients, %s → %s ms (%s) with %d clients and no pipelining",
			l, shortCount(lo.Keys), shortCount(hi.Keys),
			fmtMs(lo.GetP999Ms), fmtMs(hi.GetP999Ms), change(lo.GetP999Ms, hi.GetP999Ms), lo.Clients,
			fmtMs(lo.LightGetP999Ms), fmtMs(hi.LightGetP999Ms), change(lo.LightGetP999Ms, hi.LightGetP999Ms), gcLightClients)
		switch {
		case !lo.Traced:
			s += "; no Go GC."
		case len(lo.ForcedCycles) == 0 || len(hi.ForcedCycles) == 0:
			s += "; mark time not comparable: no forced GC cycle."
		default:
			s += fmt.Sprintf(", full GC mark %s → %s ms clock (%s), %s → %s ms CPU (%s).",
				fmtMs(lo.MarkClockMs), fmtMs(hi.MarkClockMs), change(lo.MarkClockMs, hi.MarkClockMs),
				fmtMs(lo.MarkCPUMs), fmtMs(hi.MarkCPUMs), change(lo.MarkCPUMs, hi.MarkCPUMs))
		}
		out = append(out, s)
	}
	return out
}

// change writes the relative change from a to b as "+12%"; "n/a" when a is 0.
func change(a, b float64) string {
	if a <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.0f%%", 100*(b-a)/a)
}

// markClock, markCPU and heapMB format the medians of the forced GC cycles; "-" for none.
func (g gcResult) markClock() string { return g.ofForced(fmt.Sprintf("%.3f", g.MarkClockMs)) }
func (g gcResult) markCPU() string   { return g.ofForced(fmt.Sprintf("%.3f", g.MarkCPUMs)) }
func (g gcResult) heapMB() string    { return g.ofForced(strconv.FormatInt(g.HeapMB, 10)) }

func (g gcResult) ofForced(s string) string {
	if !g.Traced || len(g.ForcedCycles) == 0 {
		return "-"
	}
	return s
}
