package script

import (
	"strconv"
	"strings"
	"testing"
)

// TestRegistry: EVAL-only scripts are bounded, oldest first, with the
// count of those dropped; SCRIPT LOAD keeps a script for ever, also one
// EVAL added; lookups ignore case; Flush empties it and moves the
// generation on.
func TestRegistry(t *testing.T) {
	r := NewRegistry()
	body := func(i int) []byte { return []byte("return " + strconv.Itoa(i)) }
	loaded := SHA1Hex(body(0))
	r.Add(loaded, body(0), false)
	r.Add(loaded, body(0), true) // SCRIPT LOAD of an EVAL-only script
	for i := 1; i <= EvalCacheSize+10; i++ {
		r.Add(SHA1Hex(body(i)), body(i), false)
	}
	n, bytes, evicted := r.Stats()
	if n != EvalCacheSize+1 || evicted != 10 {
		t.Fatalf("%d scripts, %d evicted; want %d and 10", n, evicted, EvalCacheSize+1)
	}
	if bytes <= 0 {
		t.Fatalf("bytes %d", bytes)
	}
	if b, isLoaded := r.Body(strings.ToUpper(loaded)); string(b) != "return 0" || !isLoaded {
		t.Fatalf("the loaded script: %q %v", b, isLoaded)
	}
	if r.Exists(SHA1Hex(body(10))) || !r.Exists(SHA1Hex(body(11))) {
		t.Fatal("the oldest EVAL scripts should be the ones dropped")
	}
	if b, isLoaded := r.Body(SHA1Hex(body(11))); b == nil || isLoaded {
		t.Fatalf("an EVAL script: %q %v", b, isLoaded)
	}
	if r.Exists("short") {
		t.Fatal("a name that is not 40 characters exists")
	}
	g := r.Generation()
	r.Flush()
	if n, bytes, _ := r.Stats(); n != 0 || bytes != 0 || r.Generation() == g || r.Exists(loaded) {
		t.Fatalf("after Flush: %d scripts, %d bytes, generation %d (was %d)", n, bytes, r.Generation(), g)
	}
}

// TestCheck: Check names a script as Load does and refuses what Load
// refuses, with the same error.
func TestCheck(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	for _, body := range []string{"return 1", "#!lua flags=no-writes\nreturn 2", "return +", "#!lua flags=bad\nreturn 1", "#!perl\n1"} {
		sha, err := Check([]byte(body))
		lsha, lerr := e.Load([]byte(body))
		if sha != lsha || (err == nil) != (lerr == nil) || err != nil && err.Error() != lerr.Error() {
			t.Errorf("%q: Check %q %v, Load %q %v", body, sha, err, lsha, lerr)
		}
	}
}
