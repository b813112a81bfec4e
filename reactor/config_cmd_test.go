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
