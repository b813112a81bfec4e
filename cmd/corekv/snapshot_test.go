package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/shardowner/rdbfile"
)

// snapshotFill writes a dataset of every type and encoding Redis 7.0 has
// for them into databases 0, 1, 5 and 15 of addr: strings as integers,
// short, long and compressible, and binary; small and big hashes, sets of
// integers and of strings, lists of one node and of many, sorted sets with
// inf, -inf, negative and huge scores; HyperLogLogs and bitmaps; binary
// keys; TTLs far off.
func snapshotFill(t *testing.T, addr string) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	var batch []byte
	n := 0
	send := func(args ...string) {
		batch = compatEncode(batch, compatA(args...))
		n++
	}
	flush := func() {
		if err := c.send(batch); err != nil {
			t.Fatal(err)
		}
		for ; n > 0; n-- {
			rep, err := c.read()
			if err != nil {
				t.Fatal(err)
			}
			if rep.kind == '-' {
				t.Fatalf("filling: %s", rep.raw)
			}
		}
		batch = batch[:0]
	}
	long := strings.Repeat("corekv ", 300)
	for _, db := range []string{"0", "1", "5", "15"} {
		send("SELECT", db)
		send("SET", "int", "12345")
		send("SET", "neg", "-9223372036854775808")
		send("SET", "short", "hello")
		send("SET", "long", long)
		send("SET", "bin\x00key\r\n", "\x00\xff\r\nvalue")
		send("SET", "ttl", "v", "PX", "86400000")
		send("SET", "empty", "")
		send("HSET", "hsmall", "a", "1", "b", "two", "c", "3.5")
		send("ZADD", "zsmall", "1", "a", "-2.5", "b", "inf", "c", "-inf", "d", "1e300", "e")
		send("SADD", "sints", "1", "2", "3", "-7", "9223372036854775807")
		send("SADD", "sstrs", "a", "b", "c")
		send("RPUSH", "lsmall", "a", "1", "", "b")
		send("PFADD", "hll", "a", "b", "c", "d")
		send("SETBIT", "bits", "1000", "1")
		send("EXPIRE", "hsmall", "100000")
		send("XADD", "xsmall", "1-1", "f", "v", "n", "12345")
		send("XADD", "xsmall", "2-0", "f", "w", "n", "-7")
		send("XADD", "xsmall", "3-0", "other", long[:70])
		send("XDEL", "xsmall", "2-0")
		send("XSETID", "xsmall", "9-0", "ENTRIESADDED", "40", "MAXDELETEDID", "5-0")
		send("XADD", "xempty", "1-1", "f", "v")
		send("XDEL", "xempty", "1-1")
		for i := 0; i < 700; i++ {
			s := strconv.Itoa(i)
			send("HSET", "hbig", "f"+s, long[:i%100])
			send("SADD", "sbigints", s)
			send("SADD", "sbig", "m"+s)
			send("ZADD", "zbig", strconv.Itoa(i*7-2000), "m"+s)
			send("RPUSH", "lbig", s+long[:i%50])
			send("PFADD", "hllbig", "e"+s)
			if i%3 == 0 {
				send("XADD", "xbig", "MAXLEN", "~", "500", strconv.Itoa(1000+i)+"-*", "f", s, "g", long[:i%30])
			} else {
				send("XADD", "xbig", strconv.Itoa(1000+i)+"-"+s, "h", s)
			}
			if i%7 == 0 && i >= 7 {
				send("XDEL", "xbig", strconv.Itoa(1000+i-3)+"-"+strconv.Itoa(i-3))
			}
		}
		// Consumer groups: pending entries over several of a group's
		// chunks, two consumers, acknowledgements, a NOACK read and a
		// group that read nothing.
		send("XGROUP", "CREATE", "xsmall", "g1", "0")
		send("XGROUP", "CREATE", "xsmall", "g0", "$", "ENTRIESREAD", "3")
		send("XREADGROUP", "GROUP", "g1", "alice", "COUNT", "1", "STREAMS", "xsmall", ">")
		send("XGROUP", "CREATECONSUMER", "xsmall", "g1", "bob")
		send("XGROUP", "CREATE", "xbig", "big", "0")
		send("XREADGROUP", "GROUP", "big", "c1", "COUNT", "300", "STREAMS", "xbig", ">")
		send("XREADGROUP", "GROUP", "big", "c2", "COUNT", "50", "STREAMS", "xbig", ">")
		send("XACK", "xbig", "big", "1003-3", "1100-100", "1101-101")
		send("XAUTOCLAIM", "xbig", "big", "c2", "0", "0", "COUNT", "5")
		send("XREADGROUP", "GROUP", "big", "c3", "NOACK", "COUNT", "10", "STREAMS", "xbig", ">")
		flush()
	}
}

