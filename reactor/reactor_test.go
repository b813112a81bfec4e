package reactor

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"net"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/corekv/corekv/router"
)

// startInProcess runs a Server with the given shards on a free loopback port
// inside the test process.
func startInProcess(tb testing.TB, shards int) *Server {
	tb.Helper()
	cfg := Defaults()
	cfg.Port = 0
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Dir = tb.TempDir() // its snapshots, and none loaded
	cfg.Shards = shards
	// As cmd/corekv does: each shard holds a P while it polls with raw
	// system calls, so the test's own goroutines need one more, or they
	// wait for the scheduler to preempt a shard (milliseconds).
	if prev := runtime.GOMAXPROCS(0); prev < shards+1 {
		runtime.GOMAXPROCS(shards + 1)
		tb.Cleanup(func() { runtime.GOMAXPROCS(prev) })
	}
	srv, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		tb.Fatal(err)
	}
	srv.Start()
	tb.Cleanup(func() { srv.Stop(5 * time.Second) })
	return srv
}

func dial(tb testing.TB, srv *Server) net.Conn {
	tb.Helper()
	c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(srv.Port()))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { c.Close() })
	return c
}

// TestInProcessRoundTrip checks the loop end to end without the binary:
// pipelined requests over every shard come back in order.
func TestInProcessRoundTrip(t *testing.T) {
	for _, shards := range []int{1, 3} {
		srv := startInProcess(t, shards)
		c := dial(t, srv)
		c.SetDeadline(time.Now().Add(10 * time.Second))
		var req, want bytes.Buffer
		for i := 0; i < 500; i++ {
			k := "k" + strconv.Itoa(i)
			req.WriteString("SET " + k + " " + strconv.Itoa(i) + "\r\nGET " + k + "\r\n")
			v := strconv.Itoa(i)
			want.WriteString("+OK\r\n$" + strconv.Itoa(len(v)) + "\r\n" + v + "\r\n")
		}
		req.WriteString("DBSIZE\r\n")
		want.WriteString(":500\r\n")
		if _, err := c.Write(req.Bytes()); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, want.Len())
		if _, err := io.ReadFull(c, got); err != nil {
			t.Fatalf("shards=%d: %v (got %q)", shards, err, got)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("shards=%d: replies differ", shards)
		}
	}
}

// TestStopFinishesReplies stops the server while a client waits for the
// reply of a request already sent; it must get the reply.
func TestStopFinishesReplies(t *testing.T) {
	srv := startInProcess(t, 2)
	c := dial(t, srv)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("SET a 1\r\nGET a\r\n"))
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil || line != "+OK\r\n" {
		t.Fatalf("SET = %q, %v", line, err)
	}
	srv.Stop(5 * time.Second)
	rest, _ := io.ReadAll(r)
	if string(rest) != "$1\r\n1\r\n" {
		t.Fatalf("after Stop the client read %q", rest)
	}
}

// BenchmarkPipelineGet64 measures the whole path in one process: a client
// writes 64 pipelined GETs over a loopback socket and reads the 64 replies.
// The server side (and the client, which reuses its buffers) allocates
// nothing per round.
func BenchmarkPipelineGet64(b *testing.B) {
	for _, shards := range []int{1, 2} {
		b.Run("shards="+strconv.Itoa(shards), func(b *testing.B) {
			srv := startInProcess(b, shards)
			c := dial(b, srv)
			var req bytes.Buffer
			want := 0
			for i := 0; i < 64; i++ {
				k := "key:" + strconv.Itoa(i)
				req.WriteString("*2\r\n$3\r\nGET\r\n$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n")
				want += len("$-1\r\n")
			}
			buf := make([]byte, want)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.Write(req.Bytes()); err != nil {
					b.Fatal(err)
				}
				if _, err := io.ReadFull(c, buf); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*64)/b.Elapsed().Seconds(), "cmds/s")
		})
	}
}

// TestHomeHandlers checks that every command the table routes to the home
// core names a handler that exists, and that other commands name none but
// for their subcommands that run at home (FUNCTION KILL).
func TestHomeHandlers(t *testing.T) {
	for _, cmd := range router.Commands() {
		switch {
		case cmd.Route == router.RouteHome && (cmd.Home == router.HomeNone || homeHandlers[cmd.Home] == nil):
			t.Errorf("%s runs on the home core but has no home handler", cmd.Name)
		case cmd.Route != router.RouteHome && cmd.Home != router.HomeNone:
			home := false
			for _, sub := range cmd.Subcommands {
				home = home || sub.Home == cmd.Home
			}
			if !home || homeHandlers[cmd.Home] == nil {
				t.Errorf("%s names a home handler but is routed to a shard, and no subcommand runs at home", cmd.Name)
			}
		}
	}
}

func TestPreemptedOften(t *testing.T) {
	for _, c := range []struct {
		n, ms int64
		want  bool
	}{
		{0, 100, false}, {4, 100, false}, {5, 100, true}, {50, 1000, true}, {49, 1000, false}, {3, 0, false},
	} {
		if got := preemptedOften(c.n, c.ms); got != c.want {
			t.Errorf("%d switches in %d ms: %v", c.n, c.ms, got)
		}
	}
}
