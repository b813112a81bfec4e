package shardowner

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func init() {
	for name, h := range map[string]Handler{
		"lpush": LPush, "rpush": RPush, "lpushx": LPushX, "rpushx": RPushX, "lpop": LPop, "rpop": RPop,
		"llen": LLen, "lindex": LIndex, "lrange": LRange, "lset": LSet, "linsert": LInsert, "lrem": LRem,
		"ltrim": LTrim, "lpos": LPos, "lmove": LMove, "rpoplpush": RPopLPush, "lmpop": LMPop,
	} {
		handlers[name] = h
	}
}

func bulks(items ...string) string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = bulk(s)
	}
	return arr(out...)
}

// TestListScript checks replies against what redis-server 7.0 answers.
func TestListScript(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"rpush l a b c a b c", num(6)},
		{"lpush l x y", num(8)},
		{"lrange l 0 -1", bulks("y", "x", "a", "b", "c", "a", "b", "c")},
		{"type l", "+list\r\n"},
		{"object encoding l", bulk("quicklist")},
		{"llen l", num(8)},
		{"llen nokey", num(0)},
		{"lindex l -1", bulk("c")},
		{"lindex l 8", null},
		{"lindex l x", errr(resp.ErrNotInteger)},
		{"lindex nokey x", null},
		{"lset nokey x a", errr(resp.ErrNoSuchKey)},
		{"lrange l -100 1", bulks("y", "x")},
		{"lrange l 5 2", arr()},
		{"lrange nokey 0 -1", arr()},
		{"lpos l a", num(2)},
		{"lpos l a rank -1", num(5)},
		{"lpos l a rank 2", num(5)},
		{"lpos l a count 0", arr(num(2), num(5))},
		{"lpos l a count 0 rank -1", arr(num(5), num(2))},
		{"lpos l a count 1 rank -1 maxlen 2", arr()},
		{"lpos l a rank -9223372036854775808 count 1", arr(num(5), num(2))},
		{"lpos l a rank 0", errr(errRankZero)},
		{"lpos l a count x", errr(errCountNegative)},
		{"lpos l a maxlen -1", errr(errMaxlenNegative)},
		{"lpos l a rank", errr(resp.ErrSyntax)},
		{"lpos nokey a", null},
		{"lpos nokey a count 0", arr()},
		{"lpop l", bulk("y")},
		{"rpop l 2", bulks("c", "b")},
		{"lpop l 0", arr()},
		{"lpop l -1", errr(resp.ErrNotPositive)},
		{"lpop l 1 2", errr(resp.ErrWrongArgs("lpop"))},
		{"lpop nokey 0", nullA},
		{"lpop nokey", null},
		{"lrange l 0 -1", bulks("x", "a", "b", "c", "a")},
		{"linsert l before b NEW", num(6)},
		{"linsert l after zz NEW", num(-1)},
		{"linsert l middle b NEW", errr(resp.ErrSyntax)},
		{"linsert nokey after b NEW", num(0)},
		{"lset l -1 E", ok},
		{"lset l 99 E", errr(errIndexRange)},
		{"lset nokey 0 E", errr(resp.ErrNoSuchKey)},
		{"lrange l 0 -1", bulks("x", "a", "NEW", "b", "c", "E")},
		{"rpush r a b a b a b a", num(7)},
		{"lrem r 2 a", num(2)},
		{"lrem r -1 b", num(1)},
		{"lrange r 0 -1", bulks("b", "b", "a", "a")},
		{"lrem r 0 zz", num(0)},
		{"lrem r 0 b", num(2)},
		{"lrem r x b", errr(resp.ErrNotInteger)},
		{"ltrim r 1 0", ok},
		{"exists r", num(0)},
		{"rpush t 1 2 3 4 5 6 7", num(7)},
		{"ltrim t 1 -2", ok},
		{"lrange t 0 -1", bulks("2", "3", "4", "5", "6")},
		{"ltrim nokey 0 1", ok},
		{"rpush m a b c", num(3)},
		{"lmove m n left right", bulk("a")},
		{"lmove m m left right", bulk("b")},
		{"lrange m 0 -1", bulks("c", "b")},
		{"rpoplpush m n", bulk("b")},
		{"rpoplpush nokey n", null},
		{"lmove m n up left", errr(resp.ErrSyntax)},
		{"lrange n 0 -1", bulks("b", "a")},
		{"lmpop 2 nokey n right count 5", arr(bulk("n"), bulks("a", "b"))},
		{"lmpop 2 nokey n right", nullA},
		{"lmpop 0 m left", errr(errNumkeys)},
		{"lmpop 2 m left", errr(resp.ErrSyntax)},
		{"lmpop 1 m left count 0", errr(errCountPositive)},
		{"lmpop 1 m left count 1 2", errr(resp.ErrSyntax)},
		{"lmpop 1 m left count -1 x", errr(errCountPositive)},
		{"lmpop 1 m left count 1 count 2", errr(resp.ErrSyntax)},
		{"lpushx nokey a", num(0)},
		{"rpushx m a b", num(3)},
		{"set s v", ok},
		{"lpush s a", errr(resp.ErrWrongType)},
		{"lrange s 0 1", errr(resp.ErrWrongType)},
		{"lindex s x", errr(resp.ErrWrongType)},
		{"lset s x a", errr(resp.ErrWrongType)},
		{"lmpop 2 s m left", errr(resp.ErrWrongType)},
		{"lmpop 2 m s left", arr(bulk("m"), bulks("c"))},
		{"lmove m s left left", errr(resp.ErrWrongType)},
		{"lmove s m left left", errr(resp.ErrWrongType)},
		{"get m", errr(resp.ErrWrongType)},
		{"@resp 3", ""},
		{"lpop nokey 1", null3},
		{"lmpop 1 nokey left", null3},
	})
}

