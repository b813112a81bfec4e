package main

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseMemory(t *testing.T) {
	for in, want := range map[string]int64{"64mb": 64 << 20, "1GB": 1 << 30, "100": 100, "2k": 2000, "3kb": 3072,
		"5m": 5000000, "7b": 7, " 8mb ": 8 << 20} {
		if got, err := parseMemory(in); err != nil || got != want {
			t.Errorf("parseMemory(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "mb", "x", "64xb", "-1mb", "1.5mb"} {
		if got, err := parseMemory(bad); err == nil {
			t.Errorf("parseMemory(%q) = %d, no error", bad, got)
		}
	}
}

func TestEvictionFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--eviction", "--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e := cfg.Eviction
	if e == nil || e.MaxMemory != 64<<20 || !reflect.DeepEqual(e.Policies, []string{"allkeys-lru", "allkeys-lfu",
		"allkeys-random"}) || e.HitKeys != 1000000 || e.Requests != 300000 || e.LRUTest != 10*time.Second ||
		e.LRUKeys != 3*(64<<20)/evictLRUKeySize {
		t.Errorf("eviction config %+v", e)
	}
	if !reflect.DeepEqual(cfg.Shards, []int{1, 2}) || cfg.Repeat != 1 || cfg.Requests != 100000 || cfg.Memory ||
		cfg.Clients != 50 {
		t.Errorf("config %+v", cfg)
	}
	cfg, err = parseFlags([]string{"--eviction", "--smoke", "--eviction-policies", "volatile-lru, noeviction,volatile-lru",
		"--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	e = cfg.Eviction
	if e.MaxMemory != 8<<20 || !reflect.DeepEqual(e.Policies, []string{"volatile-lru", "noeviction"}) ||
		e.HitKeys != 100000 || e.Requests != 20000 || cfg.Requests != 5000 || cfg.Timeout != 3*time.Minute {
		t.Errorf("--smoke: eviction config %+v, requests %d", e, cfg.Requests)
	}
	if got := evictForms(e); !reflect.DeepEqual(got, []string{evictSetEX}) {
		t.Errorf("forms %q, want only the SET with a TTL (noeviction has no timed cells)", got)
	}
	for _, bad := range [][]string{{"--eviction", "--aof"}, {"--eviction", "--snapshot"}, {"--eviction", "--txn"},
		{"--eviction", "--eviction-policies", "allkeys-lru,lru"}, {"--eviction", "--eviction-maxmemory", "100kb"},
		{"--eviction", "--eviction-policies", ""}} {
		if _, err := parseFlags(append(bad, "--server-cpus", "1", "--client-cpus", "0"), io.Discard); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestEvictSetEXCommand: the volatile policies' cells send SET with a TTL in place of -t, and no -d.
func TestEvictSetEXCommand(t *testing.T) {
	cfg := &config{}
	c := cell{Test: evictSetEX, Pipeline: 16, Clients: 50, Keyspace: evictKeyspace, Size: evictSize, Requests: 400}
	got := strings.Join(cellArgs(cfg, c, 50, 400), " ")
	want := "-P 16 -c 50 -r 10000000 -n 400 SET key:__rand_int__ " + strings.Repeat("x", evictSize) + " EX " + evictTTL
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestStridePerm(t *testing.T) {
	for _, n := range []int{1, 2, 10, 1000, 786432} {
		p := newStridePerm(n)
		seen := make([]bool, n)
		for i := range n {
			k := p.at(i)
			if k < 0 || k >= n || seen[k] {
				t.Fatalf("n=%d: at(%d) = %d, out of range or seen", n, i, k)
			}
			seen[k] = true
		}
	}
}

// TestZipfGen checks the drawn ranks against the Zipf(0.99) probabilities: rank 0, rank 1, and the upper half.
func TestZipfGen(t *testing.T) {
	const n, draws = 1000, 400000
	z := newZipfGen(n, evictZipfTheta)
	rng := rand.New(rand.NewPCG(1, 2))
	counts := make([]int, n)
	for range draws {
		counts[z.rank(rng.Float64())]++
	}
	p := func(k int) float64 { return 1 / math.Pow(float64(k+1), evictZipfTheta) / z.zetan }
	var upper, upperWant float64
	for k := n / 2; k < n; k++ {
		upper += float64(counts[k]) / draws
		upperWant += p(k)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{{"rank 0", float64(counts[0]) / draws, p(0)}, {"rank 1", float64(counts[1]) / draws, p(1)},
		{"ranks 500-999", upper, upperWant}} {
		if math.Abs(c.got-c.want) > 0.1*c.want {
			t.Errorf("%s: share %.4f, want %.4f", c.name, c.got, c.want)
		}
	}
}

func TestReadGetReply(t *testing.T) {
	rd := bufio.NewReader(strings.NewReader("$3\r\nabc\r\n$-1\r\n$0\r\n\r\n-OOM no\r\n"))
	for i, want := range []bool{true, false, true} {
		if hit, err := readGetReply(rd); err != nil || hit != want {
			t.Errorf("reply %d: hit %v, %v; want %v", i, hit, err, want)
		}
	}
	if _, err := readGetReply(rd); err == nil {
		t.Error("error reply: no error")
	}
}

// TestParseLRUTest reads redis-cli 7.0 --lru-test output: the second half of its lines counts.
func TestParseLRUTest(t *testing.T) {
	out := "211750 Gets/sec | Hits: 70279 (33.19%) | Misses: 141471 (66.81%)\n" +
		"287250 Gets/sec | Hits: 83720 (29.15%) | Misses: 203530 (70.85%)\n" +
		"247500 Gets/sec | Hits: 71667 (28.96%) | Misses: 175833 (71.04%)\n" +
		"250000 Gets/sec | Hits: 75000 (30.00%) | Misses: 175000 (70.00%)\n" +
		"Error: not a line\n"
	lines, gets, hits, err := parseLRUTest(out)
	if err != nil || len(lines) != 4 || gets != 247500+250000 || hits != 71667+75000 {
		t.Errorf("lines %d, gets %d, hits %d, %v", len(lines), gets, hits, err)
	}
	if _, gets, hits, err := parseLRUTest(out[:strings.Index(out, "\n")+1]); err != nil || gets != 211750 || hits != 70279 {
		t.Errorf("one line: gets %d, hits %d, %v", gets, hits, err)
	}
	if _, _, _, err := parseLRUTest("Could not connect to Redis\n"); err == nil {
		t.Error("no lines: no error")
	}
}

func TestSumKnown(t *testing.T) {
	if sumKnown([]int64{-1, -1}) != -1 || sumKnown([]int64{2, -1, 3}) != 5 || sumKnown(nil) != -1 {
		t.Error("sumKnown")
	}
}

// TestEvictionSmoke runs --eviction --smoke with redis-server on both sides, smaller still and without
// redis-cli --lru-test: every run succeeds, no write is refused, and the report has its three parts.
func TestEvictionSmoke(t *testing.T) {
	out := t.TempDir()
	_, log := runHarness(t, 90*time.Second, "--eviction", "--smoke", "--only-redis", "--eviction-maxmemory", "4mb",
		"--eviction-hit-keys", "40000", "--eviction-requests", "8000", "--requests", "2000",
		"--eviction-lru-test", "0", "--out", out)
	files, _ := filepath.Glob(filepath.Join(out, "*-vm-eviction.json"))
	if len(files) != 1 {
		t.Fatalf("files %v\n%s", files, log)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var rep evictionReport
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	// 2 targets: allkeys-lru capped and uncapped; zipf at 2 bases.
	if len(rep.Set) != 4 || len(rep.Hit) != 4 {
		t.Fatalf("%d SET runs, %d hit runs; want 4 and 4\n%s", len(rep.Set), len(rep.Hit), log)
	}
	for _, r := range rep.Set {
		if r.Error != "" || len(r.Samples) != 2 || r.Keys <= 0 || sumKnown(r.ErrorReplies) != 0 {
			t.Errorf("SET %s %s: %+v", r.name(), r.Target.label(), r)
		}
		if r.Policy != "" && (sumKnown(r.Evicted) <= 0 || r.MaxUsed <= 0 || r.MaxRSS <= r.EmptyRSS/2) {
			t.Errorf("SET %s %s: evicted %v, used %d, RSS %d", r.name(), r.Target.label(), r.Evicted, r.MaxUsed, r.MaxRSS)
		}
	}
	for _, r := range rep.Hit {
		if r.Error != "" || r.Gets <= 0 || r.HitPct <= 0 || r.HitPct >= 100 || r.Errors != 0 || r.Evicted <= 0 {
			t.Errorf("hit %s %s %s: %+v", r.Workload, r.Basis, r.Target.label(), r)
		}
	}
	md, err := os.ReadFile(strings.TrimSuffix(files[0], ".json") + ".md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## SET at the cap", "## Memory during the capped SET load", "## Hit ratio",
		"| zipf | keys | allkeys-lru | corekv/1 |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
