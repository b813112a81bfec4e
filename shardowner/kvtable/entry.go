package kvtable

// An entry is one item of the arena:
//
//	header   1 byte: kind (bits 0-2), string stored as given or packed
//	         set of integers (bit 3), encoding (bits 4-5), has-TTL (bit 6),
//	         bit 7: raw string grown in place (hdrGrown), or integer that is
//	         its own object (hdrUnshared)
//	[expire  8 bytes, absolute Unix ms]       only with a TTL
//	[expidx  4 bytes, position in the TTL wheel] only with a TTL
//	keylen   uvarint
//	key      keylen bytes
//	value    raw: uvarint length + bytes (a string, or the packed elements
//	         of a small aggregate); int: 8 bytes; obj: 4-byte index
//
// All integers are little-endian. A 16-byte key with a 16-byte string costs
// 35 bytes (class 40); with an integer value 26 bytes (class 32). Keys
// without a TTL pay nothing for expiry.

import "encoding/binary"

const (
	hdrKindMask = 0x07
	hdrEncMask  = 0x30
	hdrTTL      = 0x40
	// hdrVerbatim marks a string stored as given even when it reads as an
	// integer (INCRBYFLOAT's result; Redis keeps it a string too).
	hdrVerbatim = 0x08
	// hdrGrown marks a string built by APPEND or SETRANGE, which Redis
	// keeps in its "raw" encoding whatever its length.
	hdrGrown = 0x80
	// hdrUnshared, on an integer-encoded entry, marks an integer that is its
	// own object (a COPY's copy), never one of Redis's shared small ones.
	// It reuses hdrGrown's bit, which only raw strings use.
	hdrUnshared = hdrGrown
	// hdrIntSet marks a packed set whose elements are integers. It reuses
	// hdrVerbatim's bit, which only strings use.
	hdrIntSet = hdrVerbatim

	encRaw = 0x00 // value bytes follow
	encInt = 0x10 // 64-bit integer
	encObj = 0x20 // index into Table.objs, for big aggregates

	ttlBytes = 12
)

var le = binary.LittleEndian

func uvarintLen(n int) int {
	l := 1
	for n >= 0x80 {
		n >>= 7
		l++
	}
	return l
}

func putUvarint(b []byte, n int) int {
	if n < 0x80 {
		b[0] = byte(n)
		return 1
	}
	return binary.PutUvarint(b, uint64(n))
}

// getUvarint reads a uvarint the table wrote, small enough to inline.
func getUvarint(b []byte) (v, n int) {
	for shift := 0; ; shift += 7 {
		c := b[n]
		n++
		v |= int(c&0x7f) << shift
		if c < 0x80 {
			return v, n
		}
	}
}

func prefixLen(hdr byte) int {
	if hdr&hdrTTL != 0 {
		return 1 + ttlBytes
	}
	return 1
}

// valueLen is the size of the value part for an encoding.
func valueLen(enc byte, vlen int) int {
	switch enc {
	case encInt:
		return 8
	case encObj:
		return 4
	}
	return uvarintLen(vlen) + vlen
}

// entrySize is the size of an entry.
func entrySize(klen int, enc byte, vlen int, ttl bool) int {
	n := 1 + uvarintLen(klen) + klen + valueLen(enc, vlen)
	if ttl {
		n += ttlBytes
	}
	return n
}

// entryKey returns the key of entry it.
func entryKey(it []byte) []byte {
	off := prefixLen(it[0])
	kl, n := getUvarint(it[off:])
	off += n
	return it[off : off+kl : off+kl]
}

// valueOff returns the offset of the value part of entry it.
func valueOff(it []byte) int {
	off := prefixLen(it[0])
	kl, n := getUvarint(it[off:])
	return off + n + kl
}

// entryLen is the number of bytes entry it uses.
func entryLen(it []byte) int {
	off := valueOff(it)
	enc := it[0] & hdrEncMask
	if enc != encRaw {
		return off + valueLen(enc, 0)
	}
	vl, n := getUvarint(it[off:])
	return off + n + vl
}

func entryExpire(it []byte) int64 {
	if it[0]&hdrTTL == 0 {
		return 0
	}
	return int64(le.Uint64(it[1:]))
}

func entryExpIdx(it []byte) int { return int(le.Uint32(it[9:])) }

func setEntryExpIdx(it []byte, i int) { le.PutUint32(it[9:], uint32(i)) }

// writePrefix writes the header and, with a TTL, the expiry fields.
func writePrefix(it []byte, hdr byte, expireAt int64, expIdx int) {
	it[0] = hdr
	if hdr&hdrTTL != 0 {
		le.PutUint64(it[1:], uint64(expireAt))
		le.PutUint32(it[9:], uint32(expIdx))
	}
}

// writeValue writes the value part at off. raw may alias it: its bytes are
// moved before the length is written.
func writeValue(it []byte, off int, enc byte, raw []byte, n int64) {
	switch enc {
	case encInt:
		le.PutUint64(it[off:], uint64(n))
	case encObj:
		le.PutUint32(it[off:], uint32(n))
	default:
		l := uvarintLen(len(raw))
		copy(it[off+l:], raw)
		putUvarint(it[off:], len(raw))
	}
}

// writeEntry writes a whole entry into it.
func writeEntry(it []byte, hdr byte, expireAt int64, expIdx int, key, raw []byte, n int64) {
	writePrefix(it, hdr, expireAt, expIdx)
	off := prefixLen(hdr)
	off += putUvarint(it[off:], len(key))
	off += copy(it[off:], key)
	writeValue(it, off, hdr&hdrEncMask, raw, n)
}

// value decodes entry it. Str aliases it.
func (t *Table) value(it []byte) Value {
	var v Value
	t.decode(it, &v)
	return v
}

// decode is value writing into *v.
func (t *Table) decode(it []byte, v *Value) {
	hdr := it[0]
	*v = Value{Kind: Kind(hdr & hdrKindMask), ExpireAt: entryExpire(it)}
	off := valueOff(it)
	switch hdr & hdrEncMask {
	case encInt:
		v.IsInt = true
		v.Int = int64(le.Uint64(it[off:]))
		v.Unshared = hdr&hdrUnshared != 0
	case encRaw:
		if v.Kind == KindString {
			v.Verbatim = hdr&(hdrVerbatim|hdrGrown) != 0
			v.Grown = hdr&hdrGrown != 0
		} else {
			v.IntSet = hdr&hdrIntSet != 0
		}
		vl, n := getUvarint(it[off:])
		off += n
		v.Str = it[off : off+vl : off+vl]
	case encObj:
		v.Big = t.objs[le.Uint32(it[off:])]
	}
}
