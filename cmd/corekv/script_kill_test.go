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
	reply, c := killOverAnotherCore(t, addr)
	c.close()
	return reply
}

// killOverAnotherCore is killFromAnotherCore that also returns the
// connection that answered, open.
func killOverAnotherCore(t *testing.T, addr string) (string, *compatConn) {
	t.Helper()
	for try := 0; try < 100; try++ {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.send(compatEncode(nil, compatA("SCRIPT", "KILL"))); err != nil {
			t.Fatal(err)
		}
		_ = c.c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		rep, err := compatReadReply(c.r)
		if err == nil {
			return string(rep.raw), c
		}
		c.close()
	}
	t.Fatal("no connection answered SCRIPT KILL")
	return "", nil
}

// TestScriptKill: on two shards, a script that never ends is stopped by
// SCRIPT KILL from a client of the other core once it has run past
// busy-reply-threshold (lua-time-limit), and its client gets Redis's
// error; a script that wrote is UNKILLABLE and runs to its end, and
// meanwhile a command sent from the other core to the busy shard is
// answered BUSY; with no script running SCRIPT KILL answers NOTBUSY.
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
			if got, other = killOverAnotherCore(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
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
			// One key per shard: the other core's is served, the busy
			// shard's answered BUSY.
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
			if busy != 1 {
				t.Fatalf("%d BUSY replies to GETs of two shards while one is busy", busy)
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
// timedout script anyway".
func TestScriptShutdownNosave(t *testing.T) {
	s := startServer(t, nil, "--shards", "2", "--save", "")
	cfg, err := compatDial(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer cfg.close()
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
		if got, other = killOverAnotherCore(t, s.addr); !strings.HasPrefix(got, "-NOTBUSY") {
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
}
