package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// needTools skips the test when a program is missing, and fails it under CI=true, where they must be there.
func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		if _, err := exec.LookPath(name); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s not found, and CI=true requires it: install redis-server and redis-tools", name)
			}
			t.Skipf("%s not found: install redis-server (and redis-tools) to run this test", name)
		}
	}
}

func TestParseGCLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want gcCycle
	}{
		{"gc 10 @6.280s 0%: 0.40+3.6+0.085 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->493->420 MB, 503 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			gcCycle{Num: 10, AtS: 6.28, Pct: 0, SweepTermMs: 0.40, MarkMs: 3.6, MarkTermMs: 0.085, AssistCPUMs: 0,
				BackgroundCPUMs: 0.53, IdleCPUMs: 0.41, HeapStartMB: 493, HeapEndMB: 493, HeapLiveMB: 420, GoalMB: 503, Procs: 2}},
		{"gc 1 @0.594s 0%: 0.78+0.55+0.004 ms clock, 0.78+0.025/0.25/0.68+0.004 ms cpu, 3->3->2 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P",
			gcCycle{Num: 1, AtS: 0.594, SweepTermMs: 0.78, MarkMs: 0.55, MarkTermMs: 0.004, AssistCPUMs: 0.025,
				BackgroundCPUMs: 0.25, IdleCPUMs: 0.68, HeapStartMB: 3, HeapEndMB: 3, HeapLiveMB: 2, GoalMB: 4, Procs: 2}},
		// Forced by runtime.GC or the two-minute timer, with a trailing newline as read from the log.
		{"gc 7 @120.004s 1%: 0.021+1.2+0.010 ms clock, 0.042+0/0.61/0+0.020 ms cpu, 40->40->40 MB, 80 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)\n",
			gcCycle{Num: 7, AtS: 120.004, Pct: 1, SweepTermMs: 0.021, MarkMs: 1.2, MarkTermMs: 0.010,
				BackgroundCPUMs: 0.61, HeapStartMB: 40, HeapEndMB: 40, HeapLiveMB: 40, GoalMB: 80, Procs: 2, Forced: true}},
		// Runtimes before Go 1.19 print neither stacks nor globals.
		{"gc 3 @0.012s 12%: 0.026+0.39+0.042 ms clock, 0.21+0.12/0.35/0.32+0.34 ms cpu, 4->4->0 MB, 5 MB goal, 8 P",
			gcCycle{Num: 3, AtS: 0.012, Pct: 12, SweepTermMs: 0.026, MarkMs: 0.39, MarkTermMs: 0.042, AssistCPUMs: 0.12,
				BackgroundCPUMs: 0.35, IdleCPUMs: 0.32, HeapStartMB: 4, HeapEndMB: 4, HeapLiveMB: 0, GoalMB: 5, Procs: 8}},
	} {
		got, ok := parseGCLine(c.line)
		if !ok || got != c.want {
			t.Errorf("parseGCLine(%q)\n got  %+v %v\n want %+v", c.line, got, ok, c.want)
		}
	}
	c, _ := parseGCLine("gc 1 @0.594s 0%: 0.78+0.55+0.004 ms clock, 0.78+0.025/0.25/0.68+0.004 ms cpu, 3->3->2 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 2 P")
	if !near(c.markCPUMs(), 0.955) {
		t.Errorf("mark CPU %v, want 0.025+0.25+0.68", c.markCPUMs())
	}

	for _, bad := range []string{
		"",
		"corekv: listening on 127.0.0.1:6379 (1 shard)",
		"gc 10 @6.280s 0%: 0.40+3.6+0.085 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->493->420 MB, 503 MB goal, 0 MB st", // cut short
		"gc 10 @6.280s 0%: 0.40+3.6 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->493->420 MB, 503 MB goal, 2 P",
		"gc 10 @6.280s 0%: 0.40+3.6+0.085 ms clock, 0.40+0/0.53+0.085 ms cpu, 493->493->420 MB, 503 MB goal, 2 P",
		"gc 10 @6.280s 0%: 0.40+3.6+0.085 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->420 MB, 503 MB goal, 2 P",
		"gc x @6.280s 0%: 0.40+3.6+0.085 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->493->420 MB, 503 MB goal, 2 P",
		"gc 10 @6.280s 0%: 0.40+y+0.085 ms clock, 0.40+0/0.53/0.41+0.085 ms cpu, 493->493->420 MB, 503 MB goal, 2 P",
		"scvg: 0 MB released",
		"GC forced",
	} {
		if c, ok := parseGCLine(bad); ok {
			t.Errorf("parseGCLine(%q) = %+v, want no cycle", bad, c)
		}
	}
}

