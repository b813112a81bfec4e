package kvtable

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func k(i int) []byte { return []byte("key:" + strconv.Itoa(i)) }

// scanAll runs a scan to the end, calling between(step) after each call, and
// returns how often each key was seen.
func scanAll(tb *Table, count int, between func(step int)) map[string]int {
	seen := map[string]int{}
	cur := uint64(0)
	for step := 0; ; step++ {
		cur = tb.Scan(cur, count, func(key []byte, v Value) { seen[string(key)]++ })
		if cur == 0 {
			return seen
		}
		between(step)
	}
}

func TestScanAcrossResize(t *testing.T) {
	clock := &Clock{}
	for _, tc := range []struct {
		name       string
		start, add int // keys present throughout; keys added mid-scan
		drop       bool
	}{
		{"grow", 1000, 60000, false},
		{"shrink", 2000, 0, true},
		{"grow-then-shrink", 2000, 40000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tb := NewTable(clock)
			// Keys 0..start-1 stay for the whole scan; keys from 1e6 on
			// come and go.
			const churn = 1_000_000
			if tc.drop {
				for i := range 60000 {
					tb.SetInt(k(churn+i), int64(i), 0)
				}
			}
			for i := range tc.start {
				tb.SetInt(k(i), int64(i), 0)
			}
			for tb.rehashing() {
				tb.Tick()
			}
			sawRehash := false
			added, dropped := 0, 0
			seen := scanAll(tb, 10, func(step int) {
				for range 200 {
					if added < tc.add {
						tb.SetInt(k(2*churn+added), 0, 0)
						added++
					} else if tc.drop && dropped < 60000 {
						tb.Delete(k(churn + dropped))
						dropped++
					}
				}
				sawRehash = sawRehash || tb.rehashing()
			})
			if !sawRehash {
				t.Fatal("the scan never ran during a rehash")
			}
			for i := range tc.start {
				if seen[string(k(i))] == 0 {
					t.Fatalf("key %d missed", i)
				}
			}
			tb.check(t)
		})
	}
}

func TestScanSkipsExpired(t *testing.T) {
	clock := &Clock{Ms: 100}
	tb := NewTable(clock)
	for i := range 100 {
		tb.SetInt(k(i), 1, int64(90+i%20))
	}
	clock.Ms = 105 // keys with i%20 <= 15 are expired
	seen := scanAll(tb, 7, func(int) {})
	for i := range 100 {
		if got, want := seen[string(k(i))] > 0, i%20 > 15; got != want {
			t.Fatalf("key %d seen %v", i, got)
		}
	}
}

// TestCollisions forces keys to share hash bits and checks that they stay
// distinct.
func TestCollisions(t *testing.T) {
	for _, mask := range []uint64{
		0xffffffff,          // every key: same bucket, same stored hash
		0x00000003_ffffffff, // 4 distinct stored hashes
		0xffff0000_ffffffff, // many buckets, shared low bits
	} {
		t.Run(fmt.Sprintf("%x", mask), func(t *testing.T) {
			tb := NewTable(&Clock{})
			tb.hashMask = mask
			const n = 3000
			for i := range n {
				tb.SetString(k(i), []byte("v"+strconv.Itoa(i)), 0)
			}
			for i := range n {
				v, ok := tb.Get(k(i))
				if !ok || string(v.Str) != "v"+strconv.Itoa(i) {
					t.Fatalf("Get(%d) = %q %v", i, v.Str, ok)
				}
			}
			if _, ok := tb.Get(k(n)); ok {
				t.Fatal("absent key found")
			}
			for i := 0; i < n; i += 2 {
				if !tb.Delete(k(i)) {
					t.Fatalf("Delete(%d) failed", i)
				}
			}
			for i := range n {
				_, ok := tb.Get(k(i))
				if ok != (i%2 == 1) {
					t.Fatalf("Get(%d) after deletes: %v", i, ok)
				}
			}
			seen := scanAll(tb, 100, func(int) {})
			if len(seen) != n/2 {
				t.Fatalf("scan saw %d keys, want %d", len(seen), n/2)
			}
			tb.check(t)
		})
	}
}

