package main

import (
	"context"
	"fmt"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestGoRedis drives every shard count with go-redis over RESP2 and RESP3.
func TestGoRedis(t *testing.T) {
	for _, n := range shardCounts {
		srv := startServer(t, nil, "--shards", strconv.Itoa(n))
		if srv.shards != n {
			t.Fatalf("asked for %d shards, server reports %d", n, srv.shards)
		}
		for _, proto := range []int{2, 3} {
			t.Run(fmt.Sprintf("shards=%d/resp%d", n, proto), func(t *testing.T) {
				c := srv.client(t, proto)
				ctx := context.Background()
				if err := c.FlushAll(ctx).Err(); err != nil {
					t.Fatal(err)
				}
				checkStrings(t, ctx, c)
				checkMultiKey(t, ctx, c)
				checkKeyspace(t, ctx, c)
				checkExpiry(t, ctx, c)
			})
		}
	}
}

func checkStrings(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	if err := c.Set(ctx, "s1", "hello", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, "s1").Result(); v != "hello" || err != nil {
		t.Fatalf("GET s1 = %q, %v", v, err)
	}
	if _, err := c.Get(ctx, "missing").Result(); err != redis.Nil {
		t.Fatalf("GET missing: want redis.Nil, got %v", err)
	}
	if n, _ := c.Append(ctx, "s1", " world").Result(); n != 11 {
		t.Fatalf("APPEND = %d", n)
	}
	if n, _ := c.Incr(ctx, "n").Result(); n != 1 {
		t.Fatalf("INCR = %d", n)
	}
	if n, _ := c.IncrBy(ctx, "n", 41).Result(); n != 42 {
		t.Fatalf("INCRBY = %d", n)
	}
	if f, _ := c.IncrByFloat(ctx, "f", 10.5).Result(); f != 10.5 {
		t.Fatalf("INCRBYFLOAT = %v", f)
	}
	if err := c.Incr(ctx, "s1").Err(); err == nil || err.Error() != "ERR value is not an integer or out of range" {
		t.Fatalf("INCR on text: %v", err)
	}
	if v, _ := c.GetRange(ctx, "s1", 0, 4).Result(); v != "hello" {
		t.Fatalf("GETRANGE = %q", v)
	}
	if ok, _ := c.SetNX(ctx, "s1", "x", 0).Result(); ok {
		t.Fatal("SETNX on existing key succeeded")
	}
	if v, _ := c.GetDel(ctx, "s1").Result(); v != "hello world" {
		t.Fatalf("GETDEL = %q", v)
	}
	if n, _ := c.Exists(ctx, "s1").Result(); n != 0 {
		t.Fatal("GETDEL left the key")
	}
	err := c.Do(ctx, "get").Err()
	if err == nil || err.Error() != "ERR wrong number of arguments for 'get' command" {
		t.Fatalf("arity error: %v", err)
	}
	err = c.Do(ctx, "foo", "bar").Err()
	if err == nil || err.Error() != "ERR unknown command 'foo', with args beginning with: 'bar' " {
		t.Fatalf("unknown command error: %v", err)
	}
}

// checkMultiKey uses enough keys that every shard owns some.
func checkMultiKey(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	var pairs []any
	var keys []string
	for i := 0; i < 50; i++ {
		k := "mk:" + strconv.Itoa(i)
		keys = append(keys, k)
		pairs = append(pairs, k, "v"+strconv.Itoa(i))
	}
	if err := c.MSet(ctx, pairs...).Err(); err != nil {
		t.Fatal(err)
	}
	vals, err := c.MGet(ctx, append(keys, "nope")...).Result()
	if err != nil {
		t.Fatal(err)
	}
	for i, k := range keys {
		if vals[i] != "v"+strconv.Itoa(i) {
			t.Fatalf("MGET %s = %v", k, vals[i])
		}
	}
	if vals[len(keys)] != nil {
		t.Fatalf("MGET of a missing key = %v", vals[len(keys)])
	}
	if n, _ := c.Exists(ctx, append(keys, keys[0])...).Result(); n != 51 {
		t.Fatalf("EXISTS = %d, want 51 (duplicates count)", n)
	}
	if ok, _ := c.MSetNX(ctx, "mk:0", "x", "mk:new", "y").Result(); ok {
		t.Fatal("MSETNX with an existing key succeeded")
	}
	if n, _ := c.Exists(ctx, "mk:new").Result(); n != 0 {
		t.Fatal("MSETNX set some keys when it should set none")
	}
	if ok, _ := c.MSetNX(ctx, "mk:a", "1", "mk:b", "2", "mk:c", "3").Result(); !ok {
		t.Fatal("MSETNX on new keys failed")
	}
	if n, _ := c.Del(ctx, append(keys, "mk:a", "mk:b", "mk:c", "nope")...).Result(); n != 53 {
		t.Fatalf("DEL = %d, want 53", n)
	}
	// checkStrings leaves "n" and "f"; every key set here was deleted.
	if n, err := c.DBSize(ctx).Result(); n != 2 || err != nil {
		t.Fatalf("DBSIZE after DEL = %d, %v; want 2", n, err)
	}
}

func checkKeyspace(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	if err := c.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for i := 0; i < 300; i++ {
		k := "key:" + strconv.Itoa(i)
		want[k] = true
		c.Set(ctx, k, i, 0)
	}
	if n, _ := c.DBSize(ctx).Result(); n != 300 {
		t.Fatalf("DBSIZE = %d, want 300", n)
	}
	got := map[string]bool{}
	var cursor uint64
	for rounds := 0; ; rounds++ {
		ks, next, err := c.Scan(ctx, cursor, "key:*", 17).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			got[k] = true
		}
		cursor = next
		if cursor == 0 {
			break
		}
		if rounds > 10000 {
			t.Fatal("SCAN does not terminate")
		}
	}
	if len(got) != len(want) {
		t.Fatalf("SCAN found %d keys, want %d", len(got), len(want))
	}
	ks, _ := c.Keys(ctx, "key:1?").Result()
	sort.Strings(ks)
	if len(ks) != 10 || ks[0] != "key:10" {
		t.Fatalf("KEYS key:1? = %v", ks)
	}
	// RENAME and COPY between keys that are (for most shard counts) on
	// different shards.
	for i := 0; i < 20; i++ {
		src, dst := "key:"+strconv.Itoa(i), "renamed:"+strconv.Itoa(i)
		if err := c.Rename(ctx, src, dst).Err(); err != nil {
			t.Fatalf("RENAME %s %s: %v", src, dst, err)
		}
		if v, _ := c.Get(ctx, dst).Result(); v != strconv.Itoa(i) {
			t.Fatalf("after RENAME %s = %q", dst, v)
		}
		if n, _ := c.Exists(ctx, src).Result(); n != 0 {
			t.Fatalf("RENAME left %s", src)
		}
		if n, _ := c.Copy(ctx, dst, "copy:"+strconv.Itoa(i), 0, false).Result(); n != 1 {
			t.Fatalf("COPY = %d", n)
		}
		if ok, _ := c.RenameNX(ctx, "copy:"+strconv.Itoa(i), dst).Result(); ok {
			t.Fatal("RENAMENX onto an existing key succeeded")
		}
	}
	if err := c.Rename(ctx, "nokey", "x").Err(); err == nil || err.Error() != "ERR no such key" {
		t.Fatalf("RENAME of a missing key: %v", err)
	}
	if typ, _ := c.Type(ctx, "renamed:1").Result(); typ != "string" {
		t.Fatalf("TYPE = %q", typ)
	}
	if k, err := c.RandomKey(ctx).Result(); err != nil || k == "" {
		t.Fatalf("RANDOMKEY = %q, %v", k, err)
	}
	if err := c.FlushAll(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RandomKey(ctx).Result(); err != redis.Nil {
		t.Fatalf("RANDOMKEY on empty: %v", err)
	}
}

func checkExpiry(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	c.Set(ctx, "e1", "v", 100*time.Millisecond)
	c.Set(ctx, "e2", "v", time.Hour)
	if ttl, _ := c.TTL(ctx, "e2").Result(); ttl < 59*time.Minute {
		t.Fatalf("TTL = %v", ttl)
	}
	if ok, _ := c.Persist(ctx, "e2").Result(); !ok {
		t.Fatal("PERSIST failed")
	}
	if ttl, _ := c.TTL(ctx, "e2").Result(); ttl != -1 {
		t.Fatalf("TTL after PERSIST = %v", ttl)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		n, _ := c.Exists(ctx, "e1").Result()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("e1 did not expire")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Active expiry: keys nobody touches disappear from DBSIZE.
	for i := 0; i < 100; i++ {
		c.Set(ctx, "ae:"+strconv.Itoa(i), "v", 50*time.Millisecond)
	}
	deadline = time.Now().Add(5 * time.Second)
	for {
		info, _ := c.Info(ctx, "keyspace").Result()
		n, _ := c.DBSize(ctx).Result()
		if n <= 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("active expiry left %d keys: %s", n, info)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPipelineOrder sends 10,000 mixed commands over keys on every shard in
// one pipeline and checks every reply, in order, against a model.
func TestPipelineOrder(t *testing.T) {
	for _, n := range shardCounts {
		t.Run(fmt.Sprintf("shards=%d", n), func(t *testing.T) {
			srv := startServer(t, nil, "--shards", strconv.Itoa(n))
			c := srv.client(t, 2)
			ctx := context.Background()
			rng := rand.New(rand.NewSource(int64(n)))
			model := map[string]string{}
			type want struct {
				kind string
				val  string
				num  int64
			}
			var wants []want
			pipe := c.Pipeline()
			var cmds []redis.Cmder
			for i := 0; i < 10000; i++ {
				k := "p:" + strconv.Itoa(rng.Intn(200))
				switch rng.Intn(4) {
				case 0:
					v := strconv.Itoa(rng.Intn(1000))
					cmds = append(cmds, pipe.Set(ctx, k, v, 0))
					model[k] = v
					wants = append(wants, want{kind: "ok"})
				case 1:
					cmds = append(cmds, pipe.Get(ctx, k))
					v, ok := model[k]
					if ok {
						wants = append(wants, want{kind: "str", val: v})
					} else {
						wants = append(wants, want{kind: "nil"})
					}
				case 2:
					cmds = append(cmds, pipe.Incr(ctx, k))
					cur, _ := strconv.ParseInt(model[k], 10, 64)
					if _, ok := model[k]; !ok {
						cur = 0
					}
					cur++
					model[k] = strconv.FormatInt(cur, 10)
					wants = append(wants, want{kind: "int", num: cur})
				case 3:
					cmds = append(cmds, pipe.Del(ctx, k))
					_, ok := model[k]
					delete(model, k)
					if ok {
						wants = append(wants, want{kind: "int", num: 1})
					} else {
						wants = append(wants, want{kind: "int", num: 0})
					}
				}
			}
			if _, err := pipe.Exec(ctx); err != nil && err != redis.Nil {
				t.Fatal(err)
			}
			for i, cmd := range cmds {
				w := wants[i]
				switch w.kind {
				case "ok":
					if cmd.(*redis.StatusCmd).Val() != "OK" {
						t.Fatalf("reply %d (%v): %v", i, cmd.Args(), cmd)
					}
				case "str":
					if v := cmd.(*redis.StringCmd).Val(); v != w.val {
						t.Fatalf("reply %d (%v) = %q, want %q", i, cmd.Args(), v, w.val)
					}
				case "nil":
					if cmd.Err() != redis.Nil {
						t.Fatalf("reply %d (%v) = %v, want nil", i, cmd.Args(), cmd)
					}
				case "int":
					if v := cmd.(*redis.IntCmd).Val(); v != w.num {
						t.Fatalf("reply %d (%v) = %d, want %d", i, cmd.Args(), v, w.num)
					}
				}
			}
		})
	}
}

// TestConcurrentIncr runs 50 clients doing 1,000 INCRs each over keys on
// every shard; the totals must be exact.
func TestConcurrentIncr(t *testing.T) {
	for _, n := range shardCounts {
		t.Run(fmt.Sprintf("shards=%d", n), func(t *testing.T) {
			srv := startServer(t, nil, "--shards", strconv.Itoa(n))
			ctx := context.Background()
			const clients, per, keys = 50, 1000, 16
			var wg sync.WaitGroup
			errs := make(chan error, clients)
			for i := 0; i < clients; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					c := redis.NewClient(&redis.Options{Addr: srv.addr, PoolSize: 1})
					defer c.Close()
					for j := 0; j < per; j++ {
						if err := c.Incr(ctx, "ctr:"+strconv.Itoa((i+j)%keys)).Err(); err != nil {
							errs <- err
							return
						}
					}
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			c := srv.client(t, 2)
			var total int64
			for k := 0; k < keys; k++ {
				v, err := c.Get(ctx, "ctr:"+strconv.Itoa(k)).Int64()
				if err != nil {
					t.Fatal(err)
				}
				total += v
			}
			if total != clients*per {
				t.Fatalf("total = %d, want %d", total, clients*per)
			}
		})
	}
}

// TestHelpSubcommands checks every HELP subcommand: an array of status lines
// that opens with the command's usage line and closes with HELP's own entry,
// as Redis answers.
func TestHelpSubcommands(t *testing.T) {
	s := startServer(t, nil, "--shards", "2", "--enable-debug-command", "yes")
	c := s.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, cmd := range []string{"CLIENT", "COMMAND", "CONFIG", "DEBUG", "OBJECT", "MEMORY"} {
		v, err := c.Do(ctx, cmd, "HELP").StringSlice()
		if err != nil {
			t.Errorf("%s HELP: %v", cmd, err)
			continue
		}
		if len(v) < 3 || !strings.HasPrefix(v[0], cmd+" <subcommand>") || v[len(v)-2] != "HELP" ||
			v[len(v)-1] != "    Print this help." {
			t.Errorf("%s HELP answered %q", cmd, v)
		}
	}
}

// TestStopRightAfterReady sends SIGTERM the moment the ready line is read, as
// a supervisor may: the signal must already be caught and the exit clean.
func TestStopRightAfterReady(t *testing.T) {
	for range 5 {
		s := startServer(t, nil, "--shards", "2")
		s.stop(t)
		if t.Failed() {
			return
		}
	}
}
