package shardowner

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/shardowner/kvtable"
)

// A small list is a packed list (kvtable.PackedBody) of its elements, head
// first. A big one, past the size of one node (list-max-listpack-size), is
// a chain of nodes in a table of its own, with its index beside them (the
// layout: kvtable/listnode.go). Pushes and pops touch one node and one index
// record in place; a node that fills or empties moves the index's records
// after it, so the cost is O(nodes) at worst, and finding an element by
// position reads the index, not the elements. Nothing of it is a Go
// pointer.

const (
	listIndexHead = kvtable.ListIndexHead
	listRecord    = kvtable.ListRecord
	// listSafetyBytes bounds a node of a list whose fill is a count, as
	// Redis bounds it.
	listSafetyBytes = 8192
)

// listNodeEntry is what a node's table entry takes besides its elements
// (header, key and value length), so that an 8 KB node fits the arena's
// biggest item class.
const listNodeEntry = 8

// nodeLimits returns the most elements and bytes a node may hold for a
// list-max-listpack-size of fill: a count when positive, a size class of
// 4 KB to 64 KB when negative.
func nodeLimits(fill int64) (count, size int) {
	if fill >= 0 {
		return int(min(max(fill, 1), math.MaxInt32)), listSafetyBytes - listNodeEntry
	}
	return math.MaxInt32, 4096<<(min(-fill, 5)-1) - listNodeEntry
}

// nodeFits reports whether a node of cnt elements in n bytes may take one
// more of elen bytes (a lone element always fits).
func nodeFits(cnt, n, elen int, limCount, limSize int) bool {
	return cnt == 0 || (cnt+1 <= limCount && n+elen <= limSize)
}

// qlist is a big list's table and the shard's list scratch.
type qlist struct {
	t *Table
	s *listScratch
}

// listScratch is a shard's: kb is where the keys of the nodes a list
// writes are built, since a key given to a write escapes. tailOffs holds
// the offsets of the elements of node tailID of list tailT, head first,
// then the end of its body, so that pops from that node's tail, one at a
// time, find each last element without walking the node from its head (a
// node has no back links). Every write to a node builds its key in kb, and
// a pop at its head widens its gap: both forget the offsets of that node;
// a tail pop cuts them to what stays, a tail push adds its element's.
type listScratch struct {
	kb       [4]byte
	tailT    *Table
	tailID   uint32
	tailOffs []uint32
}

// list returns big list t for writing.
func (c *Ctx) list(t *Table) qlist { return qlist{t, &c.Shard.lists} }

func nodeKey(id uint32) [4]byte {
	var k [4]byte
	binary.LittleEndian.PutUint32(k[:], id)
	return k
}

// wkey returns the key of node id for a write.
func (q qlist) wkey(id uint32) []byte {
	q.forget(id)
	binary.LittleEndian.PutUint32(q.s.kb[:], id)
	return q.s.kb[:]
}

// forget drops the offsets kept for node id, which a change to it makes
// stale.
func (q qlist) forget(id uint32) {
	if q.s.tailID == id && q.s.tailT == q.t {
		q.s.tailT = nil
	}
}

// pushHead puts b, one encoded element, before the first element of the
// head node: into the node's gap when that is wide enough, else widening
// the gap first, by as much as the node then holds (so that a node built
// by pushes at its head moves each byte a bounded number of times), within
// the node's limits. ok is false, changing nothing, when the node has no
// room for b.
func (q qlist) pushHead(b []byte, limCount, limSize int) (ok bool, err error) {
	ix := q.view()
	id, cnt := ix.rec(0)
	gap, total := ix.gap(0), ix.total()
	if gap >= len(b) {
		if _, err := q.t.WriteAt(q.wkey(id), gap-len(b), b); err != nil {
			return false, err
		}
		q.setRec(0, cnt+1, gap-len(b), total+1)
		return true, nil
	}
	k := nodeKey(id)
	v, _ := q.t.RawString(k[:])
	room := limSize - len(v) - len(b)
	if room < 0 {
		return false, nil
	}
	wider := min(len(v)+len(b), room, (limCount-cnt-1)*len(b))
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	buf.B = slices.Grow(buf.B[:0], wider+len(b))[:wider]
	clear(buf.B)
	buf.B = append(buf.B, b...)
	if ok, err = q.t.Insert(q.wkey(id), gap, buf.B, limSize); ok && err == nil {
		q.setRec(0, cnt+1, gap+wider, total+1)
	}
	return ok, err
}

