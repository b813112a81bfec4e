package kvtable

import (
	"bytes"
	"strconv"
	"testing"
)

func trackedTable(a *Access) (*Table, *Clock) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	tb.TrackAccess(a)
	return tb, clock
}

func idleOf(t *testing.T, tb *Table, key []byte) int64 {
	t.Helper()
	ms, ok := tb.IdleMs(key)
	if !ok {
		t.Fatalf("IdleMs(%q): no such key", key)
	}
	return ms
}

// TestIdleTime checks that idle time grows with the clock, that what reads
// or writes a key resets it, and that NoTouch and the accessors do not.
func TestIdleTime(t *testing.T) {
	tb, clock := trackedTable(&Access{})
	key := []byte("k")
	tb.SetString(key, []byte("abc"), 0)
	if got := idleOf(t, tb, key); got != 0 {
		t.Fatalf("new key idle %d", got)
	}
	clock.Ms += 5_500
	if got := idleOf(t, tb, key); got != 5000 && got != 6000 {
		t.Fatalf("idle %d after 5.5 s", got)
	}
	// Nothing of these touches.
	tb.Scan(0, 10, func([]byte, Value) {})
	tb.RandomKey()
	tb.MemoryUsage(key)
	tb.Probe(key)
	tb.TouchEntry(tb.Hash(key))
	tb.Freq(key)
	tb.SampleEvict(5, false, ScoreLRU, func([]byte, uint64) {})
	for pos := range tb.WalkLen() {
		tb.WalkAt(pos, func([]byte, Value, Accessed) {})
	}
	tb.NoTouch = true
	tb.Get(key)
	tb.Exists(key)
	tb.Append(key, []byte("d"), 100)
	tb.SetExpire(key, clock.Ms+1e6)
	tb.NoTouch = false
	before := idleOf(t, tb, key)
	if before < 5000 {
		t.Fatalf("idle %d: something touched the key", before)
	}

	touches := []struct {
		name string
		op   func()
	}{
		{"Get", func() { tb.Get(key) }},
		{"Exists", func() { tb.Exists(key) }},
		{"Append", func() { tb.Append(key, []byte("e"), 100) }},
		{"WriteAt", func() { tb.WriteAt(key, 0, []byte("x")) }},
		{"Insert", func() { tb.Insert(key, 0, []byte("y"), 100) }},
		{"Splice", func() { tb.Splice(key, 0, 1, nil) }},
		{"RawString", func() { tb.RawString(key) }},
		{"MarkGrown", func() { tb.MarkGrown(key) }},
		{"SetExpire", func() { tb.SetExpire(key, 0) }},
		{"SetExpire again", func() { tb.SetExpire(key, clock.Ms+1e6) }},
		{"SetString", func() { tb.SetString(key, []byte("overwritten"), 0) }},
		{"AddInt", func() { tb.SetInt(key, 1, 0); clock.Ms += 3000; tb.AddInt(key, 1) }},
	}
	for _, c := range touches {
		clock.Ms += 3000
		if idleOf(t, tb, key) < 3000 {
			t.Fatalf("before %s: idle below 3 s", c.name)
		}
		c.op()
		if got := idleOf(t, tb, key); got != 0 {
			t.Fatalf("%s left idle %d", c.name, got)
		}
	}
	// An overwrite is a new value, with NoTouch too, under LRU.
	clock.Ms += 3000
	tb.NoTouch = true
	tb.SetString(key, []byte("new"), 0)
	tb.NoTouch = false
	if got := idleOf(t, tb, key); got != 0 {
		t.Fatalf("overwrite left idle %d", got)
	}
	if _, ok := tb.IdleMs([]byte("missing")); ok {
		t.Fatal("IdleMs of a missing key")
	}
	tb.check(t)
}

