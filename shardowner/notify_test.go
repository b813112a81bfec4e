package shardowner

import "testing"

func TestNotifyClassesString(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"", ""}, {"gK", "gK"}, {"AKEmn", "AKEm"}, {"nt$lsKd", "$lstdnK"}, {"AA", "A"},
		{"Eg$lshzxetdK", "AKE"}, {"KEA", "AKE"}, {"mE", "Em"}, {"xe", "xe"},
	} {
		c, ok := ParseNotifyClasses(tt.in)
		if !ok {
			t.Errorf("%q refused", tt.in)
			continue
		}
		if got := NotifyClassesString(c); got != tt.want {
			t.Errorf("%q reads back as %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"Q", "gK ", "a", "k"} {
		if _, ok := ParseNotifyClasses(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzNotifyClasses: any accepted value reads back as a value that parses
// to the same classes, but for n, which A hides.
func FuzzNotifyClasses(f *testing.F) {
	for _, s := range []string{"", "KEA", "gK", "AKEmn", "nt$lsKd", "Q"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, ok := ParseNotifyClasses(s)
		if !ok {
			return
		}
		back := NotifyClassesString(c)
		c2, ok := ParseNotifyClasses(back)
		if !ok {
			t.Fatalf("%q reads back as %q, which is refused", s, back)
		}
		want := c
		if c&NotifyAll == NotifyAll {
			want &^= NotifyNew
		}
		if c2 != want {
			t.Fatalf("%q: classes %b read back as %q: %b", s, c, back, c2)
		}
	})
}
