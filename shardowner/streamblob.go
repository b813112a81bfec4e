package shardowner

import (
	"encoding/binary"

	"github.com/corekv/corekv/shardowner/kvtable"
)

// A stream's value blob (EncodeValue's, for a stream moved between the
// shards of this process: RENAME, COPY, a gathering plan) is its table as
// stored, so that moving it copies bytes rather than re-encoding every node
// as an RDB listpack and parsing it back:
//
//	uvarint len(index), its index (Table.List)
//	uvarint entries, then per entry of its table:
//	  uvarint len(key), key, uvarint len(value), value
//
// Every entry of a stream's table (nodes, groups, consumers, pending
// lists) is a verbatim string, so the pairs rebuild it whole.

// appendStreamBlob appends the blob body of stream v.
func appendStreamBlob(dst []byte, v Value) []byte {
	t := v.Big
	dst = binary.AppendUvarint(dst, uint64(len(t.List)))
	dst = append(dst, t.List...)
	dst = binary.AppendUvarint(dst, uint64(t.Len()))
	eachBig(t, func(k []byte, e Value) bool {
		dst = binary.AppendUvarint(dst, uint64(len(k)))
		dst = append(dst, k...)
		dst = binary.AppendUvarint(dst, uint64(len(e.Str)))
		dst = append(dst, e.Str...)
		return true
	})
	return dst
}

// streamFromBlob returns a stream's table rebuilt from b, a blob body of
// appendStreamBlob's, or nil: ok is false when b is malformed, and a full
// table answers errFull.
func (c *Ctx) streamFromBlob(b []byte) (t *Table, ok bool) {
	take := func() ([]byte, bool) {
		n, k := binary.Uvarint(b)
		if k <= 0 || n > uint64(len(b)-k) {
			return nil, false
		}
		s := b[k : k+int(n)]
		b = b[k+int(n):]
		return s, true
	}
	index, ok := take()
	if !ok || len(index) < kvtable.StreamHead {
		return nil, false
	}
	entries, k := binary.Uvarint(b)
	if k <= 0 || entries > uint64(len(b)) {
		return nil, false
	}
	b = b[k:]
	t = c.newStream()
	t.List = append(t.List[:0], index...)
	for range entries {
		key, ok1 := take()
		val, ok2 := take()
		if !ok1 || !ok2 {
			t.Clear()
			return nil, false
		}
		if err := t.SetVerbatim(key, val, 0, false); err != nil {
			t.Clear()
			c.W.Err(errFull)
			return nil, true
		}
	}
	if len(b) != 0 {
		t.Clear()
		return nil, false
	}
	return t, true
}
