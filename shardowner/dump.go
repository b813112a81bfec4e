package shardowner

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
	"github.com/corekv/corekv/shardowner/rdbfile"
)

// Errors of DUMP and RESTORE, Redis's texts.
const (
	errBusyKey       resp.Error = "BUSYKEY Target key name already exists."
	errBadPayload    resp.Error = "ERR DUMP payload version or checksum are wrong"
	errBadDataFormat resp.Error = "ERR Bad data format"
	errRestoreTTL    resp.Error = "ERR Invalid TTL value, must be >= 0"
	errIdleTime      resp.Error = "ERR Invalid IDLETIME value, must be >= 0"
	errFreq          resp.Error = "ERR Invalid FREQ value, must be >= 0 and <= 255"
)

// Dump: DUMP key. Replies the value's payload (rdb.go), or nil when the key
// is missing (Redis's keymiss event; the lookup counts in keyspace_hits or
// keyspace_misses). A string is written plain; an
// aggregate as a count and its elements (a list, set, hash, or sorted set
// with binary scores), which Redis converts on load to the encoding their
// sizes call for.
func Dump(c *Ctx, argv [][]byte) {
	v, found := c.Table().Get(argv[1])
	c.Shard.Stats.countLookup(found)
	if !found {
		c.Notify(NotifyKeyMiss, "keymiss", argv[1])
		c.W.Null()
		return
	}
	b := bytebufferpool.Get()
	b.B = appendPayloadFooter(appendObject(b.B[:0], v))
	c.W.Bulk(b.B)
	bytebufferpool.Put(b)
}

// appendObject appends v as an RDB object: its type, then its body, with
// strings plain (DUMP).
func appendObject(dst []byte, v Value) []byte {
	return appendObjectBody(append(dst, objectType(v)), v, rdbfile.AppendRawString)
}

// objectType is the RDB type v is written as: a string plainly, an
// aggregate as a count and its elements (a list, set, hash, or sorted set
// with binary scores), which Redis converts on load to the encoding their
// sizes call for.
func objectType(v Value) byte {
	switch v.Kind {
	case KindList:
		return rdbfile.TypeList
	case KindSet:
		return rdbfile.TypeSet
	case KindHash:
		return rdbfile.TypeHash
	case KindZSet:
		return rdbfile.TypeZSet2
	case KindStream:
		return rdbfile.TypeStreamListpacks2
	}
	return rdbfile.TypeString
}

// appendObjectBody appends the body of v's RDB object, of objectType(v),
// its strings written by str.
func appendObjectBody(dst []byte, v Value, str func(dst, s []byte) []byte) []byte {
	var tmp [20]byte
	switch v.Kind {
	case KindString:
		if v.IsInt {
			return str(dst, strconv.AppendInt(tmp[:0], v.Int, 10))
		}
		return str(dst, v.Str)
	case KindList:
		dst = rdbfile.AppendLen(dst, listLen(v))
		listEach(v, 0, func(e []byte) bool {
			dst = str(dst, e)
			return true
		})
	case KindSet:
		dst = rdbfile.AppendLen(dst, aggLen(v))
		eachMember(v, func(m []byte) bool {
			dst = str(dst, m)
			return true
		})
	case KindHash:
		dst = rdbfile.AppendLen(dst, aggLen(v))
		eachField(v, func(f []byte, val Value) bool {
			dst = str(dst, f)
			if val.IsInt {
				dst = str(dst, strconv.AppendInt(tmp[:0], val.Int, 10))
			} else {
				dst = str(dst, val.Str)
			}
			return true
		})
	case KindStream:
		return appendStreamBody(dst, v, str)
	case KindZSet:
		z := zviewOf(v)
		dst = rdbfile.AppendLen(dst, z.len())
		for pi := range z.npages() {
			body := z.page(pi)
			for off := 0; off < len(body); {
				m, _, next := zAt(body, off)
				dst = str(dst, m)
				dst = append(dst, body[next-8:next]...) // the score's float64, little endian
				off = next
			}
		}
	}
	return dst
}

// appendKeyBody appends key and v as the part of an RDB file's key record
// after its expiry and access data: the type, the key, the body; strings
// as Redis saves them, integers encoded, none compressed
// (rdbfile.CompressRecords does that off the shard's thread).
func appendKeyBody(dst, key []byte, v Value) []byte {
	dst = rdbfile.AppendKey(dst, objectType(v), key, false)
	return appendObjectBody(dst, v, plain)
}

func plain(dst, s []byte) []byte { return rdbfile.AppendString(dst, s, false) }

