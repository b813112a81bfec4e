package shardowner

import (
	"bytes"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// A set is, as in Redis 7.0, an intset while its members are integers and
// at most set-max-intset-entries, and otherwise what Redis 7.0 calls a
// hashtable. corekv keeps a small one of those packed (a packed list of
// members, as Redis 7.2's listpack sets: up to setPackedEntries members of
// up to setPackedValue bytes) and a bigger one in a table of its own; OBJECT
// ENCODING answers "hashtable" for both, as Redis 7.0 does.
const (
	setPackedEntries = 128
	setPackedValue   = 64
)

// setHas reports whether m is a member of set s.
func setHas(s Value, m []byte) bool {
	switch {
	case s.Big != nil:
		return s.Big.Exists(m)
	case s.IntSet:
		n, ok := CanonicalInt(m)
		if !ok {
			return false
		}
		_, found := kvtable.IntSetFind(s.Str, n)
		return found
	}
	_, found := packedMember(kvtable.PackedBody(s.Str), m)
	return found
}

// packedMember finds m in the body of a packed set and returns its offset.
func packedMember(body, m []byte) (int, bool) {
	for off := 0; off < len(body); {
		e, next := kvtable.ElemAt(body, off)
		if bytes.Equal(e, m) {
			return off, true
		}
		off = next
	}
	return 0, false
}

// eachMember calls fn on every member of set s until fn returns false. The
// member is valid only during the call; fn must not write to the shard's
// tables.
func eachMember(s Value, fn func(m []byte) bool) {
	switch {
	case s.Big != nil:
		eachBig(s.Big, func(m []byte, _ Value) bool { return fn(m) })
	case s.IntSet:
		var tmp [20]byte
		for i := range kvtable.IntSetLen(s.Str) {
			if !fn(strconv.AppendInt(tmp[:0], kvtable.IntSetAt(s.Str, i), 10)) {
				return
			}
		}
	default:
		body := kvtable.PackedBody(s.Str)
		for off := 0; off < len(body); {
			var m []byte
			m, off = kvtable.ElemAt(body, off)
			if !fn(m) {
				return
			}
		}
	}
}

// setBuilder holds a set being changed by a command, in whichever of the
// three forms it has reached: an intset or packed list in buf (after
// PackedHeadRoom bytes of room, for a packed list), or a big table. It
// converts as members come, the way Redis's setTypeAdd does.
type setBuilder struct {
	c      *Ctx
	intset bool
	buf    *bytebufferpool.ByteBuffer
	tmp    *bytebufferpool.ByteBuffer // the other buffer of an intset rewrite
	n      int                        // members of a packed list
	big    *Table
	owned  bool // big was made by this builder (not the stored value's)
	failed bool // a write found no room
}

// init starts b from set s, or, when s is the zero Value, from an empty
// set whose form the first member decides (an integer: an intset). A
// builder lives on its command's stack: SADD and SREM allocate nothing.
func (b *setBuilder) init(c *Ctx, s Value, first []byte) {
	*b = setBuilder{c: c, buf: bytebufferpool.Get(), tmp: bytebufferpool.Get()}
	switch {
	case s.Big != nil:
		b.big = s.Big
	case s.IntSet:
		b.intset = true
		b.buf.B = append(b.buf.B[:0], s.Str...)
	case s.Kind == KindSet:
		var room [kvtable.PackedHeadRoom]byte
		b.buf.B = append(append(b.buf.B[:0], room[:]...), kvtable.PackedBody(s.Str)...)
		b.n = kvtable.PackedCount(s.Str)
	default:
		_, b.intset = CanonicalInt(first)
		b.buf.B = b.buf.B[:0]
		if !b.intset {
			var room [kvtable.PackedHeadRoom]byte
			b.buf.B = append(b.buf.B, room[:]...)
		}
	}
}

func (b *setBuilder) release() {
	bytebufferpool.Put(b.buf)
	bytebufferpool.Put(b.tmp)
	if b.owned && b.big != nil {
		b.big.Clear()
	}
}

func (b *setBuilder) len() int {
	switch {
	case b.big != nil:
		return b.big.Len()
	case b.intset:
		return kvtable.IntSetLen(b.buf.B)
	}
	return b.n
}

// toTable turns an intset or packed list into the form Redis calls a
// hashtable: packed while it fits setPackedEntries, else big.
func (b *setBuilder) toTable(extra int) {
	if b.intset {
		ints := append(b.tmp.B[:0], b.buf.B...)
		b.tmp.B = ints
		var room [kvtable.PackedHeadRoom]byte
		b.buf.B = append(b.buf.B[:0], room[:]...)
		b.intset, b.n = false, 0
		var tmp [20]byte
		for i := range kvtable.IntSetLen(ints) {
			b.buf.B = kvtable.AppendElem(b.buf.B, strconv.AppendInt(tmp[:0], kvtable.IntSetAt(ints, i), 10))
			b.n++
		}
	}
	if b.big == nil && b.n+extra > setPackedEntries {
		b.toBig()
	}
}

func (b *setBuilder) toBig() {
	big := b.c.bigFromPacked(kvtable.FinishPacked(b.buf.B, b.n), false)
	if big == nil {
		b.failed = true
		return
	}
	b.big, b.owned = big, true
}

// add adds m and reports whether it was new.
func (b *setBuilder) add(m []byte) bool {
	if b.failed {
		return false
	}
	if b.intset {
		if n, ok := CanonicalInt(m); ok {
			var added bool
			b.tmp.B, added = kvtable.AppendIntSetAdd(b.tmp.B[:0], b.buf.B, n)
			b.buf, b.tmp = b.tmp, b.buf
			if added && int64(kvtable.IntSetLen(b.buf.B)) > b.c.Shard.Enc.SetMaxIntset.Load() {
				b.toTable(0)
			}
			return added
		}
		b.toTable(1)
	}
	if b.big == nil && len(m) > setPackedValue {
		b.toBig()
	}
	if b.failed {
		return false
	}
	if b.big != nil {
		added, err := b.big.AddMember(m)
		if err != nil {
			b.failed = true
		}
		return added
	}
	if _, found := packedMember(b.buf.B[kvtable.PackedHeadRoom:], m); found {
		return false
	}
	if b.n+1 > setPackedEntries {
		b.toBig()
		return b.add(m)
	}
	b.buf.B = kvtable.AppendElem(b.buf.B, m)
	b.n++
	return true
}

// remove removes m and reports whether it was a member.
func (b *setBuilder) remove(m []byte) bool {
	switch {
	case b.big != nil:
		return b.big.Delete(m)
	case b.intset:
		n, ok := CanonicalInt(m)
		if !ok {
			return false
		}
		i, found := kvtable.IntSetFind(b.buf.B, n)
		if found {
			b.tmp.B = kvtable.AppendIntSetRemove(b.tmp.B[:0], b.buf.B, i)
			b.buf, b.tmp = b.tmp, b.buf
		}
		return found
	}
	off, found := packedMember(b.buf.B[kvtable.PackedHeadRoom:], m)
	if found {
		at := kvtable.PackedHeadRoom + off
		b.buf.B = append(b.buf.B[:at], b.buf.B[at+kvtable.ElemLen(m):]...)
		b.n--
	}
	return found
}

// store writes the set under key with expiry expireAt, or deletes key when
// the set is empty. On a full table it answers errFull and returns false.
func (b *setBuilder) store(key []byte, expireAt int64) bool {
	t := b.c.Table()
	if b.failed {
		b.c.W.Err(errFull)
		return false
	}
	switch {
	case b.len() == 0:
		t.Delete(key)
		return true
	case b.big != nil:
		if !b.owned {
			t.Modified(key) // changed in place, where the table cannot see
			return true
		}
		if !stored(b.c, t.SetBig(key, KindSet, b.big, expireAt)) {
			return false
		}
		b.owned = false
		return true
	case b.intset:
		return stored(b.c, t.SetPacked(key, KindSet, true, b.buf.B, expireAt))
	}
	return stored(b.c, t.SetPacked(key, KindSet, false, kvtable.FinishPacked(b.buf.B, b.n), expireAt))
}

// SAdd: SADD key member [member ...]. Replies the number of members added.
func SAdd(c *Ctx, argv [][]byte) {
	var s Value
	if _, ok := loadKind(c, argv[1], KindSet, &s); !ok {
		return
	}
	if s.Big != nil {
		// A big set changes in place: no builder, no buffers.
		added, ok := bigSetAdd(c, s.Big, argv[2:])
		if added > 0 {
			c.Table().Modified(argv[1])
		}
		if ok {
			if added > 0 {
				c.Notify(NotifySet, "sadd", argv[1])
			}
			c.W.Int(int64(added))
		}
		return
	}
	var b setBuilder
	b.init(c, s, argv[2])
	defer b.release()
	added := 0
	for _, m := range argv[2:] {
		if b.add(m) {
			added++
		}
	}
	if added == 0 {
		// Nothing new: the set is as it was, and WATCH must not hear of it.
		c.W.Int(0)
		return
	}
	if b.store(argv[1], s.ExpireAt) {
		c.Notify(NotifySet, "sadd", argv[1])
		c.W.Int(int64(added))
	}
}

// bigSetAdd adds members to the big set big and returns how many were new.
func bigSetAdd(c *Ctx, big *Table, members [][]byte) (int, bool) {
	added := 0
	for _, m := range members {
		ok, err := big.AddMember(m)
		if !stored(c, err) {
			return added, false
		}
		if ok {
			added++
		}
	}
	return added, true
}

// SRem: SREM key member [member ...]. The key goes with its last member.
func SRem(c *Ctx, argv [][]byte) {
	s, found, ok := getKind(c, argv[1], KindSet)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	if s.Big != nil {
		removed := 0
		for _, m := range argv[2:] {
			if s.Big.Delete(m) {
				removed++
			}
		}
		switch {
		case s.Big.Len() == 0:
			c.Table().Delete(argv[1])
		case removed > 0:
			c.Table().Modified(argv[1])
		}
		if removed > 0 {
			c.NotifyRemoval(NotifySet, "srem", argv[1])
		}
		c.W.Int(int64(removed))
		return
	}
	var b setBuilder
	b.init(c, s, nil)
	defer b.release()
	removed := 0
	for _, m := range argv[2:] {
		if b.remove(m) {
			removed++
		}
	}
	if removed == 0 {
		c.W.Int(0)
		return
	}
	if b.store(argv[1], s.ExpireAt) {
		c.NotifyRemoval(NotifySet, "srem", argv[1])
		c.W.Int(int64(removed))
	}
}

// SCard: SCARD key.
func SCard(c *Ctx, argv [][]byte) { replyLen(c, argv[1], KindSet, aggLen) }

// SIsMember: SISMEMBER key member.
func SIsMember(c *Ctx, argv [][]byte) {
	var s Value
	found, ok := loadReadKind(c, argv[1], KindSet, &s)
	if !ok {
		return
	}
	if found && setHas(s, argv[2]) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

// SMIsMember: SMISMEMBER key member [member ...].
func SMIsMember(c *Ctx, argv [][]byte) {
	s, found, ok := readKind(c, argv[1], KindSet)
	if !ok {
		return
	}
	c.W.Array(len(argv) - 2)
	for _, m := range argv[2:] {
		if found && setHas(s, m) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

// SMembers: SMEMBERS key. A set in RESP3.
func SMembers(c *Ctx, argv [][]byte) {
	s, found, ok := readKind(c, argv[1], KindSet)
	if !ok {
		return
	}
	if !found {
		c.W.Set(0)
		return
	}
	c.W.Set(aggLen(s))
	eachMember(s, func(m []byte) bool { c.W.Bulk(m); return true })
}

// SRandMember: SRANDMEMBER key [count]. As HRANDFIELD: a negative count
// draws with repeats, a positive one distinct members.
func SRandMember(c *Ctx, argv [][]byte) {
	if len(argv) > 3 {
		c.W.Err(resp.ErrSyntax)
		return
	}
	if len(argv) == 2 {
		s, found, ok := readKind(c, argv[1], KindSet)
		if !ok {
			return
		}
		if !found {
			c.W.Null()
			return
		}
		var tmp [20]byte
		c.W.Bulk(randomMember(c, s, &tmp))
		return
	}
	l, _, ok := randCount(c, argv, "")
	if !ok {
		return
	}
	s, found, ok := readKind(c, argv[1], KindSet)
	if !ok {
		return
	}
	if !found || l == 0 {
		c.W.Array(0)
		return
	}
	size := aggLen(s)
	switch {
	case l < 0:
		c.W.Array(int(-l))
		var tmp [20]byte
		for range -l {
			c.W.Bulk(randomMember(c, s, &tmp))
		}
	case l >= int64(size):
		c.W.Array(size)
		eachMember(s, func(m []byte) bool { c.W.Bulk(m); return true })
	default:
		c.W.Array(int(l))
		setRandDistinct(c, s, size, int(l), func(m []byte) { c.W.Bulk(m) })
	}
}

// setRandDistinct calls fn on count distinct random members of s (count
// below its size), as hashRandDistinct does for fields.
func setRandDistinct(c *Ctx, s Value, size, count int, fn func(m []byte)) {
	if s.Big == nil || count*3 > size {
		left, i := count, 0
		eachMember(s, func(m []byte) bool {
			if c.Shard.rand()%uint64(size-i) < uint64(left) {
				fn(m)
				left--
			}
			i++
			return left > 0
		})
		return
	}
	seen := make(map[string]struct{}, count)
	for len(seen) < count {
		m, _ := s.Big.RandomKey()
		if _, dup := seen[string(m)]; !dup {
			seen[string(m)] = struct{}{}
			fn(m)
		}
	}
}

// randomMember returns a random member of the non-empty set s; an
// intset's member is formatted in tmp.
func randomMember(c *Ctx, s Value, tmp *[20]byte) []byte {
	if s.Big != nil {
		m, _ := s.Big.RandomKey()
		return m
	}
	i := int(c.Shard.rand() % uint64(aggLen(s)))
	if s.IntSet {
		return strconv.AppendInt(tmp[:0], kvtable.IntSetAt(s.Str, i), 10)
	}
	var r []byte
	eachMember(s, func(m []byte) bool {
		if i == 0 {
			r = m
		}
		i--
		return i >= 0
	})
	return r
}

// SPop: SPOP key [count]. Removes and returns random members; with a count,
// a set in RESP3.
func SPop(c *Ctx, argv [][]byte) {
	if len(argv) > 3 {
		c.W.Err(resp.ErrSyntax)
		return
	}
	count := int64(-1)
	if len(argv) == 3 {
		n, ok := resp.ParseInt(argv[2])
		if !ok || n < 0 {
			c.W.Err(resp.ErrNotPositive)
			return
		}
		count = n
	}
	s, found, ok := getKind(c, argv[1], KindSet)
	if !ok {
		return
	}
	if !found || count == 0 {
		if count < 0 {
			c.W.Null()
		} else {
			c.W.Set(0)
		}
		return
	}
	size := aggLen(s)
	if count >= int64(size) {
		c.W.Set(size)
		eachMember(s, func(m []byte) bool { c.W.Bulk(m); return true })
		c.Table().Delete(argv[1])
		c.NotifyRemoval(NotifySet, "spop", argv[1])
		propagateDel(c, argv[1])
		return
	}
	if count < 0 && s.Big != nil && size > 1 {
		// One member of a big set that keeps others: replied from the
		// table, then deleted from it.
		m, _ := s.Big.RandomKey()
		c.W.Bulk(m)
		c.Propagate(wordSRem, argv[1], m)
		s.Big.Delete(m)
		c.Table().Modified(argv[1]) // changed in place, where the table cannot see
		c.NotifyRemoval(NotifySet, "spop", argv[1])
		return
	}
	// The members to pop go to a buffer first: removing them changes s.
	picked := bytebufferpool.Get()
	defer bytebufferpool.Put(picked)
	n := int(count)
	if count < 0 {
		n = 1
		var tmp [20]byte
		picked.B = kvtable.AppendElem(picked.B[:0], randomMember(c, s, &tmp))
	} else {
		picked.B = picked.B[:0]
		setRandDistinct(c, s, size, n, func(m []byte) { picked.B = kvtable.AppendElem(picked.B, m) })
	}
	var b setBuilder
	b.init(c, s, nil)
	defer b.release()
	for off := 0; off < len(picked.B); {
		var m []byte
		m, off = kvtable.ElemAt(picked.B, off)
		b.remove(m)
	}
	if !b.store(argv[1], s.ExpireAt) {
		return
	}
	c.NotifyRemoval(NotifySet, "spop", argv[1])
	if c.Journaling() {
		srem := [][]byte{wordSRem, argv[1]}
		for off := 0; off < len(picked.B); {
			var m []byte
			m, off = kvtable.ElemAt(picked.B, off)
			srem = append(srem, m)
		}
		c.Propagate(srem...)
	}
	if count < 0 {
		m, _ := kvtable.ElemAt(picked.B, 0)
		c.W.Bulk(m)
		return
	}
	c.W.Set(n)
	for off := 0; off < len(picked.B); {
		var m []byte
		m, off = kvtable.ElemAt(picked.B, off)
		c.W.Bulk(m)
	}
}

// SMove: SMOVE source destination member. Both keys are on this shard.
func SMove(c *Ctx, argv [][]byte) {
	src, dst, m := argv[1], argv[2], argv[3]
	s, found := c.Table().Get(src)
	if !found {
		c.W.Int(0)
		return
	}
	if s.Kind != KindSet {
		c.W.Err(resp.ErrWrongType)
		return
	}
	d, _, ok := getKind(c, dst, KindSet)
	if !ok {
		return
	}
	if !setHas(s, m) {
		c.W.Int(0)
		return
	}
	if bytes.Equal(src, dst) {
		c.W.Int(1)
		return
	}
	// The member is copied aside: the source's bytes move with its write.
	mb := bytebufferpool.Get()
	defer bytebufferpool.Put(mb)
	mb.B = append(mb.B[:0], m...)
	var rb setBuilder
	rb.init(c, s, nil)
	defer rb.release()
	rb.remove(mb.B)
	if !rb.store(src, s.ExpireAt) {
		return
	}
	c.NotifyRemoval(NotifySet, "srem", src)
	// The destination is read again: the source's write may have moved it.
	d, found = c.Table().Get(dst)
	if found && setHas(d, mb.B) {
		// Redis leaves a destination that has the member untouched (WATCH).
		c.W.Int(1)
		return
	}
	var ab setBuilder
	ab.init(c, d, mb.B)
	defer ab.release()
	ab.add(mb.B)
	if ab.store(dst, d.ExpireAt) {
		c.Notify(NotifySet, "sadd", dst)
		c.W.Int(1)
	}
}

// The set algebra commands: SINTER, SUNION, SDIFF and their STORE forms.
// All their keys are on this shard.
const (
	setInter = iota
	setUnion
	setDiff
)

// SInterCard: SINTERCARD numkeys key [key ...] [LIMIT limit]. The size of
// the intersection, counting stops at limit (0: no limit).
func SInterCard(c *Ctx, argv [][]byte) {
	n, ok := resp.ParseInt(argv[1])
	if !ok || n < 1 {
		c.W.Err(errNumkeys)
		return
	}
	if n > int64(len(argv)-2) {
		c.W.Err("ERR Number of keys can't be greater than number of args")
		return
	}
	keys := argv[2 : 2+n]
	var limit int64
	for i := 2 + int(n); i < len(argv); i++ {
		if !resp.EqualFold(argv[i], "limit") || i+1 == len(argv) {
			c.W.Err(resp.ErrSyntax)
			return
		}
		i++
		if limit, ok = resp.ParseInt(argv[i]); !ok || limit < 0 {
			c.W.Err(errLimitNegative)
			return
		}
	}
	// Every key is type-checked first, as in Redis; a missing one makes
	// the intersection empty.
	sets := make([]Value, len(keys))
	empty := false
	for i, k := range keys {
		s, found, ok := readKind(c, k, KindSet)
		if !ok {
			return
		}
		empty = empty || !found
		sets[i] = s
	}
	if empty {
		c.W.Int(0)
		return
	}
	var count int64
	eachMember(sets[0], func(m []byte) bool {
		for _, s := range sets[1:] {
			if !setHas(s, m) {
				return true
			}
		}
		count++
		return limit == 0 || count < limit
	})
	c.W.Int(count)
}

// SInter: SINTER key [key ...].
func SInter(c *Ctx, argv [][]byte) { setAlgebra(c, setInter, nil, argv[1:]) }

// SUnion: SUNION key [key ...].
func SUnion(c *Ctx, argv [][]byte) { setAlgebra(c, setUnion, nil, argv[1:]) }

// SDiff: SDIFF key [key ...].
func SDiff(c *Ctx, argv [][]byte) { setAlgebra(c, setDiff, nil, argv[1:]) }

// SInterStore: SINTERSTORE destination key [key ...].
func SInterStore(c *Ctx, argv [][]byte) { setAlgebra(c, setInter, argv[1], argv[2:]) }

// SUnionStore: SUNIONSTORE destination key [key ...].
func SUnionStore(c *Ctx, argv [][]byte) { setAlgebra(c, setUnion, argv[1], argv[2:]) }

// SDiffStore: SDIFFSTORE destination key [key ...].
func SDiffStore(c *Ctx, argv [][]byte) { setAlgebra(c, setDiff, argv[1], argv[2:]) }

// setAlgebra computes op over the sets at keys (a missing key is the empty
// set; any other kind is WRONGTYPE) and replies the members, or with dst
// stores them there (an empty result deletes dst) and replies their count.
// The result is built as Redis builds it, starting from an empty intset.
func setAlgebra(c *Ctx, op int, dst []byte, keys [][]byte) {
	sets := make([]Value, len(keys))
	for i, k := range keys {
		s, found, ok := readKind(c, k, KindSet)
		if !ok {
			return
		}
		if found {
			sets[i] = s
		}
	}
	// The inputs are copied: the result's writes may move them.
	var bufs []*bytebufferpool.ByteBuffer
	for i := range sets {
		var buf *bytebufferpool.ByteBuffer
		sets[i], buf = detach(sets[i])
		if buf != nil {
			bufs = append(bufs, buf)
		}
	}
	defer func() {
		for _, b := range bufs {
			bytebufferpool.Put(b)
		}
	}()
	var r setBuilder
	r.init(c, Value{}, []byte("0"))
	defer r.release()
	var first Value
	if len(sets) > 0 {
		first = sets[0]
	}
	switch op {
	case setUnion:
		for _, s := range sets {
			if s.Kind == KindSet {
				eachMember(s, func(m []byte) bool { r.add(m); return !r.failed })
			}
		}
	default:
		if first.Kind == KindSet {
			eachMember(first, func(m []byte) bool {
				keep := true
				for _, s := range sets[1:] {
					has := s.Kind == KindSet && setHas(s, m)
					if has != (op == setInter) {
						keep = false
						break
					}
				}
				if keep {
					r.add(m)
				}
				return !r.failed
			})
		}
	}
	if dst == nil {
		if r.failed {
			c.W.Err(errFull)
			return
		}
		c.W.Set(r.len())
		rv := r.value()
		eachMember(rv, func(m []byte) bool { c.W.Bulk(m); return true })
		return
	}
	n := r.len()
	existed := n == 0 && c.Table().Exists(dst)
	if !r.store(dst, 0) {
		return
	}
	switch {
	case n > 0:
		c.Notify(NotifySet, setStoreEvents[op], dst)
	case existed:
		c.Notify(NotifyGeneric, "del", dst)
	}
	c.W.Int(int64(n))
}

// setStoreEvents are the events of the STORE forms, by op.
var setStoreEvents = [...]string{setInter: "sinterstore", setUnion: "sunionstore", setDiff: "sdiffstore"}

// value returns the set the builder holds as a Value, valid until the
// builder changes or is released.
func (b *setBuilder) value() Value {
	switch {
	case b.big != nil:
		return Value{Kind: KindSet, Big: b.big}
	case b.intset:
		return Value{Kind: KindSet, IntSet: true, Str: b.buf.B}
	}
	return Value{Kind: KindSet, Str: kvtable.FinishPacked(b.buf.B, b.n)}
}

// SScan: SSCAN key cursor [MATCH pattern] [COUNT count]. A packed set or
// intset is returned whole, with cursor 0, as Redis does for its compact
// encodings.
func SScan(c *Ctx, argv [][]byte) {
	scanValue(c, argv, KindSet, false, func(s Value, cursor uint64, count int, add func(name, value []byte)) uint64 {
		if s.Big != nil {
			return s.Big.Scan(cursor, count, func(m []byte, _ Value) { add(m, nil) })
		}
		eachMember(s, func(m []byte) bool { add(m, nil); return true })
		return 0
	})
}
