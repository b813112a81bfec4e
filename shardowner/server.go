package shardowner

import (
	"bytes"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
)

// The whole-keyspace commands below run on every shard (SCAN: on the shard its
// cursor names); the router combines the per-shard replies.

// DBSize: DBSIZE. The number of keys of the selected database on this shard,
// counting expired keys not yet reclaimed, as Redis does.
func DBSize(c *Ctx, argv [][]byte) { c.W.Int(int64(c.Table().Len())) }

// flushMode checks the optional ASYNC|SYNC argument of FLUSHDB and FLUSHALL.
// Both modes free the memory at once here.
func flushMode(c *Ctx, argv [][]byte) bool {
	if len(argv) > 2 || (len(argv) == 2 && !resp.EqualFold(argv[1], "async") && !resp.EqualFold(argv[1], "sync")) {
		c.W.Err(resp.ErrSyntax)
		return false
	}
	return true
}

// FlushDB: FLUSHDB [ASYNC|SYNC].
func FlushDB(c *Ctx, argv [][]byte) {
	if !flushMode(c, argv) {
		return
	}
	if !c.Shard.detachForSnapshot(c.DB) {
		c.Table().Clear()
	}
	c.Shard.flushed(c.DB)
	c.Shard.trackFlushed()
	c.W.OK()
}

// flushed tells the parked blocking commands that database db was emptied.
func (s *Shard) flushed(db int) {
	if s.Waiters != nil {
		s.Waiters.Flushed(db)
	}
}

// FlushAll: FLUSHALL [ASYNC|SYNC]. Clears every database of this shard.
func FlushAll(c *Ctx, argv [][]byte) {
	if !flushMode(c, argv) {
		return
	}
	for db, t := range c.Shard.DBs {
		if !c.Shard.detachForSnapshot(db) {
			t.Clear()
		}
		c.Shard.flushed(db)
	}
	c.Shard.trackFlushed()
	c.W.OK()
}

// keyCollector gathers keys as RESP bulk strings in a pooled buffer, so that
// the array header, which needs the count, can be written first.
type keyCollector struct {
	buf     *bytebufferpool.ByteBuffer
	n       int
	now     int64
	pattern []byte // nil: every key
	typ     []byte // nil: every type
}

func (k *keyCollector) add(key []byte, v Value) {
	if v.ExpireAt != 0 && v.ExpireAt <= k.now {
		return
	}
	if k.pattern != nil && !MatchGlob(k.pattern, key, false) {
		return
	}
	if k.typ != nil && !eqFoldString(k.typ, kindName(v.Kind)) {
		return
	}
	b := k.buf.B
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(key)), 10)
	b = append(b, '\r', '\n')
	b = append(b, key...)
	k.buf.B = append(b, '\r', '\n')
	k.n++
}

// reply writes the collected keys as an array and gives the buffer back to
// the pool.
func (k *keyCollector) reply(c *Ctx) {
	c.W.Array(k.n)
	c.W.B = append(c.W.B, k.buf.B...)
	bytebufferpool.Put(k.buf)
}

// Keys: KEYS pattern. This shard's part of the reply.
func Keys(c *Ctx, argv [][]byte) {
	k := keyCollector{buf: bytebufferpool.Get(), now: c.Shard.Clock.Ms}
	if !(len(argv[1]) == 1 && argv[1][0] == '*') {
		k.pattern = argv[1]
	}
	t := c.Table()
	for cur := t.Scan(0, 1024, k.add); cur != 0; {
		cur = t.Scan(cur, 1024, k.add)
	}
	k.reply(c)
}

// RandomKey: RANDOMKEY. A random key of this shard, or nil.
func RandomKey(c *Ctx, argv [][]byte) {
	key, ok := c.Table().RandomKey()
	if !ok {
		c.W.Null()
		return
	}
	c.W.Bulk(key)
}

// Scan: SCAN cursor [MATCH pattern] [COUNT count] [TYPE type].
//
// The cursor is global: shard = cursor % Count and the table's own cursor is
// cursor / Count. When this shard's table is done the reply names the next
// shard's start (its ID as the cursor), and 0 after the last shard.
func Scan(c *Ctx, argv [][]byte) {
	cursor, ok := ParseCursor(argv[1])
	if !ok {
		c.W.Err(resp.ErrCursor)
		return
	}
	k := keyCollector{now: c.Shard.Clock.Ms}
	count := int64(10)
	for j := 2; j < len(argv); j += 2 {
		if j+1 >= len(argv) {
			c.W.Err(resp.ErrSyntax)
			return
		}
		a, val := argv[j], argv[j+1]
		switch {
		case resp.EqualFold(a, "count"):
			if count, ok = resp.ParseInt(val); !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if count < 1 {
				c.W.Err(resp.ErrSyntax)
				return
			}
		case resp.EqualFold(a, "match"):
			k.pattern = val
			if len(val) == 1 && val[0] == '*' {
				k.pattern = nil
			}
		case resp.EqualFold(a, "type"):
			k.typ = val
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	n := uint64(c.Shard.Count)
	id := uint64(c.Shard.ID)
	if count > 1<<30 {
		count = 1 << 30
	}
	k.buf = bytebufferpool.Get()
	next := c.Table().Scan(cursor/n, int(count), k.add)
	switch {
	case next != 0:
		next = next*n + id
	case id+1 < n:
		next = id + 1
	}
	c.W.Array(2)
	var tmp [20]byte
	c.W.Bulk(strconv.AppendUint(tmp[:0], next, 10))
	k.reply(c)
}

// parseCursor reads a SCAN cursor (see ParseCursor).
// ParseCursor reads a SCAN cursor the way Redis does, with strtoul on the
// argument as a C string: it ends at a NUL, so "" (and "\x00…") is cursor
// 0; a leading space is refused; a sign is allowed and a negative number
// wraps around, so "SCAN -1" is a (huge) cursor, not an error; anything
// after the digits, or a value past 64 bits, is.
func ParseCursor(b []byte) (uint64, bool) {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) == 0 {
		return 0, true
	}
	switch b[0] {
	case ' ', '\t', '\n', '\r', '\v', '\f':
		return 0, false
	}
	i := 0
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var n uint64
	for ; i < len(b); i++ {
		ch := b[i]
		if ch < '0' || ch > '9' {
			return 0, false
		}
		d := uint64(ch - '0')
		if n > (^uint64(0)-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	if neg {
		n = -n
	}
	return n, true
}

// eqFoldString reports whether b equals s ignoring ASCII case.
func eqFoldString(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		if lower(b[i]) != lower(s[i]) {
			return false
		}
	}
	return true
}
