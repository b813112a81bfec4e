package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// monitorStep is one request of the MONITOR script: sent by client conn
// (0 or 1), with reply false when it gets none (yet: a blocked BLPOP), or
// a wait for every monitor to have shown a line holding sync before the
// script goes on, so that the two clients' lines come in one order on
// every server.
type monitorStep struct {
	conn   int
	cmd    compatCmd
	noRead bool
	read   int // a reply owed by an earlier step to read first (BLPOP's)
	sync   string
}

func monS(line string) monitorStep              { return monitorStep{cmd: compatS(line)} }
func monA(args ...string) monitorStep           { return monitorStep{cmd: compatA(args...)} }
func monSync(marker string) monitorStep         { return monitorStep{sync: marker} }
func monOn(conn int, s monitorStep) monitorStep { s.conn = conn; return s }

// monitorScript: keys spread over the shards, quoting, redaction, several
// databases, MULTI/EXEC in its three endings, a blocked command, and
// commands Redis keeps from monitors (admin, refused, queued).
var monitorScript = []monitorStep{
	monA("SET", "key with spaces", "va\"l\\ue\n\r\t\a\b\x00\x7f\xff ~"),
	monA("SET", "", "\x01\x02"),
	monS("SET k1 v1"), monS("SET k2 v2"), monS("SET k3 v3"), monS("SET k4 v4"), monS("SET k5 v5"),
	monS("GET k1"), monS("GET k2"), monS("GET k3"), monS("GET k4"),
	monS("MSET k1 a k2 b k3 c k4 d"), monS("MGET k1 k2 k3 k4"), monS("DEL k3 k4 nokey"),
	monS("EXISTS k1 k2 k5"),
	monS("SELECT 3"), monS("SET k1 in3"), monS("GET k2"), monS("SELECT 99"), monS("INCR k1"), monS("SELECT 0"),
	monS("AUTH secret"), monS("AUTH someone secret"), monS("AUTH a b c"),
	monS("HELLO 2 AUTH default anything SETNAME monclient"),
	monA("HELLO", "2", "SETNAME", "bad name", "AUTH", "default", "x"),
	monS("HELLO 4 AUTH default x"), monS("HELLO 2"),
	monS("CLIENT ID"), monS("CLIENT GETNAME"), monS("CLIENT LIST"), monS("CLIENT NOSUCH"), monS("CLIENT ID extra"),
	monS("CONFIG GET maxmemory"), monS("DEBUG SLEEP 0"), monS("SLOWLOG LEN"), monS("SLOWLOG HELP"),
	monS("LATENCY HISTOGRAM"), monS("LASTSAVE"),
	monS("GET"), monS("NOSUCHCOMMAND x"),
	monS("MULTI"), monS("SET k1 m1"), monS("INCR counter"), monS("SELECT 5"), monS("SET k2 in5"),
	monS("GET k1"), monS("CONFIG GET maxmemory"), monS("AUTH pw"), monS("SELECT 0"), monS("MGET k1 k2 counter"), monS("EXEC"),
	monS("MULTI"), monS("SET k1 x"), monS("NOSUCH"), monS("SELECT 7"), monS("EXEC"),
	monS("MULTI"), monS("DISCARD"), monS("exec"),
	monS("WATCH k5"), monOn(1, monS("SET k5 changed")), monS("MULTI"), monS("GET k5"), monS("EXEC"),
	monOn(1, monitorStep{cmd: compatS("BLPOP blist 5"), noRead: true}),
	monSync(`"BLPOP" "blist" "5"`),
	monS("RPUSH blist x"),
	{conn: 1, read: 1},
	monOn(1, monS("BLPOP blist 0.05")),
	monS("PUBLISH chan msg"), monS("PING"), monS("PING hi"), monS("ECHO e"),
	{cmd: compatInline("SET inl \"a b\"\r\n")},
	monS("TIME"), monS("DBSIZE"),
	// Scripts show as they start, then the commands they ran, from "lua".
	monA("EVAL", "redis.call('set', KEYS[1], ARGV[1]) redis.call('select', 2) redis.call('ping') "+
		"redis.pcall('nosuch') redis.pcall('config', 'get', 'x') return redis.call('get', KEYS[1])", "1", "k1", "sv"),
	monA("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "k2"),
	monA("EVAL", "return redis.call('incr', KEYS[1])", "1", "k5"),
	monA("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
	monA("EVAL", "return redis.call('set', KEYS[1], 'x')", "-1"),
	monA("FUNCTION", "LOAD", "REPLACE", "#!lua name=mon\nredis.register_function('mf', function(keys) return redis.call('hset', keys[1], 'f', 'v') end)"),
	monA("FCALL", "mf", "1", "k3"), monA("FCALL_RO", "mf", "1", "k3"), monA("FCALL", "nosuch", "0"),
	monS("FLUSHALL"), monS("QUIT"),
}

var (
	monTimeRE = regexp.MustCompile(`^\+\d+\.\d{6} `)
	monAddrRE = regexp.MustCompile(`\[(\d+) 127\.0\.0\.1:\d+\]`)
)

// monitorTranscript runs monitorScript against addr with nMon monitors and
// returns what each monitor showed, without times and ports. Each client's
// command shows once per monitor, whichever core the monitor and the
// client live on, and a command sent after the other client's reply shows
// after that client's command, with nothing but the server to order them.
func monitorTranscript(t *testing.T, addr string, nMon int) [][]string {
	t.Helper()
	mons := make([]*compatConn, nMon)
	for i := range mons {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		if rep, err := c.do(compatS("MONITOR")); err != nil || string(rep.raw) != "+OK\r\n" {
			t.Fatalf("MONITOR: %v %v", rep, err)
		}
		mons[i] = c
	}
	var clients [2]*compatConn
	for i := range clients {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		clients[i] = c
	}
	out := make([][]string, nMon)
	readUntil := func(marker string) {
		for i, m := range mons {
			for {
				_ = m.c.SetReadDeadline(time.Now().Add(5 * time.Second))
				line, err := m.r.ReadString('\n')
				if err != nil {
					t.Fatalf("monitor %d waiting for %q: %v (so far %q)", i, marker, err, out[i])
				}
				line = strings.TrimSuffix(line, "\r\n")
				if !monTimeRE.MatchString(line) {
					t.Fatalf("monitor %d: line %q has no time stamp", i, line)
				}
				line = monTimeRE.ReplaceAllString(line, "+T ")
				line = monAddrRE.ReplaceAllString(line, "[$1 ADDR]")
				out[i] = append(out[i], line)
				if strings.Contains(line, marker) {
					break
				}
			}
		}
	}
	for n, st := range monitorScript {
		c := clients[st.conn]
		switch {
		case st.sync != "":
			readUntil(st.sync)
			continue
		case st.read > 0:
			if _, err := c.read(); err != nil {
				t.Fatalf("step %d: %v", n, err)
			}
			continue
		}
		if err := c.send(compatEncode(nil, st.cmd)); err != nil {
			t.Fatalf("step %d %v: %v", n, st.cmd, err)
		}
		if !st.noRead {
			if _, err := c.read(); err != nil {
				t.Fatalf("step %d %v: %v", n, st.cmd, err)
			}
		}
	}
	readUntil(`"QUIT"`)
	return out
}

// TestMonitorMatchesRedis: what MONITOR shows of a script, compared line
// for line with what redis-server 7.0 shows, with several monitors that
// (most likely) live on other cores than the clients.
func TestMonitorMatchesRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	redisAddr := compatStartRedis(t, redisPath)
	want := monitorTranscript(t, redisAddr, 1)[0]
	for _, shards := range []int{2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			got := monitorTranscript(t, srv.addr, 2*shards)
			for i, lines := range got {
				if strings.Join(lines, "\n") != strings.Join(want, "\n") {
					t.Errorf("monitor %d showed:\n%s\nredis-server showed:\n%s", i,
						strings.Join(lines, "\n"), strings.Join(want, "\n"))
				}
			}
		})
	}
}

