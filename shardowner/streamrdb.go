package shardowner

import (
	"bytes"
	"encoding/binary"
	"slices"

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
	dst = rdbfile.AppendLen(dst, s.groups())
	s.eachGroup(func(g cgroup, name []byte) bool {
		dst = str(dst, name)
		last := g.lastID()
		dst = rdbfile.AppendLen64(rdbfile.AppendLen64(dst, last.Ms), last.Seq)
		dst = rdbfile.AppendLen64(dst, uint64(g.entriesRead()))
		gp := g.pel()
		dst = rdbfile.AppendLen(dst, gp.Len())
		gp.Each(streamnode.MinID, func(r []byte) bool {
			at, n, _ := nackOf(r)
			dst = append(dst, r[:16]...)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(at))
			dst = rdbfile.AppendLen64(dst, n)
			return true
		})
		dst = rdbfile.AppendLen(dst, g.consumers())
		g.eachConsumer(func(cid uint32, cname []byte) bool {
			dst = str(dst, cname)
			dst = binary.LittleEndian.AppendUint64(dst, uint64(g.seen(cid)))
			cp := g.cpel(cid)
			dst = rdbfile.AppendLen(dst, cp.Len())
			cp.Each(streamnode.MinID, func(r []byte) bool {
				dst = append(dst, r[:16]...)
				return true
			})
			return true
		})
		return true
	})
	return dst
}

// rdbGroup is a consumer group read from a file, until stored.
type rdbGroup struct {
	name      []byte
	last      streamID
	read      int64
	readKnown bool // false for RDB type 15, which lacks it
	pel       [][nackSize]byte
	consumers []rdbConsumer
}

type rdbConsumer struct {
	name []byte
	seen int64
	ids  []streamID
}

// readGroups reads a stream's consumer groups into o.groups, checking what
// Redis's loader checks: names unique, pending entries unique, each owned
// by exactly one consumer.
func (o *rdbObject) readGroups(r *rdbfile.Reader, v2 bool) bool {
	n, ok := r.Count(1)
	if !ok {
		return false
	}
	names := map[string]bool{}
	for range n {
		var g rdbGroup
		name, ok := r.String()
		if !ok || names[string(name)] {
			return false
		}
		names[string(name)] = true
		g.name = append([]byte(nil), name...)
		ms, enc, ok1 := r.Len()
		seq, enc2, ok2 := r.Len()
		if !ok1 || !ok2 || enc || enc2 {
			return false
		}
		g.last = streamID{Ms: ms, Seq: seq}
		if v2 {
			read, enc, ok := r.Len()
			if !ok || enc {
				return false
			}
			g.read, g.readKnown = int64(read), true
		}
		pending, ok := r.Count(16 + 8 + 1)
		if !ok {
			return false
		}
		owner := map[streamID]int{} // pending entry: its place in g.pel, then -1 once owned
		for range pending {
			raw, ok := r.Take(16)
			if !ok {
				return false
			}
			at, ok := r.Take(8)
			if !ok {
				return false
			}
			count, enc, ok := r.Len()
			if !ok || enc {
				return false
			}
			id := decodeID(raw)
			if _, dup := owner[id]; dup {
				return false
			}
			owner[id] = len(g.pel)
			g.pel = append(g.pel, nack(id, int64(binary.LittleEndian.Uint64(at)), count, 0))
		}
		consumers, ok := r.Count(1 + 8 + 1)
		if !ok {
			return false
		}
		cnames := map[string]bool{}
		for ci := range consumers {
			name, ok := r.String()
			if !ok || cnames[string(name)] {
				return false
			}
			cnames[string(name)] = true
			cs := rdbConsumer{name: append([]byte(nil), name...)}
			seen, ok := r.Take(8)
			if !ok {
				return false
			}
			cs.seen = int64(binary.LittleEndian.Uint64(seen))
			ids, ok := r.Count(16)
			if !ok {
				return false
			}
			for range ids {
				raw, ok := r.Take(16)
				if !ok {
					return false
				}
				id := decodeID(raw)
				at, ok := owner[id]
				if !ok || at < 0 {
					return false // not pending in the group, or owned twice
				}
				binary.LittleEndian.PutUint32(g.pel[at][nackOwner:], uint32(ci))
				owner[id] = -1
				cs.ids = append(cs.ids, id)
			}
			g.consumers = append(g.consumers, cs)
		}
		for _, at := range owner {
			if at >= 0 {
				return false // a pending entry without a consumer
			}
		}
		o.groups = append(o.groups, g)
	}
	return true
}

// storeGroups builds o's consumer groups in stream s.
func (o *rdbObject) storeGroups(s strm) error {
	slices.SortFunc(o.groups, func(a, b rdbGroup) int { return bytes.Compare(a.name, b.name) })
	for _, rg := range o.groups {
		read := rg.read
		if !rg.readKnown {
			read = s.entriesBefore(rg.last)
		}
		g, _, err := s.createGroup(rg.name, rg.last, read)
		if err != nil {
			return err
		}
		cids := make([]uint32, len(rg.consumers))
		for i, cs := range rg.consumers {
			if cids[i], err = g.createConsumer(cs.name, cs.seen); err != nil {
				return err
			}
		}
		for _, r := range rg.pel {
			at, n, ci := nackOf(r[:])
			if err := g.own(decodeID(r[:]), at, n, cids[ci]); err != nil {
				return err
			}
		}
	}
	return nil
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
	if !o.readGroups(r, v2) {
		return false
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
	if err := o.storeGroups(s); err != nil {
		t.Clear()
		c.W.Err(errFull)
		return nil
	}
	return t
}
