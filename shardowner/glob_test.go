package shardowner

import (
	"testing"
)

func TestMatchGlob(t *testing.T) {
	for _, tc := range []struct {
		pattern, s string
		nocase     bool
		want       bool
	}{
		{"", "", false, true},
		{"", "a", false, false},
		// Redis matches an empty string only with an empty pattern.
		{"*", "", false, false},
		{"*", "anything", false, true},
		{"**", "", false, false},
		{"*?", "", false, false},
		{"a", "a", false, true},
		{"a", "A", false, false},
		{"a", "A", true, true},
		{"a", "ab", false, false},
		{"ab", "a", false, false},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h*llo", "hllo", false, true},
		{"h*llo", "heeeello", false, true},
		{"h*llo", "hello!", false, false},
		{"*llo", "hello", false, true},
		{"h*", "hello", false, true},
		{"*l*", "hello", false, true},
		{"*x*", "hello", false, false},
		{"a*b*c", "aXbYbZc", false, true},
		{"a*b*c", "aXbYbZ", false, false},
		{"a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false, false},
		{"*a*", "", false, false},
		{"?", "", false, false},
		{"a*", "a", false, true},
		{"a**?", "ab", false, true},
		{"a**?", "a", false, false},
		// Classes.
		{"h[ae]llo", "hello", false, true},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[a-b]llo", "hcllo", false, false},
		{"h[b-a]llo", "hallo", false, true},
		{"[a-cx-z]", "y", false, true},
		{"[a-cx-z]", "m", false, false},
		{"[A-Z]", "q", true, true},
		{"[a-z]", "Q", true, true},
		{"[A-Z]", "q", false, false},
		{"[abc", "b", false, true},
		{"[abc", "bc", false, false},
		{"[", "[", false, false},
		{"[]", "]", false, false},
		{"[^", "x", false, true},
		{"[\\]]", "]", false, true},
		{"[\\-]", "-", false, true},
		{"[a\\-z]", "b", false, false},
		{"[a\\-z]", "z", false, true},
		{"[-a]", "-", false, true},
		{"[*]", "*", false, true},
		{"[*]", "x", false, false},
		{"[?]", "?", false, true},
		{"[?]", "x", false, false},
		// Escapes.
		{"\\*", "*", false, true},
		{"\\*", "a", false, false},
		{"\\?", "?", false, true},
		{"\\[a]", "[a]", false, true},
		{"a\\", "a\\", false, true},
		{"\\\\", "\\", false, true},
		{"\\a", "a", false, true},
		{"\\A", "a", true, true},
		// Bytes that are not text.
		{"k*\x00", "key\x00", false, true},
		{"\xff?", "\xff\x01", false, true},
	} {
		if got := MatchGlob([]byte(tc.pattern), []byte(tc.s), tc.nocase); got != tc.want {
			t.Errorf("MatchGlob(%q, %q, %v) = %v, want %v", tc.pattern, tc.s, tc.nocase, got, tc.want)
		}
	}
}

func TestMatchGlobAllocs(t *testing.T) {
	p, s := []byte("*user:[0-9]*:na?e*"), []byte("app:user:42:name:first")
	if !MatchGlob(p, s, false) {
		t.Fatal("no match")
	}
	if n := testing.AllocsPerRun(100, func() { MatchGlob(p, s, true) }); n != 0 {
		t.Fatalf("MatchGlob allocates %v times", n)
	}
}

func BenchmarkMatchGlob(b *testing.B) {
	p, s := []byte("*user:[0-9]*:na?e*"), []byte("app:user:42:name:first")
	b.ReportAllocs()
	for b.Loop() {
		MatchGlob(p, s, false)
	}
}
