package shardowner

import (
	"bytes"
	"encoding/binary"
	"math"

	"github.com/valyala/bytebufferpool"
)

// A pel is a sorted set of fixed-size records keyed by a stream ID, kept in
// the stream's table: a consumer group's pending entries list, or one
// consumer's. Records start with the entry's ID in 16 big-endian bytes, so
// that they order as bytes do, as the RDB file writes them. They are held
// in chunks of at most pelChunk records, each under its own key, with an
// index under another: the set's size, the next chunk number, then per
// chunk its first ID and number, in ID order. Adding or removing a record
// rewrites one chunk (bounded), and the index only when a chunk starts,
// splits, empties or changes its first ID.
type pel struct {
	t     *Table
	group uint32 // the group's number
	owner uint32 // the consumer's number, or pelGroup
	size  int    // bytes per record
}

const (
	pelGroup  = math.MaxUint32 // owner of a group's own list
	pelChunk  = 128
	pelIxHead = 12 // records (8), next chunk number (4)
	pelIxRec  = 20 // first ID (16), chunk number (4)
)

func (p pel) ixKey() [9]byte {
	k := [9]byte{'i'}
	binary.LittleEndian.PutUint32(k[1:], p.group)
	binary.LittleEndian.PutUint32(k[5:], p.owner)
	return k
}

func (p pel) chunkKey(n uint32) [13]byte {
	k := [13]byte{'p'}
	binary.LittleEndian.PutUint32(k[1:], p.group)
	binary.LittleEndian.PutUint32(k[5:], p.owner)
	binary.LittleEndian.PutUint32(k[9:], n)
	return k
}

// encodeID writes id as a record's 16-byte key.
func encodeID(b []byte, id streamID) {
	binary.BigEndian.PutUint64(b, id.Ms)
	binary.BigEndian.PutUint64(b[8:], id.Seq)
}

// decodeID reads a record's key.
func decodeID(b []byte) streamID {
	return streamID{Ms: binary.BigEndian.Uint64(b), Seq: binary.BigEndian.Uint64(b[8:])}
}

// index returns the set's index, nil when the set is empty.
func (p pel) index() []byte {
	k := p.ixKey()
	ix, _ := p.t.RawString(k[:])
	return ix
}

// Len returns the number of records.
func (p pel) Len() int {
	ix := p.index()
	if ix == nil {
		return 0
	}
	return int(binary.LittleEndian.Uint64(ix))
}

// chunkOf returns the position in ix of the last chunk whose first ID is at
// most key, 0 when none is.
func chunkOf(ix, key []byte) int {
	n := (len(ix) - pelIxHead) / pelIxRec
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		o := pelIxHead + m*pelIxRec
		if bytes.Compare(ix[o:o+16], key) <= 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return max(lo-1, 0)
}

// chunk returns chunk i of index ix and its number.
func (p pel) chunk(ix []byte, i int) ([]byte, uint32) {
	n := binary.LittleEndian.Uint32(ix[pelIxHead+i*pelIxRec+16:])
	k := p.chunkKey(n)
	b, _ := p.t.RawString(k[:])
	return b, n
}

// posIn returns where key is, or would go, in chunk b, and whether it is
// there.
func (p pel) posIn(b, key []byte) (int, bool) {
	lo, hi := 0, len(b)/p.size
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch c := bytes.Compare(b[m*p.size:m*p.size+16], key); {
		case c == 0:
			return m, true
		case c < 0:
			lo = m + 1
		default:
			hi = m
		}
	}
	return lo, false
}

// Get returns the record of id, valid until the table changes.
func (p pel) Get(id streamID) ([]byte, bool) {
	var key [16]byte
	encodeID(key[:], id)
	ix := p.index()
	if ix == nil {
		return nil, false
	}
	b, _ := p.chunk(ix, chunkOf(ix, key[:]))
	at, ok := p.posIn(b, key[:])
	if !ok {
		return nil, false
	}
	return b[at*p.size : (at+1)*p.size], true
}

// Update writes data at off into the record of id, which is there.
func (p pel) Update(id streamID, off int, data []byte) error {
	var key [16]byte
	encodeID(key[:], id)
	ix := p.index()
	b, n := p.chunk(ix, chunkOf(ix, key[:]))
	at, _ := p.posIn(b, key[:])
	k := p.chunkKey(n)
	_, err := p.t.WriteAt(k[:], at*p.size+off, data)
	return err
}