// listModelOps drives a list and a slice with the same random commands
// and compares them after each.
func TestListModel(t *testing.T) {
	for _, fill := range []int64{1, 2, 3, 5, -1} {
		t.Run(strconv.FormatInt(fill, 10), func(t *testing.T) {
			c := newTestCtx()
			c.Shard.Enc.ListMaxListpack.Store(fill)
			rng := rand.New(rand.NewPCG(uint64(fill+10), 1))
			elems := []string{"a", "b", "c", "1", "22", strings.Repeat("x", 300), strings.Repeat("y", 5000)}
			var model []string
			el := func() string { return elems[rng.IntN(len(elems))] }
			idx := func() int { return rng.IntN(2*len(model)+3) - len(model) - 1 }
			norm := func(i int) int {
				if i < 0 {
					i += len(model)
				}
				return i
			}
			for step := range 3000 {
				var cmd []string
				want := ""
				switch rng.IntN(11) {
				case 0, 1:
					n := 1 + rng.IntN(4)
					cmd = []string{"lpush", "k"}
					for range n {
						e := el()
						cmd = append(cmd, e)
						model = append([]string{e}, model...)
					}
				case 2, 3:
					n := 1 + rng.IntN(4)
					cmd = []string{"rpush", "k"}
					for range n {
						e := el()
						cmd = append(cmd, e)
						model = append(model, e)
					}
				case 4:
					k := min(rng.IntN(4), len(model))
					cmd = []string{"lpop", "k", strconv.Itoa(k)}
					model = model[k:]
				case 5:
					k := min(rng.IntN(4), len(model))
					cmd = []string{"rpop", "k", strconv.Itoa(k)}
					popped := slices.Clone(model[len(model)-k:])
					slices.Reverse(popped)
					if k > 0 {
						want = bulks(popped...)
					}
					if k == 1 && rng.IntN(2) == 0 {
						cmd, want = cmd[:2], bulk(popped[0])
					}
					model = model[:len(model)-k]
				case 6:
					i, e := idx(), el()
					cmd = []string{"lset", "k", strconv.Itoa(i), e}
					if j := norm(i); j >= 0 && j < len(model) {
						model[j] = e
					}
				case 7:
					p, e := el(), el()
					after := rng.IntN(2) == 0
					where := "before"
					if after {
						where = "after"
					}
					cmd = []string{"linsert", "k", where, p, e}
					if j := slices.Index(model, p); j >= 0 {
						if after {
							j++
						}
						model = slices.Insert(model, j, e)
					}
				case 8:
					n, e := rng.IntN(5)-2, el()
					cmd = []string{"lrem", "k", strconv.Itoa(n), e}
					model = modelLRem(model, n, e)
				case 9:
					a, b := idx(), idx()+len(model)/2
					cmd = []string{"ltrim", "k", strconv.Itoa(a), strconv.Itoa(b)}
					model = modelTrim(model, a, b)
				case 10:
					if len(model) == 0 {
						continue
					}
					cmd = []string{"rpoplpush", "k", "k"}
					last := model[len(model)-1]
					want = bulk(last)
					model = append([]string{last}, model[:len(model)-1]...)
				}
				if got := do(c, cmd...); want != "" && got != want {
					t.Fatalf("step %d %q: replied %.300q, want %.300q", step, cmd, got, want)
				}
				got := do(c, "lrange", "k", "0", "-1")
				if want := bulks(model...); got != want {
					t.Fatalf("step %d %q: list differs from the model\n got %.300q\nwant %.300q", step, cmd, got, want)
				}
				if len(model) > 0 {
					i := rng.IntN(len(model))
					if got := do(c, "lindex", "k", strconv.Itoa(i)); got != bulk(model[i]) {
						t.Fatalf("step %d: lindex %d = %.50q, want %.50q", step, i, got, model[i])
					}
				}
				if got := do(c, "llen", "k"); got != num(int64(len(model))) {
					t.Fatalf("step %d: llen %q, want %d", step, got, len(model))
				}
				if err := c.Table().Check(); err != nil {
					t.Fatalf("step %d %q: %v", step, cmd, err)
				}
				if len(model) > 200 {
					do(c, "ltrim", "k", "0", "50")
					model = model[:51]
				}
			}
		})
	}
}

