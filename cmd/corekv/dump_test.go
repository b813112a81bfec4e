package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestDumpRestoreWithRedis makes random values of every type and encoding
// in one server, DUMPs them there, RESTOREs them into the other and
// compares them element by element, with their encodings and TTLs: from
// redis-server into corekv, and from corekv into redis-server.
func TestDumpRestoreWithRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	rc := redis.NewClient(&redis.Options{Addr: compatStartRedis(t, redisPath), Protocol: 2})
	kc := redis.NewClient(&redis.Options{Addr: compatStartCorekv(t, bin, 2).addr, Protocol: 2})
	defer rc.Close()
	defer kc.Close()
	ctx := context.Background()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	deadline := time.Now().Add(20 * time.Second)
	for _, dir := range []struct {
		name     string
		from, to *redis.Client
	}{{"redis to corekv", rc, kc}, {"corekv to redis", kc, rc}} {
		t.Run(dir.name, func(t *testing.T) {
			for i := 0; i < 300 && time.Now().Before(deadline); i++ {
				key := fmt.Sprintf("k%d", i)
				dumpRandomValue(t, ctx, rng, dir.from, key)
				p, err := dir.from.Dump(ctx, key).Result()
				if err != nil {
					t.Fatalf("DUMP %s: %v", key, err)
				}
				ttl := dir.from.PTTL(ctx, key).Val()
				if ttl < 0 {
					ttl = 0
				}
				if err := dir.to.RestoreReplace(ctx, key, ttl, p).Err(); err != nil {
					t.Fatalf("RESTORE %s of DUMP %q: %v", key, p, err)
				}
				// The encoding to expect is the one the source gives the
				// payload when it restores it itself: a value's own encoding
				// can depend on its history (an HSET whose long value a later
				// pair of the same command replaced), a restored one only on
				// its contents.
				copyKey := key + ":restored"
				if err := dir.from.RestoreReplace(ctx, copyKey, 0, p).Err(); err != nil {
					t.Fatalf("RESTORE %s into its source: %v", key, err)
				}
				want, got := dumpValueOf(t, ctx, dir.from, copyKey), dumpValueOf(t, ctx, dir.to, key)
				dir.from.Del(ctx, copyKey)
				if orig := dumpValueOf(t, ctx, dir.from, key); withoutEncoding(orig) != withoutEncoding(got) {
					t.Fatalf("%s after RESTORE:\n got %.300s\nwant %.300s", key, got, orig)
				}
				if got != want {
					t.Fatalf("%s after RESTORE:\n got %.300s\nwant %.300s", key, got, want)
				}
				if ttl > 0 {
					if d := dir.to.PTTL(ctx, key).Val(); d <= 0 || d > ttl || ttl-d > 5*time.Second {
						t.Errorf("%s: PTTL %v after restoring with %v", key, d, ttl)
					}
				}
			}
		})
	}
}

// dumpElem returns a random element: a small or large integer, a short or
// long string, binary bytes, or a long repetitive one (which Redis
// compresses).
func dumpElem(rng *rand.Rand) string {
	switch rng.IntN(7) {
	case 0:
		return strconv.Itoa(rng.IntN(200) - 100)
	case 1:
		return strconv.FormatInt(rng.Int64()-math.MaxInt64/2, 10)
	case 2:
		return fmt.Sprintf("e%d", rng.IntN(1000))
	case 3:
		b := make([]byte, rng.IntN(30))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return string(b)
	case 4:
		return strings.Repeat(string(rune('a'+rng.IntN(26))), 20+rng.IntN(200))
	case 5:
		return fmt.Sprintf("%d.%d", rng.IntN(100), rng.IntN(100))
	}
	return fmt.Sprintf("near-%s", strings.Repeat("x", 55+rng.IntN(15))) // about the 64-byte listpack limit
}

// dumpSize is how many elements a random aggregate gets: few, around the
// listpack and intset limits, or many.
func dumpSize(rng *rand.Rand) int {
	switch rng.IntN(5) {
	case 0, 4:
		return 1 + rng.IntN(5)
	case 1:
		return 100 + rng.IntN(50)
	case 2:
		return 500 + rng.IntN(30)
	}
	return 1 + rng.IntN(3000)
}

// dumpRandomValue writes a random value under key.
func dumpRandomValue(t *testing.T, ctx context.Context, rng *rand.Rand, c *redis.Client, key string) {
	t.Helper()
	c.Del(ctx, key)
	n := dumpSize(rng)
	var err error
	switch rng.IntN(6) {
	case 0:
		err = c.Set(ctx, key, dumpElem(rng), 0).Err()
	case 1:
		args := make([]any, n)
		for i := range args {
			args[i] = dumpElem(rng)
		}
		err = c.RPush(ctx, key, args...).Err()
	case 2:
		args := make([]any, n)
		for i := range args {
			if rng.IntN(10) == 0 {
				args[i] = dumpElem(rng)
			} else {
				args[i] = rng.IntN(100000) - 50000 // mostly integers: intsets
			}
		}
		err = c.SAdd(ctx, key, args...).Err()
	case 3:
		args := make([]any, 0, 2*n)
		for range n {
			args = append(args, dumpElem(rng), dumpElem(rng))
		}
		err = c.HSet(ctx, key, args...).Err()
	case 4:
		zs := make([]redis.Z, n)
		for i := range zs {
			s := float64(rng.IntN(100))
			switch rng.IntN(5) {
			case 0:
				s = rng.NormFloat64() * 1e6
			case 1:
				s = math.Inf(1 - 2*rng.IntN(2))
			}
			zs[i] = redis.Z{Score: s, Member: dumpElem(rng)}
		}
		err = c.ZAdd(ctx, key, zs...).Err()
	default:
		err = c.Set(ctx, key, strconv.Itoa(rng.IntN(1<<20)-1<<19), 0).Err()
	}
	if err != nil {
		t.Fatalf("writing %s: %v", key, err)
	}
	if rng.IntN(3) == 0 {
		c.PExpire(ctx, key, time.Duration(1000+rng.IntN(1e6))*time.Second)
	}
}

