package shardowner

import (
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

// members reads an array or set reply of bulk strings, sorted.
func members(t *testing.T, reply string) []string {
	t.Helper()
	hdr, body, _ := strings.Cut(reply, "\r\n")
	n, err := strconv.Atoi(hdr[1:])
	if err != nil {
		t.Fatalf("not an aggregate: %q", reply)
	}
	out := make([]string, 0, n)
	for range n {
		var m string
		m, body = readBulk(t, body)
		out = append(out, m)
	}
	if body != "" {
		t.Fatalf("%q after the members", body)
	}
	sort.Strings(out)
	return out
}

func TestSetScript(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"sadd s 3 1 2 1", num(3)},
		{"object encoding s", bulk("intset")},
		{"smembers s", arr(bulk("1"), bulk("2"), bulk("3"))},
		{"scard s", num(3)},
		{"sismember s 2", num(1)},
		{"sismember s 02", num(0)},
		{"smismember s 1 x 3", arr(num(1), num(0), num(1))},
		{"sadd s a", num(1)},
		{"object encoding s", bulk("hashtable")},
		{"smembers s", arr(bulk("1"), bulk("2"), bulk("3"), bulk("a"))},
		{"srem s 1 x a", num(2)},
		{"object encoding s", bulk("hashtable")},
		{"srem s 2 3", num(2)},
		{"exists s", num(0)},
		{"scard s", num(0)},
		{"sadd w a 1", num(2)},
		{"object encoding w", bulk("hashtable")},
		{"spop nokey", null},
		{"spop nokey 2", arr()},
		{"spop w 0", arr()},
		{"spop w -1", errr(resp.ErrNotPositive)},
		{"spop w 1 2", errr(resp.ErrSyntax)},
		{"spop w x", errr(resp.ErrNotPositive)},
		{"spop w 5", arr(bulk("a"), bulk("1"))},
		{"exists w", num(0)},
		{"srandmember nokey", null},
		{"srandmember nokey 2", arr()},
		{"srandmember w 1 2", errr(resp.ErrSyntax)},
		{"srandmember w -9223372036854775808", errr(errRandRange)},
		{"srandmember w -1048577", errr(errOutOfRange)},
		{"set str v", ok},
		{"sadd str a", errr(resp.ErrWrongType)},
		{"smembers str", errr(resp.ErrWrongType)},
		{"sinter str nokey", errr(resp.ErrWrongType)},
		{"smove nokey str a", num(0)},
		{"sadd x 1", num(1)},
		{"smove x str 1", errr(resp.ErrWrongType)},
		{"smove str x 1", errr(resp.ErrWrongType)},
		{"smove x x 1", num(1)},
		{"smove x x 2", num(0)},
		{"smove x y 1", num(1)},
		{"exists x", num(0)},
		{"object encoding y", bulk("intset")},
		{"sadd hs a", num(1)},
		{"get hs", errr(resp.ErrWrongType)},
		{"hget hs a", errr(resp.ErrWrongType)},
		{"sscan y 0", arr(bulk("0"), arr(bulk("1")))},
		{"@resp 3", ""},
		{"smembers y", "~1\r\n" + bulk("1")},
		{"spop nokey 1", "~0\r\n"},
		{"sinter y", "~1\r\n" + bulk("1")},
		{"srandmember y 5", arr(bulk("1"))},
	})
}

func TestSetAlgebra(t *testing.T) {
	c := newTestCtx()
	do(c, "sadd", "a", "1", "2", "3", "x")
	do(c, "sadd", "b", "2", "3", "4")
	do(c, "sadd", "n", "2", "3")
	for _, tc := range []struct {
		cmd  []string
		want []string
	}{
		{[]string{"sinter", "a", "b"}, []string{"2", "3"}},
		{[]string{"sunion", "a", "b"}, []string{"1", "2", "3", "4", "x"}},
		{[]string{"sdiff", "a", "b"}, []string{"1", "x"}},
		{[]string{"sdiff", "b", "a", "nokey"}, []string{"4"}},
		{[]string{"sinter", "a", "nokey"}, []string{}},
		{[]string{"sunion", "nokey"}, []string{}},
	} {
		if got := members(t, do(c, tc.cmd...)); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%v = %v, want %v", tc.cmd, got, tc.want)
		}
	}
	runScript(t, c, []step{
		{"sinterstore d a b", num(2)},
		{"object encoding d", bulk("intset")},
		{"sunionstore d a b", num(5)},
		{"object encoding d", bulk("hashtable")},
		{"pexpire d 1000", num(1)},
		{"sdiffstore d a b", num(2)},
		{"pttl d", num(-1)},
		{"sinterstore d a nokey", num(0)},
		{"exists d", num(0)},
		{"set d str", ok},
		{"sunionstore d n", num(2)},
		{"type d", "+set\r\n"},
		{"sinterstore a a n", num(2)},
		{"smembers a", arr(bulk("2"), bulk("3"))},
	})
	if err := c.Table().Check(); err != nil {
		t.Fatal(err)
	}
}

