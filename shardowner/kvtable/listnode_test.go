package kvtable

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestValidListNode(t *testing.T) {
	node := PackedBody(packOf([]byte("a"), nil, bytes.Repeat([]byte("x"), 300)))
	if !ValidListNode(node, 3) {
		t.Fatalf("ValidListNode(%q, 3) = false", node)
	}
	for _, tc := range []struct {
		b   []byte
		cnt int
	}{
		{node, 2}, {node, 4}, {node[:len(node)-1], 3}, {append(node[:len(node):len(node)], 0), 3},
		{[]byte{0x80}, 1}, {[]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, 1}, {[]byte{0x80, 0x00}, 1}, {[]byte{5, 'a'}, 1},
	} {
		if ValidListNode(tc.b, tc.cnt) {
			t.Errorf("ValidListNode(%q, %d) = true", tc.b, tc.cnt)
		}
	}
}

// FuzzValidListNode: a node that passes can be walked with ElemAt to its
// end without going past it, and builds back to the same bytes.
func FuzzValidListNode(f *testing.F) {
	f.Add(PackedBody(packOf([]byte("a"), []byte("bc"))), uint8(2))
	f.Add(PackedBody(packOf(bytes.Repeat([]byte("x"), 200))), uint8(1))
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x7f}, uint8(1))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, cnt uint8) {
		if !ValidListNode(b, int(cnt)) {
			return
		}
		var again []byte
		n := 0
		for off := 0; off < len(b); n++ {
			var e []byte
			e, off = ElemAt(b, off)
			again = AppendElem(again, e)
		}
		if n != int(cnt) || !bytes.Equal(again, b) {
			t.Fatalf("%d elements of %d, rebuilt %q from %q", n, cnt, again, b)
		}
	})
}

// TestCheckList: the self-check finds a big list whose index and nodes
// disagree.
func TestCheckList(t *testing.T) {
	clock := &Clock{}
	good := func() *Table {
		l := NewTable(clock)
		ix := []byte{3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}
		l.List = ix
		l.SetVerbatim([]byte{0, 0, 0, 0}, []byte("gg\x01a\x01b"), 0, false)
		l.SetVerbatim([]byte{1, 0, 0, 0}, []byte("\x01c"), 0, false)
		return l
	}
	if err := checkList(good()); err != nil {
		t.Fatalf("a good list: %v", err)
	}
	for name, spoil := range map[string]func(l *Table){
		"total":      func(l *Table) { l.List[0] = 4 },
		"count":      func(l *Table) { l.List[ListIndexHead+4] = 3 },
		"gap":        func(l *Table) { l.List[ListIndexHead+8] = 1 },
		"gap past":   func(l *Table) { l.List[ListIndexHead+8] = 9 },
		"node bytes": func(l *Table) { l.SetVerbatim([]byte{1, 0, 0, 0}, []byte("\x02c"), 0, false) },
		"no node":    func(l *Table) { l.Delete([]byte{1, 0, 0, 0}) },
		"stray node": func(l *Table) { l.SetVerbatim([]byte{9, 0, 0, 0}, []byte("\x01c"), 0, false) },
		"no index":   func(l *Table) { l.List = nil },
	} {
		l := good()
		spoil(l)
		if checkList(l) == nil {
			t.Errorf("%s: the check passed", name)
		}
	}
}

