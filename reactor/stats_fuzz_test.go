package reactor

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/corekv/corekv/shardowner"
)

// FuzzCountError: any reply counts as an error only when it is one, under a
// code of at most 32 bytes without a space.
func FuzzCountError(f *testing.F) {
	for _, r := range []string{"-ERR unknown command\r\n", "-WRONGTYPE Operation\r\n", "-NOSPACEATALL\r\n", "+OK\r\n", "", "-", "- x", ":1\r\n"} {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		var c Core
		c.stats.errs = map[string]uint64{}
		c.countError(reply)
		isErr := len(reply) > 0 && reply[0] == '-'
		if c.stats.errorReplies != map[bool]uint64{true: 1}[isErr] || len(c.stats.errs) != int(c.stats.errorReplies) {
			t.Fatalf("%q: %d errors, codes %v", reply, c.stats.errorReplies, c.stats.errs)
		}
		for code := range c.stats.errs {
			if len(code) > 32 || strings.Contains(code, " ") || !bytes.HasPrefix(reply[1:], []byte(code)) && code != "ERR" {
				t.Fatalf("%q counted as %q", reply, code)
			}
		}
	})
}

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
