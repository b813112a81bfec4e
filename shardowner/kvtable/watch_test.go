package kvtable

import (
	"slices"
	"strings"
	"testing"
)

// recorder is a Watcher that logs what it is told, one "key+" (present) or
// "key-" per change and "clear" per Clear.
type recorder struct{ log []string }

func (r *recorder) Touched(key []byte, present bool) {
	if present {
		r.log = append(r.log, string(key)+"+")
	} else {
		r.log = append(r.log, string(key)+"-")
	}
}

func (r *recorder) Clearing() { r.log = append(r.log, "clear") }

func (r *recorder) take() string {
	s := strings.Join(r.log, " ")
	r.log = r.log[:0]
	return s
}

// Every kind of change reports its key once; reads, refused writes and
// writes of missing keys report nothing.
func TestWatcherHearsChanges(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	rec := &recorder{}
	tb.SetWatcher(rec)
	str := []byte("some string value")
	for _, tc := range []struct {
		name string
		op   func()
		want string
	}{
		{"new string", func() { tb.SetString([]byte("s"), str, 0) }, "s+"},
		{"overwrite in place", func() { tb.SetString([]byte("s"), []byte("other value"), 0) }, "s+"},
		{"overwrite moving", func() { tb.SetString([]byte("s"), []byte(strings.Repeat("x", 300)), 0) }, "s+"},
		{"new int", func() { tb.SetInt([]byte("n"), 5, 0) }, "n+"},
		{"add int", func() { tb.AddInt([]byte("n"), 1) }, "n+"},
		{"add int, missing", func() { tb.AddInt([]byte("missing"), 1) }, ""},
		{"add int, overflow", func() { tb.SetInt([]byte("big"), 1<<62, 0); tb.AddInt([]byte("big"), 1<<62) }, "big+"},
		{"verbatim", func() { tb.SetVerbatim([]byte("v"), []byte("12"), 0, false) }, "v+"},
		{"write at", func() { tb.WriteAt([]byte("v"), 1, []byte("3")) }, "v+"},
		{"write at, growing", func() { tb.WriteAt([]byte("v"), 500, []byte("3")) }, "v+"},
		{"append", func() { tb.Append([]byte("v"), []byte("z"), 1<<20) }, "v+"},
		{"append nothing", func() { tb.Append([]byte("v"), nil, 1<<20) }, "v+"},
		{"append, too long", func() { tb.Append([]byte("v"), []byte("z"), 10) }, ""},
		{"set ttl", func() { tb.SetExpire([]byte("s"), 5000) }, "s+"},
		{"change ttl", func() { tb.SetExpire([]byte("s"), 6000) }, "s+"},
		{"same ttl", func() { tb.SetExpire([]byte("s"), 6000) }, "s+"},
		{"drop ttl", func() { tb.SetExpire([]byte("s"), 0) }, "s+"},
		{"drop missing ttl", func() { tb.SetExpire([]byte("s"), 0) }, ""},
		{"ttl of missing", func() { tb.SetExpire([]byte("missing"), 5000) }, ""},
		{"reads", func() {
			tb.Get([]byte("s"))
			tb.Exists([]byte("n"))
			tb.Probe([]byte("v"))
			tb.MemoryUsage([]byte("s"))
			tb.RandomKey()
			tb.Scan(0, 100, func([]byte, Value) {})
		}, ""},
		{"delete", func() { tb.Delete([]byte("n")) }, "n-"},
		{"delete missing", func() { tb.Delete([]byte("n")) }, ""},
		{"modified", func() { tb.Modified([]byte("s")); tb.Modified([]byte("n")) }, "s+ n-"},
		{"clear", func() { tb.Clear() }, "clear"},
		{"after clear", func() { tb.SetInt([]byte("n"), 1, 0) }, "n+"},
	} {
		tc.op()
		if got := rec.take(); got != tc.want {
			t.Errorf("%s: told %q, want %q", tc.name, got, tc.want)
		}
	}
	tb.SetWatcher(nil)
	tb.SetInt([]byte("n"), 2, 0)
	if got := rec.take(); got != "" {
		t.Errorf("after SetWatcher(nil): told %q", got)
	}
}

// An expired key is reported as deleted by whichever path finds it: a read,
// a write to it, or ActiveExpire.
func TestWatcherHearsExpiry(t *testing.T) {
	clock := &Clock{Ms: 1000}
	tb := NewTable(clock)
	rec := &recorder{}
	for _, name := range []string{"get", "set", "ttl", "delete", "active"} {
		tb.SetString([]byte(name), []byte("v"), 1500)
	}
	tb.SetWatcher(rec)
	clock.Ms = 2000
	if found, expired := tb.Probe([]byte("get")); !found || !expired {
		t.Fatalf("Probe of an expired key: found %v expired %v", found, expired)
	}
	if rec.take() != "" {
		t.Fatal("Probe reported a change")
	}
	tb.Get([]byte("get"))
	tb.SetString([]byte("set"), []byte("w"), 0)
	tb.SetExpire([]byte("ttl"), 9000)
	tb.Delete([]byte("delete"))
	if got, want := rec.take(), "get- set- set+ ttl- delete-"; got != want {
		t.Errorf("told %q, want %q", got, want)
	}
	tb.ActiveExpire(1e9)
	if got := rec.log; !slices.Equal(got, []string{"active-"}) {
		t.Errorf("ActiveExpire told %q", got)
	}
	if found, _ := tb.Probe([]byte("active")); found {
		t.Error("Probe finds a deleted key")
	}
}

// A write the table has no room for changes nothing and reports nothing.
func TestWatcherSilentWhenFull(t *testing.T) {
	tb := NewTable(&Clock{})
	tb.LimitPages(1)
	rec := &recorder{}
	tb.SetWatcher(rec)
	big := make([]byte, 100<<10)
	for i := 0; ; i++ {
		if tb.SetString(k(i), big, 0) == ErrFull {
			break
		}
		if i > 100 {
			t.Fatal("a one-page table never filled")
		}
	}
	rec.take()
	if err := tb.SetString([]byte("x"), big, 0); err != ErrFull {
		t.Fatalf("SetString: %v, want ErrFull", err)
	}
	if got := rec.take(); got != "" {
		t.Errorf("a refused write told %q", got)
	}
}
