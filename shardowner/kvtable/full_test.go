package kvtable

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestArenaFull fills a table whose arena may hold 64 pages: every write
// that needs another page returns ErrFull and leaves the table as it was,
// and a delete makes room again.
func TestArenaFull(t *testing.T) {
	tb := NewTable(&Clock{Ms: 1})
	tb.LimitPages(64)
	big := bytes.Repeat([]byte("v"), maxClassSize+100) // a page per entry
	n := 0
	for ; ; n++ {
		err := tb.SetString(k(n), big, 0)
		if errors.Is(err, ErrFull) {
			break
		}
		if err != nil || n > 100 {
			t.Fatalf("entry %d: %v", n, err)
		}
	}
	if n != 63 { // page 0 is never handed out
		t.Fatalf("%d entries of a page each fit in 64 pages, want 63", n)
	}
	if tb.Exists(k(n)) {
		t.Fatal("the refused key exists")
	}
	if err := tb.SetString([]byte("small"), []byte("x"), 0); !errors.Is(err, ErrFull) {
		t.Fatalf("a small key needing its class's first page: %v, want ErrFull", err)
	}
	// Replacing a value by a bigger one needs a new page; adding a TTL to
	// an entry that fills its item needs a bigger one.
	bigger := append(big, 'w')
	if err := tb.SetString(k(0), bigger, 0); !errors.Is(err, ErrFull) {
		t.Fatalf("growing a value: %v, want ErrFull", err)
	}
	if found, err := tb.SetExpire(k(1), 100); !found || !errors.Is(err, ErrFull) {
		t.Fatalf("adding a TTL: %v %v, want true ErrFull", found, err)
	}
	for i := 0; i < n; i++ {
		v, ok := tb.Get(k(i))
		if !ok || !bytes.Equal(v.Str, big) || v.ExpireAt != 0 {
			t.Fatalf("key %d changed by a refused write", i)
		}
	}
	tb.check(t)

	tb.Delete(k(2))
	if err := tb.SetString(k(0), bigger, 0); err != nil {
		t.Fatalf("after a delete: %v", err)
	}
	if v, _ := tb.Get(k(0)); !bytes.Equal(v.Str, bigger) {
		t.Fatal("the grown value was not stored")
	}
	tb.check(t)
	tb.Clear()
	if tb.ar.pageLimit != 64 {
		t.Fatal("Clear dropped the page limit")
	}
}

// TestArenaFullChurn writes, deletes and expires keys of mixed sizes in an
// arena kept at its page limit, so that compaction and TTL changes run out
// of room too: no write may panic, a refused write changes nothing, and the
// table stays consistent.
func TestArenaFullChurn(t *testing.T) {
	clock := &Clock{Ms: 1}
	tb := NewTable(clock)
	tb.LimitPages(40)
	rng := rand.New(rand.NewPCG(1, 2))
	want := map[string][]byte{}
	full := 0
	for op := 0; op < 200000; op++ {
		key := []byte("key:" + strconv.Itoa(rng.IntN(3000)))
		switch r := rng.IntN(10); {
		case r < 6:
			val := bytes.Repeat([]byte{byte('a' + op%26)}, 8+rng.IntN(300))
			if rng.IntN(50) == 0 {
				val = bytes.Repeat([]byte("L"), maxClassSize+rng.IntN(100))
			}
			switch err := tb.SetString(key, val, 0); {
			case err == nil:
				want[string(key)] = val
			case errors.Is(err, ErrFull):
				full++
			default:
				t.Fatal(err)
			}
		case r < 9:
			tb.Delete(key)
			delete(want, string(key))
		default:
			if _, err := tb.SetExpire(key, 1e15); errors.Is(err, ErrFull) {
				full++
			}
		}
		if op%20000 == 0 {
			tb.check(t)
		}
	}
	tb.check(t)
	if full == 0 {
		t.Fatal("the arena never filled up")
	}
	for key, val := range want {
		if v, ok := tb.Get([]byte(key)); !ok || !bytes.Equal(v.Str, val) {
			t.Fatalf("%s = %q %v, want %q", key, v.Str, ok, val)
		}
	}
	if tb.Len() != len(want) {
		t.Fatalf("%d keys, want %d", tb.Len(), len(want))
	}
}
