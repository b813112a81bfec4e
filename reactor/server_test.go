package reactor

import "testing"

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
