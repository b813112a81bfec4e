package shardowner

import (
	"encoding/binary"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/shardowner/kvtable"
	"github.com/corekv/corekv/shardowner/rdbfile"
	"github.com/corekv/corekv/shardowner/streamnode"
)

// A stream in an RDB file or a DUMP payload takes Redis 7.0's form (type
// 19, RDB_TYPE_STREAM_LISTPACKS_2): its nodes, each as its master ID (16
// bytes, big endian) and a Redis listpack; its length, last ID, first ID,
// largest deleted ID and entries added; then its consumer groups. corekv
// writes what Redis 7.0 writes and reads that and the older type 15,
// which lacks the IDs and count of 7.0.
//
// Read, a stream is held in an rdbObject until stored: out holds the
// stream's index header (kvtable.StreamHead bytes, as the table keeps it)
// and then each node as a uvarint length, its bytes (streamnode's format)
// and the uvarint of its listpack size less its counts.

// appendStreamBody appends the RDB body of stream v, its strings written
// by str.
func appendStreamBody(dst []byte, v Value, str func(dst, s []byte) []byte) []byte {
	s := strm{t: v.Big}
	n := s.nodes()
	dst = rdbfile.AppendLen(dst, n)
	lp := bytebufferpool.Get()
	defer bytebufferpool.Put(lp)
	for i := range n {
		node := s.node(i)
		first, _ := streamnode.FirstID(node)
		k := streamnode.MasterKey(first)
		dst = rdbfile.AppendRawString(dst, k[:])
		lp.B = streamnode.AppendListpack(lp.B[:0], node)
		dst = str(dst, lp.B)
	}
	last, maxDel := s.lastID(), s.maxDeleted()
	first := s.firstLive()
	for _, x := range []uint64{uint64(s.length()), last.Ms, last.Seq, first.Ms, first.Seq, maxDel.Ms, maxDel.Seq, s.added()} {
		dst = rdbfile.AppendLen64(dst, x)
	}
	return rdbfile.AppendLen(dst, 0) // no consumer groups
}

// readStream reads a stream of RDB type 15 or 19 (v2) into o.
func (o *rdbObject) readStream(r *rdbfile.Reader, v2 bool) bool {
	o.kind = KindStream
	var head [kvtable.StreamHead]byte
	o.out.B = append(o.out.B[:0], head[:]...)
	nodes, ok := r.Count(2)
	if !ok {
		return false
	}
	total := 0
	var prev streamnode.ID
	for i := range nodes {
		k, ok := r.String()
		if !ok || len(k) != 16 {
			return false
		}
		var key [16]byte
		copy(key[:], k)
		lp, ok := r.String()
		if !ok {
			return false
		}
		at := len(o.out.B)
		o.out.B = append(o.out.B, make([]byte, binary.MaxVarintLen64)...)
		node, err := streamnode.FromListpack(o.out.B, key[:], lp)
		if err != nil {
			return false
		}
		live, deleted := streamnode.Count(node[at+binary.MaxVarintLen64:])
		first, _ := streamnode.FirstID(node[at+binary.MaxVarintLen64:])
		if i > 0 && first.Compare(prev) <= 0 {
			return false // nodes are in ID order, their keys unique
		}
		prev = first
		total += live
		body := len(node) - at - binary.MaxVarintLen64
		var lb [binary.MaxVarintLen64]byte
		ln := binary.PutUvarint(lb[:], uint64(body))
		copy(node[at:], lb[:ln])
		o.out.B = append(node[:at+ln], node[at+binary.MaxVarintLen64:]...)
		o.out.B = binary.AppendUvarint(o.out.B, uint64(len(lp)-streamnode.LPCountBytes(live, deleted)))
	}
	n := 3
	if v2 {
		n = 8
	}
	var meta [8]uint64
	for i := range n {
		x, enc, ok := r.Len()
		if !ok || enc {
			return false
		}
		meta[i] = x
	}
	length, last := meta[0], streamnode.ID{Ms: meta[1], Seq: meta[2]}
	if length != uint64(total) {
		return false
	}
	added := length
	var maxDel streamnode.ID
	if v2 {
		maxDel, added = streamnode.ID{Ms: meta[5], Seq: meta[6]}, meta[7]
	}
	groups, ok := r.Count(1)
	if !ok || groups != 0 {
		return false // consumer groups are not held yet
	}
	h := o.out.B[:kvtable.StreamHead]
	binary.LittleEndian.PutUint64(h[kvtable.StreamLength:], length)
	putID(h[kvtable.StreamLast:], last)
	putID(h[kvtable.StreamMaxDeleted:], maxDel)
	binary.LittleEndian.PutUint64(h[kvtable.StreamAdded:], added)
	o.n = nodes
	return true
}

// streamTable returns a stream's table holding what o read, or nil, after
// answering errFull, when the table has no room.
func (o *rdbObject) streamTable(c *Ctx) *Table {
	t := c.newStream()
	copy(t.List[:kvtable.StreamFirstRec], o.out.B[:kvtable.StreamFirstRec])
	s := c.stream(t)
	b := o.out.B[kvtable.StreamHead:]
	for id := 0; len(b) > 0; id++ {
		n, k := binary.Uvarint(b)
		node := b[k : k+int(n)]
		lpBytes, k2 := binary.Uvarint(b[k+int(n):])
		b = b[k+int(n)+k2:]
		if err := t.SetVerbatim(s.key(id), node, 0, false); err != nil {
			t.Clear()
			c.W.Err(errFull)
			return nil
		}
		live, deleted := streamnode.Count(node)
		first, _ := streamnode.FirstID(node)
		var r [streamRec]byte
		putID(r[srFirst:], first)
		binary.LittleEndian.PutUint32(r[srNode:], uint32(id))
		binary.LittleEndian.PutUint32(r[srLive:], uint32(live))
		binary.LittleEndian.PutUint32(r[srDeleted:], uint32(deleted))
		binary.LittleEndian.PutUint32(r[srLPBytes:], uint32(lpBytes))
		t.List = append(t.List, r[:]...)
		binary.LittleEndian.PutUint32(t.List[shNextNode:], uint32(id+1))
	}
	return t
}

// streamFromBody returns a stream's table built from b, a stream's RDB
// body (a value blob's), or nil: ok is false when b is malformed, and a
// full table answers errFull.
func (c *Ctx) streamFromBody(b []byte) (t *Table, ok bool) {
	o, ok := readObjectOf(rdbfile.TypeStreamListpacks2, b)
	if !ok {
		return nil, false
	}
	defer o.release()
	return o.streamTable(c), true
}
