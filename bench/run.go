package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cell is one point of the matrix: one redis-benchmark invocation, run against every target.
type cell struct {
	Test     string `json:"test"`
	Pipeline int    `json:"pipeline"`
	Clients  int    `json:"clients"`
	Keyspace int    `json:"keyspace"`
	Size     int    `json:"size"`
	Requests int    `json:"requests"`
}

func (c cell) String() string {
	return fmt.Sprintf("%s P=%d r=%s d=%d", c.Test, c.Pipeline, shortCount(c.Keyspace), c.Size)
}

// sample is one redis-benchmark run of a cell against one server.
type sample struct {
	RPS       float64 `json:"rps"`
	AvgMs     float64 `json:"avg_ms"`
	P50Ms     float64 `json:"p50_ms"`
	P95Ms     float64 `json:"p95_ms"`
	P99Ms     float64 `json:"p99_ms"`
	P999Ms    float64 `json:"p999_ms"` // 0 when not available (--csv)
	MaxMs     float64 `json:"max_ms"`
	ServerCPU float64 `json:"server_cpu"` // CPU seconds of the server per wall second: 1.0 is one core busy
	ClientCPU float64 `json:"client_cpu"` // the same for redis-benchmark
	WallS     float64 `json:"wall_s"`     // redis-benchmark's process, start to exit
	BenchS    float64 `json:"bench_s"`    // requests / req/s: the part redis-benchmark timed
	Command   string  `json:"command"`
	Error     string  `json:"error,omitempty"`
}

// summary is the median of a result's good samples, each figure taken on its own.
type summary struct {
	RPS        float64 `json:"rps"`
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	P999Ms     float64 `json:"p999_ms"`
	ServerCPU  float64 `json:"server_cpu"`
	ClientCPU  float64 `json:"client_cpu"`
	RPSPerCore float64 `json:"rps_per_core"` // req/s divided by the server's CPU share
	Runs       int     `json:"runs"`         // good samples behind the medians
}

// result gathers the samples of one cell on one target.
type result struct {
	Target  target   `json:"target"`
	Cell    cell     `json:"cell"`
	Samples []sample `json:"samples"`
	Median  summary  `json:"median"`
}

// comparison sets corekv at one shard count against redis on one cell.
type comparison struct {
	Cell      cell    `json:"cell"`
	Shards    int     `json:"shards"`
	CorekvRPS float64 `json:"corekv_rps"`
	RedisRPS  float64 `json:"redis_rps"`
	RPSRatio  float64 `json:"rps_ratio"` // corekv / redis; 0 when either is missing
	// PerCoreRatio is corekv's req/s per server core over redis's: what
	// one core of each serves, whichever side set the pace.
	PerCoreRatio float64 `json:"per_core_ratio"`
	CorekvP99    float64 `json:"corekv_p99_ms"`
	RedisP99     float64 `json:"redis_p99_ms"`
	P99Ratio     float64 `json:"p99_ratio"`
	CorekvP999   float64 `json:"corekv_p999_ms"`
	RedisP999    float64 `json:"redis_p999_ms"`
}

// memResult is the memory measurement of one server at one value size.
type memResult struct {
	Target      target  `json:"target"`
	Size        int     `json:"size"`
	Keys        int64   `json:"keys"` // DBSIZE after loading
	RSSStart    int64   `json:"rss_start_bytes"`
	RSSLoaded   int64   `json:"rss_loaded_bytes"`
	BytesPerKey float64 `json:"bytes_per_key"`
	Error       string  `json:"error,omitempty"`
}

// cells lists the matrix in the order it runs.
func cells(cfg *config) []cell {
	var out []cell
	for _, t := range cfg.Tests {
		for _, r := range cfg.Keyspaces {
			for _, d := range cfg.Sizes {
				for _, p := range cfg.Pipelines {
					out = append(out, cell{Test: t, Pipeline: p, Clients: cfg.Clients, Keyspace: r, Size: d,
						Requests: requestsFor(cfg.Requests, cfg.MaxRequests, p)})
				}
			}
		}
	}
	return out
}

