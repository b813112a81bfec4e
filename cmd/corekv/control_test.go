package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/sys/unix"
)

// rawReplies sends reqs (inline commands) on c, all at once when pipelined
// or one by one otherwise, and returns what came back once want bytes have
// arrived or the connection has been quiet for a while: a reply sent by
// mistake shows up as extra bytes.
func rawReplies(t *testing.T, c net.Conn, reqs []string, pipelined bool, want int) string {
	t.Helper()
	var got []byte
	buf := make([]byte, 64<<10)
	read := func(quiet time.Duration) {
		for {
			c.SetReadDeadline(time.Now().Add(quiet))
			n, err := c.Read(buf)
			got = append(got, buf[:n]...)
			if err != nil {
				return
			}
		}
	}
	if pipelined {
		if _, err := c.Write([]byte(strings.Join(reqs, "\r\n") + "\r\n")); err != nil {
			t.Fatal(err)
		}
	} else {
		for _, r := range reqs {
			if _, err := c.Write([]byte(r + "\r\n")); err != nil {
				t.Fatal(err)
			}
			read(20 * time.Millisecond)
		}
	}
	for deadline := time.Now().Add(5 * time.Second); len(got) < want && time.Now().Before(deadline); {
		read(50 * time.Millisecond)
	}
	read(200 * time.Millisecond)
	return string(got)
}

// TestClientReplySkip checks that CLIENT REPLY SKIP drops the reply of
// exactly the next request, whichever shard runs it, as Redis does (the
// expected bytes are redis-server 7.0.15's).
func TestClientReplySkip(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	// Several keys, so that some live on the other shard whichever
	// shard the connection landed on.
	var reqs []string
	var want strings.Builder
	for i := range 8 {
		k := fmt.Sprintf("k%d", i)
		reqs = append(reqs, "CLIENT REPLY SKIP", "SET "+k+" v"+k, "GET "+k)
		fmt.Fprintf(&want, "$%d\r\nv%s\r\n", len(k)+1, k)
	}
	cases := []struct {
		name string
		reqs []string
		want string
	}{
		{"skip then set and get", reqs, want.String()},
		{"skip covers a remote MGET", []string{"CLIENT REPLY SKIP", "MGET k0 k1 k2 k3", "PING a"}, "$1\r\na\r\n"},
		{"skip covers an error", []string{"CLIENT REPLY SKIP", "GET", "PING a"}, "$1\r\na\r\n"},
		{"skip covers an unknown command", []string{"CLIENT REPLY SKIP", "FOO", "PING a"}, "$1\r\na\r\n"},
		{"skip covers an empty line", []string{"CLIENT REPLY SKIP", "", "PING a", "PING b"}, "$1\r\na\r\n$1\r\nb\r\n"},
		{"skip twice", []string{"CLIENT REPLY SKIP", "CLIENT REPLY SKIP", "PING a", "PING b"}, "$1\r\nb\r\n"},
		{"skip then on", []string{"CLIENT REPLY SKIP", "CLIENT REPLY ON", "PING a"}, "+OK\r\n$1\r\na\r\n"},
		{"skip then off", []string{"CLIENT REPLY SKIP", "CLIENT REPLY OFF", "PING a", "CLIENT REPLY ON", "PING b"},
			"+OK\r\n$1\r\nb\r\n"},
		{"skip while off", []string{"CLIENT REPLY OFF", "CLIENT REPLY SKIP", "GET k1", "CLIENT REPLY ON", "GET k2"},
			"+OK\r\n$3\r\nvk2\r\n"},
		{"skip covers reset", []string{"CLIENT REPLY SKIP", "RESET", "PING a"}, "$1\r\na\r\n"},
	}
	// With redis-server at hand, the expectations are checked against it
	// too.
	servers := map[string]string{"corekv": srv.addr}
	if path, err := exec.LookPath("redis-server"); err == nil {
		servers["redis"] = compatStartRedis(t, path)
	}
	for name, addr := range servers {
		for _, tc := range cases {
			for _, pipelined := range []bool{true, false} {
				t.Run(fmt.Sprintf("%s/%s/pipelined=%v", name, tc.name, pipelined), func(t *testing.T) {
					c, err := net.DialTimeout("tcp", addr, 5*time.Second)
					if err != nil {
						t.Fatal(err)
					}
					defer c.Close()
					if got := rawReplies(t, c, tc.reqs, pipelined, len(tc.want)); got != tc.want {
						t.Fatalf("replies %q, want %q", got, tc.want)
					}
				})
			}
		}
	}
	// The connection stays in step afterwards.
	c := srv.raw(t)
	c.Write([]byte("CLIENT REPLY SKIP\r\nSET x 1\r\nGET x\r\nPING\r\n"))
	r := bufio.NewReader(c)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	for _, want := range []string{"$1\r\n", "1\r\n", "+PONG\r\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("got %q, %v; want %q", line, err, want)
		}
	}
}

