package resp

import (
	"math"
	"testing"
)

// TestParseFloatPrefix checks DEBUG SLEEP's reading of its time against what
// C's strtod gives for the same text.
func TestParseFloatPrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"abc", 0}, {"", 0}, {"0.1xyz", 0.1}, {" \t\n0.1", 0.1}, {"0.1 ", 0.1}, {"+.5", 0.5}, {"-1", -1},
		{"1e-1e", 0.1}, {"1e+", 1}, {"1e", 1}, {"1_0", 1}, {".", 0}, {"-", 0}, {"+-1", 0}, {"1.5.5", 1.5},
		{"0x1p-3", 0.125}, {"0x.4", 0.25}, {"0X1P1", 2}, {"0x1.8", 1.5}, {"0x", 0}, {"0xg", 0}, {"0x.", 0},
		{"  +0x0.2p0zz", 0.125}, {"0x1p", 1}, {"1e400", math.Inf(1)}, {"-1e400", math.Inf(-1)}, {"1e-400", 0},
		{"inf", math.Inf(1)}, {"-Infinity", math.Inf(-1)}, {"INFx", math.Inf(1)},
	} {
		if got := ParseFloatPrefix([]byte(tc.in)); got != tc.want {
			t.Errorf("ParseFloatPrefix(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
	for _, in := range []string{"nan", "NaN(123)", "-nan"} {
		if got := ParseFloatPrefix([]byte(in)); !math.IsNaN(got) {
			t.Errorf("ParseFloatPrefix(%q) = %v, want NaN", in, got)
		}
	}
}

// TestParseIntPrefix checks the strtoll reading behind atoi and the buffer
// limits' soft seconds.
func TestParseIntPrefix(t *testing.T) {
	for _, tc := range []struct {
		in  string
		n   int64
		end int
	}{
		{"", 0, 0}, {"abc", 0, 0}, {"+", 0, 0}, {" ", 0, 0}, {"12", 12, 2}, {"1x", 1, 1}, {" \t-7", -7, 4}, {"+5", 5, 2},
		{"9223372036854775807", math.MaxInt64, 19}, {"9223372036854775808", math.MaxInt64, 19},
		{"-9223372036854775808", math.MinInt64, 20}, {"-9223372036854775809", math.MinInt64, 20},
		{"99999999999999999999999", math.MaxInt64, 23}, {"1152921504606846975", 1<<60 - 1, 19},
		{"11529215046068469750", math.MaxInt64, 20}, {"000000000000000000000000001", 1, 27},
	} {
		if n, end := ParseIntPrefix([]byte(tc.in)); n != tc.n || end != tc.end {
			t.Errorf("ParseIntPrefix(%q) = %d, %d; want %d, %d", tc.in, n, end, tc.n, tc.end)
		}
	}
}

// FuzzParseFloat checks that the two float readers agree: whatever
// ParseFloat accepts whole, ParseFloatPrefix reads as the same number, and
// neither panics on any input.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1", "-1.5e3", "0x1p-2", "0x1A", "inf", "-infinity", ".5", "1.", "1e400", "0x", "nan", " 1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		prefix := ParseFloatPrefix(b)
		if v, ok := ParseFloat(b); ok && v != prefix {
			t.Fatalf("ParseFloat(%q) = %v, ParseFloatPrefix = %v", b, v, prefix)
		}
	})
}
