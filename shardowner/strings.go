package shardowner

import (
	"bytes"
	"math"
	"math/big"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

// String command errors that only this family sends.
const (
	errDecrOverflow resp.Error = "ERR decrement would overflow"
)

// maxStringLen is Redis's proto-max-bulk-len default: no string may grow
// beyond it through APPEND or SETRANGE.
const maxStringLen = 512 << 20

// getString looks key up for a command that needs a string. It writes
// WRONGTYPE and reports ok=false when the key holds another kind; found is
// false when the key is missing.
func getString(c *Ctx, key []byte) (v Value, found, ok bool) {
	v, found = c.Table().Get(key)
	if found && v.Kind != KindString {
		c.W.Err(resp.ErrWrongType)
		return v, found, false
	}
	return v, found, true
}

// readString is getString for a command that reads the key (GET, STRLEN,
// …, not INCR or APPEND, which write it): a missing key is Redis's keymiss
// event.
func readString(c *Ctx, key []byte) (v Value, found, ok bool) {
	v, found, ok = getString(c, key)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", key)
	}
	return v, found, ok
}

// replyValue writes a string value as a bulk reply.
func replyValue(c *Ctx, v Value) {
	if v.IsInt {
		c.W.BulkInt(v.Int)
		return
	}
	c.W.Bulk(v.Str)
}

// stringLen is the length of a string value as STRLEN counts it.
func stringLen(v Value) int {
	if v.IsInt {
		return intLen(v.Int)
	}
	return len(v.Str)
}

func intLen(n int64) int {
	var tmp [20]byte
	return len(strconv.AppendInt(tmp[:0], n, 10))
}

// Get: GET key.
func Get(c *Ctx, argv [][]byte) {
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	c.Shard.Stats.countLookup(found)
	if !found {
		c.W.Null()
		return
	}
	replyValue(c, v)
}

// Flags of the options of SET and GETEX, as parseStringOpts reads them and
// setGeneric (SET, SETEX, PSETEX) and GetEx act on them.
const (
	optNX = 1 << iota
	optXX
	optGet
	optKeepTTL
	optPersist
	optEX
	optPX
	optEXAT
	optPXAT

	optExpireMask = optEX | optPX | optEXAT | optPXAT
)

// parseStringOpts reads the options of SET (set=true) or GETEX (set=false)
// from args. It returns the flags and the argument holding the expire time.
// Redis reports option conflicts as a syntax error before looking at any
// expire value; so does this.
func parseStringOpts(args [][]byte, set bool) (flags int, expire []byte, ok bool) {
	for j := 0; j < len(args); j++ {
		a := args[j]
		hasNext := j+1 < len(args)
		switch {
		case set && resp.EqualFold(a, "nx") && flags&optXX == 0:
			flags |= optNX
		case set && resp.EqualFold(a, "xx") && flags&optNX == 0:
			flags |= optXX
		case set && resp.EqualFold(a, "get"):
			flags |= optGet
		case set && resp.EqualFold(a, "keepttl") && flags&optExpireMask == 0:
			flags |= optKeepTTL
		case !set && resp.EqualFold(a, "persist") && flags&optExpireMask == 0:
			flags |= optPersist
		case hasNext && expireOpt(a) != 0 && flags&(optExpireMask&^expireOpt(a)|optKeepTTL|optPersist) == 0:
			// The same expire option given twice is allowed: the last wins.
			flags |= expireOpt(a)
			expire = args[j+1]
			j++
		default:
			return 0, nil, false
		}
	}
	return flags, expire, true
}

func expireOpt(a []byte) int {
	switch {
	case resp.EqualFold(a, "ex"):
		return optEX
	case resp.EqualFold(a, "px"):
		return optPX
	case resp.EqualFold(a, "exat"):
		return optEXAT
	case resp.EqualFold(a, "pxat"):
		return optPXAT
	}
	return 0
}

// expireAtFrom turns the expire argument of SET/GETEX/SETEX/PSETEX into an
// absolute time in ms. It writes the error reply and returns false when the
// argument is not an integer, not positive, or overflows. name is the
// command's name as Redis prints it in the error.
func expireAtFrom(c *Ctx, arg []byte, flags int, name string) (int64, bool) {
	n, ok := resp.ParseInt(arg)
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return 0, false
	}
	seconds := flags&(optEX|optEXAT) != 0
	if n <= 0 || (seconds && n > math.MaxInt64/1000) {
		c.W.Err(resp.ErrInvalidExpire(name))
		return 0, false
	}
	if seconds {
		n *= 1000
	}
	if flags&(optEX|optPX) != 0 {
		if n > math.MaxInt64-c.Shard.Clock.Ms {
			c.W.Err(resp.ErrInvalidExpire(name))
			return 0, false
		}
		n += c.Shard.Clock.Ms
	}
	return n, true
}

