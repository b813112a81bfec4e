package shardowner

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

// List command errors.
const (
	errIndexRange     resp.Error = "ERR index out of range"
	errRankZero       resp.Error = "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"
	errCountNegative  resp.Error = "ERR COUNT can't be negative"
	errMaxlenNegative resp.Error = "ERR MAXLEN can't be negative"
	errNumkeys        resp.Error = "ERR numkeys should be greater than 0"
	errCountPositive  resp.Error = "ERR count should be greater than 0"
)

// listLen is the number of elements of list v.
func listLen(v Value) int {
	if v.Big != nil {
		return qlist{t: v.Big}.total()
	}
	return kvtable.PackedCount(v.Str)
}

// listEach calls fn on the elements of list v from index start on, head
// to tail, until fn returns false. fn must not write to the shard's tables.
func listEach(v Value, start int, fn func(e []byte) bool) {
	if v.Big == nil {
		body := kvtable.PackedBody(v.Str)
		if start >= kvtable.PackedCount(v.Str) {
			return
		}
		for off := skipElems(body, start); off < len(body); {
			var e []byte
			e, off = kvtable.ElemAt(body, off)
			if !fn(e) {
				return
			}
		}
		return
	}
	q := qlist{t: v.Big}
	if start >= q.total() {
		return
	}
	k, local := q.find(start)
	for n := q.nodes(); k < n; k++ {
		body := q.body(k)
		for off := skipElems(body, local); off < len(body); {
			var e []byte
			e, off = kvtable.ElemAt(body, off)
			if !fn(e) {
				return
			}
		}
		local = 0
	}
}

// listIndex returns element i (0 <= i < length) of list v.
func listIndex(v Value, i int) []byte {
	body := kvtable.PackedBody(v.Str)
	if v.Big != nil {
		q := qlist{t: v.Big}
		k, local := q.find(i)
		body, i = q.body(k), local
	}
	e, _ := kvtable.ElemAt(body, skipElems(body, i))
	return e
}

// listLimits returns the node limits of the shard's list-max-listpack-size.
func (c *Ctx) listLimits() (count, size int) {
	return nodeLimits(c.Shard.Enc.ListMaxListpack.Load())
}

// storeSmall stores a small list's new body (buf after PackedHeadRoom, cnt
// elements) under key: packed while it fits one node, else as a big list.
// An empty list deletes the key.
func storeSmall(c *Ctx, key []byte, buf []byte, cnt int, expireAt int64) bool {
	t := c.Table()
	if cnt == 0 {
		t.Delete(key)
		return true
	}
	limCount, limSize := c.listLimits()
	if cnt <= limCount && len(buf)-kvtable.PackedHeadRoom <= limSize {
		return stored(c, t.SetPacked(key, KindList, false, kvtable.FinishPacked(buf, cnt), expireAt))
	}
	big := c.bigList(buf[kvtable.PackedHeadRoom:])
	if big == nil {
		c.W.Err(errFull)
		return false
	}
	if !stored(c, t.SetBig(key, KindList, big, expireAt)) {
		big.Clear()
		return false
	}
	return true
}

// listPush pushes elems, one after another, at the head (left) or tail of
// the list v under key (v is the zero Value when the key is missing). It
// returns the new length; on a full table it answers errFull.
func listPush(c *Ctx, key []byte, v Value, left bool, elems [][]byte) (int, bool) {
	if v.Big == nil {
		buf := bytebufferpool.Get()
		defer bytebufferpool.Put(buf)
		var room [kvtable.PackedHeadRoom]byte
		b := append(buf.B[:0], room[:]...)
		if left {
			for i := len(elems) - 1; i >= 0; i-- {
				b = kvtable.AppendElem(b, elems[i])
			}
		}
		b = append(b, kvtable.PackedBody(v.Str)...)
		if !left {
			for _, e := range elems {
				b = kvtable.AppendElem(b, e)
			}
		}
		buf.B = b
		n := kvtable.PackedCount(v.Str) + len(elems)
		return n, storeSmall(c, key, b, n, v.ExpireAt)
	}
	q := c.list(v.Big)
	limCount, limSize := c.listLimits()
	defer c.Table().Modified(key)
	total := 0
	for _, e := range elems {
		var err error
		if total, err = pushBig(q, left, e, limCount, limSize); !stored(c, err) {
			return 0, false
		}
	}
	return total, true
}