func TestMemoryFallsAfterDeletes(t *testing.T) {
	tb := NewTable(&Clock{})
	const n = 200_000
	val := []byte("0123456789abcdef")
	for i := range n {
		tb.SetString(k(i), val, 0)
	}
	full := tb.ArenaBytes()
	order := rand.New(rand.NewPCG(1, 2)).Perm(n)
	for _, i := range order[:n*9/10] {
		tb.Delete(k(i))
	}
	for tb.rehashing() {
		tb.Tick()
	}
	tb.check(t)
	after := tb.ArenaBytes()
	t.Logf("ArenaBytes: %d keys %d, after deleting 90%% %d", n, full, after)
	if after > full/4 {
		t.Fatalf("ArenaBytes %d after deleting 90%% of keys, was %d", after, full)
	}
	for _, i := range order[n*9/10:] {
		tb.Delete(k(i))
	}
	if got := tb.ArenaBytes(); got > 64<<10 {
		t.Fatalf("ArenaBytes %d with no keys", got)
	}
}

func TestOverwriteInPlace(t *testing.T) {
	tb := NewTable(&Clock{})
	tb.SetString([]byte("a"), []byte("hello world"), 0)
	w := tb.lookup(tb.hash([]byte("a")), []byte("a"))
	tb.SetString([]byte("a"), []byte("hello there"), 0)
	tb.SetInt([]byte("a"), 5, 0) // int fits the same item
	if w2 := tb.lookup(tb.hash([]byte("a")), []byte("a")); w2 != w {
		t.Fatal("overwrite moved the entry")
	}
	tb.SetExpire([]byte("a"), 1e12)
	tb.SetExpire([]byte("a"), 0)
	v, _ := tb.Get([]byte("a"))
	if !v.IsInt || v.Int != 5 || v.ExpireAt != 0 {
		t.Fatalf("got %+v", v)
	}
	tb.check(t)
}

func TestMemoryUsage(t *testing.T) {
	clock := &Clock{Ms: 10}
	tb := NewTable(clock)
	tb.SetString(make([]byte, 16), make([]byte, 16), 0)
	if n, ok := tb.MemoryUsage(make([]byte, 16)); !ok || n != 40+8 {
		t.Fatalf("MemoryUsage = %d %v", n, ok)
	}
	tb.SetExpire(make([]byte, 16), 20)
	if n, ok := tb.MemoryUsage(make([]byte, 16)); !ok || n != 48+8+4 {
		t.Fatalf("MemoryUsage with TTL = %d %v", n, ok)
	}
	clock.Ms = 20
	if _, ok := tb.MemoryUsage(make([]byte, 16)); ok || tb.Len() != 0 {
		t.Fatal("expired key reported")
	}
}

func TestRandomKeyMostlyExpired(t *testing.T) {
	clock := &Clock{Ms: 10}
	tb := NewTable(clock)
	for i := range 5000 {
		tb.SetInt(k(i), 1, 15)
	}
	tb.SetInt([]byte("live"), 1, 0)
	clock.Ms = 20
	got, ok := tb.RandomKey()
	if !ok || string(got) != "live" {
		t.Fatalf("RandomKey = %q %v", got, ok)
	}
	tb.Delete([]byte("live"))
	for tb.Len() > 0 {
		if _, ok := tb.RandomKey(); ok {
			t.Fatal("RandomKey found a key among expired ones")
		}
	}
	tb.check(t)
}

// TestRandomKeyUniform draws many random keys from a table whose chains have
// all sorts of lengths: every key must come up about equally often. With 200
// draws expected per key, the bounds are over seven standard deviations away.
func TestRandomKeyUniform(t *testing.T) {
	tb := NewTable(&Clock{})
	const keys, per = 1000, 200
	for i := range keys {
		tb.SetInt(k(i), 1, 0)
	}
	seen := map[string]int{}
	for range keys * per {
		key, ok := tb.RandomKey()
		if !ok {
			t.Fatal("RandomKey found nothing")
		}
		seen[string(key)]++
	}
	if len(seen) != keys {
		t.Fatalf("%d keys came up, want %d", len(seen), keys)
	}
	for key, n := range seen {
		if n < per/2 || n > per*2 {
			t.Errorf("key %q came up %d times, want about %d", key, n, per)
		}
	}
}

// bigOf returns a big aggregate with one element.
func bigOf(clock *Clock) *Table {
	b := NewTable(clock)
	b.SetString([]byte("f"), []byte("v"), 0)
	return b
}

