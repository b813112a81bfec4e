package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestBadInput sends malformed and hostile input; each case must get
// Redis's reply (or a closed connection) and leave other clients served.
func TestBadInput(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	cases := []struct {
		name   string
		send   string
		reply  string // expected start of the reply
		closed bool   // the server closes the connection after replying
	}{
		{"bad multibulk length", "*abc\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
		{"huge multibulk", "*99999999999\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
		{"huge bulk", "*1\r\n$99999999999\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
		{"negative bulk", "*1\r\n$-2\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
		{"missing dollar", "*1\r\nGET\r\n", "-ERR Protocol error: expected '$', got 'G'\r\n", true},
		{"unbalanced quotes", "SET \"a b\r\n", "-ERR Protocol error: unbalanced quotes in request\r\n", true},
		{"unknown inline", "\x01\x02garbage here\r\n", "-ERR unknown command '\x01\x02garbage', with args beginning with: 'here' \r\n", false},
		{"empty lines", "\r\n\r\nPING\r\n", "+PONG\r\n", false},
		{"valid requests, then an error", "*1\r\n$4\r\nPING\r\nECHO x\r\n*1\r\nGET\r\n",
			"+PONG\r\n$1\r\nx\r\n-ERR Protocol error: expected '$', got 'G'\r\n", true},
		{"nothing runs after QUIT", "*3\r\n$3\r\nSET\r\n$1\r\nq\r\n$1\r\n1\r\nQUIT\r\n*3\r\n$3\r\nSET\r\n$1\r\nq\r\n$1\r\n2\r\n",
			"+OK\r\n+OK\r\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := srv.raw(t)
			c.SetDeadline(time.Now().Add(5 * time.Second))
			if _, err := c.Write([]byte(tc.send)); err != nil {
				t.Fatal(err)
			}
			got := make([]byte, len(tc.reply))
			if _, err := readFull(c, got); err != nil || string(got) != tc.reply {
				t.Fatalf("reply = %q, %v; want %q", got, err, tc.reply)
			}
			if tc.closed {
				var one [1]byte
				if n, err := c.Read(one[:]); err == nil {
					t.Fatalf("connection still open after a protocol error (read %d bytes)", n)
				}
			}
			srv.mustServe(t)
		})
	}

	t.Run("the request after QUIT did not run", func(t *testing.T) {
		c := srv.client(t, 2)
		if v, err := c.Get(context.Background(), "q").Result(); err != nil || v != "1" {
			t.Fatalf("q = %q, %v; want 1", v, err)
		}
	})

	t.Run("half frame then close", func(t *testing.T) {
		for i := 0; i < 20; i++ {
			c := srv.raw(t)
			c.Write([]byte("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$100\r\nabc"))
			c.Close()
		}
		srv.mustServe(t)
	})

	t.Run("declared length is not allocated", func(t *testing.T) {
		// 512 MB declared, 10 bytes sent: the server must not reserve the
		// declared size.
		before := rssOf(t, srv.cmd.Process.Pid)
		var conns []func()
		for i := 0; i < 20; i++ {
			c := srv.raw(t)
			c.Write([]byte("*2\r\n$3\r\nGET\r\n$536870912\r\n0123456789"))
			conns = append(conns, func() { c.Close() })
		}
		time.Sleep(200 * time.Millisecond)
		srv.mustServe(t)
		after := rssOf(t, srv.cmd.Process.Pid)
		if after-before > 64<<20 {
			t.Fatalf("RSS grew by %d bytes for 20 partial 512MB bulks", after-before)
		}
		for _, f := range conns {
			f()
		}
	})
}

// TestSlowReader pipelines requests for a large value without reading the
// replies: the server must stop reading from that client rather than grow,
// and close it when its output passes the configured hard limit.
func TestSlowReader(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--client-output-buffer-limit", "normal", "4mb", "0", "0")
	ctx := context.Background()
	c := srv.client(t, 2)
	big := strings.Repeat("x", 100<<10)
	if err := c.Set(ctx, "big", big, 0).Err(); err != nil {
		t.Fatal(err)
	}
	before := rssOf(t, srv.cmd.Process.Pid)
	slow := srv.raw(t)
	req := []byte(strings.Repeat("GET big\r\n", 1000))
	done := make(chan struct{})
	go func() {
		defer close(done)
		// 20,000 requests would be 2 GB of replies; the writes block once
		// the server stops reading, and the deadline ends them.
		slow.SetWriteDeadline(time.Now().Add(3 * time.Second))
		for i := 0; i < 20; i++ {
			if _, err := slow.Write(req); err != nil {
				return
			}
		}
	}()
	time.Sleep(1 * time.Second)
	srv.mustServe(t)
	// What stays in memory is bounded by the back-pressure limits (about
	// 1 MB owed to the client, replies in flight included), not by what the
	// client asked for. The race detector multiplies every allocation's footprint.
	limit := int64(150 << 20)
	if raceBuild {
		limit = 600 << 20
	}
	grown := rssOf(t, srv.cmd.Process.Pid) - before
	t.Logf("RSS grew by %d MB while a client asked for 2 GB of replies without reading", grown>>20)
	if grown > limit {
		t.Fatalf("server RSS grew by %d MB for one client that does not read (limit %d MB)", grown>>20, limit>>20)
	}
	<-done
	srv.mustServe(t)
}

// TestMaxClients refuses clients beyond --maxclients with Redis's error.
func TestMaxClients(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--maxclients", "3")
	for i := 0; i < 3; i++ {
		c := srv.raw(t)
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("PING\r\n"))
		got := make([]byte, 7)
		if _, err := readFull(c, got); err != nil || string(got) != "+PONG\r\n" {
			t.Fatalf("client %d: %q %v", i, got, err)
		}
	}
	c := srv.raw(t)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil || line != "-ERR max number of clients reached\r\n" {
		t.Fatalf("fourth client got %q, %v", line, err)
	}
}

// TestRequirePass checks NOAUTH, AUTH and HELLO AUTH.
func TestRequirePass(t *testing.T) {
	srv := startServer(t, nil, "--requirepass", "s3cret")
	ctx := context.Background()
	noauth := redis.NewClient(&redis.Options{Addr: srv.addr, Protocol: 2})
	defer noauth.Close()
	if err := noauth.Get(ctx, "k").Err(); err == nil || err.Error() != "NOAUTH Authentication required." {
		t.Fatalf("GET without AUTH: %v", err)
	}
	wrong := redis.NewClient(&redis.Options{Addr: srv.addr, Password: "nope"})
	defer wrong.Close()
	if err := wrong.Ping(ctx).Err(); err == nil || !strings.HasPrefix(err.Error(), "WRONGPASS") {
		t.Fatalf("wrong password: %v", err)
	}
	for _, proto := range []int{2, 3} {
		ok := redis.NewClient(&redis.Options{Addr: srv.addr, Password: "s3cret", Protocol: proto})
		if err := ok.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatalf("RESP%d with password: %v", proto, err)
		}
		ok.Close()
	}
}

// TestConfigFileAndFlags loads a redis.conf-style file and lets flags
// override it.
func TestConfigFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "corekv.conf")
	os.WriteFile(conf, []byte("# test config\nrequirepass \"pw\"\ndatabases 4\nmaxclients 50\nsave \"\"\n"), 0o644)
	srv2 := startServerWithConfig(t, conf, "--port", "0", "--bind", "127.0.0.1", "--databases", "8")
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: srv2.addr, Password: "pw"})
	defer c.Close()
	got, err := c.ConfigGet(ctx, "databases").Result()
	if err != nil || got["databases"] != "8" {
		t.Fatalf("CONFIG GET databases = %v, %v (flag should override the file)", got, err)
	}
	got, _ = c.ConfigGet(ctx, "maxclients").Result()
	if got["maxclients"] != "50" {
		t.Fatalf("CONFIG GET maxclients = %v", got)
	}
	if err := c.Do(ctx, "select", "7").Err(); err != nil {
		t.Fatalf("SELECT 7 with 8 databases: %v", err)
	}
}

