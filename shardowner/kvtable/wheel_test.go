package kvtable

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// TestExpireAllAtOnce gives 300k keys the same expiry and checks that once it
// passes, each ActiveExpire call does bounded work: with no budget only the
// one batch it reads ahead before its first look at the clock, with a small
// one about what the budget allows; and that repeated calls delete every
// key, keeping the table consistent, and give the memory back.
func TestExpireAllAtOnce(t *testing.T) {
	clock := &Clock{Ms: 1_000_000}
	tb := NewTable(clock)
	const n = 300_000
	for i := range n {
		if err := tb.SetString(k(i), []byte("0123456789abcdef"), 1_001_000); err != nil {
			t.Fatal(err)
		}
	}
	full := tb.ArenaBytes()
	if got := tb.ActiveExpire(1e9); got != 0 || tb.ExpireDue() {
		t.Fatalf("ActiveExpire before the expiry deleted %d, due %v", got, tb.ExpireDue())
	}
	clock.Ms = 1_001_008
	if !tb.ExpireDue() {
		t.Fatal("not due after the expiry's slice ended")
	}
	if got := tb.ActiveExpire(0); got == 0 || got > expireBatch {
		t.Fatalf("ActiveExpire(0) deleted %d keys", got)
	}
	deleted, calls := 0, 0
	var longest time.Duration
	for tb.ExpiresLen() > 0 {
		start := time.Now()
		deleted += tb.ActiveExpire(100_000)
		longest = max(longest, time.Since(start))
		if calls++; calls%200 == 0 {
			tb.check(t)
		}
	}
	t.Logf("%d calls of 100 us deleted %d keys; longest call %v", calls, deleted, longest)
	if tb.Len() != 0 {
		t.Fatalf("Len %d after expiring every key", tb.Len())
	}
	if calls < 5 {
		t.Fatalf("%d keys deleted in %d calls of 100 us: the budget is not kept", n, calls)
	}
	if tb.Expired() != n {
		t.Fatalf("Expired() = %d, want %d", tb.Expired(), n)
	}
	tb.check(t)
	for tb.rehashing() {
		tb.Tick()
	}
	if got := tb.ArenaBytes() - tb.exp.bytes(); got > 64<<10 {
		t.Fatalf("ArenaBytes %d after every key expired, was %d", got, full)
	}
	if tb.exp.bytes() > 16<<10 {
		t.Fatalf("wheel holds %d bytes with no key", tb.exp.bytes())
	}
}

// TestExpireOnlyExpired checks that ActiveExpire deletes exactly the keys
// whose expiry slice has ended, whichever level of the wheel they are on,
// and leaves every other key, with or without a TTL.
func TestExpireOnlyExpired(t *testing.T) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	rng := rand.New(rand.NewPCG(3, 4))
	exp := map[int]int64{}
	for i := range 100_000 {
		var e int64
		switch i % 4 {
		case 0: // no TTL
		case 1:
			e = clock.Ms + 1 + rng.Int64N(10_000)
		case 2:
			e = clock.Ms + 1 + rng.Int64N(3_600_000)
		case 3:
			e = clock.Ms + 1 + rng.Int64N(10*365*86_400_000)
		}
		tb.SetInt(k(i), int64(i), e)
		exp[i] = e
	}
	tb.check(t)
	// Advance in uneven steps to 30 days on.
	for step := 0; clock.Ms < 1_700_000_000_000+30*86_400_000; step++ {
		clock.Ms += 1 + rng.Int64N(1<<uint(rng.IntN(32)))
		for tb.ActiveExpire(1e9) > 0 {
		}
		for i, e := range exp {
			_, in := tb.ix[0].count, tb.lookup(tb.hash(k(i)), k(i)) != 0
			// A key is deleted at most a slice after its expiry: 8 ms,
			// or under 1% of its TTL.
			late := max(int64(8), (e-1_700_000_000_000)/100)
			switch {
			case e != 0 && e <= clock.Ms-late && in:
				t.Fatalf("step %d: key %d expiring at %d still there at %d", step, i, e, clock.Ms)
			case (e == 0 || e > clock.Ms) && !in:
				t.Fatalf("step %d: key %d expiring at %d deleted at %d", step, i, e, clock.Ms)
			}
			if !in {
				delete(exp, i)
			}
		}
		if step%10 == 0 {
			tb.check(t)
		}
	}
	tb.check(t)
}