// pushBig pushes e at the head or tail of big list q: into the end node
// while it has room, else into a new node. It returns the new length.
func pushBig(q qlist, left bool, e []byte, limCount, limSize int) (int, error) {
	var small [64]byte
	b := small[:0]
	if kvtable.ElemLen(e) > len(small) {
		buf := bytebufferpool.Get()
		defer bytebufferpool.Put(buf)
		buf.B = kvtable.AppendElem(buf.B[:0], e)
		b = buf.B
	} else {
		b = kvtable.AppendElem(b, e)
	}
	ix := q.view()
	n, total := ix.nodes(), ix.total()
	if n > 0 {
		i := 0
		if !left {
			i = n - 1
		}
		if id, cnt := ix.rec(i); cnt < limCount {
			var ok bool
			var err error
			if left {
				ok, err = q.pushHead(b, limCount, limSize)
			} else {
				kept := q.keptTail(id, cnt)
				// In place, within the node's item while it has room:
				// the item grows by half at a time, never past a
				// node's size, and Insert refuses what would pass it.
				if ok, err = q.t.Insert(q.wkey(id), -1, b, limSize); ok && err == nil {
					q.setRec(i, cnt+1, ix.gap(i), total+1)
					if kept != nil {
						q.keepTail(id, append(kept, kept[cnt]+uint32(len(b))), cnt+1)
					}
				}
			}
			if err != nil {
				return 0, err
			}
			if ok {
				return total + 1, nil
			}
		}
	}
	id := q.newID()
	if err := q.setNode(id, b); err != nil {
		return 0, err
	}
	at := 0
	if !left {
		at = n
	}
	var r [listRecord]byte
	binary.LittleEndian.PutUint32(r[:], id)
	binary.LittleEndian.PutUint32(r[4:], 1)
	q.splice(at, at, r[:], 1, id)
	return total + 1, nil
}

// popNode calls fn on k of the cnt elements of a node's body, from its
// head or its tail, in the order they leave, and returns what stays.
func popNode(body []byte, cnt, k int, left bool, fn func(e []byte)) []byte {
	if left {
		off := 0
		for ; k > 0; k-- {
			var e []byte
			e, off = kvtable.ElemAt(body, off)
			fn(e)
		}
		return body[off:]
	}
	start := skipElems(body, cnt-k)
	if k == 1 {
		e, _ := kvtable.ElemAt(body, start)
		fn(e)
		return body[:start]
	}
	offs := bytebufferpool.Get()
	defer bytebufferpool.Put(offs)
	b := offs.B[:0]
	for off := start; off < len(body); {
		b = binary.LittleEndian.AppendUint32(b, uint32(off))
		_, off = kvtable.ElemAt(body, off)
	}
	offs.B = b
	for j := len(b) - 4; j >= 0; j -= 4 {
		e, _ := kvtable.ElemAt(body, int(binary.LittleEndian.Uint32(b[j:])))
		fn(e)
	}
	return body[:start]
}

