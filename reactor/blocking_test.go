package reactor

import (
	"math/rand"
	"sort"
	"testing"
)

// TestBlockTimerHeap: timeouts come out earliest first, however they were
// added.
func TestBlockTimerHeap(t *testing.T) {
	var c Core
	rng := rand.New(rand.NewSource(1))
	var want []int64
	for i := 0; i < 500; i++ {
		at := rng.Int63n(1000)
		want = append(want, at)
		c.addBlockTimer(blockTimer{at: at})
	}
	sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
	if got := c.blockWait(5000, 0); got != int(want[0]) {
		t.Fatalf("wait %d, want %d", got, want[0])
	}
	for i, w := range want {
		if got := c.blockTimers[0].at; got != w {
			t.Fatalf("timer %d: %d, want %d", i, got, w)
		}
		c.popBlockTimer()
	}
	if len(c.blockTimers) != 0 || c.blockWait(77, 0) != 77 {
		t.Fatal("timers left, or an empty heap caps the wait")
	}
}