// targets lists redis, then corekv at each shard count. In --scaling mode corekv with k shards gets the
// first k server CPUs, so the curve measures cores; otherwise every target gets all server CPUs.
func targets(cfg *config) []target {
	if cfg.FirstRun {
		return firstRunTargets(cfg)
	}
	out := []target{{Server: "redis", CPUs: cfg.ServerCPUs}}
	for _, k := range cfg.Shards {
		cpus := cfg.ServerCPUs
		if cfg.Scaling && k < len(cfg.serverCPUList) {
			cpus = formatCPUList(cfg.serverCPUList[:k])
		}
		out = append(out, target{Server: "corekv", Shards: k, CPUs: cpus})
	}
	return out
}

// run executes the whole benchmark and writes the report. A run cut short by an error, a signal or --timeout
// still writes what it measured.
func run(ctx context.Context, cfg *config, stdout io.Writer) (*report, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	start := time.Now()

	tl, err := findTools()
	if err != nil {
		return nil, err
	}
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp("", "corekv-bench-")
	if err != nil {
		return nil, err
	}
	keepWork := false
	defer func() {
		if keepWork {
			fmt.Fprintf(stdout, "server logs kept in %s\n", work)
		} else {
			os.RemoveAll(work)
		}
	}()

	tl.CorekvArgs = cfg.CorekvArgs
	switch {
	case cfg.OnlyRedis:
	case cfg.CorekvBin != "":
		if tl.Corekv, err = filepath.Abs(cfg.CorekvBin); err != nil {
			return nil, err
		}
	default:
		fmt.Fprintln(stdout, "building ./cmd/corekv ...")
		if tl.Corekv, err = buildCorekv(ctx, root, work); err != nil {
			return nil, err
		}
	}

	if cfg.PubSub {
		return nil, runPubsub(ctx, cfg, tl, work, root, stdout)
	}
	if cfg.Blocking {
		return nil, runBlocking(ctx, cfg, tl, work, root, stdout)
	}
	if cfg.AOF != nil {
		return nil, runAOF(ctx, cfg, tl, work, root, stdout)
	}
	if cfg.Snapshot != nil {
		return nil, runSnapshot(ctx, cfg, tl, work, root, stdout)
	}
	if cfg.Eviction != nil {
		return nil, runEviction(ctx, cfg, tl, work, root, stdout)
	}
	rep := &report{Config: cfg, Started: start, Machine: describeMachine(ctx, tl, root, cfg)}
	rep.Targets = targets(cfg)
	if cfg.GC && !cfg.Memory {
		rep.Targets = gcTargets(cfg)
	}
	if cfg.Expiry {
		rep.Targets = expiryTargets(cfg)
	}
	for _, t := range rep.Targets {
		argv := serverArgv(tl, t, 0, cfg.OnlyRedis)
		for i := range argv {
			if i > 0 && argv[i-1] == "--port" {
				argv[i] = "PORT"
			}
		}
		rep.ServerCommands = append(rep.ServerCommands, t.label()+": "+shellJoin(argv))
	}

	var runErr error
	if !cfg.MemoryOnly && !cfg.GC && !cfg.Expiry && !cfg.Txn {
		rep.Results, runErr = runMatrix(ctx, cfg, tl, rep.Targets, work, stdout)
		rep.Comparisons = compare(rep.Results)
	}
	if cfg.Memory && runErr == nil {
		rep.Memory, runErr = runMemory(ctx, cfg, tl, rep.Targets, work, stdout)
	}
	if cfg.GC && runErr == nil {
		rep.GC, runErr = runGC(ctx, cfg, tl, work, stdout)
	}
	if cfg.Expiry && runErr == nil {
		rep.Expiry, runErr = runExpiry(ctx, cfg, tl, work, stdout)
	}
	if cfg.FirstRun && runErr == nil && !cfg.OnlyRedis {
		rep.Hop, runErr = runHop(ctx, cfg, tl, work, stdout)
	}
	if cfg.Txn && runErr == nil {
		rep.Results, rep.Txn, runErr = runTxn(ctx, cfg, tl, rep.Targets, work, stdout)
		rep.Comparisons, rep.TxnComparisons = compare(rep.Results), compare(rep.Txn)
	}
	rep.Duration = time.Since(start).Round(time.Second).String()
	rep.Machine.LoadEnd = loadAvg()
	switch {
	case errors.Is(runErr, context.DeadlineExceeded):
		runErr = fmt.Errorf("stopped at --timeout %v", cfg.Timeout)
	case errors.Is(runErr, context.Canceled):
		runErr = errors.New("interrupted")
	}
	if runErr != nil {
		rep.Incomplete = runErr.Error()
		keepWork = true
	}

	outDir := cfg.Out
	switch {
	case cfg.TempOut:
		if outDir, err = os.MkdirTemp("", "corekv-bench-report-"); err != nil {
			return rep, err
		}
	case outDir == "":
		outDir = filepath.Join(root, "bench", "results")
	}
	files, err := writeReport(rep, outDir)
	fmt.Fprintln(stdout)
	printSummary(stdout, rep)
	for _, f := range files {
		fmt.Fprintln(stdout, "wrote", f)
	}
	if failed, all := countFailed(rep); failed > 0 && runErr == nil {
		runErr = fmt.Errorf("%d of %d runs failed; see the report", failed, all)
	}
	return rep, errors.Join(runErr, err)
}

