package kvtable

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
)

type modelVal struct {
	str   string
	isInt bool
	n     int64
	exp   int64
	lru   uint32 // LRU clock of the last access, on a tracking table
}

// model is the reference: a Go map with the same lazy-expiry rules, and
// with track the LRU clock of every key's last access.
type model struct {
	m     map[string]modelVal
	clock *Clock
	nexp  int
	track bool
}

// touch records an access to k, when it is live, as the table does unless
// noTouch.
func (m *model) touch(k string, noTouch bool) {
	if v, ok := m.get(k); ok && !noTouch {
		v.lru = lruClock(m.clock.Ms)
		m.m[k] = v
	}
}

func (m *model) expired(v modelVal) bool { return v.exp != 0 && v.exp <= m.clock.Ms }

func (m *model) del(k string) {
	if m.m[k].exp != 0 {
		m.nexp--
	}
	delete(m.m, k)
}

func (m *model) put(k string, v modelVal) {
	if old, ok := m.m[k]; ok && old.exp != 0 {
		m.nexp--
	}
	if v.exp != 0 {
		m.nexp++
	}
	m.m[k] = v
}

func (m *model) get(k string) (modelVal, bool) {
	v, ok := m.m[k]
	if ok && m.expired(v) {
		m.del(k)
		return modelVal{}, false
	}
	return v, ok
}

// sync drops from the model the expired keys the table no longer holds
// (after ActiveExpire or RandomKey) and returns how many.
func (m *model) sync(t *Table) int {
	n := 0
	for k, v := range m.m {
		if t.lookup(t.hash([]byte(k)), []byte(k)) == 0 {
			if !m.expired(v) {
				panic(fmt.Sprintf("live key %q vanished", k))
			}
			m.del(k)
			n++
		}
	}
	return n
}

func sameValue(got Value, want modelVal) bool {
	if got.Kind != KindString || got.IsInt != want.isInt || got.ExpireAt != want.exp {
		return false
	}
	if want.isInt {
		return got.Int == want.n && got.Str == nil
	}
	return string(got.Str) == want.str
}

func modelOps() int {
	switch {
	case testing.Short():
		return 200_000
	case raceEnabled:
		return 400_000
	}
	return 3_000_000
}

func TestModel(t *testing.T) {
	for _, seed := range []uint64{1, 2} {
		t.Run(strconv.FormatUint(seed, 10), func(t *testing.T) { runModel(t, seed, modelOps()/2, false) })
	}
}

// TestModelTracked is TestModel on a table that tracks LRU access data,
// which the model follows key by key, with NoTouch set now and then.
func TestModelTracked(t *testing.T) {
	runModel(t, 3, modelOps()/2, true)
}