// TestMonitorMode: a monitor is flagged O in CLIENT LIST, refuses what
// touches the keyspace, ignores a second MONITOR, and RESET ends it.
func TestMonitorMode(t *testing.T) {
	bin := corekvBinary(t)
	srv := compatStartCorekv(t, bin, 2)
	m, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	steps := []struct{ cmd, want string }{
		{"MONITOR", "+OK\r\n"},
		{"GET k", "-ERR Replica can't interact with the keyspace\r\n"},
		{"PUBLISH c m", "-ERR Replica can't interact with the keyspace\r\n"},
		{"MONITOR", ""}, // no reply: the next one is PING's
		{"PING", "+PONG\r\n"},
	}
	for _, st := range steps {
		if err := m.send(compatEncode(nil, compatS(st.cmd))); err != nil {
			t.Fatal(err)
		}
		if st.want == "" {
			continue
		}
		rep, err := m.read()
		if err != nil || string(rep.raw) != st.want {
			t.Fatalf("%s: %q %v, want %q", st.cmd, rep.raw, err, st.want)
		}
	}
	// Its own PING shows after its reply.
	_ = m.c.SetReadDeadline(time.Now().Add(3 * time.Second))
	if line, err := m.r.ReadString('\n'); err != nil || !strings.HasSuffix(line, "\"PING\"\r\n") {
		t.Fatalf("own line %q %v", line, err)
	}
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	rep, err := c.do(compatS("CLIENT LIST"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(rep.raw), " flags=O "); n != 1 {
		t.Fatalf("CLIENT LIST shows %d monitors:\n%s", n, rep.raw)
	}
	if rep, err := m.do(compatS("RESET")); err != nil || string(rep.raw) != "+RESET\r\n" {
		t.Fatalf("RESET: %v %v", rep, err)
	}
	if rep, err := m.do(compatS("GET k")); err != nil || string(rep.raw) != "$-1\r\n" {
		t.Fatalf("GET after RESET: %q %v", rep.raw, err)
	}
	rep, err = c.do(compatS("CLIENT LIST"))
	if err != nil || strings.Contains(string(rep.raw), "flags=O") {
		t.Fatalf("CLIENT LIST after RESET: %q %v", rep.raw, err)
	}
	// A request behind MONITOR in the same read is already a monitor's.
	if err := m.send([]byte("MONITOR\r\nGET k\r\n")); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+OK\r\n", "-ERR Replica can't interact with the keyspace\r\n"} {
		if rep, err := m.read(); err != nil || string(rep.raw) != want {
			t.Fatalf("pipelined MONITOR: %q %v, want %q", rep.raw, err, want)
		}
	}
}