// runMatrix runs every cell against every target, cfg.Repeat rounds. Each round starts every server afresh
// and runs all its cells, so slow drift of a noisy host spreads over all servers instead of one.
func runMatrix(ctx context.Context, cfg *config, tl *tools, tgs []target, work string,
	stdout io.Writer) ([]*result, error) {
	cs := cells(cfg)
	results := make([]*result, 0, len(cs)*len(tgs))
	index := map[string]*result{}
	for _, t := range tgs {
		for _, c := range cs {
			r := &result{Target: t, Cell: c}
			results = append(results, r)
			index[t.label()+"|"+c.String()] = r
		}
	}
	total, done := len(results)*cfg.Repeat, 0
	fmt.Fprintf(stdout, "%d cells x %d servers x %d rounds; server CPUs %s, client CPUs %s\n",
		len(cs), len(tgs), cfg.Repeat, cfg.ServerCPUs, formatCPUList(cfg.clientCPUList))
	defer finish(results)
	for round := 1; round <= cfg.Repeat; round++ {
		for _, t := range tgs {
			srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, nil)
			if err != nil {
				return results, err
			}
			for _, c := range cs {
				if err := ctx.Err(); err != nil {
					srv.stop()
					return results, err
				}
				done++
				s := runCell(ctx, cfg, tl, srv, c)
				r := index[t.label()+"|"+c.String()]
				r.Samples = append(r.Samples, s)
				fmt.Fprintf(stdout, "[%d/%d] round %d %-9s %-26s %s\n", done, total, round, t.label(), c, s.line())
				if !srv.alive() {
					err := fmt.Errorf("%s exited during %s%s", t.label(), c, logTail(srv.logPath))
					return results, err
				}
			}
			srv.stop()
		}
	}
	return results, nil
}

func (s sample) line() string {
	if s.Error != "" {
		return "FAILED: " + firstLine(s.Error)
	}
	p999 := "-"
	if s.P999Ms > 0 {
		p999 = fmt.Sprintf("%.3f", s.P999Ms)
	}
	return fmt.Sprintf("%9.0f req/s  p50 %.3f  p99 %.3f  p99.9 %s ms  cpu srv %3.0f%% cli %3.0f%%",
		s.RPS, s.P50Ms, s.P99Ms, p999, 100*s.ServerCPU, 100*s.ClientCPU)
}

// popFill names, for a test that pops, the tests that redis-benchmark's
// default run puts before it and that fill the key it pops from: the list
// holds the LPUSHes and RPUSHes when LPOP starts, the RPUSHes alone when
// RPOP does (LPOP took the others from the head).
var popFill = map[string]string{
	"lpop":    "lpush,rpush",
	"rpop":    "rpush",
	"spop":    "sadd",
	"zpopmin": "zadd",
}

// runCell flushes the server, preloads the key space for reads (strings
// for get, hashes or sets for a point test) and the key of a pop, and runs
// redis-benchmark once.
func runCell(ctx context.Context, cfg *config, tl *tools, srv *server, c cell) sample {
	failed := func(err error) sample {
		return sample{Command: shellJoin(benchmarkArgv(cfg, tl, srv, c)), Error: err.Error()}
	}
	if err := flushAll(srv.addr()); err != nil {
		return failed(err)
	}
	if cfg.Preload && c.Test == "get" {
		if err := preload(ctx, srv.addr(), c.Keyspace, c.Size, 4); err != nil {
			return failed(err)
		}
	}
	if p, ok := pointTests[c.Test]; cfg.Preload && ok {
		if err := preloadPoint(ctx, srv.addr(), p, c, 4); err != nil {
			return failed(err)
		}
	}
	if fill := popFill[c.Test]; cfg.Preload && fill != "" {
		if err := fillPopped(ctx, cfg, tl, srv, c, fill); err != nil {
			return failed(err)
		}
	}
	return runBenchmark(ctx, cfg, tl, srv, c)
}

