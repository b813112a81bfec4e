package main

import (
	"fmt"
	"math/rand"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/shardowner/script"
)

// TestRandomScriptDiff sends the same random scripts to redis-server and to
// corekv on 1 and 3 shards and compares every reply byte for byte: values
// of every Lua type converted to RESP2 and RESP3 (redis.setresp), replies of
// commands converted to Lua and back, errors raised, returned and caught
// by pcall, and the libraries' round trips. Its keys share a hash tag, and
// tables are arrays (Lua's hash order is not Redis's; see
// shardowner/script/README.md). COREKV_DIFF_SEED replays a run; the seed is
// always logged.
func TestRandomScriptDiff(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	seed := diffEnvInt(t, "COREKV_DIFF_SEED", time.Now().UnixNano()%1_000_000_000)
	const scripts = 400
	t.Logf("seed %d; replay with COREKV_DIFF_SEED=%d", seed, seed)
	bin := corekvBinary(t)
	for _, shards := range []int{1, 3} {
		srv := compatStartCorekv(t, bin, shards)
		rc, err := compatDial(redisAddr)
		if err != nil {
			t.Fatal(err)
		}
		kc, err := compatDial(srv.addr)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewSource(seed + int64(shards)))
		for _, c := range []compatCmd{compatS("FLUSHALL"), compatS("SCRIPT FLUSH")} {
			rc.do(c)
			kc.do(c)
		}
		for i := 0; i < scripts; i++ {
			body := randomScript(rng)
			cmd := compatA("EVAL", body, "2", "{r}a", "{r}b", randomWord(rng), strconv.Itoa(rng.Intn(100)-50))
			if rng.Intn(4) == 0 {
				cmd = compatA("EVALSHA", script.SHA1Hex([]byte(body)), "2", "{r}a", "{r}b", "x", "7")
			}
			w, err := rc.do(cmd)
			if err != nil {
				t.Fatal(err)
			}
			g, err := kc.do(cmd)
			if err != nil {
				t.Fatalf("shards %d, script %d: corekv: %v\n%s", shards, i, err, body)
			}
			if string(g.raw) != string(w.raw) {
				t.Fatalf("shards %d, seed %d, script %d:\n%s\n got %q\nwant %q", shards, seed, i, body, g.raw, w.raw)
			}
		}
		rc.close()
		kc.close()
	}
}

func randomWord(rng *rand.Rand) string {
	return []string{"", "x", "hello", "12", "-3", "3.5", "a b", "\x00z"}[rng.Intn(8)]
}

// randomScript is a few statements that change the two keys, then a return
// of a random value.
func randomScript(rng *rand.Rand) string {
	var b strings.Builder
	if rng.Intn(3) == 0 {
		b.WriteString("redis.setresp(3)\n")
	}
	for n := rng.Intn(4); n > 0; n-- {
		b.WriteString(randomStatement(rng))
		b.WriteByte('\n')
	}
	b.WriteString("return " + randomValue(rng, 0))
	return b.String()
}

func randomStatement(rng *rand.Rand) string {
	key := []string{"KEYS[1]", "KEYS[2]"}[rng.Intn(2)]
	switch rng.Intn(8) {
	case 0:
		return fmt.Sprintf("redis.call('set', %s, ARGV[%d])", key, 1+rng.Intn(2))
	case 1:
		return fmt.Sprintf("redis.pcall('incrby', %s, %d)", key, rng.Intn(10)-3)
	case 2:
		return fmt.Sprintf("redis.pcall('rpush', %s, 'e%d', ARGV[1])", key, rng.Intn(5))
	case 3:
		return fmt.Sprintf("redis.call('del', %s)", key)
	case 4:
		return fmt.Sprintf("redis.pcall('hset', %s, 'f', %d)", key, rng.Intn(9))
	case 5:
		return fmt.Sprintf("redis.pcall('sadd', %s, %d)", key, rng.Intn(3))
	case 6:
		return fmt.Sprintf("redis.call('expire', %s, 100)", key)
	}
	return "local _ = redis.call('exists', KEYS[1], KEYS[2])"
}

func randomValue(rng *rand.Rand, depth int) string {
	key := []string{"KEYS[1]", "KEYS[2]"}[rng.Intn(2)]
	n := 22
	if depth > 2 {
		n = 14
	}
	switch rng.Intn(n) {
	case 0:
		return strconv.Itoa(rng.Intn(2000) - 1000)
	case 1:
		return strconv.FormatFloat(rng.Float64()*100-50, 'f', 3, 64)
	case 2:
		return strconv.Quote(randomWord(rng))
	case 3:
		return []string{"true", "false", "nil"}[rng.Intn(3)]
	case 4:
		return fmt.Sprintf("redis.pcall('get', %s)", key)
	case 5:
		return fmt.Sprintf("redis.pcall('lrange', %s, 0, -1)", key)
	case 6:
		return fmt.Sprintf("redis.pcall('incr', %s)", key)
	case 7:
		return fmt.Sprintf("redis.pcall('ttl', %s)", key)
	case 8:
		return fmt.Sprintf("redis.pcall('type', %s)", key)
	case 9:
		return fmt.Sprintf("redis.pcall('scard', %s)", key) // not SMEMBERS: a set's order is unspecified
	case 10:
		return "ARGV[" + strconv.Itoa(1+rng.Intn(3)) + "]"
	case 11:
		return "#KEYS + #ARGV"
	case 12:
		return fmt.Sprintf("redis.sha1hex(%s)", strconv.Quote(randomWord(rng)))
	case 13:
		return fmt.Sprintf("bit.bxor(%d, %d)", rng.Intn(1<<20), rng.Intn(1<<20))
	case 14:
		return fmt.Sprintf("{ok=%s}", strconv.Quote("S"+randomWord(rng)))
	case 15:
		return fmt.Sprintf("{err=%s}", strconv.Quote("E"+randomWord(rng)))
	case 16:
		return fmt.Sprintf("redis.error_reply(%s)", strconv.Quote("CODE "+randomWord(rng)))
	case 17:
		return fmt.Sprintf("cjson.encode({%s})", randomList(rng, depth))
	case 18:
		return fmt.Sprintf("cmsgpack.unpack(cmsgpack.pack({%s}))", randomList(rng, depth))
	case 19:
		return fmt.Sprintf("{double=%s}", strconv.FormatFloat(rng.Float64()*10, 'f', 2, 64))
	case 20:
		// A scalar: a table's text is its address.
		return fmt.Sprintf("tostring(%s)", []string{strconv.Itoa(rng.Intn(99)), "1.5", "-0.25", "true", "nil", strconv.Quote(randomWord(rng))}[rng.Intn(6)])
	}
	return "{" + randomList(rng, depth) + "}"
}

func randomList(rng *rand.Rand, depth int) string {
	var items []string
	for n := rng.Intn(4); n > 0; n-- {
		items = append(items, randomValue(rng, depth+1))
	}
	return strings.Join(items, ", ")
}
