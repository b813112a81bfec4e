package main

import (
	"bufio"
	"fmt"
	"math/rand"
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
)

// aofServer is a corekv with the append-only file on, in a directory that
// outlives it, so that the test can stop it (gently or with SIGKILL) and
// start another on the same files.
type aofServer struct {
	cmd  *exec.Cmd
	addr string
	logs *safeBuffer
	done chan struct{}
}

var aofReady = regexp.MustCompile(`corekv ready.* port=(\d+)`)

// aofStart runs corekv in dir with appendonly yes and the given fsync
// policy and extra arguments; it waits until it serves.
func aofStart(t *testing.T, dir string, shards int, fsync string, extra ...string) *aofServer {
	t.Helper()
	args := append([]string{"--port", "0", "--bind", "127.0.0.1", "--shards", strconv.Itoa(shards),
		"--enable-debug-command", "yes", "--save", "", "--dir", dir, "--appendonly", "yes", "--appendfsync", fsync}, extra...)
	cmd := exec.Command(corekvBinary(t), args...)
	cmd.Dir = dir
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &aofServer{cmd: cmd, logs: &safeBuffer{}, done: make(chan struct{})}
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.logs.Write([]byte(sc.Text() + "\n"))
			if m := aofReady.FindStringSubmatch(sc.Text()); m != nil {
				port <- m[1]
			}
		}
		cmd.Wait()
		close(s.done)
	}()
	t.Cleanup(func() {
		s.kill()
		if out := s.logs.String(); strings.Contains(out, "WARNING: DATA RACE") {
			t.Errorf("the race detector reported a data race:\n%s", out)
		}
	})
	select {
	case p := <-port:
		s.addr = net.JoinHostPort("127.0.0.1", p)
	case <-s.done:
		t.Fatalf("corekv exited during start-up:\n%s", s.logs.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("corekv did not start:\n%s", s.logs.String())
	}
	return s
}

// kill stops the server with SIGKILL: nothing it holds in memory survives.
func (s *aofServer) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.done
}

// stop stops the server with SHUTDOWN NOSAVE, as an operator would.
func (s *aofServer) stop(t *testing.T) {
	t.Helper()
	if c, err := compatDial(s.addr); err == nil {
		c.send(compatEncode(nil, compatA("SHUTDOWN", "NOSAVE")))
		c.close()
	}
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		t.Fatalf("corekv did not stop:\n%s", s.logs.String())
	}
}

// aofDo runs one command on addr and returns its reply as sent, a bulk
// string's body alone.
func aofDo(t *testing.T, addr string, args ...string) string {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	rep, err := c.do(compatA(args...))
	if err != nil {
		t.Fatalf("%q: %v", args, err)
	}
	if string(rep.raw) == "$-1\r\n" {
		return ""
	}
	if rep.kind == '$' {
		return string(compatBulk(rep))
	}
	return strings.TrimRight(string(rep.raw), "\r\n")
}

// checkAOF runs redis-check-aof on dir's manifest and fails unless it
// says every file is valid.
func checkAOF(t *testing.T, dir string) {
	t.Helper()
	tool := needTool(t, "redis-check-aof")
	out, err := exec.Command(tool, filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest")).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "All AOF files and manifest are valid") {
		t.Fatalf("redis-check-aof: %v\n%s", err, out)
	}
}

