package streamnode_test

import (
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/streamnode"
)

// The expectations below were checked against redis-server 7.0.15: XRANGE
// for the non-strict forms, XDEL for the strict ones, XADD for the rest.

type id = streamnode.ID

var (
	minID = streamnode.MinID
	maxID = streamnode.MaxID
)

func TestParseID(t *testing.T) {
	const missing = 7
	for _, tc := range []struct {
		in       string
		want     id
		ok       bool // ParseID
		strictOK bool // ParseStrictID: the same, but refusing "-" and "+"
	}{
		{"0-0", id{0, 0}, true, true},
		{"0", id{0, missing}, true, true},
		{"1526919030474-55", id{1526919030474, 55}, true, true},
		{"18446744073709551615-18446744073709551615", maxID, true, true},
		{"18446744073709551615", id{maxU, missing}, true, true},
		{"18446744073709551616", id{}, false, false},
		{"1-18446744073709551616", id{}, false, false},
		{"99999999999999999999999", id{}, false, false},
		{"-", minID, true, false},
		{"+", maxID, true, false},
		{"", id{}, false, false},
		{"1-", id{}, false, false},
		{"-1", id{}, false, false}, // the dash splits: ms is empty
		{"-0", id{}, false, false},
		{"1-2-3", id{}, false, false},
		{"--", id{}, false, false},
		{"++", id{}, false, false},
		{"*", id{}, false, false},
		{"1-*", id{}, false, false}, // only XADD takes ms-*
		{"(1", id{}, false, false},  // only range bounds take "("
		{"a", id{}, false, false},
		{"1a", id{}, false, false},
		{"0x10", id{}, false, false},
		{"1.5", id{}, false, false},
		// strtoull's leniency, which Redis falls back on.
		{" 1", id{1, missing}, true, true},
		{"\t5", id{5, missing}, true, true},
		{"1-\v3", id{1, 3}, true, true},
		{"\n\f\r 5- \t6", id{5, 6}, true, true},
		{"5 ", id{}, false, false},
		{"5- ", id{}, false, false},
		{" ", id{}, false, false},
		{"+1", id{1, missing}, true, true},
		{" +7", id{7, missing}, true, true},
		{"1-+2", id{1, 2}, true, true},
		{"+ 1", id{}, false, false},
		{"+-1", id{}, false, false},
		{"01", id{1, missing}, true, true},
		{"007-010", id{7, 10}, true, true},
		{strings.Repeat("0", 126) + "1", id{1, missing}, true, true},
		{strings.Repeat("0", 127) + "1", id{}, false, false}, // over 127 bytes
		// A '-' in seq: string2ll refuses canonical negatives, strtoull
		// negates the rest modulo 2^64.
		{"1--5", id{}, false, false},
		{"1--9223372036854775808", id{}, false, false},
		{"1--9223372036854775809", id{1, 9223372036854775807}, true, true},
		{"1--18446744073709551615", id{1, 1}, true, true},
		{"1--18446744073709551616", id{}, false, false},
		{"1--0", id{1, 0}, true, true},
		{"1--05", id{1, maxU - 4}, true, true},
		{"1- -5", id{1, maxU - 4}, true, true},
		{"1-  -1", id{1, maxU}, true, true},
		{"1---1", id{}, false, false},
		// Redis parses a C string: a NUL ends the argument.
		{"1\x00abc", id{1, missing}, true, true},
		{"-\x00x", minID, true, false},
		{"\x001", id{}, false, false},
		{"1\x00" + strings.Repeat("x", 125), id{1, missing}, true, true},
		{"1\x00" + strings.Repeat("x", 126), id{}, false, false},
	} {
		got, ok := streamnode.ParseID([]byte(tc.in), missing)
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseID(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		got, ok = streamnode.ParseStrictID([]byte(tc.in), missing)
		if ok != tc.strictOK || (ok && got != tc.want) {
			t.Errorf("ParseStrictID(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.strictOK)
		}
	}
}

func TestParseRangeID(t *testing.T) {
	for _, tc := range []struct {
		in        string
		want      id
		exclusive bool
		ok        bool
	}{
		{"-", minID, false, true},
		{"+", maxID, false, true},
		{"5", id{5, 9}, false, true},
		{"(5", id{5, 9}, true, true},
		{"(5-1", id{5, 1}, true, true},
		{"( 5", id{5, 9}, true, true},
		{"(", id{}, false, false},
		{"(-", id{}, true, false},
		{"(+", id{}, true, false},
		{"((1", id{}, true, false},
		{"(5-*", id{}, true, false},
		{"(\x00", id{}, true, false},
		{"(" + strings.Repeat("0", 126) + "1", id{1, 9}, true, true}, // 127 bytes after "("
		{"(" + strings.Repeat("0", 127) + "1", id{}, true, false},
	} {
		got, exclusive, ok := streamnode.ParseRangeID([]byte(tc.in), 9)
		if ok != tc.ok || (ok && (got != tc.want || exclusive != tc.exclusive)) {
			t.Errorf("ParseRangeID(%q) = %v, %v, %v; want %v, %v, %v", tc.in, got, exclusive, ok, tc.want, tc.exclusive, tc.ok)
		}
	}
}

func TestParseInterval(t *testing.T) {
	for _, tc := range []struct {
		start, end  string
		first, last id
		err         resp.Error
	}{
		{"-", "+", minID, maxID, ""},
		{"5", "5", id{5, 0}, id{5, maxU}, ""},
		{"5-3", "6-1", id{5, 3}, id{6, 1}, ""},
		{"(5", "(6", id{5, 1}, id{6, maxU - 1}, ""},
		{"(5-" + "18446744073709551615", "+", id{6, 0}, maxID, ""},
		{"-", "(6-0", minID, id{5, maxU}, ""},
		{"(0-1", "+", id{0, 2}, maxID, ""},
		{"(18446744073709551615", "+", id{maxU, 1}, maxID, ""},
		{"-", "(0", minID, id{0, maxU - 1}, ""},
		{"(18446744073709551615-18446744073709551615", "+", id{}, id{}, streamnode.ErrRangeStart},
		{"-", "(0-0", id{}, id{}, streamnode.ErrRangeEnd},
		{"(+", "+", id{}, id{}, streamnode.ErrInvalidID},
		{"-", "(-", id{}, id{}, streamnode.ErrInvalidID},
		{"bad", "(0-0", id{}, id{}, streamnode.ErrInvalidID},
		// The start is parsed and checked before the end is parsed.
		{"(18446744073709551615-18446744073709551615", "bad", id{}, id{}, streamnode.ErrRangeStart},
		{"(0-0", "(18446744073709551615-18446744073709551615", id{0, 1}, id{maxU, maxU - 1}, ""},
	} {
		first, last, err := streamnode.ParseInterval([]byte(tc.start), []byte(tc.end))
		if err != tc.err || (err == "" && (first != tc.first || last != tc.last)) {
			t.Errorf("ParseInterval(%q, %q) = %v, %v, %v; want %v, %v, %v", tc.start, tc.end, first, last, err, tc.first, tc.last, tc.err)
		}
	}
}

func TestParseAddID(t *testing.T) {
	auto := streamnode.AddID{Kind: streamnode.AddAuto}
	explicit := func(ms, seq uint64) streamnode.AddID {
		return streamnode.AddID{Kind: streamnode.AddExplicit, ID: id{ms, seq}}
	}
	partial := func(ms uint64) streamnode.AddID {
		return streamnode.AddID{Kind: streamnode.AddPartial, ID: id{ms, 0}}
	}
	for _, tc := range []struct {
		in     string
		want   streamnode.AddID
		ok     bool
		isZero bool
	}{
		{"*", auto, true, false},
		{"*\x00x", auto, true, false},
		{"*\x00" + strings.Repeat("x", 200), auto, true, false}, // "*" is seen before the length check
		{"5-3", explicit(5, 3), true, false},
		{"5", explicit(5, 0), true, false},
		{" 6-+1", explicit(6, 1), true, false},
		{"7--0", explicit(7, 0), true, false},
		{"0-0", explicit(0, 0), true, true},
		{"0", explicit(0, 0), true, true},
		{"00-00", explicit(0, 0), true, true},
		{"0-*", partial(0), true, false},
		{"5-*", partial(5), true, false},
		{"99-*\x00x", partial(99), true, false},
		{"18446744073709551615-*", partial(maxU), true, false},
		{"8-*\x00" + strings.Repeat("x", 200), streamnode.AddID{}, false, false},
		{"-", streamnode.AddID{}, false, false},
		{"+", streamnode.AddID{}, false, false},
		{"**", streamnode.AddID{}, false, false},
		{"*-*", streamnode.AddID{}, false, false},
		{"*-1", streamnode.AddID{}, false, false},
		{"5-**", streamnode.AddID{}, false, false},
		{"5- *", streamnode.AddID{}, false, false},
		{"(6", streamnode.AddID{}, false, false},
		{"", streamnode.AddID{}, false, false},
		{"1-", streamnode.AddID{}, false, false},
	} {
		got, ok := streamnode.ParseAddID([]byte(tc.in))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("ParseAddID(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
		if ok && got.IsZero() != tc.isZero {
			t.Errorf("ParseAddID(%q).IsZero() = %v", tc.in, !tc.isZero)
		}
	}
}

func TestResolveAddID(t *testing.T) {
	for _, tc := range []struct {
		arg   string
		last  id
		nowMs uint64
		want  id
		err   resp.Error
	}{
		{"0-*", minID, 0, id{0, 1}, ""},
		{"0-*", id{0, 1}, 0, id{0, 2}, ""},
		{"5-*", id{0, 2}, 0, id{5, 0}, ""},
		{"5-*", minID, 0, id{5, 0}, ""},
		{"3-*", id{5, 0}, 0, id{}, streamnode.ErrAddNotGreater},
		{"5", id{5, 0}, 0, id{}, streamnode.ErrAddNotGreater},
		{"5-0", id{5, 0}, 0, id{}, streamnode.ErrAddNotGreater},
		{"4-9", id{5, 0}, 0, id{}, streamnode.ErrAddNotGreater},
		{"0-0", minID, 0, id{}, streamnode.ErrAddNotGreater}, // XADD checks IsZero first
		{"5-1", id{5, 0}, 0, id{5, 1}, ""},
		{"5-*", id{5, 1}, 0, id{5, 2}, ""},
		{"*", id{5, 1}, 1000, id{1000, 0}, ""},
		{"*", id{5, 1}, 5, id{5, 2}, ""},
		{"*", id{5, 1}, 2, id{5, 2}, ""},
		{"*", id{maxU - 1, maxU}, 0, id{maxU, 0}, ""},
		{"18446744073709551615-*", id{maxU, maxU - 1}, 0, maxID, ""},
		{"18446744073709551615-18446744073709551615", minID, 0, maxID, ""},
		{"18446744073709551614-*", id{maxU - 1, maxU}, 0, id{}, streamnode.ErrAddTooLarge},
		{"*", maxID, 0, id{}, streamnode.ErrAddExhausted},
		{"1-1", maxID, 0, id{}, streamnode.ErrAddExhausted},
		{"0-*", maxID, 0, id{}, streamnode.ErrAddExhausted},
		{"18446744073709551615-*", maxID, 0, id{}, streamnode.ErrAddExhausted},
	} {
		arg, ok := streamnode.ParseAddID([]byte(tc.arg))
		if !ok {
			t.Fatalf("ParseAddID(%q) failed", tc.arg)
		}
		got, err := arg.Resolve(tc.last, tc.nowMs)
		if err != tc.err || (err == "" && got != tc.want) {
			t.Errorf("ParseAddID(%q).Resolve(%v, %d) = %v, %v; want %v, %v", tc.arg, tc.last, tc.nowMs, got, err, tc.want, tc.err)
		}
	}
}
