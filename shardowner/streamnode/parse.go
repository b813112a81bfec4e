package streamnode

import (
	"bytes"
	"math"

	"github.com/corekv/corekv/resp"
)

// The texts Redis 7.0 replies with, and the commands that reply them.
const (
	// ErrInvalidID: any ID argument that does not parse, in every stream
	// command that takes one.
	ErrInvalidID resp.Error = "ERR Invalid stream ID specified as stream command argument"
	// ErrAddZero: XADD given an explicit 0-0 (or "0"), checked before the key
	// is looked up.
	ErrAddZero resp.Error = "ERR The ID specified in XADD must be greater than 0-0"
	// ErrAddNotGreater: XADD given an explicit or ms-* ID that is not above
	// the stream's last ID.
	ErrAddNotGreater resp.Error = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	// ErrAddExhausted: XADD, any ID form, once the stream's last ID is MaxID.
	ErrAddExhausted resp.Error = "ERR The stream has exhausted the last possible ID, unable to add more items"
	// ErrAddTooLarge: XADD with ms-* when ms is the last ID's ms and its seq is
	// already the largest. Redis 7.0 means this text for entries too large to
	// store, but replies it here too (seen on 7.0.15), so we do the same.
	ErrAddTooLarge resp.Error = "ERR Elements are too large to be stored"
	// ErrRangeStart: XRANGE/XREVRANGE given an exclusive start "(ID" with no
	// ID after it.
	ErrRangeStart resp.Error = "ERR invalid start ID for the interval"
	// ErrRangeEnd: XRANGE/XREVRANGE given an exclusive end "(ID" with no ID
	// before it.
	ErrRangeEnd resp.Error = "ERR invalid end ID for the interval"
)

// maxIDArgLen is the longest ID argument Redis takes: it parses a copy in a
// 128-byte C string buffer and refuses anything longer, even padding.
const maxIDArgLen = 127

// ParseID parses an ID argument that may be a range end, as Redis 7.0 does
// for XGROUP SETID and, through ParseRangeID, the XRANGE, XREVRANGE,
// XPENDING and XAUTOCLAIM bounds: "-" is MinID, "+" is MaxID, "ms-seq" is
// itself, and "ms" alone takes missingSeq as its seq.
//
// Each number is read as Redis's string2ull reads it: a canonical decimal,
// or failing that whatever C's strtoull takes in full, so leading C spaces,
// a '+', leading zeros and even a '-' (negating modulo 2^64, as in "1- -5")
// are accepted, while trailing bytes and values above 2^64-1 are not. The
// argument ends at its first NUL byte, as Redis's C string copy does, but
// counts in full against the 127-byte limit.
func ParseID(b []byte, missingSeq uint64) (ID, bool) {
	id, _, ok := parseID(b, missingSeq, false, false)
	return id, ok
}

// ParseStrictID is ParseID without "-" and "+": the form of IDs that name an
// entry or a position, in XADD, XDEL, XREAD, XSETID, XCLAIM, XGROUP CREATE
// and MINID trimming.
func ParseStrictID(b []byte, missingSeq uint64) (ID, bool) {
	id, _, ok := parseID(b, missingSeq, true, false)
	return id, ok
}

// ParseRangeID parses an XRANGE/XREVRANGE bound: ParseID's forms, or "(ID"
// for an exclusive bound, where ID is in ParseStrictID's form. The ID comes
// back as written; ParseInterval moves exclusive bounds inwards.
func ParseRangeID(b []byte, missingSeq uint64) (id ID, exclusive, ok bool) {
	if len(b) > 1 && b[0] == '(' {
		id, _, ok = parseID(b[1:], missingSeq, true, false)
		return id, true, ok
	}
	id, _, ok = parseID(b, missingSeq, false, false)
	return id, false, ok
}

// ParseInterval turns XRANGE's start and end arguments into the inclusive
// range [first, last] (empty when first > last), or the error XRANGE
// replies ("" for none). A bare "ms" start takes seq
// 0 and a bare "ms" end the largest seq, so "5" covers all of millisecond 5.
// XREVRANGE passes its arguments swapped, end first. Errors come in Redis's
// order: the start is parsed and checked before the end is parsed.
func ParseInterval(start, end []byte) (first, last ID, err resp.Error) {
	first, exclusive, ok := ParseRangeID(start, 0)
	if !ok {
		return ID{}, ID{}, ErrInvalidID
	}
	if exclusive {
		if first, ok = first.Next(); !ok {
			return ID{}, ID{}, ErrRangeStart
		}
	}
	last, exclusive, ok = ParseRangeID(end, math.MaxUint64)
	if !ok {
		return ID{}, ID{}, ErrInvalidID
	}
	if exclusive {
		if last, ok = last.Prev(); !ok {
			return ID{}, ID{}, ErrRangeEnd
		}
	}
	return first, last, ""
}