// aofFillMore adds what snapshotFill does not: cross-shard transactions,
// relative TTLs, INCRBYFLOAT, SPOP and a FLUSHDB, whose replay must give
// what ran.
func aofFillMore(t *testing.T, addr string) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, cmd := range [][]string{
		{"SELECT", "3"}, {"SET", "gone", "x"}, {"FLUSHDB"}, {"SET", "kept", "y", "EX", "100000"},
		{"SELECT", "0"}, {"MSET", "m:a", "1", "m:b", "2", "m:c", "3", "m:d", "4"},
		{"MULTI"}, {"INCR", "m:a"}, {"RPUSH", "m:list", "x"}, {"SET", "m:e", "5"}, {"EXEC"},
		{"SET", "f", "1.5"}, {"INCRBYFLOAT", "f", "0.25"}, {"SADD", "s", "a", "b", "c"}, {"SPOP", "s"},
		{"SET", "p", "v"}, {"EXPIRE", "p", "100000"}, {"DEL", "m:d"},
		{"XADD", "x", "*", "a", "1"}, {"XADD", "x", "*", "b", "2"}, {"XADD", "x", "MAXLEN", "~", "1", "*", "c", "3"},
		{"XADD", "x", "5000000000000-*", "d", "4"}, {"XADD", "x", "5000000000000-*", "e", "5"},
		{"XADD", "x", "MINID", "~", "0", "LIMIT", "5", "*", "f", "6"}, {"XTRIM", "x", "MAXLEN", "=", "4"},
		{"XDEL", "x", "5000000000000-0"}, {"XTRIM", "x", "MINID", "~", "5000000000000-1"},
		{"XADD", "x2", "MAXLEN", "0", "*", "g", "7"},
	} {
		if rep, err := c.do(compatA(cmd...)); err != nil || rep.kind == '-' {
			t.Fatalf("%q: %v %q", cmd, err, rep.raw)
		}
	}
}

// TestAOFRestart checks that a restart on the append-only directory gives
// back the dataset, in every fsync mode and shard count, that
// redis-check-aof accepts the files, and that after BGREWRITEAOF
// redis-server started on the directory holds the same dataset.
func TestAOFRestart(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	for _, tc := range []struct {
		shards int
		fsync  string
	}{{1, "always"}, {2, "everysec"}, {4, "no"}, {2, "always"}} {
		t.Run(fmt.Sprintf("shards=%d/%s", tc.shards, tc.fsync), func(t *testing.T) {
			dir := t.TempDir()
			srv := aofStart(t, dir, tc.shards, tc.fsync)
			snapshotFill(t, srv.addr)
			aofFillMore(t, srv.addr)
			want, at := journalDataset(t, srv.addr)
			srv.kill()
			checkAOF(t, dir)

			srv = aofStart(t, dir, tc.shards, tc.fsync)
			got, _ := journalDataset(t, srv.addr)
			journalCompare(t, "corekv restarted on its append-only file", want, got, at, nil)

			// A rewrite folds everything into the base; writes after its
			// cut go to the new files.
			if r := aofDo(t, srv.addr, "BGREWRITEAOF"); r != "+Background append only file rewriting started" {
				t.Fatalf("BGREWRITEAOF: %s", r)
			}
			aofDo(t, srv.addr, "SET", "after", "rewrite")
			aofWaitRewrite(t, srv.addr)
			aofDo(t, srv.addr, "SET", "after2", "rewrite")
			want, at = journalDataset(t, srv.addr)
			srv.stop(t)
			checkAOF(t, dir)
			files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*"))
			if len(files) != tc.shards+2 {
				t.Errorf("after the rewrite the directory holds %v, want a base, %d incremental files and the manifest", files, tc.shards)
			}

			redisAddr := compatStartRedis(t, redisPath, "--dir", dir, "--appendonly", "yes")
			got, _ = journalDataset(t, redisAddr)
			journalCompare(t, "redis-server on corekv's append-only directory", want, got, at, nil)

			srv = aofStart(t, dir, tc.shards, tc.fsync)
			got, _ = journalDataset(t, srv.addr)
			journalCompare(t, "corekv restarted after the rewrite", want, got, at, nil)
		})
	}
}

