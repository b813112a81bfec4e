// Package rdbfile owns Redis's RDB format below the level of values: the
// byte primitives (lengths, strings in their integer and LZF encodings,
// binary doubles, Redis's CRC-64), an LZF compressor and decompressor, a
// Writer that streams a whole RDB file (version 10, as Redis 7.0 writes
// it) and a Parser that frames one: header, AUX fields, databases, expiry
// and eviction hints, and each key with the exact extent of its encoded
// object. Turning objects into values is left to the caller (shardowner),
// which owns the value types; this package must not import it.
package rdbfile

import (
	"encoding/binary"
	"hash/crc64"
	"math"
	"strconv"
)

// Version is the RDB version Writer writes and the newest Parse reads.
const Version = 10

// magic starts a file of Version.
const magic = "REDIS0010"

// Opcodes, in the place of an object type byte.
const (
	OpFunctionPreGA = 246 // functions as Redis 7.0 release candidates wrote them
	OpFunction2     = 245
	OpModuleAux     = 247
	OpIdle          = 248
	OpFreq          = 249
	OpAux           = 250
	OpResizeDB      = 251
	OpExpireTimeMs  = 252
	OpExpireTime    = 253
	OpSelectDB      = 254
	OpEOF           = 255
)

// Object types.
const (
	TypeString           = 0
	TypeList             = 1
	TypeSet              = 2
	TypeZSet             = 3
	TypeHash             = 4
	TypeZSet2            = 5
	TypeModulePreGA      = 6
	TypeModule2          = 7
	TypeHashZipmap       = 9
	TypeListZiplist      = 10
	TypeSetIntset        = 11
	TypeZSetZiplist      = 12
	TypeHashZiplist      = 13
	TypeListQuicklist    = 14
	TypeStreamListpacks  = 15
	TypeHashListpack     = 16
	TypeZSetListpack     = 17
	TypeListQuicklist2   = 18
	TypeStreamListpacks2 = 19
)

// Quicklist 2 node containers.
const (
	QuicklistPlain  = 1
	QuicklistPacked = 2
)

// Special string encodings, the low six bits of a length byte 0b11xxxxxx.
const (
	encInt8  = 0
	encInt16 = 1
	encInt32 = 2
	encLZF   = 3
)

// MaxLZFRatio bounds how much an LZF string can grow: a 3-byte back
// reference copies at most 264 bytes. A declared length beyond it is a lie,
// refused before anything is allocated.
const MaxLZFRatio = 88

// crcTables are the reflected Jones polynomial's tables for eight bytes at
// a time: Go's crc64 keeps such tables only for its two own polynomials
// and builds them again for every long buffer of any other, and a
// snapshot's checksum runs over every byte of the file.
var crcTables = func() (t [8][256]uint64) {
	t[0] = *crc64.MakeTable(0x95ac9329ac4bc9b5)
	for i := range 256 {
		c := t[0][i]
		for k := 1; k < 8; k++ {
			c = t[0][c&0xff] ^ c>>8
			t[k][i] = c
		}
	}
	return t
}()

// UpdateCRC continues Redis's CRC-64 crc over b. Redis's variant is
// crc64's reflected Jones polynomial without the inversions before and
// after.
func UpdateCRC(crc uint64, b []byte) uint64 {
	t := &crcTables
	for len(b) >= 8 {
		crc ^= binary.LittleEndian.Uint64(b)
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24&0xff] ^
			t[3][crc>>32&0xff] ^ t[2][crc>>40&0xff] ^ t[1][crc>>48&0xff] ^ t[0][crc>>56]
		b = b[8:]
	}
	for _, c := range b {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return crc
}

// CRC is Redis's CRC-64 of b.
func CRC(b []byte) uint64 { return UpdateCRC(0, b) }

// AppendLen appends n (not negative) in RDB's length encoding: 6 bits, 14
// bits, 32 bits or 64 bits, the wider two big endian.
func AppendLen(dst []byte, n int) []byte { return appendLen(dst, uint64(n)) }

// AppendLen64 is AppendLen for a length of 64 bits (a stream's IDs).
func AppendLen64(dst []byte, n uint64) []byte { return appendLen(dst, n) }

func appendLen(dst []byte, n uint64) []byte {
	switch {
	case n < 1<<6:
		return append(dst, byte(n))
	case n < 1<<14:
		return append(dst, byte(n>>8)|0x40, byte(n))
	case n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(dst, 0x80), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0x81), n)
}

// AppendRawString appends s as a plain RDB string, its length then its
// bytes, in no special encoding.
func AppendRawString(dst, s []byte) []byte { return append(AppendLen(dst, len(s)), s...) }

// AppendString appends s as Redis saves a string. One of at most 11 bytes
// that is a canonical decimal integer within int32 goes out as an 8, 16 or
// 32-bit integer. With compress, one longer than 20 bytes goes out LZF
// compressed when the compressed bytes are at most len(s)-4: Redis gives
// its compressor only that much room, so the 1 + 2 to 10 bytes of the
// encoding's header are (nearly always) paid for. Otherwise s goes out
// plain.
func AppendString(dst, s []byte, compress bool) []byte {
	if len(s) <= 11 {
		if v, ok := canonicalInt(s); ok {
			return AppendInt(dst, v)
		}
	}
	if compress && len(s) > 20 {
		if out, ok := appendLZFString(dst, s); ok {
			return out
		}
	}
	return AppendRawString(dst, s)
}

// AppendInt appends v as an RDB string in the narrowest integer encoding
// that holds it, or as its decimal text when none does.
func AppendInt(dst []byte, v int64) []byte {
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return append(dst, 0xc0|encInt8, byte(v))
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return binary.LittleEndian.AppendUint16(append(dst, 0xc0|encInt16), uint16(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(dst, 0xc0|encInt32), uint32(v))
	}
	var tmp [20]byte
	return AppendRawString(dst, strconv.AppendInt(tmp[:0], v, 10))
}

// appendLZFString appends s in the LZF string encoding, if it compresses
// into len(s)-4 bytes. The compressed bytes are written where they will
// stay and the header, whose size depends on their length, is slid in
// front of them.
func appendLZFString(dst, s []byte) ([]byte, bool) {
	const maxHeader = 1 + 5 + 5 // 0xc3 and two 32-bit lengths (s is an int)
	start := len(dst)
	dst = append(dst, make([]byte, maxHeader)...)
	out, ok := compress(dst, s, len(s)-4)
	if !ok {
		return dst[:start], false
	}
	clen := len(out) - start - maxHeader
	var hdr [maxHeader]byte
	h := appendLen(appendLen(append(hdr[:0], 0xc0|encLZF), uint64(clen)), uint64(len(s)))
	copy(out[start:], h)
	copy(out[start+len(h):], out[start+maxHeader:])
	return out[:start+len(h)+clen], true
}

// canonicalInt reads s as a decimal integer within int32 that prints back
// as s: no sign but a leading '-', no leading zeros, no "-0".
func canonicalInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 11 {
		return 0, false
	}
	i, neg := 0, false
	if s[0] == '-' {
		i, neg = 1, true
	}
	if i == len(s) || (s[i] == '0' && len(s) > 1) {
		return 0, false // "-", "0…", "-0…"
	}
	var v int64
	for ; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, v >= math.MinInt32 && v <= math.MaxInt32
}

// AppendDouble appends f as a binary double, 8 bytes little endian, as
// zset2 scores are stored.
func AppendDouble(dst []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f))
}