// storeString writes val under key expiring at expireAt; a time already past
// deletes the key instead, as Redis does for EXAT/PXAT in the past. Redis
// writes the key before it expires, so a watch of it is touched even when
// it was missing.
func storeString(c *Ctx, key, val []byte, expireAt int64) error {
	t := c.Table()
	if expireAt != 0 && expireAt <= c.Shard.Clock.Ms {
		t.Delete(key)
		t.Modified(key)
		return nil
	}
	return t.SetString(key, val, expireAt)
}

// Set: SET key value [NX|XX] [GET] [EX s|PX ms|EXAT ts|PXAT ts-ms|KEEPTTL].
func Set(c *Ctx, argv [][]byte) {
	flags, expire, ok := parseStringOpts(argv[3:], true)
	if !ok {
		c.W.Err(resp.ErrSyntax)
		return
	}
	setGeneric(c, argv[1], argv[2], flags, expire, "set")
}

// SetNX: SETNX key value. Replies 1 when the key was set.
func SetNX(c *Ctx, argv [][]byte) {
	t := c.Table()
	if t.Exists(argv[1]) {
		c.W.Int(0)
		return
	}
	if stored(c, t.SetString(argv[1], argv[2], 0)) {
		c.Notify(NotifyString, "set", argv[1])
		c.W.Int(1)
	}
}

// SetEX: SETEX key seconds value.
func SetEX(c *Ctx, argv [][]byte) {
	setGeneric(c, argv[1], argv[3], optEX, argv[2], "setex")
}

// PSetEX: PSETEX key milliseconds value.
func PSetEX(c *Ctx, argv [][]byte) {
	setGeneric(c, argv[1], argv[3], optPX, argv[2], "psetex")
}

// setGeneric is the body of SET, SETEX and PSETEX once options are parsed.
func setGeneric(c *Ctx, key, val []byte, flags int, expire []byte, name string) {
	var expireAt int64
	if flags&optExpireMask != 0 {
		var ok bool
		if expireAt, ok = expireAtFrom(c, expire, flags, name); !ok {
			return
		}
	}
	t := c.Table()
	var old Value
	var found bool
	if flags&optGet != 0 {
		var ok bool
		if old, found, ok = readString(c, key); !ok {
			return
		}
	} else if flags&(optNX|optXX|optKeepTTL) != 0 {
		old, found = t.Get(key)
	}
	switch {
	case (flags&optNX != 0 && found) || (flags&optXX != 0 && !found):
		if flags&optGet == 0 {
			c.W.Null()
			return
		}
	default:
		if flags&optKeepTTL != 0 && found {
			expireAt = old.ExpireAt
		}
		if flags&optGet == 0 {
			if stored(c, storeString(c, key, val, expireAt)) {
				notifySet(c, key, flags)
				propagateSet(c, key, val, flags, expireAt)
				c.W.OK()
			}
			return
		}
		// The old value is replied before the write overwrites its bytes,
		// and taken back if the write finds no room.
		mark := replyOld(c, old, found)
		if storedAfterReply(c, mark, storeString(c, key, val, expireAt)) {
			notifySet(c, key, flags)
			propagateSet(c, key, val, flags, expireAt)
		}
		return
	}
	if found {
		replyValue(c, old)
	} else {
		c.W.Null()
	}
}

// notifySet publishes SET's events: set, and expire when it set a TTL.
func notifySet(c *Ctx, key []byte, flags int) {
	c.Notify(NotifyString, "set", key)
	if flags&optExpireMask != 0 {
		c.Notify(NotifyGeneric, "expire", key)
	}
}

// replyOld replies the old value of a write that returns it (nil when it
// was not found) before the write overwrites its bytes, and returns where
// the reply starts.
func replyOld(c *Ctx, old Value, found bool) int {
	mark := len(c.W.B)
	if found {
		replyValue(c, old)
	} else {
		c.W.Null()
	}
	return mark
}

// storedAfterReply is stored for a write whose reply, from mark on, was
// written first: a write that found no room replaces it with the error.
// It reports whether the write went through.
func storedAfterReply(c *Ctx, mark int, err error) bool {
	if err != nil {
		c.W.B = c.W.B[:mark]
		stored(c, err)
		return false
	}
	return true
}