// snapshotConn dials addr (closed when the test ends) and returns a
// function that runs a command and returns its reply as sent, but a bulk
// string's body alone.
func snapshotConn(t *testing.T, addr string) (*compatConn, func(cmd string) string) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	return c, func(cmd string) string {
		t.Helper()
		rep, err := c.do(compatS(cmd))
		if err != nil {
			t.Fatal(err)
		}
		if rep.kind == '$' {
			return string(compatBulk(rep))
		}
		return string(rep.raw)
	}
}

// snapshotSave runs SAVE on addr and fails unless it succeeds.
func snapshotSave(t *testing.T, addr, cmd string) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	rep, err := c.do(compatS(cmd))
	if err != nil || rep.kind == '-' {
		t.Fatalf("%s: %v %s", cmd, err, rep.raw)
	}
	if cmd == "BGSAVE" {
		snapshotWait(t, c)
	}
}

// snapshotWait waits until no save runs, and fails if the last one failed.
func snapshotWait(t *testing.T, c *compatConn) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		rep, err := c.do(compatS("INFO persistence"))
		if err != nil {
			t.Fatal(err)
		}
		info := string(compatBulk(rep))
		if strings.Contains(info, "rdb_bgsave_in_progress:0") {
			if !strings.Contains(info, "rdb_last_bgsave_status:ok") {
				t.Fatalf("the save failed:\n%s", info)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the save did not end:\n%s", info)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkRDB runs redis-check-rdb on path.
func checkRDB(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command(needTool(t, "redis-check-rdb"), path).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "RDB looks OK") {
		t.Fatalf("redis-check-rdb %s: %v\n%s", path, err, out)
	}
}

// TestSnapshotToRedis saves a dataset of every type and encoding with SAVE
// and BGSAVE on 1, 2 and 4 shards; redis-check-rdb accepts the file, and
// redis-server started on it holds exactly corekv's dataset.
func TestSnapshotToRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	for _, tc := range []struct {
		shards int
		cmd    string
	}{{1, "SAVE"}, {2, "BGSAVE"}, {4, "SAVE"}, {4, "BGSAVE"}} {
		t.Run(fmt.Sprintf("shards=%d/%s", tc.shards, tc.cmd), func(t *testing.T) {
			dir := t.TempDir()
			srv := compatStartCorekv(t, bin, tc.shards, "--dir", dir, "--save", "")
			snapshotFill(t, srv.addr)
			want, at := journalDataset(t, srv.addr)
			snapshotSave(t, srv.addr, tc.cmd)
			path := filepath.Join(dir, "dump.rdb")
			checkRDB(t, path)
			redisAddr := compatStartRedis(t, redisPath, "--dir", dir)
			got, _ := journalDataset(t, redisAddr)
			journalCompare(t, "redis-server loading corekv's dump.rdb", want, got, at, nil)
			if len(want) != 4*23 { // snapshotFill's 23 keys in each of 4 databases
				t.Fatalf("the dataset has %d keys, want %d", len(want), 4*23)
			}
		})
	}
}

