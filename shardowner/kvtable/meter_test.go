package kvtable

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// meteredTotal counts afresh what a meter should hold for t: its own
// bytes and those of its big aggregates.
func meteredTotal(t *Table) int64 {
	n := int64(t.heldBytes())
	for _, o := range t.objs {
		if o != nil {
			n += meteredTotal(o)
		}
	}
	return n
}

// TestMeterRandom drives two databases and their big aggregates, sharing
// one meter, through random writes, deletes, expiry, Detach and SetBig
// again, Clear, and the compaction and resizing those bring, and checks
// that the meter always equals a recount of what they hold.
func TestMeterRandom(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { runMeter(t, seed) })
	}
}

func runMeter(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	clock := &Clock{Ms: 1_000_000}
	m := &Meter{}
	dbs := []*Table{NewTable(clock), NewTable(clock)}
	for _, db := range dbs {
		db.SetMeter(m)
	}
	var detached []*Table // big aggregates between Detach and SetBig
	val := make([]byte, 12000)
	valueOf := func() []byte {
		switch r := rng.IntN(100); {
		case r < 3:
			return val[:8200+rng.IntN(3000)] // a large page
		case r < 10:
			return val[:rng.IntN(2000)]
		}
		return val[:rng.IntN(60)]
	}
	expOf := func() int64 {
		if rng.IntN(4) == 0 {
			return clock.Ms + 1 + rng.Int64N(500)
		}
		return 0
	}
	newBig := func() *Table {
		big := NewTable(clock)
		if rng.IntN(2) == 0 {
			big.SetMeter(m) // else SetBig puts it on the meter
		}
		if rng.IntN(3) == 0 {
			big.Order = NewOrder(big)
			for i := range 1 + rng.IntN(40) {
				big.Order.Pages.SetString(big.Order.Key(uint32(i)), val[:100+rng.IntN(MaxPageBytes-100)], 0)
			}
		}
		for i := range 1 + rng.IntN(3000) {
			big.SetString(k(i), valueOf(), 0)
		}
		return big
	}
	ops := 60_000
	if testing.Short() {
		ops = 15_000
	}
	space := 3000
	for op := range ops {
		db := dbs[rng.IntN(len(dbs))]
		key := k(rng.IntN(space))
		switch r := rng.IntN(1000); {
		case r < 400:
			if err := db.SetString(key, valueOf(), expOf()); err != nil {
				t.Fatal(err)
			}
		case r < 420:
			kind := KindHash
			big := newBig()
			if big.Order != nil {
				kind = KindZSet
			}
			if err := db.SetBig(key, kind, big, expOf()); err != nil {
				t.Fatal(err)
			}
		case r < 520:
			// Write into a big aggregate, or delete from it.
			if v, ok := db.Get(key); ok && v.Big != nil {
				for range 1 + rng.IntN(200) {
					e := k(rng.IntN(4000))
					if rng.IntN(2) == 0 {
						v.Big.SetString(e, valueOf(), 0)
					} else if v.Big.Len() > 1 {
						v.Big.Delete(e)
					}
				}
			}
		case r < 540:
			if v, ok := db.Get(key); ok && v.Big != nil {
				db.Detach(key)
				detached = append(detached, v.Big)
			}
		case r < 560:
			if n := len(detached); n > 0 {
				big := detached[n-1]
				detached = detached[:n-1]
				kind := KindHash
				if big.Order != nil {
					kind = KindZSet
				}
				if err := db.SetBig(key, kind, big, 0); err != nil {
					t.Fatal(err)
				}
			}
		case r < 580:
			if _, err := db.SetExpire(key, expOf()); err != nil {
				t.Fatal(err)
			}
		case r < 600:
			clock.Ms += rng.Int64N(100)
			db.ActiveExpire(1e9)
		case r < 603:
			// Many keys with TTLs spread wide, then a jump past them all:
			// the TTL wheel grows chunks and empties again.
			for i := range 3000 {
				db.SetString([]byte("ttl:"+strconv.Itoa(i)), val[:8], clock.Ms+1+rng.Int64N(1<<22))
			}
		case r < 605:
			clock.Ms += 1 << 22
			db.ActiveExpire(1e9)
		case r < 610:
			db.Tick()
		case r < 612:
			db.Clear()
		case r < 613:
			// A big aggregate the shard lets go of after a failed build.
			if n := len(detached); n > 0 {
				detached[n-1].Clear()
				detached = detached[:n-1]
			}
		default:
			db.Delete(key)
		}
		if op%500 == 0 || op == ops-1 {
			want := int64(0)
			for _, db := range dbs {
				db.check(t)
				want += meteredTotal(db)
			}
			for _, big := range detached {
				want += meteredTotal(big)
			}
			if m.Bytes != want {
				t.Fatalf("op %d: meter %d, tables hold %d", op, m.Bytes, want)
			}
		}
	}
	for _, big := range detached {
		big.Clear()
	}
	for _, db := range dbs {
		if db.ArenaBytes() < int(meteredTotal(db)) {
			t.Fatalf("ArenaBytes %d below the metered %d", db.ArenaBytes(), meteredTotal(db))
		}
		db.Clear()
	}
	if m.Bytes != 0 {
		t.Fatalf("meter %d after clearing every table", m.Bytes)
	}
}

// TestMeterMoves checks that SetMeter moves what a table holds between
// meters, with its big aggregates.
func TestMeterMoves(t *testing.T) {
	clock := &Clock{Ms: 1}
	a, b := &Meter{}, &Meter{}
	tb := NewTable(clock)
	for i := range 5000 {
		tb.SetString(k(i), []byte("some value"), int64(1e12+i))
	}
	big := NewTable(clock)
	for i := range 5000 {
		big.SetString(k(i), []byte("x"), 0)
	}
	tb.SetBig([]byte("big"), KindHash, big, 0)
	held := meteredTotal(tb)
	tb.SetMeter(a)
	if a.Bytes != held {
		t.Fatalf("meter %d, table holds %d", a.Bytes, held)
	}
	tb.SetMeter(b)
	if a.Bytes != 0 || b.Bytes != held {
		t.Fatalf("after the move: %d and %d, table holds %d", a.Bytes, b.Bytes, held)
	}
	tb.SetMeter(nil)
	if b.Bytes != 0 || big.Metered() != nil {
		t.Fatalf("meter %d after SetMeter(nil)", b.Bytes)
	}
}

// TestMeterCollected checks that the bytes of a metered table the
// collector finds unreachable leave its meter at the next Settle.
func TestMeterCollected(t *testing.T) {
	m := &Meter{}
	func() {
		tb := NewTable(&Clock{Ms: 1})
		tb.SetMeter(m)
		for i := range 20000 {
			tb.SetString(k(i), []byte("0123456789abcdef"), 0)
		}
	}()
	if m.Bytes == 0 {
		t.Fatal("nothing metered")
	}
	deadline := time.Now().Add(10 * time.Second)
	for m.Bytes != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("meter still %d", m.Bytes)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
		m.Settle()
	}
}
