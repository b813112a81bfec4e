package shardowner

import (
	"math"
	"math/bits"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

// Bitmap command errors, as Redis words them.
const (
	errBitOffset    resp.Error = "ERR bit offset is not an integer or out of range"
	errBitValue     resp.Error = "ERR bit is not an integer or out of range"
	errBitArg       resp.Error = "ERR The bit argument must be 1 or 0."
	errBitfieldType resp.Error = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errOverflowType resp.Error = "ERR Invalid OVERFLOW type specified"
	errBitfieldRO   resp.Error = "ERR BITFIELD_RO only supports the GET subcommand"
	errBitopNotOne  resp.Error = "ERR BITOP NOT must be called with a single source key."
)

// maxBitOffsetByte bounds bit offsets as Redis's proto-max-bulk-len does:
// the offset's byte must lie below it, so the last valid bit is 2^32-1.
const maxBitOffsetByte = maxStringLen

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
		t.MarkGrown(key)
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
		if i&63 == 0 && i+63 <= to && allBytes(s[i>>3:i>>3+8], skip) {
			i += 64
			continue
		}
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

// allBytes reports whether the 8 bytes of p are all b.
func allBytes(p []byte, b byte) bool {
	w := uint64(p[0]) | uint64(p[1])<<8 | uint64(p[2])<<16 | uint64(p[3])<<24 |
		uint64(p[4])<<32 | uint64(p[5])<<40 | uint64(p[6])<<48 | uint64(p[7])<<56
	return w == uint64(b)*0x0101010101010101
}

// BITFIELD's operations and overflow behaviours.
const (
	bfGet = 1 + iota
	bfSet
	bfIncrBy

	bfWrap = 0
	bfSat  = 1
	bfFail = 2
)

// bitfieldOp is one GET, SET or INCRBY of BITFIELD.
type bitfieldOp struct {
	code     int
	signed   bool
	width    int
	off      uint64
	val      int64
	overflow int
}

// nextBitfieldOp reads the operation of BITFIELD's arguments that starts at
// argv[j], after any OVERFLOW settings, which change *overflow. It returns
// the operation (code 0 when none is left) and where the next one starts,
// or the error to reply.
func nextBitfieldOp(argv [][]byte, j int, overflow *int) (op bitfieldOp, next int, err resp.Error) {
	for j < len(argv) {
		rem := len(argv) - j - 1
		a := argv[j]
		switch {
		case resp.EqualFold(a, "get") && rem >= 2:
			op.code = bfGet
		case resp.EqualFold(a, "set") && rem >= 3:
			op.code = bfSet
		case resp.EqualFold(a, "incrby") && rem >= 3:
			op.code = bfIncrBy
		case resp.EqualFold(a, "overflow") && rem >= 1:
			switch t := argv[j+1]; {
			case resp.EqualFold(t, "wrap"):
				*overflow = bfWrap
			case resp.EqualFold(t, "sat"):
				*overflow = bfSat
			case resp.EqualFold(t, "fail"):
				*overflow = bfFail
			default:
				return op, j, errOverflowType
			}
			j += 2
			continue
		default:
			return op, j, resp.ErrSyntax
		}
		var ok bool
		if op.signed, op.width, ok = parseBitfieldType(argv[j+1]); !ok {
			return op, j, errBitfieldType
		}
		if op.off, ok = parseBitOffset(argv[j+2], true, op.width); !ok {
			return op, j, errBitOffset
		}
		op.overflow = *overflow
		if op.code == bfGet {
			return op, j + 3, ""
		}
		if op.val, ok = resp.ParseInt(argv[j+3]); !ok {
			return op, j, resp.ErrNotInteger
		}
		return op, j + 4, ""
	}
	return op, j, ""
}

// parseBitfieldType reads i1…i64 or u1…u63. Redis reads the width as a C
// string, so it ends at a NUL byte.
func parseBitfieldType(b []byte) (signed bool, width int, ok bool) {
	if len(b) == 0 || (b[0] != 'i' && b[0] != 'u') {
		return false, 0, false
	}
	signed = b[0] == 'i'
	b = b[1:]
	for i, ch := range b {
		if ch == 0 {
			b = b[:i]
			break
		}
	}
	n, ok := resp.ParseInt(b)
	if !ok || n < 1 || n > 64 || (!signed && n > 63) {
		return false, 0, false
	}
	return signed, int(n), true
}

// BitField: BITFIELD key [GET type offset | [OVERFLOW WRAP|SAT|FAIL]
// SET type offset value | INCRBY type offset increment ...].
func BitField(c *Ctx, argv [][]byte) { bitfield(c, argv, false) }

// BitFieldRO: BITFIELD_RO key [GET type offset ...].
func BitFieldRO(c *Ctx, argv [][]byte) { bitfield(c, argv, true) }

// bitfield is the body of BITFIELD and BITFIELD_RO. All the arguments are
// checked before anything runs; then, as in Redis, a command with writes
// first grows the string to the furthest bit it writes, and each operation
// sees the ones before it.
func bitfield(c *Ctx, argv [][]byte, readOnly bool) {
	n, writes := 0, false
	var end uint64 // bytes the writes need
	overflow := bfWrap
	for j := 2; ; {
		op, next, err := nextBitfieldOp(argv, j, &overflow)
		if err != "" {
			c.W.Err(err)
			return
		}
		if op.code == 0 {
			break
		}
		n++
		if op.code != bfGet {
			writes = true
			end = max(end, (op.off+uint64(op.width)-1)>>3+1)
		}
		j = next
	}
	key := argv[1]
	grew := false
	if !writes {
		_, found, ok := readString(c, key)
		if !ok {
			return
		}
		c.Shard.Stats.countLookup(found)
	} else {
		if readOnly {
			c.W.Err(errBitfieldRO)
			return
		}
		var ok bool
		if grew, ok = growForBits(c, key, int(end)); !ok {
			return
		}
	}
	c.W.Array(n)
	changes := false
	overflow = bfWrap
	t := c.Table()
	for j := 2; ; {
		op, next, _ := nextBitfieldOp(argv, j, &overflow)
		if op.code == 0 {
			break
		}
		j = next
		// The field lies within 9 bytes from its first; past the string's
		// end they read as zeros.
		var buf [9]byte
		var tmp [20]byte
		v, _ := t.Get(key)
		s := stringBytes(v, &tmp)
		first := op.off >> 3
		if first < uint64(len(s)) {
			copy(buf[:], s[first:])
		}
		off := op.off & 7
		if op.code == bfGet {
			if op.signed {
				c.W.Int(getSignedBits(buf[:], off, op.width))
			} else {
				c.W.Int(int64(getBits(buf[:], off, op.width)))
			}
			continue
		}
		var oldBits, newBits uint64
		var failed bool
		if op.signed {
			old := getSignedBits(buf[:], off, op.width)
			var nv, reply int64
			if op.code == bfIncrBy {
				nv, failed = signedOverflow(old, op.val, op.width, op.overflow)
				reply = nv
			} else {
				nv, failed = signedOverflow(op.val, 0, op.width, op.overflow)
				reply = old
			}
			if !failed {
				c.W.Int(reply)
			}
			oldBits, newBits = uint64(old), uint64(nv)
		} else {
			old := getBits(buf[:], off, op.width)
			var nv, reply uint64
			if op.code == bfIncrBy {
				nv, failed = unsignedOverflow(old, op.val, op.width, op.overflow)
				reply = nv
			} else {
				nv, failed = unsignedOverflow(uint64(op.val), 0, op.width, op.overflow)
				reply = old
			}
			if !failed {
				c.W.Int(int64(reply))
			}
			oldBits, newBits = old, nv
		}
		if failed {
			c.W.Null()
			continue
		}
		if grew || oldBits != newBits {
			changes = true
		}
		if oldBits != newBits {
			setBits(buf[:], off, op.width, newBits)
			// The string already holds these bytes: the write never
			// needs room.
			t.WriteAt(key, int(first), buf[:(off+uint64(op.width)+7)>>3])
		}
	}
	if changes {
		c.Notify(NotifyString, "setbit", key)
	} else if grew {
		// Every write failed (OVERFLOW FAIL) yet the key was created or
		// zero-extended: no event, as in Redis, but a change the journal
		// must replay.
		c.Changed()
	}
}

// getBits reads width bits of p from bit off, most significant first.
func getBits(p []byte, off uint64, width int) uint64 {
	var v uint64
	for i := 0; i < width; i++ {
		v = v<<1 | uint64(p[off>>3]>>(7-off&7)&1)
		off++
	}
	return v
}

// getSignedBits is getBits read as a two's complement number.
func getSignedBits(p []byte, off uint64, width int) int64 {
	v := getBits(p, off, width)
	if width < 64 && v>>(width-1)&1 != 0 {
		v |= math.MaxUint64 << width
	}
	return int64(v)
}

// setBits writes the low width bits of v into p from bit off.
func setBits(p []byte, off uint64, width int, v uint64) {
	for i := width - 1; i >= 0; i-- {
		mask := byte(1) << (7 - off&7)
		if v>>i&1 != 0 {
			p[off>>3] |= mask
		} else {
			p[off>>3] &^= mask
		}
		off++
	}
}

// unsignedOverflow adds incr to v in a field of width bits (at most 63)
// under the overflow behaviour; failed is true when it overflows under
// FAIL. With incr 0 it checks that v fits, as SET does.
func unsignedOverflow(v uint64, incr int64, width, overflow int) (res uint64, failed bool) {
	hi := uint64(1)<<width - 1
	maxIncr := int64(hi - v)
	minIncr := -int64(v)
	var limit uint64
	switch {
	case v > hi || (incr > 0 && incr > maxIncr):
		limit = hi
	case incr < 0 && incr < minIncr:
		limit = 0
	default:
		return v + uint64(incr), false
	}
	switch overflow {
	case bfWrap:
		return (v + uint64(incr)) & hi, false
	case bfSat:
		return limit, false
	}
	return 0, true
}

// signedOverflow is unsignedOverflow for a two's complement field of width
// bits (at most 64). The bounds on the increment wrap where they cannot
// matter, as Redis's do.
func signedOverflow(v, incr int64, width, overflow int) (res int64, failed bool) {
	hi := int64(math.MaxInt64)
	if width < 64 {
		hi = int64(1)<<(width-1) - 1
	}
	lo := -hi - 1
	maxIncr := int64(uint64(hi) - uint64(v))
	minIncr := lo - v
	var limit int64
	switch {
	case v > hi || (width != 64 && incr > maxIncr) || (v >= 0 && incr > 0 && incr > maxIncr):
		limit = hi
	case v < lo || (width != 64 && incr < minIncr) || (v < 0 && incr < 0 && incr < minIncr):
		limit = lo
	default:
		return v + incr, false
	}
	switch overflow {
	case bfWrap:
		r := uint64(v) + uint64(incr)
		if width < 64 {
			mask := uint64(math.MaxUint64) << width
			if r&(1<<(width-1)) != 0 {
				r |= mask
			} else {
				r &^= mask
			}
		}
		return int64(r), false
	case bfSat:
		return limit, false
	}
	return 0, true
}

// BitOp: BITOP AND|OR|XOR|NOT destkey key [key ...]. Missing keys are empty
// strings and shorter strings are zero-padded to the longest; an empty
// result deletes destkey. Replies the result's length. Its keys may live on
// several shards: the router gathers them here (SplitGather).
func BitOp(c *Ctx, argv [][]byte) {
	opName := argv[1]
	var op byte
	switch {
	case resp.EqualFold(opName, "and"):
		op = '&'
	case resp.EqualFold(opName, "or"):
		op = '|'
	case resp.EqualFold(opName, "xor"):
		op = '^'
	case resp.EqualFold(opName, "not"):
		op = '~'
	default:
		c.W.Err(resp.ErrSyntax)
		return
	}
	if op == '~' && len(argv) != 4 {
		c.W.Err(errBitopNotOne)
		return
	}
	dst, srcs := argv[2], argv[3:]
	maxLen := 0
	for _, k := range srcs {
		v, found, ok := readString(c, k)
		if !ok {
			return
		}
		c.Shard.Stats.countLookup(found)
		if found {
			maxLen = max(maxLen, stringLen(v))
		}
	}
	t := c.Table()
	if maxLen == 0 {
		if t.Delete(dst) {
			c.Notify(NotifyGeneric, "del", dst)
		}
		c.W.Int(0)
		return
	}
	// The result is built apart: writing it may move the sources.
	res := bytebufferpool.Get()
	defer bytebufferpool.Put(res)
	res.B = append(res.B[:0], make([]byte, maxLen)...)
	var tmp [20]byte
	for i, k := range srcs {
		v, _ := t.Get(k)
		s := stringBytes(v, &tmp)
		if i == 0 {
			copy(res.B, s)
			if op == '~' {
				for j := range res.B {
					res.B[j] = ^res.B[j]
				}
			}
			continue
		}
		r := res.B
		switch op {
		case '&':
			for j := range r {
				if j < len(s) {
					r[j] &= s[j]
				} else {
					r[j] = 0
				}
			}
		case '|':
			for j := range s {
				r[j] |= s[j]
			}
		case '^':
			for j := range s {
				r[j] ^= s[j]
			}
		}
	}
	if stored(c, t.SetVerbatim(dst, res.B, 0, true)) {
		c.Notify(NotifyString, "set", dst)
		c.W.Int(int64(maxLen))
	}
}
