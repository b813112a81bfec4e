package settings

import (
	"math"
	"slices"
	"testing"
)

func TestParseMemory(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"100", 100, true}, {"1k", 1000, true}, {"1kb", 1024, true},
		{"4mb", 4 << 20, true}, {"2m", 2000000, true}, {"1gb", 1 << 30, true}, {"1GB", 1 << 30, true},
		{"x", 0, false}, {"", 0, false}, {"12q", 0, false},
	}
	for _, tc := range cases {
		got, err := ParseMemory(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestParseMemorySign checks that a size with a sign is refused, as Redis
// refuses it, and that one past int64 saturates instead of wrapping to a
// negative limit (which would switch the output limits off).
func TestParseMemorySign(t *testing.T) {
	for _, in := range []string{"-1", "-1gb", "+5", "-0", "gb", " 1"} {
		if n, err := ParseMemory(in); err == nil {
			t.Errorf("ParseMemory(%q) = %d, want an error", in, n)
		}
	}
	for _, in := range []string{"99999999999999gb", "18446744073709551616", "9223372036854775808"} {
		if n, err := ParseMemory(in); err != nil || n != math.MaxInt64 {
			t.Errorf("ParseMemory(%q) = %d, %v; want %d", in, n, err, int64(math.MaxInt64))
		}
	}
}

// TestOutputLimitFields checks how CONFIG SET client-output-buffer-limit
// splits and reads its fields, as Redis 7.0 does: at each single space, an
// empty size or seconds as 0, the seconds kept in a C int.
func TestOutputLimitFields(t *testing.T) {
	for _, tc := range []struct {
		in, refused string
	}{
		{"", ""}, {"normal 0 0 0", ""}, {"normal 0 0 ", ""}, {"normal  0 0", ""}, {"normal kb mb +5", ""},
		{"normal 0 0 \t7", ""}, {"normal 0 0 4294967296", ""}, {"normal 0 0 -4294967295", ""},
		{"normal 0 0 0 ", ErrLimitArgs}, {" normal 0 0 0", ErrLimitArgs}, {"normal\t0 0 0", ErrLimitArgs},
		{"normal 0 0 2147483648", ErrLimitValue}, {"normal 0 0 9223372036854775807", ErrLimitValue},
		{"normal 0 0 -1", ErrLimitValue}, {"normal 0 0 +", ErrLimitValue}, {"normal 0 0 \t", ErrLimitValue},
		{"normal bk 0 0", ErrLimitValue}, {"normal +5 0 0", ErrLimitValue}, {"master 0 0 0", ErrLimitClass},
	} {
		c := Defaults()
		if refused := setOutputLimit(&c, tc.in); refused != tc.refused {
			t.Errorf("setOutputLimit(%q) refused %q, want %q", tc.in, refused, tc.refused)
		}
	}
}

// FuzzPercentiles: CONFIG SET latency-tracking-info-percentiles takes only
// numbers from 0 to 100, changes nothing when it refuses a value, and what
// CONFIG GET then shows sets the same list.
func FuzzPercentiles(f *testing.F) {
	for _, v := range []string{"50 99 99.9", "", "0.0 50.0 100.0", "10 a", "101", "-0", "1e2", "NaN", "inf", " 1  2 "} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		c := Defaults()
		if refused := setPercentiles(&c, v); refused != "" {
			if !slices.Equal(c.LatencyPercentiles, Defaults().LatencyPercentiles) {
				t.Fatalf("%q refused (%s) but changed to %v", v, refused, c.LatencyPercentiles)
			}
			return
		}
		got := c.LatencyPercentiles
		for _, p := range got {
			if !(p >= 0 && p <= 100) {
				t.Fatalf("%q accepted with %v", v, p)
			}
		}
		if refused := setPercentiles(&c, getPercentiles(&c)); refused != "" {
			t.Fatalf("CONFIG GET's %q refused: %s", getPercentiles(&c), refused)
		}
		if !slices.Equal(c.LatencyPercentiles, got) {
			t.Fatalf("%q: %v, then %v from %q", v, got, c.LatencyPercentiles, getPercentiles(&c))
		}
	})
}

// TestHiddenSettings keeps corekv's own start-only settings and the ignored
// redis.conf lines out of CONFIG GET's patterns (Redis's CONFIG sanity test
// sets every setting a pattern shows), while Find still knows them.
func TestHiddenSettings(t *testing.T) {
	for _, name := range []string{"shards", "pin", "spin", "spin-contended", "output-safety-cap", "pprof",
		"journal-dir", "key-load-delay", "daemonize", "protected-mode", "logfile", "tcp-keepalive"} {
		s := Find(name)
		if s == nil || !s.Hidden || s.Get == nil {
			t.Errorf("%s: %+v, want a hidden setting CONFIG GET can show", name, s)
		}
	}
	for _, n := range Names() {
		if n.Setting.Ignored && n.Setting.Mutable != n.Setting.Protected {
			t.Errorf("%s is ignored, and mutable %v but protected %v", n.Name, n.Setting.Mutable, n.Setting.Protected)
		}
	}
	c := Defaults()
	if err := Apply(&c, []Line{{Words: []string{"daemonize", "yes"}}}); err != nil {
		t.Fatal(err)
	}
	d := c.Clone()
	d.Ignored["daemonize"] = "no"
	if got := Find("daemonize").Get(&c); got != "yes" {
		t.Errorf("daemonize = %q after the line and a change to a clone, want yes", got)
	}
}

