package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/corekv/corekv/router"
)

// keysOnShards returns one key per shard of n, each a hash tag of prefix
// and a number, so that keys made by adding to it stay on its shard.
func keysOnShards(prefix string, n int) []string {
	keys := make([]string, n)
	for i, found := 0, 0; found < n; i++ {
		k := "{" + prefix + strconv.Itoa(i) + "}"
		if sh := router.ShardOf([]byte(k), n); keys[sh] == "" {
			keys[sh] = k
			found++
		}
	}
	return keys
}

// TestScriptGoRedis runs go-redis's Script (EVALSHA, then EVAL on
// NOSCRIPT) on keys of both shards of a two-shard server: each runs on its
// key's shard, and a script EVAL added on one shard is found by EVALSHA
// on the other.
func TestScriptGoRedis(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx := context.Background()
	c := s.client(t, 2)
	incr := redis.NewScript("return redis.call('incrby', KEYS[1], ARGV[1])")
	keys := keysOnShards("gr:", 2)
	for round := 1; round <= 3; round++ {
		for _, k := range keys {
			n, err := incr.Run(ctx, c, []string{k}, 5).Int()
			if err != nil || n != 5*round {
				t.Fatalf("round %d on %s: %d, %v", round, k, n, err)
			}
		}
	}
	// EVAL on the first shard, EVALSHA of the same body on the second.
	body := "return redis.call('get', KEYS[1]) .. '!'"
	if got, err := c.Eval(ctx, body, []string{keys[0]}).Text(); err != nil || got != "15!" {
		t.Fatalf("EVAL: %q, %v", got, err)
	}
	if got, err := c.EvalSha(ctx, redis.NewScript(body).Hash(), []string{keys[1]}).Text(); err != nil || got != "15!" {
		t.Fatalf("EVALSHA on the other shard: %q, %v", got, err)
	}
	// A key of another shard than the declared one is found, and a
	// command over every shard is refused.
	if got, err := c.Eval(ctx, "return redis.call('get', ARGV[1])", []string{keys[0]}, keys[1]).Text(); err != nil || got != "15" {
		t.Fatalf("undeclared key on another shard: %q, %v", got, err)
	}
	// A script whose runs kept to its keys' shard runs there: a key of
	// another shard is then refused once, and its next runs go over
	// several shards again.
	counter := "return redis.call('incr', ARGV[1])"
	for i := range 8 {
		if err := c.Eval(ctx, counter, []string{keys[0]}, keys[0]+":c").Err(); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	err := c.Eval(ctx, counter, []string{keys[0]}, keys[1]+":c").Err()
	if err == nil || !strings.Contains(err.Error(), "another shard than the one it runs on") {
		t.Fatalf("a key of another shard after runs on one: %v", err)
	}
	if n, err := c.Eval(ctx, counter, []string{keys[0]}, keys[1]+":c").Int(); err != nil || n != 1 {
		t.Fatalf("the run after: %d, %v", n, err)
	}
	if err := c.Eval(ctx, "return redis.call('dbsize')", nil).Err(); err == nil || !strings.Contains(err.Error(), "every shard") {
		t.Fatalf("DBSIZE from a script on two shards: %v", err)
	}
	// A script error after a write keeps the write, as in Redis.
	err = c.Eval(ctx, "redis.call('set', KEYS[1], 'kept'); return redis.call('incr', KEYS[1])", []string{"{e}k"}).Err()
	if err == nil || !strings.HasPrefix(err.Error(), "ERR value is not an integer") {
		t.Fatalf("failing script: %v", err)
	}
	if got := c.Get(ctx, "{e}k").Val(); got != "kept" {
		t.Fatalf("write before the error: %q", got)
	}
	// SCRIPT FLUSH reaches every shard's engine.
	if err := c.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if err := c.EvalSha(ctx, incr.Hash(), []string{k}, 1).Err(); err == nil || !strings.HasPrefix(err.Error(), "NOSCRIPT") {
			t.Fatalf("EVALSHA after SCRIPT FLUSH on %s: %v", k, err)
		}
	}
	// Blocking commands answer at once inside a script.
	if got, err := c.Eval(ctx, "return redis.call('blmpop', 0, 1, KEYS[1], 'left')", []string{"{b}l"}).Result(); err != redis.Nil {
		t.Fatalf("BLMPOP from a script: %v, %v", got, err)
	}
}

