package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/router"
)

// slowlogMasked is a SLOWLOG GET reply with what differs between servers
// and runs (IDs, timestamps, durations, client ports) checked and left out:
// per entry, its arguments and client name as raw RESP.
func slowlogMasked(t *testing.T, who string, r *compatReply) []string {
	t.Helper()
	if r.kind != '*' {
		t.Fatalf("%s: SLOWLOG GET answered %q", who, r.raw)
	}
	addrRE := regexp.MustCompile(`^\$\d+\r\n127\.0\.0\.1:\d+\r\n$`)
	now := time.Now().Unix()
	var out []string
	last := int64(-1)
	for i, e := range r.elems {
		if len(e.elems) != 6 {
			t.Fatalf("%s: entry %d is %q", who, i, e.raw)
		}
		id, _ := strconv.ParseInt(strings.TrimSpace(string(e.elems[0].raw[1:])), 10, 64)
		if last >= 0 && id >= last {
			t.Errorf("%s: entry %d has ID %d after %d: not newest first", who, i, id, last)
		}
		last = id
		ts, _ := strconv.ParseInt(strings.TrimSpace(string(e.elems[1].raw[1:])), 10, 64)
		if ts < now-60 || ts > now+1 {
			t.Errorf("%s: entry %d logged at %d, now is %d", who, i, ts, now)
		}
		if e.elems[2].kind != ':' {
			t.Errorf("%s: entry %d duration %q", who, i, e.elems[2].raw)
		}
		if !addrRE.Match(e.elems[4].raw) {
			t.Errorf("%s: entry %d client address %q", who, i, e.elems[4].raw)
		}
		out = append(out, string(e.elems[3].raw)+string(e.elems[5].raw))
	}
	return out
}

// TestSlowlogComparedWithRedis runs the same commands with
// slowlog-log-slower-than 0 against redis-server and corekv --shards 2 and
// compares the slow logs: the entries, their order, argument clipping and
// client names byte for byte, LEN, max-len trimming and RESET.
func TestSlowlogComparedWithRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	redisAddr := compatStartRedis(t, redisPath)
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	a, b := shardKey("a", 0, 2), shardKey("b", 1, 2)
	long := strings.Repeat("v", 300)
	exists := []string{"EXISTS"}
	for i := 0; i < 40; i++ {
		exists = append(exists, a)
	}
	type step struct {
		cmd     compatCmd
		compare bool // the reply is compared as is (else: the slow log, masked)
	}
	steps := []step{
		{compatS("CONFIG SET slowlog-log-slower-than 0"), true},
		{compatS("CONFIG SET slowlog-max-len 128"), true},
		{compatS("SLOWLOG RESET"), true},
		{compatS("SLOWLOG LEN"), true},
		{compatA("SET", a, "1"), true},
		{compatA("SET", b, "2"), true},
		{compatS("CLIENT SETNAME slowtest"), true},
		{compatA("GET", a), true},
		{compatA("GET", b), true},
		{compatA("SET", b, long), true},
		{compatA(exists...), true},
		{compatS("ECHO hello"), true},
		{compatS("CONFIG NOSUCH"), true}, // refused: not logged
		{compatA("INCRBY", b, "x"), true},
		// Secrets never reach the slow log.
		{compatS("AUTH secret1"), true},
		{compatS("AUTH someone secret2"), true},
		{compatS("HELLO 2 AUTH default secret3 SETNAME slowtest FOO"), true},
		{compatS("CONFIG SET requirepass secret4 slowlog-max-len 128"), true},
		{compatS("AUTH secret4"), true},
		{compatS("CONFIG SET requirepass"), true},
		{compatA("CONFIG", "SET", "requirepass", ""), true},
		{compatS("SLOWLOG GET 8"), false},
		{compatS("SLOWLOG LEN"), true},
		{compatS("SLOWLOG GET 3"), false},
		{compatS("SLOWLOG GET -1"), false},
		{compatS("SLOWLOG GET"), false},
		{compatS("SLOWLOG GET 0"), true},
		{compatS("SLOWLOG GET x"), true},
		{compatS("SLOWLOG GET 1 2"), true},
		{compatS("SLOWLOG nope"), true},
		{compatS("SLOWLOG LEN x"), true},
		{compatS("SLOWLOG reset x"), true},
		{compatS("SLOWLOG HELP"), true},
		{compatS("CONFIG SET slowlog-max-len 3"), true},
		{compatS("SLOWLOG LEN"), true},
		{compatA("GET", a), true},
		{compatS("SLOWLOG GET -1"), false},
		{compatS("SLOWLOG RESET"), true},
		{compatS("SLOWLOG LEN"), true},
		{compatS("CONFIG SET slowlog-log-slower-than -1"), true},
		{compatS("SLOWLOG RESET"), true},
		{compatA("GET", a), true},
		{compatS("SLOWLOG LEN"), true},
		{compatS("CONFIG SET slowlog-log-slower-than -2"), true},
		{compatS("CONFIG GET slowlog-*"), false},
		{compatS("CONFIG SET slowlog-log-slower-than 10000"), true},
		{compatS("CONFIG SET slowlog-max-len 128"), true},
	}
	rc, err := compatDial(redisAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	kc, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.close()
	for _, s := range steps {
		want, err := rc.do(s.cmd)
		if err != nil {
			t.Fatalf("redis-server: %s: %v", s.cmd, err)
		}
		got, err := kc.do(s.cmd)
		if err != nil {
			t.Fatalf("corekv: %s: %v", s.cmd, err)
		}
		if s.compare || s.cmd.args[0] == "CONFIG" {
			if s.cmd.args[0] == "CONFIG" && s.cmd.args[1] == "GET" {
				if string(compatSorted(got)) != string(compatSorted(want)) {
					t.Errorf("%s: corekv %q, redis-server %q", s.cmd, got.raw, want.raw)
				}
				continue
			}
			if string(got.raw) != string(want.raw) {
				t.Errorf("%s: corekv %q, redis-server %q", s.cmd, got.raw, want.raw)
			}
			continue
		}
		w, g := slowlogMasked(t, "redis-server", want), slowlogMasked(t, "corekv", got)
		if strings.Join(g, "|") != strings.Join(w, "|") {
			t.Errorf("%s:\ncorekv       %q\nredis-server %q", s.cmd, g, w)
		}
	}
}

