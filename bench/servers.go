package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	readyTimeout = 10 * time.Second // a server must answer PING within this after start
	stopTimeout  = 5 * time.Second  // after SIGTERM, then SIGKILL
	clockTicks   = 100              // USER_HZ: the unit of utime and stime in /proc/<pid>/stat
)

// tools are the programs the harness runs, resolved once.
type tools struct {
	Taskset        string
	RedisServer    string
	RedisBenchmark string
	Corekv         string   // empty with --only-redis
	CorekvArgs     []string // --corekv-args: added to every corekv command line
}

func findTools() (*tools, error) {
	t := &tools{}
	var missing []string
	for _, p := range []struct {
		name string
		dst  *string
	}{{"taskset", &t.Taskset}, {"redis-server", &t.RedisServer}, {"redis-benchmark", &t.RedisBenchmark}} {
		path, err := exec.LookPath(p.name)
		if err != nil {
			missing = append(missing, p.name)
			continue
		}
		*p.dst = path
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("not found in PATH: %s", strings.Join(missing, ", "))
	}
	return t, nil
}

// target is one server configuration of the matrix.
type target struct {
	Server string `json:"server"` // "redis" or "corekv"
	Shards int    `json:"shards"` // corekv only; 0 for redis, and for corekv's own default
	CPUs   string `json:"cpus"`   // "" runs the server unpinned
}

func (t target) label() string {
	switch {
	case t.Server == "redis":
		return "redis"
	case t.Shards == 0:
		return "corekv"
	}
	return fmt.Sprintf("corekv/%d", t.Shards)
}

// server is one running server process that the harness started.
type server struct {
	target
	Port    int
	Argv    []string
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	logPath string
}

func (s *server) addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }
func (s *server) pid() int     { return s.cmd.Process.Pid }

// serverArgv is the command line that starts t on port, pinned with taskset
// unless t has no CPUs; corekv without a shard count keeps its default.
func serverArgv(tl *tools, t target, port int, onlyRedis bool) []string {
	p := strconv.Itoa(port)
	var argv []string
	if t.CPUs != "" {
		argv = []string{tl.Taskset, "-c", t.CPUs}
	}
	if t.Server == "redis" || onlyRedis {
		return append(argv, tl.RedisServer, "--port", p, "--bind", "127.0.0.1",
			"--save", "", "--appendonly", "no", "--protected-mode", "no")
	}
	argv = append(argv, tl.Corekv, "--port", p, "--bind", "127.0.0.1", "--save", "")
	if t.Shards > 0 {
		argv = append(argv, "--shards", strconv.Itoa(t.Shards))
	}
	return append(argv, tl.CorekvArgs...)
}