// TestSnapshotPointInTime checks that BGSAVE is one instant: a single
// client bumps a sequence over 1000 keys (key seq%1000 set to seq) while a
// BGSAVE walks a keyspace large enough to take many loop turns; the file
// must hold one prefix of the sequence exactly.
func TestSnapshotPointInTime(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			dir := t.TempDir()
			srv := compatStartCorekv(t, bin, shards, "--dir", dir, "--save", "")
			const filler = 400_000
			c, err := compatDial(srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.close()
			// In rounds of 50 MSETs whose replies are read before the
			// next: a client that only writes would fill the socket
			// with replies it does not read, and the server stops
			// reading it.
			var batch []byte
			for i := 0; i < filler; i += 5000 {
				batch = batch[:0]
				for k := i; k < i+5000; k += 100 {
					args := []string{"MSET"}
					for j := k; j < k+100; j++ {
						args = append(args, "{f"+strconv.Itoa(j%shards)+"}filler:"+strconv.Itoa(j), strings.Repeat("x", j%40))
					}
					batch = compatEncode(batch, compatA(args...))
				}
				if err := c.send(batch); err != nil {
					t.Fatal(err)
				}
				for range 50 {
					if rep, err := c.read(); err != nil || rep.kind == '-' {
						t.Fatalf("MSET: %v %v", err, rep)
					}
				}
			}
			ctl, err := compatDial(srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.close()
			seq := 0
			bump := func() {
				seq++
				if rep, err := c.do(compatA("SET", "seq:"+strconv.Itoa(seq%1000), strconv.Itoa(seq))); err != nil || rep.kind == '-' {
					t.Fatalf("SET: %v %v", err, rep)
				}
			}
			for seq < 1500 {
				bump()
			}
			if err := ctl.send(compatEncode(nil, compatS("BGSAVE"))); err != nil {
				t.Fatal(err)
			}
			// The writer goes on while the cut is taken and the walk runs.
			during, walking := 0, 0
			deadline := time.Now().Add(20 * time.Second)
			for seq < 100_000 && time.Now().Before(deadline) {
				bump()
				during++
				if during%10 == 0 {
					rep, err := c.do(compatS("INFO persistence"))
					if err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(string(compatBulk(rep)), "rdb_bgsave_in_progress:0") {
						walking = during
					} else if during > 200 {
						break
					}
				}
			}
			if rep, err := ctl.read(); err != nil || string(rep.raw) != "+Background saving started\r\n" {
				t.Fatalf("BGSAVE: %v %v", err, rep)
			}
			snapshotWait(t, ctl)
			t.Logf("%d writes after BGSAVE was sent, the save seen running until the %dth; %d in all", during, walking, seq)

			redisAddr := compatStartRedis(t, redisPath, "--dir", dir)
			r, err := compatDial(redisAddr)
			if err != nil {
				t.Fatal(err)
			}
			defer r.close()
			vals := make([]int, 1000)
			top := 0
			for k := range vals {
				rep, err := r.do(compatA("GET", "seq:"+strconv.Itoa(k)))
				if err != nil {
					t.Fatal(err)
				}
				if rep.kind == '$' && !strings.HasPrefix(string(rep.raw), "$-1") {
					vals[k], _ = strconv.Atoi(string(compatBulk(rep)))
				}
				top = max(top, vals[k])
			}
			if top < 1500 {
				t.Fatalf("the file's sequence ends at %d, before BGSAVE was sent (1500)", top)
			}
			for k, v := range vals {
				// The last seq <= top with seq%1000 == k.
				want := top - ((top-k)%1000+1000)%1000
				if v != want {
					t.Errorf("seq:%d = %d, want %d: the file is not a prefix ending at %d", k, v, want, top)
				}
			}
			rep, err := r.do(compatS("DBSIZE"))
			if err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf(":%d\r\n", filler+1000); string(rep.raw) != want {
				t.Errorf("DBSIZE %q, want %q", rep.raw, want)
			}
		})
	}
}

