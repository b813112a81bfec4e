package rdbfile

import "slices"

// LZF, as Redis compresses strings: a control byte below 32 starts a
// literal run of 1 to 32 bytes; any other is a back reference, its top
// three bits the length less 2 (7: a following byte adds to it) and its
// low five bits with the next byte the distance less 1, up to 8192.

const (
	lzfMaxLit = 32
	lzfMaxOff = 1 << 13
	lzfMaxRef = 7 + 255 + 2
)

// Compress appends src LZF compressed to dst, when that is shorter than
// src; otherwise it returns dst unchanged and false.
func Compress(dst, src []byte) ([]byte, bool) { return compress(dst, src, len(src)-1) }

// compress appends src compressed to dst if the result takes at most
// limit bytes. The hash table lives on the stack: small inputs get a small
// one, so that short strings do not pay for clearing a large one.
func compress(dst, src []byte, limit int) ([]byte, bool) {
	if limit <= 0 || len(src) == 0 {
		return dst, false
	}
	if len(src) <= 1024 {
		var t [1 << 9]uint32
		return compressWith(dst, src, limit, t[:])
	}
	var t [1 << 13]uint32
	return compressWith(dst, src, limit, t[:])
}

// compressWith is a greedy LZF compressor: at each position it looks up
// the last place the next three bytes were hashed to, and takes the match
// there if it really is one. table's length is a power of two.
func compressWith(dst, src []byte, limit int, table []uint32) ([]byte, bool) {
	start := len(dst)
	mask := uint32(len(table) - 1)
	hash := func(i int) uint32 {
		v := uint32(src[i])<<16 | uint32(src[i+1])<<8 | uint32(src[i+2])
		return (v * 2654435761) >> 13 & mask
	}
	lit := 0 // first byte not yet written
	i := 0
	for i+2 < len(src) {
		h := hash(i)
		ref := int(table[h])
		table[h] = uint32(i)
		dist := i - ref - 1
		if ref >= i || dist >= lzfMaxOff || src[ref] != src[i] || src[ref+1] != src[i+1] || src[ref+2] != src[i+2] {
			i++
			continue
		}
		n := 3
		for m := min(len(src)-i, lzfMaxRef); n < m && src[ref+n] == src[i+n]; n++ {
		}
		dst = appendLiterals(dst, src[lit:i])
		if n-2 < 7 {
			dst = append(dst, byte((n-2)<<5|dist>>8), byte(dist))
		} else {
			dst = append(dst, byte(7<<5|dist>>8), byte(n-2-7), byte(dist))
		}
		if len(dst)-start > limit {
			return dst[:start], false
		}
		// Hash the positions the match covers, for later matches.
		for j := i + 1; j < i+n && j+2 < len(src); j++ {
			table[hash(j)] = uint32(j)
		}
		i += n
		lit = i
	}
	dst = appendLiterals(dst, src[lit:])
	if len(dst)-start > limit {
		return dst[:start], false
	}
	return dst, true
}

// appendLiterals appends b as literal runs.
func appendLiterals(dst, b []byte) []byte {
	for len(b) > 0 {
		n := min(len(b), lzfMaxLit)
		dst = append(append(dst, byte(n-1)), b[:n]...)
		b = b[n:]
	}
	return dst
}

// Decompress appends to dst the n bytes that LZF data src expands to. It
// fails on a reference before the start, a run past n, or an expansion to
// any other length. Callers bound n (MaxLZFRatio) before calling.
func Decompress(dst, src []byte, n int) ([]byte, bool) {
	base := len(dst)
	dst = slices.Grow(dst, n)
	for i := 0; i < len(src); {
		ctrl := int(src[i])
		i++
		if ctrl < lzfMaxLit {
			run := ctrl + 1
			if i+run > len(src) || len(dst)-base+run > n {
				return dst, false
			}
			dst = append(dst, src[i:i+run]...)
			i += run
			continue
		}
		run := ctrl >> 5
		if run == 7 {
			if i >= len(src) {
				return dst, false
			}
			run += int(src[i])
			i++
		}
		run += 2
		if i >= len(src) {
			return dst, false
		}
		ref := len(dst) - (ctrl&0x1f)<<8 - int(src[i]) - 1
		i++
		if ref < base || len(dst)-base+run > n {
			return dst, false
		}
		for k := 0; k < run; k++ { // the run may overlap what it writes
			dst = append(dst, dst[ref+k])
		}
	}
	return dst, len(dst)-base == n
}
