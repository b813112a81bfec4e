package reactor

import (
	"math"
	"testing"
)

// TestStrtollPrefix checks the strtoll reading behind atoi and the buffer
// limits' soft seconds.
func TestStrtollPrefix(t *testing.T) {
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
		if n, end := strtollPrefix([]byte(tc.in)); n != tc.n || end != tc.end {
			t.Errorf("strtollPrefix(%q) = %d, %d; want %d, %d", tc.in, n, end, tc.n, tc.end)
		}
	}
}
