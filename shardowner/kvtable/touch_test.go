package kvtable

import (
	"strconv"
	"testing"
)

// TestTouchReadsOnly touches present and absent keys while the table grows
// (so some touches happen mid-rehash) and checks nothing changed.
func TestTouchReadsOnly(t *testing.T) {
	var clock Clock
	tb := NewTable(&clock)
	for i := 0; i < 20000; i++ {
		k := []byte("k" + strconv.Itoa(i))
		tb.SetString(k, []byte("v"+strconv.Itoa(i)), 0)
		for _, probe := range [][]byte{k, []byte("absent" + strconv.Itoa(i))} {
			h := tb.Hash(probe)
			tb.TouchBucket(h)
			tb.TouchEntry(h)
		}
	}
	if tb.Len() != 20000 {
		t.Fatalf("Len = %d after touching, want 20000", tb.Len())
	}
	for i := 0; i < 20000; i += 997 {
		v, ok := tb.Get([]byte("k" + strconv.Itoa(i)))
		if !ok || string(v.Str) != "v"+strconv.Itoa(i) {
			t.Fatalf("k%d = %q, %v", i, v.Str, ok)
		}
	}
	if got := tb.TouchEntry(tb.Hash([]byte("k5"))); got == 0 {
		t.Fatal("TouchEntry of a present key read nothing")
	}
	empty := NewTable(&clock)
	if empty.TouchBucket(empty.Hash([]byte("x"))) != 0 || empty.TouchEntry(empty.Hash([]byte("x"))) != 0 {
		t.Fatal("touching an empty table read something")
	}
}

// TestSetVerbatim checks that a verbatim string stays a string, that the
// grown mark survives an in-place overwrite by another verbatim write, and
// that an ordinary write clears both marks.
func TestSetVerbatim(t *testing.T) {
	var clock Clock
	tb := NewTable(&clock)
	k := []byte("n")
	tb.SetVerbatim(k, []byte("8"), 0, false)
	v, _ := tb.Get(k)
	if v.IsInt || !v.Verbatim || v.Grown || string(v.Str) != "8" {
		t.Fatalf("verbatim 8 = %+v", v)
	}
	tb.SetVerbatim(k, []byte("123"), 0, true)
	v, _ = tb.Get(k)
	if v.IsInt || !v.Verbatim || !v.Grown || string(v.Str) != "123" {
		t.Fatalf("grown 123 = %+v", v)
	}
	tb.SetString(k, []byte("123"), 0)
	v, _ = tb.Get(k)
	if !v.IsInt || v.Verbatim || v.Grown || v.Int != 123 {
		t.Fatalf("after SetString: %+v", v)
	}
	tb.SetVerbatim(k, []byte("abc"), clock.Ms+1000, true)
	v, _ = tb.Get(k)
	if !v.Grown || v.Kind != KindString || v.ExpireAt != clock.Ms+1000 {
		t.Fatalf("grown with TTL = %+v", v)
	}
}

// TestPeekBig finds the table of a big aggregate, and nothing for a
// string, a packed aggregate or a missing key; an expired key stays, as
// a touch must change nothing.
func TestPeekBig(t *testing.T) {
	clock := Clock{Ms: 1000}
	tb := NewTable(&clock)
	big := NewTable(&clock)
	big.SetString([]byte("m"), nil, 0)
	tb.SetBig([]byte("set"), KindSet, big, 0)
	tb.SetString([]byte("str"), []byte("v"), 0)
	tb.SetPacked([]byte("small"), KindHash, false, []byte{2, 1, 'f', 1, 'v'}, 0)
	gone := NewTable(&clock)
	gone.SetString([]byte("m"), nil, 0)
	tb.SetBig([]byte("gone"), KindSet, gone, 1500)
	clock.Ms = 2000
	for key, want := range map[string]*Table{"set": big, "str": nil, "small": nil, "missing": nil, "gone": gone} {
		if got := tb.PeekBig(tb.Hash([]byte(key)), []byte(key)); got != want {
			t.Errorf("PeekBig(%s) = %p, want %p", key, got, want)
		}
	}
	if tb.Len() != 4 {
		t.Fatalf("Len = %d after peeking, want 4", tb.Len())
	}
}

func TestHasBig(t *testing.T) {
	clock := Clock{Ms: 1000}
	tb := NewTable(&clock)
	tb.SetPacked([]byte("small"), KindHash, false, []byte{2, 1, 'f', 1, 'v'}, 0)
	if tb.HasBig() {
		t.Fatal("HasBig with only a packed hash")
	}
	for _, key := range []string{"a", "b"} {
		big := NewTable(&clock)
		big.SetString([]byte("m"), nil, 0)
		tb.SetBig([]byte(key), KindSet, big, 0)
	}
	if !tb.HasBig() {
		t.Fatal("no HasBig with two big sets")
	}
	tb.Delete([]byte("a"))
	if !tb.HasBig() {
		t.Fatal("no HasBig with one big set left")
	}
	if !tb.Detach([]byte("b")) || tb.HasBig() {
		t.Fatal("HasBig after the last big set was detached")
	}
	big := NewTable(&clock)
	big.SetString([]byte("m"), nil, 0)
	tb.SetBig([]byte("c"), KindSet, big, 0)
	tb.SetString([]byte("c"), []byte("v"), 0) // overwritten by a string
	if tb.HasBig() {
		t.Fatal("HasBig after the big set was overwritten")
	}
	big = NewTable(&clock)
	big.SetString([]byte("m"), nil, 0)
	tb.SetBig([]byte("d"), KindSet, big, 0)
	tb.Clear()
	if tb.HasBig() {
		t.Fatal("HasBig after Clear")
	}
}
