package shardowner

import (
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func init() {
	handlers["sort"], handlers["sort_ro"] = Sort, SortRO
	for name, h := range map[string]Handler{
		"zadd": ZAdd, "zrange": ZRange, "hset": HSet,
	} {
		if _, ok := handlers[name]; !ok {
			handlers[name] = h
		}
	}
}

// TestSortScript checks replies against what redis-server 7.0 answers.
func TestSortScript(t *testing.T) {
	runCases(t, []scriptCase{
		{"numeric", []step{
			{"rpush l 3 1 2 10 -5 1.5", num(6)},
			{"sort l", bulks("-5", "1", "1.5", "2", "3", "10")},
			{"sort l desc limit 1 2", bulks("3", "2")},
			{"sort l alpha", bulks("-5", "1", "1.5", "10", "2", "3")},
			{"sort_ro l limit -5 2", bulks("-5", "1")},
			{"sort l limit 6 1", arr()},
			{"sort l limit 5 9223372036854775807", bulks("10")},
			{"sort l limit 2 9223372036854775807", bulks("1.5", "2", "3", "10")},
			{"sort l limit 0 0", arr()},
			{"sort l limit 4 -1", bulks("3", "10")},
			{"rpush e 1 01 1.0", num(3)},
			{"sort e", bulks("01", "1", "1.0")},
			{"sort e desc", bulks("1.0", "1", "01")},
			{"rpush bad 1 1e400", num(2)},
			{"sort bad", errr(errSortScore)},
			{"sort bad limit 0 0", errr(errSortScore)},
			{"sort bad alpha", bulks("1", "1e400")},
			{"rpush nan nan 1", num(2)},
			{"sort nan", errr(errSortScore)},
			{"sort nokey", arr()},
		}},
		{"nosort", []step{
			{"rpush l c a b d", num(4)},
			{"sort l by nosort", bulks("c", "a", "b", "d")},
			{"sort l by nosort desc limit 1 2", bulks("b", "a")},
			{"sort l by nosort limit 3 5", bulks("d")},
			{"sort l by nosort by x_*", bulks("c", "a", "b", "d")},
			{"zadd z 3 a 1 b 2 c", num(3)},
			{"sort z by nosort", bulks("b", "c", "a")},
			{"sort z by nosort desc limit 1 5", bulks("c", "b")},
			{"sadd s b c a", num(3)},
			{"sort s by nosort store d", num(3)},
			{"lrange d 0 -1", bulks("a", "b", "c")},
		}},
		{"errors", []step{
			{"rpush l 1", num(1)},
			{"sort l foo", errr(resp.ErrSyntax)},
			{"sort l limit 1", errr(resp.ErrSyntax)},
			{"sort l limit x 1", errr(resp.ErrNotInteger)},
			{"sort l foo limit x 1", errr(resp.ErrSyntax)},
			{"sort_ro l store d", errr(resp.ErrSyntax)},
			{"sort l store", errr(resp.ErrSyntax)},
			{"set s v", ok},
			{"sort s", errr(resp.ErrWrongType)},
			{"sort s foo", errr(resp.ErrSyntax)},
			{"sort s store d", errr(resp.ErrWrongType)},
		}},
		{"patterns", []step{
			{"rpush l a b c", num(3)},
			{"mset w_a 3 w_b 1 w_c 2", ok},
			{"hset h_a f x", num(1)},
			{"hset h_b f y", num(1)},
			{"sort l by w_*", bulks("b", "c", "a")},
			{"sort l by w_* get # get h_*->f get w_* get nostar", arr(
				bulk("b"), bulk("y"), bulk("1"), null, bulk("c"), null, bulk("2"), null, bulk("a"), bulk("x"), bulk("3"), null)},
			{"sort l by h_*->f alpha desc", bulks("b", "a", "c")},
			{"sort l alpha get h_*->", arr(null, null, null)},
			{"@resp 3", ""},
			{"sort l alpha limit 0 1 get h_*->f get x*", arr(bulk("x"), null3)},
			{"@resp 2", ""},
			{"sort l by w_* store d get h_*->f", num(3)},
			{"lrange d 0 -1", bulks("y", "", "x")},
		}},
		{"store", []step{
			{"rpush l 2 1", num(2)},
			{"set d v ex 100", ok},
			{"sort l store d", num(2)},
			{"ttl d", num(-1)},
			{"lrange d 0 -1", bulks("1", "2")},
			{"sort l store l", num(2)},
			{"lrange l 0 -1", bulks("1", "2")},
			{"sort l limit 5 1 store d", num(0)},
			{"exists d", num(0)},
			{"sort nokey store l", num(0)},
			{"exists l", num(0)},
		}},
	})
}

// TestSortStoreEvents: STORE publishes sortstore, or del when it empties
// the destination; a pattern key that is missing is a keymiss.
func TestSortStoreEvents(t *testing.T) {
	c := newTestCtx()
	events := &NotifyConfig{}
	events.Classes.Store(NotifyKeyevent | NotifyAll | NotifyKeyMiss)
	c.Shard.Events = events
	do(c, "rpush", "l", "b", "a")
	do(c, "set", "w_a", "1")
	c.Shard.StartRecording()
	for _, cmd := range []string{"sort l by w_* store d", "sort l alpha limit 9 1 store d", "sort l alpha limit 9 1 store d", "sort nokey"} {
		do(c, strings.Fields(cmd)...)
	}
	var got []string
	for _, e := range c.Shard.Recorded() {
		got = append(got, string(e.Class)+" "+string(e.Event)+" "+string(e.Key))
	}
	want := "m keymiss w_b|l sortstore d|g del d|m keymiss nokey"
	if strings.Join(got, "|") != want {
		t.Errorf("events %q, want %q", strings.Join(got, "|"), want)
	}
}

// TestSortOtherShards: a pattern that names a key of another shard is
// refused, whatever else the keys hold; patterns that name no key run. A
// run whose own keys are not all on the shard (the gathered values of a
// STORE to another shard) holds no other key, so any pattern key is
// refused there.
func TestSortOtherShards(t *testing.T) {
	saved := KeyShard
	defer func() { KeyShard = saved }()
	// Keys that start with "x" are on shard 1, the others on shard 0.
	KeyShard = func(key []byte, n int) int {
		if len(key) > 0 && key[0] == 'x' {
			return 1
		}
		return 0
	}
	s := NewShard(0, 2, 16)
	s.Clock.Ms = testNow
	c := &Ctx{Shard: s, W: &resp.Writer{}}
	runScript(t, c, []step{
		{"rpush l a b", num(2)},
		{"set w_a 2", ok},
		{"set w_b 1", ok},
		{"sort l by w_*", bulks("b", "a")},
		{"sort l by x_*", errr(errSortBy)},
		{"sort l by x_* store d", errr(errSortBy)},
		{"exists d", num(0)},
		{"sort l get x_*", errr(errSortGet)},
		{"sort l get w_* get x_*->f", errr(errSortGet)},
		{"sort l by nosort by x_* get # get xconst", arr(bulk("a"), null, bulk("b"), null)},
		{"sort l by w_* get # get w_*", bulks("b", "1", "a", "2")},
		{"sort l by w_* store xd", errr(errSortBy)},
		{"sort l get w_* store xd", errr(errSortGet)},
		{"sort l alpha get # store xd", num(2)},
		{"rpush x1 a", num(1)},
		{"sort x1 get w_*", errr(errSortGet)},
		{"sort x1 alpha", bulks("a")},
		{"sort nokey by x_*", arr()},
	})
}

// TestSortScore: SORT reads a score as strtod does, the whole text.
func TestSortScore(t *testing.T) {
	for in, want := range map[string]float64{"": 0, "1": 1, " 2": 2, "\t-3.5": -3.5, "0x10": 16, "1e2": 100,
		"inf": float64Inf(1), "-Infinity": float64Inf(-1), "4\x00junk": 4, "\x00": 0} {
		if got, ok := sortScore([]byte(in)); !ok || got != want {
			t.Errorf("sortScore(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{" ", "1 ", "x", "nan", "-nan", "1e400", "1e-400", "1..2", "0x"} {
		if _, ok := sortScore([]byte(in)); ok {
			t.Errorf("sortScore(%q) accepted", in)
		}
	}
}

func float64Inf(sign int) float64 {
	f, _ := strconv.ParseFloat(map[int]string{1: "+Inf", -1: "-Inf"}[sign], 64)
	return f
}

// TestSortBig: big lists, sets and sorted sets sort as their small forms.
func TestSortBig(t *testing.T) {
	c := newTestCtx()
	c.Shard.Enc.ListMaxListpack.Store(4)
	c.Shard.Enc.ZSetMaxEntries.Store(4)
	c.Shard.Enc.SetMaxIntset.Store(4)
	var want []string
	push := []string{"rpush", "l"}
	sadd := []string{"sadd", "s"}
	zadd := []string{"zadd", "z"}
	for i := 99; i >= 0; i-- {
		push = append(push, strconv.Itoa(i))
		sadd = append(sadd, strconv.Itoa(i))
		zadd = append(zadd, strconv.Itoa(i%7), strconv.Itoa(i))
	}
	do(c, push...)
	do(c, sadd...)
	do(c, zadd...)
	for i := 10; i < 20; i++ {
		want = append(want, strconv.Itoa(i))
	}
	for _, key := range []string{"l", "s", "z"} {
		if got := do(c, "sort", key, "limit", "10", "10"); got != bulks(want...) {
			t.Errorf("sort %s limit 10 10: %q", key, got)
		}
	}
	if got := do(c, "sort", "l", "by", "nosort", "desc", "limit", "95", "10"); got != bulks("95", "96", "97", "98", "99") {
		t.Errorf("sort l by nosort desc: %q", got)
	}
	if got, want := do(c, "sort", "z", "by", "nosort", "limit", "0", "3"), do(c, "zrange", "z", "0", "2"); got != want {
		t.Errorf("sort z by nosort: %q, want %q", got, want)
	}
	if got, want := do(c, "sort", "z", "by", "nosort", "desc", "limit", "0", "3"), do(c, "zrange", "z", "0", "2", "rev"); got != want {
		t.Errorf("sort z by nosort desc: %q, want %q", got, want)
	}
	if got := do(c, "sort", "s", "store", "l"); got != num(100) {
		t.Fatalf("sort s store l: %q", got)
	}
	if got := do(c, "lrange", "l", "10", "19"); got != bulks(want...) {
		t.Errorf("stored: %q", got)
	}
}

// TestSortConvertsZSet: SORT leaves a small sorted set it reads in the big
// encoding, as Redis does, and a WATCH on it stands.
func TestSortConvertsZSet(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"zadd z 2 a 1 b", num(2)},
		{"object encoding z", bulk("listpack")},
		{"corekv.watch 0 z", ok},
		{"sort_ro z by nosort", bulks("b", "a")},
		{"object encoding z", bulk("skiplist")},
		{"zrange z 0 -1", bulks("b", "a")},
		{"corekv.watched 0", num(0)},
		{"zadd z 3 c", num(1)},
		{"corekv.watched 0", num(1)},
	})
}

// BenchmarkSort1000 sorts a list of 1,000 numbers: by value, ALPHA, by a
// key per element, and kept in place with a LIMIT. The scratch comes from
// pools, so a warm SORT allocates nothing.
func BenchmarkSort1000(b *testing.B) {
	c := benchCtx()
	push := args("rpush", "l")
	for i := range 1000 {
		n := strconv.Itoa(i * 7919 % 1000)
		push = append(push, []byte(n))
		Set(c, args("set", "w_"+n, strconv.Itoa(i)))
	}
	RPush(c, push)
	for _, bc := range []struct{ name, cmd string }{
		{"numeric", "sort l"},
		{"alpha", "sort l alpha"},
		{"by", "sort l by w_*"},
		{"get", "sort l limit 0 10 get w_*"},
		{"nosort", "sort l by nosort limit 100 10"},
		{"store", "sort l store d"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			argv := args(strings.Fields(bc.cmd)...)
			b.ReportAllocs()
			for b.Loop() {
				c.W.B = c.W.B[:0]
				Sort(c, argv)
			}
			if c.W.B[0] == '-' {
				b.Fatalf("%s: %q", bc.cmd, c.W.B)
			}
		})
	}
}
