package shardowner

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/corekv/corekv/resp"
)

// Bitmap command errors, as Redis words them.
const (
	errBitOffset     resp.Error = "ERR bit offset is not an integer or out of range"
	errBitValue      resp.Error = "ERR bit is not an integer or out of range"
	errBitArg        resp.Error = "ERR The bit argument must be 1 or 0."
	maxBitOffsetByte            = maxStringLen // a bit offset's byte must be below it
)

// stringBytes is a string value's bytes; an integer-encoded one is read as
// its digits, written into tmp.
func stringBytes(v Value, tmp *[20]byte) []byte {
	if v.IsInt {
		return strconv.AppendInt(tmp[:0], v.Int, 10)
	}
	return v.Str
}

// parseBitOffset reads a bit offset as SETBIT, GETBIT and BITFIELD take it:
// with hash (BITFIELD) "#n" means n fields of width bits. The multiplication
// wraps as Redis's does. ok is false for anything negative or whose byte
// lies at or beyond proto-max-bulk-len.
func parseBitOffset(b []byte, hash bool, width int) (uint64, bool) {
	useHash := hash && width > 0 && len(b) > 0 && b[0] == '#'
	if useHash {
		b = b[1:]
	}
	n, ok := resp.ParseInt(b)
	if !ok {
		return 0, false
	}
	if useHash {
		n *= int64(width)
	}
	if n < 0 || n>>3 >= maxBitOffsetByte {
		return 0, false
	}
	return uint64(n), true
}

// growForBits makes key's string hold at least n bytes, zero-padded, as
// SETBIT and BITFIELD's writes need before they change bits; a missing key
// becomes a new string. It writes the error and reports ok=false on
// WRONGTYPE or when there is no room. grew says the key was created or
// lengthened, which Redis counts as a change whatever the bits.
func growForBits(c *Ctx, key []byte, n int) (grew, ok bool) {
	v, found, ok := getString(c, key)
	if !ok {
		return false, false
	}
	t := c.Table()
	if !found {
		if !stored(c, t.SetVerbatim(key, nil, 0, true)) {
			return false, false
		}
	} else if !toRaw(c, key, v) {
		return false, false
	} else if stringLen(v) >= n {
		return false, true
	}
	var zero [1]byte
	if _, err := t.WriteAt(key, n-1, zero[:]); err != nil {
		if !found {
			t.Delete(key)
		}
		stored(c, err)
		return false, false
	}
	return true, true
}