// TestClientKillStalledReader kills a client that pipelines without reading
// its replies: it must be closed at once, not once its output drains (which
// never happens), and its maxclients slot must come back.
func TestClientKillStalledReader(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--maxclients", "2")
	killer := srv.raw(t)
	kr := bufio.NewReader(killer)
	send := func(cmd string) string {
		t.Helper()
		killer.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := killer.Write([]byte(cmd + "\r\n")); err != nil {
			t.Fatal(err)
		}
		line, err := kr.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		if strings.HasPrefix(line, "$") || strings.HasPrefix(line, "=") {
			var n int
			fmt.Sscanf(line[1:], "%d", &n)
			body := make([]byte, n+2)
			if _, err := io.ReadFull(kr, body); err != nil {
				t.Fatal(err)
			}
			return string(body[:n])
		}
		return line
	}
	val := strings.Repeat("x", 100<<10)
	if got := send(fmt.Sprintf("*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$%d\r\n%s", len(val), val)); got != "+OK\r\n" {
		t.Fatalf("SET: %q", got)
	}

	stalled := srv.raw(t)
	stalled.SetDeadline(time.Now().Add(5 * time.Second))
	stalled.Write([]byte("CLIENT ID\r\n"))
	line, err := bufio.NewReader(stalled).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(strings.TrimPrefix(line, ":"))
	// 200 replies of 100 KB fill the socket buffers both ways and stall
	// the server's writes to this client.
	stalled.SetWriteDeadline(time.Now().Add(2 * time.Second))
	stalled.Write([]byte(strings.Repeat("GET big\r\n", 200)))
	time.Sleep(300 * time.Millisecond)

	if got := send("CLIENT KILL ID " + id); got != ":1\r\n" {
		t.Fatalf("CLIENT KILL ID %s: %q", id, got)
	}
	if list := send("CLIENT LIST"); strings.Contains(list, "id="+id+" ") {
		t.Fatalf("killed client %s still in CLIENT LIST:\n%s", id, list)
	}
	if got := send("CLIENT KILL ID " + id); got != "-ERR No such client\r\n" && got != ":0\r\n" {
		t.Fatalf("second CLIENT KILL ID %s: %q", id, got)
	}
	// The killed client's socket ends: whatever it still reads, then EOF
	// or a reset, not a wait for ever.
	stalled.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 1<<20)
	for {
		if _, err := stalled.Read(buf); err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the killed client's connection is still open")
			}
			break
		}
	}
	// With --maxclients 2, a new client gets the killed one's slot.
	var got string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", srv.addr, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write([]byte("PING\r\n"))
		got, _ = bufio.NewReader(c).ReadString('\n')
		c.Close()
		if got == "+PONG\r\n" {
			return
		}
	}
	t.Fatalf("a new client after the kill got %q", got)
}

