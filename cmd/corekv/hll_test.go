package main

import (
	"context"
	"fmt"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestHLLCompat drives corekv (three shards) and redis-server with the same
// random PFADD streams, sparse and dense, then PFCOUNT of one and several
// keys and PFMERGE, and compares every reply and the raw strings byte for
// byte: a HyperLogLog is a string clients and replicas see.
func TestHLLCompat(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	ctx := context.Background()
	rc := redis.NewClient(&redis.Options{Addr: compatStartRedis(t, redisPath), Protocol: 2})
	t.Cleanup(func() { rc.Close() })
	kc := startServer(t, nil, "--shards", "3").client(t, 2)
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewSource(seed))
	// Tagged keys share a shard; the untagged ones spread over the three.
	keys := []string{"{h}a", "{h}b", "{h}c", "h1", "h2", "h3", "h4"}
	deadline := time.Now().Add(20 * time.Second)

	do := func(args ...any) {
		t.Helper()
		want, werr := rc.Do(ctx, args...).Result()
		got, gerr := kc.Do(ctx, args...).Result()
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || !reflect.DeepEqual(want, got) {
			t.Fatalf("%v: redis %v, %v; corekv %v, %v", args, want, werr, got, gerr)
		}
	}
	sameStrings := func() {
		t.Helper()
		for _, k := range keys {
			do("GET", k)
		}
	}
	for round := 0; round < 12 && time.Now().Before(deadline); round++ {
		do("FLUSHALL")
		if round%4 == 3 {
			do("CONFIG", "SET", "hll-sparse-max-bytes", strconv.Itoa(r.Intn(6000)))
		} else {
			do("CONFIG", "SET", "hll-sparse-max-bytes", "3000")
		}
		for _, k := range keys {
			// Sizes from none to 200k, most of them small enough to stay
			// sparse.
			n := []int{0, 1 + r.Intn(50), r.Intn(500), r.Intn(3000), r.Intn(20000), r.Intn(200000)}[r.Intn(6)]
			if r.Intn(3) == 0 {
				n = min(n, 300)
			}
			prefix := strconv.Itoa(r.Intn(4)) // overlap between keys
			if n == 0 {
				do("PFADD", k)
			}
			for i := 0; i < n; {
				batch := min(n-i, 1+r.Intn(2000))
				args := []any{"PFADD", k}
				for j := 0; j < batch; j++ {
					args = append(args, prefix+":"+strconv.Itoa(r.Intn(2*n+1)))
				}
				do(args...)
				i += batch
				if r.Intn(8) == 0 {
					do("PFCOUNT", k)
				}
			}
			do("PFDEBUG", "ENCODING", k)
		}
		sameStrings()
		for _, k := range keys {
			do("PFCOUNT", k)
		}
		sameStrings() // the cached cardinalities
		for i := 0; i < 6; i++ {
			a, b, c := keys[r.Intn(len(keys))], keys[r.Intn(len(keys))], keys[r.Intn(len(keys))]
			do("PFCOUNT", a, b, c, "missing")
			do("PFMERGE", a, b, c)
			do("PFMERGE", "m"+strconv.Itoa(i), a, b)
			do("PFCOUNT", a)
			do("GET", a)
			do("GET", "m"+strconv.Itoa(i))
		}
		sameStrings()
	}
}