// Restore: RESTORE key ttl payload [REPLACE] [ABSTTL] [IDLETIME seconds]
// [FREQ frequency]. Checks come in Redis's order: options, an existing
// key, the TTL, the footer, the object. A TTL that has passed by the time
// of the command replies OK and leaves no key (deleting the one REPLACE
// names). IDLETIME sets the key's access time under an LRU policy, FREQ its
// access count under an LFU one; each is ignored under the other, as in
// Redis.
func Restore(c *Ctx, argv [][]byte) {
	key := argv[1]
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(argv); j++ {
		more := len(argv) - j - 1
		switch a := argv[j]; {
		case resp.EqualFold(a, "replace"):
			replace = true
		case resp.EqualFold(a, "absttl"):
			absTTL = true
		case resp.EqualFold(a, "idletime") && more >= 1 && freq == -1:
			n, ok := resp.ParseInt(argv[j+1])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if n < 0 {
				c.W.Err(errIdleTime)
				return
			}
			idle = n
			j++
		case resp.EqualFold(a, "freq") && more >= 1 && idle == -1:
			n, ok := resp.ParseInt(argv[j+1])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if n < 0 || n > 255 {
				c.W.Err(errFreq)
				return
			}
			freq = n
			j++
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	t := c.Table()
	if !replace && t.Exists(key) {
		c.W.Err(errBusyKey)
		return
	}
	ttl, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	if ttl < 0 {
		c.W.Err(errRestoreTTL)
		return
	}
	if !payloadOK(argv[3]) {
		c.W.Err(errBadPayload)
		return
	}
	o, ok := readObject(argv[3])
	if !ok {
		c.W.Err(errBadDataFormat)
		return
	}
	defer o.release()
	var set setBuilder
	if o.kind == KindSet {
		// Built before the old key goes: a repeated member is bad data.
		defer set.release()
		if !o.buildSet(c, &set) {
			c.W.Err(errBadDataFormat)
			return
		}
	} else if (o.kind == KindHash || o.kind == KindZSet) && repeatedKey(o.out.B, o.keys) {
		c.W.Err(errBadDataFormat)
		return
	}
	deleted := replace && t.Delete(key)
	expireAt := ttl // 0: no TTL
	if now := c.Shard.Clock.Ms; ttl != 0 {
		if !absTTL {
			expireAt += now // wraps past the largest time, as in Redis, and so counts as past
		}
		if expireAt <= now {
			if deleted {
				t.Modified(key)
				c.Notify(NotifyGeneric, "del", key)
				propagateDel(c, key)
			}
			c.W.OK()
			return
		}
	}
	if !o.store(c, key, &set, expireAt) {
		return
	}
	setAccess(c, key, idle, freq)
	c.Notify(NotifyGeneric, "restore", key)
	if ttl != 0 && !absTTL {
		propagateValue(c, key) // with its TTL made absolute
	}
	c.W.OK()
}

// setAccess gives key the access data RESTORE or a loaded file names: idle
// seconds, or a frequency (-1: none).
func setAccess(c *Ctx, key []byte, idle, freq int64) {
	t := c.Table()
	switch {
	case idle >= 0 && !c.Shard.access.LFU:
		t.SetIdle(key, idle)
	case freq >= 0 && c.Shard.access.LFU:
		t.SetFreq(key, int(freq))
	}
}

// buildSet adds the members of o to set b, converting as SADD would; it
// fails on a full table (b.failed) or a member given twice, unless an
// intset repeats it (Redis takes such an intset unchecked).
func (o *rdbObject) buildSet(c *Ctx, b *setBuilder) bool {
	body := o.out.B[kvtable.PackedHeadRoom:]
	first, _ := kvtable.ElemAt(body, 0)
	b.init(c, Value{}, first)
	for off := 0; off < len(body); {
		var m []byte
		m, off = kvtable.ElemAt(body, off)
		if !b.add(m) && (b.failed || !o.set) {
			return false
		}
	}
	return true
}

// repeatedKey reports whether two of the elements of buf at offsets keys
// are equal. It sorts keys.
func repeatedKey(buf []byte, keys []int) bool {
	elem := func(off int) []byte {
		e, _ := kvtable.ElemAt(buf, off)
		return e
	}
	slices.SortFunc(keys, func(a, b int) int { return bytes.Compare(elem(a), elem(b)) })
	for i := 1; i < len(keys); i++ {
		if bytes.Equal(elem(keys[i-1]), elem(keys[i])) {
			return true
		}
	}
	return false
}

// store writes o under key, in the encoding Redis 7.0 gives it on load.
// On a full table it answers errFull and returns false.
func (o *rdbObject) store(c *Ctx, key []byte, set *setBuilder, expireAt int64) bool {
	t := c.Table()
	enc := c.Shard.Enc
	switch o.kind {
	case KindString:
		return stored(c, t.SetString(key, o.str, expireAt))
	case KindStream:
		big := o.streamTable(c)
		if big == nil {
			return false
		}
		if !stored(c, t.SetBig(key, KindStream, big, expireAt)) {
			big.Clear()
			return false
		}
		return true
	case KindList:
		return storeSmall(c, key, o.out.B, o.n, expireAt)
	case KindSet:
		return set.store(key, expireAt)
	case KindHash:
		packed := kvtable.FinishPacked(o.out.B, 2*o.n)
		if int64(o.n) <= enc.HashMaxEntries.Load() && (o.blob || int64(o.long) <= enc.HashMaxValue.Load()) {
			return stored(c, t.SetPacked(key, KindHash, false, packed, expireAt))
		}
		big := c.bigFromPacked(packed, true)
		if big == nil {
			c.W.Err(errFull)
			return false
		}
		if !stored(c, t.SetBig(key, KindHash, big, expireAt)) {
			big.Clear()
			return false
		}
		return true
	}
	// A sorted set: its pairs in order, then stored as ZRANGESTORE does.
	src := o.out.B
	slices.SortFunc(o.keys, func(a, b int) int {
		ma, sa, _ := zAt(src, a)
		mb, sb, _ := zAt(src, b)
		switch {
		case zLess(sa, ma, sb, mb):
			return -1
		case zLess(sb, mb, sa, ma):
			return 1
		}
		return 0
	})
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	buf.B = append(buf.B[:0], room[:]...)
	for _, off := range o.keys {
		m, s, _ := zAt(src, off)
		buf.B = appendZElem(buf.B, m, s)
	}
	if o.blob && int64(o.n) <= enc.ZSetMaxEntries.Load() {
		// A listpack stays one whatever its members' lengths, as in Redis.
		return stored(c, t.SetPacked(key, KindZSet, false, kvtable.FinishPacked(buf.B, 2*o.n), expireAt))
	}
	if !storeZSetValue(c, key, buf.B, o.n) {
		return false
	}
	if expireAt != 0 {
		if _, err := t.SetExpire(key, expireAt); !stored(c, err) {
			t.Delete(key)
			return false
		}
	}
	return true
}