// dumpValueOf describes the value at key: its type, encoding and elements
// (a set's and a hash's sorted).
// withoutEncoding is dumpValueOf's description without the encoding.
func withoutEncoding(desc string) string {
	typ, rest, _ := strings.Cut(desc, " ")
	_, rest, _ = strings.Cut(rest, " ")
	return typ + " " + rest
}

func dumpValueOf(t *testing.T, ctx context.Context, c *redis.Client, key string) string {
	t.Helper()
	typ := c.Type(ctx, key).Val()
	enc := c.ObjectEncoding(ctx, key).Val()
	var elems []string
	var err error
	switch typ {
	case "string":
		var s string
		s, err = c.Get(ctx, key).Result()
		elems = []string{s}
	case "list":
		elems, err = c.LRange(ctx, key, 0, -1).Result()
	case "set":
		elems, err = c.SMembers(ctx, key).Result()
		slices.Sort(elems)
	case "hash":
		var m map[string]string
		m, err = c.HGetAll(ctx, key).Result()
		for f, v := range m {
			elems = append(elems, f+"="+v)
		}
		slices.Sort(elems)
	case "zset":
		var zs []redis.Z
		zs, err = c.ZRangeWithScores(ctx, key, 0, -1).Result()
		for _, z := range zs {
			elems = append(elems, fmt.Sprintf("%v %v", z.Member, z.Score))
		}
	}
	if err != nil {
		t.Fatalf("reading %s: %v", key, err)
	}
	return fmt.Sprintf("%s %s %d %q", typ, enc, len(elems), elems)
}

// debugObjectFields returns the names of DEBUG OBJECT's fields, in order,
// and the fields by name.
func debugObjectFields(t *testing.T, c *redis.Client, key string) ([]string, map[string]string) {
	t.Helper()
	line, err := c.Do(context.Background(), "DEBUG", "OBJECT", key).Text()
	if err != nil {
		t.Fatalf("DEBUG OBJECT %s: %v", key, err)
	}
	var names []string
	fields := map[string]string{}
	for _, f := range strings.Fields(strings.TrimPrefix(line, "Value ")) {
		name, val, _ := strings.Cut(f, ":")
		names = append(names, name)
		fields[name] = val
	}
	return names, fields
}

// TestDebugObject compares DEBUG OBJECT's fields with redis-server's for a
// value of each type on a two-shard corekv: the same names in the same
// order and the same encoding; a short string's serializedlength as
// Redis's, a long one's compressed (the LZF output differs); an
// INCR changes an integer in place, so its address stays.
func TestDebugObject(t *testing.T) {
	ctx := context.Background()
	rc, kc := redisAndCorekv(t, 2)
	setup := [][]any{
		{"SET", "str", "hello"}, {"SET", "num", "20000"}, {"SET", "long", strings.Repeat("x", 100)},
		{"RPUSH", "list", "a", "b", "c"}, {"HSET", "hash", "f", "v"}, {"SADD", "ints", "1", "2"},
		{"SADD", "set", "a"}, {"ZADD", "zset", "1", "m"},
	}
	for _, c := range []*redis.Client{rc, kc} {
		for _, args := range setup {
			if err := c.Do(ctx, args...).Err(); err != nil {
				t.Fatalf("%v: %v", args, err)
			}
		}
	}
	for _, key := range []string{"str", "num", "long", "list", "hash", "ints", "set", "zset"} {
		rn, rf := debugObjectFields(t, rc, key)
		kn, kf := debugObjectFields(t, kc, key)
		if !slices.Equal(rn, kn) {
			t.Errorf("%s: fields %v, redis-server %v", key, kn, rn)
		}
		if rf["encoding"] != kf["encoding"] {
			t.Errorf("%s: encoding %s, redis-server %s", key, kf["encoding"], rf["encoding"])
		}
		if key == "str" || key == "num" {
			if rf["serializedlength"] != kf["serializedlength"] {
				t.Errorf("%s: serializedlength %s, redis-server %s", key, kf["serializedlength"], rf["serializedlength"])
			}
		}
		if n, _ := strconv.Atoi(kf["serializedlength"]); key == "long" && (n == 0 || n >= 100) {
			t.Errorf("long: serializedlength %s, not compressed", kf["serializedlength"])
		}
		if !strings.HasPrefix(kf["at"], "0x") {
			t.Errorf("%s: address %q", key, kf["at"])
		}
	}
	_, before := debugObjectFields(t, kc, "num")
	kc.Incr(ctx, "num")
	_, after := debugObjectFields(t, kc, "num")
	if before["at"] != after["at"] {
		t.Errorf("INCR moved the value: at %s, then %s", before["at"], after["at"])
	}
	for _, c := range []*redis.Client{rc, kc} {
		if err := c.Do(ctx, "DEBUG", "OBJECT", "missing").Err(); err == nil || err.Error() != "ERR no such key" {
			t.Errorf("DEBUG OBJECT missing: %v", err)
		}
	}
}