// TestSaveErrors covers what INFO persistence and LASTSAVE say of saves,
// a save that cannot be put in place (its dbfilename names a directory),
// and the MISCONF refusal of writes (and PING, as Redis) that follows
// while stop-writes-on-bgsave-error holds.
func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	srv := compatStartCorekv(t, corekvBinary(t), 2, "--dir", dir, "--save", "3600 1", "--enable-protected-configs", "yes")
	c, do := snapshotConn(t, srv.addr)
	field := func(name string) string {
		t.Helper()
		for _, line := range strings.Split(do("INFO persistence"), "\r\n") {
			if v, ok := strings.CutPrefix(line, name+":"); ok {
				return v
			}
		}
		t.Fatalf("INFO persistence has no %s", name)
		return ""
	}
	before := do("LASTSAVE")
	for _, cmd := range []string{"SET a 1", "SET b 2", "DEL b"} {
		if got := do(cmd); got[0] == '-' {
			t.Fatalf("%s: %q", cmd, got)
		}
	}
	if got := field("rdb_changes_since_last_save"); got != "3" {
		t.Errorf("rdb_changes_since_last_save %s before SAVE, want 3", got)
	}
	if got := do("SAVE"); got != "+OK\r\n" {
		t.Fatalf("SAVE: %q", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
		t.Fatalf("SAVE left no file: %v", err)
	}
	if after := do("LASTSAVE"); after < before {
		t.Errorf("LASTSAVE went from %s to %s", before, after)
	}
	for name, want := range map[string]string{"rdb_changes_since_last_save": "0", "rdb_saves": "1",
		"rdb_last_bgsave_status": "ok", "rdb_bgsave_in_progress": "0"} {
		if got := field(name); got != want {
			t.Errorf("after SAVE %s:%s, want %s", name, got, want)
		}
	}

	// A file cannot be renamed over a directory that holds something.
	if err := os.MkdirAll(filepath.Join(dir, "taken", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := do("CONFIG SET dbfilename taken"); got != "+OK\r\n" {
		t.Fatalf("CONFIG SET dbfilename: %q", got)
	}
	if got := do("SAVE"); got != "-ERR Background save failed\r\n" {
		t.Errorf("SAVE into a directory: %q", got)
	}
	if got := field("rdb_last_bgsave_status"); got != "err" {
		t.Errorf("rdb_last_bgsave_status %s after a failed save", got)
	}
	misconf := "-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk."
	waitFor := func(cmd, prefix string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			got := do(cmd)
			if strings.HasPrefix(got, prefix) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %q, want %q…", cmd, got, prefix)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("SET a 2", misconf)
	waitFor("PING", misconf)
	if got := do("GET a"); got != "1" {
		t.Errorf("GET under MISCONF: %q", got)
	}
	if got := do("CONFIG SET stop-writes-on-bgsave-error no"); got != "+OK\r\n" {
		t.Fatal(got)
	}
	waitFor("SET a 3", "+OK")
	// A save that succeeds lifts the refusal too.
	do("CONFIG SET stop-writes-on-bgsave-error yes")
	do("CONFIG SET dbfilename dump.rdb")
	if got := do("BGSAVE"); got != "+Background saving started\r\n" {
		t.Fatalf("BGSAVE: %q", got)
	}
	snapshotWait(t, c)
	waitFor("SET a 4", "+OK")
	if got := do("BGSAVE SCHEDULE NOW"); got != "-ERR syntax error\r\n" {
		t.Errorf("BGSAVE SCHEDULE NOW: %q", got)
	}
}

// TestSnapshotFromRedis loads into corekv (1, 2 and 4 shards) the
// dump.rdb redis-server writes of the same dataset, in Redis's own
// encodings (listpacks, intsets, quicklists, LZF strings), and compares
// the datasets; corekv then saves it again and redis-server loads that.
func TestSnapshotFromRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	dir := t.TempDir()
	redisAddr := compatStartRedis(t, redisPath, "--dir", dir)
	snapshotFill(t, redisAddr)
	want, at := journalDataset(t, redisAddr)
	snapshotSave(t, redisAddr, "SAVE")
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			own := t.TempDir()
			data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(own, "dump.rdb"), data, 0o644); err != nil {
				t.Fatal(err)
			}
			srv := compatStartCorekv(t, bin, shards, "--dir", own, "--save", "")
			got, _ := journalDataset(t, srv.addr)
			journalCompare(t, "corekv loading redis-server's dump.rdb", want, got, at, nil)
			c, err := compatDial(srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer c.close()
			rep, err := c.do(compatS("INFO persistence"))
			if err != nil || !strings.Contains(string(compatBulk(rep)), fmt.Sprintf("rdb_last_load_keys_loaded:%d", len(want))) {
				t.Errorf("INFO persistence after loading %d keys: %v\n%s", len(want), err, compatBulk(rep))
			}
			snapshotSave(t, srv.addr, "SAVE")
			checkRDB(t, filepath.Join(own, "dump.rdb"))
			again := compatStartRedis(t, redisPath, "--dir", own)
			back, _ := journalDataset(t, again)
			journalCompare(t, "redis-server loading corekv's save of redis-server's file", want, back, at, nil)
		})
	}
}