func modelLRem(m []string, n int, e string) []string {
	var out []string
	if n < 0 {
		// From the tail: reverse, remove from the head, reverse back.
		r := slices.Clone(m)
		slices.Reverse(r)
		r = modelLRem(r, -n, e)
		slices.Reverse(r)
		return r
	}
	removed := 0
	for _, x := range m {
		if x == e && (n == 0 || removed < n) {
			removed++
			continue
		}
		out = append(out, x)
	}
	return out
}

func modelTrim(m []string, a, b int) []string {
	n := len(m)
	if a < 0 {
		a = max(a+n, 0)
	}
	if b < 0 {
		b += n
	}
	if a > b || a >= n {
		return nil
	}
	return m[a : min(b, n-1)+1]
}

// bigListCtx returns a context whose list "l" holds n elements e0…e(n-1)
// in nodes of 4.
func bigListCtx(t testing.TB, n int) *Ctx {
	c := newTestCtx()
	c.Shard.Enc.ListMaxListpack.Store(4)
	argv := []string{"rpush", "l"}
	for i := range n {
		argv = append(argv, "e"+strconv.Itoa(i))
	}
	do(c, argv...)
	if v, _ := c.Table().Get([]byte("l")); n > 4 && v.Big == nil {
		t.Fatal("the list is not big")
	}
	return c
}

func TestBigListKeyCommands(t *testing.T) {
	c := bigListCtx(t, 50)
	want := do(c, "lrange", "l", "0", "-1")
	runScript(t, c, []step{
		{"object encoding l", bulk("quicklist")},
		{"type l", "+list\r\n"},
		{"expire l 100", num(1)},
		{"rename l l2", ok},
		{"copy l2 l3", num(1)},
		{"lpush l3 x", num(51)},
		{"llen l2", num(50)},
		{"move l3 1", num(1)},
		{"scan 0 type list", arr(bulk("0"), bulks("l2"))},
	})
	if got := do(c, "lrange", "l2", "0", "-1"); got != want {
		t.Fatalf("renamed list differs: %.200q", got)
	}
	// Across shards: the blob carries the elements in order.
	blob := do(c, "corekv.take", "l2")
	b, _ := readBulk(t, blob)
	if _, big, ok := DecodeValue([]byte(b)); !ok || !big {
		t.Fatalf("blob of a big list: ok %v big %v", ok, big)
	}
	if r := do(c, "corekv.restore", "l4", b, "any"); r != num(1) {
		t.Fatalf("restore: %q", r)
	}
	if got := do(c, "lrange", "l4", "0", "-1"); got != want {
		t.Fatalf("restored list differs: %.200q", got)
	}
	if v, _ := c.Table().Get([]byte("l4")); v.Big == nil || v.ExpireAt == 0 {
		t.Fatalf("restored list: big %v, expiry %d", v.Big != nil, v.ExpireAt)
	}
	for i, db := range c.Shard.DBs {
		if err := db.Check(); err != nil {
			t.Fatalf("db %d: %v", i, err)
		}
	}
	do(c, "flushall")
	checkFreed(t, c.Shard)
}