func TestGCCyclesIn(t *testing.T) {
	line := func(n int) string {
		return "gc " + string(rune('0'+n)) + " @0.5s 0%: 0.1+0.2+0.3 ms clock, 0.1+0.1/0.2/0.3+0.3 ms cpu, 3->3->2 MB, 4 MB goal, 2 P\n"
	}
	log := "corekv: ready\n" + line(1) + line(2) + "some other line\n" + line(3) + line(4)
	at := func(s string) int64 { return int64(strings.Index(log, s)) }
	nums := func(cs []gcCycle) []int {
		var out []int
		for _, c := range cs {
			out = append(out, c.Num)
		}
		return out
	}
	all := gcCyclesIn([]byte(log), 0, int64(len(log)))
	if got := nums(all); !reflect.DeepEqual(got, []int{1, 2, 3, 4}) {
		t.Errorf("whole log: cycles %v", got)
	}
	// A span cut in the middle of a line gets the line when it starts inside the span.
	from, to := at("gc 2")+5, at("gc 4")+5
	if got := nums(gcCyclesIn([]byte(log), from, to)); !reflect.DeepEqual(got, []int{3, 4}) {
		t.Errorf("span [%d, %d): cycles %v, want [3 4]", from, to, got)
	}
	if got := gcCyclesIn([]byte(log), int64(len(log)), int64(len(log))); len(got) != 0 {
		t.Errorf("empty span: %v", got)
	}
	// The last line may lack its newline while the server still writes it.
	if got := nums(gcCyclesIn([]byte(strings.TrimSuffix(log, "\n")), at("gc 4"), int64(len(log)))); !reflect.DeepEqual(got, []int{4}) {
		t.Errorf("unterminated last line: cycles %v", got)
	}
}