// tailOffsets returns the offsets of the cnt elements of node id, whose
// body is body, head first, then the body's end: the kept ones while they
// are of this node, else from one walk of it.
func (q qlist) tailOffsets(id uint32, body []byte, cnt int) []uint32 {
	if offs := q.keptTail(id, cnt); offs != nil {
		return offs
	}
	s := q.s
	offs := s.tailOffs[:0]
	for off := 0; off < len(body); {
		offs = append(offs, uint32(off))
		if l := body[off]; l < 0x80 { // the common one-byte length, inline
			off += 1 + int(l)
		} else {
			_, off = kvtable.ElemAt(body, off)
		}
	}
	offs = append(offs, uint32(len(body)))
	s.tailT, s.tailID, s.tailOffs = q.t, id, offs
	return offs
}

// keptTail returns the offsets kept for node id when they are its cnt
// elements', else nil.
func (q qlist) keptTail(id uint32, cnt int) []uint32 {
	if s := q.s; s.tailT == q.t && s.tailID == id && len(s.tailOffs) == cnt+1 {
		return s.tailOffs
	}
	return nil
}

// keepTail records that node id of q now holds the first cnt elements of
// offs, which ends with their end.
func (q qlist) keepTail(id uint32, offs []uint32, cnt int) {
	q.s.tailT, q.s.tailID, q.s.tailOffs = q.t, id, offs[:cnt+1]
}

func (q qlist) index() []byte { return q.t.List }

// ixView reads an index; it is valid until the index is spliced.
type ixView []byte

func (q qlist) view() ixView { return ixView(q.t.List) }

func (ix ixView) total() int { return int(binary.LittleEndian.Uint64(ix)) }

func (ix ixView) nodes() int { return (len(ix) - listIndexHead) / listRecord }

// rec returns the id and element count of node i.
func (ix ixView) rec(i int) (id uint32, cnt int) {
	r := ix[listIndexHead+i*listRecord:]
	return binary.LittleEndian.Uint32(r), int(binary.LittleEndian.Uint32(r[4:]))
}

// gap returns how many bytes of node i come before its first element.
func (ix ixView) gap(i int) int {
	return int(binary.LittleEndian.Uint32(ix[listIndexHead+i*listRecord+8:]))
}

func (q qlist) total() int { return q.view().total() }

func (q qlist) nodes() int { return q.view().nodes() }

func (q qlist) rec(i int) (id uint32, cnt int) { return q.view().rec(i) }

// body returns the elements of node i.
func (q qlist) body(i int) []byte {
	ix := q.view()
	id, _ := ix.rec(i)
	k := nodeKey(id)
	v, _ := q.t.RawString(k[:])
	return v[ix.gap(i):]
}

func (q qlist) setNode(id uint32, body []byte) error {
	return q.t.SetVerbatim(q.wkey(id), body, 0, false)
}

func (q qlist) dropNode(id uint32) { q.t.Delete(q.wkey(id)) }

// setRec sets the count of node i to cnt, its gap to gap and the total to
// total.
func (q qlist) setRec(i int, cnt, gap, total int) {
	ix := q.t.List
	binary.LittleEndian.PutUint64(ix, uint64(total))
	r := ix[listIndexHead+i*listRecord:]
	binary.LittleEndian.PutUint32(r[4:], uint32(cnt))
	binary.LittleEndian.PutUint32(r[8:], uint32(gap))
}

// newID returns an id no node has.
func (q qlist) newID() uint32 {
	id := binary.LittleEndian.Uint32(q.t.List[8:])
	for {
		k := nodeKey(id)
		if !q.t.Exists(k[:]) {
			return id
		}
		id++
	}
}

// splice replaces the records of nodes [from, to) with recs (appendRec's),
// moving the total by delta and the next id past next. An index that
// shrinks to a quarter of its capacity is copied into a smaller one, so
// that a list that shrank does not keep its peak.
func (q qlist) splice(from, to int, recs []byte, delta int, next uint32) {
	ix := q.t.List
	n := len(ix)
	at, end := listIndexHead+from*listRecord, listIndexHead+to*listRecord
	grow := len(recs) - (end - at)
	if grow > 0 {
		ix = append(ix, recs[:grow]...) // room; overwritten below
	}
	copy(ix[end+grow:], ix[end:n])
	copy(ix[at:], recs)
	ix = ix[:n+grow]
	if cap(ix) > 1024 && len(ix) < cap(ix)/4 {
		ix = append([]byte(nil), ix...)
	}
	binary.LittleEndian.PutUint64(ix, uint64(int(binary.LittleEndian.Uint64(ix))+delta))
	if next >= binary.LittleEndian.Uint32(ix[8:]) {
		binary.LittleEndian.PutUint32(ix[8:], next+1)
	}
	q.t.List = ix
}