// fillPopped runs, untimed, the cell's redis-benchmark with the tests
// fill in its place, so that the cell pops from the value they leave.
func fillPopped(ctx context.Context, cfg *config, tl *tools, srv *server, c cell, fill string) error {
	argv := benchmarkArgv(cfg, tl, srv, c)
	for i, a := range argv {
		if a == "-t" {
			argv[i+1] = fill
		}
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.CellTimeout)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("filling for %s: %s: %v: %s", c.Test, shellJoin(argv), err, tail(string(out)))
	}
	return nil
}

// benchmarkArgv is the redis-benchmark command line of c against srv, pinned to the client CPUs.
func benchmarkArgv(cfg *config, tl *tools, srv *server, c cell) []string {
	return clientArgvOn(cfg, tl, srv, cfg.clientCPUList, cellArgs(cfg, c, c.Clients, c.Requests)...)
}

// cellArgs are redis-benchmark's options for c with the given connections and requests. A point test
// ends with its command line in place of -t and without -d, which only sizes what -t tests write.
func cellArgs(cfg *config, c cell, clients, requests int) []string {
	p, point := pointTests[c.Test]
	var args []string
	if !point {
		args = []string{"-t", c.Test}
	}
	args = append(args, "-P", strconv.Itoa(c.Pipeline), "-c", strconv.Itoa(clients),
		"-r", strconv.Itoa(c.Keyspace))
	if !point {
		args = append(args, "-d", strconv.Itoa(c.Size))
	}
	args = append(args, "-n", strconv.Itoa(requests))
	if cfg.CSV {
		args = append(args, "--csv")
	}
	return append(args, p.command...)
}

// clientProc is one redis-benchmark process of a cell: its command line and its share of the requests.
type clientProc struct {
	argv     []string
	requests int
}

