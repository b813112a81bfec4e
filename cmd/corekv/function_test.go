package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// functionLibs are two libraries for the persistence tests: one that
// writes, one whose function reads and is flagged no-writes.
var functionLibs = []string{
	"#!lua name=counter\nlocal step = 2\nredis.register_function('bump', function(keys) return redis.call('incrby', keys[1], step) end)",
	"#!lua name=reader\nredis.register_function{function_name='peek', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='reads a key'}",
}

// functionState is what a server holds of functions: FUNCTION LIST
// WITHCODE of each of functionLibs' libraries, and FUNCTION STATS.
func functionState(t *testing.T, addr string) string {
	t.Helper()
	var b strings.Builder
	for _, name := range []string{"counter", "reader"} {
		b.WriteString(aofDo(t, addr, "FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", name))
		b.WriteByte('\n')
	}
	b.WriteString(aofDo(t, addr, "FUNCTION", "STATS"))
	return b.String()
}

// TestFunctionsInSnapshot: the libraries go into the RDB file as Redis
// writes them (redis-check-rdb accepts it, redis-server started on it
// holds them alike), and come back when corekv starts on it; FUNCTION
// DUMP of either server restores on the other.
func TestFunctionsInSnapshot(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	dir := t.TempDir()
	srv := aofStart(t, dir, 2, "always", "--appendonly", "no")
	for _, code := range functionLibs {
		if r := aofDo(t, srv.addr, "FUNCTION", "LOAD", code); !strings.HasPrefix(code, "#!lua name="+r+"\n") {
			t.Fatalf("FUNCTION LOAD: %s", r)
		}
	}
	if r := aofDo(t, srv.addr, "FCALL", "bump", "1", "n"); r != ":2" {
		t.Fatalf("FCALL bump: %s", r)
	}
	want := functionState(t, srv.addr)
	if r := aofDo(t, srv.addr, "SAVE"); r != "+OK" {
		t.Fatalf("SAVE: %s", r)
	}
	dump := aofDo(t, srv.addr, "FUNCTION", "DUMP")
	srv.stop(t)
	checkRDB(t, filepath.Join(dir, "dump.rdb"))

	redisAddr := compatStartRedis(t, redisPath, "--dir", dir)
	if got := functionState(t, redisAddr); got != want {
		t.Errorf("redis-server on corekv's dump.rdb holds\n%s\nwant\n%s", got, want)
	}
	if r := aofDo(t, redisAddr, "FCALL", "bump", "1", "n"); r != ":4" {
		t.Errorf("redis-server: FCALL bump: %s", r)
	}
	if r := aofDo(t, redisAddr, "FUNCTION", "RESTORE", dump, "REPLACE"); r != "+OK" {
		t.Errorf("redis-server: FUNCTION RESTORE of corekv's dump: %s", r)
	}
	redisDump := aofDo(t, redisAddr, "FUNCTION", "DUMP")

	srv = aofStart(t, dir, 2, "always", "--appendonly", "no")
	if got := functionState(t, srv.addr); got != want {
		t.Errorf("corekv restarted on its dump.rdb holds\n%s\nwant\n%s", got, want)
	}
	if r := aofDo(t, srv.addr, "FCALL", "peek", "1", "n"); r != "2" {
		t.Errorf("FCALL peek after the restart: %q", r)
	}
	if r := aofDo(t, srv.addr, "FUNCTION", "RESTORE", redisDump); !strings.Contains(r, "already exists") {
		t.Errorf("FUNCTION RESTORE of Redis's dump over the same libraries: %s", r)
	}
	for _, policy := range []string{"FLUSH", "REPLACE"} {
		if r := aofDo(t, srv.addr, "FUNCTION", "RESTORE", redisDump, policy); r != "+OK" {
			t.Fatalf("FUNCTION RESTORE of Redis's dump %s: %s", policy, r)
		}
		if got := functionState(t, srv.addr); got != want {
			t.Errorf("after FUNCTION RESTORE %s of Redis's dump corekv holds\n%s\nwant\n%s", policy, got, want)
		}
	}
}