func TestObjects(t *testing.T) {
	clock := &Clock{}
	tb := NewTable(clock)
	big := NewTable(clock)
	big.SetString([]byte("f"), []byte("v"), 0)
	if err := tb.SetBig([]byte("h"), KindHash, big, 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := tb.Get([]byte("h")); v.Kind != KindHash || v.Str != nil || v.Big != big {
		t.Fatalf("Get = %+v", v)
	}
	tb.SetString([]byte("h"), []byte("x"), 0) // releases the object
	if tb.objs[0] != nil || len(tb.objFree) != 1 || big.Len() != 0 {
		t.Fatal("object not released and cleared")
	}
	g := NewTable(clock)
	g.SetString([]byte("f"), []byte("v"), 0)
	tb.SetBig([]byte("g"), KindSet, g, 0)
	tb.Delete([]byte("g"))
	if tb.objs[0] != nil || g.Len() != 0 {
		t.Fatal("object not released by Delete")
	}
	// Detach leaves the object to the caller.
	d := NewTable(clock)
	d.SetString([]byte("f"), []byte("v"), 0)
	tb.SetBig([]byte("d"), KindHash, d, 0)
	if !tb.Detach([]byte("d")) || tb.Exists([]byte("d")) || d.Len() != 1 {
		t.Fatal("Detach cleared the object or kept the key")
	}
	if tb.objs[0] != nil || len(tb.objFree) != 1 {
		t.Fatal("Detach kept the slot")
	}
	if err := tb.SetBig([]byte("e"), KindHash, d, 0); err != nil {
		t.Fatal(err)
	}
	if v, _ := tb.Get([]byte("e")); v.Big != d {
		t.Fatal("detached object not stored again")
	}
}

func TestActiveExpireBudget(t *testing.T) {
	clock := &Clock{Ms: 10}
	tb := NewTable(clock)
	for i := range 100_000 {
		tb.SetInt(k(i), 1, 15)
	}
	clock.Ms = 20
	n := tb.ActiveExpire(0)
	if n == 0 || n > 16 {
		t.Fatalf("ActiveExpire with no budget deleted %d", n)
	}
	total := n
	for tb.ExpiresLen() > 0 {
		total += tb.ActiveExpire(1e9)
	}
	if total != 100_000 || tb.Len() != 0 {
		t.Fatalf("deleted %d, Len %d", total, tb.Len())
	}
}

func TestCanonicalInt(t *testing.T) {
	for s, ok := range map[string]bool{
		"0": true, "-1": true, "123": true, "9223372036854775807": true, "-9223372036854775808": true,
		"": false, "-": false, "-0": false, "01": false, "+1": false, "1a": false,
		"9223372036854775808": false, "-9223372036854775809": false, " 1": false,
	} {
		n, got := CanonicalInt([]byte(s))
		if got != ok || (ok && strconv.FormatInt(n, 10) != s) {
			t.Errorf("CanonicalInt(%q) = %d %v", s, n, got)
		}
	}
}

// TestGrowthWritesNewIndexInOrder: while a resize runs, the new index's
// chunks are handed out as the rehash cursor reaches them, not wherever new
// keys happen to hash, so that the inserts right after a resize starts do
// not fault in most of the new index at once.
func TestGrowthWritesNewIndexInOrder(t *testing.T) {
	tb := NewTable(&Clock{})
	defer tb.Clear()
	// Grow until a resize starts into an index of 64 chunks (64Ki buckets).
	i := 0
	for !tb.rehashing() || len(tb.ix[1].dir) < 64 {
		tb.SetString(k(i), val16, 0)
		i++
	}
	newChunks := len(tb.ix[1].dir)
	const more = 2000
	for j := range more {
		tb.SetString(k(i+j), val16, 0)
	}
	if !tb.rehashing() {
		t.Fatalf("resize over after %d inserts", more)
	}
	written := 0
	for _, c := range tb.ix[1].dir {
		if c != nil {
			written++
		}
	}
	// Old chunk c moves into new chunks c and c+len(old.dir): two per old
	// chunk the cursor has entered.
	reached := tb.rehashIdx>>chunkShift + 1
	if written > 2*reached {
		t.Errorf("%d of %d new chunks written after %d inserts; the cursor is in old chunk %d, so at most %d",
			written, newChunks, more, reached-1, 2*reached)
	}
	tb.check(t)
	for j := range i + more {
		if v, ok := tb.Get(k(j)); !ok || string(v.Str) != string(val16) {
			t.Fatalf("key %d lost across the resize", j)
		}
	}
}

// AddInt updates an integer where it lies and declines, changing nothing,
// whatever needs more than that.
func TestAddInt(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	tb.SetInt([]byte("n"), 41, 5000)
	before := tb.ArenaBytes()
	if n, ok := tb.AddInt([]byte("n"), 1); !ok || n != 42 {
		t.Fatalf("AddInt = %d, %v; want 42, true", n, ok)
	}
	if v, _ := tb.Get([]byte("n")); !v.IsInt || v.Int != 42 || v.ExpireAt != 5000 {
		t.Fatalf("after AddInt: %+v; want 42 with its TTL", v)
	}
	if tb.ArenaBytes() != before || tb.ExpiresLen() != 1 {
		t.Fatalf("AddInt moved the entry: arena %d -> %d, %d TTLs", before, tb.ArenaBytes(), tb.ExpiresLen())
	}
	tb.SetUnsharedInt([]byte("u"), 7, 0)
	if n, ok := tb.AddInt([]byte("u"), -8); !ok || n != -1 {
		t.Fatalf("AddInt(u) = %d, %v; want -1, true", n, ok)
	}
	if v, _ := tb.Get([]byte("u")); v.Unshared || v.Int != -1 {
		t.Fatalf("sum kept the unshared mark or is wrong: %+v", v)
	}

	tb.SetInt([]byte("max"), math.MaxInt64, 0)
	tb.SetInt([]byte("min"), math.MinInt64, 0)
	tb.SetString([]byte("s"), []byte("012"), 0)
	tb.SetVerbatim([]byte("v"), []byte("12"), 0, false)
	tb.SetBig([]byte("o"), KindHash, bigOf(clock), 0)
	tb.SetInt([]byte("gone"), 1, 1500)
	for _, tc := range []struct {
		key string
		by  int64
	}{
		{"missing", 1}, {"max", 1}, {"min", -1}, {"s", 1}, {"v", 1}, {"o", 1}, {"gone", 1},
	} {
		// A Get of the expired key would delete it: read the others only,
		// so that the refusal of "gone" is the write's own.
		var before Value
		if tc.key == "gone" {
			clock.Ms = 2000
		} else {
			before, _ = tb.Get([]byte(tc.key))
		}
		if n, ok := tb.AddInt([]byte(tc.key), tc.by); ok {
			t.Errorf("AddInt(%s, %d) = %d, true; want a refusal", tc.key, tc.by, n)
		}
		if after, _ := tb.Get([]byte(tc.key)); after.Int != before.Int || string(after.Str) != string(before.Str) || after.Kind != before.Kind {
			t.Errorf("refused AddInt(%s) changed %+v to %+v", tc.key, before, after)
		}
	}
	if n, ok := tb.AddInt([]byte("max"), -1); !ok || n != math.MaxInt64-1 {
		t.Fatalf("AddInt(max, -1) = %d, %v", n, ok)
	}
	if n, ok := tb.AddInt([]byte("min"), 0); !ok || n != math.MinInt64 {
		t.Fatalf("AddInt(min, 0) = %d, %v", n, ok)
	}
}

// Append writes at the end of a string stored as bytes and declines,
// changing nothing, whatever needs more than that.
func TestAppend(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	tb.SetString([]byte("s"), []byte("ab"), 5000)
	if n, ok, err := tb.Append([]byte("s"), []byte("cd"), 4); !ok || err != nil || n != 4 {
		t.Fatalf("Append = %d, %v, %v; want 4, true, nil", n, ok, err)
	}
	if v, _ := tb.Get([]byte("s")); string(v.Str) != "abcd" || !v.Grown || v.ExpireAt != 5000 {
		t.Fatalf("after Append: %+v; want grown abcd with its TTL", v)
	}
	tb.SetInt([]byte("n"), 12, 0)
	tb.SetBig([]byte("o"), KindHash, bigOf(clock), 0)
	tb.SetString([]byte("gone"), []byte("x"), 1500)
	for _, tc := range []struct {
		key    string
		maxLen int
	}{
		{"missing", 10}, {"n", 10}, {"o", 10}, {"s", 4}, {"gone", 10},
	} {
		// A Get of the expired key would delete it: read the others only,
		// so that the refusal of "gone" is the write's own.
		var before Value
		if tc.key == "gone" {
			clock.Ms = 2000
		} else {
			before, _ = tb.Get([]byte(tc.key))
		}
		if n, ok, _ := tb.Append([]byte(tc.key), []byte("z"), tc.maxLen); ok {
			t.Errorf("Append(%s) = %d, true; want a refusal", tc.key, n)
		}
		if after, _ := tb.Get([]byte(tc.key)); after.Int != before.Int || string(after.Str) != string(before.Str) || after.Kind != before.Kind {
			t.Errorf("refused Append(%s) changed %+v to %+v", tc.key, before, after)
		}
	}
	tb.check(t)
}

// Tick looks after the big aggregates too: blocks a big hash freed go back
// to the kernel while its key stays.
func TestTickBigAggregates(t *testing.T) {
	clock := &Clock{}
	tb := NewTable(clock)
	big := NewTable(clock)
	for i := range 200_000 {
		big.SetString(k(i), []byte("value of some length"), 0)
	}
	if err := tb.SetBig([]byte("h"), KindHash, big, 0); err != nil {
		t.Fatal(err)
	}
	for i := range 199_000 {
		big.Delete(k(i))
	}
	before := tb.OffHeapBytes()
	for range 400 {
		tb.Tick()
		time.Sleep(time.Millisecond)
	}
	if after := tb.OffHeapBytes(); after >= before/2 {
		t.Fatalf("off-heap bytes %d -> %d after ticks: the big hash's freed blocks stayed", before, after)
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
}

// TestScanReadsInCallback reads the scanned table from Scan's callback
// while a resize is in progress, as SINTER s s does: the reads must not move
// the resize on under the scan.
func TestScanReadsInCallback(t *testing.T) {
	tb := NewTable(&Clock{})
	n := 0
	for ; n < 100000 && (n < 100 || !tb.rehashing()); n++ {
		if err := tb.SetString(k(n), nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	if !tb.rehashing() {
		t.Fatal("no resize in progress to scan across")
	}
	seen := map[string]int{}
	for cur := uint64(0); ; {
		cur = tb.Scan(cur, 16, func(key []byte, v Value) {
			seen[string(key)]++
			for i := range 8 {
				tb.Exists(k(i))
			}
			if !tb.Exists(key) {
				t.Fatalf("%s not found while it is scanned", key)
			}
		})
		if cur == 0 {
			break
		}
	}
	for i := range n {
		if seen[string(k(i))] == 0 {
			t.Fatalf("%s never visited of %d keys", k(i), n)
		}
	}
}

// TestAddMember: a new key is stored with an empty value, a live one is left
// as it was, and an expired one is replaced.
func TestAddMember(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	if added, err := tb.AddMember([]byte("m")); !added || err != nil {
		t.Fatalf("new member: added %v, %v", added, err)
	}
	if v, ok := tb.Get([]byte("m")); !ok || v.Kind != KindString || len(v.Str) != 0 || v.IsInt {
		t.Fatalf("new member reads %+v, %v", v, ok)
	}
	if err := tb.SetString([]byte("v"), []byte("kept"), 0); err != nil {
		t.Fatal(err)
	}
	if added, err := tb.AddMember([]byte("v")); added || err != nil {
		t.Fatalf("live key: added %v, %v", added, err)
	}
	if v, _ := tb.Get([]byte("v")); string(v.Str) != "kept" {
		t.Fatalf("live key now %q", v.Str)
	}
	if err := tb.SetString([]byte("e"), []byte("old"), 2000); err != nil {
		t.Fatal(err)
	}
	clock.Ms = 2000
	if added, err := tb.AddMember([]byte("e")); !added || err != nil {
		t.Fatalf("expired key: added %v, %v", added, err)
	}
	if v, ok := tb.Get([]byte("e")); !ok || len(v.Str) != 0 || v.ExpireAt != 0 {
		t.Fatalf("expired key now %+v, %v", v, ok)
	}
	if tb.Len() != 3 || tb.ExpiresLen() != 0 {
		t.Fatalf("len %d, expires %d", tb.Len(), tb.ExpiresLen())
	}
}

// AddInt finds the value after keys of every length-prefix size, with and
// without a TTL.
func TestAddIntLongKeys(t *testing.T) {
	tb := NewTable(&Clock{Ms: 1000})
	for _, kl := range []int{1, 127, 128, 300, 20000} {
		for _, ttl := range []int64{0, 5000} {
			key := []byte(strings.Repeat("k", kl-1) + strconv.FormatInt(ttl, 10)[:1])
			tb.SetInt(key, 1<<40, ttl)
			if n, ok := tb.AddInt(key, -3); !ok || n != 1<<40-3 {
				t.Fatalf("AddInt(%d-byte key, ttl %d) = %d, %v", kl, ttl, n, ok)
			}
			if v, _ := tb.Get(key); !v.IsInt || v.Int != 1<<40-3 || v.ExpireAt != ttl {
				t.Fatalf("%d-byte key, ttl %d: %+v after AddInt", kl, ttl, v)
			}
		}
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
}
