package main

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// evictionTarget is a server the eviction tests drive: corekv on some
// shards, or redis-server for the texts and behaviours to match.
type evictionTarget struct {
	name string
	addr string
}

// evictionTargets starts redis-server and corekv on 1 and 3 shards.
func evictionTargets(t *testing.T) []evictionTarget {
	t.Helper()
	redisPath := needTool(t, "redis-server")
	targets := []evictionTarget{{"redis", compatStartRedis(t, redisPath)}}
	for _, shards := range []string{"1", "3"} {
		s := startServer(t, nil, "--shards", shards, "--save", "")
		targets = append(targets, evictionTarget{"corekv/" + shards, s.addr})
	}
	return targets
}

func evictionClient(t *testing.T, addr string) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1, PoolSize: 4})
	t.Cleanup(func() { c.Close() })
	return c
}

// evictionReset empties a target and takes the limit off.
func evictionReset(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][2]string{{"maxmemory", "0"}, {"maxmemory-policy", "noeviction"}, {"notify-keyspace-events", ""}} {
		if err := c.ConfigSet(ctx, kv[0], kv[1]).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
}

// evictionFill writes n keys prefix:i with 100-byte values, every ttlEvery-th
// with a TTL (0: none), pipelined; it returns the first error reply.
func evictionFill(ctx context.Context, c *redis.Client, prefix string, from, n, ttlEvery int) error {
	val := strings.Repeat("v", 100)
	for i := from; i < from+n; i += 500 {
		p := c.Pipeline()
		for j := i; j < min(i+500, from+n); j++ {
			key := prefix + ":" + strconv.Itoa(j)
			if ttlEvery > 0 && j%ttlEvery == 0 {
				p.Set(ctx, key, val, time.Hour+time.Duration(j)*time.Second)
			} else {
				p.Set(ctx, key, val, 0)
			}
		}
		cmds, _ := p.Exec(ctx)
		for _, cmd := range cmds {
			if err := cmd.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

func usedMemory(t *testing.T, ctx context.Context, c *redis.Client) int64 {
	t.Helper()
	return infoFields(t, ctx, c, "memory")["used_memory"]
}

// TestEvictionNoEviction: under noeviction a write past maxmemory gets
// Redis's refusal, word for word; reads and DEL go on; once DEL has made
// room writes work again. Inside MULTI the refusal dooms the block.
func TestEvictionNoEviction(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var texts []string
	for _, tg := range evictionTargets(t) {
		c := evictionClient(t, tg.addr)
		evictionReset(t, ctx, c)
		if err := evictionFill(ctx, c, "base", 0, 2000, 0); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		limit := usedMemory(t, ctx, c) + 512<<10
		if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(limit, 10)).Err(); err != nil {
			t.Fatalf("%s: %v", tg.name, err)
		}
		err := evictionFill(ctx, c, "more", 0, 100_000, 0)
		if err == nil {
			t.Fatalf("%s: 10 MB of writes past a 512 KB margin were all taken", tg.name)
		}
		texts = append(texts, err.Error())
		if v, err := c.Get(ctx, "base:7").Result(); err != nil || len(v) != 100 {
			t.Errorf("%s: GET while out of memory: %q %v", tg.name, v, err)
		}
		if err := c.Set(ctx, "base:7", "x", 0).Err(); err == nil || err.Error() != texts[0] {
			t.Errorf("%s: SET while out of memory: %v", tg.name, err)
		}
		// MULTI: the queueing of any command but EXEC and DISCARD is refused,
		// and EXEC then aborts.
		conn := c.Conn()
		if err := conn.Do(ctx, "MULTI").Err(); err != nil {
			t.Fatal(err)
		}
		if err := conn.Do(ctx, "GET", "base:1").Err(); err == nil || err.Error() != texts[0] {
			t.Errorf("%s: GET queued in MULTI while out of memory: %v", tg.name, err)
		}
		if err := conn.Do(ctx, "EXEC").Err(); err == nil || !strings.HasPrefix(err.Error(), "EXECABORT") {
			t.Errorf("%s: EXEC after a refused queueing: %v", tg.name, err)
		}
		conn.Close()
		keys := make([]string, 0, 2000)
		for i := 0; i < 2000; i++ {
			keys = append(keys, "base:"+strconv.Itoa(i))
		}
		if n, err := c.Del(ctx, keys...).Result(); err != nil || n != 2000 {
			t.Fatalf("%s: DEL while out of memory: %d %v", tg.name, n, err)
		}
		// The shards learn of each other's room within a timer tick.
		deadline := time.Now().Add(2 * time.Second)
		for {
			err := c.Set(ctx, "after", "1", 0).Err()
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: SET after DEL made room: %v", tg.name, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
		evictionReset(t, ctx, c)
	}
	for i, text := range texts[1:] {
		if text != texts[0] {
			t.Errorf("refusal %d is %q, redis-server's %q", i+1, text, texts[0])
		}
	}
}

// TestEvictionExec: EXEC of a block holding a write is refused once the
// server is out of memory (EXECABORT with the OOM text); a block of reads
// runs.
func TestEvictionExec(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var replies [][2]string
	for _, tg := range evictionTargets(t) {
		c := evictionClient(t, tg.addr)
		other := evictionClient(t, tg.addr)
		evictionReset(t, ctx, c)
		c.Set(ctx, "x", "value", 0)
		var got [2]string
		for i, block := range [][]string{{"GET x", "PING"}, {"SET x 1", "GET x"}} {
			conn := c.Conn()
			conn.Do(ctx, "MULTI")
			for _, line := range block {
				args := []any{}
				for _, f := range strings.Fields(line) {
					args = append(args, f)
				}
				conn.Do(ctx, args...)
			}
			other.ConfigSet(ctx, "maxmemory", "1")
			time.Sleep(150 * time.Millisecond) // every shard's next timer tick
			v, err := conn.Do(ctx, "EXEC").Result()
			got[i] = fmt.Sprint(v, err)
			other.ConfigSet(ctx, "maxmemory", "0")
			conn.Close()
		}
		replies = append(replies, got)
		if !strings.Contains(got[1], "EXECABORT") || !strings.Contains(got[1], "OOM") {
			t.Errorf("%s: EXEC of a write when out of memory: %s", tg.name, got[1])
		}
	}
	for i, r := range replies[1:] {
		if r != replies[0] {
			t.Errorf("%s: EXEC replies %q, redis-server's %q", "target "+strconv.Itoa(i+1), r, replies[0])
		}
	}
}

// TestEvictionPolicies fills a server past maxmemory under each policy and
// checks what each may evict: the volatile ones only keys with a TTL (and
// refuse writes once none is left), volatile-ttl the nearest expiries
// first, the LRU and LFU ones keys that were read less.
func TestEvictionPolicies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for _, shards := range []string{"1", "3"} {
		s := startServer(t, nil, "--shards", shards, "--save", "")
		c := evictionClient(t, s.addr)
		for _, policy := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl",
			"allkeys-lru", "allkeys-lfu", "allkeys-random"} {
			name := policy + "/" + shards
			evictionReset(t, ctx, c)
			if err := evictionFill(ctx, c, "k", 0, 4000, 2); err != nil {
				t.Fatal(err)
			}
			if err := c.ConfigSet(ctx, "maxmemory-policy", policy).Err(); err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(policy, "-lru") {
				time.Sleep(1100 * time.Millisecond) // the LRU clock counts seconds, as Redis's
			}
			// Hot keys: read a hundred times each.
			for r := 0; r < 100; r++ {
				p := c.Pipeline()
				for i := 0; i < 400; i += 2 {
					p.Get(ctx, "k:"+strconv.Itoa(i))
					p.Get(ctx, "k:"+strconv.Itoa(i+1))
				}
				p.Exec(ctx)
			}
			// The limit is what is used now, with some room: the
			// connections' buffers, grown by the reads, count in
			// used_memory as each core's timer last found them (hz 10).
			time.Sleep(250 * time.Millisecond)
			used := usedMemory(t, ctx, c)
			if err := c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used+64<<10, 10)).Err(); err != nil {
				t.Fatal(err)
			}
			// Fewer new keys than old ones without the hot: what must go
			// for them is found among the old keys first, with room for
			// a count of memory that is off by some hundred keys.
			err := evictionFill(ctx, c, "n", 0, 1500, 2)
			evicted := infoFields(t, ctx, c, "stats")["evicted_keys"]
			if evicted == 0 {
				t.Errorf("%s: nothing evicted (err %v)", name, err)
				continue
			}
			if evicted > 1200 {
				// The new keys need room for some 950 old ones.
				t.Errorf("%s: %d keys evicted for 1500 new ones, more than they need", name, evicted)
			}
			live := func(from, to, step int) int {
				n := 0
				for i := from; i < to; i += step {
					if c.Exists(ctx, "k:"+strconv.Itoa(i)).Val() == 1 {
						n++
					}
				}
				return n
			}
			if strings.HasPrefix(policy, "volatile") {
				if err != nil {
					t.Errorf("%s: writes refused while keys with a TTL were left: %v", name, err)
				}
				if n := live(1, 4000, 2); n != 2000 {
					t.Errorf("%s: %d of 2000 keys without a TTL left", name, n)
				}
			} else if err != nil {
				t.Errorf("%s: a write refused: %v", name, err)
			}
			// The even keys have a TTL: the volatile policies compare those.
			hot, cold := live(0, 400, 1), live(400, 800, 1)
			if strings.HasPrefix(policy, "volatile") {
				hot, cold = live(0, 400, 2), live(400, 800, 2)
			}
			switch policy {
			case "allkeys-lru", "allkeys-lfu":
				if hot < 380 || hot <= cold {
					t.Errorf("%s: %d of 400 hot keys and %d of 400 cold ones left", name, hot, cold)
				}
			case "volatile-lru", "volatile-lfu":
				// Most keys with a TTL must go: the hot ones last.
				if hot <= cold {
					t.Errorf("%s: %d of 200 hot keys and %d of 200 cold ones left", name, hot, cold)
				}
			case "volatile-ttl":
				// TTLs grow with the index: the first keys go first.
				if early, late := live(0, 1000, 2), live(3000, 4000, 2); early >= late {
					t.Errorf("%s: %d early and %d late keys with a TTL left", name, early, late)
				}
			}
			t.Logf("%s: %d evicted; %d hot and %d cold keys left", name, evicted, hot, cold)
		}
		// A volatile policy with no key it may evict refuses writes.
		evictionReset(t, ctx, c)
		evictionFill(ctx, c, "p", 0, 2000, 0)
		c.ConfigSet(ctx, "maxmemory-policy", "volatile-lru")
		c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(usedMemory(t, ctx, c)+64<<10, 10))
		if err := evictionFill(ctx, c, "q", 0, 20_000, 0); err == nil || !strings.HasPrefix(err.Error(), "OOM ") {
			t.Errorf("volatile-lru/%s without keys with a TTL: %v", shards, err)
		}
		evictionReset(t, ctx, c)
	}
}