// TestStartValue lets CONFIG SET give port and bind the values they have and
// no other.
func TestStartValue(t *testing.T) {
	old := Defaults()
	for _, tc := range []struct {
		name, v string
		ok      bool
	}{{"port", "6379", true}, {"port", "6380", false}, {"bind", "127.0.0.1 ::1", true}, {"bind", "0.0.0.0", false}} {
		s := Find(tc.name)
		next := old.Clone()
		if r := s.Set(&next, tc.v); r != "" {
			t.Fatal(r)
		}
		if r := s.Check(nil, &old, &next); (r == "") != tc.ok {
			t.Errorf("%s %q: %q", tc.name, tc.v, r)
		}
	}
}

// TestCheckDir refuses a dir that is not one in the C library's words, as
// Redis's chdir does.
func TestCheckDir(t *testing.T) {
	s := Find("dir")
	for v, want := range map[string]string{
		t.TempDir(): "", "/nonexistent-corekv": "No such file or directory", "/dev/null": "Not a directory",
	} {
		c := Defaults()
		if r := s.Set(&c, v); r != "" {
			t.Fatal(r)
		}
		if got := s.Check(nil, nil, &c); got != want {
			t.Errorf("dir %s: %q, want %q", v, got, want)
		}
	}
}

// TestRewrite brings a file up to date as Redis's CONFIG REWRITE does.
func TestRewrite(t *testing.T) {
	old := "# keep me\nmaxclients 500\n\n\nhz 20\nhz 30\nhash-max-ziplist-entries 20\nhash-max-listpack-entries 21\n" +
		"loglevel notice\nnot-a-setting 1\n"
	c := Defaults()
	c.Hz, c.Encoding[HashMaxEntries], c.RequirePass, c.SlowlogMaxLen = 15, 100, `a b"c`, 64
	want := "# keep me\nmaxclients 10000\n\nhz 15\n\nhash-max-listpack-entries 100\n\nloglevel notice\nnot-a-setting 1\n" +
		"\n" + RewriteMarker + "\nrequirepass \"a b\\\"c\"\nslowlog-max-len 64\n"
	if got := Rewrite(old, &c, false); got != want {
		t.Errorf("Rewrite:\n%s\nwant\n%s", got, want)
	}
	// Rewriting again changes nothing, and adds no second marker.
	if got := Rewrite(want, &c, false); got != want {
		t.Errorf("Rewrite of its own output:\n%s\nwant\n%s", got, want)
	}
	// A file of every setting (DEBUG CONFIG-REWRITE-FORCE-ALL) loads back
	// into the same configuration.
	c.Ignored = map[string]string{"dir": "/tmp", "logfile": "x y.log"}
	all := Rewrite("", &c, true)
	lines, err := FileLines(all)
	if err != nil {
		t.Fatal(err)
	}
	d := Defaults()
	if err := Apply(&d, lines); err != nil {
		t.Fatalf("%v\n%s", err, all)
	}
	for i := range Table {
		s := &Table[i]
		if s.Get(&c) != s.Get(&d) {
			t.Errorf("%s: %q written, %q read back", s.Name, s.Get(&c), s.Get(&d))
		}
	}
}

// TestSplitLineQuoting reads redis.conf's quotes and escapes, and reads back
// what Quote writes.
func TestSplitLineQuoting(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{`a b  c`, []string{"a", "b", "c"}},
		{`save ""`, []string{"save", ""}},
		{`x "a b\"c\\d\n\x41"`, []string{"x", "a b\"c\\d\nA"}},
		{`x 'it\'s "q"'`, []string{"x", `it's "q"`}},
		{`x a"b c"`, []string{"x", "ab c"}},
		{"x \t y", []string{"x", "y"}},
	} {
		got, ok := SplitLine(tc.in)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("SplitLine(%s) = %q, %v; want %q", tc.in, got, ok, tc.want)
		}
	}
	for _, bad := range []string{`x "abc`, `x 'abc`, `x "a"b`, `x 'a'b`} {
		if got, ok := SplitLine(bad); ok {
			t.Errorf("SplitLine(%s) = %q, want refused", bad, got)
		}
	}
	for _, v := range []string{"", "plain", `a "b" \c`, "tab\there\r\n", "\x00\x7f\xff", "\a\b"} {
		got, ok := SplitLine("x " + Quote(v))
		if !ok || len(got) != 2 || got[1] != v {
			t.Errorf("Quote(%q) = %s, read back as %q", v, Quote(v), got)
		}
	}
}

// FuzzSplitLine: no config line makes the parser panic, and a value that
// CONFIG REWRITE writes (Quote) reads back as itself.
func FuzzSplitLine(f *testing.F) {
	for _, s := range []string{`a b  c`, `save ""`, `x "a b\"c\\d\n\x41"`, `x 'it\'s "q"'`, `x "abc`, "x\x00\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		SplitLine(s)
		words, ok := SplitLine("name " + Quote(s))
		if !ok || len(words) != 2 || words[1] != s {
			t.Fatalf("Quote(%q) = %s reads back as %q, %v", s, Quote(s), words, ok)
		}
	})
}
