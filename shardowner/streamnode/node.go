package streamnode

// A node is a run of stream entries in ID order, encoded in one []byte with
// no Go pointers inside, so it can be kept off the Go heap. Its first entry's
// ID is the node's master ID and its fields are the master fields; later
// entries store their ID as deltas from the master ID, and store only values
// when their fields are the master fields in the same order (SAMEFIELDS, as
// in Redis's listpack nodes). Deleting an entry only flags it, in place.
//
// Layout (uvarint: encoding/binary's; varint: zigzag, also encoding/binary's):
//
//	header
//	  [0:4]   live entries, uint32 little endian
//	  [4:8]   deleted entries, uint32 little endian
//	  [8:16]  master ID ms, uint64 little endian
//	  [16:24] master ID seq, uint64 little endian
//	  uvarint master field count, then per field: uvarint length, bytes
//	entries, one after another
//	  uvarint body length
//	  body
//	    flags, one byte: flagDeleted, flagSameFields
//	    uvarint ms - master ms (never negative: entries only grow)
//	    varint  seq - master seq, modulo 2^64 (small either way)
//	    without flagSameFields: uvarint field count, then per field:
//	      uvarint length, field bytes, uvarint length, value bytes
//	    with flagSameFields: per master field: uvarint length, value bytes
//	  back length: the uvarint of the entry's size up to here (length
//	    prefix and body) with its bytes reversed, so it reads from the
//	    entry's end backwards and iteration can run in both directions
//
// An empty []byte is an empty node. Functions other than Append expect
// nodes that Append wrote (and MarkDeleted edited); they may panic on
// other bytes.

import (
	"bytes"
	"encoding/binary"
	"math"
)

const (
	flagDeleted    = 1 << 0
	flagSameFields = 1 << 1

	offLive      = 0
	offDeleted   = 4
	offMasterMs  = 8
	offMasterSeq = 16
	headerFixed  = 24
)

// Append adds an entry to node, starting the node when it is empty, and
// returns the grown node; it allocates only when node lacks capacity.
// It panics when id is not above the node's last ID, when fields and values
// differ in length, or when the node holds math.MaxUint32 entries: all are
// caller bugs that would leave a node its readers misread.
func Append(node []byte, id ID, fields, values [][]byte) []byte {
	if len(fields) != len(values) {
		panic("streamnode: fields and values differ in length")
	}
	if len(node) == 0 {
		node = appendHeader(node, id, fields)
	} else {
		if last, _ := LastID(node); id.Compare(last) <= 0 {
			panic("streamnode: entry ID not above the node's last ID")
		}
		if live, deleted := Count(node); live+deleted == math.MaxUint32 {
			panic("streamnode: node is full")
		}
	}
	node = EncodeEntry(node, node, id, fields, values)
	binary.LittleEndian.PutUint32(node[offLive:], binary.LittleEndian.Uint32(node[offLive:])+1)
	return node
}

// Count returns how many of node's entries are live and how many deleted.
func Count(node []byte) (live, deleted int) {
	if len(node) == 0 {
		return 0, 0
	}
	return int(binary.LittleEndian.Uint32(node[offLive:])), int(binary.LittleEndian.Uint32(node[offDeleted:]))
}

// FirstID returns the ID of node's first entry, deleted or not; ok is false
// for an empty node.
func FirstID(node []byte) (id ID, ok bool) {
	if len(node) == 0 {
		return ID{}, false
	}
	return masterID(node), true
}

// LastID returns the ID of node's last entry, deleted or not; ok is false
// for an empty node.
func LastID(node []byte) (id ID, ok bool) {
	if len(node) == 0 {
		return ID{}, false
	}
	size, backStart := readBackLen(node, len(node))
	id, _, _, _ = entryHead(node, masterID(node), backStart-int(size))
	return id, true
}

// MarkDeleted flags the entry with ID id as deleted and updates the counts.
// It reports false when node has no live entry with that ID.
func MarkDeleted(node []byte, id ID) bool {
	if len(node) == 0 {
		return false
	}
	master := masterID(node)
	for p := firstEntry(node); p < len(node); {
		entryID, flagsAt, _, end := entryHead(node, master, p)
		if node[flagsAt]&flagDeleted != 0 {
			// Passed over before comparing, as Redis's iterator does: an
			// XSETID below a deleted entry lets later ones sort before it.
			p = end
			continue
		}
		switch c := entryID.Compare(id); {
		case c > 0:
			return false // live entries are in ID order: id is not here
		case c == 0:
			node[flagsAt] |= flagDeleted
			binary.LittleEndian.PutUint32(node[offLive:], binary.LittleEndian.Uint32(node[offLive:])-1)
			binary.LittleEndian.PutUint32(node[offDeleted:], binary.LittleEndian.Uint32(node[offDeleted:])+1)
			return true
		}
		p = end
	}
	return false
}

// Iter yields a node's entries, deleted ones included, from both ends: Next
// takes them from the front, Prev from the back, until the two meet, so
// each entry comes out once.
type Iter struct {
	node        []byte
	master      ID
	masterCount int // number of master fields
	masterFirst int // offset of the first master field
	front, back int // offsets of the first entry not yet taken, and one past the last
}

// NewIter returns an iterator over all of node's entries.
func NewIter(node []byte) Iter {
	if len(node) == 0 {
		return Iter{}
	}
	count, n := binary.Uvarint(node[headerFixed:])
	return Iter{
		node:        node,
		master:      masterID(node),
		masterCount: int(count),
		masterFirst: headerFixed + n,
		front:       firstEntry(node),
		back:        len(node),
	}
}