// TestListWatch: a big list changes in place, which its key's table does
// not see; the handlers report it, and only when something changed.
func TestListWatch(t *testing.T) {
	for _, tc := range []struct {
		cmd     string
		touched bool
	}{
		{"lpush l x", true}, {"rpush l x", true}, {"lpushx l x", true}, {"lpop l", true}, {"rpop l 3", true},
		{"lset l 20 x", true}, {"linsert l before e7 x", true}, {"linsert l before zz x", false},
		{"lrem l 0 e3", true}, {"lrem l 0 zz", false}, {"ltrim l 0 -1", false}, {"ltrim l 1 -1", true},
		{"lmove l l left right", true}, {"lmpop 1 l left", true}, {"lrange l 0 -1", false}, {"lpos l e1", false},
		{"lindex l 3", false}, {"lpop l 0", false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			c := bigListCtx(t, 40)
			do(c, "rpush", "small", "a")
			if r := do(c, "corekv.watch", "7", "l"); r != ok {
				t.Fatalf("corekv.watch: %q", r)
			}
			if r := do(c, strings.Fields(tc.cmd)...); strings.HasPrefix(r, "-") {
				t.Fatalf("%s: %q", tc.cmd, r)
			}
			if got := watched(t, c, "7"); got != tc.touched {
				t.Fatalf("touched = %v, want %v", got, tc.touched)
			}
		})
	}
}

// TestListNodeSplit: an insert into a full node cuts it, so no node grows
// past the limits however many inserts land in the middle.
func TestListNodeSplit(t *testing.T) {
	c := bigListCtx(t, 8)
	for range 100 {
		do(c, "linsert", "l", "after", "e3", "m")
	}
	v, _ := c.Table().Get([]byte("l"))
	q := qlist{t: v.Big}
	for i := range q.nodes() {
		if _, cnt := q.rec(i); cnt > 4 {
			t.Fatalf("node %d holds %d elements, past the limit of 4", i, cnt)
		}
	}
	if q.total() != 108 {
		t.Fatalf("total %d", q.total())
	}
}

func TestListLimits(t *testing.T) {
	for _, tc := range []struct {
		fill        int64
		count, size int
	}{{-1, 1<<31 - 1, 4088}, {-2, 1<<31 - 1, 8184}, {-5, 1<<31 - 1, 65528}, {-100, 1<<31 - 1, 65528}, {0, 1, 8184}, {128, 128, 8184}} {
		if count, size := nodeLimits(tc.fill); count != tc.count || size != tc.size {
			t.Errorf("nodeLimits(%d) = %d, %d; want %d, %d", tc.fill, count, size, tc.count, tc.size)
		}
	}
}

// TestListPushBigElements: elements past a node's size get nodes of their
// own, and the bytes come back whole.
func TestListPushBigElements(t *testing.T) {
	c := newTestCtx()
	big := strings.Repeat("z", 20000)
	do(c, "rpush", "l", "a", big, "b")
	do(c, "lpush", "l", big)
	if got, want := do(c, "lrange", "l", "0", "-1"), bulks(big, "a", big, "b"); got != want {
		t.Fatal("big elements differ")
	}
	if err := c.Table().Check(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal([]byte(do(c, "lindex", "l", "2")), []byte(bulk(big))) {
		t.Fatal("lindex of a big element")
	}
}

// BenchmarkLPushLPop and the others push and pop one 16-byte element on a
// list of 1000, so that the list keeps its size: the cost of the head or
// tail node's rewrite and the index record's update.
func BenchmarkLPushLPop(b *testing.B) { benchPushPop(b, LPush, LPop, "lpush", "lpop") }
func BenchmarkRPushRPop(b *testing.B) { benchPushPop(b, RPush, RPop, "rpush", "rpop") }
func BenchmarkLPushRPop(b *testing.B) { benchPushPop(b, LPush, RPop, "lpush", "rpop") }

func benchPushPop(b *testing.B, push, pop Handler, pushName, popName string) {
	c := benchList(1000)
	pushArgv := args(pushName, "l", "element:00000001")
	popArgv := args(popName, "l")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		push(c, pushArgv)
		pop(c, popArgv)
	}
}