// TestFunctionsInAOF: FUNCTION LOAD, DELETE and FLUSH are replayed from
// the append-only file after a kill, on every shard, and a rewrite keeps
// the libraries in its base.
func TestFunctionsInAOF(t *testing.T) {
	dir := t.TempDir()
	srv := aofStart(t, dir, 2, "always")
	aofDo(t, srv.addr, "FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('g', function() return 1 end)")
	aofDo(t, srv.addr, "FUNCTION", "FLUSH")
	for _, code := range functionLibs {
		aofDo(t, srv.addr, "FUNCTION", "LOAD", code)
	}
	aofDo(t, srv.addr, "FUNCTION", "LOAD", "#!lua name=gone\nredis.register_function('g', function() return 1 end)")
	if r := aofDo(t, srv.addr, "FUNCTION", "DELETE", "gone"); r != "+OK" {
		t.Fatalf("FUNCTION DELETE: %s", r)
	}
	// Keys on both shards, each written by a function run there.
	for _, k := range []string{"a", "b", "c", "d"} {
		aofDo(t, srv.addr, "FCALL", "bump", "1", k)
	}
	want := functionState(t, srv.addr)
	srv.kill()
	checkAOF(t, dir)

	srv = aofStart(t, dir, 2, "always")
	if got := functionState(t, srv.addr); got != want {
		t.Errorf("corekv restarted on its append-only file holds\n%s\nwant\n%s", got, want)
	}
	if r := aofDo(t, srv.addr, "FCALL", "g", "0"); r != "-ERR Function not found" {
		t.Errorf("FCALL of the deleted library's function: %s", r)
	}
	for _, k := range []string{"a", "b", "c", "d"} {
		if r := aofDo(t, srv.addr, "FCALL", "peek", "1", k); r != "2" {
			t.Errorf("FCALL peek %s after the restart: %q", k, r)
		}
	}
	if r := aofDo(t, srv.addr, "BGREWRITEAOF"); r != "+Background append only file rewriting started" {
		t.Fatalf("BGREWRITEAOF: %s", r)
	}
	aofWaitRewrite(t, srv.addr)
	srv.stop(t)
	checkAOF(t, dir)
	srv = aofStart(t, dir, 2, "always")
	if got := functionState(t, srv.addr); got != want {
		t.Errorf("corekv restarted after the rewrite holds\n%s\nwant\n%s", got, want)
	}
}

// TestScriptsOverMaxmemory compares with redis-server what scripts and
// functions may do over maxmemory, on two shards, where a script's first
// runs go over several shards (router/scriptplan.go) and its later ones
// run on its shard: either way it is refused unless it may not write or
// says allow-oom, as Redis refuses it.
func TestScriptsOverMaxmemory(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	libs := []string{
		"#!lua name=plain\nredis.register_function('fw', function(keys) return redis.call('set', keys[1], 'v') end)",
		"#!lua name=ro\nredis.register_function{function_name='fr', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}",
		"#!lua name=oom\nredis.register_function{function_name='fo', callback=function(keys) return redis.call('set', keys[1], 'v') end, flags={'allow-oom'}}",
	}
	for _, addr := range []string{redisAddr, srv.addr} {
		aofDo(t, addr, "FUNCTION", "FLUSH")
		for _, l := range libs {
			aofDo(t, addr, "FUNCTION", "LOAD", l)
		}
		aofDo(t, addr, "CONFIG", "SET", "maxmemory", "1")
	}
	// The limit takes hold at corekv's next count of memory.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.HasPrefix(aofDo(t, srv.addr, "SET", "probe", "v"), "-OOM") {
		if time.Now().After(deadline) {
			t.Fatal("SET is not refused over maxmemory 1")
		}
		time.Sleep(20 * time.Millisecond)
	}
	steps := [][]string{
		{"EVAL", "#!lua\nreturn redis.call('set', KEYS[1], 'v')", "1", "k"},
		{"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "k"},
		{"EVAL", "#!lua flags=allow-oom\nreturn redis.call('set', KEYS[1], 'v')", "1", "k"},
		{"EVAL", "return redis.call('set', KEYS[1], 'v')", "1", "k"},
		{"EVAL", "return redis.call('get', KEYS[1])", "1", "k"},
		{"FCALL", "fw", "1", "k"}, {"FCALL", "fr", "1", "k"}, {"FCALL_RO", "fr", "1", "k"}, {"FCALL", "fo", "1", "k2"},
		{"FUNCTION", "LOAD", "#!lua name=more\nredis.register_function('fm', function() return 1 end)"},
		{"FUNCTION", "DELETE", "plain"},
	}
	// Ten rounds: past the runs that go over several shards.
	for round := 0; round < 10; round++ {
		for _, st := range steps {
			if round > 0 && st[0] == "FUNCTION" {
				continue
			}
			want, got := aofDo(t, redisAddr, st...), aofDo(t, srv.addr, st...)
			if got != want {
				t.Errorf("round %d: %q: got %q, want %q", round, st, got, want)
			}
		}
	}
	for _, addr := range []string{redisAddr, srv.addr} {
		aofDo(t, addr, "CONFIG", "SET", "maxmemory", "0")
	}
}
