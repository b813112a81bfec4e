package main

import (
	"testing"
	"time"
)

// TestDebugSleepStrtod checks that DEBUG SLEEP reads its time as Redis does,
// with strtod: the leading number counts, text without one sleeps 0, and so
// does a time whose microseconds do not fit in a long long (Redis on x86-64).
func TestDebugSleepStrtod(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--enable-debug-command", "yes")
	c := srv.raw(t)
	for _, tc := range []struct {
		arg      string
		min, max time.Duration
	}{
		{"0.3xyz", 300 * time.Millisecond, 3 * time.Second},
		{"abc", 0, 200 * time.Millisecond},
		{"0x1p-2s", 250 * time.Millisecond, 3 * time.Second},
		{"1e13", 0, 200 * time.Millisecond},
		{"nan", 0, 200 * time.Millisecond},
	} {
		start := time.Now()
		got := rawReplies(t, c, []string{"DEBUG SLEEP " + tc.arg}, true, len("+OK\r\n"))
		// rawReplies waits for quiet after the reply; the reply's own
		// arrival is what is bounded, so only the lower bound is exact.
		d := time.Since(start) - 200*time.Millisecond
		if got != "+OK\r\n" || d < tc.min-50*time.Millisecond || d > tc.max {
			t.Errorf("DEBUG SLEEP %s: %q after about %v, want +OK after %v to %v", tc.arg, got, d, tc.min, tc.max)
		}
	}
}
