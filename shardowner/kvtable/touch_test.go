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