// TestConfigSetAllOrNone checks that CONFIG SET with one bad pair changes
// nothing and names that pair in Redis 7's words, and that a negative output
// limit is refused (it would switch the output safety cap off).
func TestConfigSetAllOrNone(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--maxclients", "100")
	c := srv.client(t, 2)
	ctx := context.Background()
	failed := func(arg, why string) string {
		return "ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + why
	}
	limitValue := failed("client-output-buffer-limit", "Error in hard, soft or soft_seconds setting in buffer limit configuration.")
	cases := []struct {
		args []any
		want string
	}{
		{[]any{"requirepass", "x", "maxclients", "bad"}, failed("maxclients", "argument couldn't be parsed into an integer")},
		{[]any{"maxclients", "50", "maxclients", "60"}, failed("maxclients", "duplicate parameter")},
		{[]any{"maxclients", "50", "maxclients", "0"}, failed("maxclients", "duplicate parameter")},
		{[]any{"requirepass", "x", "maxclients", "0"}, failed("maxclients", "argument must be between 1 and 4294967295 inclusive")},
		{[]any{"requirepass", "x", "loglevel", "loud"},
			failed("loglevel", "argument(s) must be one of the following: debug, verbose, notice, warning")},
		{[]any{"maxclients", "50", "client-output-buffer-limit", "normal -1 0 0"}, limitValue},
		{[]any{"client-output-buffer-limit", "normal 1mb 0 0 pubsub -5 0 0"}, limitValue},
		{[]any{"client-output-buffer-limit", "normal 0 -1 0"}, limitValue},
		{[]any{"client-output-buffer-limit", "normal 0 0 -1"}, limitValue},
		{[]any{"client-output-buffer-limit", "normal -1gb 0 0"}, limitValue},
		{[]any{"client-output-buffer-limit", "normal 0 0"},
			failed("client-output-buffer-limit", "Wrong number of arguments in buffer limit configuration.")},
		{[]any{"client-output-buffer-limit", "foo 0 0 0"},
			failed("client-output-buffer-limit", "Invalid client class specified in buffer limit configuration.")},
		{[]any{"maxclients", "50", "databases", "8"}, failed("databases", "can't set immutable config")},
		{[]any{"maxclients", "50", "port", "7000"}, failed("port", "corekv sets port only at start")},
		{[]any{"maxclients", "50", "nosuch", "1"}, "ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'"},
	}
	for _, tc := range cases {
		err := c.Do(ctx, append([]any{"CONFIG", "SET"}, tc.args...)...).Err()
		if err == nil || err.Error() != tc.want {
			t.Errorf("CONFIG SET %v: %v, want %q", tc.args, err, tc.want)
		}
		got, err := c.ConfigGet(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		if got["requirepass"] != "" || got["maxclients"] != "100" || got["loglevel"] != "notice" ||
			!strings.HasPrefix(got["client-output-buffer-limit"], "normal 0 0 0 ") {
			t.Fatalf("after the refused CONFIG SET %v: requirepass %q maxclients %q loglevel %q client-output-buffer-limit %q",
				tc.args, got["requirepass"], got["maxclients"], got["loglevel"], got["client-output-buffer-limit"])
		}
	}
	if err := c.Do(ctx, "CONFIG", "SET", "maxclients", "50", "client-output-buffer-limit", "normal 4mb 0 0").Err(); err != nil {
		t.Fatal(err)
	}
	got, _ := c.ConfigGet(ctx, "*").Result()
	if got["maxclients"] != "50" || !strings.HasPrefix(got["client-output-buffer-limit"], "normal 4194304 0 0 ") {
		t.Fatalf("after a good CONFIG SET: maxclients %q client-output-buffer-limit %q", got["maxclients"], got["client-output-buffer-limit"])
	}
}

// TestNegativeOutputLimitFlag refuses a negative output limit at start-up.
func TestNegativeOutputLimitFlag(t *testing.T) {
	for _, args := range [][]string{
		{"--client-output-buffer-limit", "normal", "-1", "0", "0"},
		{"--output-safety-cap", "-1"},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		out, err := exec.CommandContext(ctx, corekvBinary(t), append([]string{"--port", "0", "--bind", "127.0.0.1"}, args...)...).CombinedOutput()
		cancel()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Errorf("corekv %v: %v, want exit status 2\n%s", args, err, out)
		}
	}
}

const errDebugNotAllowed = `ERR DEBUG command not allowed. If the enable-debug-command option is set to "local", you can run it ` +
	`from a local connection, otherwise you need to set this option in the configuration file, and then restart the server.`