// BenchmarkLPopDrain and BenchmarkRPopDrain pop one 16-byte element at a
// time from a list of 100000, as redis-benchmark's lpop and rpop do after
// its pushes, filling it again when it is empty.
func BenchmarkLPopDrain(b *testing.B) { benchPopDrain(b, LPop, "lpop") }
func BenchmarkRPopDrain(b *testing.B) { benchPopDrain(b, RPop, "rpop") }

func benchPopDrain(b *testing.B, pop Handler, name string) {
	c := benchList(100000)
	argv := args(name, "l")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		pop(c, argv)
		if n++; n == 100000 {
			b.StopTimer()
			c = benchList(100000)
			n = 0
			b.StartTimer()
		}
	}
}

// BenchmarkLPushGrow and BenchmarkRPushGrow push 16-byte elements into one
// list that grows, as redis-benchmark's lpush and rpush do, starting over
// every million.
func BenchmarkLPushGrow(b *testing.B) { benchPushGrow(b, LPush, "lpush") }
func BenchmarkRPushGrow(b *testing.B) { benchPushGrow(b, RPush, "rpush") }

func benchPushGrow(b *testing.B, push Handler, name string) {
	c := benchCtx()
	argv := args(name, "mylist", "xxxxxxxxxxxxxxxx")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		push(c, argv)
		if i++; i%1_000_000 == 0 {
			c.Table().Delete(argv[1])
		}
	}
}

// BenchmarkLIndexMiddle reads the middle element of a list of 100000.
func BenchmarkLIndexMiddle(b *testing.B) {
	c := benchList(100000)
	argv := args("lindex", "l", "50000")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		LIndex(c, argv)
	}
}

// BenchmarkLRange100 reads the first 100 elements, as redis-benchmark's
// lrange_100 does.
func BenchmarkLRange100(b *testing.B) {
	c := benchList(1000)
	argv := args("lrange", "l", "0", "99")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		LRange(c, argv)
	}
}

// benchList returns a context whose list "l" holds n 16-byte elements.
func benchList(n int) *Ctx {
	c := benchCtx()
	argv := args("rpush", "l")
	for i := range n {
		argv = append(argv, []byte("element:"+strconv.Itoa(10000000+i)))
		if len(argv) == 1002 || i == n-1 {
			RPush(c, argv)
			argv = argv[:2]
		}
	}
	return c
}

// TestListHotPathAllocs: the shard side of LPUSH, RPUSH, LPOP, RPOP and
// LINDEX does not allocate, on a small list and on a big one.
func TestListHotPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes pooled buffers allocate")
	}
	for _, n := range []int{10, 5000} {
		c := benchList(n)
		for _, tc := range []struct {
			name string
			h    Handler
			argv [][]byte
		}{
			{"lpush", LPush, args("lpush", "l", "element:00000001")},
			{"lpop", LPop, args("lpop", "l")},
			{"rpush", RPush, args("rpush", "l", "element:00000001")},
			{"rpop", RPop, args("rpop", "l")},
			{"lindex", LIndex, args("lindex", "l", "-3")},
			{"llen", LLen, args("llen", "l")},
			{"lrange", LRange, args("lrange", "l", "0", "9")},
		} {
			allocs := testing.AllocsPerRun(200, func() {
				c.W.B = c.W.B[:0]
				tc.h(c, tc.argv)
			})
			if allocs != 0 {
				t.Errorf("%s on a list of %d allocates %v times per call", tc.name, n, allocs)
			}
		}
	}
}

// TestListHeadPushMemory: a list built by pushes at its head, which fill
// each node's gap from its end, takes no more memory than one built at its
// tail, for count and size limits alike.
func TestListHeadPushMemory(t *testing.T) {
	for _, fill := range []int64{128, -2} {
		usage := map[string]int{}
		for _, push := range []string{"lpush", "rpush"} {
			c := newTestCtx()
			c.Shard.Enc.ListMaxListpack.Store(fill)
			for i := range 100000 {
				do(c, push, "l", "element:"+strconv.Itoa(10000000+i))
			}
			if err := c.Table().Check(); err != nil {
				t.Fatal(err)
			}
			usage[push], _ = c.Table().MemoryUsage([]byte("l"))
		}
		if usage["lpush"] > usage["rpush"]*105/100 {
			t.Errorf("fill %d: built by lpush %d bytes, by rpush %d", fill, usage["lpush"], usage["rpush"])
		}
	}
}

