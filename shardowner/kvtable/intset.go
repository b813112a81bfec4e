package kvtable

import "sort"

// An intset is a packed set of integers (Redis's intset): a width byte (2, 4
// or 8), then the members sorted ascending, each width bytes,
// little-endian. The width is the smallest that holds every member; adding
// one that needs more widens them all.

// IntSetLen returns the number of members of intset b.
func IntSetLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	return (len(b) - 1) / int(b[0])
}

// IntSetAt returns member i of intset b.
func IntSetAt(b []byte, i int) int64 {
	w := int(b[0])
	p := b[1+i*w:]
	switch w {
	case 2:
		return int64(int16(le.Uint16(p)))
	case 4:
		return int64(int32(le.Uint32(p)))
	}
	return int64(le.Uint64(p))
}

// IntSetFind returns the position of n in intset b, or where it would go.
func IntSetFind(b []byte, n int64) (int, bool) {
	k := IntSetLen(b)
	i := sort.Search(k, func(i int) bool { return IntSetAt(b, i) >= n })
	return i, i < k && IntSetAt(b, i) == n
}

func intWidth(n int64) int {
	switch {
	case n == int64(int16(n)):
		return 2
	case n == int64(int32(n)):
		return 4
	}
	return 8
}

func putIntAt(b []byte, w, i int, n int64) {
	p := b[1+i*w:]
	switch w {
	case 2:
		le.PutUint16(p, uint16(n))
	case 4:
		le.PutUint32(p, uint32(n))
	default:
		le.PutUint64(p, uint64(n))
	}
}

// AppendIntSetAdd appends to dst intset b with n added (b itself when n is
// a member), and reports whether n was added. dst must not overlap b.
func AppendIntSetAdd(dst, b []byte, n int64) ([]byte, bool) {
	i, found := IntSetFind(b, n)
	if found {
		return append(dst, b...), false
	}
	k := IntSetLen(b)
	w := intWidth(n)
	if k > 0 && int(b[0]) > w {
		w = int(b[0])
	}
	start := len(dst)
	dst = append(dst, make([]byte, 1+(k+1)*w)...)
	out := dst[start:]
	out[0] = byte(w)
	for j := range k {
		pos := j
		if j >= i {
			pos++
		}
		putIntAt(out, w, pos, IntSetAt(b, j))
	}
	putIntAt(out, w, i, n)
	return dst, true
}

// AppendIntSetRemove appends to dst intset b without member i. dst must not
// overlap b. Removing the last member leaves an empty string.
func AppendIntSetRemove(dst, b []byte, i int) []byte {
	k := IntSetLen(b)
	if k == 1 {
		return dst
	}
	w := int(b[0])
	dst = append(dst, b[:1+i*w]...)
	return append(dst, b[1+(i+1)*w:]...)
}

// ValidIntSet reports whether b is a well-formed, non-empty intset: a
// known width, whole members, sorted without repeats, each needing the
// width or the width is the smallest one that holds them all.
func ValidIntSet(b []byte) bool {
	if len(b) < 1 || (b[0] != 2 && b[0] != 4 && b[0] != 8) || (len(b)-1)%int(b[0]) != 0 || len(b) == 1 {
		return false
	}
	k := IntSetLen(b)
	need := 2
	for i := range k {
		n := IntSetAt(b, i)
		need = max(need, intWidth(n))
		if i > 0 && IntSetAt(b, i-1) >= n {
			return false
		}
	}
	return need == int(b[0])
}