// Put inserts rec, or replaces the record with its ID, reporting whether
// it was new.
func (p pel) Put(rec []byte) (bool, error) {
	key := rec[:16]
	ixk := p.ixKey()
	ix := p.index()
	if ix == nil {
		var head [pelIxHead + pelIxRec]byte
		binary.LittleEndian.PutUint64(head[:], 1)
		binary.LittleEndian.PutUint32(head[8:], 1)
		copy(head[pelIxHead:], key)
		ck := p.chunkKey(0)
		if err := p.t.SetVerbatim(ck[:], rec, 0, false); err != nil {
			return false, err
		}
		if err := p.t.SetVerbatim(ixk[:], head[:], 0, false); err != nil {
			p.t.Delete(ck[:])
			return false, err
		}
		return true, nil
	}
	i := chunkOf(ix, key)
	b, n := p.chunk(ix, i)
	ck := p.chunkKey(n)
	at, found := p.posIn(b, key)
	if found {
		_, err := p.t.WriteAt(ck[:], at*p.size, rec)
		return false, err
	}
	first := at == 0 // rec becomes chunk i's first record
	if len(b)/p.size < pelChunk {
		if ok, err := p.t.Insert(ck[:], at*p.size, rec, math.MaxInt); !ok || err != nil {
			return false, errOr(err)
		}
	} else {
		// Split: the upper half moves to a new chunk, then rec goes in
		// whichever half holds its place.
		buf := bytebufferpool.Get()
		defer bytebufferpool.Put(buf)
		buf.B = append(buf.B[:0], b[:at*p.size]...)
		buf.B = append(buf.B, rec...)
		buf.B = append(buf.B, b[at*p.size:]...)
		half := (len(buf.B) / p.size / 2) * p.size
		nn := binary.LittleEndian.Uint32(ix[8:])
		nk := p.chunkKey(nn)
		if err := p.t.SetVerbatim(nk[:], buf.B[half:], 0, false); err != nil {
			return false, err
		}
		if err := p.t.SetVerbatim(ck[:], buf.B[:half], 0, false); err != nil {
			p.t.Delete(nk[:])
			return false, err
		}
		var r [pelIxRec]byte
		copy(r[:], buf.B[half:half+16])
		binary.LittleEndian.PutUint32(r[16:], nn)
		o := pelIxHead + (i+1)*pelIxRec
		if ok, err := p.t.Insert(ixk[:], o, r[:], math.MaxInt); !ok || err != nil {
			return false, errOr(err)
		}
		var nb [4]byte
		binary.LittleEndian.PutUint32(nb[:], nn+1)
		if _, err := p.t.WriteAt(ixk[:], 8, nb[:]); err != nil {
			return false, err
		}
	}
	if first {
		if _, err := p.t.WriteAt(ixk[:], pelIxHead+i*pelIxRec, key); err != nil {
			return false, err
		}
	}
	return true, p.addLen(1)
}

// addLen adds d to the set's size.
func (p pel) addLen(d int) error {
	ixk := p.ixKey()
	ix := p.index()
	var nb [8]byte
	binary.LittleEndian.PutUint64(nb[:], uint64(int(binary.LittleEndian.Uint64(ix))+d))
	_, err := p.t.WriteAt(ixk[:], 0, nb[:])
	return err
}

// Delete removes the record of id, reporting whether there was one.
func (p pel) Delete(id streamID) bool {
	var key [16]byte
	encodeID(key[:], id)
	ix := p.index()
	if ix == nil {
		return false
	}
	i := chunkOf(ix, key[:])
	b, n := p.chunk(ix, i)
	at, found := p.posIn(b, key[:])
	if !found {
		return false
	}
	ixk, ck := p.ixKey(), p.chunkKey(n)
	if int(binary.LittleEndian.Uint64(ix)) == 1 {
		p.t.Delete(ck[:])
		p.t.Delete(ixk[:])
		return true
	}
	if len(b) == p.size {
		p.t.Delete(ck[:])
		p.t.Splice(ixk[:], pelIxHead+i*pelIxRec, pelIxRec, nil)
	} else {
		p.t.Splice(ck[:], at*p.size, p.size, nil)
		if at == 0 {
			b, _ = p.t.RawString(ck[:])
			p.t.WriteAt(ixk[:], pelIxHead+i*pelIxRec, b[:16]) // in place: never fails
		}
	}
	p.addLen(-1) // in place
	return true
}

// Each calls fn on the records with IDs from from on, in ID order, until
// fn returns false. fn must not write to the table.
func (p pel) Each(from streamID, fn func(rec []byte) bool) {
	ix := p.index()
	if ix == nil {
		return
	}
	var key [16]byte
	encodeID(key[:], from)
	n := (len(ix) - pelIxHead) / pelIxRec
	for i := chunkOf(ix, key[:]); i < n; i++ {
		b, _ := p.chunk(ix, i)
		at, _ := p.posIn(b, key[:])
		for ; at < len(b)/p.size; at++ {
			if !fn(b[at*p.size : (at+1)*p.size]) {
				return
			}
		}
		key = [16]byte{}
	}
}

// Last returns the last record.
func (p pel) Last() ([]byte, bool) {
	ix := p.index()
	if ix == nil {
		return nil, false
	}
	b, _ := p.chunk(ix, (len(ix)-pelIxHead)/pelIxRec-1)
	return b[len(b)-p.size:], true
}

// Clear removes every record.
func (p pel) Clear() {
	ix := p.index()
	if ix == nil {
		return
	}
	n := (len(ix) - pelIxHead) / pelIxRec
	for i := n - 1; i >= 0; i-- {
		ck := p.chunkKey(binary.LittleEndian.Uint32(p.index()[pelIxHead+i*pelIxRec+16:]))
		p.t.Delete(ck[:])
	}
	ixk := p.ixKey()
	p.t.Delete(ixk[:])
}
