package kvtable

import (
	"math"
	"strconv"
	"testing"
)

// TestSampleEvict checks that sampling passes only live keys (with TTLs
// when volatile), with their scores, that over many calls it meets every
// key of a small table, and that it changes nothing.
func TestSampleEvict(t *testing.T) {
	tb, clock := trackedTable(&Access{})
	const n = 60
	ttl := map[string]int64{}
	for i := range n {
		var exp int64
		if i%3 == 0 {
			exp = clock.Ms + 100_000 + int64(i)
			ttl[string(k(i))] = exp
		}
		tb.SetString(k(i), []byte("v"), exp)
		clock.Ms += 1000
	}
	// Keys expired, not yet deleted: never sampled.
	for i := n; i < n+20; i++ {
		tb.SetString(k(i), []byte("v"), clock.Ms+1)
	}
	clock.Ms += 10
	idle := map[string]int64{}
	for i := range n {
		idle[string(k(i))] = idleOf(t, tb, k(i))
	}
	for _, volatile := range []bool{false, true} {
		for _, by := range []Score{ScoreNone, ScoreLRU, ScoreTTL} {
			seen := map[string]bool{}
			for range 2000 {
				got := tb.SampleEvict(5, volatile, by, func(key []byte, score uint64) {
					s := string(key)
					exp, hasTTL := ttl[s]
					want, live := idle[s]
					if !live {
						t.Fatalf("sampled %q, not live", key)
					}
					if volatile && !hasTTL {
						t.Fatalf("volatile sample %q has no TTL", key)
					}
					var wantScore uint64
					switch by {
					case ScoreLRU:
						wantScore = uint64(want)
					case ScoreTTL:
						if hasTTL {
							wantScore = math.MaxUint64 - uint64(exp)
						}
					}
					if score != wantScore {
						t.Fatalf("score %d of %q, want %d", score, key, wantScore)
					}
					seen[s] = true
				})
				if got == 0 {
					t.Fatal("sampled nothing")
				}
			}
			want := n
			if volatile {
				want = len(ttl)
			}
			if len(seen) != want {
				t.Fatalf("volatile %v: %d keys seen of %d", volatile, len(seen), want)
			}
		}
	}
	if tb.Len() != n+20 {
		t.Fatalf("sampling changed the table: %d keys", tb.Len())
	}
	for i := range n {
		if got := idleOf(t, tb, k(i)); got != idle[string(k(i))] {
			t.Fatalf("sampling touched %q", k(i))
		}
	}
	tb.check(t)
	empty := NewTable(clock)
	if empty.SampleEvict(5, false, ScoreLRU, nil) != 0 || empty.SampleEvict(5, true, ScoreLRU, nil) != 0 {
		t.Fatal("sampled an empty table")
	}
}

// TestSampleEvictSparseWheel samples the TTL keys of a table whose TTL
// wheel held many more: probing its positions mostly misses, and the walk
// of its buckets must still find every key.
func TestSampleEvictSparseWheel(t *testing.T) {
	tb, clock := trackedTable(&Access{LFU: true, LogFactor: 10})
	const n = 20000
	for i := range n {
		tb.SetString(k(i), []byte("v"), clock.Ms+1000+int64(i)*1000)
	}
	keep := map[string]bool{}
	for i := range n {
		if i%2000 == 0 {
			keep[string(k(i))] = true
			tb.SetFreq(k(i), i/2000)
		} else {
			tb.Delete(k(i))
		}
	}
	for i := range 100 {
		tb.SetString([]byte("plain:"+strconv.Itoa(i)), nil, 0)
	}
	seen := map[string]bool{}
	for range 3000 {
		tb.SampleEvict(5, true, ScoreLFU, func(key []byte, score uint64) {
			if !keep[string(key)] {
				t.Fatalf("sampled %q", key)
			}
			f, _ := tb.Freq(key)
			if score != uint64(255-f) {
				t.Fatalf("score %d for counter %d", score, f)
			}
			seen[string(key)] = true
		})
	}
	if len(seen) != len(keep) {
		t.Fatalf("%d keys seen of %d", len(seen), len(keep))
	}
	tb.check(t)
}

func BenchmarkSampleEvict(b *testing.B) {
	for _, volatile := range []bool{false, true} {
		b.Run("volatile="+strconv.FormatBool(volatile), func(b *testing.B) {
			tb := NewTable(&Clock{Ms: 1})
			tb.TrackAccess(&Access{})
			ks := keys16(benchKeys, 0)
			for i, k := range ks {
				var exp int64
				if i%2 == 0 {
					exp = 1e12
				}
				tb.SetString(k, val16, exp)
			}
			var sum uint64
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				tb.SampleEvict(5, volatile, ScoreLRU, func(key []byte, score uint64) { sum += score })
			}
		})
	}
}
