package reactor

import (
	"math"
	"testing"
)

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

// TestOutputLimitKeepsSafetyCap checks that no hard limit lifts the safety
// cap.
func TestOutputLimitKeepsSafetyCap(t *testing.T) {
	for _, hard := range []int64{-1, 0, 2 << 30} {
		s := &Server{cfg: Config{OutputSafetyCap: 1 << 30}}
		s.outHard.Store(hard)
		if got := s.outputLimit(); got != 1<<30 {
			t.Errorf("hard limit %d: output limit %d, want the safety cap", hard, got)
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
		{"normal 0 0 0 ", errLimitArgs}, {" normal 0 0 0", errLimitArgs}, {"normal\t0 0 0", errLimitArgs},
		{"normal 0 0 2147483648", errLimitValue}, {"normal 0 0 9223372036854775807", errLimitValue},
		{"normal 0 0 -1", errLimitValue}, {"normal 0 0 +", errLimitValue}, {"normal 0 0 \t", errLimitValue},
		{"normal bk 0 0", errLimitValue}, {"normal +5 0 0", errLimitValue}, {"master 0 0 0", errLimitClass},
	} {
		s := &Server{}
		if _, refused := setOutputLimit(s, tc.in); refused != tc.refused {
			t.Errorf("setOutputLimit(%q) refused %q, want %q", tc.in, refused, tc.refused)
		}
	}
}
