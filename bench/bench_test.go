package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// testdata/redis-benchmark-get.txt is the raw output of redis-benchmark 7.0.15 -t get -n 20000 -P 4,
// progress lines and carriage returns included.
func TestParseTextGet(t *testing.T) {
	outs, err := parseText(readTestdata(t, "redis-benchmark-get.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 1 {
		t.Fatalf("got %d tests, want 1", len(outs))
	}
	want := benchOutput{Test: "GET", RPS: 72992.70, AvgMs: 1.650, MinMs: 0.272, P50Ms: 1.143, P95Ms: 4.519,
		P99Ms: 7.039, MaxMs: 8.935,
		// 99.9% of 20000 is 19980: the first row reaching it is "99.902% <= 8.871 milliseconds (… 19984)".
		P999Ms: 8.871}
	if outs[0] != want {
		t.Errorf("got  %+v\nwant %+v", outs[0], want)
	}
}

func TestParseTextSeveralTests(t *testing.T) {
	outs, err := parseText(readTestdata(t, "redis-benchmark-set-mset.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(outs) != 2 || outs[0].Test != "SET" || outs[1].Test != "MSET (10 keys)" {
		t.Fatalf("got %+v", outs)
	}
	if !near(outs[0].RPS, 19305.02) || !near(outs[1].P99Ms, 3.799) || !near(outs[1].MaxMs, 18.735) {
		t.Errorf("got %+v", outs)
	}
	for _, o := range outs {
		if o.P999Ms < o.P99Ms || o.P999Ms > o.MaxMs {
			t.Errorf("%s: p99.9 %v outside [p99 %v, max %v]", o.Test, o.P999Ms, o.P99Ms, o.MaxMs)
		}
	}
}

func TestParseTextErrors(t *testing.T) {
	for name, out := range map[string]string{
		"empty":             "",
		"refused":           "Could not connect to Redis at 127.0.0.1:1: Connection refused\n",
		"no summary":        "====== SET ======\n  100 requests completed in 0.01 seconds\n",
		"bad latency":       "====== SET ======\nSummary:\n  throughput summary: 10 requests per second\n  latency summary (msec):\n avg min\n 1.0 x\n",
		"short latency row": "====== SET ======\nSummary:\n  throughput summary: 10 requests per second\n  latency summary (msec):\n avg min\n 1.0\n",
	} {
		if outs, err := parseText(out); err == nil {
			t.Errorf("%s: no error, got %+v", name, outs)
		}
	}
}

func TestPercentileFromTable(t *testing.T) {
	table := []pctPoint{{0.1, 1}, {1.0, 500}, {2.0, 990}, {3.0, 998}, {4.0, 999}, {5.0, 1000}}
	for _, c := range []struct {
		pct, want float64
	}{{50, 1.0}, {99, 2.0}, {99.8, 3.0}, {99.9, 4.0}, {100, 5.0}, {0, 0.1}} {
		if got := percentileFromTable(table, c.pct); got != c.want {
			t.Errorf("p%v = %v, want %v", c.pct, got, c.want)
		}
	}
	if got := percentileFromTable(nil, 99.9); got != 0 {
		t.Errorf("empty table: %v, want 0", got)
	}
}

func TestParsePctLine(t *testing.T) {
	p, ok := parsePctLine("99.902% <= 8.871 milliseconds (cumulative count 19984)")
	if !ok || p != (pctPoint{Ms: 8.871, Count: 19984}) {
		t.Errorf("got %+v %v", p, ok)
	}
	for _, bad := range []string{"", "throughput summary: 1 requests per second",
		"99% <= x milliseconds (cumulative count 1)", "99% <= 1 seconds (cumulative count 1)"} {
		if _, ok := parsePctLine(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseCSV(t *testing.T) {
	outs, err := parseCSV(readTestdata(t, "redis-benchmark.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range outs {
		names = append(names, o.Test)
	}
	if want := []string{"SET", "GET", "INCR", "MSET (10 keys)"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("tests %q, want %q", names, want)
	}
	want := benchOutput{Test: "GET", RPS: 178857.14, AvgMs: 3.897, MinMs: 0.216, P50Ms: 4.423, P95Ms: 6.303,
		P99Ms: 6.639, MaxMs: 6.855}
	if outs[1] != want {
		t.Errorf("got  %+v\nwant %+v", outs[1], want)
	}
	for _, bad := range []string{"", `"test","rps"` + "\n", "\"test\",\"rps\",\"p50_latency_ms\",\"p99_latency_ms\"\n\"SET\",\"x\",\"1\",\"2\"\n"} {
		if _, err := parseCSV(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}, {[]float64{5, 5}, 5}} {
		in := append([]float64(nil), c.in...)
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
		if !reflect.DeepEqual(in, c.in) {
			t.Errorf("median reordered its input: %v", c.in)
		}
	}
}

func TestRatio(t *testing.T) {
	if got := ratio(300, 200); got != 1.5 {
		t.Errorf("ratio(300, 200) = %v", got)
	}
	for _, c := range [][2]float64{{0, 1}, {1, 0}, {0, 0}, {-1, 2}} {
		if got := ratio(c[0], c[1]); got != 0 {
			t.Errorf("ratio(%v, %v) = %v, want 0", c[0], c[1], got)
		}
	}
	if got := perCoreRate(1000, 0.5); got != 2000 {
		t.Errorf("perCoreRate(1000, 0.5) = %v", got)
	}
	if got := perCoreRate(1000, 0.01); got != 0 {
		t.Errorf("perCoreRate with a CPU share below a tick = %v, want 0", got)
	}
}

func TestFinishAndCompare(t *testing.T) {
	c := cell{Test: "set", Pipeline: 1, Clients: 50, Keyspace: 1000, Size: 16, Requests: 100}
	redis := &result{Target: target{Server: "redis"}, Cell: c, Samples: []sample{
		{RPS: 100, P99Ms: 2, ServerCPU: 1}, {RPS: 300, P99Ms: 4, ServerCPU: 1}, {RPS: 200, P99Ms: 3, ServerCPU: 1},
	}}
	ck := &result{Target: target{Server: "corekv", Shards: 2}, Cell: c, Samples: []sample{
		{RPS: 400, P99Ms: 1, ServerCPU: 2}, {Error: "boom", RPS: 1e9}, {RPS: 600, P99Ms: 2, ServerCPU: 2},
	}}
	finish([]*result{redis, ck})
	if redis.Median.RPS != 200 || redis.Median.P99Ms != 3 || redis.Median.RPSPerCore != 200 || redis.Median.Runs != 3 {
		t.Errorf("redis median %+v", redis.Median)
	}
	if ck.Median.RPS != 500 || ck.Median.P99Ms != 1.5 || ck.Median.RPSPerCore != 250 || ck.Median.Runs != 2 {
		t.Errorf("corekv median %+v (failed samples must not count)", ck.Median)
	}
	cmp := compare([]*result{redis, ck})
	if len(cmp) != 1 {
		t.Fatalf("got %d comparisons", len(cmp))
	}
	if got := cmp[0]; got.Shards != 2 || got.RPSRatio != 2.5 || got.PerCoreRatio != 1.25 || got.P99Ratio != 0.5 {
		t.Errorf("comparison %+v", got)
	}
}

func TestRequestsFor(t *testing.T) {
	for _, c := range []struct{ base, maxN, p, want int }{
		{200000, 2000000, 1, 200000}, {200000, 2000000, 4, 200000}, {200000, 2000000, 16, 800000},
		{200000, 2000000, 64, 2000000}, {200000, 500000, 16, 500000},
	} {
		if got := requestsFor(c.base, c.maxN, c.p); got != c.want {
			t.Errorf("requestsFor(%d, %d, P=%d) = %d, want %d", c.base, c.maxN, c.p, got, c.want)
		}
	}
}

func TestCPUList(t *testing.T) {
	for in, want := range map[string][]int{"0": {0}, "1-3": {1, 2, 3}, "0,2-3,7": {0, 2, 3, 7}, "3,1,1": {1, 3}} {
		got, err := parseCPUList(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseCPUList(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "a", "3-1", "-1", "1-"} {
		if got, err := parseCPUList(bad); err == nil {
			t.Errorf("parseCPUList(%q) = %v, want an error", bad, got)
		}
	}
	for want, in := range map[string][]int{"0": {0}, "0-3": {0, 1, 2, 3}, "0,2-3,7": {0, 2, 3, 7}, "": nil} {
		if got := formatCPUList(in); got != want {
			t.Errorf("formatCPUList(%v) = %q, want %q", in, got, want)
		}
	}
	if got := scalingShards(6); !reflect.DeepEqual(got, []int{1, 2, 4, 6}) {
		t.Errorf("scalingShards(6) = %v", got)
	}
	if got := scalingShards(1); !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("scalingShards(1) = %v", got)
	}
}

func TestProcParsers(t *testing.T) {
	// The command name may hold spaces and parentheses.
	stat := "4242 (corekv (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 5 0 100 0 0"
	if got, err := parseStatCPU(stat); err != nil || !near(got, 3.25) {
		t.Errorf("parseStatCPU = %v, %v; want 3.25", got, err)
	}
	if _, err := parseStatCPU("4242 (x) S 1"); err == nil {
		t.Error("short stat parsed")
	}
	status := "Name:\tredis-server\nVmPeak:\t  9000 kB\nVmRSS:\t    7788 kB\nThreads:\t5\n"
	if got, err := parseVmRSS(status); err != nil || got != 7788*1024 {
		t.Errorf("parseVmRSS = %v, %v", got, err)
	}
	if _, err := parseVmRSS("Name:\tx\n"); err == nil {
		t.Error("status without VmRSS parsed")
	}
	if got := cpuModel("processor\t: 0\nmodel name\t: AMD EPYC 7B13\n"); got != "AMD EPYC 7B13" {
		t.Errorf("cpuModel = %q", got)
	}
}

func TestParseFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--quick", "--server-cpus", "2-5", "--client-cpus", "0-1", "--pipelines", "8"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Tests, []string{"set", "get"}) || !reflect.DeepEqual(cfg.Pipelines, []int{8}) ||
		cfg.Repeat != 1 || !cfg.TempOut || cfg.Memory {
		t.Errorf("--quick presets: %+v", cfg)
	}
	if !reflect.DeepEqual(cfg.Shards, []int{1, 4}) || cfg.ClientProcs != 2 || cfg.ClientThreads != 0 || cfg.ServerCPUs != "2-5" {
		t.Errorf("shards %v, client procs %d threads %d, server CPUs %q", cfg.Shards, cfg.ClientProcs, cfg.ClientThreads, cfg.ServerCPUs)
	}
	cfg, err = parseFlags([]string{"--scaling", "--server-cpus", "1-6", "--out", "x"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Shards, []int{1, 2, 4, 6}) || cfg.TempOut {
		t.Errorf("--scaling: shards %v, temp out %v", cfg.Shards, cfg.TempOut)
	}
	tg := targets(cfg)
	if len(tg) != 5 || tg[0].CPUs != "1-6" || tg[2].CPUs != "1-2" || tg[4].CPUs != "1-6" {
		t.Errorf("--scaling targets %+v", tg)
	}
	cfg, err = parseFlags([]string{"--quick", "--corekv-args", " --spin 0  --hz 20"}, io.Discard)
	if err != nil || !reflect.DeepEqual(cfg.CorekvArgs, []string{"--spin", "0", "--hz", "20"}) {
		t.Errorf("--corekv-args: %q, %v", cfg.CorekvArgs, err)
	}
	for _, bad := range [][]string{{"--quick", "--smoke"}, {"--pipelines", "0"}, {"--server-cpus", "x"}, {"extra"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestServerArgv checks the command lines the harness starts servers with:
// --corekv-args go to corekv only, never to redis-server.
func TestServerArgv(t *testing.T) {
	tl := &tools{Taskset: "taskset", RedisServer: "redis-server", Corekv: "corekv", CorekvArgs: []string{"--spin", "0"}}
	for _, tc := range []struct {
		t         target
		onlyRedis bool
		want      string
	}{
		{target{Server: "redis", CPUs: "1"}, false,
			"taskset -c 1 redis-server --port 7 --bind 127.0.0.1 --save  --appendonly no --protected-mode no"},
		{target{Server: "corekv", Shards: 2, CPUs: "0-1"}, false,
			"taskset -c 0-1 corekv --port 7 --bind 127.0.0.1 --save  --shards 2 --spin 0"},
		{target{Server: "corekv"}, false, "corekv --port 7 --bind 127.0.0.1 --save  --spin 0"},
		{target{Server: "redis"}, false,
			"redis-server --port 7 --bind 127.0.0.1 --save  --appendonly no --protected-mode no"},
		{target{Server: "corekv", Shards: 1, CPUs: "1"}, true,
			"taskset -c 1 redis-server --port 7 --bind 127.0.0.1 --save  --appendonly no --protected-mode no"},
	} {
		if got := strings.Join(serverArgv(tl, tc.t, 7, tc.onlyRedis), " "); got != tc.want {
			t.Errorf("%+v (only redis %v):\n got %s\nwant %s", tc.t, tc.onlyRedis, got, tc.want)
		}
	}
}

// TestReportBase checks the report's file names: each single-measurement mode writes beside, not over, the
// full report of the same day.
func TestReportBase(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "2026-11-30-box"},
		{[]string{"--memory"}, "2026-11-30-box-memory"},
		{[]string{"--gc"}, "2026-11-30-box-gc"},
		{[]string{"--scaling"}, "2026-11-30-box-scaling"},
		{[]string{"--first-run"}, "2026-11-30-box-first-run"},
	} {
		cfg, err := parseFlags(append(c.args, "--server-cpus", "1", "--client-cpus", "0"), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		rep := &report{Config: cfg, Machine: machine{Host: "box"}, Started: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)}
		if got := reportBase(rep); got != c.want {
			t.Errorf("%v: report named %q, want %q", c.args, got, c.want)
		}
	}
}

// runHarness runs the harness with args, its client pinned to the first CPU
// the test may use, and returns the report and what it printed. It skips
// when the tools or CPU affinity information are missing.
func runHarness(t *testing.T, timeout time.Duration, args ...string) (*report, string) {
	t.Helper()
	needTools(t, "redis-server", "redis-benchmark", "taskset")
	allowed, err := allowedCPUs()
	if err != nil {
		t.Skipf("no CPU affinity information: %v", err)
	}
	cfg, err := parseFlags(append(args, "--client-cpus", formatCPUList(allowed[:1])), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rep, err := run(ctx, cfg, &log)
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	return rep, log.String()
}

// TestSmoke runs the harness in --smoke mode with redis-server on both sides, once through --only-redis and
// once through the corekv command line (testdata/corekv-as-redis.sh takes corekv's flags).
func TestSmoke(t *testing.T) {
	for name, extra := range map[string][]string{
		"only-redis": {"--only-redis"},
		"wrapper":    {"--corekv-bin", filepath.Join("testdata", "corekv-as-redis.sh")},
	} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			rep, log := runHarness(t, 30*time.Second, append([]string{"--smoke", "--out", out}, extra...)...)
			if len(rep.Results) != 2 || len(rep.Comparisons) != 1 {
				t.Fatalf("%d results, %d comparisons; want 2 and 1\n%s", len(rep.Results), len(rep.Comparisons), log)
			}
			for _, r := range rep.Results {
				if r.Median.Runs != 1 || r.Median.RPS <= 0 || r.Median.P99Ms <= 0 || r.Median.P999Ms < r.Median.P99Ms {
					t.Errorf("%s: %+v %+v", r.Target.label(), r.Median, r.Samples)
				}
			}
			files, _ := filepath.Glob(filepath.Join(out, "*"))
			var exts []string
			for _, f := range files {
				exts = append(exts, filepath.Ext(f))
			}
			sort.Strings(exts)
			if strings.Join(exts, " ") != ".json .md .svg .svg" {
				t.Errorf("files written: %v", files)
			}
			for _, f := range files {
				if filepath.Ext(f) != ".json" {
					continue
				}
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				var back report
				if err := json.Unmarshal(data, &back); err != nil || len(back.Results) != 2 {
					t.Errorf("%s does not read back: %v", f, err)
				}
			}
			if !strings.Contains(log, "ratio") {
				t.Errorf("no ratio table on stdout:\n%s", log)
			}
		})
	}
}

func TestWriteList(t *testing.T) {
	for _, c := range []struct {
		lines []string
		want  string
	}{
		{nil, ""},
		{[]string{"a run 1: boom", "b run 2: bang"}, "Failed runs:\n\n- a run 1: boom\n- b run 2: bang\n\n"},
	} {
		var b strings.Builder
		writeList(&b, "Failed runs", c.lines)
		if b.String() != c.want {
			t.Errorf("%q: wrote %q, want %q", c.lines, b.String(), c.want)
		}
	}
}

// TestParseFlagsFirstRun checks the --first-run presets and targets: both servers and the client unpinned,
// corekv without --shards, and --shards adding corekv targets beside its default.
func TestParseFlagsFirstRun(t *testing.T) {
	cfg, err := parseFlags([]string{"--first-run"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.Tests, []string{"get", "set"}) || !reflect.DeepEqual(cfg.Pipelines, []int{1, 16, 64}) ||
		!reflect.DeepEqual(cfg.Keyspaces, []int{100000}) || !reflect.DeepEqual(cfg.Sizes, []int{3}) ||
		cfg.Repeat != 5 || cfg.Memory || len(cfg.Shards) != 0 || cfg.HopGets != hopSingles {
		t.Errorf("--first-run presets: %+v", cfg)
	}
	if tg := targets(cfg); !reflect.DeepEqual(tg, []target{{Server: "redis"}, {Server: "corekv"}}) {
		t.Errorf("--first-run targets %+v", tg)
	}
	tl := &tools{Taskset: "taskset", RedisBenchmark: "redis-benchmark"}
	srv := &server{Port: 7}
	if got := strings.Join(clientArgv(cfg, tl, srv, "-q"), " "); got != "redis-benchmark -h 127.0.0.1 -p 7 -q" {
		t.Errorf("--first-run client: %s", got)
	}
	cfg, err = parseFlags([]string{"--first-run", "--shards", "2", "--repeat", "3"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if tg := targets(cfg); len(tg) != 3 || tg[2] != (target{Server: "corekv", Shards: 2}) || cfg.Repeat != 3 {
		t.Errorf("--first-run --shards 2: targets %+v, repeat %d", tg, cfg.Repeat)
	}
	for _, bad := range [][]string{{"--first-run", "--quick"}, {"--first-run", "--gc"}, {"--first-run", "--expiry"}} {
		if _, err := parseFlags(bad, io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestFirstRunSmoke runs --first-run --smoke against corekv built by the harness: the matrix against both
// servers' defaults, and the hop measurement, which must find exactly one of its two keys on the other shard.
func TestFirstRunSmoke(t *testing.T) {
	needTools(t, "go")
	out := t.TempDir()
	rep, log := runHarness(t, 2*time.Minute, "--first-run", "--smoke", "--out", out)
	if len(rep.Results) != 2 || len(rep.Comparisons) != 1 || rep.Comparisons[0].RPSRatio <= 0 {
		t.Fatalf("%d results, %d comparisons; want 2 and 1\n%s", len(rep.Results), len(rep.Comparisons), log)
	}
	for _, s := range rep.Results[0].Samples {
		if strings.Contains(s.Command, "taskset") {
			t.Errorf("client pinned: %s", s.Command)
		}
	}
	h := rep.Hop
	if h == nil || h.Error != "" {
		t.Fatalf("hop: %+v\n%s", h, log)
	}
	remote := map[string]int{}
	for _, b := range h.Blocks {
		if b.Remote {
			remote[b.Key]++
			if b.Sent != int64(b.GETs) || (b.Pipeline == 1 && b.Batches != int64(b.GETs)) {
				t.Errorf("remote block: %d GETs, %d commands in %d batches sent", b.GETs, b.Sent, b.Batches)
			}
		} else if b.Sent != 0 {
			t.Errorf("local block sent %d commands to the other shard: %+v", b.Sent, b)
		}
	}
	if len(remote) != 1 || len(h.Blocks) != 2*2*hopRounds {
		t.Errorf("hop blocks: remote keys %v of %d blocks", remote, len(h.Blocks))
	}
	if h.Remote.RTTUs <= 0 || h.Local.RTTUs <= 0 || h.Remote.CommandsPerHop < 1 {
		t.Errorf("hop figures: %+v", h)
	}
	data, err := os.ReadFile(filepath.Join(out, reportBase(rep)+".md"))
	if err != nil || !strings.Contains(string(data), "## Cost of a hop") || strings.Contains(string(data), "taskset -c") {
		t.Errorf("report (%v):\n%s", err, data)
	}
}

// TestPickOutput: a run of one test gives that test's figures, also when
// redis-benchmark printed a preparation before it (LRANGE_* fills its list
// with an LPUSH first) or split it in two (ping: inline and multibulk).
func TestPickOutput(t *testing.T) {
	lrange := []benchOutput{{Test: "LPUSH (needed to benchmark LRANGE)", RPS: 1}, {Test: "LRANGE_100 (first 100 elements)", RPS: 2}}
	if o, err := pickOutput("lrange_100", lrange); err != nil || o.RPS != 2 {
		t.Errorf("lrange_100: %+v, %v; want the LRANGE_100 result", o, err)
	}
	ping := []benchOutput{{Test: "PING_INLINE", RPS: 1}, {Test: "PING_MBULK", RPS: 2}}
	if o, err := pickOutput("ping_inline", ping); err != nil || o.RPS != 1 {
		t.Errorf("ping_inline: %+v, %v", o, err)
	}
	if o, err := pickOutput("SET", []benchOutput{{Test: "SET", RPS: 3}}); err != nil || o.RPS != 3 {
		t.Errorf("set: %+v, %v", o, err)
	}
	if _, err := pickOutput("hset", ping); err == nil {
		t.Error("hset among PING results: no error")
	}
}

func TestParseFlagsDefaultTests(t *testing.T) {
	cfg, err := parseFlags([]string{"--tests", "default"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tests) != len(defaultTests) || cfg.Tests[0] != "ping_inline" || cfg.Tests[len(cfg.Tests)-1] != "mset" {
		t.Errorf("--tests default gave %v", cfg.Tests)
	}
}

// TestPopCellsPop: before a pop cell the harness fills the key the way
// redis-benchmark's default order leaves it, so that the cell pops from a
// big value instead of an empty key.
func TestPopCellsPop(t *testing.T) {
	cfg, err := parseFlags([]string{"--first-run"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tl, srv := startTestRedis(ctx, t)
	defer srv.stop()
	const n = 3200 // a whole number of pipelines of every client
	for _, tc := range []struct {
		test, size string
		key        string
		full, left int // the key's size before the cell, and after it
	}{
		{"lpop", "LLEN", "mylist", 2 * n, n},
		{"rpop", "LLEN", "mylist", n, 0},
		{"spop", "SCARD", "myset", -1, 0},
		{"zpopmin", "ZCARD", "myzset", -1, 0},
	} {
		c := cell{Test: tc.test, Pipeline: 16, Clients: 10, Keyspace: 1000, Size: 3, Requests: n}
		if err := flushAll(srv.addr()); err != nil {
			t.Fatal(err)
		}
		if err := fillPopped(ctx, cfg, tl, srv, c, popFill[tc.test]); err != nil {
			t.Fatal(err)
		}
		got, err := command(srv.addr(), 5*time.Second, tc.size, tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if size, _ := strconv.Atoi(got); size == 0 || tc.full > 0 && size != tc.full {
			t.Errorf("%s: %s %s = %s before the cell, want %d (-1: any but 0)", tc.test, tc.size, tc.key, got, tc.full)
		}
		if s := runCell(ctx, cfg, tl, srv, c); s.Error != "" || s.RPS <= 0 {
			t.Fatalf("%s: %+v", tc.test, s)
		}
		if got, _ := command(srv.addr(), 5*time.Second, tc.size, tc.key); got != strconv.Itoa(tc.left) {
			t.Errorf("%s: %s %s = %s after the cell, want %d", tc.test, tc.size, tc.key, got, tc.left)
		}
	}
}

func TestCellProcsSplitsClientsAndRequests(t *testing.T) {
	cfg := &config{ClientProcs: 3, clientCPUList: []int{4, 5}}
	tl := &tools{Taskset: "taskset", RedisBenchmark: "redis-benchmark"}
	srv := &server{Port: 7000}
	procs := cellProcs(cfg, tl, srv, cell{Test: "set", Pipeline: 16, Clients: 50, Keyspace: 100, Size: 16, Requests: 1001})
	if len(procs) != 3 {
		t.Fatalf("%d processes, want 3", len(procs))
	}
	var clients, requests int
	for i, p := range procs {
		argv := strings.Join(p.argv, " ")
		if want := fmt.Sprintf("taskset -c %d redis-benchmark", []int{4, 5, 4}[i]); !strings.HasPrefix(argv, want) {
			t.Errorf("process %d: %q, want prefix %q", i, argv, want)
		}
		c, n := argAfter(t, p.argv, "-c"), argAfter(t, p.argv, "-n")
		if n != p.requests {
			t.Errorf("process %d: -n %d but %d requests counted", i, n, p.requests)
		}
		clients, requests = clients+c, requests+n
	}
	if clients != 50 || requests != 1001 {
		t.Errorf("split into %d clients and %d requests, want 50 and 1001", clients, requests)
	}
	if got := cellProcs(cfg, tl, srv, cell{Test: "set", Clients: 2, Requests: 10}); len(got) != 2 {
		t.Errorf("2 connections over %d processes, want 2", len(got))
	}
	cfg.ClientProcs = 1
	if got := cellProcs(cfg, tl, srv, cell{Test: "set", Clients: 50, Requests: 10}); len(got) != 1 ||
		!strings.HasPrefix(strings.Join(got[0].argv, " "), "taskset -c 4-5 ") {
		t.Errorf("one process: %+v", got)
	}
}

// argAfter reads redis-benchmark's integer option flag (taskset's -c comes before it).
func argAfter(t *testing.T, argv []string, flag string) int {
	t.Helper()
	seen := false
	for i, a := range argv[:len(argv)-1] {
		seen = seen || a == "redis-benchmark"
		if seen && a == flag {
			n, err := strconv.Atoi(argv[i+1])
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatalf("no %s in %q", flag, argv)
	return 0
}

func TestCombineTakesTheSlowestProcess(t *testing.T) {
	var s sample
	combine(&s, []procResult{
		{out: benchOutput{RPS: 1000, AvgMs: 1, P50Ms: 1, P99Ms: 3, P999Ms: 4, MaxMs: 9}, benchS: 1, cpuS: 0.5, requests: 1000},
		{out: benchOutput{RPS: 500, AvgMs: 2, P50Ms: 2, P99Ms: 2, P999Ms: 5, MaxMs: 6}, benchS: 2, cpuS: 0.5, requests: 1000},
	}, 2.5)
	// 2000 requests, the slower process took 2 s.
	if s.RPS != 1000 || s.BenchS != 2 || s.ClientCPU != 0.5 || s.AvgMs != 1.5 {
		t.Errorf("rps %v bench %v client cpu %v avg %v", s.RPS, s.BenchS, s.ClientCPU, s.AvgMs)
	}
	if s.P50Ms != 2 || s.P99Ms != 3 || s.P999Ms != 5 || s.MaxMs != 9 {
		t.Errorf("latencies %+v, want the highest of each", s)
	}
}