func runModel(t *testing.T, seed uint64, ops int, track bool) {
	rng := rand.New(rand.NewPCG(seed, 99))
	clock := &Clock{Ms: 1_000_000}
	tb := NewTable(clock)
	if track {
		tb.TrackAccess(&Access{})
	}
	m := &model{m: map[string]modelVal{}, clock: clock, track: track}

	longPad := string(bytes.Repeat([]byte("L"), 200))
	keyFor := func(i int) string {
		switch i % 16 {
		case 0:
			return "long:" + strconv.Itoa(i) + longPad // 2-byte key length
		case 1:
			return strconv.Itoa(i)
		}
		return "key:" + strconv.Itoa(i)
	}
	valBuf := make([]byte, 20000)
	valueOf := func() []byte {
		switch r := rng.IntN(100); {
		case r < 10:
			return strconv.AppendInt(valBuf[:0], rng.Int64N(1e6)-5e5, 10)
		case r < 12:
			return []byte("007") // looks numeric, is not canonical
		case r < 13:
			return valBuf[:8000+rng.IntN(12000)] // large item
		case r < 15:
			return valBuf[:0]
		default:
			n := rng.IntN(40)
			if rng.IntN(10) == 0 {
				n = rng.IntN(700)
			}
			for i := range n {
				valBuf[i] = byte('a' + rng.IntN(26))
			}
			return valBuf[:n]
		}
	}
	expOf := func() int64 {
		if rng.IntN(10) < 7 {
			return 0
		}
		return clock.Ms + rng.Int64N(200) - 20
	}

	// Phases: fill a key space of some size, then drain it by deleting its
	// keys in order, so that the index grows and shrinks again and again.
	spaces := []int{64, 3000, 40000, 500, 20000}
	const phaseOps = 30000
	space := spaces[0]
	for op := range ops {
		phase := op / phaseOps
		drain := phase%2 == 1
		if !drain {
			space = spaces[(phase/2)%len(spaces)]
		}
		k := keyFor(rng.IntN(space))
		r := rng.IntN(100)
		if drain && rng.IntN(100) < 75 {
			// Delete the keys of the space in order.
			k, r = keyFor((op-phase*phaseOps)%space), 99
		}
		key := []byte(k)
		now := lruClock(clock.Ms)
		tb.NoTouch = track && rng.IntN(10) == 0
		switch {
		case r < 25:
			v, exp := valueOf(), expOf()
			tb.SetString(key, v, exp)
			mv := modelVal{str: string(v), exp: exp, lru: now}
			if n, ok := CanonicalInt(v); ok {
				mv = modelVal{isInt: true, n: n, exp: exp, lru: now}
			}
			m.put(k, mv)
		case r < 35:
			n, exp := rng.Int64(), expOf()
			tb.SetInt(key, n, exp)
			m.put(k, modelVal{isInt: true, n: n, exp: exp, lru: now})
		case r < 38:
			// INCR-like: read then write back an integer, keeping the TTL.
			got, ok := tb.Get(key)
			want, wok := m.get(k)
			if ok != wok || (ok && !sameValue(got, want)) {
				t.Fatalf("op %d: Get(%q) = %+v %v, want %+v %v", op, k, got, ok, want, wok)
			}
			m.touch(k, tb.NoTouch)
			if ok && got.IsInt {
				tb.SetInt(key, got.Int+1, got.ExpireAt)
				m.put(k, modelVal{isInt: true, n: want.n + 1, exp: want.exp, lru: now})
			}
		case r < 40:
			// Write a value taken from the table itself (aliasing).
			got, ok := tb.Get(key)
			m.touch(k, tb.NoTouch)
			if ok && !got.IsInt && len(got.Str) > 0 {
				sub := got.Str[rng.IntN(len(got.Str)):]
				want := string(sub)
				tb.SetString(key, sub, got.ExpireAt)
				mv := modelVal{str: want, exp: got.ExpireAt, lru: now}
				if n, ok := CanonicalInt([]byte(want)); ok {
					mv = modelVal{isInt: true, n: n, exp: got.ExpireAt, lru: now}
				}
				m.put(k, mv)
			}
		case r < 60:
			got, ok := tb.Get(key)
			want, wok := m.get(k)
			if ok != wok || (ok && !sameValue(got, want)) {
				t.Fatalf("op %d: Get(%q) = %+v %v, want %+v %v", op, k, got, ok, want, wok)
			}
			m.touch(k, tb.NoTouch)
		case r < 65:
			_, wok := m.get(k)
			if got := tb.Exists(key); got != wok {
				t.Fatalf("op %d: Exists(%q) = %v", op, k, got)
			}
			m.touch(k, tb.NoTouch)
		case r < 75:
			exp := expOf()
			got, err := tb.SetExpire(key, exp)
			if err != nil {
				t.Fatal(err)
			}
			v, wok := m.get(k)
			if wok {
				v.exp = exp
				if !tb.NoTouch {
					v.lru = now
				}
				m.put(k, v)
			}
			if got != wok {
				t.Fatalf("op %d: SetExpire(%q) = %v", op, k, got)
			}
		case r < 80:
			clock.Ms += rng.Int64N(20)
		case r < 82:
			n := tb.ActiveExpire(1e6)
			if got := m.sync(tb); got != n {
				t.Fatalf("op %d: ActiveExpire = %d, model lost %d", op, n, got)
			}
		case r < 83:
			dst, ok := tb.RandomKey()
			dst = bytes.Clone(dst)
			m.sync(tb)
			if ok != (len(m.m) > 0) && ok {
				t.Fatalf("op %d: RandomKey ok with an empty model", op)
			}
			if ok {
				if v, in := m.m[string(dst)]; !in || m.expired(v) {
					t.Fatalf("op %d: RandomKey = %q, not live", op, dst)
				}
			}
		case r < 84:
			if rng.IntN(50) == 0 {
				tb.Clear()
				m.m = map[string]modelVal{}
				m.nexp = 0
			}
		default:
			v, ok := m.m[k]
			want := ok && !m.expired(v)
			if ok {
				m.del(k)
			}
			if got := tb.Delete(key); got != want {
				t.Fatalf("op %d: Delete(%q) = %v, want %v", op, k, got, want)
			}
		}
		if tb.Len() != len(m.m) || tb.ExpiresLen() != m.nexp {
			t.Fatalf("op %d: Len %d ExpiresLen %d, model %d %d", op, tb.Len(), tb.ExpiresLen(), len(m.m), m.nexp)
		}
		if op%50000 == 0 {
			tb.check(t)
			fullScanCheck(t, tb, m, rng)
		}
	}
	tb.check(t)
	fullScanCheck(t, tb, m, rng)
}

// fullScanCheck scans the whole table and compares with the live keys of the
// model.
func fullScanCheck(t *testing.T, tb *Table, m *model, rng *rand.Rand) {
	t.Helper()
	seen := map[string]bool{}
	cur := uint64(0)
	for {
		cur = tb.Scan(cur, 1+rng.IntN(50), func(key []byte, v Value) {
			want, ok := m.m[string(key)]
			if !ok || m.expired(want) {
				t.Fatalf("Scan returned %q, not live", key)
			}
			if !sameValue(v, want) {
				t.Fatalf("Scan value of %q = %+v, want %+v", key, v, want)
			}
			if m.track {
				idle, _ := tb.IdleMs(key)
				if wantIdle := int64((lruClock(m.clock.Ms)-want.lru)&accessMask) * 1000; idle != wantIdle {
					t.Fatalf("IdleMs(%q) = %d, want %d", key, idle, wantIdle)
				}
			}
			seen[string(key)] = true
		})
		if cur == 0 {
			break
		}
	}
	for k, v := range m.m {
		if !m.expired(v) && !seen[k] {
			t.Fatalf("Scan missed %q", k)
		}
	}
}
