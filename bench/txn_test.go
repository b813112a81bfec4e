package main

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the --txn load client, as the bench binary does.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == txnClientArg {
		os.Exit(txnClientMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

func TestCheckTxnReplies(t *testing.T) {
	good := "+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n:-7\r\n"
	for _, c := range []struct {
		stream string
		n      int
		err    string // "" when the stream must pass
	}{
		{good, 1, ""},
		{good + good + good, 3, ""},
		{good, 2, "unexpected EOF"},
		{"+OK\r\n+QUEUED\r\n-ERR wrong number of arguments\r\n*2\r\n:1\r\n:1\r\n", 1, "where +QUEUED was due"},
		{"-ERR MULTI calls can not be nested\r\n", 1, "where +OK was due"},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n-EXECABORT Transaction discarded because of previous errors.\r\n", 1, "EXEC answered"},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n*-1\r\n", 1, "EXEC answered \"*-1\""},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n:1\r\n:1\r\n:1\r\n", 1, "not an array of 2"},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n", 1, "unexpected EOF"},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n-ERR value is not an integer or out of range\r\n", 1, "not an integer"},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n$1\r\n1\r\n", 1, "not an integer"},
		{"+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n:1\r\n:x\r\n", 1, "not an integer"},
		{"+OK\n", 1, "does not end in CRLF"},
		{"+" + strings.Repeat("x", 200) + "\r\n", 1, "longer than"},
	} {
		err := checkTxnReplies(bufio.NewReaderSize(strings.NewReader(c.stream), 96), c.n)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.stream, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one with %q", c.stream, err, c.err)
		}
	}
}

func TestAppendTxn(t *testing.T) {
	want := "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$6\r\ntxn:12\r\n*2\r\n$4\r\nINCR\r\n$5\r\ntxn:8\r\n*1\r\n$4\r\nEXEC\r\n"
	if got := string(appendTxn(nil, false, 12, 8)); got != want {
		t.Errorf("random keys:\n got %q\nwant %q", got, want)
	}
	// The second number skips the first, so the two keys differ.
	if got := string(appendTxn(nil, false, 3, 3)); !strings.Contains(got, "txn:3\r\n") || !strings.Contains(got, "txn:4\r\n") {
		t.Errorf("equal numbers: %q", got)
	}
	want = "*1\r\n$5\r\nMULTI\r\n*2\r\n$4\r\nINCR\r\n$6\r\n{t42}a\r\n*2\r\n$4\r\nINCR\r\n$6\r\n{t42}b\r\n*1\r\n$4\r\nEXEC\r\n"
	if got := string(appendTxn([]byte{}, true, 42, 9)); got != want {
		t.Errorf("tagged keys:\n got %q\nwant %q", got, want)
	}
}