// aofWaitRewrite waits until no rewrite runs and one has succeeded.
func aofWaitRewrite(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		info := aofDo(t, addr, "INFO", "persistence")
		if strings.Contains(info, "aof_rewrite_in_progress:0") && !strings.Contains(info, "aof_rewrites:0") {
			if !strings.Contains(info, "aof_last_bgrewrite_status:ok") {
				t.Fatalf("the rewrite failed:\n%s", info)
			}
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the rewrite did not end within 30s")
}

// TestAOFKillKeepsAcknowledged kills corekv with SIGKILL at random moments
// while clients write, and checks after each restart that every write
// acknowledged before the kill is there (appendfsync always and
// everysec: the write reaches the file before the reply) and that no
// cross-shard MSET or MULTI/EXEC is there in part.
func TestAOFKillKeepsAcknowledged(t *testing.T) {
	trials := 3
	if s := os.Getenv("COREKV_AOF_TRIALS"); s != "" {
		trials, _ = strconv.Atoi(s)
	}
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	for trial := 0; trial < trials; trial++ {
		fsync := []string{"always", "everysec"}[trial%2]
		shards := 1 + trial%3
		t.Run(fmt.Sprintf("%d/shards=%d/%s", trial, shards, fsync), func(t *testing.T) {
			dir := t.TempDir()
			srv := aofStart(t, dir, shards, fsync)
			const writers = 4
			var acked [writers]atomic.Int64 // INCRs acknowledged per counter
			var pushed [writers]atomic.Int64
			var msets [writers]atomic.Int64 // the last MSET generation acknowledged
			var wg sync.WaitGroup
			stop := make(chan struct{})
			for w := 0; w < writers; w++ {
				wg.Add(1)
				go func(w int) {
					defer wg.Done()
					c, err := compatDial(srv.addr)
					if err != nil {
						return
					}
					defer c.close()
					ws := strconv.Itoa(w)
					for i := 1; i <= 200000; i++ {
						select {
						case <-stop:
							return
						default:
						}
						gen := strconv.Itoa(i)
						var cmd compatCmd
						switch i % 4 {
						case 0:
							cmd = compatA("INCR", "cnt:"+ws)
						case 1:
							cmd = compatA("RPUSH", "list:"+ws, gen)
						case 2:
							cmd = compatA("MSET", "{a}m:"+ws, gen, "{b}m:"+ws, gen, "{c}m:"+ws, gen)
						case 3:
							cmd = compatA("INCR", "cnt:"+ws)
						}
						rep, err := c.do(cmd)
						if err != nil || rep.kind == '-' {
							return
						}
						switch i % 4 {
						case 0, 3:
							acked[w].Add(1)
						case 1:
							pushed[w].Add(1)
						case 2:
							msets[w].Store(int64(i))
						}
					}
				}(w)
			}
			time.Sleep(time.Duration(100+rng.Intn(400)) * time.Millisecond)
			srv.kill()
			close(stop)
			wg.Wait()

			var total int64
			for w := 0; w < writers; w++ {
				total += acked[w].Load() + pushed[w].Load()
			}
			if total == 0 {
				t.Fatal("no write was acknowledged before the kill")
			}
			t.Logf("%d writes acknowledged before the kill", total)
			srv = aofStart(t, dir, shards, fsync)
			for w := 0; w < writers; w++ {
				ws := strconv.Itoa(w)
				n, _ := strconv.ParseInt(aofDo(t, srv.addr, "GET", "cnt:"+ws), 10, 64)
				if a := acked[w].Load(); n < a || n > a+1 {
					t.Errorf("cnt:%s is %d after the kill; %d INCRs were acknowledged (one more may have run unanswered)", ws, n, a)
				}
				l, _ := strconv.ParseInt(strings.TrimPrefix(aofDo(t, srv.addr, "LLEN", "list:"+ws), ":"), 10, 64)
				if p := pushed[w].Load(); l < p || l > p+1 {
					t.Errorf("list:%s has %d elements; %d pushes were acknowledged", ws, l, p)
				}
				a, b, c := aofDo(t, srv.addr, "GET", "{a}m:"+ws), aofDo(t, srv.addr, "GET", "{b}m:"+ws), aofDo(t, srv.addr, "GET", "{c}m:"+ws)
				if a != b || b != c {
					t.Errorf("MSET %s applied in part: %q %q %q", ws, a, b, c)
				}
				g, _ := strconv.ParseInt(a, 10, 64)
				if m := msets[w].Load(); g < m {
					t.Errorf("the MSETs of %s stop at generation %d; %d was acknowledged", ws, g, m)
				}
			}
			if t.Failed() {
				t.Logf("the restarted server's log:\n%s", srv.logs.String())
			}
		})
	}
}

// TestAOFTornTail cuts the newest record of a shard's file at every
// offset: the server starts (aof-load-truncated yes), drops only that
// record, and leaves the file ending where the last whole record ends; with
// aof-load-truncated no it refuses to start with Redis's message.
func TestAOFTornTail(t *testing.T) {
	dir := t.TempDir()
	srv := aofStart(t, dir, 1, "always")
	aofDo(t, srv.addr, "SET", "a", "1")
	aofDo(t, srv.addr, "RPUSH", "l", "x", "y")
	file := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	before := st.Size()
	aofDo(t, srv.addr, "SET", "last", "v")
	srv.stop(t)
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(whole)) <= before {
		t.Fatalf("the last SET did not reach the file (%d bytes, %d before)", len(whole), before)
	}
	step := 1
	if raceBuild {
		step = 4 // each start is slow under the race detector
	}
	for cut := before + 1; cut < int64(len(whole)); cut += int64(step) {
		if err := os.WriteFile(file, whole[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		srv := aofStart(t, dir, 1, "always")
		if got := aofDo(t, srv.addr, "GET", "last"); got != "" {
			t.Errorf("cut at %d: the torn SET was applied (%q)", cut, got)
		}
		if got := aofDo(t, srv.addr, "LRANGE", "l", "0", "-1"); !strings.Contains(got, "y") || aofDo(t, srv.addr, "GET", "a") != "1" {
			t.Errorf("cut at %d: the records before the torn one are not all there", cut)
		}
		srv.stop(t)
		if st, _ := os.Stat(file); st.Size() != before {
			t.Errorf("cut at %d: the file is %d bytes after the start, want it cut back to %d", cut, st.Size(), before)
		}
	}
	if err := os.WriteFile(file, whole[:len(whole)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(corekvBinary(t), "--port", "0", "--bind", "127.0.0.1", "--shards", "1", "--save", "",
		"--dir", dir, "--appendonly", "yes", "--aof-load-truncated", "no")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "Unexpected end of file reading the append only file") {
		t.Fatalf("with aof-load-truncated no a torn file must stop the start with Redis's message; got %v:\n%s", err, out)
	}
}

// TestAOFFromRedis checks the migration path: corekv started on the
// append-only directory redis-server 7.0 wrote (a base and an incremental
// file of everything since, multi-key commands over keys of several shards
// among them) holds Redis's dataset, on 1, 2 and 3 shards.
func TestAOFFromRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	dir := t.TempDir()
	addr := compatStartRedis(t, redisPath, "--dir", dir, "--appendonly", "yes", "--appendfsync", "everysec")
	snapshotFill(t, addr)
	aofFillMore(t, addr)
	for i := 0; i < 50; i++ {
		s := strconv.Itoa(i)
		aofDo(t, addr, "MSET", "ma"+s, s, "mb"+s, s, "mc"+s, s, "md"+s, s)
		aofDo(t, addr, "MSETNX", "nx-a"+s, s, "nx-b"+s, s, "nx-c"+s, s)
		if i%3 == 0 {
			aofDo(t, addr, "DEL", "ma"+s, "mb"+s, "mc"+s)
		}
	}
	want, at := journalDataset(t, addr)
	if c, err := compatDial(addr); err == nil {
		c.send(compatEncode(nil, compatA("SHUTDOWN", "NOSAVE")))
		c.close()
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		c, err := compatDial(addr)
		if err != nil {
			break
		}
		c.close()
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not stop")
		}
		time.Sleep(20 * time.Millisecond)
	}
	incr, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	if len(incr) != 1 {
		t.Fatalf("redis-server's directory has incremental files %v, want one", incr)
	}
	if st, err := os.Stat(incr[0]); err != nil || st.Size() < 100<<10 {
		t.Fatalf("redis-server's incremental file is not the dataset's commands: %v %v", st, err)
	}
	for _, shards := range []int{1, 2, 3} {
		copyDir := filepath.Join(t.TempDir(), "data")
		if err := os.CopyFS(copyDir, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		srv := aofStart(t, copyDir, shards, "everysec")
		got, _ := journalDataset(t, srv.addr)
		journalCompare(t, fmt.Sprintf("corekv --shards %d on redis-server's append-only directory", shards), want, got, at, nil)
		srv.stop(t)
		checkAOF(t, copyDir)
	}
}

// TestAOFConfigSet turns the file on and off while the server runs, as
// Redis users move from snapshots to the append-only file: CONFIG SET
// appendonly yes writes a base of what is there and journals from its cut,
// so a kill and a restart on the directory give the dataset back; CONFIG SET
// appendonly no stops the appends.
func TestAOFConfigSet(t *testing.T) {
	for _, shards := range []int{1, 3} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			dir := t.TempDir()
			srv := aofStart(t, dir, shards, "always")
			// Start again with the file off: aofStart turns it on.
			srv.stop(t)
			os.RemoveAll(filepath.Join(dir, "appendonlydir"))
			srv = aofStart(t, dir, shards, "always", "--appendonly", "no")
			if info := aofDo(t, srv.addr, "INFO", "persistence"); !strings.Contains(info, "aof_enabled:0") {
				t.Fatalf("started with appendonly no:\n%s", info)
			}
			snapshotFill(t, srv.addr)
			if r := aofDo(t, srv.addr, "CONFIG", "SET", "appendonly", "yes"); r != "+OK" {
				t.Fatalf("CONFIG SET appendonly yes: %s", r)
			}
			if info := aofDo(t, srv.addr, "INFO", "persistence"); !strings.Contains(info, "aof_enabled:1") {
				t.Fatalf("after CONFIG SET appendonly yes:\n%s", info)
			}
			aofFillMore(t, srv.addr)
			aofWaitRewrite(t, srv.addr)
			aofDo(t, srv.addr, "SET", "after", "on")
			want, at := journalDataset(t, srv.addr)
			srv.kill()
			checkAOF(t, dir)

			srv = aofStart(t, dir, shards, "always")
			got, _ := journalDataset(t, srv.addr)
			journalCompare(t, "corekv restarted on the file CONFIG SET turned on", want, got, at, nil)

			if r := aofDo(t, srv.addr, "CONFIG", "SET", "appendonly", "no"); r != "+OK" {
				t.Fatalf("CONFIG SET appendonly no: %s", r)
			}
			deadline := time.Now().Add(10 * time.Second)
			for !strings.Contains(aofDo(t, srv.addr, "INFO", "persistence"), "aof_enabled:0") {
				if time.Now().After(deadline) {
					t.Fatal("the file is still on 10s after CONFIG SET appendonly no")
				}
				time.Sleep(10 * time.Millisecond)
			}
			size := func() int64 {
				var n int64
				files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
				for _, f := range files {
					if st, err := os.Stat(f); err == nil {
						n += st.Size()
					}
				}
				return n
			}
			before := size()
			for i := 0; i < 100; i++ {
				aofDo(t, srv.addr, "INCR", "off:"+strconv.Itoa(i))
			}
			if after := size(); after != before {
				t.Errorf("the incremental files grew from %d to %d bytes with the file off", before, after)
			}
			if got := aofDo(t, srv.addr, "CONFIG", "GET", "appendonly"); !strings.Contains(got, "no") {
				t.Errorf("CONFIG GET appendonly: %q", got)
			}
		})
	}
}