// TestMonitorOutputLimit: a monitor that does not read is bound by the
// normal class of client-output-buffer-limit, as in Redis, and closed
// when it passes it; the clients it watched go on.
func TestMonitorOutputLimit(t *testing.T) {
	bin := corekvBinary(t)
	srv := compatStartCorekv(t, bin, 2)
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	if rep, err := c.do(compatA("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 0 0")); err != nil || string(rep.raw) != "+OK\r\n" {
		t.Fatalf("CONFIG SET: %v %v", rep, err)
	}
	mons := make([]*compatConn, 4) // on both cores, most likely
	for i := range mons {
		m, err := compatDial(srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer m.close()
		if rep, err := m.do(compatS("MONITOR")); err != nil || string(rep.raw) != "+OK\r\n" {
			t.Fatalf("MONITOR: %v %v", rep, err)
		}
		mons[i] = m
	}
	// 64 MiB of lines, read by no monitor: far past the limit and the
	// socket buffers.
	val := strings.Repeat("\x01", 16<<10)
	var batch []byte
	for i := 0; i < 64; i++ {
		batch = compatEncode(batch, compatA("SET", fmt.Sprintf("k%d", i), val))
	}
	for round := 0; round < 16; round++ {
		if err := c.send(batch); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 64; i++ {
			if rep, err := c.read(); err != nil || string(rep.raw) != "+OK\r\n" {
				t.Fatalf("SET: %v %v", rep, err)
			}
		}
	}
	for i, m := range mons {
		// Drain what the socket held; the connection must then end.
		_ = m.c.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 1<<20)
		for {
			if _, err := m.c.Read(buf); err != nil {
				if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
					t.Fatalf("monitor %d was not closed", i)
				}
				break
			}
		}
	}
	if rep, err := c.do(compatS("CLIENT LIST")); err != nil || strings.Contains(string(rep.raw), "flags=O") {
		t.Fatalf("CLIENT LIST: %q %v", rep.raw, err)
	}
}
