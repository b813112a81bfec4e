package streamnode

import "math"

// The sizes of a node as Redis's listpack would hold it. Redis starts a new
// node when the last one's listpack bytes and the new entry's fields and
// values would pass stream-node-max-bytes; corekv keeps each node's
// listpack size beside it (LPEntryBytes, LPMasterBytes, LPCountBytes) and
// applies the same rule, so its nodes end where Redis's do and approximate
// trims (MAXLEN ~, MINID ~) remove the same entries.

// lpFrame is a listpack's header (total bytes, element count) and end byte.
const lpFrame = 6 + 1

// LPIntString reports whether Redis's listpack would store s as the
// integer it spells (lpStringToInt64): a canonical decimal of at most 20
// bytes within int64's range.
func LPIntString(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	if len(s) == 1 && s[0] == '0' {
		return 0, true
	}
	neg := s[0] == '-'
	d := s
	if neg {
		d = s[1:]
	}
	if len(d) == 0 || d[0] < '1' || d[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range d {
		if c < '0' || c > '9' || v > (math.MaxUint64-9)/10 {
			return 0, false
		}
		v = v*10 + uint64(c-'0')
	}
	switch {
	case neg && v <= 1<<63:
		return int64(-v), true
	case !neg && v <= math.MaxInt64:
		return int64(v), true
	}
	return 0, false
}

// lpBacklen is how many bytes the back length of an element of l bytes
// takes.
func lpBacklen(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// lpIntEncoded is how many bytes integer v takes in a listpack element,
// before its back length.
func lpIntEncoded(v int64) int {
	switch {
	case v >= 0 && v <= 127:
		return 1
	case v >= -4096 && v <= 4095:
		return 2
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return 3
	case v >= -1<<23 && v < 1<<23:
		return 4
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return 5
	}
	return 9
}

// LPInt is the size of integer v as a listpack element.
func LPInt(v int64) int {
	n := lpIntEncoded(v)
	return n + lpBacklen(n)
}

// LPString is the size of string s as a listpack element.
func LPString(s []byte) int {
	if v, ok := LPIntString(s); ok {
		return LPInt(v)
	}
	var n int
	switch {
	case len(s) < 64:
		n = 1 + len(s)
	case len(s) < 4096:
		n = 2 + len(s)
	default:
		n = 5 + len(s)
	}
	return n + lpBacklen(n)
}

// LPMasterBytes is the listpack size of a node started by an entry with
// fields, before its live and deleted counts and before the entry: the
// frame, the master field count, the fields and the terminating 0.
func LPMasterBytes(fields [][]byte) int {
	n := lpFrame + LPInt(int64(len(fields))) + LPInt(0)
	for _, f := range fields {
		n += LPString(f)
	}
	return n
}

// LPCountBytes is the listpack size of a node's live and deleted counts.
func LPCountBytes(live, deleted int) int { return LPInt(int64(live)) + LPInt(int64(deleted)) }

// LPEntryBytes is the listpack size of the entry (id, fields, values)
// added to a node of master ID master: flags, the ID's deltas, the fields
// unless same, the values, and the element count.
func LPEntryBytes(master, id ID, same bool, fields, values [][]byte) int {
	n := LPInt(0) + LPInt(int64(id.Ms-master.Ms)) + LPInt(int64(id.Seq-master.Seq))
	count := len(fields) + 3
	if !same {
		n += LPInt(int64(len(fields)))
		for _, f := range fields {
			n += LPString(f)
		}
		count += len(fields) + 1
	}
	for _, v := range values {
		n += LPString(v)
	}
	return n + LPInt(int64(count))
}
