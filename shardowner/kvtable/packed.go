package kvtable

// A packed list is how a small hash or set is stored: all its elements in one
// byte string, the value of one arena entry, with no pointer per element
// (Redis's listpack plays the same part):
//
//	count    uvarint, the number of elements
//	then per element:
//	len      uvarint
//	bytes    len bytes
//
// A hash's elements alternate field and value, in the order the fields were
// added, as in Redis. Lookups scan the list; it is kept small by the
// conversion thresholds (hash-max-listpack-entries and -value), past which
// the aggregate becomes a Table of its own.
//
// A packed set of integers (an intset) is instead:
//
//	width    1 byte: 2, 4 or 8
//	ints     sorted ascending, width bytes each, little-endian
//
// See intset.go.

// PackedHeadRoom is the room a buffer built with FinishPacked keeps in front
// of its elements for the count.
const PackedHeadRoom = 10

// PackedCount returns the number of elements of packed list b.
func PackedCount(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	n, _ := getUvarint(b)
	return n
}

// PackedBody returns the elements of packed list b, after its count.
func PackedBody(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	_, n := getUvarint(b)
	return b[n:]
}

// ElemAt returns the element of a packed list's body that starts at off and
// the offset of the next one.
func ElemAt(body []byte, off int) (elem []byte, next int) {
	l, n := getUvarint(body[off:])
	off += n
	return body[off : off+l : off+l], off + l
}

// AppendElem appends element e to a packed list's body.
func AppendElem(dst, e []byte) []byte { return append(AppendLen(dst, len(e)), e...) }

// AppendLen appends the length prefix of an element of n bytes.
func AppendLen(dst []byte, n int) []byte {
	var tmp [10]byte
	return append(dst, tmp[:putUvarint(tmp[:], n)]...)
}

// ElemLen is the number of bytes element e takes in a packed list.
func ElemLen(e []byte) int { return uvarintLen(len(e)) + len(e) }

// FinishPacked turns buf, PackedHeadRoom bytes of room followed by the
// elements, into a packed list of count elements, which it returns (a
// slice of buf).
func FinishPacked(buf []byte, count int) []byte {
	pos := PackedHeadRoom - uvarintLen(count)
	putUvarint(buf[pos:], count)
	return buf[pos:]
}

// ValidPacked reports whether b is a well-formed packed list, non-empty,
// whose count is a multiple of per (2 for a hash): the check a packed list
// from elsewhere (another shard's blob) passes before it is stored.
func ValidPacked(b []byte, per int) bool {
	n, off, ok := readUvarint(b, 0)
	if !ok || n == 0 || n%per != 0 {
		return false
	}
	for i := 0; i < n; i++ {
		var l int
		if l, off, ok = readUvarint(b, off); !ok || l > len(b)-off {
			return false
		}
		off += l
	}
	return off == len(b)
}

// readUvarint reads a uvarint at off of b, bounds-checked, that fits in
// 32 bits.
func readUvarint(b []byte, off int) (n, next int, ok bool) {
	var v uint64
	for shift := 0; shift < 35; shift += 7 {
		if off >= len(b) {
			return 0, 0, false
		}
		c := b[off]
		off++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			if v >= 1<<31 || (c == 0 && shift > 0) {
				return 0, 0, false
			}
			return int(v), off, true
		}
	}
	return 0, 0, false
}