// TestWheelFollowsChanges keeps the wheel checked against the table while
// keys get, change and lose their TTL in every way a command can: SET over
// a key with and without one, EXPIRE to an earlier and a later time,
// PERSIST, DEL, APPEND that moves the entry, compaction, expiry found by a
// read or a write, and expiries past the wheel's last window.
func TestWheelFollowsChanges(t *testing.T) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	rng := rand.New(rand.NewPCG(7, 8))
	const keys = 5000
	ttl := func() int64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return 1<<62 + rng.Int64N(1000) // past the last window
		case 2:
			return clock.Ms + rng.Int64N(100)
		case 3:
			return clock.Ms + rng.Int64N(100_000)
		}
		return clock.Ms + rng.Int64N(100*86_400_000)
	}
	val := make([]byte, 300)
	for op := range 300_000 {
		key := k(rng.IntN(keys))
		switch r := rng.IntN(100); {
		case r < 30:
			tb.SetString(key, val[:rng.IntN(len(val))], ttl())
		case r < 45:
			tb.SetInt(key, int64(op), ttl())
		case r < 60:
			e := ttl()
			if e == 0 {
				e = clock.Ms + 1
			}
			tb.SetExpire(key, e)
		case r < 67:
			tb.SetExpire(key, 0)
		case r < 77:
			tb.Delete(key)
		case r < 85:
			if v, ok := tb.Get(key); ok && !v.IsInt {
				tb.WriteAt(key, len(v.Str), val[:rng.IntN(100)])
			}
		case r < 95:
			clock.Ms += rng.Int64N(50)
		default:
			// With no budget it stops after a batch, keys still due.
			tb.ActiveExpire(int64(rng.IntN(3)) * 10_000)
		}
		if op%50 == 0 {
			if err := tb.checkWheel(); err != nil {
				t.Fatalf("op %d: %v", op, err)
			}
		}
		if op%5000 == 0 {
			tb.check(t)
		}
	}
	tb.check(t)
	clock.Ms = 1<<62 + 1000
	for tb.ActiveExpire(1e9) > 0 {
	}
	tb.check(t)
	if tb.ExpiresLen() != 0 {
		t.Fatalf("%d keys with a TTL left after every expiry passed", tb.ExpiresLen())
	}
}

// TestMeanExpire checks the wheel's exact sum of expiry times.
func TestMeanExpire(t *testing.T) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	for i := range 1000 {
		tb.SetInt(k(i), 1, clock.Ms+int64(1000+i%2*1000))
	}
	if got, want := tb.MeanExpire(), clock.Ms+1500; got != want {
		t.Fatalf("MeanExpire %d, want %d", got, want)
	}
	for i := range 500 {
		tb.SetExpire(k(2*i), 0)
	}
	if got, want := tb.MeanExpire(), clock.Ms+2000; got != want {
		t.Fatalf("MeanExpire %d after PERSIST of the short ones, want %d", got, want)
	}
}

func BenchmarkSetTTL(b *testing.B) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	keys := make([][]byte, 1<<20)
	for i := range keys {
		keys[i] = []byte("key:" + strconv.Itoa(i))
	}
	val := []byte("0123456789abcdef")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		tb.SetString(keys[i&(len(keys)-1)], val, clock.Ms+3000+int64(i&1023))
	}
}

// BenchmarkActiveExpire is the cost of active expiry per expired key.
func BenchmarkActiveExpire(b *testing.B) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	val := []byte("0123456789abcdef")
	b.ReportAllocs()
	b.StopTimer()
	for done := 0; done < b.N; {
		n := min(b.N-done, 1<<20)
		for i := range n {
			tb.SetString(k(done+i), val, clock.Ms+1+int64(i&4095))
		}
		clock.Ms += 5000
		b.StartTimer()
		for tb.ActiveExpire(1e9) > 0 {
		}
		b.StopTimer()
		done += n
	}
}

// BenchmarkExpireChurn is the cost per expired key in a cache at steady
// state: 1M keys with 100-byte values and a 3 s TTL, 100k written and as
// many expiring every 100 ms, so entries, index buckets and the wheel are
// spread over memory as in a server.
func BenchmarkExpireChurn(b *testing.B) {
	clock := &Clock{Ms: 1_700_000_000_000}
	tb := NewTable(clock)
	val := make([]byte, 100)
	rng := rand.New(rand.NewPCG(1, 1))
	key := make([]byte, 0, 32)
	write := func(n int) {
		for range n {
			key = strconv.AppendUint(append(key[:0], "ttl:"...), rng.Uint64N(10_000_000), 10)
			tb.SetString(key, val, clock.Ms+3000)
		}
	}
	for range 30 {
		write(100_000)
		clock.Ms += 100
		for tb.ActiveExpire(1e9) > 0 {
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.StopTimer()
	for done := 0; done < b.N; {
		write(100_000)
		clock.Ms += 100
		before := tb.Expired()
		b.StartTimer()
		for tb.ActiveExpire(1e9) > 0 {
		}
		b.StopTimer()
		done += int(tb.Expired() - before)
	}
}