// AddIDKind says which form XADD's ID argument took.
type AddIDKind uint8

const (
	// AddAuto is "*": the ID comes from the clock and the last ID.
	AddAuto AddIDKind = iota
	// AddExplicit is "ms-seq", or "ms" meaning ms-0.
	AddExplicit
	// AddPartial is "ms-*": ms is given, seq follows the last ID.
	AddPartial
)

// AddID is XADD's parsed ID argument. ID is zero for AddAuto and has Seq 0
// for AddPartial.
type AddID struct {
	Kind AddIDKind
	ID   ID
}

// ParseAddID parses XADD's ID argument: "*", ParseStrictID's forms (a bare
// "ms" meaning ms-0), or "ms-*". ok false means ErrInvalidID.
func ParseAddID(b []byte) (arg AddID, ok bool) {
	// Redis looks for "*" in the raw C string, before any length check.
	if s := cString(b); len(s) == 1 && s[0] == '*' {
		return AddID{Kind: AddAuto}, true
	}
	id, partial, ok := parseID(b, 0, true, true)
	if !ok {
		return AddID{}, false
	}
	if partial {
		return AddID{Kind: AddPartial, ID: id}, true
	}
	return AddID{Kind: AddExplicit, ID: id}, true
}

// IsZero reports whether arg is an explicit 0-0, which XADD refuses with
// ErrAddZero before it looks the key up (so "0-*" passes: it becomes 0-1).
func (arg AddID) IsZero() bool {
	return arg.Kind == AddExplicit && arg.ID == MinID
}

// Resolve returns the ID XADD adds with arg to a stream whose last ID is
// last (MinID for a new stream) at time nowMs, or the error XADD replies.
func (arg AddID) Resolve(last ID, nowMs uint64) (ID, resp.Error) {
	if last == MaxID {
		return ID{}, ErrAddExhausted
	}
	var id ID
	switch arg.Kind {
	case AddAuto:
		id, _ = NextAutoID(last, nowMs) // cannot fail: last is below MaxID
		return id, ""
	case AddPartial:
		id = arg.ID
		if id.Ms == last.Ms {
			if last.Seq == math.MaxUint64 {
				return ID{}, ErrAddTooLarge
			}
			id.Seq = last.Seq + 1
		}
	case AddExplicit:
		id = arg.ID
	}
	if id.Compare(last) <= 0 {
		return ID{}, ErrAddNotGreater
	}
	return id, ""
}

// parseID is Redis's streamGenericParseIDOrReply: strict refuses "-" and
// "+", allowPartial takes "ms-*" (then partial is true and seq 0).
func parseID(b []byte, missingSeq uint64, strict, allowPartial bool) (id ID, partial, ok bool) {
	if len(b) > maxIDArgLen {
		return ID{}, false, false
	}
	b = cString(b)
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return ID{}, false, false
		}
		if b[0] == '-' {
			return MinID, false, true
		}
		return MaxID, false, true
	}
	// The first dash splits, so ms never has a sign of '-' but seq may.
	dash := bytes.IndexByte(b, '-')
	if dash < 0 {
		ms, ok := parseUint(b)
		return ID{ms, missingSeq}, false, ok
	}
	ms, ok := parseUint(b[:dash])
	if !ok {
		return ID{}, false, false
	}
	seqText := b[dash+1:]
	if allowPartial && len(seqText) == 1 && seqText[0] == '*' {
		return ID{ms, 0}, true, true
	}
	seq, ok := parseUint(seqText)
	if !ok {
		return ID{}, false, false
	}
	return ID{ms, seq}, false, true
}

// cString cuts b at its first NUL, where the C string Redis parses ends.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// parseUint reads a number as Redis's string2ull does. That tries string2ll
// first, which takes only a canonical signed decimal ("0" or an optional '-'
// then 1-9 then digits, within int64), and refuses it if negative; anything
// string2ll refuses goes to strtoull, which skips leading C spaces, takes an
// optional sign and leading zeros, negates modulo 2^64 after a '-', and must
// consume everything without overflowing uint64.
func parseUint(s []byte) (uint64, bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	negative := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		negative = s[i] == '-'
		i++
	}
	digits := s[i:]
	if len(digits) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if !negative {
		return v, true
	}
	// A '-' first, no leading zero and within int64: string2ll's negative.
	if i == 1 && digits[0] != '0' && v <= 1<<63 {
		return 0, false
	}
	return -v, true
}

// isCSpace is C's isspace in the C locale, which Redis's strtoull runs in.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}