// TestEnableDebugCommand checks enable-debug-command as Redis 7 has it: DEBUG
// refused by default with Redis's text, allowed with yes, allowed with
// local from 127.0.0.1 only; readable with CONFIG GET, immutable.
func TestEnableDebugCommand(t *testing.T) {
	ctx := context.Background()
	check := func(t *testing.T, c *redis.Client, mode string, allowed bool) {
		t.Helper()
		err := c.Do(ctx, "DEBUG", "SLEEP", "0").Err()
		if allowed && err != nil || !allowed && (err == nil || err.Error() != errDebugNotAllowed) {
			t.Errorf("%s: DEBUG SLEEP 0: %v (allowed: %v)", mode, err, allowed)
		}
		err = c.Do(ctx, "DEBUG", "HELP").Err()
		if allowed && err != nil || !allowed && (err == nil || err.Error() != errDebugNotAllowed) {
			t.Errorf("%s: DEBUG HELP: %v (allowed: %v)", mode, err, allowed)
		}
		if got, err := c.ConfigGet(ctx, "enable-debug-command").Result(); err != nil || got["enable-debug-command"] != mode {
			t.Errorf("CONFIG GET enable-debug-command = %v, %v; want %s", got, err, mode)
		}
		err = c.ConfigSet(ctx, "enable-debug-command", "yes").Err()
		if want := "ERR CONFIG SET failed (possibly related to argument 'enable-debug-command') - can't set immutable config"; err == nil || err.Error() != want {
			t.Errorf("CONFIG SET enable-debug-command: %v, want %q", err, want)
		}
	}
	for _, tc := range []struct {
		args    []string
		mode    string
		allowed bool
	}{
		{nil, "no", false},
		{[]string{"--enable-debug-command", "no"}, "no", false},
		{[]string{"--enable-debug-command", "yes"}, "yes", true},
		{[]string{"--enable-debug-command", "LOCAL"}, "local", true},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			srv := startServer(t, nil, append([]string{"--shards", "2"}, tc.args...)...)
			check(t, srv.client(t, 2), tc.mode, tc.allowed)
		})
	}
	t.Run("local refuses other addresses", func(t *testing.T) {
		// 127.0.0.2 is loopback too, but Redis's "local" is 127.0.0.1 and
		// ::1 only; binding it shows a client from elsewhere.
		srv := startServer(t, nil, "--shards", "2", "--enable-debug-command", "local")
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
		c := redis.NewClient(&redis.Options{Addr: srv.addr, Dialer: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}})
		defer c.Close()
		if err := c.Ping(ctx).Err(); err != nil {
			t.Skipf("cannot connect from 127.0.0.2: %v", err)
		}
		check(t, c, "local", false)
	})
	t.Run("bad value", func(t *testing.T) {
		o, err := parseArgs([]string{"--enable-debug-command", "maybe"})
		if want := ">>> 'enable-debug-command \"maybe\"'\nargument(s) must be one of the following: no, yes, local"; err == nil ||
			!strings.HasSuffix(err.Error(), want) {
			t.Errorf("parseArgs: %+v, %v; want %q", o, err, want)
		}
	})
}