// TestEvictionHoldsLimit drives redis-benchmark's random SETs into a
// capped allkeys-lru server: used_memory stays within 2% of maxmemory and
// no command gets an error.
func TestEvictionHoldsLimit(t *testing.T) {
	bench := needTool(t, "redis-benchmark")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	for _, shards := range []string{"1", "2"} {
		s := startServer(t, nil, "--shards", shards, "--save", "", "--maxmemory", "24mb", "--maxmemory-policy", "allkeys-lru")
		c := evictionClient(t, s.addr)
		errsBefore := infoFields(t, ctx, c, "stats")["total_error_replies"] // the client's own hello, if refused
		out, err := exec.CommandContext(ctx, bench, "-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-t", "set",
			"-r", "10000000", "-d", "100", "-P", "16", "-n", "400000", "-c", "8", "-q").CombinedOutput()
		if err != nil {
			t.Fatalf("redis-benchmark: %v\n%s", err, out)
		}
		mem := infoFields(t, ctx, c, "memory")
		stats := infoFields(t, ctx, c, "stats")
		limit := int64(24 << 20)
		if mem["used_memory"] > limit*102/100 {
			t.Errorf("shards %s: used_memory %d over 1.02x maxmemory %d", shards, mem["used_memory"], limit)
		}
		if stats["evicted_keys"] == 0 {
			t.Errorf("shards %s: nothing evicted", shards)
		}
		if n := stats["total_error_replies"] - errsBefore; n != 0 {
			t.Errorf("shards %s: %d error replies: %s", shards, n, c.Info(ctx, "errorstats").Val())
		}
		keys := c.DBSize(ctx).Val()
		t.Logf("shards %s: used_memory %d of %d, rss %d, %d keys, %d evicted", shards, mem["used_memory"], limit,
			mem["used_memory_rss"], keys, stats["evicted_keys"])
	}
}