// cellProcs splits c over the client processes: connections and requests evenly, process i pinned to the
// i-th client CPU (in turn when there are more processes than CPUs).
func cellProcs(cfg *config, tl *tools, srv *server, c cell) []clientProc {
	n := max(1, min(cfg.ClientProcs, c.Clients, c.Requests))
	if n == 1 {
		return []clientProc{{benchmarkArgv(cfg, tl, srv, c), c.Requests}}
	}
	procs := make([]clientProc, n)
	for i := range procs {
		clients := c.Clients/n + btoi(i < c.Clients%n)
		requests := c.Requests/n + btoi(i < c.Requests%n)
		cpus := []int{cfg.clientCPUList[i%len(cfg.clientCPUList)]}
		procs[i] = clientProc{clientArgvOn(cfg, tl, srv, cpus, cellArgs(cfg, c, clients, requests)...), requests}
	}
	return procs
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// clientArgv is redis-benchmark against srv, pinned to the client's CPUs
// (unpinned with --first-run), with the client's threads and then args.
func clientArgv(cfg *config, tl *tools, srv *server, args ...string) []string {
	return clientArgvOn(cfg, tl, srv, cfg.clientCPUList, args...)
}

// clientArgvOn is clientArgv pinned to cpus.
func clientArgvOn(cfg *config, tl *tools, srv *server, cpus []int, args ...string) []string {
	var argv []string
	if !cfg.FirstRun {
		argv = []string{tl.Taskset, "-c", formatCPUList(cpus)}
	}
	argv = append(argv, tl.RedisBenchmark, "-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port))
	// Options go before args: redis-benchmark takes every word after a command line's first as part of it.
	if cfg.ClientThreads > 1 {
		argv = append(argv, "--threads", strconv.Itoa(cfg.ClientThreads))
	}
	return append(argv, args...)
}

// procResult is what one client process of a cell printed and cost.
type procResult struct {
	out      benchOutput // the cell's test
	benchS   float64     // the time it measured: its requests over req/s, summed over the tests it ran
	cpuS     float64     // its own CPU time
	requests int
}

// runBenchmark runs the cell's client processes at once against srv as it is, bounded by --cell-timeout, and
// reads their figures and the CPU time of both sides.
func runBenchmark(ctx context.Context, cfg *config, tl *tools, srv *server, c cell) sample {
	procs := cellProcs(cfg, tl, srv, c)
	commands := make([]string, len(procs))
	for i, p := range procs {
		commands[i] = shellJoin(p.argv)
	}
	s := sample{Command: strings.Join(commands, " & ")}
	fail := func(err error) sample {
		s.Error = err.Error()
		return s
	}
	cctx, cancel := context.WithTimeout(ctx, cfg.CellTimeout)
	defer cancel()
	cmds := make([]*exec.Cmd, len(procs))
	outs := make([]*bytes.Buffer, len(procs))
	for i, p := range procs {
		cmds[i] = exec.CommandContext(cctx, p.argv[0], p.argv[1:]...)
		cmds[i].SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		outs[i] = &bytes.Buffer{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
	}
	cpu0, err := cpuSeconds(srv.pid())
	if err != nil {
		return fail(err)
	}
	t0 := time.Now()
	errs := make([]error, len(cmds))
	for i, cmd := range cmds {
		errs[i] = cmd.Start()
	}
	for i, cmd := range cmds {
		if errs[i] == nil {
			errs[i] = cmd.Wait()
		}
	}
	wall := time.Since(t0).Seconds()
	cpu1, cpuErr := cpuSeconds(srv.pid())
	if cctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		return fail(fmt.Errorf("no result within --cell-timeout %v: %s", cfg.CellTimeout, tail(outs[0].String())))
	}
	results := make([]procResult, len(procs))
	for i, p := range procs {
		if errs[i] != nil {
			return fail(fmt.Errorf("redis-benchmark: %v: %s", errs[i], tail(outs[i].String())))
		}
		r, err := readProc(cfg, c.Test, outs[i].String(), p.requests)
		if err != nil {
			return fail(err)
		}
		st := cmds[i].ProcessState
		r.cpuS = (st.UserTime() + st.SystemTime()).Seconds()
		results[i] = r
	}
	if cpuErr != nil {
		return fail(cpuErr)
	}
	combine(&s, results, wall)
	s.ServerCPU = (cpu1 - cpu0) / s.BenchS
	return s
}

// readProc parses one client process's output.
func readProc(cfg *config, test, out string, requests int) (procResult, error) {
	parse := parseText
	if cfg.CSV {
		parse = parseCSV
	}
	outs, err := parse(out)
	r := procResult{requests: requests}
	if err == nil {
		r.out, err = pickOutput(test, outs)
	}
	if err != nil {
		return r, fmt.Errorf("%v: %s", err, tail(out))
	}
	// A test that runs a preparation first (LRANGE_*: an LPUSH) is timed
	// with it, since the server's CPU time covers both.
	for _, o := range outs {
		r.benchS += float64(requests) / o.RPS
	}
	return r, nil
}

// combine folds the client processes of one run into s. Throughput is all requests over the slowest
// process's time; each latency percentile is the highest of the processes' (an upper bound), the average is
// weighted by requests. CPU shares are taken over the time redis-benchmark itself measured (requests /
// req/s), not over the wall time of the processes, which adds their start: connecting the clients and
// reading the server's CONFIG.
func combine(s *sample, results []procResult, wall float64) {
	var requests int
	var slowest, cpu, avgSum float64
	for _, r := range results {
		requests += r.requests
		slowest = max(slowest, float64(r.requests)/r.out.RPS)
		s.BenchS = max(s.BenchS, r.benchS)
		cpu += r.cpuS
		avgSum += r.out.AvgMs * float64(r.requests)
		s.P50Ms, s.P95Ms, s.P99Ms = max(s.P50Ms, r.out.P50Ms), max(s.P95Ms, r.out.P95Ms), max(s.P99Ms, r.out.P99Ms)
		s.P999Ms, s.MaxMs = max(s.P999Ms, r.out.P999Ms), max(s.MaxMs, r.out.MaxMs)
	}
	s.RPS = float64(requests) / slowest
	s.AvgMs = avgSum / float64(requests)
	s.WallS = wall
	s.BenchS = min(s.BenchS, wall)
	s.ClientCPU = cpu / s.BenchS
}

// runMemory starts each target afresh per value size, loads cfg.MemoryKeys keys and reports the growth of
// VmRSS divided by DBSIZE.
func runMemory(ctx context.Context, cfg *config, tl *tools, tgs []target, work string,
	stdout io.Writer) ([]memResult, error) {
	var out []memResult
	for _, t := range tgs {
		for _, size := range cfg.MemorySizes {
			if err := ctx.Err(); err != nil {
				return out, err
			}
			m := measureMemory(ctx, cfg, tl, t, size, work)
			out = append(out, m)
			if m.Error != "" {
				fmt.Fprintf(stdout, "memory %-9s d=%-4d FAILED: %s\n", t.label(), size, firstLine(m.Error))
				continue
			}
			fmt.Fprintf(stdout, "memory %-9s d=%-4d %d keys  RSS %.1f -> %.1f MiB  %.1f B/key\n", t.label(), size,
				m.Keys, float64(m.RSSStart)/(1<<20), float64(m.RSSLoaded)/(1<<20), m.BytesPerKey)
		}
	}
	return out, nil
}

func measureMemory(ctx context.Context, cfg *config, tl *tools, t target, size int, work string) memResult {
	m := memResult{Target: t, Size: size}
	srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, nil)
	if err != nil {
		m.Error = err.Error()
		return m
	}
	defer srv.stop()
	settle := func() { time.Sleep(300 * time.Millisecond) }
	settle()
	if m.RSSStart, err = rssBytes(srv.pid()); err == nil {
		err = preload(ctx, srv.addr(), cfg.MemoryKeys, size, 4)
	}
	if err == nil {
		settle()
		m.Keys, err = dbSize(srv.addr())
	}
	if err == nil {
		m.RSSLoaded, err = rssBytes(srv.pid())
	}
	if err != nil {
		m.Error = err.Error()
		return m
	}
	if m.Keys > 0 {
		m.BytesPerKey = float64(m.RSSLoaded-m.RSSStart) / float64(m.Keys)
	}
	return m
}

// countFailed counts failed benchmark runs and memory measurements, and all of them.
func countFailed(rep *report) (failed, all int) {
	for _, r := range rep.Results {
		for _, s := range r.Samples {
			all++
			if s.Error != "" {
				failed++
			}
		}
	}
	for _, m := range rep.Memory {
		all++
		if m.Error != "" {
			failed++
		}
	}
	for _, r := range rep.Txn {
		for _, s := range r.Samples {
			all++
			if s.Error != "" {
				failed++
			}
		}
	}
	for _, e := range rep.Expiry {
		all++
		if e.Error != "" {
			failed++
		}
	}
	for _, g := range rep.GC {
		all++
		if g.Error != "" {
			failed++
		}
		for _, runs := range [][]sample{g.Runs, g.LightRuns} {
			for _, s := range runs {
				all++
				if s.Error != "" {
					failed++
				}
			}
		}
	}
	return failed, all
}

// finish fills each result's medians from its good samples.
func finish(results []*result) {
	for _, r := range results {
		var rps, p50, p99, p999, srv, cli, perCore []float64
		for _, s := range r.Samples {
			if s.Error != "" {
				continue
			}
			rps = append(rps, s.RPS)
			p50 = append(p50, s.P50Ms)
			p99 = append(p99, s.P99Ms)
			p999 = append(p999, s.P999Ms)
			srv = append(srv, s.ServerCPU)
			cli = append(cli, s.ClientCPU)
			perCore = append(perCore, perCoreRate(s.RPS, s.ServerCPU))
		}
		r.Median = summary{RPS: median(rps), P50Ms: median(p50), P99Ms: median(p99), P999Ms: median(p999),
			ServerCPU: median(srv), ClientCPU: median(cli), RPSPerCore: median(perCore), Runs: len(rps)}
	}
}

// compare pairs every corekv result with the redis result of the same cell.
func compare(results []*result) []comparison {
	redis := map[cell]*result{}
	for _, r := range results {
		if r.Target.Server == "redis" {
			redis[r.Cell] = r
		}
	}
	var out []comparison
	for _, r := range results {
		base := redis[r.Cell]
		if r.Target.Server != "corekv" || base == nil {
			continue
		}
		out = append(out, comparison{Cell: r.Cell, Shards: r.Target.Shards,
			CorekvRPS: r.Median.RPS, RedisRPS: base.Median.RPS, RPSRatio: ratio(r.Median.RPS, base.Median.RPS),
			PerCoreRatio: ratio(r.Median.RPSPerCore, base.Median.RPSPerCore),
			CorekvP99:    r.Median.P99Ms, RedisP99: base.Median.P99Ms, P99Ratio: ratio(r.Median.P99Ms, base.Median.P99Ms),
			CorekvP999: r.Median.P999Ms, RedisP999: base.Median.P999Ms})
	}
	return out
}

// median of xs; the mean of the two middle values when their number is even; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// ratio is a/b, or 0 when either side is missing, so that JSON never holds NaN or Inf.
func ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	return a / b
}

