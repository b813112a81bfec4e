package main

import (
	"context"
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corekv/corekv/router"
)

// crossKeys are the keys of TestScriptCrossShardDiff: no hash tags, so on
// three shards they spread over all of them.
var crossKeys = []string{"xa", "xb", "xc", "xd", "xe", "xf", "xg"}

// TestScriptCrossShardDiff sends the same random scripts to redis-server
// and to corekv on three shards and compares every reply and, at the end,
// every key. Each script declares keys of at least two shards and also
// touches keys it does not declare, so it runs as a transaction over its
// keys, gathering the undeclared ones as it finds them
// (router/scriptplan.go). COREKV_DIFF_SEED replays a run.
func TestScriptCrossShardDiff(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	seed := diffEnvInt(t, "COREKV_DIFF_SEED", time.Now().UnixNano()%1_000_000_000)
	t.Logf("seed %d; replay with COREKV_DIFF_SEED=%d", seed, seed)
	const shards, scripts = 3, 300
	srv := compatStartCorekv(t, corekvBinary(t), shards)
	rc, err := compatDial(redisAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.close()
	kc, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.close()
	for _, c := range []compatCmd{compatS("FLUSHALL"), compatS("SCRIPT FLUSH")} {
		rc.do(c)
		kc.do(c)
	}
	rng := rand.New(rand.NewSource(seed))
	db := "0"
	for i := 0; i < scripts; i++ {
		if rng.Intn(8) == 0 {
			// A database other than 0 is gathered from as well.
			db = map[string]string{"0": "9", "9": "0"}[db]
			rc.do(compatA("SELECT", db))
			kc.do(compatA("SELECT", db))
		}
		declared := crossDeclared(rng, shards)
		body := crossScript(rng, len(declared))
		cmd := compatA(append(append([]string{"EVAL", body, fmt.Sprint(len(declared))}, declared...), "v"+fmt.Sprint(rng.Intn(9)))...)
		w, err := rc.do(cmd)
		if err != nil {
			t.Fatal(err)
		}
		g, err := kc.do(cmd)
		if err != nil {
			t.Fatalf("script %d: corekv: %v\n%s", i, err, body)
		}
		if string(g.raw) != string(w.raw) {
			t.Fatalf("seed %d, script %d, db %s, keys %q:\n%s\n got %q\nwant %q", seed, i, db, declared, body, g.raw, w.raw)
		}
	}
	// The values at the end, read by type (DUMP's encodings differ).
	reads := map[string][]string{"string": {"GET"}, "list": {"LRANGE", "0", "-1"}, "hash": {"HGET", "f"},
		"zset": {"ZRANGE", "0", "-1", "WITHSCORES"}, "set": {"SORT", "ALPHA"}, "none": {"EXISTS"}}
	for _, db := range []string{"0", "9"} {
		rc.do(compatA("SELECT", db))
		kc.do(compatA("SELECT", db))
		crossCompareKeys(t, seed, rc, kc, reads)
	}
}

// crossCompareKeys compares crossKeys in both servers' selected database.
func crossCompareKeys(t *testing.T, seed int64, rc, kc *compatConn, reads map[string][]string) {
	t.Helper()
	for _, k := range crossKeys {
		typ, _ := rc.do(compatA("TYPE", k))
		read := reads[string(typ.raw[1:len(typ.raw)-2])]
		for _, c := range []compatCmd{compatA("TYPE", k), compatA(append([]string{read[0], k}, read[1:]...)...), compatA("PTTL", k)} {
			w, _ := rc.do(c)
			g, _ := kc.do(c)
			if string(g.raw) != string(w.raw) {
				t.Fatalf("seed %d: %q at the end: got %q, want %q", seed, c.args, g.raw, w.raw)
			}
		}
	}
}

// crossDeclared picks two to four distinct keys of crossKeys, of at least
// two shards.
func crossDeclared(rng *rand.Rand, shards int) []string {
	for {
		perm := rng.Perm(len(crossKeys))
		keys := make([]string, 2+rng.Intn(3))
		seen := map[int]bool{}
		for i := range keys {
			keys[i] = crossKeys[perm[i]]
			seen[router.ShardOf([]byte(keys[i]), shards)] = true
		}
		if len(seen) > 1 {
			return keys
		}
	}
}

// crossScript is a script of a few calls over KEYS[1..declared] and over
// the other keys by name, its replies collected into an array; pcall keeps
// a WRONGTYPE error from ending it, and some scripts end with an error.
func crossScript(rng *rand.Rand, declared int) string {
	key := func() string {
		if rng.Intn(3) > 0 {
			return fmt.Sprintf("KEYS[%d]", 1+rng.Intn(declared))
		}
		return "'" + crossKeys[rng.Intn(len(crossKeys))] + "'"
	}
	calls := []func() string{
		func() string { return "'set', " + key() + ", ARGV[1]" },
		func() string { return "'get', " + key() },
		func() string { return "'incr', " + key() },
		func() string { return "'append', " + key() + ", 'z'" },
		func() string { return "'rpush', " + key() + ", ARGV[1], 'w'" },
		func() string { return "'lpop', " + key() },
		func() string { return "'lrange', " + key() + ", 0, -1" },
		func() string { return "'hset', " + key() + ", 'f', ARGV[1]" },
		func() string { return "'hget', " + key() + ", 'f'" },
		func() string { return "'zadd', " + key() + ", 3, ARGV[1]" },
		func() string { return "'zrange', " + key() + ", 0, -1, 'withscores'" },
		func() string { return "'del', " + key() },
		func() string { return "'exists', " + key() },
		func() string { return "'type', " + key() },
		func() string { return "'rename', " + key() + ", " + key() },
		func() string { return "'lmove', " + key() + ", " + key() + ", 'left', 'right'" },
		func() string { return "'sadd', " + key() + ", ARGV[1]" },
		func() string { return "'scard', " + key() },
	}
	var b strings.Builder
	b.WriteString("local r = {}\n")
	for n := 1 + rng.Intn(6); n > 0; n-- {
		c := calls[rng.Intn(len(calls))]()
		fmt.Fprintf(&b, "do local ok, v = pcall(redis.call, %s) if ok then r[#r+1] = v or 'nil' else r[#r+1] = 'E:' .. tostring(v) end end\n", c)
	}
	if rng.Intn(8) == 0 {
		fmt.Fprintf(&b, "redis.call(%s)\n", calls[rng.Intn(len(calls))]())
	}
	b.WriteString("return r\n")
	return b.String()
}

// TestScriptCrossShardConcurrent runs scripts over keys of several shards
// from eight clients at once: each moves one unit between two declared keys
// and counts itself on a key it does not declare, so that runs restart
// with more keys while others hold theirs. No unit may be lost or made,
// and every run must be counted once: a run seen half done by another, or
// applied twice, would break the sums; a deadlock between restarting
// transactions would time out.
func TestScriptCrossShardConcurrent(t *testing.T) {
	s := startServer(t, nil, "--shards", "3")
	const clients, runs = 8, 150
	move := redis.NewScript(`
local a = tonumber(redis.call('get', KEYS[1]) or '0')
local b = tonumber(redis.call('get', KEYS[2]) or '0')
redis.call('set', KEYS[1], a - 1)
redis.call('set', KEYS[2], b + 1)
redis.call('incr', 'xcount:' .. ARGV[1])
return a - 1`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := s.client(t, 0)
			rng := rand.New(rand.NewSource(int64(c)))
			for range runs {
				keys := crossDeclared(rng, 3)
				for router.ShardOf([]byte(keys[0]), 3) == router.ShardOf([]byte(keys[1]), 3) {
					keys = crossDeclared(rng, 3)
				}
				keys = keys[:2]
				if err := move.Run(ctx, cl, keys, rng.Intn(4)).Err(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	cl := s.client(t, 0)
	sum := 0
	for _, k := range crossKeys {
		n, err := cl.Get(ctx, k).Int()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		sum += n
	}
	count := 0
	for i := range 4 {
		n, _ := cl.Get(ctx, "xcount:"+strconv.Itoa(i)).Int()
		count += n
	}
	if sum != 0 || count != clients*runs {
		t.Fatalf("after %d runs: the keys sum to %d (want 0), the runs counted %d", clients*runs, sum, count)
	}
}

// TestScriptCrossShardMulti runs scripts over keys of two shards inside
// MULTI: one over its declared keys is part of the block; one that touches
// a key it did not declare is refused, since EXEC took its locks before.
func TestScriptCrossShardMulti(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx := context.Background()
	cl := s.client(t, 0)
	var a, b string
	for i := 0; b == ""; i++ {
		k := "m" + strconv.Itoa(i)
		switch {
		case a == "":
			a = k
		case router.ShardOf([]byte(k), 2) != router.ShardOf([]byte(a), 2):
			b = k
		}
	}
	var declared, undeclared *redis.Cmd
	_, err := cl.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, a, "1", 0)
		declared = p.Eval(ctx, "redis.call('incr', KEYS[1]); return redis.call('set', KEYS[2], redis.call('get', KEYS[1]))", []string{a, b})
		undeclared = p.Eval(ctx, "return redis.call('get', ARGV[1])", []string{a, b}, "m-other")
		return nil
	})
	if err == nil || declared.Val() != "OK" || !strings.Contains(fmt.Sprint(undeclared.Err()), "did not declare") {
		t.Fatalf("EXEC: %v; declared keys: %v %v; undeclared: %v", err, declared.Val(), declared.Err(), undeclared.Err())
	}
	if got := cl.Get(ctx, b).Val(); got != "2" {
		t.Fatalf("%s after the block: %q, want 2", b, got)
	}
}

// TestScriptCrossShardCommandStats: the commands a script runs count in
// INFO commandstats as redis-server counts them when its keys span shards
// too, once each, also for a run redone for a key it did not declare.
func TestScriptCrossShardCommandStats(t *testing.T) {
	ctx := context.Background()
	rc, kc := redisAndCorekv(t, 2)
	keys := keysOnShards("cs", 2)
	undeclared := keysOnShards("un", 2)[1]
	src := "redis.call('set', KEYS[1], ARGV[1]) redis.call('incr', KEYS[2]) " +
		"redis.call('get', KEYS[1]) return redis.call('exists', ARGV[2])"
	calls := func(c *redis.Client) map[string]string {
		got := map[string]string{}
		for _, line := range strings.Split(c.Info(ctx, "commandstats").Val(), "\r\n") {
			name, rest, ok := strings.Cut(line, ":")
			if !ok {
				continue
			}
			calls, _, _ := strings.Cut(rest, ",")
			got[name] = calls
		}
		return got
	}
	for _, c := range []*redis.Client{rc, kc} {
		c.ConfigResetStat(ctx)
		for i := range 5 {
			if err := c.Eval(ctx, src, keys, strconv.Itoa(i), undeclared).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	want, got := calls(rc), calls(kc)
	for _, name := range []string{"cmdstat_eval", "cmdstat_set", "cmdstat_incr", "cmdstat_get", "cmdstat_exists"} {
		if got[name] != want[name] {
			t.Errorf("%s: %s, redis-server %s", name, got[name], want[name])
		}
	}
}

// TestScriptUndeclaredKeysStayOver: a script that touches keys it does not
// declare keeps running over several shards even when, run after run, those
// keys happened to live on its declared key's shard (BullMQ's job keys): the
// next may not, and a run on one shard could not reach it. One whose
// undeclared keys share its declared key's hash tag is sure to stay there.
func TestScriptUndeclaredKeysStayOver(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx := context.Background()
	cl := s.client(t, 0)
	const body = "redis.call('incr', KEYS[1]); return redis.call('incr', ARGV[1])"
	home := router.ShardOf([]byte("job:queue"), 2)
	var near, far []string
	for i := 0; len(near) < 20 || len(far) == 0; i++ {
		k := "job:" + strconv.Itoa(i)
		if router.ShardOf([]byte(k), 2) == home {
			near = append(near, k)
		} else {
			far = append(far, k)
		}
	}
	for _, k := range append(near, far[0]) {
		if err := cl.Eval(ctx, body, []string{"job:queue"}, k).Err(); err != nil {
			t.Fatalf("EVAL touching %s: %v", k, err)
		}
	}
	if got := cl.Get(ctx, "job:queue").Val(); got != "21" {
		t.Fatalf("job:queue = %q, want 21", got)
	}
	// Under the declared key's tag: it runs on that shard once learnt, and
	// every run still answers.
	for i := range 20 {
		if err := cl.Eval(ctx, body, []string{"{q}:queue"}, "{q}:job:"+strconv.Itoa(i)).Err(); err != nil {
			t.Fatalf("EVAL under a hash tag, run %d: %v", i, err)
		}
	}
}