// shardKey returns a key starting with prefix on shard of n.
func shardKey(prefix string, shard, n int) string {
	for i := 0; ; i++ {
		k := prefix + strconv.Itoa(i)
		if router.ShardOf([]byte(k), n) == shard {
			return k
		}
	}
}

// compatRun dials addr and sends script on the connection, which it returns.
func compatRun(t *testing.T, addr string, script []compatCmd) *compatConn {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range script {
		if _, err := c.do(cmd); err != nil {
			c.close()
			t.Fatal(err)
		}
	}
	return c
}

// cmdStat reads one command's figures from INFO commandstats.
func cmdStat(info, name string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(info, "\r\n") {
		if rest, ok := strings.CutPrefix(line, "cmdstat_"+name+":"); ok {
			for _, kv := range strings.Split(rest, ",") {
				k, v, _ := strings.Cut(kv, "=")
				m[k] = v
			}
		}
	}
	return m
}

// TestCommandStatsAcrossShards: INFO commandstats counts a command once
// wherever it runs (its own shard, the other one over the ring, or split
// over both), failed_calls counts error replies and rejected_calls the
// refused, as redis-server counts the same commands.
func TestCommandStatsAcrossShards(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	redisAddr := compatStartRedis(t, redisPath)
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	a, b := shardKey("a", 0, 2), shardKey("b", 1, 2)
	script := []compatCmd{
		compatS("CONFIG RESETSTAT"),
		compatA("SET", a, "1"), compatA("SET", b, "x"),
		compatA("GET", a), compatA("GET", b), compatA("GET", a),
		compatA("INCR", a), compatA("INCR", b), // b is not a number: failed
		compatA("GET"), compatA("GET", a, b), // arity: rejected
		compatA("MGET", a, b, a),
		compatA("DEL", a, b, "nokey"),
		compatS("DBSIZE"), compatS("FLUSHDB NOW"),
		compatS("PING"),
	}
	names := []string{"set", "get", "incr", "mget", "del", "dbsize", "flushdb", "ping"}
	// One INFO right after the script: it counts every command before it,
	// whichever shard ran it.
	stats := func(addr string) map[string]map[string]string {
		c := compatRun(t, addr, script)
		defer c.close()
		r, err := c.do(compatS("INFO commandstats"))
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]map[string]string{}
		for _, n := range names {
			out[n] = cmdStat(string(r.raw), n)
		}
		return out
	}
	want := stats(redisAddr)
	got := stats(srv.addr)
	for _, n := range names {
		for _, k := range []string{"calls", "rejected_calls", "failed_calls"} {
			if got[n][k] != want[n][k] {
				t.Errorf("cmdstat_%s %s: corekv %q, redis-server %q", n, k, got[n][k], want[n][k])
			}
		}
		if us, err := strconv.ParseFloat(got[n]["usec_per_call"], 64); err != nil || us < 0 {
			t.Errorf("cmdstat_%s usec_per_call %q", n, got[n]["usec_per_call"])
		}
	}
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	r, err := c.do(compatS("INFO latencystats"))
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\r\nlatency_percentiles_usec_get:p50=\d+\.\d{3},p99=\d+\.\d{3},p99\.9=\d+\.\d{3}\r\n`)
	if !re.Match(r.raw) {
		t.Errorf("INFO latencystats has no line for get: %q", r.raw)
	}
}