// TestAOFBadFiles starts corekv on incremental files that must not load: a
// database past databases, an unknown command, a wrong arity, garbage in
// the middle. Each stops the start with a line saying why; none crashes.
func TestAOFBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"database", "*2\r\n$6\r\nSELECT\r\n$2\r\n20\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n", "selects database 20"},
		{"unknown", "*1\r\n$7\r\nNOSUCHX\r\n", "unknown command"},
		{"arity", "*2\r\n$3\r\nSET\r\n$1\r\na\r\n", "wrong number of arguments"},
		{"garbage", "*1\r\n$4\r\nPING\r\nxx\r\n*1\r\n$4\r\nPING\r\n", "Bad file format"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := aofStart(t, dir, 1, "everysec")
			srv.stop(t)
			file := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
			if err := os.WriteFile(file, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(corekvBinary(t), "--port", "0", "--bind", "127.0.0.1", "--save", "", "--dir", dir,
				"--appendonly", "yes").CombinedOutput()
			if err == nil || !strings.Contains(strings.ToLower(string(out)), strings.ToLower(tc.want)) || strings.Contains(string(out), "panic") {
				t.Fatalf("want a refusal naming %q, got %v:\n%s", tc.want, err, out)
			}
		})
	}
}

// TestAOFTimestamps checks aof-timestamp-enabled: a "#TS:<unix>" line
// before the records of each second that has any, which redis-check-aof
// accepts and the load skips.
func TestAOFTimestamps(t *testing.T) {
	dir := t.TempDir()
	srv := aofStart(t, dir, 1, "everysec", "--aof-timestamp-enabled", "yes")
	aofDo(t, srv.addr, "SET", "a", "1")
	time.Sleep(1100 * time.Millisecond)
	aofDo(t, srv.addr, "SET", "b", "2")
	srv.stop(t)
	data, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof"))
	if err != nil {
		t.Fatal(err)
	}
	stamps := regexp.MustCompile(`(?m)^#TS:(\d+)\r$`).FindAllSubmatch(data, -1)
	if len(stamps) != 2 || string(stamps[0][1]) == string(stamps[1][1]) {
		t.Fatalf("want two #TS lines of two seconds, got %q in\n%q", stamps, data)
	}
	if now := time.Now().Unix(); !strings.HasPrefix(string(data), "#TS:") || len(stamps[1][1]) != len(strconv.FormatInt(now, 10)) {
		t.Fatalf("the file does not start with a Unix-seconds stamp: %q", data)
	}
	checkAOF(t, dir)
	srv = aofStart(t, dir, 1, "everysec")
	if aofDo(t, srv.addr, "GET", "a") != "1" || aofDo(t, srv.addr, "GET", "b") != "2" {
		t.Fatal("the stamped file did not load")
	}
}

// TestAOFRewriteWithFileOff checks BGREWRITEAOF with appendonly no, as
// Redis does it: the directory gets a base of the dataset and a manifest
// naming it alone, which redis-server and corekv started with appendonly
// yes load; a second rewrite replaces the first base.
func TestAOFRewriteWithFileOff(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	dir := t.TempDir()
	srv := aofStart(t, dir, 2, "everysec", "--appendonly", "no")
	snapshotFill(t, srv.addr)
	for round := 0; round < 2; round++ {
		if r := aofDo(t, srv.addr, "BGREWRITEAOF"); r != "+Background append only file rewriting started" {
			t.Fatalf("BGREWRITEAOF: %s", r)
		}
		aofWaitRewrite(t, srv.addr)
	}
	want, at := journalDataset(t, srv.addr)
	srv.stop(t)
	checkAOF(t, dir)
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*"))
	if len(files) != 2 {
		t.Fatalf("the directory holds %v, want one base and the manifest", files)
	}
	redisAddr := compatStartRedis(t, redisPath, "--dir", dir, "--appendonly", "yes")
	got, _ := journalDataset(t, redisAddr)
	journalCompare(t, "redis-server on the base BGREWRITEAOF wrote with the file off", want, got, at, nil)
}