// TestListGrowGarbage: pushes onto a big list leave the collector next to
// nothing, also as its head and tail nodes fill item by item and move to
// bigger items: the pages those leave empty are used again.
func TestListGrowGarbage(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes pooled buffers allocate")
	}
	for _, push := range []struct {
		name string
		h    Handler
	}{{"lpush", LPush}, {"rpush", RPush}} {
		c := benchList(10000)
		argv := args(push.name, "l", "element:00000001")
		const n = 200000
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range n {
			c.W.B = c.W.B[:0]
			push.h(c, argv)
		}
		runtime.ReadMemStats(&after)
		if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > 0.5 {
			t.Errorf("%s onto a big list allocates %.1f bytes per element", push.name, per)
		}
	}
}

// TestListTableFull: a list write that finds no room in the keyspace's
// table answers errFull and leaves the list as it was.
func TestListTableFull(t *testing.T) {
	c := newTestCtx()
	c.Table().LimitPages(8)
	do(c, "rpush", "l", "a", "b")
	big := strings.Repeat("v", 9000)
	for n := 0; n < 100; n++ {
		if got := do(c, "set", "k"+strconv.Itoa(n), big); got != ok {
			break
		}
	}
	full := errr(errFull)
	runScript(t, c, []step{
		{"lpush new " + strings.Repeat("c", 3000), full},
		{"exists new", num(0)},
		{"rpush l " + strings.Repeat("c", 3000), full},
		{"linsert l before a " + strings.Repeat("c", 3000), full},
		{"lset l 0 " + strings.Repeat("c", 3000), full},
		{"lrange l 0 -1", bulks("a", "b")},
		{"lpop l", bulk("a")},
		{"lrange l 0 -1", bulks("b")},
	})
}

// TestListTailPops: single RPOPs walk the tail node's elements by offsets
// kept between pops; any other write to that node (pops and pushes at its
// head too), to another list with the same node ids, or a new list under
// the key, must not reuse them.
func TestListTailPops(t *testing.T) {
	c := bigListCtx(t, 40)
	do(c, "rpush", "m", "m0", "m1", "m2", "m3", "m4", "m5", "m6", "m7")
	steps := []struct{ cmd, want string }{
		{"rpop l", bulk("e39")},
		{"rpop m", bulk("m7")},
		{"rpop l", bulk("e38")},
		{"lset l -2 longer-element", "+OK\r\n"},
		{"rpop l", bulk("e37")},
		{"rpop l", bulk("longer-element")},
		{"linsert l before e35 x", num(37)},
		{"rpop l", bulk("e35")},
		{"rpop l", bulk("x")},
		{"rpush l a bb", num(37)},
		{"rpop l", bulk("bb")},
		{"rpoplpush l l", bulk("a")},
		{"rpop l", bulk("e34")},
		{"del l", num(1)},
		{"rpush l n0 n1 n2 n3 n4 n5 n6 n7 n8", num(9)},
		{"rpop l", bulk("n8")},
		{"rpop m", bulk("m6")},
		{"rpop l 2", bulks("n7", "n6")},
		{"rpop l", bulk("n5")},
		{"lrem l -1 n4", num(1)},
		{"rpop l", bulk("n3")},
		{"lpush l h", num(4)},
		{"rpop l", bulk("n2")},
		{"lpop l", bulk("h")},
		{"rpop l", bulk("n1")},
		{"lpush l h2", num(2)},
		{"lrange l 0 -1", bulks("h2", "n0")},
	}
	for _, s := range steps {
		if got := do(c, strings.Fields(s.cmd)...); got != s.want {
			t.Fatalf("%s: %q, want %q", s.cmd, got, s.want)
		}
		if err := c.Table().Check(); err != nil {
			t.Fatalf("%s: %v", s.cmd, err)
		}
	}
}