// TestAccessSurvivesMoves gives keys distinct idle times, then moves their
// entries every way a table does (compaction after mass deletes, values
// that outgrow their items, TTLs added and removed, resizes), with
// NoTouch set so that nothing resets them, and checks every key's idle time.
func TestAccessSurvivesMoves(t *testing.T) {
	tb, clock := trackedTable(&Access{})
	const n = 30000
	want := map[string]int64{}
	for i := range n {
		if i%1000 == 0 {
			clock.Ms += 1000
		}
		tb.SetString(k(i), []byte("value:"+strconv.Itoa(i)), 0)
	}
	end := clock.Ms
	for i := range n {
		want[string(k(i))] = (end/1000 - (1_700_000_000_000/1000 + int64(i/1000) + 1)) * 1000
	}
	// Big entries, in large pages.
	big := bytes.Repeat([]byte("b"), 9000)
	for i := n; i < n+20; i++ {
		tb.SetString(k(i), big, 0)
		want[string(k(i))] = 0
	}
	clock.Ms += 7000
	for key := range want {
		want[key] += 7000
	}
	check := func(stage string) {
		t.Helper()
		tb.check(t)
		for key, w := range want {
			if got := idleOf(t, tb, []byte(key)); got != w {
				t.Fatalf("%s: IdleMs(%q) = %d, want %d", stage, key, got, w)
			}
		}
	}
	check("filled")
	tb.NoTouch = true
	// Deleting most keys leaves sparse pages that compaction empties, and
	// shrinks the index.
	for i := range n {
		if i%7 != 0 {
			tb.Delete(k(i))
			delete(want, string(k(i)))
		}
	}
	for tb.rehashing() {
		tb.Tick()
	}
	check("after deletes")
	// Values that outgrow their items move to bigger ones.
	for i := 0; i < n; i += 14 {
		tb.Append(k(i), bytes.Repeat([]byte("+"), 50), 1<<20)
		tb.WriteAt(k(i+7), 200, []byte("!"))
	}
	check("after growth")
	for i := 0; i < n; i += 21 {
		tb.SetExpire(k(i), clock.Ms+1e9)
	}
	check("after TTLs")
	for i := 0; i < n; i += 42 {
		tb.SetExpire(k(i), 0)
	}
	for i := n; i < n+20; i++ {
		tb.Insert(k(i), 0, []byte("front"), 1<<20)
	}
	check("after more moves")
	// Growing the table again moves more entries into pages being filled.
	for i := 2 * n; i < 3*n; i++ {
		tb.SetString(k(i), []byte("x"), 0)
		want[string(k(i))] = 0
	}
	for i := 2 * n; i < 3*n; i++ {
		tb.Delete(k(i))
		delete(want, string(k(i)))
	}
	check("after a second fill")
}

// TestLFU checks that an LFU counter starts at 5, grows with about the
// logarithm of the accesses, decays with time, and that an overwrite keeps
// it.
func TestLFU(t *testing.T) {
	acc := &Access{LFU: true, LogFactor: 10, DecayMinutes: 1}
	tb, clock := trackedTable(acc)
	key := []byte("k")
	tb.SetString(key, []byte("v"), 0)
	freq := func() int {
		t.Helper()
		f, ok := tb.Freq(key)
		if !ok {
			t.Fatal("Freq: no key")
		}
		return f
	}
	if f := freq(); f != lfuInitVal {
		t.Fatalf("new key counter %d", f)
	}
	hits := 0
	hit := func(to int) {
		for ; hits < to; hits++ {
			tb.Get(key)
		}
	}
	// Redis's table for lfu-log-factor 10: 100 hits give about 10, 1000
	// about 18, 100K about 142, 1M 255.
	for _, c := range []struct{ hits, lo, hi int }{{100, 7, 14}, {1000, 14, 24}, {100_000, 110, 170}, {1_000_000, 220, 255}} {
		hit(c.hits)
		if f := freq(); f < c.lo || f > c.hi {
			t.Fatalf("%d hits: counter %d, want %d..%d", c.hits, f, c.lo, c.hi)
		}
	}
	before := freq()
	// Decay: one per minute, read without being stored back.
	clock.Ms += 10 * 60_000
	if f := freq(); f != before-10 {
		t.Fatalf("after 10 minutes counter %d, want %d", f, before-10)
	}
	if f := freq(); f != before-10 {
		t.Fatalf("Freq changed the counter: %d", f)
	}
	if idle := idleOf(t, tb, key); idle != 10*60_000 {
		t.Fatalf("LFU idle %d", idle)
	}
	// An access stores the decayed counter, stamped now.
	tb.Get(key)
	if f := freq(); f != before-10 && f != before-9 {
		t.Fatalf("after an access counter %d, want %d", f, before-10)
	}
	// An overwrite, moved to a bigger item, keeps the counter.
	tb.NoTouch = true
	c := freq()
	tb.SetString(key, bytes.Repeat([]byte("v"), 500), 0)
	tb.SetString(key, bytes.Repeat([]byte("v"), 9000), 0)
	if f := freq(); f != c {
		t.Fatalf("overwrite under NoTouch: counter %d, was %d", f, c)
	}
	tb.NoTouch = false
	// Decay to nothing, then no lower.
	clock.Ms += 300 * 60_000
	if f := freq(); f != 0 {
		t.Fatalf("long idle counter %d", f)
	}
	// No decay with DecayMinutes 0.
	acc.DecayMinutes = 0
	if f := freq(); f != c {
		t.Fatalf("without decay counter %d, want %d", f, c)
	}
	// A key new under LFU, and a missing one.
	tb.SetString([]byte("other"), nil, 0)
	if f, _ := tb.Freq([]byte("other")); f != lfuInitVal {
		t.Fatalf("new key counter %d", f)
	}
	if _, ok := tb.Freq([]byte("missing")); ok {
		t.Fatal("Freq of a missing key")
	}
	tb.check(t)
}