// listPop removes count elements (at most the list's length) from the head
// or tail of the list v under key, calling fn on each as it leaves; the
// key goes with its last element. fn must not write to the shard's tables.
func listPop(c *Ctx, key []byte, v Value, left bool, count int, fn func(e []byte)) {
	t := c.Table()
	if v.Big == nil {
		cnt := kvtable.PackedCount(v.Str)
		count = min(count, cnt)
		rest := popNode(kvtable.PackedBody(v.Str), cnt, count, left, fn)
		if cnt == count {
			t.Delete(key)
			return
		}
		buf := bytebufferpool.Get()
		var room [kvtable.PackedHeadRoom]byte
		buf.B = append(append(buf.B[:0], room[:]...), rest...)
		// A smaller value is written in place: no room is needed.
		t.SetPacked(key, KindList, false, kvtable.FinishPacked(buf.B, cnt-count), v.ExpireAt)
		bytebufferpool.Put(buf)
		return
	}
	q := c.list(v.Big)
	total := q.total()
	for count > 0 && total > 0 {
		ix := q.view()
		i := 0
		if !left {
			i = ix.nodes() - 1
		}
		id, cnt := ix.rec(i)
		k := min(count, cnt)
		body := q.body(i)
		var rest []byte
		var offs []uint32
		if left {
			rest = popNode(body, cnt, k, true, fn)
		} else {
			offs = q.tailOffsets(id, body, cnt)
			for j := cnt - 1; j >= cnt-k; j-- {
				e, _ := kvtable.ElemAt(body, int(offs[j]))
				fn(e)
			}
			rest = body[:offs[cnt-k]]
		}
		total -= k
		if k == cnt {
			q.dropNode(id)
			q.splice(i, i+1, nil, -k, 0)
		} else if left {
			// The popped elements join the node's gap; nothing moves.
			q.forget(id)
			q.setRec(i, cnt-k, ix.gap(i)+len(body)-len(rest), total)
		} else {
			// Cut in place: a value that shrinks stays in its item.
			q.t.Splice(q.wkey(id), ix.gap(i)+len(rest), len(body)-len(rest), nil)
			q.setRec(i, cnt-k, ix.gap(i), total)
			q.keepTail(id, offs, cnt-k)
		}
		count -= k
	}
	if total == 0 {
		t.Delete(key)
		return
	}
	t.Modified(key)
}

// rewriteNode hands fn the body of the node that holds element i of list v
// (a small list's only node) and the element's place in it; fn returns the
// node's new body, after kvtable.PackedHeadRoom bytes, and how its count
// changes. The node is stored, cut when it outgrows the limits.
func rewriteNode(c *Ctx, key []byte, v Value, i int, fn func(body []byte, local int, b []byte) ([]byte, int)) bool {
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	b := append(buf.B[:0], room[:]...)
	if v.Big == nil {
		cnt := kvtable.PackedCount(v.Str)
		var delta int
		b, delta = fn(kvtable.PackedBody(v.Str), i, b)
		buf.B = b
		return storeSmall(c, key, b, cnt+delta, v.ExpireAt)
	}
	q := c.list(v.Big)
	k, local := 0, 0
	if i >= q.total() { // past the tail: the end of the last node
		k = q.nodes() - 1
		_, local = q.rec(k)
	} else {
		k, local = q.find(i)
	}
	_, cnt := q.rec(k)
	b, delta := fn(q.body(k), local, b)
	buf.B = b
	limCount, limSize := c.listLimits()
	if !stored(c, q.replaceNode(k, b[kvtable.PackedHeadRoom:], cnt+delta, delta, limCount, limSize)) {
		return false
	}
	if q.total() == 0 {
		c.Table().Delete(key)
	} else {
		c.Table().Modified(key)
	}
	return true
}

// LPush: LPUSH key element [element ...].
func LPush(c *Ctx, argv [][]byte) { pushCommand(c, argv, true, false) }

// RPush: RPUSH key element [element ...].
func RPush(c *Ctx, argv [][]byte) { pushCommand(c, argv, false, false) }

// LPushX: LPUSHX key element [element ...]. Only onto an existing list.
func LPushX(c *Ctx, argv [][]byte) { pushCommand(c, argv, true, true) }

// RPushX: RPUSHX key element [element ...].
func RPushX(c *Ctx, argv [][]byte) { pushCommand(c, argv, false, true) }

func pushCommand(c *Ctx, argv [][]byte, left, exists bool) {
	v, found, ok := getKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if exists && !found {
		c.W.Int(0)
		return
	}
	if n, ok := listPush(c, argv[1], v, left, argv[2:]); ok {
		c.Notify(NotifyList, pushEvent(left), argv[1])
		c.W.Int(int64(n))
	}
}