// TestEvictionSideEffects: an eviction publishes the evicted event, counts
// in INFO, and reaches the append-only file as a DEL, so the restarted
// server holds exactly the keys that were left.
func TestEvictionSideEffects(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := startServer(t, nil, "--shards", "2", "--save", "", "--appendonly", "yes", "--appendfsync", "always")
	c := evictionClient(t, s.addr)
	c.ConfigSet(ctx, "notify-keyspace-events", "Ee")
	sub := c.Subscribe(ctx, "__keyevent@0__:evicted")
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	evictionFill(ctx, c, "k", 0, 3000, 0)
	c.ConfigSet(ctx, "maxmemory-policy", "allkeys-random")
	c.ConfigSet(ctx, "maxmemory", strconv.FormatInt(usedMemory(t, ctx, c)-64<<10, 10))
	if err := evictionFill(ctx, c, "m", 0, 1000, 0); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-sub.Channel():
		if !strings.HasPrefix(m.Payload, "k:") && !strings.HasPrefix(m.Payload, "m:") {
			t.Errorf("evicted event for %q", m.Payload)
		}
	case <-time.After(5 * time.Second):
		t.Error("no evicted event")
	}
	sub.Close()
	if infoFields(t, ctx, c, "stats")["evicted_keys"] == 0 {
		t.Fatal("evicted_keys is 0")
	}
	// A lowered maxmemory goes on evicting over the next turns: lift it
	// before counting, so that no eviction falls between the count and
	// the stop.
	c.ConfigSet(ctx, "maxmemory", "0")
	before, _ := c.Keys(ctx, "*").Result()
	dir := c.ConfigGet(ctx, "dir").Val()["dir"]
	s.stop(t)
	s2 := startServer(t, nil, "--shards", "2", "--save", "", "--appendonly", "yes", "--dir", dir)
	c2 := evictionClient(t, s2.addr)
	after, _ := c2.Keys(ctx, "*").Result()
	if len(after) != len(before) {
		t.Fatalf("%d keys before the restart, %d after", len(before), len(after))
	}
	have := map[string]bool{}
	for _, k := range after {
		have[k] = true
	}
	for _, k := range before {
		if !have[k] {
			t.Fatalf("key %q lost in the restart", k)
		}
	}
}

