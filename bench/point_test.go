package main

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPointCellArgs(t *testing.T) {
	cfg := &config{}
	for _, tc := range []struct {
		test string
		want []string
	}{
		{"hget", []string{"-P", "64", "-c", "50", "-r", "1000", "-n", "800", "HGET", "h:__rand_int__", "f5"}},
		{"hmget", []string{"-P", "64", "-c", "50", "-r", "1000", "-n", "800", "HMGET", "h:__rand_int__", "f1", "f5", "f9"}},
		{"sismember", []string{"-P", "64", "-c", "50", "-r", "1000", "-n", "800", "SISMEMBER", "s:__rand_int__", "m5"}},
		{"get", []string{"-t", "get", "-P", "64", "-c", "50", "-r", "1000", "-d", "16", "-n", "800"}},
	} {
		c := cell{Test: tc.test, Pipeline: 64, Clients: 50, Keyspace: 1000, Size: 16, Requests: 800}
		if got := cellArgs(cfg, c, c.Clients, c.Requests); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.test, got, tc.want)
		}
	}
	c := cell{Test: "hget", Pipeline: 1, Clients: 50, Keyspace: 1000, Size: 16, Requests: 800}
	got := cellArgs(&config{CSV: true}, c, c.Clients, c.Requests)
	if i := len(got) - 4; i < 0 || got[i] != "--csv" || got[i+1] != "HGET" {
		t.Errorf("--csv: %q, want it before the command line", got)
	}
}

func TestPointLoadArgs(t *testing.T) {
	hash := []string{"HSET", "h:000000000042"}
	set := []string{"SADD", "s:000000000042"}
	for i := 0; i < 10; i++ {
		f := string(rune('0' + i))
		hash = append(hash, "f"+f, "vv")
		set = append(set, "m"+f)
	}
	for name, want := range map[string][]string{"hget": hash, "hmget": hash, "sismember": set} {
		p := pointTests[name]
		got := p.loadArgs(42, "vv")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
		// The key redis-benchmark asks for is the key the harness loads.
		if key := strings.Replace(p.command[1], "__rand_int__", "000000000042", 1); key != got[1] {
			t.Errorf("%s: redis-benchmark asks for %s, the harness loads %s", name, key, got[1])
		}
	}
}

// TestPointCellsHit: a point cell loads its key space, runs its command
// line, and every lookup of the run finds its key.
func TestPointCellsHit(t *testing.T) {
	cfg, err := parseFlags([]string{"--first-run"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tl, srv := startTestRedis(ctx, t)
	defer srv.stop()
	const keys, n = 500, 3200
	for _, tc := range []struct{ test, command, check, key, item, want string }{
		{"hget", "HGET h:__rand_int__ f5", "HSTRLEN", "h:000000000499", "f9", "7"},
		{"hmget", "HMGET h:__rand_int__ f1 f5 f9", "HLEN", "h:000000000000", "", "10"},
		{"sismember", "SISMEMBER s:__rand_int__ m5", "SISMEMBER", "s:000000000499", "m9", "1"},
	} {
		c := cell{Test: tc.test, Pipeline: 16, Clients: 10, Keyspace: keys, Size: 7, Requests: n}
		before, err := infoInts(srv.addr(), "stats")
		if err != nil {
			t.Fatal(err)
		}
		s := runCell(ctx, cfg, tl, srv, c)
		if s.Error != "" || s.RPS <= 0 || !strings.HasSuffix(s.Command, tc.command) {
			t.Fatalf("%s: %+v", tc.test, s)
		}
		after, err := infoInts(srv.addr(), "stats")
		if err != nil {
			t.Fatal(err)
		}
		if hits, misses := after["keyspace_hits"]-before["keyspace_hits"],
			after["keyspace_misses"]-before["keyspace_misses"]; hits < n || misses != 0 {
			t.Errorf("%s: %d hits, %d misses; want at least %d hits and no miss", tc.test, hits, misses, n)
		}
		if got, _ := command(srv.addr(), 5*time.Second, "DBSIZE"); got != "500" {
			t.Errorf("%s: DBSIZE %s after the cell, want %d", tc.test, got, keys)
		}
		args := []string{tc.check, tc.key}
		if tc.item != "" {
			args = append(args, tc.item)
		}
		if got, err := command(srv.addr(), 5*time.Second, args...); got != tc.want {
			t.Errorf("%s: %q = %q, %v; want %s", tc.test, args, got, err, tc.want)
		}
	}
}

// TestClientThreadsBeforeCommandLine: redis-benchmark reads every word after
// a command line's first as part of the command, so --threads must come
// before it.
func TestClientThreadsBeforeCommandLine(t *testing.T) {
	cfg := &config{FirstRun: true, ClientThreads: 2}
	tl := &tools{RedisBenchmark: "redis-benchmark"}
	c := cell{Test: "sismember", Pipeline: 1, Clients: 50, Keyspace: 1000, Size: 16, Requests: 800}
	got := strings.Join(benchmarkArgv(cfg, tl, &server{Port: 7}, c), " ")
	want := "redis-benchmark -h 127.0.0.1 -p 7 --threads 2 -P 1 -c 50 -r 1000 -n 800 SISMEMBER s:__rand_int__ m5"
	if got != want {
		t.Errorf("%s\nwant %s", got, want)
	}
}

func TestCellTemplates(t *testing.T) {
	got := cellTemplates([]string{"get", "hmget", "set", "sismember"}, "50", "N")
	want := []string{"-t TEST -P P -c 50 -r KEYS -d SIZE -n N",
		"-P P -c 50 -r KEYS -n N HMGET h:__rand_int__ f1 f5 f9",
		"-P P -c 50 -r KEYS -n N SISMEMBER s:__rand_int__ m5"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%q\nwant %q", got, want)
	}
	if got := cellTemplates([]string{"hget"}, "50/2", "N/2"); len(got) != 1 || !strings.HasSuffix(got[0], "-n N/2 HGET h:__rand_int__ f5") {
		t.Errorf("hget alone: %q", got)
	}
}
