package rdbfile

import (
	"encoding/binary"
	"math"
	"strconv"
)

// Reader reads RDB primitives from a byte slice. Every length is checked
// against what is left before it is used. A failed read reports false and
// leaves the position anywhere: the caller gives up on the input.
type Reader struct {
	p   []byte
	off int // bytes consumed, for error messages

	// Scratch holds the last LZF string read. The caller may give it a
	// buffer to reuse and take it back after.
	Scratch []byte
	tmp     [20]byte // the last integer string read
}

// NewReader returns a Reader over p.
func NewReader(p []byte) *Reader { return &Reader{p: p} }

// Reset makes r read p, keeping its Scratch.
func (r *Reader) Reset(p []byte) { r.p, r.off = p, 0 }

// Rest is what is left to read.
func (r *Reader) Rest() []byte { return r.p }

// Offset is how many bytes r has consumed.
func (r *Reader) Offset() int { return r.off }

// Byte reads one byte.
func (r *Reader) Byte() (byte, bool) {
	if len(r.p) == 0 {
		return 0, false
	}
	b := r.p[0]
	r.p = r.p[1:]
	r.off++
	return b, true
}

// Take reads n bytes; the result aliases the input.
func (r *Reader) Take(n uint64) ([]byte, bool) {
	if n > uint64(len(r.p)) {
		return nil, false
	}
	b := r.p[:n]
	r.p = r.p[n:]
	r.off += int(n)
	return b, true
}

// Skip drops n bytes.
func (r *Reader) Skip(n uint64) bool {
	_, ok := r.Take(n)
	return ok
}

// Len reads an RDB length; encoded reports a special string form (an
// integer or LZF), whose kind is then n. Where a length is expected Redis
// takes an encoded one's six bits as the length, and so may the caller.
func (r *Reader) Len() (n uint64, encoded, ok bool) {
	b, ok := r.Byte()
	if !ok {
		return 0, false, false
	}
	switch b >> 6 {
	case 0:
		return uint64(b & 0x3f), false, true
	case 1:
		lo, ok := r.Byte()
		return uint64(b&0x3f)<<8 | uint64(lo), false, ok
	case 3:
		return uint64(b & 0x3f), true, true
	}
	switch b {
	case 0x80:
		x, ok := r.Take(4)
		if !ok {
			return 0, false, false
		}
		return uint64(binary.BigEndian.Uint32(x)), false, true
	case 0x81:
		x, ok := r.Take(8)
		if !ok {
			return 0, false, false
		}
		return binary.BigEndian.Uint64(x), false, true
	}
	return 0, false, false
}

// Count reads a count of items each taking at least min bytes, so that a
// count the rest of the input cannot hold fails before any work.
func (r *Reader) Count(min int) (int, bool) {
	n, _, ok := r.Len()
	if !ok || n > uint64(len(r.p)/min) {
		return 0, false
	}
	return int(n), true
}

// String reads an RDB string. The result aliases the input, r.Scratch or
// r itself, and is valid until the next read.
func (r *Reader) String() ([]byte, bool) {
	n, encoded, ok := r.Len()
	if !ok {
		return nil, false
	}
	if !encoded {
		return r.Take(n)
	}
	var x []byte
	switch n {
	case encInt8:
		if x, ok = r.Take(1); ok {
			return r.intText(int64(int8(x[0]))), true
		}
	case encInt16:
		if x, ok = r.Take(2); ok {
			return r.intText(int64(int16(binary.LittleEndian.Uint16(x)))), true
		}
	case encInt32:
		if x, ok = r.Take(4); ok {
			return r.intText(int64(int32(binary.LittleEndian.Uint32(x)))), true
		}
	case encLZF:
		return r.lzf()
	}
	return nil, false
}

func (r *Reader) intText(v int64) []byte { return strconv.AppendInt(r.tmp[:0], v, 10) }

// lzf reads an LZF string: its compressed and plain lengths, then the
// compressed bytes.
func (r *Reader) lzf() ([]byte, bool) {
	src, plen, ok := r.lzfParts()
	if !ok {
		return nil, false
	}
	if plen == 0 {
		return nil, true // Redis takes any data that claims to expand to nothing
	}
	out, ok := Decompress(r.Scratch[:0], src, int(plen))
	r.Scratch = out
	return out, ok
}

// lzfParts reads the lengths and the compressed bytes of an LZF string.
func (r *Reader) lzfParts() (src []byte, plen uint64, ok bool) {
	clen, e1, ok1 := r.Len()
	plen, e2, ok2 := r.Len()
	if !ok1 || !ok2 || e1 || e2 || plen > clen*MaxLZFRatio {
		return nil, 0, false
	}
	src, ok = r.Take(clen)
	return src, plen, ok
}

// SkipString steps over an RDB string without expanding it.
func (r *Reader) SkipString() bool {
	n, encoded, ok := r.Len()
	if !ok {
		return false
	}
	if !encoded {
		return r.Skip(n)
	}
	switch n {
	case encInt8:
		return r.Skip(1)
	case encInt16:
		return r.Skip(2)
	case encInt32:
		return r.Skip(4)
	case encLZF:
		_, _, ok := r.lzfParts()
		return ok
	}
	return false
}

// Double reads a binary double, 8 bytes little endian.
func (r *Reader) Double() (float64, bool) {
	x, ok := r.Take(8)
	if !ok {
		return 0, false
	}
	return math.Float64frombits(binary.LittleEndian.Uint64(x)), true
}