// TestObjectIdleTimeAndFreq compares OBJECT IDLETIME and FREQ with
// redis-server: reads and TOUCH reset the idle time, TYPE, TTL, EXISTS and
// OBJECT do not; FREQ only under an LFU policy and IDLETIME only under
// another, with Redis's errors; RESTORE's IDLETIME and FREQ take effect.
func TestObjectIdleTimeAndFreq(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	targets := evictionTargets(t)
	clients := make([]*redis.Client, len(targets))
	for i, tg := range targets {
		clients[i] = evictionClient(t, tg.addr)
		evictionReset(t, ctx, clients[i])
		clients[i].Set(ctx, "idle", "v", 0)
		clients[i].Set(ctx, "read", "v", 0)
		clients[i].Set(ctx, "touched", "v", 0)
		clients[i].Set(ctx, "notouch-read", "v", 0)
		clients[i].Set(ctx, "notouch-touched", "v", 0)
	}
	time.Sleep(2200 * time.Millisecond)
	for i, tg := range targets {
		c := clients[i]
		c.Type(ctx, "idle")
		c.TTL(ctx, "idle")
		c.Exists(ctx, "idle")
		c.ObjectEncoding(ctx, "idle")
		c.Get(ctx, "read")
		c.Touch(ctx, "touched")
		if n := c.ObjectIdleTime(ctx, "idle").Val(); n < 2*time.Second {
			t.Errorf("%s: idle time %v after 2.2 s of TYPE, TTL, EXISTS and OBJECT only", tg.name, n)
		}
		for _, k := range []string{"read", "touched"} {
			if n := c.ObjectIdleTime(ctx, k).Val(); n > time.Second {
				t.Errorf("%s: idle time of %s %v right after an access", tg.name, k, n)
			}
		}
		if strings.HasPrefix(tg.name, "corekv") {
			// CLIENT NO-TOUCH came with Redis 7.2: its reads leave the idle
			// time, its TOUCH does not.
			conn := c.Conn()
			if err := conn.Do(ctx, "CLIENT", "NO-TOUCH", "ON").Err(); err != nil {
				t.Fatal(err)
			}
			conn.Get(ctx, "notouch-read")
			conn.MGet(ctx, "notouch-read", "x", "y")
			conn.Touch(ctx, "notouch-touched")
			conn.Do(ctx, "CLIENT", "NO-TOUCH", "OFF") // back to the pool
			conn.Close()
			if n := c.ObjectIdleTime(ctx, "notouch-read").Val(); n < 2*time.Second {
				t.Errorf("%s: idle time %v after reads of a NO-TOUCH client", tg.name, n)
			}
			if n := c.ObjectIdleTime(ctx, "notouch-touched").Val(); n > time.Second {
				t.Errorf("%s: idle time %v after TOUCH of a NO-TOUCH client", tg.name, n)
			}
		}
		if err := c.ObjectIdleTime(ctx, "nokey").Err(); err != redis.Nil {
			t.Errorf("%s: OBJECT IDLETIME of a missing key: %v", tg.name, err)
		}
		dump := c.Dump(ctx, "idle").Val()
		c.Do(ctx, "RESTORE", "restored", "0", dump, "IDLETIME", "1000")
		if n := c.ObjectIdleTime(ctx, "restored").Val(); n < 1000*time.Second || n > 1002*time.Second {
			t.Errorf("%s: RESTORE IDLETIME 1000 gave idle time %v", tg.name, n)
		}
	}
	var errs []string
	for i, tg := range targets {
		c := clients[i]
		e1 := c.ObjectFreq(ctx, "idle").Err()
		c.ConfigSet(ctx, "maxmemory-policy", "allkeys-lfu")
		e2 := c.ObjectIdleTime(ctx, "idle").Err()
		errs = append(errs, fmt.Sprint(e1, "|", e2))
		c.Set(ctx, "hot", "v", 0)
		for r := 0; r < 2000; r++ {
			c.Get(ctx, "hot")
		}
		if n := c.ObjectFreq(ctx, "hot").Val(); n < 10 {
			t.Errorf("%s: FREQ %d after 2000 reads", tg.name, n)
		}
		c.Do(ctx, "RESTORE", "freq", "0", c.Dump(ctx, "hot").Val(), "FREQ", "100")
		if n := c.ObjectFreq(ctx, "freq").Val(); n != 100 {
			t.Errorf("%s: RESTORE FREQ 100 gave %d", tg.name, n)
		}
		evictionReset(t, ctx, c)
	}
	for i, e := range errs[1:] {
		if e != errs[0] {
			t.Errorf("%s: errors %q, redis-server's %q", targets[i+1].name, e, errs[0])
		}
	}
}