// appendRec appends the index record of node id, holding cnt elements
// and no gap.
func appendRec(r []byte, id uint32, cnt int) []byte {
	r = binary.LittleEndian.AppendUint32(r, id)
	r = binary.LittleEndian.AppendUint32(r, uint32(cnt))
	return binary.LittleEndian.AppendUint32(r, 0)
}

// find returns the node holding element i (0 <= i < total) and i's place
// in it, reading the index from the nearer end.
func (q qlist) find(i int) (node, local int) {
	ix := q.index()
	total := int(binary.LittleEndian.Uint64(ix))
	recs := ix[listIndexHead:]
	n := len(recs) / listRecord
	count := func(k int) int { return int(binary.LittleEndian.Uint32(recs[k*listRecord+4:])) }
	if i < total/2 {
		for k := 0; k < n; k++ {
			if cnt := count(k); i < cnt {
				return k, i
			} else {
				i -= cnt
			}
		}
		return n - 1, 0
	}
	j := total - 1 - i // from the tail
	for k := n - 1; k >= 0; k-- {
		if cnt := count(k); j < cnt {
			return k, cnt - 1 - j
		} else {
			j -= cnt
		}
	}
	return 0, 0
}

// skipElems returns the offset of element k of a node's body.
func skipElems(body []byte, k int) int {
	off := 0
	for ; k > 0; k-- {
		if l := body[off]; l < 0x80 { // the common one-byte length, inline
			off += 1 + int(l)
		} else {
			_, off = kvtable.ElemAt(body, off)
		}
	}
	return off
}

// chunk cuts the body of cnt elements into nodes within the limits and
// calls fn with each part and its count, head first. It stops at the
// first error fn returns.
func chunk(body []byte, limCount, limSize int, fn func(part []byte, cnt int) error) error {
	start, cnt := 0, 0
	for off := 0; off < len(body); {
		_, next := kvtable.ElemAt(body, off)
		if !nodeFits(cnt, off-start, next-off, limCount, limSize) {
			if err := fn(body[start:off], cnt); err != nil {
				return err
			}
			start, cnt = off, 0
		}
		cnt++
		off = next
	}
	if cnt > 0 {
		return fn(body[start:], cnt)
	}
	return nil
}

// replaceNode stores body, cnt elements, as node i of q, cut into several
// nodes when it passes the limits, or drops the node when cnt is 0. The
// total moves by delta.
func (q qlist) replaceNode(i int, body []byte, cnt, delta int, limCount, limSize int) error {
	id, _ := q.rec(i)
	if cnt == 0 {
		q.dropNode(id)
		q.splice(i, i+1, nil, delta, 0)
		return nil
	}
	if cnt <= limCount && len(body) <= limSize {
		if err := q.setNode(id, body); err != nil {
			return err
		}
		q.setRec(i, cnt, 0, q.total()+delta)
		return nil
	}
	recs := bytebufferpool.Get()
	defer bytebufferpool.Put(recs)
	r := recs.B[:0]
	next, first := q.newID(), true
	var made []uint32
	err := chunk(body, limCount, limSize, func(part []byte, n int) error {
		pid := id
		if !first {
			pid = next
			k := nodeKey(pid)
			for q.t.Exists(k[:]) {
				pid++
				k = nodeKey(pid)
			}
			next = pid + 1
		}
		first = false
		if err := q.setNode(pid, part); err != nil {
			return err
		}
		if pid != id {
			made = append(made, pid)
		}
		r = appendRec(r, pid, n)
		return nil
	})
	if err == nil {
		q.splice(i, i+1, r, delta, next)
	}
	recs.B = r
	if err != nil {
		for _, m := range made {
			q.dropNode(m)
		}
	}
	return err
}

// bigList returns a big list of the elements of body (a packed list's body),
// or nil when the table has no room.
func (c *Ctx) bigList(body []byte) *Table {
	t := c.newBig()
	q := c.list(t)
	t.List = make([]byte, listIndexHead)
	limCount, limSize := nodeLimits(c.Shard.Enc.ListMaxListpack.Load())
	recs := bytebufferpool.Get()
	defer bytebufferpool.Put(recs)
	r := recs.B[:0]
	id, total := uint32(0), 0
	err := chunk(body, limCount, limSize, func(part []byte, n int) error {
		if err := q.setNode(id, part); err != nil {
			return err
		}
		r = appendRec(r, id, n)
		id++
		total += n
		return nil
	})
	recs.B = r
	if err != nil {
		t.Clear()
		return nil
	}
	q.splice(0, 0, r, total, id)
	return t
}
