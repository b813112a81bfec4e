package kvtable

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestWriteAtGrowth appends 1 KiB at a time up to 8 MiB and counts the bytes
// copied when the entry moved to a bigger item: growth with room to spare
// keeps them within a small multiple of the final length, where copying the
// whole value on every append would move about 4 GiB.
func TestWriteAtGrowth(t *testing.T) {
	tb := NewTable(&Clock{Ms: 1})
	key := []byte("grow")
	chunk := bytes.Repeat([]byte("x"), 1024)
	if err := tb.SetString(key, chunk, 1e15); err != nil {
		t.Fatal(err)
	}
	ref := uint32(tb.lookup(tb.hash(key), key))
	moved, moves, n := 0, 0, len(chunk)
	for n < 8<<20 {
		before := entryLen(tb.ar.item(ref))
		got, err := tb.WriteAt(key, n, chunk)
		n += len(chunk)
		if err != nil || got != n {
			t.Fatalf("WriteAt = %d %v, want %d", got, err, n)
		}
		if r := uint32(tb.lookup(tb.hash(key), key)); r != ref {
			moved += before
			moves++
			ref = r
		}
	}
	t.Logf("%d bytes built with %d moves, %d bytes copied", n, moves, moved)
	if moved > 4*n || moves > 40 {
		t.Errorf("building %d bytes moved the entry %d times, %d bytes", n, moves, moved)
	}
	v, _ := tb.Get(key)
	if len(v.Str) != n || bytes.Count(v.Str, []byte("x")) != n || v.ExpireAt != 1e15 || !v.Grown {
		t.Fatalf("value of %d bytes, TTL %d, grown %v after the appends", len(v.Str), v.ExpireAt, v.Grown)
	}
	tb.check(t)
}

// TestWriteAtModel writes at random offsets into values of all sizes,
// with and without TTLs, and compares with plain byte slices.
func TestWriteAtModel(t *testing.T) {
	tb := NewTable(&Clock{Ms: 1})
	rng := rand.New(rand.NewPCG(3, 4))
	want := map[string][]byte{}
	keys := []string{"a", "b", "c", "d"}
	for op := 0; op < 20000; op++ {
		key := keys[rng.IntN(len(keys))]
		cur, ok := want[key]
		if !ok || rng.IntN(200) == 0 {
			// Start over, leaving junk in the freed items.
			junk := bytes.Repeat([]byte{0xff}, rng.IntN(20000))
			tb.SetVerbatim([]byte(key), junk, 0, false)
			tb.Delete([]byte(key))
			var exp int64
			if rng.IntN(2) == 0 {
				exp = 1e15
			}
			if err := tb.SetVerbatim([]byte(key), nil, exp, true); err != nil {
				t.Fatal(err)
			}
			cur = nil
		}
		off := rng.IntN(len(cur) + 3000)
		data := bytes.Repeat([]byte{byte('a' + op%26)}, rng.IntN(2000))
		if grow := off + len(data) - len(cur); grow > 0 {
			cur = append(cur, make([]byte, grow)...)
		}
		copy(cur[off:], data)
		want[key] = cur
		n, err := tb.WriteAt([]byte(key), off, data)
		if err != nil || n != len(cur) {
			t.Fatalf("op %d: WriteAt = %d %v, want %d", op, n, err, len(cur))
		}
		if v, _ := tb.Get([]byte(key)); !bytes.Equal(v.Str, cur) {
			t.Fatalf("op %d: %s differs from the model", op, key)
		}
	}
	tb.check(t)
	for _, key := range []string{"nokey", "int"} {
		if key == "int" {
			tb.SetInt([]byte(key), 5, 0)
		}
		if _, err := tb.WriteAt([]byte(key), 0, []byte("x")); err == nil {
			t.Errorf("WriteAt on %s: no error", key)
		}
	}
}

// TestSpliceModel cuts and inserts at random places of values whose length
// crosses the sizes of its prefix (127/128 bytes, 16383/16384), with and
// without TTLs, and compares with plain byte slices; a splice that does not
// fit the item changes nothing.
func TestSpliceModel(t *testing.T) {
	tb := NewTable(&Clock{Ms: 1})
	rng := rand.New(rand.NewPCG(5, 6))
	want := map[string][]byte{}
	keys := []string{"a", "b", "c"}
	refused := 0
	for op := 0; op < 20000; op++ {
		key := []byte(keys[rng.IntN(len(keys))])
		cur, ok := want[string(key)]
		if !ok || rng.IntN(100) == 0 {
			var exp int64
			if rng.IntN(2) == 0 {
				exp = 1e15
			}
			sizes := []int{0, 100, 127, 128, 200, 16380, 16384, 16390}
			cur = bytes.Repeat([]byte{'v'}, sizes[rng.IntN(len(sizes))])
			if err := tb.SetVerbatim(key, cur, exp, false); err != nil {
				t.Fatal(err)
			}
		}
		off := rng.IntN(len(cur) + 1)
		cut := rng.IntN(min(len(cur)-off, 8) + 1)
		data := bytes.Repeat([]byte{byte('a' + op%26)}, rng.IntN(8))
		next := append(append(append([]byte{}, cur[:off]...), data...), cur[off+cut:]...)
		if tb.Splice(key, off, cut, data) {
			cur = next
		} else if len(next) <= len(cur) {
			t.Fatalf("op %d: a splice from %d to %d bytes refused", op, len(cur), len(next))
		} else {
			refused++
		}
		want[string(key)] = cur
		if v, _ := tb.Get(key); !bytes.Equal(v.Str, cur) {
			t.Fatalf("op %d: %s differs from the model", op, key)
		}
	}
	tb.check(t)
	if refused == 0 {
		t.Error("no splice was refused for want of room")
	}
	tb.SetVerbatim([]byte("a"), []byte("abc"), 0, false)
	tb.SetInt([]byte("int"), 5, 0)
	for _, c := range []struct {
		key      string
		off, cut int
	}{{"nokey", 0, 0}, {"int", 0, 0}, {"a", 4, 0}, {"a", 2, 2}, {"a", -1, 0}, {"a", 0, -1}} {
		if tb.Splice([]byte(c.key), c.off, c.cut, nil) {
			t.Errorf("Splice(%s, %d, %d) accepted", c.key, c.off, c.cut)
		}
	}
}