// TestLFUMinutesWrap checks the decay across the wrap of the 16-bit minutes.
func TestLFUMinutesWrap(t *testing.T) {
	tb, clock := trackedTable(&Access{LFU: true, LogFactor: 10, DecayMinutes: 1})
	// Just before the minutes wrap.
	clock.Ms = (65536*10 + 65530) * 60_000
	key := []byte("k")
	tb.SetString(key, nil, 0)
	tb.SetFreq(key, 100)
	clock.Ms += 10 * 60_000 // now 4 minutes past the wrap
	// Redis counts 65535-then+now: 9 periods.
	if f, _ := tb.Freq(key); f != 91 {
		t.Fatalf("counter %d across the wrap, want 91", f)
	}
}

func TestSetIdleSetFreq(t *testing.T) {
	lru, clock := trackedTable(&Access{})
	key := []byte("k")
	lru.SetString(key, nil, 0)
	if !lru.SetIdle(key, 100) {
		t.Fatal("SetIdle: no key")
	}
	if got := idleOf(t, lru, key); got != 100_000 {
		t.Fatalf("idle %d after SetIdle 100", got)
	}
	lru.SetIdle(key, 1<<40)
	if got := idleOf(t, lru, key); got != accessMask*1000 {
		t.Fatalf("idle %d after a huge SetIdle", got)
	}
	// Idle times past the clock's value wrap as the clock does.
	lru.SetIdle(key, clock.Ms/1000%(1<<24)+5)
	if got := idleOf(t, lru, key); got != (clock.Ms/1000%(1<<24)+5)*1000 {
		t.Fatalf("idle %d after SetIdle past the clock's value", got)
	}
	lru.SetIdle(key, 0)
	lru.SetIdle(key, -1)
	lru.SetFreq(key, 50)
	if got := idleOf(t, lru, key); got != 0 {
		t.Fatalf("idle %d after SetIdle 0, -1 and SetFreq", got)
	}
	if f, _ := lru.Freq(key); f != 0 {
		t.Fatalf("LRU Freq %d", f)
	}
	if lru.SetIdle([]byte("missing"), 5) || lru.SetFreq([]byte("missing"), 5) {
		t.Fatal("SetIdle or SetFreq of a missing key")
	}

	lfu, _ := trackedTable(&Access{LFU: true, LogFactor: 10, DecayMinutes: 1})
	lfu.SetString(key, nil, 0)
	lfu.SetFreq(key, 300)
	if f, _ := lfu.Freq(key); f != 255 {
		t.Fatalf("counter %d after SetFreq 300", f)
	}
	lfu.SetFreq(key, 17)
	lfu.SetIdle(key, 1000)
	lfu.SetFreq(key, -1)
	if f, _ := lfu.Freq(key); f != 17 {
		t.Fatalf("counter %d after SetFreq 17 and SetIdle", f)
	}
}

// TestUntracked checks what the accessors say on a table that tracks
// nothing, and that TrackAccess wants an empty table.
func TestUntracked(t *testing.T) {
	tb := NewTable(&Clock{Ms: 5})
	key := []byte("k")
	tb.SetString(key, []byte("v"), 0)
	if ms, ok := tb.IdleMs(key); ms != 0 || !ok {
		t.Fatalf("IdleMs = %d %v", ms, ok)
	}
	if f, ok := tb.Freq(key); f != 0 || !ok {
		t.Fatalf("Freq = %d %v", f, ok)
	}
	if !tb.SetIdle(key, 5) || !tb.SetFreq(key, 5) {
		t.Fatal("SetIdle or SetFreq of a live key")
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("TrackAccess on a table with keys did not panic")
			}
		}()
		tb.TrackAccess(&Access{})
	}()
	// Emptied, with a page kept for reuse: tracking drops it.
	tb.Delete(key)
	tb.TrackAccess(&Access{})
	tb.SetString(key, []byte("v"), 0)
	tb.check(t)
	tb.Delete(key)
	tb.TrackAccess(nil)
	tb.SetString(key, []byte("v"), 0)
	tb.check(t)
}
