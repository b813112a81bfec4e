package shardowner

import (
	"bytes"
	"math"
	"strconv"
	"sync/atomic"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// Aggregates (hashes, sets, lists, sorted sets) come in two encodings, as in Redis: packed, all
// elements in one byte string of the shard's table (Value.Str), while they
// are small; big, a kvtable.Table of their own (Value.Big), once they pass
// the thresholds below. They never go back, as in Redis.

// EncodingConfig holds the thresholds past which an aggregate leaves its
// packed encoding, under Redis's configuration names. A server's shards
// share one; CONFIG SET changes it while they run.
type EncodingConfig struct {
	HashMaxEntries atomic.Int64 // hash-max-listpack-entries: fields
	HashMaxValue   atomic.Int64 // hash-max-listpack-value: bytes of a field or value
	SetMaxIntset   atomic.Int64 // set-max-intset-entries: members

	ListMaxListpack   atomic.Int64 // list-max-listpack-size: a node's elements (> 0) or size class (< 0)
	ListCompressDepth atomic.Int64 // list-compress-depth: accepted; nodes are not compressed
	ZSetMaxEntries    atomic.Int64 // zset-max-listpack-entries: members
	ZSetMaxValue      atomic.Int64 // zset-max-listpack-value: bytes of a member

	HLLSparseMaxBytes atomic.Int64 // hll-sparse-max-bytes: bytes of a sparse HyperLogLog

	StreamNodeMaxBytes   atomic.Int64 // stream-node-max-bytes: a stream node's listpack bytes (0: no bound)
	StreamNodeMaxEntries atomic.Int64 // stream-node-max-entries: a stream node's entries (0: no bound)
}

// NewEncodingConfig returns Redis 7.0's built-in defaults (its sample
// redis.conf sets 128 hash entries; the server without a file uses 512).
func NewEncodingConfig() *EncodingConfig {
	e := new(EncodingConfig)
	e.HashMaxEntries.Store(512)
	e.HashMaxValue.Store(64)
	e.SetMaxIntset.Store(512)
	e.ListMaxListpack.Store(-2)
	e.ZSetMaxEntries.Store(128)
	e.ZSetMaxValue.Store(64)
	e.HLLSparseMaxBytes.Store(3000)
	e.StreamNodeMaxBytes.Store(4096)
	e.StreamNodeMaxEntries.Store(100)
	return e
}

// getKind looks key up for a command on values of kind k. It writes
// WRONGTYPE and reports ok=false when the key holds another kind; found is
// false when the key is missing.
func getKind(c *Ctx, key []byte, k Kind) (v Value, found, ok bool) {
	found, ok = loadKind(c, key, k, &v)
	return v, found, ok
}

// loadKind is getKind writing the value into *v, for the hottest handlers:
// their Value is then written once, not copied out through each call.
func loadKind(c *Ctx, key []byte, k Kind, v *Value) (found, ok bool) {
	found = c.Table().Load(key, v)
	if found && v.Kind != k {
		c.W.Err(resp.ErrWrongType)
		return found, false
	}
	return found, true
}

// readKind is getKind for a command that reads the key: a missing key is
// Redis's keymiss event.
func readKind(c *Ctx, key []byte, k Kind) (v Value, found, ok bool) {
	found, ok = loadReadKind(c, key, k, &v)
	return v, found, ok
}

// loadReadKind is readKind writing the value into *v (see loadKind).
func loadReadKind(c *Ctx, key []byte, k Kind, v *Value) (found, ok bool) {
	found, ok = loadKind(c, key, k, v)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", key)
	}
	return found, ok
}

// replyLen answers HLEN, SCARD, ZCARD and LLEN: the length of the value
// of kind k at key, 0 for a missing key.
func replyLen(c *Ctx, key []byte, k Kind, length func(Value) int) {
	v, found, ok := readKind(c, key, k)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(length(v)))
}

// newBig returns an empty table for a big aggregate of the shard.
func (c *Ctx) newBig() *Table {
	t := NewTable(&c.Shard.Clock)
	t.SetMeter(&c.Shard.Meter)
	return t
}

// bigFromPacked returns a big aggregate with the elements of packed list b:
// for a hash (pairs) each field maps to its value, for a set each member to
// the empty string. It returns nil, clearing what it built, when the table
// has no room.
func (c *Ctx) bigFromPacked(b []byte, pairs bool) *Table {
	big := c.newBig()
	body := kvtable.PackedBody(b)
	for off := 0; off < len(body); {
		var e, val []byte
		e, off = kvtable.ElemAt(body, off)
		if pairs {
			val, off = kvtable.ElemAt(body, off)
		}
		if big.SetString(e, val, 0) != nil {
			big.Clear()
			return nil
		}
	}
	return big
}

// copyBig returns a copy of the big aggregate src (COPY), or nil, clearing
// what it built, when the copy has no room.
func (c *Ctx) copyBig(src *Table) *Table {
	if src.Order != nil {
		return copyZSetBig(c, src)
	}
	dst := c.newBig()
	ok := true
	eachBig(src, func(e []byte, v Value) bool {
		ok = putValue(dst, e, v) == nil
		return ok
	})
	if !ok {
		dst.Clear()
		return nil
	}
	dst.List = bytes.Clone(src.List)
	return dst
}

// eachBig calls fn on every element of a big aggregate, with its value,
// until fn returns false. fn must not write to big.
func eachBig(big *Table, fn func(e []byte, v Value) bool) {
	more := true
	visit := func(e []byte, v Value) {
		if more {
			more = fn(e, v)
		}
	}
	for cur := big.Scan(0, 1024, visit); cur != 0 && more; {
		cur = big.Scan(cur, 1024, visit)
	}
}