func startServerWithConfig(t *testing.T, conf string, args ...string) *server {
	t.Helper()
	// The config file must be the first argument, before --port.
	return startServerArgs(t, nil, append([]string{conf}, args...))
}

// TestCPUAffinity proves the shard count and the pinning follow the affinity
// mask, which is what docker run --cpuset-cpus sets: a mask of some of the
// machine's CPUs gets a shard pinned to each, the whole of a small machine
// one unpinned shard.
func TestCPUAffinity(t *testing.T) {
	taskset := needBinary(t, "taskset")
	cpus, err := affinityCPUs()
	if err != nil {
		t.Fatal(err)
	}
	online := onlineCPUs(len(cpus))
	cases := [][]int{{cpus[0]}}
	if len(cpus) >= 2 {
		cases = append(cases, []int{cpus[len(cpus)-1]}, cpus[:2])
	}
	if len(cpus) >= 3 {
		cases = append(cases, cpus[:3])
	}
	for _, set := range cases {
		var list []string
		for _, c := range set {
			list = append(list, strconv.Itoa(c))
		}
		mask := strings.Join(list, ",")
		t.Run("cpus="+mask, func(t *testing.T) {
			shards, pinned := placement(0, "auto", set, online, len(set))
			if len(set) < online && (shards != len(set) || len(pinned) != len(set)) {
				t.Fatalf("a mask of %d of %d CPUs: %d shards pinned to %v, want one pinned on each", len(set), online,
					shards, pinned)
			}
			srv := startServer(t, []string{taskset, "-c", mask})
			if srv.shards != shards {
				t.Fatalf("under taskset -c %s the server runs %d shards, want %d", mask, srv.shards, shards)
			}
			want := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(pinned)), " "), "[]")
			if !strings.Contains(strings.ReplaceAll(srv.log.String(), `"`, ""), "cpus=["+want+"]") {
				t.Fatalf("start-up line does not name the pinned CPUs [%s]:\n%s", want, srv.log.String())
			}
			srv.mustServe(t)
		})
	}
}

// TestShutdownCommand stops the server with SHUTDOWN; it exits 0.
func TestShutdownCommand(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	c := srv.raw(t)
	srv.watch.expect()
	c.Write([]byte("SET k v\r\nSHUTDOWN NOSAVE\r\n"))
	select {
	case <-srv.watch.done:
		if err := srv.watch.err; err != nil {
			t.Fatalf("exit after SHUTDOWN: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server still running 10s after SHUTDOWN")
	}
}

func needBinary(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	return p
}

// rssOf reads a process's resident set size in bytes.
func rssOf(t *testing.T, pid int) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS")
	return 0
}