// perCoreRate is req/s scaled to one fully busy server core; 0 when the CPU share is too small to trust
// (the kernel counts CPU time in 10 ms ticks).
func perCoreRate(rps, cpu float64) float64 {
	if cpu < 0.05 {
		return 0
	}
	return rps / cpu
}

// benchOutput is what redis-benchmark printed for one test.
type benchOutput struct {
	Test   string
	RPS    float64
	AvgMs  float64
	MinMs  float64
	P50Ms  float64
	P95Ms  float64
	P99Ms  float64
	P999Ms float64 // 0 when the output has no percentile table
	MaxMs  float64
}

// pctPoint is one row of redis-benchmark's "Latency by percentile distribution" table:
// "99.902% <= 2.679 milliseconds (cumulative count 19984)".
type pctPoint struct {
	Ms    float64
	Count int64
}

// parseText reads redis-benchmark 7's default (human) output: per test a "====== NAME ======" header, the
// HDR percentile table, and a summary with the throughput and avg/min/p50/p95/p99/max. Progress lines,
// separated by carriage returns, are skipped.
func parseText(out string) ([]benchOutput, error) {
	var (
		res     []benchOutput
		cur     *benchOutput
		table   []pctPoint
		section string
		header  []string
	)
	closeTest := func() {
		if cur != nil {
			cur.P999Ms = percentileFromTable(table, 99.9)
			res = append(res, *cur)
		}
	}
	lines := strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
	for _, raw := range lines {
		line := strings.TrimSpace(raw)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "======") && strings.HasSuffix(line, "======"):
			closeTest()
			name := strings.TrimSpace(strings.Trim(line, "="))
			cur, table, section, header = &benchOutput{Test: name}, nil, "", nil
			continue
		case cur == nil:
			continue
		case line == "Latency by percentile distribution:":
			section = "percentiles"
			continue
		case strings.HasPrefix(line, "Cumulative distribution of latencies"), line == "Summary:":
			section = ""
			continue
		case strings.HasPrefix(line, "latency summary"):
			section, header = "latency", nil
			continue
		}
		if v, ok := strings.CutPrefix(line, "throughput summary:"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				return nil, fmt.Errorf("%s: bad throughput line %q", cur.Test, line)
			}
			rps, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: bad throughput line %q", cur.Test, line)
			}
			cur.RPS = rps
			continue
		}
		switch section {
		case "percentiles":
			p, ok := parsePctLine(line)
			if ok {
				table = append(table, p)
			}
		case "latency":
			if header == nil {
				header = strings.Fields(line)
				continue
			}
			vals := strings.Fields(line)
			if len(vals) != len(header) {
				return nil, fmt.Errorf("%s: latency summary has %d values for %d columns", cur.Test, len(vals), len(header))
			}
			for i, h := range header {
				v, err := strconv.ParseFloat(vals[i], 64)
				if err != nil {
					return nil, fmt.Errorf("%s: bad latency %q", cur.Test, vals[i])
				}
				if dst := latencyField(cur, h); dst != nil {
					*dst = v
				}
			}
			section = ""
		}
	}
	closeTest()
	for _, r := range res {
		if r.RPS <= 0 {
			return nil, fmt.Errorf("%s: no throughput summary", r.Test)
		}
	}
	if len(res) == 0 {
		return nil, errors.New("no test results in redis-benchmark output")
	}
	return res, nil
}

