package shardowner

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/resp"
)

func arr(items ...string) string {
	return "*" + strconv.Itoa(len(items)) + "\r\n" + strings.Join(items, "")
}

func TestHashScript(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"hset h a 1 b 2 c 3", num(3)},
		{"hset h a 10 d 4", num(1)},
		{"hgetall h", arr(bulk("a"), bulk("10"), bulk("b"), bulk("2"), bulk("c"), bulk("3"), bulk("d"), bulk("4"))},
		{"hlen h", num(4)},
		{"hget h a", bulk("10")},
		{"hget h zz", null},
		{"hget nokey a", null},
		{"hmget h a zz d", arr(bulk("10"), null, bulk("4"))},
		{"hmget nokey a", arr(null)},
		{"hexists h b", num(1)},
		{"hexists h zz", num(0)},
		{"hstrlen h a", num(2)},
		{"hstrlen h zz", num(0)},
		{"hsetnx h a 99", num(0)},
		{"hsetnx h e 5", num(1)},
		{"hdel h b zz b", num(1)},
		{"hkeys h", arr(bulk("a"), bulk("c"), bulk("d"), bulk("e"))},
		{"hvals h", arr(bulk("10"), bulk("3"), bulk("4"), bulk("5"))},
		{"hincrby h a 5", num(15)},
		{"hincrby h new -3", num(-3)},
		{"hincrby h a x", errr(resp.ErrNotInteger)},
		{"hincrby h a 9223372036854775807", errr(resp.ErrOverflow)},
		{"hincrbyfloat h a 0.5", bulk("15.5")},
		{"hincrby h a 1", errr(errHashNotInt)},
		{"hincrbyfloat h f 1e3", bulk("1000")},
		{"hincrbyfloat h f inf", errr(errNaNOrInf)},
		{"hset h s abc", num(1)},
		{"hincrbyfloat h s 1", errr(errHashNotFloat)},
		{"object encoding h", bulk("listpack")},
		{"type h", "+hash\r\n"},
		{"hmset h a 1", ok},
		{"hset h a", errr(resp.ErrWrongArgs("hset"))},
		{"hdel h a c d e new f s", num(7)},
		{"exists h", num(0)},
		{"hlen h", num(0)},
		{"hgetall h", arr()},
		// Strings and hashes refuse each other's commands.
		{"set s v", ok},
		{"hget s a", errr(resp.ErrWrongType)},
		{"hset s a 1", errr(resp.ErrWrongType)},
		{"hset h2 a 1", num(1)},
		{"get h2", errr(resp.ErrWrongType)},
		{"append h2 x", errr(resp.ErrWrongType)},
		{"incr h2", errr(resp.ErrWrongType)},
		{"strlen h2", errr(resp.ErrWrongType)},
		{"mget h2 s", arr(null, bulk("v"))},
		{"set h2 v", ok},
		{"type h2", "+string\r\n"},
		// RESP3: HGETALL is a map.
		{"hset h3 x 1", num(1)},
		{"@resp 3", ""},
		{"hgetall h3", "%1\r\n" + bulk("x") + bulk("1")},
		{"hgetall nokey", "%0\r\n"},
		{"hrandfield h3 1 withvalues", arr(arr(bulk("x"), bulk("1")))},
	})
}

// A hash leaves the packed encoding past either threshold, keeps its TTL
// and its fields, and never comes back.
func TestHashConversion(t *testing.T) {
	c := newTestCtx()
	c.Shard.Enc.HashMaxEntries.Store(3)
	c.Shard.Enc.HashMaxValue.Store(5)
	steps := []step{
		{"hset h a 1 b 2 c 3", num(3)},
		{"pexpire h 5000", num(1)},
		{"object encoding h", bulk("listpack")},
		{"hset h c 33", num(0)},
		{"object encoding h", bulk("listpack")},
		{"hset h d 4", num(1)},
		{"object encoding h", bulk("hashtable")},
		{"pttl h", num(5000)},
		{"hlen h", num(4)},
		{"hget h c", bulk("33")},
		{"hdel h a b c", num(3)},
		{"object encoding h", bulk("hashtable")},
		{"hgetall h", arr(bulk("d"), bulk("4"))},
		{"hdel h d", num(1)},
		{"exists h", num(0)},
		// A value of exactly the limit stays packed; one byte more does not.
		{"hset v f 12345", num(1)},
		{"object encoding v", bulk("listpack")},
		{"hset v f 123456", num(0)},
		{"object encoding v", bulk("hashtable")},
		{"hget v f", bulk("123456")},
		{"hset k 123456 x", num(1)},
		{"object encoding k", bulk("hashtable")},
		// HSETNX of a field that is there changes nothing, encoding included.
		{"hset n a 1 b 2 c 3", num(3)},
		{"hsetnx n a 123456", num(0)},
		{"object encoding n", bulk("listpack")},
		// So does HINCRBY's new value, as any write.
		{"hincrby n d 1234567", num(1234567)},
		{"object encoding n", bulk("hashtable")},
		{"hincrby n d 1", num(1234568)},
		{"hincrbyfloat n d 0.5", bulk("1234568.5")},
		{"hstrlen n d", num(9)},
		// A threshold lowered below a hash's size converts it at its next
		// write, even one that adds nothing.
		{"hset m a 1 b 2 c 3", num(3)},
		{"object encoding m", bulk("listpack")},
		{"@entries 2", ""},
		{"hset m a 2", num(0)},
		{"object encoding m", bulk("hashtable")},
	}
	for i, st := range steps {
		if st.cmd == "@entries 2" {
			runScript(t, c, steps[:i])
			c.Shard.Enc.HashMaxEntries.Store(2)
			runScript(t, c, steps[i+1:])
		}
	}
	if err := c.Table().Check(); err != nil {
		t.Fatal(err)
	}
}

