package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestActiveExpiryKeepsUp loads keys with a short TTL into several databases
// of a two-shard server, fast, and checks that active expiry removes nearly
// all of them within a few seconds of their TTL, with no client reading them.
func TestActiveExpiryKeepsUp(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dbs := []int{0, 5, 15}
	perDB := 300_000
	if raceBuild {
		perDB = 20_000
	}
	const ttl = 1500 * time.Millisecond
	clients := map[int]*redis.Client{}
	for _, db := range dbs {
		c := redis.NewClient(&redis.Options{Addr: s.addr, DB: db})
		t.Cleanup(func() { c.Close() })
		clients[db] = c
	}
	start := time.Now()
	for _, db := range dbs {
		c := clients[db]
		for from := 0; from < perDB; from += 10_000 {
			p := c.Pipeline()
			for i := from; i < from+10_000; i++ {
				p.Set(ctx, "px:"+strconv.Itoa(i), "v", ttl)
			}
			if _, err := p.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	loaded := time.Now()
	t.Logf("loaded %d keys in each of %d databases in %v", perDB, len(dbs), loaded.Sub(start).Round(time.Millisecond))

	// Every key has expired once the last one's TTL is past. From then on
	// the server has 2 s to delete them: expiry that keeps up needs a few
	// milliseconds, sampling that spreads a fixed budget over every
	// database took several seconds. Keys are only counted, never read.
	time.Sleep(time.Until(loaded.Add(ttl)))
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := map[int]int64{}
		total := int64(0)
		for _, db := range dbs {
			n, err := clients[db].DBSize(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			left[db] = n
			total += n
		}
		over := false
		for _, n := range left {
			over = over || n > int64(perDB/100)
		}
		if !over {
			t.Logf("%v after the last TTL: keys left per database %v", time.Since(loaded.Add(ttl)).Round(time.Millisecond), left)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 s after the last TTL, keys left per database: %v (of %d each)", left, perDB)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Every key deleted is counted as expired, and the keyspace agrees.
	var st map[string]int64
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if st = infoFields(t, ctx, clients[0], "stats"); st["expired_keys"] >= int64(len(dbs)*perDB*99/100) {
			break
		}
	}
	if st["expired_keys"] < int64(len(dbs)*perDB*99/100) {
		t.Fatalf("expired_keys %d after %d keys expired", st["expired_keys"], len(dbs)*perDB)
	}
}