// GetSet: GETSET key value. Sets the value, drops any TTL, replies the old
// value.
func GetSet(c *Ctx, argv [][]byte) {
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	mark := replyOld(c, v, found)
	if storedAfterReply(c, mark, c.Table().SetString(argv[1], argv[2], 0)) {
		c.Notify(NotifyString, "set", argv[1])
	}
}

// GetDel: GETDEL key.
func GetDel(c *Ctx, argv [][]byte) {
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	replyValue(c, v)
	c.Table().Delete(argv[1])
	c.Notify(NotifyGeneric, "del", argv[1])
}

// GetEx: GETEX key [EX s|PX ms|EXAT ts|PXAT ts-ms|PERSIST].
func GetEx(c *Ctx, argv [][]byte) {
	flags, expire, ok := parseStringOpts(argv[2:], false)
	if !ok {
		c.W.Err(resp.ErrSyntax)
		return
	}
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	var expireAt int64
	if flags&optExpireMask != 0 {
		if expireAt, ok = expireAtFrom(c, expire, flags, "getex"); !ok {
			return
		}
	}
	// Changing the TTL may move the entry, and v's bytes with it: the value
	// is read again afterwards.
	t := c.Table()
	switch {
	case flags&optExpireMask != 0 && expireAt <= c.Shard.Clock.Ms:
		replyValue(c, v)
		t.Delete(argv[1])
		c.Notify(NotifyGeneric, "del", argv[1])
		propagateDel(c, argv[1])
		return
	case flags&optExpireMask != 0:
		if _, err := t.SetExpire(argv[1], expireAt); !stored(c, err) {
			return
		}
		c.Notify(NotifyGeneric, "expire", argv[1])
		propagateExpireAt(c, argv[1], expireAt)
		v, _ = t.Get(argv[1])
	case flags&optPersist != 0 && v.ExpireAt != 0:
		t.SetExpire(argv[1], 0) // dropping a TTL never needs room
		c.Notify(NotifyGeneric, "persist", argv[1])
		c.Propagate(wordPersist, argv[1])
		v, _ = t.Get(argv[1])
	}
	replyValue(c, v)
}

// MGet: MGET key [key ...]. A key that is missing or not a string is nil.
func MGet(c *Ctx, argv [][]byte) {
	t := c.Table()
	c.W.Array(len(argv) - 1)
	for _, k := range argv[1:] {
		v, found := t.Get(k)
		c.Shard.Stats.countLookup(found)
		if !found {
			c.Notify(NotifyKeyMiss, "keymiss", k)
		}
		if !found || v.Kind != KindString {
			c.W.Null()
			continue
		}
		replyValue(c, v)
	}
}

// MSet: MSET key value [key value ...]. A table that fills up stops it at
// the first key it has no room for, with the keys before it written.
func MSet(c *Ctx, argv [][]byte) {
	if len(argv)%2 == 0 {
		c.W.Err(resp.ErrWrongArgs("mset"))
		return
	}
	t := c.Table()
	for i := 1; i < len(argv); i += 2 {
		if !stored(c, t.SetString(argv[i], argv[i+1], 0)) {
			return
		}
		c.Notify(NotifyString, "set", argv[i])
	}
	c.W.OK()
}

// MSetNX: MSETNX key value [key value ...]. Sets all the keys, or none when
// any of them exists; all of them are on this shard, so this is atomic.
func MSetNX(c *Ctx, argv [][]byte) {
	if len(argv)%2 == 0 {
		c.W.Err(resp.ErrWrongArgs("msetnx"))
		return
	}
	t := c.Table()
	for i := 1; i < len(argv); i += 2 {
		if t.Exists(argv[i]) {
			c.W.Int(0)
			return
		}
	}
	for i := 1; i < len(argv); i += 2 {
		if !stored(c, t.SetString(argv[i], argv[i+1], 0)) {
			return
		}
		c.Notify(NotifyString, "set", argv[i])
	}
	c.W.Int(1)
}

// Append: APPEND key value. Keeps the TTL; replies the new length. The
// value grows in place, with room to spare (Table.Append), so that building
// a string by appends costs time in proportion to its length.
func Append(c *Ctx, argv [][]byte) {
	t := c.Table()
	if l, ok, err := t.Append(argv[1], argv[2], maxStringLen); ok {
		if stored(c, err) {
			c.Notify(NotifyString, "append", argv[1])
			c.W.Int(int64(l))
		}
		return
	}
	v, found, ok := getString(c, argv[1])
	if !ok {
		return
	}
	if !found {
		if stored(c, t.SetString(argv[1], argv[2], 0)) {
			c.Notify(NotifyString, "append", argv[1])
			c.W.Int(int64(len(argv[2])))
		}
		return
	}
	n := stringLen(v)
	if n+len(argv[2]) > maxStringLen {
		c.W.Err(resp.ErrStringTooLong)
		return
	}
	if !toRaw(c, argv[1], v) {
		return
	}
	if l, err := t.WriteAt(argv[1], n, argv[2]); stored(c, err) {
		c.Notify(NotifyString, "append", argv[1])
		c.W.Int(int64(l))
	}
}