// A big hash moves with RENAME and MOVE, is copied by COPY, and crosses
// shards through the dump/restore blob still big.
func TestBigHashKeyCommands(t *testing.T) {
	c := newTestCtx()
	c.Shard.Enc.HashMaxEntries.Store(2)
	do(c, "hset", "h", "a", "1", "b", "2", "c", "3")
	runScript(t, c, []step{
		{"object encoding h", bulk("hashtable")},
		{"rename h r", ok},
		{"hlen r", num(3)},
		{"copy r cp", num(1)},
		{"hset cp d 4", num(1)},
		{"hlen r", num(3)},
		{"hlen cp", num(4)},
		{"object encoding cp", bulk("hashtable")},
		{"move cp 1", num(1)},
		{"exists cp", num(0)},
		{"@db 1", ""},
		{"hlen cp", num(4)},
		{"copy cp r db 0", num(0)},
		{"copy cp r db 0 replace", num(1)},
		{"@db 0", ""},
		{"hlen r", num(4)},
		{"type r", "+hash\r\n"},
		{"scan 0 type hash", arr(bulk("0"), arr(bulk("r")))},
		{"del r", num(1)},
	})
	for _, db := range c.Shard.DBs {
		if err := db.Check(); err != nil {
			t.Fatal(err)
		}
	}

	// Across shards: the blob rebuilds the hash big, whatever the
	// destination's thresholds, as a COPY keeps the encoding in Redis.
	src, dst := newTestCtx(), newTestCtx()
	src.Shard.Enc.HashMaxEntries.Store(2)
	do(src, "hset", "big", "a", "1", "b", "2", "c", "3")
	do(src, "hset", "small", "x", "1")
	do(src, "pexpire", "small", "7000")
	for _, key := range []string{"big", "small"} {
		blob, _ := readBulk(t, do(src, "corekv.take", key))
		if got := do(dst, "corekv.restore", key, blob, "any"); got != num(1) {
			t.Fatalf("restore %s: %q", key, got)
		}
	}
	runScript(t, dst, []step{
		{"object encoding big", bulk("hashtable")},
		{"hget big c", bulk("3")},
		{"hlen big", num(3)},
		{"object encoding small", bulk("listpack")},
		{"hgetall small", arr(bulk("x"), bulk("1"))},
		{"pttl small", num(7000)},
	})
	if err := dst.Table().Check(); err != nil {
		t.Fatal(err)
	}
	// A malformed packed list is refused, not stored.
	bad := EncodeValue(nil, Value{Kind: KindHash, Str: []byte{3, 1, 'a'}})
	if got := do(dst, "corekv.restore", "bad", string(bad), "any"); got != errr(errBadBlob) {
		t.Fatalf("bad packed hash: %q", got)
	}
}

// Hashes well past every threshold: many fields, long values, fields that
// come and go, HSCAN to the end, and every field found again.
func TestBigHash(t *testing.T) {
	c := newTestCtx()
	const n = 20_000
	for i := 0; i < n; i += 100 {
		argv := []string{"hset", "h"}
		for j := i; j < i+100; j++ {
			argv = append(argv, "field:"+strconv.Itoa(j), strings.Repeat("v", j%100))
		}
		if got := do(c, argv...); got != num(100) {
			t.Fatalf("hset at %d: %q", i, got)
		}
	}
	if got := do(c, "hlen", "h"); got != num(n) {
		t.Fatalf("hlen %q", got)
	}
	if got := do(c, "hget", "h", "field:12345"); got != bulk(strings.Repeat("v", 45)) {
		t.Fatalf("hget %q", got)
	}
	if got := do(c, "hincrby", "h", "field:0", "7"); got != errr(errHashNotInt) {
		t.Fatalf("hincrby of an empty value: %q", got)
	}
	seen := map[string]bool{}
	cursor := "0"
	for round := 0; ; round++ {
		if round > n {
			t.Fatal("HSCAN does not end")
		}
		reply := do(c, "hscan", "h", cursor, "COUNT", "500")
		next, rest := readBulk(t, strings.TrimPrefix(reply, "*2\r\n"))
		hdr, body, _ := strings.Cut(rest, "\r\n")
		k, _ := strconv.Atoi(hdr[1:])
		for range k / 2 {
			var f string
			f, body = readBulk(t, body)
			_, body = readBulk(t, body)
			seen[f] = true
		}
		if cursor = next; cursor == "0" {
			break
		}
	}
	if len(seen) != n {
		t.Fatalf("HSCAN saw %d fields, want %d", len(seen), n)
	}
	// Distinct random fields: as many as asked, all different.
	reply := do(c, "hrandfield", "h", "100")
	fields := map[string]bool{}
	body := strings.TrimPrefix(reply, "*100\r\n")
	for range 100 {
		var f string
		f, body = readBulk(t, body)
		fields[f] = true
	}
	if len(fields) != 100 || body != "" {
		t.Fatalf("HRANDFIELD 100 gave %d distinct fields", len(fields))
	}
	if got := do(c, "hrandfield", "h", "-1048577"); got != errr(errOutOfRange) {
		t.Fatalf("HRANDFIELD past the repeat bound: %q", got)
	}
	usage := do(c, "memory", "usage", "h")
	if m, _ := strconv.Atoi(strings.Trim(usage, ":\r\n")); m < n*20 {
		t.Fatalf("MEMORY USAGE of a big hash %q does not count its fields", usage)
	}
	if err := c.Table().Check(); err != nil {
		t.Fatal(err)
	}
	before := c.Shard.OffHeapBytes()
	do(c, "del", "h")
	if after := c.Shard.OffHeapBytes(); after >= before || c.Table().ArenaBytes() > 64<<10 {
		t.Fatalf("deleting the hash kept its memory: off-heap %d -> %d, arena %d", before, after, c.Table().ArenaBytes())
	}
}