// TestDebugSleepBounded checks that DEBUG SLEEP cannot freeze a shard: while
// one client sleeps for ever (or pipelines short sleeps), requests that need
// every shard still get answers within debugSleepTurnMax (half a second)
// and some slack; the sleeping client's own reply waits out its time, and
// the server still stops cleanly.
func TestDebugSleepBounded(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--enable-debug-command", "yes")
	ctx := context.Background()
	c := srv.client(t, 2)
	mustBeServed := func(what string) {
		t.Helper()
		worst := time.Duration(0)
		for i := range 10 {
			start := time.Now()
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			// DBSIZE runs on every shard; MSET's keys span both.
			err := c.DBSize(cctx).Err()
			if err == nil {
				err = c.MSet(cctx, fmt.Sprintf("a%d", i), "1", fmt.Sprintf("b%d", i), "2", fmt.Sprintf("c%d", i), "3").Err()
			}
			cancel()
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			worst = max(worst, time.Since(start))
			time.Sleep(30 * time.Millisecond)
		}
		if worst > 2*time.Second {
			t.Fatalf("%s: a request waited %v", what, worst)
		}
	}

	// A short sleep still makes its client wait the full time.
	start := time.Now()
	if err := c.Do(ctx, "DEBUG", "SLEEP", "0.3").Err(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 300*time.Millisecond {
		t.Fatalf("DEBUG SLEEP 0.3 answered after %v", d)
	}

	// A longer one too, and it holds back the client's next request.
	sleeper := srv.raw(t)
	// Before the write: the server may begin the sleep before Write returns.
	start = time.Now()
	sleeper.Write([]byte("DEBUG SLEEP 1.5\r\nPING\r\n"))
	mustBeServed("during DEBUG SLEEP 1.5")
	sleeper.SetReadDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(sleeper)
	for _, want := range []string{"+OK\r\n", "+PONG\r\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("sleeping client read %q, %v; want %q", line, err, want)
		}
	}
	if d := time.Since(start); d < 1500*time.Millisecond {
		t.Fatalf("DEBUG SLEEP 1.5 answered after %v", d)
	}

	for _, req := range []string{"DEBUG SLEEP 1e9\r\n", strings.Repeat("DEBUG SLEEP 0.05\r\n", 1000)} {
		s := srv.raw(t)
		s.Write([]byte(req))
		time.Sleep(100 * time.Millisecond)
		mustBeServed("while a client sends " + strings.SplitN(req, "\r", 2)[0])
		s.Close()
	}
	srv.mustServe(t)
	// A client that hangs up in its sleep is gone at once, not when the
	// sleep ends.
	gone := srv.raw(t)
	gone.SetDeadline(time.Now().Add(5 * time.Second))
	gone.Write([]byte("CLIENT ID\r\nDEBUG SLEEP 1e9\r\n"))
	line, err := bufio.NewReader(gone).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	id := "id=" + strings.TrimSpace(strings.TrimPrefix(line, ":")) + " "
	gone.Close()
	var list string
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if list = c.ClientList(ctx).Val(); !strings.Contains(list, id) {
			break
		}
	}
	if strings.Contains(list, id) {
		t.Fatalf("a client that hung up during DEBUG SLEEP 1e9 is still connected:\n%s", list)
	}
	// The cleanup stops the server: a sleep still pending must not hold it.
	forever := srv.raw(t)
	forever.Write([]byte("DEBUG SLEEP 1e9\r\n"))
	time.Sleep(100 * time.Millisecond)
}

// cpuTime reads a process's user+system CPU time from /proc.
func cpuTime(t *testing.T, pid int) time.Duration {
	t.Helper()
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name, which is in parentheses: utime and
	// stime are the 12th and 13th.
	f := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // clock ticks (USER_HZ)
}

// TestAcceptOutOfFDs runs the server out of file descriptors: accept fails
// with EMFILE on a level-triggered listener, and the shard must not spin on
// it or flood the log; once descriptors are free again the waiting clients
// get in.
func TestAcceptOutOfFDs(t *testing.T) {
	srv := startServer(t, nil, "--shards", "1")
	pid := srv.cmd.Process.Pid
	fds, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	if err != nil {
		t.Fatal(err)
	}
	var old unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, nil, &old); err != nil {
		t.Skipf("cannot read the server's RLIMIT_NOFILE: %v", err)
	}
	// Room for three clients, then accept fails with EMFILE.
	low := unix.Rlimit{Cur: uint64(len(fds) + 3), Max: old.Max}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &low, nil); err != nil {
		t.Skipf("cannot lower the server's RLIMIT_NOFILE: %v", err)
	}
	restored := false
	restore := func() {
		if !restored {
			restored = true
			unix.Prlimit(pid, unix.RLIMIT_NOFILE, &old, nil)
		}
	}
	defer restore()
	var conns []net.Conn
	for range 20 {
		conns = append(conns, srv.raw(t))
	}
	time.Sleep(200 * time.Millisecond)
	before := cpuTime(t, pid)
	time.Sleep(1500 * time.Millisecond)
	used := cpuTime(t, pid) - before
	logged := strings.Count(srv.log.String(), "too many open files")
	t.Logf("out of descriptors for 1.5 s: %v of CPU, %d warnings", used, logged)
	if used > 300*time.Millisecond {
		t.Errorf("the server used %v of CPU in 1.5 s while it could not accept (spinning)", used)
	}
	if logged < 1 || logged > 5 {
		t.Errorf("the server logged %d warnings about too many open files in about 2 s; want 1 to 5\n%.4000s", logged, srv.log.String())
	}
	// Descriptors come back: every client waiting in the backlog gets in.
	restore()
	for i, c := range conns {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		c.Write([]byte("PING\r\n"))
		if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "+PONG\r\n" {
			t.Fatalf("client %d after the limit came back: %q, %v", i, line, err)
		}
	}
	srv.mustServe(t)
}

