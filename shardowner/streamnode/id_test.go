package streamnode_test

import (
	"math"
	"testing"

	"github.com/corekv/corekv/shardowner/streamnode"
)

const maxU = math.MaxUint64

func TestCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b streamnode.ID
		want int
	}{
		{streamnode.ID{}, streamnode.ID{}, 0},
		{streamnode.ID{1, 2}, streamnode.ID{1, 2}, 0},
		{streamnode.ID{1, 2}, streamnode.ID{1, 3}, -1},
		{streamnode.ID{1, maxU}, streamnode.ID{2, 0}, -1},
		{streamnode.ID{2, 0}, streamnode.ID{1, maxU}, 1},
		{streamnode.MaxID, streamnode.ID{maxU, maxU - 1}, 1},
	} {
		if got := tc.a.Compare(tc.b); got != tc.want {
			t.Errorf("%v.Compare(%v) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestNextPrev(t *testing.T) {
	for _, tc := range []struct {
		id, next streamnode.ID
		ok       bool
	}{
		{streamnode.ID{0, 0}, streamnode.ID{0, 1}, true},
		{streamnode.ID{5, maxU}, streamnode.ID{6, 0}, true},
		{streamnode.ID{maxU, maxU - 1}, streamnode.MaxID, true},
		{streamnode.MaxID, streamnode.MinID, false},
	} {
		next, ok := tc.id.Next()
		if next != tc.next || ok != tc.ok {
			t.Errorf("%v.Next() = %v, %v; want %v, %v", tc.id, next, ok, tc.next, tc.ok)
		}
		// Prev undoes Next, and wraps the other way at the bottom.
		prev, ok := tc.next.Prev()
		if prev != tc.id || ok != tc.ok {
			t.Errorf("%v.Prev() = %v, %v; want %v, %v", tc.next, prev, ok, tc.id, tc.ok)
		}
	}
}

func TestAppendID(t *testing.T) {
	for _, tc := range []struct {
		id   streamnode.ID
		want string
	}{
		{streamnode.ID{}, "0-0"},
		{streamnode.ID{1526919030474, 55}, "1526919030474-55"},
		{streamnode.MaxID, "18446744073709551615-18446744073709551615"},
	} {
		if got := string(streamnode.AppendID([]byte("x"), tc.id)); got != "x"+tc.want {
			t.Errorf("AppendID(%#v) = %q, want %q", tc.id, got, "x"+tc.want)
		}
		if got := tc.id.String(); got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
	}
	buf := make([]byte, 0, 64)
	if allocs := testing.AllocsPerRun(100, func() { buf = streamnode.AppendID(buf[:0], streamnode.MaxID) }); allocs != 0 {
		t.Errorf("AppendID allocates %v times", allocs)
	}
}

func TestNextAutoID(t *testing.T) {
	for _, tc := range []struct {
		last  streamnode.ID
		nowMs uint64
		want  streamnode.ID
		ok    bool
	}{
		{streamnode.ID{}, 1000, streamnode.ID{1000, 0}, true},
		{streamnode.ID{}, 0, streamnode.ID{0, 1}, true},
		{streamnode.ID{1000, 7}, 1001, streamnode.ID{1001, 0}, true},
		{streamnode.ID{1000, 7}, 1000, streamnode.ID{1000, 8}, true},
		{streamnode.ID{1000, 7}, 5, streamnode.ID{1000, 8}, true}, // clock went back
		{streamnode.ID{1000, maxU}, 1000, streamnode.ID{1001, 0}, true},
		{streamnode.ID{maxU - 1, maxU}, 0, streamnode.ID{maxU, 0}, true},
		{streamnode.MaxID, maxU, streamnode.ID{}, false},
	} {
		got, ok := streamnode.NextAutoID(tc.last, tc.nowMs)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("NextAutoID(%v, %d) = %v, %v; want %v, %v", tc.last, tc.nowMs, got, ok, tc.want, tc.ok)
		}
	}
}