// TestInsert: Insert agrees with a byte-slice model through growth in
// place and into new items, across the value length's second byte, with
// and without a TTL, and refuses what it must.
func TestInsert(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	r := rand.New(rand.NewPCG(3, 4))
	for _, ttl := range []int64{0, 1_000_000} {
		key := []byte("k")
		tb.SetVerbatim(key, []byte("ab"), ttl, false)
		model := []byte("ab")
		for i := range 400 {
			data := bytes.Repeat([]byte{byte('a' + i%26)}, r.IntN(40))
			off := r.IntN(len(model) + 1)
			at := off
			if off == len(model) && i%2 == 0 {
				at = -1 // the end, by its other name
			}
			ok, err := tb.Insert(key, at, data, 6000)
			if !ok || err != nil {
				if len(model)+len(data) > 6000 {
					break
				}
				t.Fatalf("insert %d bytes at %d of %d: ok %v err %v", len(data), off, len(model), ok, err)
			}
			model = append(model[:off:off], append(data, model[off:]...)...)
			v, _ := tb.Get(key)
			if !bytes.Equal(v.Str, model) || v.ExpireAt != ttl {
				t.Fatalf("after %d inserts: value differs (len %d, want %d), expiry %d", i+1, len(v.Str), len(model), v.ExpireAt)
			}
			if err := tb.Check(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if ok, _ := tb.Insert([]byte("k"), 0, []byte("x"), 10); ok {
		t.Error("an insert past maxLen went in")
	}
	v, _ := tb.Get([]byte("k"))
	if ok, _ := tb.Insert([]byte("k"), len(v.Str)+1, []byte("x"), 1<<20); ok {
		t.Error("an insert past the value's end went in")
	}
	tb.SetInt([]byte("n"), 5, 0)
	if ok, _ := tb.Insert([]byte("n"), 0, []byte("x"), 1<<20); ok {
		t.Error("an insert into an integer went in")
	}
	if ok, _ := tb.Insert([]byte("missing"), 0, []byte("x"), 1<<20); ok {
		t.Error("an insert into a missing key went in")
	}
}

// An Insert after the key's entry was replaced, deleted, expired or moved
// finds the entry there is now, not the one the Insert before it wrote.
func TestInsertAfterChanges(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	key := []byte("node")
	insert := func(data string) bool {
		ok, err := tb.Insert(key, -1, []byte(data), 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	want := func(s string) {
		t.Helper()
		if v, ok := tb.Get(key); !ok || string(v.Str) != s {
			t.Fatalf("value %q (found %v), want %q", v.Str, ok, s)
		}
		if err := tb.Check(); err != nil {
			t.Fatal(err)
		}
	}
	tb.SetVerbatim(key, []byte("a"), 0, false)
	insert("b")
	want("ab")
	tb.SetInt(key, 7, 0)
	if insert("c") {
		t.Fatal("an insert into the integer that replaced the string went in")
	}
	tb.Delete(key)
	if insert("d") {
		t.Fatal("an insert into a deleted key went in")
	}
	tb.SetVerbatim(key, []byte("e"), 0, false)
	insert("f")
	want("ef")
	tb.SetVerbatim(key, []byte("g"), 1500, false)
	insert("h")
	want("gh")
	clock.Ms = 2000
	if insert("i") {
		t.Fatal("an insert into an expired key went in")
	}
	// Fill the item past its room again and again: each move frees the
	// item before, and the next insert must follow it.
	tb.SetVerbatim(key, []byte("j"), 0, false)
	model := "j"
	for i := range 2000 {
		s := string(rune('a' + i%26))
		insert(s)
		model += s
	}
	want(model)
	// Splice and RawString go through the same entry, and follow it when
	// it moves or goes.
	for i := 0; len(model) > 1; i++ {
		if i%2 == 0 {
			tb.Splice(key, 0, 1, nil)
			model = model[1:]
		} else {
			tb.Splice(key, len(model)-1, 1, nil)
			model = model[:len(model)-1]
		}
		if got, ok := tb.RawString(key); !ok || string(got) != model {
			t.Fatalf("after %d cuts: %q (found %v), want %q", i+1, got, ok, model)
		}
	}
	tb.Delete(key)
	if _, ok := tb.RawString(key); ok {
		t.Fatal("RawString found a deleted key")
	}
	if tb.Splice(key, 0, 0, []byte("x")) {
		t.Fatal("a splice into a deleted key went in")
	}
	tb.SetInt(key, 3, 0)
	if _, ok := tb.RawString(key); ok {
		t.Fatal("RawString found an integer")
	}
}
