package shardowner

import (
	"bytes"
	"math"
	"math/big"
	"slices"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// Hash command errors.
const (
	errHashNotInt   resp.Error = "ERR hash value is not an integer"
	errHashNotFloat resp.Error = "ERR hash value is not a float"
	errNaNOrInf     resp.Error = "ERR value is NaN or Infinity"
	errRandRange    resp.Error = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"
	errOutOfRange   resp.Error = "ERR value is out of range"
)

// maxRandRepeats bounds the count of HRANDFIELD with a negative count
// (fields may repeat, so the reply does not depend on the hash's size).
// Redis takes any count and, for a huge one, builds a reply it can never
// send; corekv refuses it.
const maxRandRepeats = 1 << 20

// A small hash is a packed list of field, value, field, value… in the order
// the fields came (kvtable.PackedBody); a big one is a table from field to
// value.

// hashGet returns the value of field in hash h.
func hashGet(h Value, field []byte) (Value, bool) {
	if h.Big != nil {
		return h.Big.Get(field)
	}
	body := kvtable.PackedBody(h.Str)
	if i, ok := packedField(body, field); ok {
		val, _ := kvtable.ElemAt(body, i)
		return Value{Kind: KindString, Str: val}, true
	}
	return Value{}, false
}

// packedField finds field in the body of a packed hash and returns the
// offset of its value.
func packedField(body, field []byte) (int, bool) {
	for off := 0; off < len(body); {
		f, next := kvtable.ElemAt(body, off)
		if bytes.Equal(f, field) {
			return next, true
		}
		_, off = kvtable.ElemAt(body, next)
	}
	return 0, false
}

// eachField calls fn on every field of hash h with its value, until fn
// returns false. fn must not write to the shard's tables.
func eachField(h Value, fn func(f []byte, v Value) bool) {
	if h.Big != nil {
		eachBig(h.Big, fn)
		return
	}
	body := kvtable.PackedBody(h.Str)
	for off := 0; off < len(body); {
		var f, val []byte
		f, off = kvtable.ElemAt(body, off)
		val, off = kvtable.ElemAt(body, off)
		if !fn(f, Value{Kind: KindString, Str: val}) {
			return
		}
	}
}

// hashSet sets the field/value pairs of pairs in the hash h under key (h
// is the zero Value when the key is missing), converting it to a big hash
// when a field or value is longer than hash-max-listpack-value or the
// fields become more than hash-max-listpack-entries. It returns how many
// fields it added; on a full table it answers errFull and returns ok=false.
func hashSet(c *Ctx, key []byte, h Value, pairs [][]byte) (added int, ok bool) {
	t := c.Table()
	if h.Big == nil {
		maxLen := c.Shard.Enc.HashMaxValue.Load()
		for _, a := range pairs {
			if int64(len(a)) > maxLen {
				if h.Big = c.bigFromPacked(h.Str, true); h.Big == nil {
					c.W.Err(errFull)
					return 0, false
				}
				if !stored(c, t.SetBig(key, KindHash, h.Big, h.ExpireAt)) {
					h.Big.Clear()
					return 0, false
				}
				break
			}
		}
	}
	if h.Big != nil {
		// A big hash changes in place, under its key's entry: the table
		// cannot see it, WATCH must.
		n, ok := bigHashSet(c, h.Big, pairs)
		t.Modified(key)
		return n, ok
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	b := append(append(buf.B[:0], room[:]...), kvtable.PackedBody(h.Str)...)
	n := kvtable.PackedCount(h.Str) / 2
	maxEntries := c.Shard.Enc.HashMaxEntries.Load()
	var tmp [10]byte
	for i := 0; i+1 < len(pairs); i += 2 {
		body := b[kvtable.PackedHeadRoom:]
		off, found := packedField(body, pairs[i])
		if found {
			// Replace the old value, length and bytes, with the new one.
			_, end := kvtable.ElemAt(body, off)
			at := kvtable.PackedHeadRoom + off
			lenBytes := kvtable.AppendLen(tmp[:0], len(pairs[i+1]))
			b = slices.Replace(b, at, kvtable.PackedHeadRoom+end, lenBytes...)
			b = slices.Insert(b, at+len(lenBytes), pairs[i+1]...)
			continue
		}
		b = kvtable.AppendElem(b, pairs[i])
		b = kvtable.AppendElem(b, pairs[i+1])
		n++
		added++
		if int64(n) > maxEntries {
			// Past the threshold the rest goes to the big hash at once, as
			// in Redis: searching a packed list that keeps growing would
			// make one HSET of many fields quadratic.
			buf.B = b
			more, ok := hashToBig(c, key, h.ExpireAt, b, n, pairs[i+2:])
			return added + more, ok
		}
	}
	buf.B = b
	if int64(n) > maxEntries {
		// A threshold lowered by CONFIG SET: any write converts, as in
		// Redis.
		return hashToBig(c, key, h.ExpireAt, b, n, nil)
	}
	if !stored(c, t.SetPacked(key, KindHash, false, kvtable.FinishPacked(b, 2*n), h.ExpireAt)) {
		return 0, false
	}
	return added, true
}

// hashToBig stores the packed hash of n fields in b (after PackedHeadRoom)
// under key as a big hash, then sets pairs in it; it returns how many of
// those it added.
func hashToBig(c *Ctx, key []byte, expireAt int64, b []byte, n int, pairs [][]byte) (int, bool) {
	big := c.bigFromPacked(kvtable.FinishPacked(b, 2*n), true)
	if big == nil {
		c.W.Err(errFull)
		return 0, false
	}
	if !stored(c, c.Table().SetBig(key, KindHash, big, expireAt)) {
		big.Clear()
		return 0, false
	}
	return bigHashSet(c, big, pairs)
}

// bigHashSet is hashSet on a big hash.
func bigHashSet(c *Ctx, big *Table, pairs [][]byte) (int, bool) {
	added := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		before := big.Len()
		if !stored(c, big.SetString(pairs[i], pairs[i+1], 0)) {
			return added, false
		}
		added += big.Len() - before
	}
	return added, true
}

// HSet: HSET key field value [field value ...]. Replies the number of
// fields added.
func HSet(c *Ctx, argv [][]byte) {
	if len(argv)%2 != 0 {
		c.W.Err(resp.ErrWrongArgs("hset"))
		return
	}
	var h Value
	if _, ok := loadKind(c, argv[1], KindHash, &h); !ok {
		return
	}
	if n, ok := hashSet(c, argv[1], h, argv[2:]); ok {
		c.Notify(NotifyHash, "hset", argv[1])
		c.W.Int(int64(n))
	}
}

// HMSet: HMSET key field value [field value ...], HSET's older form that
// replies OK.
func HMSet(c *Ctx, argv [][]byte) {
	if len(argv)%2 != 0 {
		c.W.Err(resp.ErrWrongArgs("hmset"))
		return
	}
	h, _, ok := getKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	if _, ok := hashSet(c, argv[1], h, argv[2:]); ok {
		c.Notify(NotifyHash, "hset", argv[1])
		c.W.OK()
	}
}

// HSetNX: HSETNX key field value. Sets the field only when it is missing;
// when it is there the hash is left alone, encoding and all.
func HSetNX(c *Ctx, argv [][]byte) {
	h, found, ok := getKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	if _, has := hashGet(h, argv[2]); found && has {
		c.W.Int(0)
		return
	}
	if n, ok := hashSet(c, argv[1], h, argv[2:]); ok {
		c.Notify(NotifyHash, "hset", argv[1])
		c.W.Int(int64(n))
	}
}

// HGet: HGET key field.
func HGet(c *Ctx, argv [][]byte) {
	var h Value
	found, ok := loadReadKind(c, argv[1], KindHash, &h)
	if !ok {
		return
	}
	c.Shard.Stats.countLookup(found)
	if v, ok := hashGet(h, argv[2]); found && ok {
		replyValue(c, v)
		return
	}
	c.W.Null()
}

// HMGet: HMGET key field [field ...].
func HMGet(c *Ctx, argv [][]byte) {
	h, found, ok := readKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	c.Shard.Stats.countLookup(found)
	c.W.Array(len(argv) - 2)
	for _, f := range argv[2:] {
		if v, ok := hashGet(h, f); found && ok {
			replyValue(c, v)
		} else {
			c.W.Null()
		}
	}
}

// HExists: HEXISTS key field.
func HExists(c *Ctx, argv [][]byte) {
	h, found, ok := readKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	if _, has := hashGet(h, argv[2]); found && has {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// HStrLen: HSTRLEN key field. The length of the field's value, 0 when
// missing.
func HStrLen(c *Ctx, argv [][]byte) {
	h, found, ok := readKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	if v, has := hashGet(h, argv[2]); found && has {
		c.W.Int(int64(stringLen(v)))
		return
	}
	c.W.Int(0)
}

// HLen: HLEN key.
func HLen(c *Ctx, argv [][]byte) { replyLen(c, argv[1], KindHash, aggLen) }

// HDel: HDEL key field [field ...]. Replies the number of fields removed;
// the key goes with its last field.
func HDel(c *Ctx, argv [][]byte) {
	h, found, ok := getKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	t := c.Table()
	removed := 0
	if h.Big != nil {
		for _, f := range argv[2:] {
			if h.Big.Delete(f) {
				removed++
			}
		}
		switch {
		case h.Big.Len() == 0:
			t.Delete(argv[1])
		case removed > 0:
			t.Modified(argv[1])
		}
		notifyHDel(c, argv[1], removed)
		c.W.Int(int64(removed))
		return
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	b := append(append(buf.B[:0], room[:]...), kvtable.PackedBody(h.Str)...)
	n := kvtable.PackedCount(h.Str) / 2
	for _, f := range argv[2:] {
		body := b[kvtable.PackedHeadRoom:]
		off, has := packedField(body, f)
		if !has {
			continue
		}
		_, end := kvtable.ElemAt(body, off)
		start := off - kvtable.ElemLen(f)
		b = slices.Delete(b, kvtable.PackedHeadRoom+start, kvtable.PackedHeadRoom+end)
		n--
		removed++
	}
	buf.B = b
	switch {
	case removed == 0:
	case n == 0:
		t.Delete(argv[1])
	default:
		// Shrinking a value in place never needs a new item.
		t.SetPacked(argv[1], KindHash, false, kvtable.FinishPacked(b, 2*n), h.ExpireAt)
	}
	notifyHDel(c, argv[1], removed)
	c.W.Int(int64(removed))
}

// notifyHDel publishes HDEL's events: hdel when it removed fields, and del
// when the hash went with them.
func notifyHDel(c *Ctx, key []byte, removed int) {
	if removed > 0 {
		c.NotifyRemoval(NotifyHash, "hdel", key)
	}
}

// HKeys: HKEYS key.
func HKeys(c *Ctx, argv [][]byte) { hashReplyAll(c, argv[1], true, false) }

// HVals: HVALS key.
func HVals(c *Ctx, argv [][]byte) { hashReplyAll(c, argv[1], false, true) }

// HGetAll: HGETALL key. A map in RESP3.
func HGetAll(c *Ctx, argv [][]byte) { hashReplyAll(c, argv[1], true, true) }

// hashReplyAll is HKEYS, HVALS and HGETALL: the fields and/or values of the
// whole hash, in the hash's order.
func hashReplyAll(c *Ctx, key []byte, fields, values bool) {
	h, found, ok := readKind(c, key, KindHash)
	if !ok {
		return
	}
	n := 0
	if found {
		n = aggLen(h)
	}
	switch {
	case fields && values && c.W.RESP3():
		c.W.Map(n)
	case fields && values:
		c.W.Array(2 * n)
	default:
		c.W.Array(n)
	}
	if !found {
		return
	}
	eachField(h, func(f []byte, v Value) bool {
		if fields {
			c.W.Bulk(f)
		}
		if values {
			replyValue(c, v)
		}
		return true
	})
}

// HIncrBy: HINCRBY key field increment.
func HIncrBy(c *Ctx, argv [][]byte) {
	by, ok := resp.ParseInt(argv[3])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	h, _, ok := getKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	var old int64
	if v, has := hashGet(h, argv[2]); has {
		if v.IsInt {
			old = v.Int
		} else if old, ok = CanonicalInt(v.Str); !ok {
			c.W.Err(errHashNotInt)
			return
		}
	}
	if (by < 0 && old < math.MinInt64-by) || (by > 0 && old > math.MaxInt64-by) {
		c.W.Err(resp.ErrOverflow)
		return
	}
	n := old + by
	var tmp [20]byte
	pair := [2][]byte{argv[2], strconv.AppendInt(tmp[:0], n, 10)}
	if _, ok := hashSet(c, argv[1], h, pair[:]); ok {
		c.Notify(NotifyHash, "hincrby", argv[1])
		c.W.Int(n)
	}
}

// HIncrByFloat: HINCRBYFLOAT key field increment, computed and printed as
// INCRBYFLOAT does.
func HIncrByFloat(c *Ctx, argv [][]byte) {
	by := new(big.Float).SetPrec(longDoubleBits)
	if !parseLongDouble(by, argv[3]) {
		c.W.Err(resp.ErrNotFloat)
		return
	}
	if by.IsInf() {
		c.W.Err(errNaNOrInf)
		return
	}
	h, _, ok := getKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	old := new(big.Float).SetPrec(longDoubleBits)
	if v, has := hashGet(h, argv[2]); has {
		if v.IsInt {
			old.SetInt64(v.Int)
		} else if !parseLongDouble(old, v.Str) {
			c.W.Err(errHashNotFloat)
			return
		}
	}
	b := bytebufferpool.Get()
	defer bytebufferpool.Put(b)
	if b.B, ok = longDoubleSum(c, b.B[:0], old, by); !ok {
		return
	}
	pair := [2][]byte{argv[2], b.B}
	if _, ok := hashSet(c, argv[1], h, pair[:]); ok {
		c.Notify(NotifyHash, "hincrbyfloat", argv[1])
		c.Propagate(wordHSet, argv[1], argv[2], b.B)
		c.W.Bulk(b.B)
	}
}

// HRandField: HRANDFIELD key [count [WITHVALUES]].
//
// With a count of at least the hash's size the reply is the whole hash in
// its order; a smaller positive count gives that many distinct fields; a
// negative one that many fields, each drawn independently.
func HRandField(c *Ctx, argv [][]byte) {
	if len(argv) == 2 {
		h, found, ok := readKind(c, argv[1], KindHash)
		if !ok {
			return
		}
		if !found {
			c.W.Null()
			return
		}
		f, _ := randomField(c, h)
		c.W.Bulk(f)
		return
	}
	l, withValues, ok := randCount(c, argv, "withvalues")
	if !ok {
		return
	}
	h, found, ok := readKind(c, argv[1], KindHash)
	if !ok {
		return
	}
	if !found || l == 0 {
		c.W.Array(0)
		return
	}
	size := aggLen(h)
	pairs := withValues && c.W.RESP3()
	per := 1
	if withValues && !pairs {
		per = 2
	}
	writeOne := func(f []byte, v Value) bool {
		if pairs {
			c.W.Array(2)
		}
		c.W.Bulk(f)
		if withValues {
			replyValue(c, v)
		}
		return true
	}
	switch {
	case l < 0:
		c.W.Array(int(-l) * per)
		for range -l {
			writeOne(randomField(c, h))
		}
	case l >= int64(size):
		c.W.Array(size * per)
		eachField(h, writeOne)
	default:
		hashRandDistinct(c, h, size, int(l), per, writeOne)
	}
}

// hashRandDistinct writes count distinct random fields of h (count below
// its size): for a packed hash a random choice of positions, for a big one
// random fields until there are count different ones, or, when count is a
// good part of the hash, the whole hash less random fields.
func hashRandDistinct(c *Ctx, h Value, size, count, per int, write func([]byte, Value) bool) {
	c.W.Array(count * per)
	if h.Big == nil || count*3 > size {
		// Keep each field with probability (wanted left)/(fields left):
		// exactly count of them, every choice equally likely.
		left := count
		i := 0
		eachField(h, func(f []byte, v Value) bool {
			if c.Shard.rand()%uint64(size-i) < uint64(left) {
				write(f, v)
				left--
			}
			i++
			return left > 0
		})
		return
	}
	seen := make(map[string]struct{}, count)
	for len(seen) < count {
		f, _ := h.Big.RandomKey()
		if _, dup := seen[string(f)]; dup {
			continue
		}
		seen[string(f)] = struct{}{}
		v, _ := h.Big.Get(f)
		write(f, v)
	}
}

// randomField returns a random field of the non-empty hash h with its
// value.
func randomField(c *Ctx, h Value) ([]byte, Value) {
	if h.Big != nil {
		f, _ := h.Big.RandomKey()
		v, _ := h.Big.Get(f)
		return f, v
	}
	i := int(c.Shard.rand() % uint64(aggLen(h)))
	var rf []byte
	var rv Value
	eachField(h, func(f []byte, v Value) bool {
		if i == 0 {
			rf, rv = f, v
		}
		i--
		return i >= 0
	})
	return rf, rv
}

// HScan: HSCAN key cursor [MATCH pattern] [COUNT count]. A packed hash is
// returned whole, with cursor 0, as Redis does.
func HScan(c *Ctx, argv [][]byte) {
	scanValue(c, argv, KindHash, true, func(h Value, cursor uint64, count int, add func(name, value []byte)) uint64 {
		var tmp [20]byte
		addField := func(f []byte, v Value) {
			if v.IsInt {
				add(f, strconv.AppendInt(tmp[:0], v.Int, 10))
			} else {
				add(f, v.Str)
			}
		}
		if h.Big != nil {
			return h.Big.Scan(cursor, count, addField)
		}
		eachField(h, func(f []byte, v Value) bool { addField(f, v); return true })
		return 0
	})
}

// scanOptions reads the MATCH and COUNT options of HSCAN and SSCAN; on
// error it writes the reply.
func scanOptions(c *Ctx, args [][]byte) (pattern []byte, count int, ok bool) {
	count = 10
	for j := 0; j < len(args); j += 2 {
		if j+1 >= len(args) {
			c.W.Err(resp.ErrSyntax)
			return nil, 0, false
		}
		a, val := args[j], args[j+1]
		switch {
		case resp.EqualFold(a, "count"):
			n, ok := resp.ParseInt(val)
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return nil, 0, false
			}
			if n < 1 {
				c.W.Err(resp.ErrSyntax)
				return nil, 0, false
			}
			count = int(min(n, 1<<30))
		case resp.EqualFold(a, "match"):
			pattern = val
			if len(val) == 1 && val[0] == '*' {
				pattern = nil
			}
		default:
			c.W.Err(resp.ErrSyntax)
			return nil, 0, false
		}
	}
	return pattern, count, true
}