// toRaw stores an integer-encoded value as its digits, which WriteAt can
// then change in place. Appending to a value or writing into it leaves it
// in Redis's "raw" encoding, digits or not.
func toRaw(c *Ctx, key []byte, v Value) bool {
	if !v.IsInt {
		return true
	}
	var tmp [20]byte
	return stored(c, c.Table().SetVerbatim(key, strconv.AppendInt(tmp[:0], v.Int, 10), v.ExpireAt, true))
}

// StrLen: STRLEN key.
func StrLen(c *Ctx, argv [][]byte) {
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(stringLen(v)))
}

// Incr: INCR key.
func Incr(c *Ctx, argv [][]byte) { incrBy(c, argv[1], 1) }

// Decr: DECR key.
func Decr(c *Ctx, argv [][]byte) { incrBy(c, argv[1], -1) }

// IncrBy: INCRBY key increment.
func IncrBy(c *Ctx, argv [][]byte) {
	n, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	incrBy(c, argv[1], n)
}

// DecrBy: DECRBY key decrement.
func DecrBy(c *Ctx, argv [][]byte) {
	n, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	if n == math.MinInt64 {
		c.W.Err(errDecrOverflow)
		return
	}
	incrBy(c, argv[1], -n)
}

// incrBy is the body of INCR, DECR, INCRBY and DECRBY. The TTL is kept. An
// integer-encoded value is updated where it lies (Table.AddInt); the rest
// (a missing key, digits stored as a string, another type, an overflow)
// takes the general path.
func incrBy(c *Ctx, key []byte, by int64) {
	if n, ok := c.Table().AddInt(key, by); ok {
		c.Notify(NotifyString, "incrby", key)
		c.W.Int(n)
		return
	}
	v, found, ok := getString(c, key)
	if !ok {
		return
	}
	var old int64
	if found {
		if v.IsInt {
			old = v.Int
		} else if old, ok = resp.ParseInt(v.Str); !ok {
			c.W.Err(resp.ErrNotInteger)
			return
		}
	}
	if (by < 0 && old < 0 && by < math.MinInt64-old) || (by > 0 && old > 0 && by > math.MaxInt64-old) {
		c.W.Err(resp.ErrOverflow)
		return
	}
	n := old + by
	if stored(c, c.Table().SetInt(key, n, v.ExpireAt)) {
		c.Notify(NotifyString, "incrby", key)
		c.W.Int(n)
	}
}

// longDoubleSum adds by to old, as Redis does in long double, and appends
// the sum's text to dst; ok is false, with Redis's error written, when
// either is infinite or the sum overflows.
func longDoubleSum(c *Ctx, dst []byte, old, by *big.Float) ([]byte, bool) {
	if old.IsInf() || by.IsInf() {
		c.W.Err(resp.ErrIncrNaN)
		return dst, false
	}
	sum := old.Add(old, by)
	if sum.MantExp(nil) > longDoubleMaxExp {
		c.W.Err(resp.ErrIncrNaN)
		return dst, false
	}
	return appendLongDouble(dst, sum), true
}

// IncrByFloat: INCRBYFLOAT key increment. Redis computes in long double
// (64-bit mantissa) and prints the result with 17 decimals, trailing zeros
// removed; doing the same with a 64-bit big.Float is what makes 0.1 + 0.2
// come out as "0.3" here too. The result is stored as a string and replied
// as a bulk string in both protocols.
func IncrByFloat(c *Ctx, argv [][]byte) {
	v, found, ok := getString(c, argv[1])
	if !ok {
		return
	}
	old := new(big.Float).SetPrec(longDoubleBits)
	if found {
		if v.IsInt {
			old.SetInt64(v.Int)
		} else if !parseLongDouble(old, v.Str) {
			c.W.Err(resp.ErrNotFloat)
			return
		}
	}
	by := new(big.Float).SetPrec(longDoubleBits)
	if !parseLongDouble(by, argv[2]) {
		c.W.Err(resp.ErrNotFloat)
		return
	}
	b := bytebufferpool.Get()
	defer bytebufferpool.Put(b)
	if b.B, ok = longDoubleSum(c, b.B[:0], old, by); !ok {
		return
	}
	// Redis keeps the result a string even when it is integral ("8").
	if stored(c, c.Table().SetVerbatim(argv[1], b.B, v.ExpireAt, false)) {
		c.Notify(NotifyString, "incrbyfloat", argv[1])
		// Replayed, the sum could round otherwise: the result goes.
		c.Propagate(wordSet, argv[1], b.B, wordKeepTTL)
		c.W.Bulk(b.B)
	}
}

