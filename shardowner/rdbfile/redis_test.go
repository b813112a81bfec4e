package rdbfile

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// needRedis returns redis-server's path, skipping the test without it.
func needRedis(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not on PATH")
	}
	return p
}

// startRedis starts redis-server on a free port with dir and dbfilename
// (which it loads if it exists), saving nothing by itself, and returns a
// client. The server is killed when the test ends.
func startRedis(t *testing.T, path, dir, dbfile string, args ...string) *redis.Client {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(path, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", dir, "--dbfilename", dbfile, "--save", "", "--appendonly", "no",
		"--daemonize", "no", "--logfile", filepath.Join(dir, "redis.log"))
	cmd.Args = append(cmd.Args, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	c := redis.NewClient(&redis.Options{Addr: fmt.Sprintf("127.0.0.1:%d", port), Protocol: 2})
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	for i := 0; ; i++ {
		err := c.Ping(ctx).Err()
		if err == nil {
			return c
		}
		if i == 100 {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("redis-server did not answer: %v\n%s", err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// counter is a Handler that keeps what it is told.
type counter struct {
	aux       map[string]string
	keys      map[int]int // per database
	expires   map[int]int
	resize    map[int][2]uint64
	db        int
	types     map[byte]int
	functions []string
	strings   map[string]string // "db:key" to value, for string keys
	records   []Record          // copies
}

func newCounter() *counter {
	return &counter{aux: map[string]string{}, keys: map[int]int{}, expires: map[int]int{},
		resize: map[int][2]uint64{}, types: map[byte]int{}, strings: map[string]string{}}
}

func (c *counter) Aux(k, v []byte) error { c.aux[string(k)] = string(v); return nil }
func (c *counter) SelectDB(db int) error { c.db = db; return nil }
func (c *counter) ResizeDB(size, exp uint64) error {
	c.resize[c.db] = [2]uint64{size, exp}
	return nil
}
func (c *counter) Function(code []byte) error {
	c.functions = append(c.functions, string(code))
	return nil
}
func (c *counter) ModuleAux(e *ModuleError) error { return e }
func (c *counter) Key(r *Record) error {
	if r.DB != c.db {
		return fmt.Errorf("record of db %d in db %d", r.DB, c.db)
	}
	c.keys[r.DB]++
	if r.ExpireAt >= 0 {
		c.expires[r.DB]++
	}
	c.types[r.Type]++
	if r.Type == TypeString {
		rd := NewReader(r.Object)
		s, ok := rd.String()
		if !ok || len(rd.Rest()) != 0 {
			return fmt.Errorf("string of %q does not read", r.Key)
		}
		c.strings[fmt.Sprintf("%d:%s", r.DB, r.Key)] = string(s)
	}
	cp := *r
	cp.Key = bytes.Clone(r.Key)
	cp.Object = bytes.Clone(r.Object)
	c.records = append(c.records, cp)
	return nil
}

// fillRedis writes keys of every type and encoding into databases 0 to 3
// of c, some with TTLs, and a function library.
func fillRedis(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	randStr := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	}
	sizes, big, entries := []int{3, 300}, 5000, 250
	for db := 0; db < 4; db++ {
		must(c.Do(ctx, "SELECT", db).Err())
		p := func(k string) string { return fmt.Sprintf("db%d:%s", db, k) }
		for i, v := range []string{"0", "-5", "300", "-70000", "12345678901", "hello", "",
			randStr(100), strings.Repeat("compress me ", 50), "3.14", randStr(big)} {
			must(c.Do(ctx, "SET", p("s"+strconv.Itoa(i)), v).Err())
		}
		must(c.Do(ctx, "SET", p(strings.Repeat("long key ", 10)), "v").Err())
		for _, n := range sizes {
			args := []any{"HSET", p(fmt.Sprintf("h%d", n))}
			for i := 0; i < n; i++ {
				args = append(args, fmt.Sprintf("f%d", i), i)
			}
			must(c.Do(ctx, args...).Err())
			sargs := []any{"SADD", p(fmt.Sprintf("si%d", n))}
			ssargs := []any{"SADD", p(fmt.Sprintf("ss%d", n))}
			largs := []any{"RPUSH", p(fmt.Sprintf("l%d", n*30))}
			zargs := []any{"ZADD", p(fmt.Sprintf("z%d", n))}
			for i := 0; i < n; i++ {
				sargs = append(sargs, i*7-100)
				ssargs = append(ssargs, fmt.Sprintf("m%d", i))
				zargs = append(zargs, float64(i)/3, fmt.Sprintf("m%d", i))
			}
			for i := 0; i < n*30; i++ {
				largs = append(largs, fmt.Sprintf("element %d", i), i)
			}
			zargs = append(zargs, "inf", "top", "-inf", "bottom")
			for _, a := range [][]any{sargs, ssargs, largs, zargs} {
				must(c.Do(ctx, a...).Err())
			}
		}
		must(c.Do(ctx, "HSET", p("hlong"), "f", strings.Repeat("v", 100)).Err())
		must(c.Do(ctx, "RPUSH", p("lbig"), strings.Repeat("x", 2*big), randStr(4*big)).Err())
		// A stream with consumer groups, pending entries and a deletion.
		for i := 0; i < entries; i++ {
			must(c.Do(ctx, "XADD", p("x"), "*", "f", i, "g", randStr(10)).Err())
		}
		must(c.Do(ctx, "XADD", p("xempty"), "1-1", "f", "v").Err())
		must(c.Do(ctx, "XDEL", p("xempty"), "1-1").Err())
		must(c.Do(ctx, "XGROUP", "CREATE", p("x"), "g1", "0").Err())
		must(c.Do(ctx, "XGROUP", "CREATE", p("x"), "g2", "$").Err())
		must(c.Do(ctx, "XREADGROUP", "GROUP", "g1", "alice", "COUNT", 5, "STREAMS", p("x"), ">").Err())
		must(c.Do(ctx, "XREADGROUP", "GROUP", "g1", "bob", "COUNT", 3, "STREAMS", p("x"), ">").Err())
		must(c.Do(ctx, "XGROUP", "CREATECONSUMER", p("x"), "g2", "carol").Err())
		var ids []string
		for _, m := range c.XRange(ctx, p("x"), "-", "+").Val()[:2] {
			ids = append(ids, m.ID)
		}
		must(c.XAck(ctx, p("x"), "g1", ids...).Err())
		must(c.XDel(ctx, p("x"), c.XRange(ctx, p("x"), "-", "+").Val()[entries/2].ID).Err())
		for i := 0; i < 5+db; i++ {
			must(c.Do(ctx, "PEXPIRE", p("s"+strconv.Itoa(i)), 3_600_000+i).Err())
		}
	}
	must(c.Do(ctx, "SELECT", 0).Err())
	must(c.Do(ctx, "FUNCTION", "LOAD",
		"#!lua name=rdbtest\nredis.register_function('f1', function() return 1 end)").Err())
}

// TestParseRedisFile parses what Redis saves: every key accounted for, in
// its database, with TTLs, strings as Redis has them, and the CRC
// matching (both with a checksum and without).
func TestParseRedisFile(t *testing.T) {
	path := needRedis(t)
	ctx := context.Background()
	for _, checksum := range []string{"yes", "no"} {
		dir := t.TempDir()
		c := startRedis(t, path, dir, "dump.rdb", "--rdbchecksum", checksum)
		fillRedis(t, c)
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		stored := data[len(data)-8:]
		if (checksum == "no") != bytes.Equal(stored, make([]byte, 8)) {
			t.Fatalf("rdbchecksum %s: stored checksum %x", checksum, stored)
		}
		h := newCounter()
		if err := Parse(data, h); err != nil {
			t.Fatalf("rdbchecksum %s: %v", checksum, err)
		}
		if h.aux["redis-ver"] == "" || h.aux["redis-bits"] != "64" {
			t.Errorf("aux fields %q", h.aux)
		}
		if len(h.functions) != 1 || !strings.Contains(h.functions[0], "name=rdbtest") {
			t.Errorf("functions %q", h.functions)
		}
		for db := 0; db < 4; db++ {
			c.Do(ctx, "SELECT", db)
			n := c.DBSize(ctx).Val()
			if int64(h.keys[db]) != n || h.resize[db][0] != uint64(n) {
				t.Errorf("db %d: %d keys parsed, RESIZEDB %v, DBSIZE %d", db, h.keys[db], h.resize[db], n)
			}
			if h.expires[db] != 5+db || h.resize[db][1] != uint64(5+db) {
				t.Errorf("db %d: %d expiries, RESIZEDB %v", db, h.expires[db], h.resize[db])
			}
			for k, v := range h.strings {
				if !strings.HasPrefix(k, strconv.Itoa(db)+":") {
					continue
				}
				if got := c.Get(ctx, k[2:]).Val(); got != v {
					t.Errorf("db %d %q: parsed %.40q, GET %.40q", db, k[2:], v, got)
				}
			}
		}
		c.Do(ctx, "SELECT", 0)
		// Every encoding Redis 7.0 writes for these values.
		for _, typ := range []byte{TypeString, TypeSet, TypeZSet2, TypeHash, TypeSetIntset,
			TypeHashListpack, TypeZSetListpack, TypeListQuicklist2, TypeStreamListpacks2} {
			if h.types[typ] == 0 {
				t.Errorf("no object of type %d in %v", typ, h.types)
			}
		}
	}
}

// TestWriteSeed writes testdata/redis-7.0.rdb, FuzzParse's seed: every
// encoding, kept to a few hundred bytes by low encoding limits, since the
// fuzzer's minimizer takes time quadratic in an input's length.
//
//	RDBFILE_WRITE_SEED=1 go test -run TestWriteSeed ./shardowner/rdbfile/
func TestWriteSeed(t *testing.T) {
	if os.Getenv("RDBFILE_WRITE_SEED") == "" {
		t.Skip("RDBFILE_WRITE_SEED not set")
	}
	dir := t.TempDir()
	c := startRedis(t, needRedis(t), dir, "dump.rdb", "--hash-max-listpack-entries", "2",
		"--set-max-intset-entries", "2", "--zset-max-listpack-entries", "2", "--list-max-listpack-size", "2",
		"--stream-node-max-entries", "2")
	ctx := context.Background()
	for _, cmd := range [][]any{
		{"SET", "i", "7"}, {"SET", "s", "hi"}, {"SET", "c", strings.Repeat("ab", 20)},
		{"HSET", "h", "a", "1", "b", "2", "c", "3"}, {"HSET", "hl", "a", "1"},
		{"SADD", "si", "1", "2", "3"}, {"SADD", "sj", "1", "2"}, {"SADD", "ss", "x"},
		{"ZADD", "z", "1", "a", "inf", "b", "-inf", "c"}, {"ZADD", "zl", "1.5", "a"},
		{"RPUSH", "l", "a", "b", "c"},
		{"XADD", "x", "1-1", "f", "v"}, {"XADD", "x", "1-2", "f", "v"}, {"XADD", "x", "2-1", "f", "v"},
		{"XDEL", "x", "1-2"}, {"XGROUP", "CREATE", "x", "g", "0"},
		{"XREADGROUP", "GROUP", "g", "a", "COUNT", "1", "STREAMS", "x", ">"},
		{"XGROUP", "CREATECONSUMER", "x", "g", "b"},
		{"PEXPIRE", "s", "100000000"}, {"SELECT", "1"}, {"SET", "k", "v"}, {"SELECT", "0"},
		{"FUNCTION", "LOAD", "#!lua name=l\nredis.register_function('f', function() return 1 end)"},
		{"SAVE"},
	} {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	h := newCounter()
	if err := Parse(data, h); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, types %v", len(data), h.types)
	if err := os.WriteFile("testdata/redis-7.0.rdb", data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWriterLoadsInRedis writes a file with Writer that redis-check-rdb
// passes and redis-server loads, key for key.
func TestWriterLoadsInRedis(t *testing.T) {
	path := needRedis(t)
	check, err := exec.LookPath("redis-check-rdb")
	if err != nil {
		t.Skip("redis-check-rdb not on PATH")
	}
	for _, checksum := range []bool{true, false} {
		dir := t.TempDir()
		want, file := writeTestFile(t, checksum)
		if err := os.WriteFile(filepath.Join(dir, "w.rdb"), file, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(check, filepath.Join(dir, "w.rdb")).CombinedOutput()
		if err != nil || !bytes.Contains(out, []byte("RDB looks OK")) {
			t.Fatalf("redis-check-rdb: %v\n%s", err, out)
		}
		c := startRedis(t, path, dir, "w.rdb")
		ctx := context.Background()
		for db := 0; db < 4; db++ {
			c.Do(ctx, "SELECT", db)
			n := 0
			for k, v := range want {
				if k.db != db {
					continue
				}
				n++
				got, err := c.Do(ctx, "GET", k.key).Text()
				if k.list {
					got = strings.Join(c.LRange(ctx, k.key, 0, -1).Val(), ",")
					err = nil
				}
				if err != nil || got != v.val {
					t.Errorf("db %d %.40q: got %.40q (%v), want %.40q", db, k.key, got, err, v.val)
				}
				ttl := c.PTTL(ctx, k.key).Val()
				if v.ttl == 0 && ttl != -1 || v.ttl > 0 && (ttl <= 0 || ttl > v.ttl) {
					t.Errorf("db %d %q: PTTL %v, want up to %v", db, k.key, ttl, v.ttl)
				}
			}
			if got := c.DBSize(ctx).Val(); got != int64(n) {
				t.Errorf("db %d: DBSIZE %d, want %d", db, got, n)
			}
		}
	}
}

type testKey struct {
	db   int
	key  string
	list bool
}

type testVal struct {
	val string
	ttl time.Duration // 0 for none
}

// writeTestFile writes strings in every encoding, some compressed, some
// with an expiry, a list built with the record helpers, in databases 0, 1
// and 3, and returns them with the file.
func writeTestFile(t *testing.T, checksum bool) (map[testKey]testVal, []byte) {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 4))
	random := make([]byte, 3000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	vals := []string{"0", "-1", "127", "-128", "128", "40000", "-40000", "2147483647",
		"-2147483648", "2147483648", "007", "", "plain", string(random),
		strings.Repeat("compressible ", 100), strings.Repeat("z", 21), strings.Repeat("q", 100000)}
	// These go out LZF compressed, by this package's compressor.
	for _, v := range []string{vals[14], vals[16]} {
		if enc := AppendString(nil, []byte(v), true); enc[0] != 0xc3 {
			t.Fatalf("%.20q is not compressed", v)
		}
	}
	want := map[testKey]testVal{}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	now := time.Now().UnixMilli()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(w.Header(Aux{"redis-ver", "7.0.15"}, AuxInt("redis-bits", 64), AuxInt("ctime", now/1000),
		AuxInt("used-mem", 1<<20), AuxInt("aof-base", 0)))
	var rec []byte
	for _, db := range []int{0, 1, 3} {
		must(w.SelectDB(db))
		must(w.ResizeDB(uint64(len(vals)+2), 3))
		for i, v := range vals {
			key := fmt.Sprintf("k%d", i)
			if i == 3 {
				key = strings.Repeat("a long compressible key ", 5)
			}
			rec = rec[:0]
			tv := testVal{val: v}
			if i%5 == 0 {
				tv.ttl = time.Hour + time.Duration(i)*time.Second
				rec = AppendExpire(rec, now+tv.ttl.Milliseconds())
			}
			if i == 1 {
				rec = AppendIdle(rec, 100)
			}
			rec = AppendKey(rec, TypeString, []byte(key), true)
			rec = AppendString(rec, []byte(v), i%2 == 0)
			must(w.Raw(rec))
			want[testKey{db, key, false}] = tv
		}
		// Expired already: Redis drops it on load.
		must(w.Raw(AppendString(AppendKey(AppendExpire(nil, now-1000), TypeString, []byte("gone"), false), []byte("x"), false)))
		rec = AppendLen(AppendKey(rec[:0], TypeList, []byte("list"), false), 3)
		for _, e := range []string{"1", "two", strings.Repeat("three", 10)} {
			rec = AppendString(rec, []byte(e), true)
		}
		must(w.Raw(rec))
		want[testKey{db, "list", true}] = testVal{val: "1,two," + strings.Repeat("three", 10)}
	}
	must(w.End(checksum))
	if w.Written() != int64(buf.Len()) {
		t.Fatalf("Written %d, wrote %d", w.Written(), buf.Len())
	}
	// The file parses back.
	h := newCounter()
	if err := Parse(buf.Bytes(), h); err != nil {
		t.Fatal(err)
	}
	if h.keys[0] != len(vals)+2 || h.keys[3] != len(vals)+2 {
		t.Fatalf("parsed %v keys", h.keys)
	}
	return want, buf.Bytes()
}