// SetBit: SETBIT key offset value. Replies the bit's old value.
func SetBit(c *Ctx, argv [][]byte) {
	off, ok := parseBitOffset(argv[2], false, 0)
	if !ok {
		c.W.Err(errBitOffset)
		return
	}
	on, ok := resp.ParseInt(argv[3])
	if !ok || on&^1 != 0 {
		c.W.Err(errBitValue)
		return
	}
	byteIdx := int(off >> 3)
	grew, ok := growForBits(c, argv[1], byteIdx+1)
	if !ok {
		return
	}
	v, _ := c.Table().Get(argv[1])
	old := v.Str[byteIdx]
	mask := byte(1) << (7 - off&7)
	was := old&mask != 0
	if grew || was != (on == 1) {
		nb := [1]byte{old&^mask | byte(on)<<(7-off&7)}
		if _, err := c.Table().WriteAt(argv[1], byteIdx, nb[:]); !stored(c, err) {
			return
		}
		c.Notify(NotifyString, "setbit", argv[1])
	}
	c.W.Int(b2i(was))
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// GetBit: GETBIT key offset. Bits past the end, and of a missing key, are 0.
func GetBit(c *Ctx, argv [][]byte) {
	off, ok := parseBitOffset(argv[2], false, 0)
	if !ok {
		c.W.Err(errBitOffset)
		return
	}
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	c.Shard.Stats.countLookup(found)
	var tmp [20]byte
	s := stringBytes(v, &tmp)
	byteIdx := off >> 3
	bit := byteIdx < uint64(len(s)) && s[byteIdx]&(1<<(7-off&7)) != 0
	c.W.Int(b2i(bit))
}

// bitRange turns the start and end of BITCOUNT or BITPOS, in bytes or with
// isBit in bits, into an inclusive range of bits of an n-byte string, as
// Redis clamps them: negative counts from the end. empty is true when no
// bit lies in it.
func bitRange(start, end int64, n int, isBit bool) (from, to int64, empty bool) {
	total := int64(n)
	if isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start = max(start, 0)
	end = max(end, 0)
	end = min(end, total-1)
	if start > end {
		return 0, 0, true
	}
	if !isBit {
		return start << 3, end<<3 | 7, false
	}
	return start, end, false
}

// parseUnit reads BYTE or BIT; ok is false for anything else.
func parseUnit(b []byte) (isBit, ok bool) {
	switch {
	case resp.EqualFold(b, "bit"):
		return true, true
	case resp.EqualFold(b, "byte"):
		return false, true
	}
	return false, false
}

// BitCount: BITCOUNT key [start end [BYTE|BIT]]. As in Redis, the key is
// looked up before the range is read: a missing key counts 0 whatever the
// arguments.
func BitCount(c *Ctx, argv [][]byte) {
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	c.Shard.Stats.countLookup(found)
	if !found {
		c.W.Int(0)
		return
	}
	var tmp [20]byte
	s := stringBytes(v, &tmp)
	var from, to int64
	switch len(argv) {
	case 2:
		if len(s) == 0 {
			c.W.Int(0)
			return
		}
		from, to = 0, int64(len(s))<<3-1
	case 4, 5:
		start, ok1 := resp.ParseInt(argv[2])
		end, ok2 := resp.ParseInt(argv[3])
		if !ok1 || !ok2 {
			c.W.Err(resp.ErrNotInteger)
			return
		}
		if start < 0 && end < 0 && start > end {
			c.W.Int(0)
			return
		}
		isBit := false
		if len(argv) == 5 {
			if isBit, ok = parseUnit(argv[4]); !ok {
				c.W.Err(resp.ErrSyntax)
				return
			}
		}
		var empty bool
		if from, to, empty = bitRange(start, end, len(s), isBit); empty {
			c.W.Int(0)
			return
		}
	default:
		c.W.Err(resp.ErrSyntax)
		return
	}
	c.W.Int(popcount(s, from, to))
}

// popcount counts the set bits of s from bit from to bit to, inclusive.
func popcount(s []byte, from, to int64) int64 {
	fb, tb := from>>3, to>>3
	// Masks keep the bits of the edge bytes that lie in the range.
	first := byte(0xff >> (from & 7))
	last := byte(0xff << (7 - to&7))
	if fb == tb {
		return int64(bits.OnesCount8(s[fb] & first & last))
	}
	n := bits.OnesCount8(s[fb]&first) + bits.OnesCount8(s[tb]&last)
	mid := s[fb+1 : tb]
	for len(mid) >= 8 {
		w := uint64(mid[0]) | uint64(mid[1])<<8 | uint64(mid[2])<<16 | uint64(mid[3])<<24 |
			uint64(mid[4])<<32 | uint64(mid[5])<<40 | uint64(mid[6])<<48 | uint64(mid[7])<<56
		n += bits.OnesCount64(w)
		mid = mid[8:]
	}
	for _, b := range mid {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// BitPos: BITPOS key bit [start [end [BYTE|BIT]]]. A missing key is an
// endless run of zeros. Looking for a clear bit without an end, the string
// counts as zero-padded to the right, so a string of all ones answers the
// first bit past it.
func BitPos(c *Ctx, argv [][]byte) {
	want, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	if want != 0 && want != 1 {
		c.W.Err(errBitArg)
		return
	}
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	c.Shard.Stats.countLookup(found)
	if !found {
		c.W.Int(-want)
		return
	}
	var tmp [20]byte
	s := stringBytes(v, &tmp)
	var from, to int64
	endGiven := false
	switch len(argv) {
	case 3:
		if len(s) == 0 {
			c.W.Int(-1)
			return
		}
		from, to = 0, int64(len(s))<<3-1
	case 4, 5, 6:
		start, ok := resp.ParseInt(argv[3])
		if !ok {
			c.W.Err(resp.ErrNotInteger)
			return
		}
		isBit := false
		if len(argv) == 6 {
			if isBit, ok = parseUnit(argv[5]); !ok {
				c.W.Err(resp.ErrSyntax)
				return
			}
		}
		end := int64(math.MaxInt64)
		if len(argv) >= 5 {
			if end, ok = resp.ParseInt(argv[4]); !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			endGiven = true
		}
		var empty bool
		if from, to, empty = bitRange(start, end, len(s), isBit); empty {
			c.W.Int(-1)
			return
		}
	default:
		c.W.Err(resp.ErrSyntax)
		return
	}
	pos := firstBit(s, from, to, want == 1)
	if pos < 0 && want == 0 && !endGiven {
		// Past the range, which ends with the string: the zero padding.
		pos = (to>>3 + 1) << 3
	}
	c.W.Int(pos)
}

// firstBit is the position of the first bit equal to set in s from bit from
// to bit to, inclusive, or -1.
func firstBit(s []byte, from, to int64, set bool) int64 {
	skip := byte(0)
	if !set {
		skip = 0xff
	}
	for i := from; i <= to; {
		b := s[i>>3]
		if i&7 == 0 && i+7 <= to && b == skip {
			i += 8
			continue
		}
		if (b&(0x80>>(i&7)) != 0) == set {
			return i
		}
		i++
	}
	return -1
}