func latencyField(o *benchOutput, name string) *float64 {
	switch strings.ToLower(name) {
	case "avg":
		return &o.AvgMs
	case "min":
		return &o.MinMs
	case "p50":
		return &o.P50Ms
	case "p95":
		return &o.P95Ms
	case "p99":
		return &o.P99Ms
	case "max":
		return &o.MaxMs
	}
	return nil
}

// parsePctLine reads "99.902% <= 2.679 milliseconds (cumulative count 19984)".
func parsePctLine(line string) (pctPoint, bool) {
	f := strings.Fields(line)
	if len(f) != 7 || !strings.HasSuffix(f[0], "%") || f[1] != "<=" || f[3] != "milliseconds" {
		return pctPoint{}, false
	}
	ms, err1 := strconv.ParseFloat(f[2], 64)
	count, err2 := strconv.ParseInt(strings.TrimSuffix(f[6], ")"), 10, 64)
	if err1 != nil || err2 != nil {
		return pctPoint{}, false
	}
	return pctPoint{Ms: ms, Count: count}, true
}

// percentileFromTable returns the latency of the first table row whose cumulative count reaches pct percent
// of all requests. The true percentile lies between the previous row's latency and this one, so this is an
// upper bound, one row step at most above it; rows near p99.9 are about 0.1 percentile apart. 0 for an
// empty table.
func percentileFromTable(table []pctPoint, pct float64) float64 {
	if len(table) == 0 {
		return 0
	}
	total := table[len(table)-1].Count
	// count/total >= pct/100, kept in integers so that 99.9% of 20000 is exactly 19980.
	need := int64(pct * 1000)
	for _, p := range table {
		if p.Count*100000 >= need*total {
			return p.Ms
		}
	}
	return table[len(table)-1].Ms
}