// HRANDFIELD: the forms and errors, and the whole hash in its order when the
// count reaches its size.
func TestHRandField(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"hrandfield nokey", null},
		{"hrandfield nokey 3", arr()},
		{"hset h a 1 b 2 c 3", num(3)},
		{"hrandfield h 0", arr()},
		{"hrandfield h 3", arr(bulk("a"), bulk("b"), bulk("c"))},
		{"hrandfield h 10 withvalues", arr(bulk("a"), bulk("1"), bulk("b"), bulk("2"), bulk("c"), bulk("3"))},
		{"hrandfield h x", errr(resp.ErrNotInteger)},
		{"hrandfield h 1 foo", errr(resp.ErrSyntax)},
		{"hrandfield h 1 withvalues x", errr(resp.ErrSyntax)},
		{"hrandfield h -9223372036854775808", errr(errRandRange)},
		{"hrandfield h -4611686018427387904 withvalues", errr(errOutOfRange)},
		{"hrandfield h 4611686018427387904 withvalues", errr(errOutOfRange)},
		{"set s v", ok},
		{"hrandfield s", errr(resp.ErrWrongType)},
		{"hrandfield s 0", errr(resp.ErrWrongType)},
	})
	for _, count := range []string{"-5", "2"} {
		reply := do(c, "hrandfield", "h", count, "withvalues")
		n := 5
		if count == "2" {
			n = 2
		}
		body := strings.TrimPrefix(reply, "*"+strconv.Itoa(2*n)+"\r\n")
		seen := map[string]bool{}
		for range n {
			var f, v string
			f, body = readBulk(t, body)
			v, body = readBulk(t, body)
			if map[string]string{"a": "1", "b": "2", "c": "3"}[f] != v {
				t.Fatalf("HRANDFIELD %s: field %q with value %q", count, f, v)
			}
			seen[f] = true
		}
		if body != "" || (count == "2" && len(seen) != 2) {
			t.Fatalf("HRANDFIELD %s: %q", count, reply)
		}
	}
}

func TestHScan(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"hscan nokey 0", arr(bulk("0"), arr())},
		{"hscan nokey x", errr(resp.ErrCursor)},
		{"hset h f1 a f2 b g c", num(3)},
		{"hscan h 0", arr(bulk("0"), arr(bulk("f1"), bulk("a"), bulk("f2"), bulk("b"), bulk("g"), bulk("c")))},
		{"hscan h 0 match f*", arr(bulk("0"), arr(bulk("f1"), bulk("a"), bulk("f2"), bulk("b")))},
		{"hscan h 0 count 0", errr(resp.ErrSyntax)},
		{"hscan h 0 count x", errr(resp.ErrNotInteger)},
		{"hscan h 0 type string", errr(resp.ErrSyntax)},
		{"hscan h 0 match", errr(resp.ErrSyntax)},
		{"set s v", ok},
		{"hscan s 0", errr(resp.ErrWrongType)},
	})
}

// One HSET of many new fields converts the hash as soon as it passes
// hash-max-listpack-entries, as Redis does, instead of searching an
// ever longer packed list for each field: 100k fields take milliseconds,
// not the minutes a quadratic search would.
func TestHSetManyFieldsConverts(t *testing.T) {
	c := newTestCtx()
	argv := []string{"hset", "h"}
	for i := range 100_000 {
		argv = append(argv, "field:"+strconv.Itoa(i), "v")
	}
	start := time.Now()
	if got := do(c, argv...); got != num(100_000) {
		t.Fatalf("hset: %q", got)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("HSET of 100k fields took %v", d)
	}
	if got := do(c, "object", "encoding", "h"); got != bulk("hashtable") {
		t.Fatalf("encoding %q", got)
	}
}