// The x87 long double Redis computes INCRBYFLOAT in.
const (
	longDoubleBits   = 64
	longDoubleMaxExp = 16384
	longDoubleMinExp = -16445
)

// parseLongDouble reads b as Redis's string2ld does: no surrounding space,
// nothing after the number, no NaN, and within long double's range.
func parseLongDouble(dst *big.Float, b []byte) bool {
	if len(b) == 0 || len(b) > 5*1024 || b[0] == ' ' || b[0] == '\t' || b[len(b)-1] == ' ' {
		return false
	}
	// strtold takes decimal and hexadecimal (0x1p4) forms; big.Float's
	// base-0 parsing also takes underscores and 0b/0o prefixes, which it
	// does not.
	if bytes.IndexByte(b, '_') >= 0 {
		return false
	}
	digits := bytes.TrimLeft(b, "+-")
	if len(digits) > 1 && digits[0] == '0' && bytes.IndexByte([]byte("bBoO"), digits[1]) >= 0 {
		return false
	}
	if _, _, err := dst.Parse(string(b), 0); err != nil {
		return false
	}
	if dst.IsInf() || dst.Sign() == 0 {
		return true
	}
	e := dst.MantExp(nil)
	return e <= longDoubleMaxExp && e >= longDoubleMinExp
}

// appendLongDouble formats f as Redis's human-friendly long double: fixed
// point with 17 decimals, then trailing zeros (and a bare point) removed.
func appendLongDouble(dst []byte, f *big.Float) []byte {
	start := len(dst)
	dst = f.Append(dst, 'f', 17)
	if bytes.IndexByte(dst[start:], '.') < 0 {
		return dst
	}
	for dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
	}
	if dst[len(dst)-1] == '.' {
		dst = dst[:len(dst)-1]
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// GetRange: GETRANGE key start end, and its old name SUBSTR. Negative
// offsets count from the end; a missing key is the empty string.
func GetRange(c *Ctx, argv [][]byte) {
	start, ok1 := resp.ParseInt(argv[2])
	end, ok2 := resp.ParseInt(argv[3])
	if !ok1 || !ok2 {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	v, found, ok := readString(c, argv[1])
	if !ok {
		return
	}
	var s []byte
	if found {
		if v.IsInt {
			var tmp [20]byte
			s = strconv.AppendInt(tmp[:0], v.Int, 10)
		} else {
			s = v.Str
		}
	}
	n := int64(len(s))
	if start < 0 && end < 0 && start > end {
		c.W.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if n == 0 || start > end {
		c.W.Bulk(nil)
		return
	}
	c.W.Bulk(s[start : end+1])
}

// SetRange: SETRANGE key offset value. Pads with zero bytes; keeps the TTL;
// replies the new length.
func SetRange(c *Ctx, argv [][]byte) {
	off, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	if off < 0 {
		c.W.Err(resp.ErrOffsetRange)
		return
	}
	val := argv[3]
	v, found, ok := getString(c, argv[1])
	if !ok {
		return
	}
	if !found {
		if len(val) == 0 {
			c.W.Int(0)
			return
		}
	} else if len(val) == 0 {
		c.W.Int(int64(stringLen(v)))
		return
	}
	// Written so that a huge offset cannot overflow the sum.
	if off > maxStringLen-int64(len(val)) {
		c.W.Err(resp.ErrStringTooLong)
		return
	}
	t := c.Table()
	if !found {
		// An empty string to write into; it goes again if there is no
		// room for the rest.
		if !stored(c, t.SetVerbatim(argv[1], nil, 0, true)) {
			return
		}
	} else if !toRaw(c, argv[1], v) {
		return
	}
	n, err := t.WriteAt(argv[1], int(off), val)
	if err != nil && !found {
		t.Delete(argv[1])
	}
	if stored(c, err) {
		c.Notify(NotifyString, "setrange", argv[1])
		c.W.Int(int64(n))
	}
}