// TestSnapshotRefused starts corekv on files it must not serve from: a
// truncated file, a flipped byte (the CRC no longer matches), a duplicated
// key, and more databases than configured.
// Each stops the start with a line that says what is wrong, and nothing is
// served.
func TestSnapshotRefused(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	dir := t.TempDir()
	redisAddr := compatStartRedis(t, redisPath, "--dir", dir)
	snapshotFill(t, redisAddr)
	snapshotSave(t, redisAddr, "SAVE")
	good, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}

	var dup bytes.Buffer
	w := rdbfile.NewWriter(&dup)
	w.Header()
	w.SelectDB(0)
	for range 2 {
		w.Raw(rdbfile.AppendString(rdbfile.AppendKey(nil, rdbfile.TypeString, []byte("twice"), false), []byte("v"), false))
	}
	w.End(true)

	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x20
	for _, tc := range []struct {
		name  string
		file  []byte
		args  []string
		wants string
	}{
		{"truncated", good[:len(good)*2/3], nil, "rdb: offset"},
		{"truncated at the end", good[:len(good)-3], nil, "rdb: offset"},
		// The checksum catches it at the end, or the object it lands in
		// fails to decode before: either names the offset.
		{"flipped byte", flipped, nil, "offset"},
		{"duplicated key", dup.Bytes(), nil, "duplicated key 'twice' in DB 0"},
		{"databases", good, []string{"--databases", "4"}, "more than 4 databases"},
		{"empty", nil, nil, "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := t.TempDir()
			if err := os.WriteFile(filepath.Join(own, "dump.rdb"), tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			out, code := runCorekv(t, append([]string{"--port", "0", "--bind", "127.0.0.1", "--dir", own}, tc.args...)...)
			if code == 0 || !strings.Contains(out, tc.wants) || strings.Contains(out, "corekv ready") {
				t.Errorf("exit %d, want a refusal naming %q:\n%s", code, tc.wants, out)
			}
		})
	}
}