// parseCSV reads redis-benchmark 7's --csv output: a header row, then one row per test with rps and
// avg/min/p50/p95/p99/max latencies in milliseconds. It has no p99.9.
func parseCSV(out string) ([]benchOutput, error) {
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("redis-benchmark csv: %w", err)
	}
	if len(rows) < 2 {
		return nil, errors.New("no test results in redis-benchmark csv output")
	}
	cols := map[string]int{}
	for i, h := range rows[0] {
		cols[h] = i
	}
	for _, need := range []string{"test", "rps", "p50_latency_ms", "p99_latency_ms"} {
		if _, ok := cols[need]; !ok {
			return nil, fmt.Errorf("redis-benchmark csv: no %q column", need)
		}
	}
	var res []benchOutput
	for _, row := range rows[1:] {
		if len(row) != len(rows[0]) {
			return nil, fmt.Errorf("redis-benchmark csv: row of %d fields under %d columns", len(row), len(rows[0]))
		}
		o := benchOutput{Test: row[cols["test"]]}
		for name, dst := range map[string]*float64{"rps": &o.RPS, "avg_latency_ms": &o.AvgMs,
			"min_latency_ms": &o.MinMs, "p50_latency_ms": &o.P50Ms, "p95_latency_ms": &o.P95Ms,
			"p99_latency_ms": &o.P99Ms, "max_latency_ms": &o.MaxMs} {
			i, ok := cols[name]
			if !ok {
				continue
			}
			if *dst, err = strconv.ParseFloat(row[i], 64); err != nil {
				return nil, fmt.Errorf("redis-benchmark csv: %s: bad %s %q", o.Test, name, row[i])
			}
		}
		res = append(res, o)
	}
	return res, nil
}

// tail is the end of a program's output for an error message, without redis-benchmark's progress lines.
func tail(s string) string {
	var keep []string
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if line = strings.TrimSpace(line); line != "" && !strings.Contains(line, "rps=") {
			keep = append(keep, line)
		}
	}
	s = strings.Join(keep, " | ")
	if len(s) > 400 {
		s = "..." + s[len(s)-400:]
	}
	if s == "" {
		return "(no output)"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// shortCount writes 100000 as 100k and 1000000 as 1M.
func shortCount(n int) string {
	switch {
	case n >= 1000000 && n%1000000 == 0:
		return strconv.Itoa(n/1000000) + "M"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + "k"
	}
	return strconv.Itoa(n)
}

// pickOutput returns the result of test among what one redis-benchmark run
// printed: the last one whose name starts with the test's (LRANGE_100 comes
// after the LPUSH that fills its list). A run of one test that printed one
// result is that result.
func pickOutput(test string, outs []benchOutput) (benchOutput, error) {
	if len(outs) == 1 {
		return outs[0], nil
	}
	for i := len(outs) - 1; i >= 0; i-- {
		if strings.HasPrefix(strings.ToLower(outs[i].Test), strings.ToLower(test)) {
			return outs[i], nil
		}
	}
	return benchOutput{}, fmt.Errorf("no result for %q among %d in the output (is it a redis-benchmark test?)", test, len(outs))
}
