package shardowner

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

// readBulk reads one bulk string from the front of b.
func readBulk(t *testing.T, b string) (string, string) {
	t.Helper()
	if !strings.HasPrefix(b, "$") {
		t.Fatalf("not a bulk string: %q", b)
	}
	nl := strings.Index(b, "\r\n")
	n, err := strconv.Atoi(b[1:nl])
	if err != nil {
		t.Fatalf("bad bulk header: %q", b)
	}
	return b[nl+2 : nl+2+n], b[nl+2+n+2:]
}

// readKeys reads an array of bulk strings from the front of b.
func readKeys(t *testing.T, b string) ([]string, string) {
	t.Helper()
	if !strings.HasPrefix(b, "*") {
		t.Fatalf("not an array: %q", b)
	}
	nl := strings.Index(b, "\r\n")
	n, err := strconv.Atoi(b[1:nl])
	if err != nil {
		t.Fatalf("bad array header: %q", b)
	}
	b = b[nl+2:]
	keys := make([]string, n)
	for i := range keys {
		keys[i], b = readBulk(t, b)
	}
	return keys, b
}

func sortedKeys(t *testing.T, reply string) []string {
	t.Helper()
	keys, rest := readKeys(t, reply)
	if rest != "" {
		t.Fatalf("trailing bytes after the array: %q", rest)
	}
	slices.Sort(keys)
	return keys
}

// scanReply splits a SCAN reply into its cursor and keys.
func scanReply(t *testing.T, reply string) (uint64, []string) {
	t.Helper()
	if !strings.HasPrefix(reply, "*2\r\n") {
		t.Fatalf("scan reply is not a pair: %q", reply)
	}
	cur, rest := readBulk(t, reply[4:])
	keys, rest := readKeys(t, rest)
	if rest != "" {
		t.Fatalf("trailing bytes after the scan reply: %q", rest)
	}
	n, err := strconv.ParseUint(cur, 10, 64)
	if err != nil {
		t.Fatalf("bad cursor %q", cur)
	}
	return n, keys
}

func TestServer(t *testing.T) {
	runCases(t, []scriptCase{
		{"dbsize flush", []step{
			{"dbsize", num(0)},
			{"mset a 1 b 2 c 3", ok},
			{"dbsize", num(3)},
			{"@db 1", ""},
			{"set d 4", ok},
			{"dbsize", num(1)},
			{"@db 0", ""},
			{"flushdb", ok},
			{"dbsize", num(0)},
			{"@db 1", ""},
			{"dbsize", num(1)},
			{"@db 0", ""},
			{"set a 1", ok},
			{"flushall sync", ok},
			{"dbsize", num(0)},
			{"@db 1", ""},
			{"dbsize", num(0)},
			{"flushdb ASYNC", ok},
			{"flushdb foo", errr(resp.ErrSyntax)},
			{"flushall async sync", errr(resp.ErrSyntax)},
			{"flushall x", errr(resp.ErrSyntax)},
		}},
		{"randomkey", []step{
			{"randomkey", null},
			{"set only v", ok},
			{"randomkey", bulk("only")},
			{"@resp 3", ""},
			{"del only", num(1)},
			{"randomkey", null3},
		}},
		{"scan errors", []step{
			{"scan x", errr(resp.ErrCursor)},
			{"scan -1", "*2\r\n$1\r\n0\r\n*0\r\n"}, // strtoul wraps a negative cursor, as in Redis
			{"scan 18446744073709551616", errr(resp.ErrCursor)},
			{"scan 0 count 0", errr(resp.ErrSyntax)},
			{"scan 0 count -1", errr(resp.ErrSyntax)},
			{"scan 0 count x", errr(resp.ErrNotInteger)},
			{"scan 0 match", errr(resp.ErrSyntax)},
			{"scan 0 foo bar", errr(resp.ErrSyntax)},
			{"scan 0", "*2\r\n" + bulk("0") + "*0\r\n"},
		}},
	})
}