// pushEvent and popEvent name the events of a push and a pop at the head
// (left) or the tail.
func pushEvent(left bool) string {
	if left {
		return "lpush"
	}
	return "rpush"
}

func popEvent(left bool) string {
	if left {
		return "lpop"
	}
	return "rpop"
}

// LPop: LPOP key [count].
func LPop(c *Ctx, argv [][]byte) { popCommand(c, argv, true) }

// RPop: RPOP key [count].
func RPop(c *Ctx, argv [][]byte) { popCommand(c, argv, false) }

func popCommand(c *Ctx, argv [][]byte, left bool) {
	if len(argv) > 3 {
		c.W.Err(resp.ErrWrongArgs(string(bytes.ToLower(argv[0]))))
		return
	}
	count := int64(1)
	if len(argv) == 3 {
		n, ok := resp.ParseInt(argv[2])
		if !ok || n < 0 {
			c.W.Err(resp.ErrNotPositive)
			return
		}
		count = n
	}
	v, found, ok := getKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		if len(argv) == 3 {
			c.W.NullArray()
		} else {
			c.W.Null()
		}
		return
	}
	write := func(e []byte) { c.W.Bulk(e) }
	if len(argv) == 3 {
		n := min(count, int64(listLen(v)))
		c.W.Array(int(n))
		if n > 0 {
			listPop(c, argv[1], v, left, int(n), write)
			c.NotifyRemoval(NotifyList, popEvent(left), argv[1])
		}
		return
	}
	listPop(c, argv[1], v, left, 1, write)
	c.NotifyRemoval(NotifyList, popEvent(left), argv[1])
}

// LLen: LLEN key.
func LLen(c *Ctx, argv [][]byte) { replyLen(c, argv[1], KindList, listLen) }

// LIndex: LINDEX key index. A negative index counts from the tail. The key
// is looked up before the index is read, as in Redis.
func LIndex(c *Ctx, argv [][]byte) {
	v, found, ok := readKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	i, in, ok := listIndexArg(c, v, argv[2])
	if !ok {
		return
	}
	if !in {
		c.W.Null()
		return
	}
	c.W.Bulk(listIndex(v, i))
}

// listIndexArg reads an index of list v, counting from the tail when
// negative, and reports whether it names an element; ok is false, with the
// error written, when it is not an integer.
func listIndexArg(c *Ctx, v Value, a []byte) (i int, in, ok bool) {
	x, ok := resp.ParseInt(a)
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return 0, false, false
	}
	n := int64(listLen(v))
	if x < 0 {
		x += n
	}
	return int(x), x >= 0 && x < n, true
}

// listRange resolves LRANGE/LTRIM's start and stop against a list of n
// elements; empty is true when nothing is in range.
func listRange(start, stop, n int64) (int64, int64, bool) {
	if start < 0 {
		start = max(start+n, 0)
	}
	if stop < 0 {
		stop += n
	}
	if start > stop || start >= n {
		return 0, 0, true
	}
	return start, min(stop, n-1), false
}

// LRange: LRANGE key start stop.
func LRange(c *Ctx, argv [][]byte) {
	start, ok1 := resp.ParseInt(argv[2])
	stop, ok2 := resp.ParseInt(argv[3])
	if !ok1 || !ok2 {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	v, found, ok := readKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		c.W.Array(0)
		return
	}
	start, stop, empty := listRange(start, stop, int64(listLen(v)))
	if empty {
		c.W.Array(0)
		return
	}
	left := int(stop - start + 1)
	c.W.Array(left)
	listEach(v, int(start), func(e []byte) bool {
		c.W.Bulk(e)
		left--
		return left > 0
	})
}