func TestWithGCTrace(t *testing.T) {
	got := withGCTrace([]string{"PATH=/bin", "HOME=/root"})
	if want := []string{"PATH=/bin", "HOME=/root", "GODEBUG=gctrace=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = withGCTrace([]string{"GODEBUG=madvdontneed=1", "PATH=/bin"})
	if want := []string{"PATH=/bin", "GODEBUG=madvdontneed=1,gctrace=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	got = withGCTrace([]string{"GODEBUG="})
	if want := []string{"GODEBUG=gctrace=1"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestAppendBenchSet(t *testing.T) {
	for _, i := range []int{0, 7, 99999, 9999999, 999999999999, 1000000000000} {
		got := string(appendBenchSet([]byte("prefix"), i, "xxxxxxxxxxxxxxxx"))
		want := "prefix" + string(appendCommand(nil, "SET", benchKey(i), "xxxxxxxxxxxxxxxx"))
		if got != want {
			t.Errorf("key %d: got %q, want %q", i, got, want)
		}
	}
}

// fakeServer accepts one connection, reads commands and answers each with reply(i); it stops answering after
// stopAfter commands when stopAfter >= 0.
func fakeServer(t *testing.T, reply func(i int) string, stopAfter int) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r, w := bufio.NewReader(c), bufio.NewWriter(c)
		for i := 0; ; i++ {
			// Each SET of the loader is 7 lines: *3, $3, SET, $16, key, $16, value.
			for k := 0; k < 7; k++ {
				if _, err := r.ReadString('\n'); err != nil {
					return
				}
			}
			if stopAfter >= 0 && i >= stopAfter {
				continue // keep reading, never answer
			}
			w.WriteString(reply(i))
			if r.Buffered() == 0 {
				w.Flush()
			}
		}
	}()
	return l.Addr().String()
}

func TestLoadKeysChecksReplies(t *testing.T) {
	ctx := context.Background()
	value := strings.Repeat("x", 16)

	addr := fakeServer(t, func(int) string { return "+OK\r\n" }, -1)
	if err := loadKeys(ctx, addr, 5000, value, 10*time.Second); err != nil {
		t.Errorf("all +OK: %v", err)
	}

	addr = fakeServer(t, func(i int) string {
		if i == 1234 {
			return "-OOM command not allowed when used memory > 'maxmemory'\r\n"
		}
		return "+OK\r\n"
	}, -1)
	err := loadKeys(ctx, addr, 5000, value, 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "key:000000001234") || !strings.Contains(err.Error(), "OOM") {
		t.Errorf("error reply: got %v, want the key and the error", err)
	}

	addr = fakeServer(t, func(int) string { return "+OK\r\n" }, 100)
	t0 := time.Now()
	err = loadKeys(ctx, addr, 5000, value, 300*time.Millisecond)
	if err == nil || !strings.Contains(err.Error(), "within") || time.Since(t0) > 5*time.Second {
		t.Errorf("silent server: got %v after %v, want a timeout", err, time.Since(t0))
	}

	if err := loadKeys(ctx, "127.0.0.1:1", 10, value, time.Second); err == nil {
		t.Error("refused connection: no error")
	}
}

// startTestRedis starts a redis-server on the CPUs the test may use, for a
// test that drives it with redis-benchmark; the caller stops it.
func startTestRedis(ctx context.Context, t *testing.T) (*tools, *server) {
	t.Helper()
	needTools(t, "redis-server", "redis-benchmark", "taskset")
	tl, err := findTools()
	if err != nil {
		t.Fatal(err)
	}
	allowed, err := allowedCPUs()
	if err != nil {
		t.Skipf("no CPU affinity information: %v", err)
	}
	srv, err := startServer(ctx, tl, target{Server: "redis", CPUs: formatCPUList(allowed)}, false, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tl, srv
}

// TestLoadKeysRedis loads keys into a real redis-server and reads them back.
func TestLoadKeysRedis(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, srv := startTestRedis(ctx, t)
	defer srv.stop()

	const keys = 2000
	value := strings.Repeat("x", gcValueSize)
	if err := loadKeys(ctx, srv.addr(), keys, value, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	if n, err := dbSize(srv.addr()); err != nil || n != keys {
		t.Fatalf("DBSIZE = %d, %v; want %d", n, err, keys)
	}
	c, err := net.Dial("tcp", srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var req []byte
	for _, k := range []int{0, keys - 1, keys} {
		req = appendCommand(req, "GET", benchKey(k))
	}
	if _, err := c.Write(req); err != nil {
		t.Fatal(err)
	}
	want := "$16\r\n" + value + "\r\n" + "$16\r\n" + value + "\r\n" + "$-1\r\n"
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil || string(got) != want {
		t.Errorf("GET key:0, key:%d, key:%d answered %q, %v; want %q", keys-1, keys, got, err, want)
	}
}

func TestGCTrends(t *testing.T) {
	ck := target{Server: "corekv", Shards: 1}
	rd := target{Server: "redis"}
	cyc := []gcCycle{{Num: 1}}
	results := []gcResult{
		{Target: ck, Keys: 100000, Traced: true, ForcedCycles: cyc, MarkClockMs: 2, MarkCPUMs: 1, Clients: 50, GetP999Ms: 1, LightGetP999Ms: 0.5},
		{Target: rd, Keys: 100000, Clients: 50, GetP999Ms: 2, LightGetP999Ms: 1},
		{Target: ck, Keys: 10000000, Error: "boom", GetP999Ms: 100},
		{Target: ck, Keys: 1000000, Traced: true, ForcedCycles: cyc, MarkClockMs: 3, MarkCPUMs: 1.5, Clients: 50, GetP999Ms: 1.1, LightGetP999Ms: 0.55},
		{Target: rd, Keys: 1000000, Clients: 50, GetP999Ms: 3, LightGetP999Ms: 2},
	}
	got := gcTrends(results)
	want := []string{
		"corekv/1, 100k → 1M keys: GET p99.9 1.000 → 1.100 ms (+10%) with 50 clients, 0.500 → 0.550 ms (+10%) with 10 clients and no pipelining, full GC mark 2.000 → 3.000 ms clock (+50%), 1.000 → 1.500 ms CPU (+50%).",
		"redis, 100k → 1M keys: GET p99.9 2.000 → 3.000 ms (+50%) with 50 clients, 1.000 → 2.000 ms (+100%) with 10 clients and no pipelining; no Go GC.",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	results[3].ForcedCycles = nil
	if got := gcTrends(results); len(got) != 2 || !strings.Contains(got[0], "no forced GC cycle") {
		t.Errorf("without a cycle at 1M: %q", got)
	}
	if got := gcTrends(results[:2]); len(got) != 0 {
		t.Errorf("one key count: %q, want no sentence", got)
	}
}

func TestParseFlagsGC(t *testing.T) {
	cfg, err := parseFlags([]string{"--gc", "--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.GC || cfg.Memory || cfg.TempOut || !reflect.DeepEqual(cfg.GCKeys, []int{100000, 10000000}) ||
		cfg.GCRequests != 3000000 {
		t.Errorf("--gc: %+v", cfg)
	}
	cfg, err = parseFlags([]string{"--gc", "--smoke", "--gc-keys", "500", "--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(cfg.GCKeys, []int{500}) || cfg.GCRequests != 20000 || !cfg.TempOut {
		t.Errorf("--gc --smoke --gc-keys 500: %+v", cfg)
	}
	for _, bad := range [][]string{{"--gc", "--gc-keys", "x"}, {"--gc", "--gc-keys", ""}, {"--gc", "--csv"},
		{"--gc", "--gc-requests", "0"}} {
		if _, err := parseFlags(append(bad, "--server-cpus", "1", "--client-cpus", "0"), io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestGCSmoke runs the --gc mode end to end with redis-server on both sides (--only-redis), at one small key
// count.
func TestGCSmoke(t *testing.T) {
	out := t.TempDir()
	rep, log := runHarness(t, 30*time.Second, "--gc", "--smoke", "--only-redis", "--gc-keys", "2000", "--out", out)
	if len(rep.Results) != 0 || len(rep.Memory) != 0 || len(rep.GC) != 2 {
		t.Fatalf("%d results, %d memory, %d gc; want 0, 0, 2\n%s", len(rep.Results), len(rep.Memory), len(rep.GC), log)
	}
	for _, g := range rep.GC {
		if g.Error != "" || g.DBSize != 2000 || g.BytesPerKey <= 0 || len(g.Runs) != gcGetRuns || g.GetRPS <= 0 ||
			g.GetP999Ms <= 0 || g.Traced {
			t.Errorf("%s: %+v", g.Target.label(), g)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, reportBase(rep)+".md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## GC and size") || !strings.Contains(string(md), "| 2k | redis |") {
		t.Errorf("report lacks the GC section:\n%s", md)
	}
	data, err := os.ReadFile(filepath.Join(out, reportBase(rep)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var back report
	if err := json.Unmarshal(data, &back); err != nil || len(back.GC) != 2 || back.GC[1].GetP999Ms != rep.GC[1].GetP999Ms {
		t.Errorf("JSON does not read back: %v", err)
	}
	if !strings.Contains(filepath.Base(reportBase(rep)), "-gc") || !strings.Contains(log, "GET p99.9") {
		t.Errorf("report %s, or no GC table on stdout:\n%s", reportBase(rep), log)
	}
}

// TestGCSmokeCorekv runs the --gc mode against corekv itself, built by the harness, and checks what only a
// traced server gives: the forced full GC cycles and their mark times.
func TestGCSmokeCorekv(t *testing.T) {
	needTools(t, "go")
	rep, log := runHarness(t, 2*time.Minute, "--gc", "--smoke", "--gc-keys", "3000", "--out", t.TempDir())
	if len(rep.GC) != 2 || rep.GC[0].Target.Server != "corekv" {
		t.Fatalf("gc results %+v\n%s", rep.GC, log)
	}
	g := rep.GC[0]
	if g.Error != "" || !g.Traced || g.DBSize != 3000 || len(g.ForcedCycles) != gcForced || g.MarkCPUMs <= 0 {
		t.Errorf("corekv: %+v\n%s", g, log)
	}
	if len(g.LightRuns) != gcGetRuns || g.LightGetRPS <= 0 || g.LightGetP999Ms <= 0 {
		t.Errorf("light GET runs: %d, %v req/s, p99.9 %v ms", len(g.LightRuns), g.LightGetRPS, g.LightGetP999Ms)
	}
	for _, s := range g.LightRuns {
		if !strings.Contains(s.Command, fmt.Sprintf(" -P 1 -c %d ", gcLightClients)) {
			t.Errorf("light GET run: %s", s.Command)
		}
	}
	// INFO keeps the longest of the turns of 1 ms or more: 0 says none was.
	if g.LoadLongestTurnMs != 0 && g.LoadLongestTurnMs < 1 {
		t.Errorf("longest loop turn during the load %.3f ms: below the 1 ms INFO counts from", g.LoadLongestTurnMs)
	}
	if g.LongestTurnMs > 0 && g.SlowTurns == 0 {
		t.Errorf("longest loop turn %.3f ms with no slow turn counted", g.LongestTurnMs)
	}
	for _, c := range g.ForcedCycles {
		if !c.Forced {
			t.Errorf("cycle %d of the forced ones is not marked (forced): %+v", c.Num, c)
		}
	}
}
