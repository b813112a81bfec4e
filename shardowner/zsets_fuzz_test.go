package shardowner

import (
	"math"
	"testing"

	"github.com/corekv/corekv/shardowner/kvtable"
)

// FuzzZSetBody feeds packed lists to the check a sorted set from another
// shard passes, and those it accepts to the page builder, which must keep
// them whole and in order.
func FuzzZSetBody(f *testing.F) {
	var room [kvtable.PackedHeadRoom]byte
	good := append(room[:], nil...)
	good = appendZElem(good, []byte("a"), 1)
	good = appendZElem(good, []byte("b"), 1)
	good = appendZElem(good, []byte("a"), math.Inf(1))
	f.Add(kvtable.FinishPacked(good, 6))
	f.Add([]byte{2, 1, 'a', 8, 0, 0, 0, 0, 0, 0, 0xf8, 0x7f}) // NaN
	f.Add([]byte{2, 1, 'a', 7, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		if !kvtable.ValidPacked(b, 2) || !validZSetBody(kvtable.PackedBody(b)) {
			return
		}
		c := newTestCtx()
		body := kvtable.PackedBody(b)
		big := zsetBigFromSorted(c, body)
		if big == nil {
			return // a member twice
		}
		defer big.Clear()
		z := zview{big: big}
		if z.len() != kvtable.PackedCount(b)/2 {
			t.Fatalf("%d members, want %d", z.len(), kvtable.PackedCount(b)/2)
		}
		if got := appendZSetBody(nil, z); string(got) != string(body) {
			t.Fatalf("pages hold %q, want %q", got, body)
		}
	})
}

// FuzzStoredScore: every score but NaN reads back from its member-table
// form as the same float64, and the form is the shortest.
func FuzzStoredScore(f *testing.F) {
	for _, e := range edgeScores {
		f.Add(math.Float64bits(e.s))
	}
	f.Fuzz(func(t *testing.T, u uint64) {
		s := math.Float64frombits(u)
		if math.IsNaN(s) {
			return
		}
		var b [maxScoreLen]byte
		n := putScore(&b, s)
		if got := memberScore(b[:n]); math.Float64bits(got) != u {
			t.Fatalf("%v (%#x) reads back as %v from % x", s, u, got, b[:n])
		}
		if n < maxScoreLen && n > 0 {
			if short := memberScore(b[:n-1]); short == s {
				t.Fatalf("%v in %d bytes, fits in fewer", s, n)
			}
		}
	})
}

// FuzzScoreBound reads any text as a score range's end: no panic, and a
// NaN never passes.
func FuzzScoreBound(f *testing.F) {
	for _, s := range []string{"1", "(1", "-inf", "(+inf", "nan", "(", "", " 1", "1\x00x", "1e400", "(1e-400", "0x1p3", "inf"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, ok := parseScoreBound(b); ok && math.IsNaN(r.s) {
			t.Fatalf("%q reads as NaN", b)
		}
		parseLexBound(b)
	})
}