// LSet: LSET key index element. The key is looked up before the index is
// read, as in Redis.
func LSet(c *Ctx, argv [][]byte) {
	v, found, ok := getKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		c.W.Err(resp.ErrNoSuchKey)
		return
	}
	i, in, ok := listIndexArg(c, v, argv[2])
	if !ok {
		return
	}
	if !in {
		c.W.Err(errIndexRange)
		return
	}
	elem := argv[3]
	if rewriteNode(c, argv[1], v, int(i), func(body []byte, local int, b []byte) ([]byte, int) {
		off := skipElems(body, local)
		_, end := kvtable.ElemAt(body, off)
		b = append(b, body[:off]...)
		b = kvtable.AppendElem(b, elem)
		return append(b, body[end:]...), 0
	}) {
		c.Notify(NotifyList, "lset", argv[1])
		c.W.OK()
	}
}

// LInsert: LINSERT key BEFORE|AFTER pivot element. Replies the new length,
// -1 when the pivot is not there, 0 when the key is missing.
func LInsert(c *Ctx, argv [][]byte) {
	var after bool
	switch {
	case resp.EqualFold(argv[2], "after"):
		after = true
	case resp.EqualFold(argv[2], "before"):
	default:
		c.W.Err(resp.ErrSyntax)
		return
	}
	v, found, ok := getKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	pivot, elem := argv[3], argv[4]
	at, i := -1, 0
	listEach(v, 0, func(e []byte) bool {
		if bytes.Equal(e, pivot) {
			at = i
			return false
		}
		i++
		return true
	})
	if at < 0 {
		c.W.Int(-1)
		return
	}
	if after {
		at++
	}
	n := listLen(v)
	if rewriteNode(c, argv[1], v, at, func(body []byte, local int, b []byte) ([]byte, int) {
		off := skipElems(body, local)
		b = append(b, body[:off]...)
		b = kvtable.AppendElem(b, elem)
		return append(b, body[off:]...), 1
	}) {
		c.Notify(NotifyList, "linsert", argv[1])
		c.W.Int(int64(n + 1))
	}
}

// LRem: LREM key count element. Removes the first count matches (the last
// -count when negative, all when 0); replies how many went.
func LRem(c *Ctx, argv [][]byte) {
	count, ok := resp.ParseInt(argv[2])
	if !ok {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	v, found, ok := getKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		c.W.Int(0)
		return
	}
	elem := argv[3]
	// Removing the last k matches is removing the matches after the first
	// (all - k), which a walk from the head can do.
	skip, limit := 0, count
	if count < 0 {
		all := 0
		listEach(v, 0, func(e []byte) bool {
			if bytes.Equal(e, elem) {
				all++
			}
			return true
		})
		skip = max(all+int(count), 0)
		limit = 0
	}
	removed := 0
	// filter rewrites a node's body without the matches to remove.
	filter := func(body []byte, b []byte) ([]byte, int) {
		gone := 0
		for off := 0; off < len(body); {
			start := off
			var e []byte
			e, off = kvtable.ElemAt(body, off)
			if bytes.Equal(e, elem) && (limit == 0 || int64(removed) < limit) {
				if skip > 0 {
					skip--
				} else {
					removed++
					gone++
					continue
				}
			}
			b = append(b, body[start:off]...)
		}
		return b, -gone
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	if v.Big == nil {
		var room [kvtable.PackedHeadRoom]byte
		b, delta := filter(kvtable.PackedBody(v.Str), append(buf.B[:0], room[:]...))
		buf.B = b
		if removed == 0 {
			c.W.Int(0)
		} else if storeSmall(c, argv[1], b, kvtable.PackedCount(v.Str)+delta, v.ExpireAt) {
			c.NotifyRemoval(NotifyList, "lrem", argv[1])
			c.W.Int(int64(removed))
		}
		return
	}
	q := c.list(v.Big)
	limCount, limSize := c.listLimits()
	for k := 0; k < q.nodes() && (limit == 0 || int64(removed) < limit); {
		_, cnt := q.rec(k)
		body := q.body(k)
		before := removed
		b, delta := filter(body, buf.B[:0])
		buf.B = b
		if removed == before {
			k++
			continue
		}
		// Shrinking a node never needs more room.
		q.replaceNode(k, b, cnt+delta, delta, limCount, limSize)
		if cnt+delta > 0 {
			k++
		}
	}
	if removed > 0 {
		if q.total() == 0 {
			c.Table().Delete(argv[1])
		} else {
			c.Table().Modified(argv[1])
		}
		c.NotifyRemoval(NotifyList, "lrem", argv[1])
	}
	c.W.Int(int64(removed))
}

// LTrim: LTRIM key start stop.
func LTrim(c *Ctx, argv [][]byte) {
	start, ok1 := resp.ParseInt(argv[2])
	stop, ok2 := resp.ParseInt(argv[3])
	if !ok1 || !ok2 {
		c.W.Err(resp.ErrNotInteger)
		return
	}
	v, found, ok := getKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		c.W.OK()
		return
	}
	n := int64(listLen(v))
	start, stop, empty := listRange(start, stop, n)
	if empty {
		c.Table().Delete(argv[1])
		c.NotifyRemoval(NotifyList, "ltrim", argv[1])
		c.W.OK()
		return
	}
	drop := func([]byte) {}
	if start > 0 {
		listPop(c, argv[1], v, true, int(start), drop)
		v, _ = c.Table().Get(argv[1])
	}
	if tail := n - 1 - stop; tail > 0 {
		listPop(c, argv[1], v, false, int(tail), drop)
	}
	c.Notify(NotifyList, "ltrim", argv[1])
	c.W.OK()
}