func TestLatencySummary(t *testing.T) {
	var lat []time.Duration
	for i := 1000; i >= 1; i-- {
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	o := latencySummary(lat)
	if !near(o.P50Ms, 500) || !near(o.P95Ms, 950) || !near(o.P99Ms, 990) || !near(o.P999Ms, 999) ||
		!near(o.MaxMs, 1000) || !near(o.AvgMs, 500.5) {
		t.Errorf("1..1000 ms: %+v", o)
	}
	if o := latencySummary([]time.Duration{3 * time.Millisecond}); !near(o.P50Ms, 3) || !near(o.P999Ms, 3) {
		t.Errorf("one latency: %+v", o)
	}
	if o := latencySummary(nil); o != (txnOutput{}) {
		t.Errorf("none: %+v", o)
	}
}

func TestParseTxnClientArgs(t *testing.T) {
	o, err := parseTxnClientArgs([]string{"--addr", "127.0.0.1:7", "--keys", "tag", "--conns", "3", "--depth", "16",
		"--txns", "99", "--keyspace", "10", "--timeout", "5s"})
	want := txnLoadOpts{Addr: "127.0.0.1:7", Keys: "tag", Conns: 3, Depth: 16, Txns: 99, Keyspace: 10, Timeout: 5 * time.Second}
	if err != nil || o != want {
		t.Errorf("got %+v, %v", o, err)
	}
	for _, bad := range [][]string{nil, {"--addr", "x", "--keys", "other"}, {"--addr", "x", "--depth", "0"},
		{"--addr", "x", "--keyspace", "1"}, {"--addr", "x", "extra"}, {"--addr", "x", "--nope"}} {
		if _, err := parseTxnClientArgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParseFlagsTxn(t *testing.T) {
	cfg, err := parseFlags([]string{"--txn", "--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Txn || cfg.Memory || cfg.TxnRequests != 100000 || !reflect.DeepEqual(cfg.Shards, []int{1, 2}) ||
		!reflect.DeepEqual(cfg.Keyspaces, []int{100000}) || !reflect.DeepEqual(cfg.Sizes, []int{16}) {
		t.Errorf("--txn presets: %+v", cfg)
	}
	cfg, err = parseFlags([]string{"--txn", "--quick", "--shards", "3", "--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil || cfg.TxnRequests != 30000 || !reflect.DeepEqual(cfg.Shards, []int{3}) {
		t.Errorf("--txn --quick --shards 3: %+v, %v", cfg, err)
	}
	bench, txns := txnCells(cfg, target{Server: "corekv", Shards: 3})
	if len(bench) != 2 || len(txns) != 4 || txns[3].Test != "exec-tag" || txns[3].Pipeline != 16 ||
		txns[3].Requests != 120000 || txns[0].Requests != 30000 {
		t.Errorf("cells of corekv/3: %+v %+v", bench, txns)
	}
	if bench, _ := txnCells(cfg, target{Server: "redis"}); len(bench) != 8 {
		t.Errorf("redis runs %d redis-benchmark cells, want mset at 2 depths and set, get at 3", len(bench))
	}
	rep := &report{Config: cfg, Machine: machine{Host: "box"}, Started: time.Date(2026, 11, 30, 3, 0, 0, 0, time.UTC)}
	if got := reportBase(rep); got != "2026-11-30-box-txn" {
		t.Errorf("report named %q", got)
	}
	for _, bad := range [][]string{{"--txn", "--gc"}, {"--txn", "--expiry"}, {"--txn", "--txn-requests", "0"}} {
		if _, err := parseFlags(append(bad, "--server-cpus", "1", "--client-cpus", "0"), io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestAcrossShards(t *testing.T) {
	kv2, kv1 := target{Server: "corekv", Shards: 2}, target{Server: "corekv", Shards: 1}
	for _, c := range []struct {
		t    target
		test string
		want string
	}{
		{target{Server: "redis"}, "exec-random", "-"},
		{kv1, "exec-random", "0%"},
		{kv2, "exec-tag", "0%"},
		{kv2, "get", "0%"},
		{kv2, "exec-random", "about 50%"},
		{kv2, "mset", "99.8%"},
	} {
		if got := acrossShards(c.t, c.test); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.t.label(), c.test, got, c.want)
		}
	}
}

// TestTxnSmoke runs --txn --smoke with redis-server on both sides: the load client runs as a child process
// (this test binary, through TestMain) and every MULTI/EXEC reply of redis-server passes its check.
func TestTxnSmoke(t *testing.T) {
	out := t.TempDir()
	rep, log := runHarness(t, 60*time.Second, "--txn", "--smoke", "--only-redis", "--out", out)
	if len(rep.Txn) != 8 || len(rep.TxnComparisons) != 4 || len(rep.Comparisons) != 8 {
		t.Fatalf("%d txn results, %d txn comparisons, %d comparisons; want 8, 4, 8\n%s", len(rep.Txn),
			len(rep.TxnComparisons), len(rep.Comparisons), log)
	}
	for _, r := range rep.Txn {
		// Server CPU is not checked: a smoke run is short enough to take no 10 ms tick on a busy host.
		if r.Median.Runs != 1 || r.Median.RPS <= 0 || r.Median.P99Ms <= 0 || r.Median.P999Ms < r.Median.P99Ms {
			t.Errorf("%s %s: %+v %+v", r.Target.label(), r.Cell, r.Median, r.Samples)
		}
	}
	md, err := os.ReadFile(filepath.Join(out, reportBase(rep)+".md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Transactions", "MULTI/EXEC one hash tag, 16 in flight", "MSET P=16", "GET P=64"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