// TestLoadAccessData: a file redis-server saved under an LRU policy, then
// an LFU one, carries each key's idle time or counter, which corekv takes
// at start under the same policy.
func TestLoadAccessData(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu"} {
		dir := t.TempDir()
		r := evictionClient(t, compatStartRedis(t, redisPath, "--dir", dir, "--maxmemory-policy", policy))
		r.Set(ctx, "k", "v", 0)
		dump := r.Dump(ctx, "k").Val()
		r.Do(ctx, "RESTORE", "idle", "0", dump, "IDLETIME", "5000")
		r.Do(ctx, "RESTORE", "freq", "0", dump, "FREQ", "77")
		if err := r.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		s := startServer(t, nil, "--shards", "2", "--save", "", "--dir", dir, "--maxmemory-policy", policy,
			"--enable-protected-configs", "yes")
		c := evictionClient(t, s.addr)
		check := func(who string, c *redis.Client) {
			t.Helper()
			if policy == "allkeys-lru" {
				if n := c.ObjectIdleTime(ctx, "idle").Val(); n < 5000*time.Second || n > 5010*time.Second {
					t.Errorf("%s, %s: idle time %v loaded from a file that says 5000 s", who, policy, n)
				}
			} else if n := c.ObjectFreq(ctx, "freq").Val(); n != 77 {
				t.Errorf("%s, %s: counter %d loaded from a file that says 77", who, policy, n)
			}
		}
		check("corekv loading redis-server's file", c)
		// corekv's own file carries them too, for redis-server to read.
		own := t.TempDir()
		if err := c.ConfigSet(ctx, "dir", own).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		checkRDB(t, own+"/dump.rdb")
		check("redis-server loading corekv's file", evictionClient(t, compatStartRedis(t, redisPath, "--dir", own, "--maxmemory-policy", policy)))
	}
}
