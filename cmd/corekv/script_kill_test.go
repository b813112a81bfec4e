package main

import (
	"strings"
	"testing"
	"time"
)

// killFromAnotherCore sends SCRIPT KILL over fresh connections until one
// lands on a core whose thread is not inside the script (the kernel
// spreads connections over the cores) and answers; it returns that reply.
func killFromAnotherCore(t *testing.T, addr string) string {
	t.Helper()
	for try := 0; try < 40; try++ {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.send(compatEncode(nil, compatA("SCRIPT", "KILL"))); err != nil {
			t.Fatal(err)
		}
		_ = c.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		rep, err := compatReadReply(c.r)
		c.close()
		if err == nil {
			return string(rep.raw)
		}
	}
	t.Fatal("no connection answered SCRIPT KILL")
	return ""
}

// TestScriptKill: on two shards, a script that never ends is stopped by
// SCRIPT KILL from a client of the other core once it has run past
// busy-reply-threshold (lua-time-limit), and its client gets Redis's
// error; a script that wrote is UNKILLABLE and runs to its end; with no
// script running SCRIPT KILL answers NOTBUSY.
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
	if got := killFromAnotherCore(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
		t.Fatalf("SCRIPT KILL with no script: %q", got)
	}
	for _, tc := range []struct{ body, kill, reply string }{
		{"local i = 0 while true do i = i + 1 end", "+OK", "-ERR Script killed by user with SCRIPT KILL..."},
		{"redis.call('set', KEYS[1], 'w') local t0 = tonumber(redis.call('time')[1]) " +
			"while tonumber(redis.call('time')[1]) < t0 + 2 do end return 1", "-UNKILLABLE", ":1"},
	} {
		runner, err := compatDial(s.addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := runner.send(compatEncode(nil, compatA("EVAL", tc.body, "1", "sk"))); err != nil {
			t.Fatal(err)
		}
		got := ""
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); {
			if got = killFromAnotherCore(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.HasPrefix(got, tc.kill) {
			t.Fatalf("%s: SCRIPT KILL answered %q, want %s", tc.body, got, tc.kill)
		}
		_ = runner.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		rep, err := compatReadReply(runner.r)
		if err != nil || !strings.HasPrefix(string(rep.raw), tc.reply) {
			t.Fatalf("%s: its client got %v %q, want %s", tc.body, err, rep.raw, tc.reply)
		}
		runner.close()
	}
}