// startServer starts t on a free port and returns once it answers PING. Its output goes to a log file in
// logDir. taskset execs the server, so the process started is the server itself. extraArgs follow the
// server's own; a non-empty env replaces the environment of the process.
func startServer(ctx context.Context, tl *tools, t target, onlyRedis bool, logDir string, extraArgs []string,
	env ...string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	argv := append(serverArgv(tl, t, port, onlyRedis), extraArgs...)
	s := &server{target: t, Port: port, Argv: argv, done: make(chan struct{})}
	s.logPath = filepath.Join(logDir, fmt.Sprintf("%s-%d.log", strings.ReplaceAll(t.label(), "/", "-"), port))
	logf, err := os.Create(s.logPath)
	if err != nil {
		return nil, err
	}
	s.cmd = exec.Command(s.Argv[0], s.Argv[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if len(env) > 0 {
		s.cmd.Env = env
	}
	// The server dies with the harness even when the harness is killed.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start %s: %w", t.label(), err)
	}
	go func() {
		s.cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	if err := waitReady(ctx, s.addr(), readyTimeout, s.done); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s (%s): %w%s", t.label(), shellJoin(s.Argv), err, logTail(s.logPath))
	}
	return s, nil
}

// alive reports whether the process is still running.
func (s *server) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// stop ends the process: SIGTERM, then SIGKILL after stopTimeout. It is safe to call twice.
func (s *server) stop() {
	if !s.alive() {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(stopTimeout):
		s.cmd.Process.Kill()
		<-s.done
	}
}

// freePort asks the kernel for a port that is free now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// waitReady dials addr and sends an inline PING until it reads +PONG, the process exits or timeout passes.
func waitReady(ctx context.Context, addr string, timeout time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(timeout)
	var last error
	for time.Now().Before(deadline) {
		if last = ping(addr); last == nil {
			return nil
		}
		select {
		case <-exited:
			return errors.New("exited before answering PING")
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("no PONG within %v: %v", timeout, last)
}

func ping(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 500*time.Millisecond)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	if strings.TrimRight(line, "\r\n") != "+PONG" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// appendCommand appends args as a RESP array of bulk strings.
func appendCommand(dst []byte, args ...string) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(args)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// command sends one command on a fresh connection and returns its reply: a one-line reply (+, : or -)
// without the type byte, or a short bulk string's body. An error reply is returned as an error.
func command(addr string, timeout time.Duration, args ...string) (string, error) {
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write(appendCommand(nil, args...)); err != nil {
		return "", err
	}
	r := bufio.NewReader(c)
	line, err := r.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("%s: %w", args[0], err)
	}
	line = strings.TrimRight(line, "\r\n")
	switch {
	case line == "":
		return "", fmt.Errorf("%s: empty reply", args[0])
	case line[0] == '-':
		return "", fmt.Errorf("%s: %s", args[0], line[1:])
	case line[0] == '+' || line[0] == ':':
		return line[1:], nil
	case line[0] == '$' && line != "$-1":
		body, err := r.ReadString('\n')
		if err != nil {
			return "", fmt.Errorf("%s: %w", args[0], err)
		}
		return strings.TrimRight(body, "\r\n"), nil
	}
	return "", fmt.Errorf("%s: unexpected reply %q", args[0], line)
}

// infoValues sends INFO section and returns its fields as text.
func infoValues(addr, section string) (map[string]string, error) {
	const timeout = 10 * time.Second
	c, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(timeout))
	if _, err := c.Write(appendCommand(nil, "INFO", section)); err != nil {
		return nil, err
	}
	r := bufio.NewReader(c)
	head, err := r.ReadString('\n')
	if err != nil {
		return nil, fmt.Errorf("INFO: %w", err)
	}
	n, err := strconv.Atoi(strings.TrimRight(strings.TrimPrefix(head, "$"), "\r\n"))
	if !strings.HasPrefix(head, "$") || err != nil || n < 0 {
		return nil, fmt.Errorf("INFO: unexpected reply %q", head)
	}
	body := make([]byte, n+2)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("INFO: %w", err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(string(body[:n]), "\r\n") {
		if k, v, ok := strings.Cut(line, ":"); ok {
			out[k] = v
		}
	}
	return out, nil
}

// infoInts sends INFO section and returns its integer fields.
func infoInts(addr, section string) (map[string]int64, error) {
	fields, err := infoValues(addr, section)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for k, v := range fields {
		if x, err := strconv.ParseInt(v, 10, 64); err == nil {
			out[k] = x
		}
	}
	return out, nil
}

func flushAll(addr string) error {
	r, err := command(addr, 30*time.Second, "FLUSHALL")
	if err == nil && r != "OK" {
		err = fmt.Errorf("FLUSHALL answered %q", r)
	}
	return err
}

func dbSize(addr string) (int64, error) {
	r, err := command(addr, 10*time.Second, "DBSIZE")
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(r, 10, 64)
}

// benchKey is the key redis-benchmark makes of key:__rand_int__ for the number n.
func benchKey(n int) string { return fmt.Sprintf("key:%012d", n) }

// preload SETs key:000000000000 … up to keys-1, each to size bytes of 'x' (what redis-benchmark writes),
// over conns pipelined connections.
func preload(ctx context.Context, addr string, keys, size, conns int) error {
	value := strings.Repeat("x", size)
	set := func(dst []byte, n int) []byte { return appendCommand(dst, "SET", benchKey(n), value) }
	return preloadWith(ctx, addr, keys, conns, set, "+OK\r\n")
}

// preloadWith sends the commands fill appends for 0 … keys-1 over conns pipelined connections, and checks
// that each one answers want.
func preloadWith(ctx context.Context, addr string, keys, conns int, fill func(dst []byte, n int) []byte,
	want string) error {
	const batch = 1000
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	per := (keys + conns - 1) / conns
	for c := 0; c < conns; c++ {
		lo, hi := c*per, min((c+1)*per, keys)
		if lo >= hi {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := loadRange(ctx, addr, lo, hi, batch, fill, want); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return firstErr
}

func loadRange(ctx context.Context, addr string, lo, hi, batch int, fill func(dst []byte, n int) []byte,
	want string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	r := bufio.NewReaderSize(c, 64<<10)
	var buf []byte
	for i := lo; i < hi; i += batch {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(batch, hi-i)
		buf = buf[:0]
		for k := i; k < i+n; k++ {
			buf = fill(buf, k)
		}
		c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := c.Write(buf); err != nil {
			return fmt.Errorf("preload: %w", err)
		}
		for k := 0; k < n; k++ {
			line, err := r.ReadString('\n')
			if err != nil {
				return fmt.Errorf("preload: %w", err)
			}
			if line != want {
				return fmt.Errorf("preload: %q answered %q", firstWord(buf), strings.TrimSpace(line))
			}
		}
	}
	return nil
}

// firstWord is the command name of the first command in a RESP request.
func firstWord(req []byte) string {
	f := strings.SplitN(string(req[:min(len(req), 64)]), "\r\n", 4)
	if len(f) < 3 {
		return ""
	}
	return f[2]
}

// cpuSeconds is the user plus system CPU time of a process, all its threads, from /proc/<pid>/stat.
func cpuSeconds(pid int) (float64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return parseStatCPU(string(data))
}

// parseStatCPU reads utime and stime (fields 14 and 15) of a /proc/<pid>/stat line. The command name in
// field 2 may hold spaces and parentheses, so fields are counted from the last ')'.
func parseStatCPU(stat string) (float64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat")
	}
	f := strings.Fields(stat[i+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("malformed utime/stime in /proc stat")
	}
	return float64(ut+st) / clockTicks, nil
}

// rssBytes is VmRSS of a process, from /proc/<pid>/status.
func rssBytes(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(string(data))
}

func parseVmRSS(status string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(v)
			if len(f) == 2 && f[1] == "kB" {
				kb, err := strconv.ParseInt(f[0], 10, 64)
				return kb * 1024, err
			}
		}
	}
	return 0, errors.New("no VmRSS in /proc status")
}

// repoRoot finds the module root from the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && strings.Contains(string(data), "module github.com/corekv/corekv") {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the corekv module (no go.mod found)")
		}
		dir = parent
	}
}

// buildCorekv compiles ./cmd/corekv into dir.
func buildCorekv(ctx context.Context, root, dir string) (string, error) {
	bin := filepath.Join(dir, "corekv")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/corekv")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build ./cmd/corekv: %v\n%s(use --only-redis, or --corekv-bin PATH)",
			err, out)
	}
	return bin, nil
}

func logTail(path string) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return ""
	}
	if len(data) > 2000 {
		data = data[len(data)-2000:]
	}
	return "\n--- " + path + " ---\n" + string(data)
}

// shellJoin quotes argv for display, so a logged command can be pasted into a shell.
func shellJoin(argv []string) string {
	parts := make([]string, len(argv))
	for i, a := range argv {
		if a == "" || strings.ContainsAny(a, " \t\"'$\\*?;&|<>()") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		parts[i] = a
	}
	return strings.Join(parts, " ")
}