// TestDebugReload: DEBUG RELOAD saves and loads back the same dataset;
// NOSAVE goes back to the file; NOFLUSH refuses a key held twice with
// Redis's error, and MERGE takes the file's.
func TestDebugReload(t *testing.T) {
	dir := t.TempDir()
	srv := compatStartCorekv(t, corekvBinary(t), 3, "--dir", dir, "--save", "")
	snapshotFill(t, srv.addr)
	want, at := journalDataset(t, srv.addr)
	c, do := snapshotConn(t, srv.addr)
	digest := do("DEBUG DIGEST")
	if got := do("DEBUG RELOAD"); got != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD: %q", got)
	}
	got, _ := journalDataset(t, srv.addr)
	journalCompare(t, "after DEBUG RELOAD", want, got, at, nil)
	if again := do("DEBUG DIGEST"); again != digest || len(digest) != 43 || digest == "+"+strings.Repeat("0", 40)+"\r\n" {
		t.Errorf("DEBUG DIGEST %q before DEBUG RELOAD, %q after", digest, again)
	}
	values := do("DEBUG DIGEST-VALUE hsmall nosuch")
	if !strings.HasPrefix(values, "*2\r\n+") || !strings.HasSuffix(values, "+"+strings.Repeat("0", 40)+"\r\n") {
		t.Errorf("DEBUG DIGEST-VALUE hsmall nosuch: %q", values)
	}
	do("HSET hsmall a 2")
	if again := do("DEBUG DIGEST-VALUE hsmall nosuch"); again == values {
		t.Errorf("DEBUG DIGEST-VALUE did not change with the value: %q", again)
	}
	do("HSET hsmall a 1")
	do("SET added 1")
	do("SET int changed")
	if got := do("DEBUG RELOAD NOSAVE"); got != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD NOSAVE: %q", got)
	}
	got, _ = journalDataset(t, srv.addr)
	journalCompare(t, "after DEBUG RELOAD NOSAVE", want, got, at, nil)
	do("SET int changed")
	if got := do("DEBUG RELOAD NOSAVE NOFLUSH"); got != "-ERR Error trying to load the RDB dump\r\n" {
		t.Errorf("DEBUG RELOAD NOSAVE NOFLUSH over the same keys: %q", got)
	}
	do("FLUSHALL")
	do("SET int changed")
	do("SET added 1")
	if got := do("DEBUG RELOAD NOSAVE NOFLUSH MERGE"); got != "+OK\r\n" {
		t.Fatalf("DEBUG RELOAD NOSAVE NOFLUSH MERGE: %q", got)
	}
	got, _ = journalDataset(t, srv.addr)
	delete(got, `0/"added"`)
	journalCompare(t, "after DEBUG RELOAD NOSAVE NOFLUSH MERGE", want, got, at, nil)
	if got := do("GET added"); got != "1" {
		t.Errorf("MERGE dropped a key the file does not have: %q", got)
	}
	if got := do("DEBUG RELOAD NOW"); got != "-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.\r\n" {
		t.Errorf("DEBUG RELOAD NOW: %q", got)
	}
	// The same dataset on one shard digests alike (once the relative
	// TTLs, set at different times, are gone).
	one := compatStartCorekv(t, corekvBinary(t), 1, "--save", "")
	snapshotFill(t, one.addr)
	oc, err := compatDial(one.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer oc.close()
	oc.do(compatS("SET added 1")) // as MERGE left the other
	for _, cl := range []*compatConn{c, oc} {
		for _, db := range []string{"0", "1", "5", "15"} {
			for _, cmd := range []string{"SELECT " + db, "PERSIST ttl", "PERSIST hsmall"} {
				if _, err := cl.do(compatS(cmd)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	three := do("DEBUG DIGEST")
	if rep, err := oc.do(compatS("DEBUG DIGEST")); err != nil || string(rep.raw) != three {
		t.Errorf("DEBUG DIGEST on one shard %q, on three %q", rep.raw, three)
	}
}

// TestLoadingAnswersLoading: while the snapshot file loads at start, the
// server listens and answers Redis's -LOADING (INFO tells the progress);
// then every key is there. key-load-delay (µs per key, Redis's hidden
// setting) makes the load last.
func TestLoadingAnswersLoading(t *testing.T) {
	dir := t.TempDir()
	var file bytes.Buffer
	w := rdbfile.NewWriter(&file)
	w.Header()
	w.SelectDB(0)
	const keys = 400
	for i := range keys {
		w.Raw(rdbfile.AppendString(rdbfile.AppendKey(nil, rdbfile.TypeString, []byte("k"+strconv.Itoa(i)), false), []byte("v"), false))
	}
	w.End(true)
	if err := os.WriteFile(filepath.Join(dir, "dump.rdb"), file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	port := compatFreePort(t)
	cmd := exec.Command(corekvBinary(t), "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--shards", "2",
		"--dir", dir, "--save", "", "--key-load-delay", "2000")
	cmd.Dir = dir
	logs := &safeBuffer{}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { compatStop(t, cmd, done) })
	addr := "127.0.0.1:" + strconv.Itoa(port)
	var c *compatConn
	var err error
	for deadline := time.Now().Add(5 * time.Second); ; {
		if c, err = compatDial(addr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("corekv does not listen while loading: %v\n%s", err, logs.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	defer c.close()
	loadingSeen, infoSeen := 0, false
	for deadline := time.Now().Add(10 * time.Second); ; {
		rep, err := c.do(compatS("GET k1"))
		if err != nil {
			t.Fatal(err)
		}
		if string(rep.raw) == "-LOADING Redis is loading the dataset in memory\r\n" {
			loadingSeen++
			info, err := c.do(compatS("INFO persistence"))
			if err != nil {
				t.Fatal(err)
			}
			if s := string(compatBulk(info)); strings.Contains(s, "loading:1") && strings.Contains(s, "loading_total_bytes:") {
				infoSeen = true
			}
		} else if string(rep.raw) == "$1\r\nv\r\n" {
			break
		} else {
			t.Fatalf("GET while loading: %q", rep.raw)
		}
		if time.Now().After(deadline) {
			t.Fatal("the load did not end")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if loadingSeen == 0 || !infoSeen {
		t.Errorf("-LOADING seen %d times, INFO loading:1 seen %v", loadingSeen, infoSeen)
	}
	if rep, err := c.do(compatS("DBSIZE")); err != nil || string(rep.raw) != ":400\r\n" {
		t.Errorf("DBSIZE after the load: %v %q", err, rep.raw)
	}
	if !strings.Contains(logs.String(), "corekv ready") {
		t.Errorf("no ready line after the load:\n%s", logs.String())
	}
}

// TestPersistCommandsLikeRedis compares with redis-server the replies of
// the snapshot commands and settings to bad arguments, and of those that
// answer alike whatever the dataset.
func TestPersistCommandsLikeRedis(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2, "--save", "")
	r, err := compatDial(redisAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, cmd := range []compatCmd{
		compatS("BGSAVE foo"), compatS("BGSAVE SCHEDULE x"), compatS("SAVE x"), compatS("LASTSAVE x"),
		compatS("CONFIG SET save 900"), compatA("CONFIG", "SET", "save", "x 1"), compatA("CONFIG", "SET", "save", "1 -1"),
		compatA("CONFIG", "SET", "save", "0 1"), compatA("CONFIG", "SET", "save", "3600 1 300 100"), compatS("CONFIG GET save"),
		compatA("CONFIG", "SET", "save", ""), compatS("CONFIG GET save"),
		compatS("CONFIG SET dbfilename a/b"), compatS("CONFIG SET dir /"), compatS("CONFIG SET rdbchecksum no"),
		compatS("CONFIG SET stop-writes-on-bgsave-error maybe"), compatS("CONFIG SET rdbcompression x"),
		compatS("CONFIG SET sanitize-dump-payload maybe"), compatS("CONFIG SET sanitize-dump-payload clients"),
		compatS("CONFIG GET sanitize-dump-payload"), compatS("CONFIG SET key-load-delay x"),
		compatS("DEBUG RELOAD NOW"), compatS("DEBUG RELOAD NOSAVE MERGE MERGE"),
		compatS("SAVE"), compatS("DEBUG DIGEST-VALUE nosuch"),
		compatS("MULTI"), compatS("SAVE"), compatS("EXEC"),
	} {
		want, err := r.do(cmd)
		if err != nil {
			t.Fatalf("redis-server %v: %v", cmd, err)
		}
		got, err := c.do(cmd)
		if err != nil {
			t.Fatalf("corekv %v: %v", cmd, err)
		}
		if string(got.raw) != string(want.raw) {
			t.Errorf("%v: corekv %q, redis-server %q", cmd, got.raw, want.raw)
		}
	}
}