// TestMaxClientsFitFDLimit starts the server under ulimit -n 64: as Redis,
// it lowers maxclients to what the limit holds past its reserve, says so,
// and CONFIG SET maxclients refuses a value the limit cannot hold with
// Redis's text.
func TestMaxClientsFitFDLimit(t *testing.T) {
	sh := needBinary(t, "sh")
	srv := startServer(t, []string{sh, "-c", `ulimit -n 64 && exec "$0" "$@"`}, "--shards", "1")
	data, err := os.ReadFile("/proc/" + strconv.Itoa(srv.cmd.Process.Pid) + "/limits")
	if err != nil {
		t.Fatal(err)
	}
	var limit int64
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "Max open files") {
			limit, _ = strconv.ParseInt(strings.Fields(line)[3], 10, 64)
		}
	}
	if limit > 10000+64 {
		t.Skipf("the server could raise its open file limit to %d (privileged)", limit)
	}
	// Reserve: Redis's 32, plus the shard's epoll, eventfd and listener.
	want := limit - 32 - 3
	if !strings.Contains(srv.log.String(), "maxclients reduced to fit the open file limit") ||
		!strings.Contains(srv.log.String(), "maxclients="+strconv.FormatInt(want, 10)) {
		t.Errorf("no warning that maxclients was reduced to %d:\n%s", want, srv.log.String())
	}
	c := srv.client(t, 2)
	ctx := context.Background()
	if got, err := c.ConfigGet(ctx, "maxclients").Result(); err != nil || got["maxclients"] != strconv.FormatInt(want, 10) {
		t.Fatalf("CONFIG GET maxclients = %v, %v; want %d", got, err, want)
	}
	wantErr := "ERR CONFIG SET failed (possibly related to argument 'maxclients') - " +
		"The operating system is not able to handle the specified number of clients, try with " + strconv.FormatInt(want, 10)
	if err := c.ConfigSet(ctx, "maxclients", "1000").Err(); err == nil || err.Error() != wantErr {
		t.Fatalf("CONFIG SET maxclients 1000: %v, want %q", err, wantErr)
	}
	for _, n := range []int64{10, want} {
		if err := c.ConfigSet(ctx, "maxclients", strconv.FormatInt(n, 10)).Err(); err != nil {
			t.Fatalf("CONFIG SET maxclients %d: %v", n, err)
		}
	}
	// Clients past maxclients get Redis's error, not a descriptor the
	// server does not have.
	var refused int
	for range want + 10 {
		cn := srv.raw(t)
		cn.SetDeadline(time.Now().Add(5 * time.Second))
		cn.Write([]byte("PING\r\n"))
		line, _ := bufio.NewReader(cn).ReadString('\n')
		switch line {
		case "+PONG\r\n":
		case "-ERR max number of clients reached\r\n":
			refused++
		default:
			t.Fatalf("client got %q", line)
		}
	}
	if refused < 10 {
		t.Fatalf("%d clients refused past maxclients %d, want at least 10", refused, want)
	}
	if n := strings.Count(srv.log.String(), "too many open files"); n > 0 {
		t.Fatalf("the server ran out of descriptors:\n%s", srv.log.String())
	}
}
