// Package streamnode owns the building blocks of Redis streams: the entry ID
// (its order, arithmetic and text form), the Redis 7.0 parsers for the ID
// arguments of XADD, XRANGE/XREVRANGE and the other stream commands, and the
// node codec, a flat byte encoding of a run of consecutive entries that holds
// no Go pointers, so that nodes can later live off the Go heap.
//
// Nothing here knows about keys, replies or clocks: callers pass the current
// time in and write the returned error texts (resp.Error) out as they are.
package streamnode

import (
	"math"
	"strconv"
)

// ID is a stream entry ID, "ms-seq": a millisecond time and a sequence
// number within that millisecond. IDs order by Ms, then Seq.
type ID struct {
	Ms, Seq uint64
}

var (
	// MinID is 0-0, what "-" stands for in a range.
	MinID = ID{}
	// MaxID is the largest ID, what "+" stands for in a range.
	MaxID = ID{Ms: math.MaxUint64, Seq: math.MaxUint64}
)

// Compare returns -1, 0 or +1 as id sorts before, equal to or after other.
func (id ID) Compare(other ID) int {
	switch {
	case id.Ms < other.Ms:
		return -1
	case id.Ms > other.Ms:
		return 1
	case id.Seq < other.Seq:
		return -1
	case id.Seq > other.Seq:
		return 1
	}
	return 0
}

// Next returns the ID right after id. ok is false when id is MaxID; the ID
// returned then is MinID, as Redis's streamIncrID leaves it.
func (id ID) Next() (next ID, ok bool) {
	switch {
	case id.Seq < math.MaxUint64:
		return ID{id.Ms, id.Seq + 1}, true
	case id.Ms < math.MaxUint64:
		return ID{id.Ms + 1, 0}, true
	}
	return MinID, false
}

// Prev returns the ID right before id. ok is false when id is MinID; the ID
// returned then is MaxID, as Redis's streamDecrID leaves it.
func (id ID) Prev() (prev ID, ok bool) {
	switch {
	case id.Seq > 0:
		return ID{id.Ms, id.Seq - 1}, true
	case id.Ms > 0:
		return ID{id.Ms - 1, math.MaxUint64}, true
	}
	return MaxID, false
}

// AppendID appends id's text form, "ms-seq", to dst.
func AppendID(dst []byte, id ID) []byte {
	dst = strconv.AppendUint(dst, id.Ms, 10)
	dst = append(dst, '-')
	return strconv.AppendUint(dst, id.Seq, 10)
}

// String returns id's text form, "ms-seq".
func (id ID) String() string {
	var buf [41]byte // two 20-digit numbers and the dash
	return string(AppendID(buf[:0], id))
}

// NextAutoID returns the ID XADD * gives after last at time nowMs: nowMs-0
// while the clock is ahead of last, else the ID right after last, so IDs keep
// growing when the clock stalls or steps back. ok is false when last is
// MaxID and no ID is left.
func NextAutoID(last ID, nowMs uint64) (next ID, ok bool) {
	if nowMs > last.Ms {
		return ID{nowMs, 0}, true
	}
	return last.Next()
}
