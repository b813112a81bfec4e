package kvtable

import (
	"bytes"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// packOf builds a packed list of elems the way handlers do.
func packOf(elems ...[]byte) []byte {
	b := make([]byte, PackedHeadRoom)
	for _, e := range elems {
		b = AppendElem(b, e)
	}
	return FinishPacked(b, len(elems))
}

func unpack(b []byte) [][]byte {
	var out [][]byte
	body := PackedBody(b)
	for off := 0; off < len(body); {
		var e []byte
		e, off = ElemAt(body, off)
		out = append(out, e)
	}
	return out
}

func TestPackedRoundTrip(t *testing.T) {
	for _, n := range []int{1, 2, 127, 128, 129, 1000} {
		var elems [][]byte
		for i := range n {
			// Lengths across the one- and two-byte length prefixes.
			elems = append(elems, bytes.Repeat([]byte{byte(i)}, i%300))
		}
		b := packOf(elems...)
		if PackedCount(b) != n {
			t.Fatalf("%d elements: count %d", n, PackedCount(b))
		}
		if got := unpack(b); !slices.EqualFunc(got, elems, bytes.Equal) {
			t.Fatalf("%d elements: round trip lost them", n)
		}
		if !ValidPacked(b, 1) {
			t.Fatalf("%d elements: own encoding refused", n)
		}
		if n%2 == 1 && ValidPacked(b, 2) {
			t.Fatalf("%d elements taken as pairs", n)
		}
	}
	if PackedCount(nil) != 0 || len(PackedBody(nil)) != 0 {
		t.Fatal("empty list not empty")
	}
}

func TestValidPackedRefuses(t *testing.T) {
	good := packOf([]byte("field"), []byte("value"))
	for _, b := range [][]byte{
		nil,
		{0},                                  // no elements
		good[:len(good)-1],                   // short
		append(good, 'x'),                    // trailing byte
		{2, 5, 'a'},                          // element past the end
		{2, 0xff, 0xff, 0xff, 0xff, 0x0f, 0}, // huge length
		{0x80},                               // unterminated count
		{1, 0x80, 0},                         // a length spelled with a needless second byte
	} {
		if ValidPacked(b, 2) {
			t.Errorf("ValidPacked(%q) = true", b)
		}
	}
}

func FuzzValidPacked(f *testing.F) {
	f.Add(packOf([]byte("a"), []byte("b")), uint8(2))
	f.Add(packOf(bytes.Repeat([]byte("x"), 200)), uint8(1))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, uint8(1))
	f.Fuzz(func(t *testing.T, b []byte, per uint8) {
		p := int(per%2) + 1
		if !ValidPacked(b, p) {
			return
		}
		// A list that passes can be walked to its end without going past it,
		// and builds back to the same bytes.
		elems := unpack(b)
		if len(elems) != PackedCount(b) || len(elems)%p != 0 {
			t.Fatalf("%d elements, count %d", len(elems), PackedCount(b))
		}
		if again := packOf(elems...); !bytes.Equal(again, b) {
			t.Fatalf("rebuilt list %q differs from %q", again, b)
		}
	})
}

func TestIntSet(t *testing.T) {
	var b []byte
	want := map[int64]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	vals := []int64{0, 1, -1, math.MaxInt16, math.MinInt16, math.MaxInt16 + 1, math.MinInt32, math.MaxInt32 + 1,
		math.MinInt64, math.MaxInt64, 7, 7}
	for range 300 {
		vals = append(vals, r.Int64N(1000)-500)
	}
	for i, n := range vals {
		var added bool
		b, added = AppendIntSetAdd(nil, b, n)
		if added == want[n] {
			t.Fatalf("add %d: added %v, member before %v", n, added, want[n])
		}
		want[n] = true
		if IntSetLen(b) != len(want) || !ValidIntSet(b) {
			t.Fatalf("after %d adds: len %d want %d, valid %v", i+1, IntSetLen(b), len(want), ValidIntSet(b))
		}
	}
	if b[0] != 8 {
		t.Fatalf("width %d, want 8 after a 64-bit member", b[0])
	}
	for n := range want {
		i, ok := IntSetFind(b, n)
		if !ok || IntSetAt(b, i) != n {
			t.Fatalf("%d not found", n)
		}
		b = AppendIntSetRemove(nil, b, i)
		delete(want, n)
		if IntSetLen(b) != len(want) {
			t.Fatalf("len %d after remove, want %d", IntSetLen(b), len(want))
		}
	}
	if len(b) != 0 {
		t.Fatalf("empty set is %q", b)
	}
	// The narrowest width that holds the members.
	b, _ = AppendIntSetAdd(nil, nil, 5)
	if b[0] != 2 {
		t.Fatalf("width %d for a small member", b[0])
	}
	b, _ = AppendIntSetAdd(nil, b, 1<<20)
	if b[0] != 4 || IntSetAt(b, 0) != 5 || IntSetAt(b, 1) != 1<<20 {
		t.Fatalf("widening lost members: %v", b)
	}
	for _, bad := range [][]byte{nil, {2}, {3, 0, 0}, {2, 1}, {2, 2, 0, 1, 0}, {4, 1, 0, 0, 0}} {
		if ValidIntSet(bad) {
			t.Errorf("ValidIntSet(%v) = true", bad)
		}
	}
}

func FuzzValidIntSet(f *testing.F) {
	b, _ := AppendIntSetAdd(nil, nil, 1)
	f.Add(b)
	f.Add([]byte{8, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, b []byte) {
		if !ValidIntSet(b) {
			return
		}
		for i := 1; i < IntSetLen(b); i++ {
			if IntSetAt(b, i-1) >= IntSetAt(b, i) {
				t.Fatal("valid intset out of order")
			}
		}
	})
}

// A packed aggregate is stored and read back through the table like a
// string, keeps its TTL when rewritten, and reports its kind.
func TestSetPacked(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	var elems [][]byte
	for i := range 200 {
		elems = append(elems, []byte("field:"+strconv.Itoa(i)), []byte("value"))
		b := packOf(elems...)
		if err := tb.SetPacked([]byte("h"), KindHash, false, b, 5000); err != nil {
			t.Fatal(err)
		}
		v, ok := tb.Get([]byte("h"))
		if !ok || v.Kind != KindHash || v.Big != nil || v.IntSet || v.Verbatim || !bytes.Equal(v.Str, b) || v.ExpireAt != 5000 {
			t.Fatalf("after %d fields: %+v", i+1, v)
		}
	}
	is, _ := AppendIntSetAdd(nil, nil, 3)
	tb.SetPacked([]byte("s"), KindSet, true, is, 0)
	if v, _ := tb.Get([]byte("s")); !v.IntSet || v.Kind != KindSet || !bytes.Equal(v.Str, is) {
		t.Fatalf("intset read back as %+v", v)
	}
	if err := tb.Check(); err != nil {
		t.Fatal(err)
	}
}
