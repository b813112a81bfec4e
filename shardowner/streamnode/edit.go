package streamnode

import "encoding/binary"

// Edits for nodes kept where Append cannot grow them in place (a table's
// value): the caller appends the bytes EncodeEntry gives after the node and
// writes the new counts (CountBytes) over its first bytes, and so never
// copies the node to add an entry.

// CountsLen is how many bytes at a node's start hold its counts.
const CountsLen = offDeleted + 4

// CountBytes returns the counts of a node with live and deleted entries,
// as its first CountsLen bytes hold them.
func CountBytes(live, deleted int) [CountsLen]byte {
	var b [CountsLen]byte
	binary.LittleEndian.PutUint32(b[offLive:], uint32(live))
	binary.LittleEndian.PutUint32(b[offDeleted:], uint32(deleted))
	return b
}

// EncodeEntry appends to dst the bytes that Append adds after node's last
// entry for (id, fields, values): the entry alone, without the count update.
// node must not be empty, and id must be above its last ID; dst may be node
// itself (Append passes it).
func EncodeEntry(dst, node []byte, id ID, fields, values [][]byte) []byte {
	master := masterID(node)
	sameFields := hasMasterFields(node, fields)

	flags := byte(0)
	msDelta := id.Ms - master.Ms
	seqDelta := int64(id.Seq - master.Seq)
	bodyLen := 1 + uvarintLen(msDelta) + varintLen(seqDelta)
	if sameFields {
		flags |= flagSameFields
		for _, v := range values {
			bodyLen += bytesLen(v)
		}
	} else {
		bodyLen += uvarintLen(uint64(len(fields)))
		for i := range fields {
			bodyLen += bytesLen(fields[i]) + bytesLen(values[i])
		}
	}

	dst = binary.AppendUvarint(dst, uint64(bodyLen))
	dst = append(dst, flags)
	dst = binary.AppendUvarint(dst, msDelta)
	dst = binary.AppendVarint(dst, seqDelta)
	if sameFields {
		for _, v := range values {
			dst = appendBytes(dst, v)
		}
	} else {
		dst = binary.AppendUvarint(dst, uint64(len(fields)))
		for i := range fields {
			dst = appendBytes(dst, fields[i])
			dst = appendBytes(dst, values[i])
		}
	}
	return appendBackLen(dst, uint64(uvarintLen(uint64(bodyLen))+bodyLen))
}

// SameFields reports whether fields are node's master fields, in order: an
// entry added with them stores only its values.
func SameFields(node []byte, fields [][]byte) bool { return hasMasterFields(node, fields) }

// DeleteFront walks node's entries from the front while more, asked about
// each entry in order (its ID, and whether it is live), says to go on,
// flags the live ones it passes as deleted, and updates the counts; it
// returns how many it flagged. Deleted entries are asked about too, as
// Redis's trim looks at them: a deleted entry's ID may end a trim by ID.
func DeleteFront(node []byte, more func(id ID, live bool) bool) int {
	if len(node) == 0 {
		return 0
	}
	master := masterID(node)
	n := 0
	for p := firstEntry(node); p < len(node); {
		id, flagsAt, _, end := entryHead(node, master, p)
		live := node[flagsAt]&flagDeleted == 0
		if !more(id, live) {
			break
		}
		if live {
			node[flagsAt] |= flagDeleted
			n++
		}
		p = end
	}
	live, deleted := Count(node)
	c := CountBytes(live-n, deleted+n)
	copy(node, c[:])
	return n
}

// FirstLive returns the ID of node's first live entry; ok is false when
// none is.
func FirstLive(node []byte) (id ID, ok bool) {
	it := NewIter(node)
	for e, more := it.Next(); more; e, more = it.Next() {
		if !e.Deleted {
			return e.ID, true
		}
	}
	return ID{}, false
}

// LastLive returns the ID of node's last live entry; ok is false when none
// is.
func LastLive(node []byte) (id ID, ok bool) {
	it := NewIter(node)
	for e, more := it.Prev(); more; e, more = it.Prev() {
		if !e.Deleted {
			return e.ID, true
		}
	}
	return ID{}, false
}
