package kvtable

import (
	"encoding/binary"
	"fmt"
)

// A big list is a table of its own (package shardowner keeps it) holding a
// chain of nodes, as Redis's quicklist is a chain of listpacks:
//
//	key id     a node (4-byte id): gap bytes of no meaning, then its
//	           elements as in a packed list's body, with no count (the
//	           index has both)
//
// and its index in Table.List, one byte slice that a push or pop updates
// without a lookup: the total count (8 bytes), the next node id (4 bytes),
// then per node, head first, its id, its count and its gap (4 bytes each).
// The gap is room at a node's head: a push there writes into it and a pop
// there widens it, so neither moves the node's other elements.
//
// All integers are little-endian.
const (
	ListIndexHead = 12
	ListRecord    = 12
)

// ValidListNode reports whether body is a node of exactly cnt well-formed
// elements, which ElemAt can then walk.
func ValidListNode(body []byte, cnt int) bool {
	off := 0
	for ; cnt > 0; cnt-- {
		l, next, ok := readUvarint(body, off)
		if !ok || l > len(body)-next {
			return false
		}
		off = next + l
	}
	return off == len(body)
}

// checkList verifies the big list t: its index and nodes agree.
func checkList(t *Table) error {
	ix := t.List
	if len(ix) < ListIndexHead || (len(ix)-ListIndexHead)%ListRecord != 0 {
		return fmt.Errorf("list index missing or malformed")
	}
	recs := ix[ListIndexHead:]
	total := 0
	for i := 0; i < len(recs); i += ListRecord {
		id, cnt := recs[i:i+4], int(binary.LittleEndian.Uint32(recs[i+4:]))
		gap := int(binary.LittleEndian.Uint32(recs[i+8:]))
		v, ok := t.Get(id)
		if !ok || v.IsInt || cnt == 0 || gap > len(v.Str) || !ValidListNode(v.Str[gap:], cnt) {
			return fmt.Errorf("list node %x: missing, empty or not of %d elements after %d bytes", id, cnt, gap)
		}
		total += cnt
	}
	if total != int(binary.LittleEndian.Uint64(ix)) || t.Len() != len(recs)/ListRecord {
		return fmt.Errorf("list index counts %d elements in %d nodes, table has %d keys", total, len(recs)/ListRecord, t.Len())
	}
	return nil
}
