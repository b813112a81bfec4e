package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// TestMain removes the server binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// corekvBinary builds the server once per test run.
func corekvBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "corekv-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "corekv")
		args := []string{"build", "-o", binPath}
		if raceBuild {
			args = append(args, "-race")
		}
		args = append(args, ".")
		out, err := exec.Command("go", args...).CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// server is a running corekv process started by a test.
type server struct {
	cmd    *exec.Cmd
	port   int
	addr   string
	shards int
	log    *safeBuffer
	watch  *exitWatch
}

// exitWatch follows a corekv process a test started, so that a server that
// dies during a test fails it: a crash may otherwise leave nothing behind
// but a connection error that a test reads as a reply, or nothing at all.
// Both start helpers (startServerArgs, compatStartCorekv) report through it
// when the test ends.
type exitWatch struct {
	done chan struct{} // closed when the process has exited
	err  error         // cmd.Wait's result, set before done is closed
	logs *safeBuffer   // the process's output
	// asked is set when the test stops the process or expects it to exit,
	// and once an unasked exit has been reported.
	asked atomic.Bool
}

func newExitWatch(logs *safeBuffer) *exitWatch {
	return &exitWatch{done: make(chan struct{}), logs: logs}
}

// exited records the process's end; call it once, with cmd.Wait's result.
func (w *exitWatch) exited(err error) {
	w.err = err
	close(w.done)
}

// hasExited reports whether the process has ended.
func (w *exitWatch) hasExited() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

// expect marks an exit the test is about to cause.
func (w *exitWatch) expect() { w.asked.Store(true) }

// report fails t if the process has exited when nobody asked it to, naming
// when (e.g. "before the test ended"), its exit status and the last lines of
// its output; it reports an exit once and returns whether it did.
func (w *exitWatch) report(t testing.TB, name, when string) bool {
	if !w.hasExited() || !w.asked.CompareAndSwap(false, true) {
		return false
	}
	status := "exit status 0"
	if w.err != nil {
		status = w.err.Error() // "exit status 2", "signal: segmentation fault"
	}
	t.Errorf("%s exited %s (%s); the last lines of its output:\n%s", name, when, status, lastLines(w.logs.String(), 40))
	return true
}

// lastLines is the last n lines of s.
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '\n' {
			if n--; n == 0 {
				return s[i+1:]
			}
		}
	}
	return s
}

type safeBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *safeBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	b.buf = append(b.buf, p...)
	b.mu.Unlock()
	return len(p), nil
}

func (b *safeBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

var readyLine = regexp.MustCompile(`corekv ready.* shards=(\d+) .*port=(\d+)`)

// startServer runs corekv on a free loopback port with the given extra
// arguments, waits until it is ready, and stops it when the test ends.
func startServer(t testing.TB, wrapper []string, args ...string) *server {
	t.Helper()
	return startServerArgs(t, wrapper, append([]string{"--port", "0", "--bind", "127.0.0.1"}, args...))
}

// startServerArgs runs corekv with exactly args after the binary (and
// wrapper, such as taskset, before it).
func startServerArgs(t testing.TB, wrapper []string, args []string) *server {
	t.Helper()
	bin := corekvBinary(t)
	full := append([]string{}, wrapper...)
	full = append(full, bin)
	full = append(full, args...)
	cmd := exec.Command(full[0], full[1:]...)
	// Its own working directory: the default dir, where its snapshots go
	// and whose dump.rdb it loads.
	cmd.Dir = t.TempDir()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, log: &safeBuffer{}}
	s.watch = newExitWatch(s.log)
	ready := make(chan [2]int, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.log.Write([]byte(line + "\n"))
			if m := readyLine.FindStringSubmatch(line); m != nil {
				sh, _ := strconv.Atoi(m[1])
				p, _ := strconv.Atoi(m[2])
				ready <- [2]int{sh, p}
			}
		}
		io.Copy(io.Discard, stderr)
		s.watch.exited(cmd.Wait())
	}()
	select {
	case r := <-ready:
		s.shards, s.port = r[0], r[1]
	case <-s.watch.done:
		t.Fatalf("corekv exited before ready: %v\n%s", s.watch.err, s.log.String())
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("corekv not ready after 20s\n%s", s.log.String())
	}
	s.addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port))
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop sends SIGTERM and expects a clean exit. The test's cleanup calls it,
// so a server that exited by itself before then fails the test.
func (s *server) stop(t testing.TB) {
	if s.watch.report(t, "corekv", "before the test ended") || s.watch.hasExited() {
		return
	}
	s.watch.expect()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.watch.done:
		if s.watch.err != nil {
			t.Errorf("corekv exited with %v\n%s", s.watch.err, s.log.String())
		}
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.watch.done
		t.Errorf("corekv did not stop within 10s of SIGTERM\n%s", s.log.String())
	}
}

// client returns a go-redis client for s speaking the given protocol.
func (s *server) client(t testing.TB, proto int) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, Protocol: proto, PoolSize: 64, DisableIdentity: false})
	t.Cleanup(func() { c.Close() })
	return c
}

// raw opens a plain TCP connection to s.
func (s *server) raw(t testing.TB) net.Conn {
	t.Helper()
	c, err := net.DialTimeout("tcp", s.addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// mustServe checks that s still answers a fresh client.
func (s *server) mustServe(t testing.TB) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Set(ctx, "alive-check", "yes", 0).Err(); err != nil {
		t.Fatalf("server stopped serving: %v\n%s", err, s.log.String())
	}
	if v, err := c.Get(ctx, "alive-check").Result(); err != nil || v != "yes" {
		t.Fatalf("server answers wrongly: %q %v", v, err)
	}
}

// needTool skips when a command-line tool is missing, except under CI where
// the tool is part of the contract and its absence is a failure.
func needTool(t testing.TB, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is required under CI=true (install redis-server and redis-tools)", name)
		}
		t.Skipf("%s not installed; install redis-server and redis-tools to run this test", name)
	}
	return p
}

// shardCounts are the shard counts every integration test runs with.
var shardCounts = []int{1, 2, 4}

// redisAndCorekv starts a redis-server and a corekv of shards shards and
// returns a go-redis client (RESP2) of each, closed when the test ends.
func redisAndCorekv(t *testing.T, shards int) (rc, kc *redis.Client) {
	rc = redis.NewClient(&redis.Options{Addr: compatStartRedis(t, needTool(t, "redis-server")), Protocol: 2})
	kc = redis.NewClient(&redis.Options{Addr: compatStartCorekv(t, corekvBinary(t), shards).addr, Protocol: 2})
	t.Cleanup(func() { rc.Close(); kc.Close() })
	return rc, kc
}
