package servercmd

import (
	"math"
	"testing"

	"github.com/corekv/corekv/shardowner"
)

// FuzzHistogramLevels: LATENCY HISTOGRAM's levels are Redis's, in order,
// with counts that grow to the histogram's total.
func FuzzHistogramLevels(f *testing.F) {
	f.Add(uint64(500), uint64(3000), uint64(70000), uint64(1))
	f.Add(uint64(0), uint64(0), uint64(math.MaxUint64), uint64(3))
	f.Fuzz(func(t *testing.T, a, b, c, n uint64) {
		var h shardowner.Histogram
		for _, d := range []uint64{a, b, c} {
			for range n % 4 {
				h.Add(d)
			}
		}
		total := h.Total()
		levels := cumulativeLevels(&h, total)
		var prevLevel, prevCount uint64
		for i := 0; i+1 < len(levels); i += 2 {
			level, count := levels[i], levels[i+1]
			if (i > 0 && level <= prevLevel) || count <= prevCount {
				t.Fatalf("levels %v", levels)
			}
			prevLevel, prevCount = level, count
		}
		if prevCount != total {
			t.Fatalf("levels %v end at %d of %d", levels, prevCount, total)
		}
	})
}
