package main

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// scriptKill sends SCRIPT KILL over a fresh connection and returns the
// reply. Either core answers: the one inside the script does from there
// (reactor/busy.go), once the script has run past busy-reply-threshold.
func scriptKill(t *testing.T, addr string) string {
	t.Helper()
	reply, c := scriptKillOn(t, addr)
	c.close()
	return reply
}

// scriptKillOn is scriptKill that also returns the connection, open.
func scriptKillOn(t *testing.T, addr string) (string, *compatConn) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	rep, err := c.do(compatA("SCRIPT", "KILL"))
	if err != nil {
		t.Fatalf("SCRIPT KILL: %v", err)
	}
	return string(rep.raw), c
}

// TestScriptKill: on two shards, a script that never ends is stopped by
// SCRIPT KILL from a client of either core once it has run past
// busy-reply-threshold (lua-time-limit), and its client gets Redis's
// error; a script that wrote is UNKILLABLE and runs to its end, and
// meanwhile a command sent to the busy shard is answered BUSY from
// either core; with no script running SCRIPT KILL answers NOTBUSY.
func TestScriptKill(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	cfg, err := compatDial(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.close()
	if rep, err := cfg.do(compatA("CONFIG", "SET", "lua-time-limit", "100")); err != nil || string(rep.raw) != "+OK\r\n" {
		t.Fatalf("CONFIG SET lua-time-limit: %v %q", err, rep.raw)
	}
	if got := scriptKill(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
		t.Fatalf("SCRIPT KILL with no script: %q", got)
	}
	for _, tc := range []struct{ body, kill, reply string }{
		{"local i = 0 while true do i = i + 1 end", "+OK", "-ERR Script killed by user with SCRIPT KILL..."},
		{"redis.call('set', KEYS[1], 'w') local t0 = tonumber(redis.call('time')[1]) " +
			"while tonumber(redis.call('time')[1]) < t0 + 4 do end return 1", "-UNKILLABLE", ":1"},
	} {
		runner, err := compatDial(s.addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.send(compatEncode(nil, compatA("EVAL", tc.body, "1", "sk"))); err != nil {
			t.Fatal(err)
		}
		got, other := "", (*compatConn)(nil)
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			if got, other = scriptKillOn(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
				break
			}
			other.close()
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.HasPrefix(got, tc.kill) {
			_ = runner.c.SetReadDeadline(time.Now().Add(time.Second))
			rep, err := compatReadReply(runner.r)
			t.Fatalf("%s: SCRIPT KILL answered %q, want %s (the script's client: %v %v)", tc.body, got, tc.kill, rep, err)
		}
		if tc.kill == "-UNKILLABLE" {
			// One key per shard: on the other core, that core's is
			// served and the busy shard's answered BUSY; on the busy
			// core (reactor/busy.go), which answers PING BUSY, both are.
			ping, err := other.do(compatA("PING"))
			if err != nil {
				t.Fatal(err)
			}
			onBusyCore := strings.HasPrefix(string(ping.raw), "-BUSY")
			busy := 0
			for _, k := range keysOnShards("busy", 2) {
				rep, err := other.do(compatA("GET", k))
				if err != nil {
					t.Fatal(err)
				}
				if strings.HasPrefix(string(rep.raw), "-BUSY Redis is busy running a script.") {
					busy++
				} else if string(rep.raw) != "$-1\r\n" {
					t.Fatalf("GET %s while a script is busy: %q", k, rep.raw)
				}
			}
			if want := map[bool]int{false: 1, true: 2}[onBusyCore]; busy != want {
				t.Fatalf("%d BUSY replies to GETs of two shards while one is busy (on the busy core: %v)", busy, onBusyCore)
			}
		}
		other.close()
		_ = runner.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		rep, err := compatReadReply(runner.r)
		if err != nil || !strings.HasPrefix(string(rep.raw), tc.reply) {
			t.Fatalf("%s: its client got %v %q, want %s", tc.body, err, rep.raw, tc.reply)
		}
		runner.close()
	}
}

// TestScriptShutdownNosave: while a script that wrote runs past
// busy-reply-threshold, SHUTDOWN is refused with BUSY and SHUTDOWN NOSAVE
// stops the script and the server, as Redis's "SHUTDOWN NOSAVE can kill a
// timedout script anyway". What the script wrote does not reach the
// append-only file (appendfsync always), what came before it does: a
// restart has the one key and not the other, as Redis's has.
func TestScriptShutdownNosave(t *testing.T) {
	// On one shard the script runs where its key is; on two, its first
	// runs go over the shards (router/scriptplan.go).
	for _, shards := range []string{"1", "2"} {
		t.Run("shards="+shards, func(t *testing.T) { scriptShutdownNosave(t, shards) })
	}
}

func scriptShutdownNosave(t *testing.T, shards string) {
	dir := t.TempDir()
	args := []string{"--shards", shards, "--save", "", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always"}
	s := startServer(t, nil, args...)
	cfg, err := compatDial(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.close()
	if rep, err := cfg.do(compatA("SET", "before", "1")); err != nil || string(rep.raw) != "+OK\r\n" {
		t.Fatalf("SET before: %v %q", err, rep.raw)
	}
	if rep, err := cfg.do(compatA("CONFIG", "SET", "busy-reply-threshold", "100")); err != nil || string(rep.raw) != "+OK\r\n" {
		t.Fatalf("CONFIG SET busy-reply-threshold: %v %q", err, rep.raw)
	}
	runner, err := compatDial(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer runner.close()
	if err := runner.send(compatEncode(nil, compatA("EVAL", "redis.call('set', KEYS[1], 'w') while true do end", "1", "sn"))); err != nil {
		t.Fatal(err)
	}
	var got string
	var other *compatConn
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
		if got, other = scriptKillOn(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
			break
		}
		other.close()
		time.Sleep(20 * time.Millisecond)
	}
	defer other.close()
	if !strings.HasPrefix(got, "-UNKILLABLE") {
		t.Fatalf("SCRIPT KILL of a script that wrote: %q", got)
	}
	if rep, err := other.do(compatA("SHUTDOWN")); err != nil || !strings.HasPrefix(string(rep.raw), "-BUSY") {
		t.Fatalf("SHUTDOWN during a busy script: %v %v", err, rep)
	}
	s.watch.expect()
	if err := other.send(compatEncode(nil, compatA("SHUTDOWN", "NOSAVE"))); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.watch.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the server still runs 10 s after SHUTDOWN NOSAVE")
	}
	again := startServer(t, nil, args...)
	c := again.client(t, 2)
	if got, err := c.Get(context.Background(), "before").Result(); got != "1" {
		t.Errorf("after the restart, before: %q %v, want 1", got, err)
	}
	if got, err := c.Get(context.Background(), "sn").Result(); err != redis.Nil {
		t.Errorf("after the restart, the stopped script's key: %q %v, want none", got, err)
	}
}

// TestScriptBusyOneShard compares with redis-server what the clients of a
// busy shard's own core get, on one shard, where every connection is on
// the thread inside the script (reactor/busy.go): BUSY for keys and PING,
// MULTI taken and its block doomed, SCRIPT KILL and FUNCTION KILL each
// stopping its own kind only, the script's client answered the kill and
// then its pipelined PING, UNKILLABLE after a write, and every connection
// served as usual once the script has ended.
func TestScriptBusyOneShard(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 1)
	want, got := busyTranscript(t, redisAddr), busyTranscript(t, srv.addr)
	for i := range max(len(want), len(got)) {
		var w, g string
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			t.Errorf("step %d: got %q, want %q", i, g, w)
		}
	}
}

// busyDuration masks FUNCTION STATS's duration_ms, which differs by run.
var busyDuration = regexp.MustCompile(`duration_ms\r\n:\d+`)

// busyTranscript runs, against addr, a script and a function that never
// end and one that writes and ends after a second, and returns what every
// client got meanwhile and after.
func busyTranscript(t *testing.T, addr string) []string {
	t.Helper()
	dial := func() *compatConn {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(c.close)
		return c
	}
	var out []string
	do := func(c *compatConn, args ...string) {
		_ = c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		rep, err := c.do(compatA(args...))
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		out = append(out, strings.Join(args, " ")+" -> "+busyDuration.ReplaceAllString(string(rep.raw), "duration_ms\r\n:N"))
	}
	read := func(c *compatConn, what string) {
		_ = c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		rep, err := c.read()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		out = append(out, what+" -> "+string(rep.raw))
	}
	waitBusy := func(c *compatConn) {
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
			rep, err := c.do(compatA("PING"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(string(rep.raw), "-BUSY") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the script never got busy", addr)
			}
		}
	}
	admin := dial()
	do(admin, "CONFIG", "SET", "busy-reply-threshold", "50")
	do(admin, "FLUSHALL")
	do(admin, "FUNCTION", "FLUSH")
	do(admin, "FUNCTION", "LOAD", "#!lua name=busy\nredis.register_function('spin', function() while true do end end)")
	for _, tc := range []struct{ run, wrongKill, kill []string }{
		{[]string{"EVAL", "while true do end", "0"}, []string{"FUNCTION", "KILL"}, []string{"SCRIPT", "KILL"}},
		{[]string{"FCALL", "spin", "0"}, []string{"SCRIPT", "KILL"}, []string{"FUNCTION", "KILL"}},
	} {
		runner := dial()
		// The command after the script waits for it, on its connection.
		if err := runner.send(compatEncode(compatEncode(nil, compatA(tc.run...)), compatA("PING"))); err != nil {
			t.Fatal(err)
		}
		other := dial()
		waitBusy(other)
		do(other, "GET", "k")
		do(other, "FUNCTION", "STATS")
		do(other, "NOSUCH")
		do(other, "GET")
		txn := dial()
		do(txn, "MULTI")
		do(txn, "SET", "k", "v")
		do(txn, "EXEC")
		do(txn, "DISCARD")
		// What comes right after a kill that worked depends on how soon
		// the script stops: nothing is asked then.
		do(other, tc.wrongKill...)
		do(other, tc.kill...)
		read(runner, tc.run[0])
		read(runner, "PING after it")
		do(other, "PING")
		do(txn, "GET", "k")
	}
	runner := dial()
	if err := runner.send(compatEncode(nil, compatA("EVAL",
		"redis.call('set', KEYS[1], 'w') local t0 = tonumber(redis.call('time')[1]) "+
			"while tonumber(redis.call('time')[1]) < t0 + 2 do end return 1", "1", "k"))); err != nil {
		t.Fatal(err)
	}
	other := dial()
	waitBusy(other)
	do(other, "SCRIPT", "KILL")
	do(other, "GET", "k")
	read(runner, "EVAL that wrote")
	do(other, "GET", "k")
	do(admin, "CONFIG", "SET", "busy-reply-threshold", "5000")
	return out
}