func TestKeysCommand(t *testing.T) {
	c := newTestCtx()
	do(c, "mset", "one", "1", "two", "2", "three", "3", "four", "4", "x*y", "5")
	do(c, "set", "gone", "v", "px", "10")
	do(c, "set", "later", "v", "px", "20")
	c.Shard.Clock.Ms += 10
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"*", []string{"four", "later", "one", "three", "two", "x*y"}},
		{"t*", []string{"three", "two"}},
		{"*o*", []string{"four", "one", "two"}},
		{"???", []string{"one", "two", "x*y"}},
		{"[ot]*", []string{"one", "three", "two"}},
		{"[^ot]*", []string{"four", "later", "x*y"}},
		{"x\\*y", []string{"x*y"}},
		{"nothing", []string{}},
		{"gone", []string{}},
	} {
		got := sortedKeys(t, do(c, "keys", tc.pattern))
		if !slices.Equal(got, tc.want) {
			t.Errorf("keys %q: got %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

// TestKeysEmptyKey: in Redis only a lone "*" (every key) or an empty pattern
// finds the empty key; any other pattern, "**" included, does not.
func TestKeysEmptyKey(t *testing.T) {
	c := newTestCtx()
	do(c, "mset", "", "1", "a", "2")
	for _, tc := range []struct {
		pattern string
		want    []string
	}{
		{"*", []string{"", "a"}},
		{"**", []string{"a"}},
		{"*?", []string{"a"}},
		{"", []string{""}},
	} {
		if got := sortedKeys(t, do(c, "keys", tc.pattern)); !slices.Equal(got, tc.want) {
			t.Errorf("keys %q: got %q, want %q", tc.pattern, got, tc.want)
		}
		got, _ := scanAll(t, c, 0, "match", tc.pattern)
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("scan 0 match %q: got %q, want %q", tc.pattern, got, tc.want)
		}
	}
}

// scanAll runs SCAN on c from cursor until the cursor leaves this shard and
// returns the keys and the cursor it left with.
func scanAll(t *testing.T, c *Ctx, cursor uint64, extra ...string) ([]string, uint64) {
	t.Helper()
	var all []string
	for i := 0; ; i++ {
		if i > 100000 {
			t.Fatal("scan does not end")
		}
		args := append([]string{"scan", strconv.FormatUint(cursor, 10)}, extra...)
		next, keys := scanReply(t, do(c, args...))
		all = append(all, keys...)
		if next == 0 || next%uint64(c.Shard.Count) != uint64(c.Shard.ID) {
			return all, next
		}
		cursor = next
	}
}

func TestScan(t *testing.T) {
	c := newTestCtx()
	want := make([]string, 0, 300)
	for i := range 300 {
		k := fmt.Sprintf("key:%03d", i)
		do(c, "set", k, "v")
		want = append(want, k)
	}
	keys, next := scanAll(t, c, 0, "count", "7")
	if next != 0 {
		t.Fatalf("single shard scan ended with cursor %d", next)
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	if !slices.Equal(keys, want) {
		t.Fatalf("scan returned %d distinct keys, want %d", len(keys), len(want))
	}

	keys, _ = scanAll(t, c, 0, "match", "key:1?0", "count", "1000")
	slices.Sort(keys)
	keys = slices.Compact(keys)
	wantMatch := []string{"key:100", "key:110", "key:120", "key:130", "key:140",
		"key:150", "key:160", "key:170", "key:180", "key:190"}
	if !slices.Equal(keys, wantMatch) {
		t.Fatalf("scan match: %q", keys)
	}
	keys, _ = scanAll(t, c, 0, "type", "STRING", "match", "key:00*")
	if len(keys) < 10 {
		t.Fatalf("scan type string: %q", keys)
	}
	keys, _ = scanAll(t, c, 0, "type", "hash")
	if len(keys) != 0 {
		t.Fatalf("scan type hash: %q", keys)
	}
}

// On shard 1 of 3 the cursor is 1 (mod 3) while the shard is being scanned,
// then moves to 2, the start of shard 2; the last shard ends with 0.
func TestScanCursorAcrossShards(t *testing.T) {
	for id, wantNext := range []uint64{1, 2, 0} {
		s := NewShard(id, 3, 16)
		s.Clock.Ms = testNow
		c := &Ctx{Shard: s, W: &resp.Writer{}}
		for i := range 50 {
			do(c, "set", fmt.Sprintf("k%d", i), "v")
		}
		keys, next := scanAll(t, c, uint64(id), "count", "5")
		if next != wantNext {
			t.Errorf("shard %d: scan left with cursor %d, want %d", id, next, wantNext)
		}
		slices.Sort(keys)
		if len(slices.Compact(keys)) != 50 {
			t.Errorf("shard %d: scan saw %d distinct keys", id, len(keys))
		}
	}
}

// TestParseCursor follows Redis's strtoul-based parse: the argument is a C
// string, a leading space is refused, a sign is allowed.
func TestParseCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"17", 17, true},
		{"", 0, true},
		{"\x00", 0, true},
		{"5\x00junk", 5, true},
		{"+3", 3, true},
		{"-1", 1<<64 - 1, true},
		{"18446744073709551615", 1<<64 - 1, true},
		{"18446744073709551616", 0, false},
		{" 1", 0, false},
		{"\t1", 0, false},
		{"1 ", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"0x1", 0, false},
	} {
		if got, ok := ParseCursor([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("ParseCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	c := newTestCtx()
	if got := do(c, "scan", ""); got != "*2\r\n"+bulk("0")+"*0\r\n" {
		t.Errorf("scan \"\": %q", got)
	}
}