// Sets through every form: intset up to set-max-intset-entries, packed
// strings up to setPackedEntries members of setPackedValue bytes, then a
// table of their own; membership holds across each conversion.
func TestSetConversions(t *testing.T) {
	c := newTestCtx()
	c.Shard.Enc.SetMaxIntset.Store(4)
	runScript(t, c, []step{
		{"sadd i 1 2 3 4", num(4)},
		{"object encoding i", bulk("intset")},
		{"sadd i 5", num(1)},
		{"object encoding i", bulk("hashtable")},
		{"sismember i 5", num(1)},
		{"sadd v " + strings.Repeat("v", setPackedValue), num(1)},
		{"sadd v " + strings.Repeat("w", setPackedValue+1), num(1)},
		{"object encoding v", bulk("hashtable")},
		{"scard v", num(2)},
		{"sadd z -9223372036854775808 9223372036854775807", num(2)},
		{"smembers z", arr(bulk("-9223372036854775808"), bulk("9223372036854775807"))},
	})
	v, _ := c.Table().Get([]byte("v"))
	if v.Big == nil {
		t.Fatal("a member past setPackedValue left the set packed")
	}
	argv := []string{"sadd", "p"}
	for i := range setPackedEntries {
		argv = append(argv, "m"+strconv.Itoa(i))
	}
	do(c, argv...)
	if p, _ := c.Table().Get([]byte("p")); p.Big != nil || p.IntSet {
		t.Fatal("a set of setPackedEntries strings is not packed")
	}
	do(c, "sadd", "p", "one more")
	p, _ := c.Table().Get([]byte("p"))
	if p.Big == nil {
		t.Fatal("a set past setPackedEntries is still packed")
	}
	if got := do(c, "scard", "p"); got != num(setPackedEntries+1) {
		t.Fatalf("scard %q", got)
	}
	// Big sets: many members, SPOP with a count, SSCAN to the end.
	const n = 5000
	argv = []string{"sadd", "big"}
	for i := range n {
		argv = append(argv, "member:"+strconv.Itoa(i))
	}
	do(c, argv...)
	popped := members(t, do(c, "spop", "big", "100"))
	if len(popped) != 100 || do(c, "scard", "big") != num(n-100) {
		t.Fatalf("spop 100 popped %d", len(popped))
	}
	for _, m := range popped {
		if do(c, "sismember", "big", m) != num(0) {
			t.Fatalf("%s popped and still there", m)
		}
	}
	if got := members(t, do(c, "srandmember", "big", "50")); len(got) != 50 {
		t.Fatalf("srandmember 50 gave %d", len(got))
	}
	seen := map[string]bool{}
	for cursor, round := "0", 0; ; round++ {
		if round > n {
			t.Fatal("SSCAN does not end")
		}
		next, rest := readBulk(t, strings.TrimPrefix(do(c, "sscan", "big", cursor, "COUNT", "100"), "*2\r\n"))
		for _, m := range members(t, rest) {
			seen[m] = true
		}
		if cursor = next; cursor == "0" {
			break
		}
	}
	if len(seen) != n-100 {
		t.Fatalf("SSCAN saw %d members, want %d", len(seen), n-100)
	}
	for _, db := range c.Shard.DBs {
		if err := db.Check(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSetAlgebraSameBigSet names one big set twice: walking it while
// looking its members up in it must see every member, whatever the state of
// the resize its growth started.
func TestSetAlgebraSameBigSet(t *testing.T) {
	c := newTestCtx()
	long := strings.Repeat("L", 70)
	do(c, "sadd", "s", long)
	for n := 2; n <= 300; n++ {
		do(c, "sadd", "s", strconv.Itoa(n))
		want := num(int64(n))
		for _, cmd := range [][]string{
			{"sintercard", "2", "s", "s"},
			{"sinterstore", "d", "s", "s"},
			{"zinterstore", "d", "2", "s", "s"},
			{"zintercard", "2", "s", "s"},
		} {
			if r := do(c, cmd...); r != want {
				t.Fatalf("%d members: %v = %q, want %q", n, cmd, r, want)
			}
		}
		if r := do(c, "sinter", "s", "s"); !strings.HasPrefix(r, "*"+strconv.Itoa(n)+"\r\n") {
			t.Fatalf("%d members: SINTER s s = %.40q…", n, r)
		}
		if r := do(c, "sdiff", "s", "s"); r != "*0\r\n" {
			t.Fatalf("%d members: SDIFF s s = %q", n, r)
		}
	}
}