// Next returns the frontmost entry not yet taken; ok is false when none is
// left.
func (it *Iter) Next() (e Entry, ok bool) {
	if it.front >= it.back {
		return Entry{}, false
	}
	e, end := it.entryAt(it.front)
	it.front = end
	return e, true
}

// Prev returns the backmost entry not yet taken; ok is false when none is
// left.
func (it *Iter) Prev() (e Entry, ok bool) {
	if it.front >= it.back {
		return Entry{}, false
	}
	size, backStart := readBackLen(it.node, it.back)
	start := backStart - int(size)
	e, _ = it.entryAt(start)
	it.back = start
	return e, true
}

func (it *Iter) entryAt(p int) (e Entry, end int) {
	id, flagsAt, data, end := entryHead(it.node, it.master, p)
	flags := it.node[flagsAt]
	e = Entry{ID: id, Deleted: flags&flagDeleted != 0}
	e.pairs.node = it.node
	if flags&flagSameFields != 0 {
		e.pairs.left = it.masterCount
		e.pairs.field = it.masterFirst
		e.pairs.value = data
		e.pairs.sameFields = true
	} else {
		count, n := binary.Uvarint(it.node[data:])
		e.pairs.left = int(count)
		e.pairs.value = data + n
	}
	return e, end
}

// Entry is one entry as Iter yields it.
type Entry struct {
	ID      ID
	Deleted bool
	pairs   Pairs
}

// Len returns the entry's number of field/value pairs.
func (e *Entry) Len() int { return e.pairs.left }

// Pairs returns a cursor over the entry's field/value pairs.
func (e *Entry) Pairs() Pairs { return e.pairs }

// Pairs walks an entry's field/value pairs in order.
type Pairs struct {
	node []byte
	// field is the offset of the next master field when sameFields is set;
	// otherwise fields sit inline before their values and field is unused.
	field, value int
	left         int
	sameFields   bool
}

// Next returns the next field and value as sub-slices of the node, capped so
// that appending to them copies instead of writing into the node; ok is
// false when no pair is left.
func (p *Pairs) Next() (field, value []byte, ok bool) {
	if p.left == 0 {
		return nil, nil, false
	}
	p.left--
	if p.sameFields {
		field, p.field = readBytes(p.node, p.field)
	} else {
		field, p.value = readBytes(p.node, p.value)
	}
	value, p.value = readBytes(p.node, p.value)
	return field, value, true
}

func appendHeader(node []byte, master ID, fields [][]byte) []byte {
	node = binary.LittleEndian.AppendUint32(node, 0)
	node = binary.LittleEndian.AppendUint32(node, 0)
	node = binary.LittleEndian.AppendUint64(node, master.Ms)
	node = binary.LittleEndian.AppendUint64(node, master.Seq)
	node = binary.AppendUvarint(node, uint64(len(fields)))
	for _, f := range fields {
		node = appendBytes(node, f)
	}
	return node
}

func masterID(node []byte) ID {
	return ID{
		Ms:  binary.LittleEndian.Uint64(node[offMasterMs:]),
		Seq: binary.LittleEndian.Uint64(node[offMasterSeq:]),
	}
}

// hasMasterFields reports whether fields are node's master fields, in order.
func hasMasterFields(node []byte, fields [][]byte) bool {
	count, p := binary.Uvarint(node[headerFixed:])
	if count != uint64(len(fields)) {
		return false
	}
	p += headerFixed
	for _, f := range fields {
		var master []byte
		master, p = readBytes(node, p)
		if !bytes.Equal(master, f) {
			return false
		}
	}
	return true
}

// firstEntry returns the offset of node's first entry, past the header.
func firstEntry(node []byte) int {
	count, p := binary.Uvarint(node[headerFixed:])
	p += headerFixed
	for range count {
		_, p = readBytes(node, p)
	}
	return p
}

// entryHead decodes the entry at p up to its ID, returning the offsets of
// its flags byte, of what follows the ID (field count or values) and of the
// end of the entry.
func entryHead(node []byte, master ID, p int) (id ID, flagsAt, data, end int) {
	bodyLen, n := binary.Uvarint(node[p:])
	flagsAt = p + n
	end = flagsAt + int(bodyLen)
	end += uvarintLen(uint64(end - p)) // the back length
	data = flagsAt + 1
	msDelta, n := binary.Uvarint(node[data:])
	data += n
	seqDelta, n := binary.Varint(node[data:])
	data += n
	return ID{master.Ms + msDelta, master.Seq + uint64(seqDelta)}, flagsAt, data, end
}

// appendBytes appends b with its uvarint length before it.
func appendBytes(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// readBytes reads what appendBytes wrote at p, capped to its own length.
func readBytes(node []byte, p int) (b []byte, next int) {
	n, k := binary.Uvarint(node[p:])
	start := p + k
	end := start + int(n)
	return node[start:end:end], end
}

func bytesLen(b []byte) int { return uvarintLen(uint64(len(b))) + len(b) }

// appendBackLen appends n's uvarint bytes in reverse order.
func appendBackLen(dst []byte, n uint64) []byte {
	var buf [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(buf[:], n)
	for i := k - 1; i >= 0; i-- {
		dst = append(dst, buf[i])
	}
	return dst
}

// readBackLen reads the back length that ends at end, returning its value
// and the offset where it starts.
func readBackLen(node []byte, end int) (n uint64, start int) {
	var shift uint
	for i := end - 1; ; i-- {
		c := node[i]
		n |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return n, i
		}
		shift += 7
	}
}

func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

func varintLen(x int64) int {
	return uvarintLen(uint64(x<<1) ^ uint64(x>>63)) // zigzag, as binary.AppendVarint
}