// LPos: LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len].
func LPos(c *Ctx, argv [][]byte) {
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	for j := 3; j < len(argv); j += 2 {
		if j+1 >= len(argv) {
			c.W.Err(resp.ErrSyntax)
			return
		}
		n, isInt := resp.ParseInt(argv[j+1])
		switch {
		case resp.EqualFold(argv[j], "rank"):
			if !isInt {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if n == 0 {
				c.W.Err(errRankZero)
				return
			}
			rank = n
		case resp.EqualFold(argv[j], "count"):
			if !isInt || n < 0 {
				c.W.Err(errCountNegative)
				return
			}
			count = n
		case resp.EqualFold(argv[j], "maxlen"):
			if !isInt || n < 0 {
				c.W.Err(errMaxlenNegative)
				return
			}
			maxlen = n
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	v, found, ok := readKind(c, argv[1], KindList)
	if !ok {
		return
	}
	if !found {
		if count >= 0 {
			c.W.Array(0)
		} else {
			c.W.Null()
		}
		return
	}
	want := count
	if want < 0 {
		want = 1
	}
	if rank == math.MinInt64 {
		// Redis negates the rank and overflows: the first match from the
		// tail counts, and so does every later one.
		rank, want = -1, 0
	}
	elem := argv[2]
	n := int64(listLen(v))
	lo, hi := int64(0), n // the window MAXLEN leaves, from the chosen end
	if maxlen > 0 && rank > 0 {
		hi = min(n, maxlen)
	} else if maxlen > 0 {
		lo = max(0, n-maxlen)
	}
	var pos []int64
	i := int64(0)
	if rank > 0 {
		seen := int64(0)
		listEach(v, 0, func(e []byte) bool {
			if i >= hi {
				return false
			}
			if bytes.Equal(e, elem) {
				seen++
				if seen >= rank {
					pos = append(pos, i)
				}
			}
			i++
			return want == 0 || int64(len(pos)) < want
		})
	} else {
		// From the tail: count the window's matches, then keep those whose
		// order from the tail is from -rank to -rank+want-1.
		all := int64(0)
		listEach(v, int(lo), func(e []byte) bool {
			if bytes.Equal(e, elem) {
				all++
			}
			return true
		})
		first := all + rank + 1 // 1-based order from the head of the last one kept
		last := int64(1)
		if want > 0 {
			last = max(first-want+1, 1)
		}
		seen := int64(0)
		i = lo
		listEach(v, int(lo), func(e []byte) bool {
			if bytes.Equal(e, elem) {
				seen++
				if seen >= last && seen <= first {
					pos = append(pos, i)
				}
			}
			i++
			return seen < first
		})
		for a, b := 0, len(pos)-1; a < b; a, b = a+1, b-1 {
			pos[a], pos[b] = pos[b], pos[a]
		}
	}
	if count < 0 {
		if len(pos) == 0 {
			c.W.Null()
		} else {
			c.W.Int(pos[0])
		}
		return
	}
	c.W.Array(len(pos))
	for _, p := range pos {
		c.W.Int(p)
	}
}

// LMove: LMOVE source destination LEFT|RIGHT LEFT|RIGHT.
func LMove(c *Ctx, argv [][]byte) {
	from, ok1 := parseSide(argv[3])
	to, ok2 := parseSide(argv[4])
	if !ok1 || !ok2 {
		c.W.Err(resp.ErrSyntax)
		return
	}
	listMove(c, argv[1], argv[2], from, to)
}

// RPopLPush: RPOPLPUSH source destination.
func RPopLPush(c *Ctx, argv [][]byte) { listMove(c, argv[1], argv[2], false, true) }

// parseSide reads LEFT (true) or RIGHT (false).
func parseSide(b []byte) (left, ok bool) {
	switch {
	case resp.EqualFold(b, "left"):
		return true, true
	case resp.EqualFold(b, "right"):
		return false, true
	}
	return false, false
}

// listMove pops an element from src and pushes it onto dst, replying it.
func listMove(c *Ctx, src, dst []byte, from, to bool) {
	sv, found, ok := getKind(c, src, KindList)
	if !ok {
		return
	}
	if !found {
		c.W.Null()
		return
	}
	if _, _, ok := getKind(c, dst, KindList); !ok {
		return
	}
	if bytes.Equal(src, dst) && listLen(sv) == 1 {
		// The one element leaves and comes back: the list stays, as in
		// Redis, rather than going and coming back as a new key.
		c.Table().Modified(src)
		c.Notify(NotifyList, pushEvent(to), dst)
		c.Notify(NotifyList, popEvent(from), src)
		c.W.Bulk(listIndex(sv, 0))
		return
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	listPop(c, src, sv, from, 1, func(e []byte) { buf.B = append(buf.B[:0], e...) })
	dv, _ := c.Table().Get(dst)
	one := [1][]byte{buf.B}
	if _, ok := listPush(c, dst, dv, to, one[:]); ok {
		// Redis pushes before it takes the source away.
		c.Notify(NotifyList, pushEvent(to), dst)
		c.NotifyRemoval(NotifyList, popEvent(from), src)
		c.W.Bulk(buf.B)
	}
}

// LMPop: LMPOP numkeys key [key ...] LEFT|RIGHT [COUNT count]. Pops from
// the first non-empty list; its keys must all be on this shard.
func LMPop(c *Ctx, argv [][]byte) {
	mpop(c, argv, KindList, "left", "right", func(c *Ctx, k []byte, v Value, right bool, count int64) {
		lmpopReply(c, k, v, !right, count)
	})
}

// lmpopReply pops up to count elements of list v under key k from one end
// and answers them with the key, as LMPOP and BLMPOP do.
func lmpopReply(c *Ctx, k []byte, v Value, left bool, count int64) {
	n := int(min(count, int64(listLen(v))))
	c.W.Array(2)
	c.W.Bulk(k)
	c.W.Array(n)
	listPop(c, k, v, left, n, func(e []byte) { c.W.Bulk(e) })
	c.NotifyRemoval(NotifyList, popEvent(left), k)
	// LMPOP and BLMPOP, as Redis propagates them.
	propagateCount(c, popWord(left), k, n)
}

// listBlob appends the elements of list v as a packed list (a value
// blob's body).
func listBlob(dst []byte, v Value) []byte {
	dst = kvtable.AppendLen(dst, listLen(v))
	listEach(v, 0, func(e []byte) bool {
		dst = kvtable.AppendElem(dst, e)
		return true
	})
	return dst
}