// aggLen is the number of elements of an aggregate: fields of a hash,
// members of a set.
func aggLen(v Value) int {
	switch {
	case v.Big != nil:
		return v.Big.Len()
	case v.IntSet:
		return kvtable.IntSetLen(v.Str)
	case v.Kind == KindHash, v.Kind == KindZSet:
		return kvtable.PackedCount(v.Str) / 2
	}
	return kvtable.PackedCount(v.Str)
}

// scanValue answers HSCAN, SSCAN and ZSCAN key cursor [MATCH pattern]
// [COUNT count] on a value of kind k: walk goes over the value from cursor
// and returns the next one (a big value: about count elements of its
// table; a packed one: all of it and 0, as Redis returns its compact
// encodings whole), calling add with each element's name and, for pairs,
// its value; add keeps the elements whose name matches the pattern.
func scanValue(c *Ctx, argv [][]byte, k Kind, pairs bool,
	walk func(v Value, cursor uint64, count int, add func(name, value []byte)) uint64) {
	cursor, ok := ParseCursor(argv[2])
	if !ok {
		c.W.Err(resp.ErrCursor)
		return
	}
	v, found, ok := readKind(c, argv[1], k)
	if !ok {
		return
	}
	if !found {
		c.W.Array(2)
		c.W.BulkString("0")
		c.W.Array(0)
		return
	}
	pattern, count, ok := scanOptions(c, argv[3:])
	if !ok {
		return
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	// The elements go to a buffer first: the array header needs their count.
	w := resp.Writer{B: buf.B[:0], Proto: c.W.Proto}
	n := 0
	next := walk(v, cursor, count, func(name, value []byte) {
		if pattern != nil && !MatchGlob(pattern, name, false) {
			return
		}
		w.Bulk(name)
		n++
		if pairs {
			w.Bulk(value)
			n++
		}
	})
	c.W.Array(2)
	var tmp [20]byte
	c.W.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	c.W.Array(n)
	c.W.B = append(c.W.B, w.B...)
	buf.B = w.B
}

// randCount reads the count of HRANDFIELD, SRANDMEMBER and ZRANDMEMBER key
// count [word] and whether word (WITHVALUES, WITHSCORES; "" for none) follows
// it, answering Redis's errors in its order: the count, then the option,
// then the ranges a count with values and a negative count must fit.
func randCount(c *Ctx, argv [][]byte, word string) (l int64, with, ok bool) {
	l, ok = resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return 0, false, false
	}
	if l == math.MinInt64 {
		c.W.Err(errRandRange)
		return 0, false, false
	}
	if word != "" {
		if len(argv) > 4 || (len(argv) == 4 && !resp.EqualFold(argv[3], word)) {
			c.W.Err(resp.ErrSyntax)
			return 0, false, false
		}
		with = len(argv) == 4
		if with && (l < -math.MaxInt64/2 || l > math.MaxInt64/2) {
			c.W.Err(errOutOfRange)
			return 0, false, false
		}
	}
	if l < -maxRandRepeats {
		c.W.Err(errOutOfRange)
		return 0, false, false
	}
	return l, with, true
}

// mpopArgs reads the arguments LMPOP and ZMPOP share, from argv[1] on
// (numkeys key [key ...] WHERE [COUNT count]), answering their errors as
// those commands do: the keys, the side, and the count (1 when not given).
func mpopArgs(c *Ctx, argv [][]byte, side1, side2 string) (keys [][]byte, side []byte, count int64, ok bool) {
	numkeys, ok := resp.ParseInt(argv[1])
	if !ok || numkeys <= 0 {
		c.W.Err(errNumkeys)
		return nil, nil, 0, false
	}
	if numkeys > int64(len(argv)-3) {
		c.W.Err(resp.ErrSyntax)
		return nil, nil, 0, false
	}
	keys = argv[2 : 2+numkeys]
	rest := argv[2+numkeys:]
	if !resp.EqualFold(rest[0], side1) && !resp.EqualFold(rest[0], side2) {
		c.W.Err(resp.ErrSyntax)
		return nil, nil, 0, false
	}
	count = -1
	for j := 1; j < len(rest); j++ {
		if count != -1 || !resp.EqualFold(rest[j], "count") || j+1 == len(rest) {
			c.W.Err(resp.ErrSyntax)
			return nil, nil, 0, false
		}
		j++
		n, ok := resp.ParseInt(rest[j])
		if !ok || n <= 0 {
			c.W.Err(errCountPositive)
			return nil, nil, 0, false
		}
		count = n
	}
	return keys, rest[0], max(count, 1), true
}

// mpop is LMPOP and ZMPOP: reply pops from the first of the keys that holds
// a value of kind (second: the side named is side2, RIGHT or MAX), and a
// null array answers when none does.
func mpop(c *Ctx, argv [][]byte, kind Kind, side1, side2 string, reply func(c *Ctx, key []byte, v Value, second bool, count int64)) {
	keys, side, count, ok := mpopArgs(c, argv, side1, side2)
	if !ok {
		return
	}
	second := resp.EqualFold(side, side2)
	for _, k := range keys {
		v, found, ok := getKind(c, k, kind)
		if !ok {
			return
		}
		if found {
			reply(c, k, v, second, count)
			return
		}
	}
	c.W.NullArray()
}