// TestScriptJournal checks what scripts leave in the append-only file:
// their writes, not the script; more than one as one MULTI … EXEC; none
// for a script that only reads; a script inside MULTI in EXEC's block;
// and that redis-check-aof accepts the files and a restart after SIGKILL
// gives back what the scripts wrote.
func TestScriptJournal(t *testing.T) {
	dir := t.TempDir()
	s := aofStart(t, dir, 2, "always")
	keys := keysOnShards("sj:", 2)
	steps := [][2]string{
		{"redis.call('set', KEYS[1], 'a'); redis.call('append', KEYS[1], 'b'); redis.call('rpush', KEYS[1]..':l', 'x', 'y'); return 1", ":1"},
		{"return redis.call('incr', KEYS[1]..':n')", ":1"},
		{"return redis.call('get', KEYS[1])", "ab"},
		{"redis.call('set', KEYS[1]..':x', 'x', 'EX', 1000); return redis.call('expire', KEYS[1]..':x', 2000)", ":1"},
	}
	// A script's first runs go over several shards, gathering its keys'
	// values, and leave the RESTORE of what they changed
	// (router/scriptplan.go); once they have shown that it keeps to one
	// shard it runs there, and what follows is of those runs.
	for _, k := range keys {
		for range 8 {
			for _, step := range steps {
				aofDo(t, s.addr, "EVAL", step[0], "1", k+"w")
			}
		}
	}
	warm := map[string]int{} // what the first runs left in each file
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	restores := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		warm[f] = len(b)
		restores += strings.Count(string(b), "RESTORE")
	}
	if restores == 0 {
		t.Fatal("the first runs left no RESTORE")
	}
	for _, k := range keys {
		for _, step := range steps {
			if got := aofDo(t, s.addr, "EVAL", step[0], "1", k); got != step[1] {
				t.Fatalf("EVAL %q on %s: %q, want %q", step[0], k, got, step[1])
			}
		}
	}
	// A script inside MULTI: its writes are the block's.
	c, err := compatDial(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{{"MULTI"},
		{"EVAL", "redis.call('set', KEYS[1], 'in'); return redis.call('set', KEYS[2], 'multi')", "2", "{m}a", "{m}b"},
		{"SET", "{m}plain", "p"}, {"EXEC"}} {
		if rep, err := c.do(compatA(cmd...)); err != nil || rep.kind == '-' {
			t.Fatalf("%q: %v %q", cmd, err, rep.raw)
		}
	}
	c.close()
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b[warm[f]:]...)
	}
	text := string(all)
	if strings.Contains(strings.ToLower(text), "eval") {
		t.Fatalf("a script itself went into the file:\n%q", text)
	}
	// Per shard the scripts of three and two writes, and EXEC's block.
	if n := strings.Count(text, "MULTI"); n != 5 {
		t.Fatalf("%d MULTI blocks, want 5:\n%q", n, text)
	}
	if i := strings.Index(text, "{m}plain"); i < 0 || !strings.Contains(text[:i], "multi") || strings.Count(text[:i], "MULTI") <= strings.Count(text[:i], "EXEC") {
		t.Fatalf("the script inside MULTI is not in EXEC's block:\n%q", text)
	}
	if !strings.Contains(text, "PXAT") || !strings.Contains(text, "PEXPIREAT") {
		t.Fatalf("relative TTLs of a script are not absolute in the file:\n%q", text)
	}
	want := map[string]string{}
	for _, k := range keys {
		for _, k := range []string{k, k + "w"} {
			want[k] = aofDo(t, s.addr, "GET", k)
			want[k+":l"] = aofDo(t, s.addr, "LRANGE", k+":l", "0", "-1")
			want[k+":n"] = aofDo(t, s.addr, "GET", k+":n")
		}
	}
	want["{m}a"], want["{m}b"] = aofDo(t, s.addr, "GET", "{m}a"), aofDo(t, s.addr, "GET", "{m}b")
	if want[keys[0]] != "ab" || want["{m}b"] != "multi" {
		t.Fatalf("values before restart: %v", want)
	}
	s.kill()
	checkAOF(t, dir)
	s = aofStart(t, dir, 2, "always")
	for k, v := range want {
		got := aofDo(t, s.addr, "GET", k)
		if strings.HasSuffix(k, ":l") {
			got = aofDo(t, s.addr, "LRANGE", k, "0", "-1")
		}
		if got != v {
			t.Fatalf("%s after restart: %q, want %q", k, got, v)
		}
	}
}

// TestScriptTornBlock cuts the append-only file inside the MULTI block of a
// script's two writes, at its last one: a start applies neither write and
// cuts the file back to where the block began.
func TestScriptTornBlock(t *testing.T) {
	dir := t.TempDir()
	s := aofStart(t, dir, 1, "always")
	aofDo(t, s.addr, "SET", "{t}before", "1")
	file := filepath.Join(dir, "appendonlydir", "appendonly.aof.1.incr.aof")
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	before := st.Size()
	if got := aofDo(t, s.addr, "EVAL", "redis.call('set', KEYS[1], 'x'); return redis.call('set', KEYS[2], 'y')", "2", "{t}a", "{t}b"); got != "+OK" {
		t.Fatalf("EVAL: %q", got)
	}
	s.stop(t)
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	text := string(whole[before:])
	// Cuts: after MULTI, inside the second SET, and just before EXEC's end.
	for _, cut := range []int{strings.Index(text, "MULTI\r\n") + 7, strings.LastIndex(text, "{t}b") + 2, len(text) - 3} {
		if err := os.WriteFile(file, whole[:before+int64(cut)], 0o644); err != nil {
			t.Fatal(err)
		}
		s := aofStart(t, dir, 1, "always")
		if a, b := aofDo(t, s.addr, "GET", "{t}a"), aofDo(t, s.addr, "GET", "{t}b"); a != "" || b != "" || aofDo(t, s.addr, "GET", "{t}before") != "1" {
			t.Errorf("cut at %d of the block: {t}a %q, {t}b %q after the start", cut, a, b)
		}
		s.stop(t)
		if st, _ := os.Stat(file); st.Size() != before {
			t.Errorf("cut at %d of the block: the file is %d bytes, want it cut back to %d", cut, st.Size(), before)
		}
	}
}
