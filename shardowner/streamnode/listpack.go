package streamnode

// Redis 7.0 saves a stream, in RDB files and DUMP payloads, as its radix tree
// of nodes: per node a 16-byte key, the master ID as big-endian ms then seq,
// and the node itself as a listpack. AppendListpack and FromListpack convert
// between that listpack and our node.
//
// A listpack is a byte string:
//
//	[0:4]  total size in bytes, header and terminator included, uint32 LE
//	[4:6]  number of elements, uint16 LE; 65535 means "too many, count them"
//	elements, one after another
//	0xFF   terminator
//
// Each element is an encoding byte, sometimes more length bytes, the
// payload, and a back length: the element's size up to there, written in
// 7-bit groups from the most significant one, every group but the first
// with the top bit set, so a reader going right to left stops at the byte
// without it. The encoding byte is one of:
//
//	0xxxxxxx               integer 0..127, in the byte itself
//	10LLLLLL               string of 0..63 bytes
//	110xxxxx xxxxxxxx      13-bit signed integer, high bits first
//	1110LLLL LLLLLLLL      string of 0..4095 bytes, length high bits first
//	0xF0 + 4 bytes         string, 32-bit little endian length
//	0xF1, 0xF2, 0xF3, 0xF4 16-, 24-, 32-, 64-bit signed integer, little endian
//
// Redis stores a string that is a canonical decimal int64 (no sign but '-',
// no leading zero, as strconv.FormatInt writes it) as an integer in the
// smallest of these encodings that holds it; readers hand integers back as
// their decimal text.
//
// The elements of a stream node are its master entry, then its entries:
//
//	master entry: live count, deleted count, master field count, the master
//	  fields, 0
//	entry: flags (1 deleted, 2 same fields as the master), ms - master ms
//	  and seq - master seq (each modulo 2^64, as an int64), then either
//	  the field count and field, value, ... pairs, or with flag 2 only the
//	  values, and last the entry's number of elements before this one (its
//	  "lp-count": 3 + values, or 4 + fields and values), so readers can
//	  walk back; the master entry's final 0 tells them where entries start
//
// Deleted entries stay in place with flag 1 and count as deleted. Redis
// never removes an entry from a node, so the first entry's ID is the master
// ID, as in our nodes. Live entries are in ID order, but a deleted entry
// may be above later ones: XSETID may set the last ID back below deleted
// entries, and the next XADD appends to the same node, below the master ID
// even, when no live entry is left before it.

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
)

const (
	lpHeaderSize   = 6
	lpEnd          = 0xFF
	lpCountUnknown = math.MaxUint16
)

// ErrListpack is what every error of FromListpack matches, with errors.Is.
var ErrListpack = errors.New("streamnode: invalid stream listpack")

type listpackError string

func (e listpackError) Error() string        { return ErrListpack.Error() + ": " + string(e) }
func (e listpackError) Is(target error) bool { return target == ErrListpack }

// MasterKey returns id as the key Redis files a node under: ms then seq,
// each 8 bytes big endian, so that keys sort as IDs do.
func MasterKey(id ID) [16]byte {
	var k [16]byte
	binary.BigEndian.PutUint64(k[:8], id.Ms)
	binary.BigEndian.PutUint64(k[8:], id.Seq)
	return k
}

// ParseMasterKey reads a key MasterKey wrote; ok is false unless key is 16
// bytes.
func ParseMasterKey(key []byte) (id ID, ok bool) {
	if len(key) != 16 {
		return ID{}, false
	}
	return ID{binary.BigEndian.Uint64(key[:8]), binary.BigEndian.Uint64(key[8:])}, true
}

// AppendListpack appends node, in the form Redis 7.0 stores the same entries
// in, to dst and returns the extended slice; it allocates only when dst lacks
// capacity. Redis files the listpack under MasterKey of FirstID(node). The
// bytes are those Redis itself holds after adding the same entries to a new
// node and deleting the same ones.
//
// It panics on an empty node, which has no listpack form, and when the
// listpack would pass 4 GiB, which its header cannot say.
func AppendListpack(dst, node []byte) []byte {
	if len(node) == 0 {
		panic("streamnode: AppendListpack of an empty node")
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, 0, 0) // the header, filled in last

	live, deleted := Count(node)
	dst = appendLpInt(dst, int64(live))
	dst = appendLpInt(dst, int64(deleted))
	fieldCount, p := binary.Uvarint(node[headerFixed:])
	p += headerFixed
	dst = appendLpInt(dst, int64(fieldCount))
	for range fieldCount {
		var f []byte
		f, p = readBytes(node, p)
		dst = appendLpString(dst, f)
	}
	dst = appendLpInt(dst, 0)
	elements := 4 + uint64(fieldCount)

	master := masterID(node)
	it := NewIter(node)
	for e, ok := it.Next(); ok; e, ok = it.Next() {
		same := e.pairs.sameFields
		flags := int64(0)
		if e.Deleted {
			flags |= flagDeleted
		}
		if same {
			flags |= flagSameFields
		}
		dst = appendLpInt(dst, flags)
		dst = appendLpInt(dst, int64(e.ID.Ms-master.Ms))
		dst = appendLpInt(dst, int64(e.ID.Seq-master.Seq))
		n := int64(e.Len())
		lpCount := 3 + n
		if !same {
			dst = appendLpInt(dst, n)
			lpCount += n + 1
		}
		for pairs := e.Pairs(); ; {
			f, v, ok := pairs.Next()
			if !ok {
				break
			}
			if !same {
				dst = appendLpString(dst, f)
			}
			dst = appendLpString(dst, v)
		}
		dst = appendLpInt(dst, lpCount)
		elements += uint64(lpCount) + 1
	}
	dst = append(dst, lpEnd)

	size := len(dst) - start
	if uint64(size) > math.MaxUint32 {
		panic("streamnode: node too large for a listpack")
	}
	binary.LittleEndian.PutUint32(dst[start:], uint32(size))
	binary.LittleEndian.PutUint16(dst[start+4:], uint16(min(elements, lpCountUnknown)))
	return dst
}

// FromListpack appends to dst the node holding the entries of lp, a stream
// node listpack as Redis 7.0 saves it under masterKey, and returns the
// extended slice; on an error it returns dst as it was. The node is made as
// Append and MarkDeleted would make it from the same entries: an entry
// stores only its values when its fields are the master fields, whatever
// its flag said. FromListpack allocates only when dst lacks capacity, and
// then at most a small multiple of len(lp).
//
// Every fault is an error matching ErrListpack. Checked are the framing:
// the size field, each element's encoding, bounds and back length, the
// terminator as the last byte, and the element count unless 65535; the
// master entry, its counts and its final 0; each entry's integers, field
// count and lp-count; at least one entry, and no element after the last;
// live and deleted counts matching the entries' flags; the first entry,
// which must have the master fields and masterKey's ID (16 bytes, as
// MasterKey writes them); and each later entry's ID, which must be above
// that of the last live entry before it, as Redis keeps it (see the top of
// this file). Integers may come as strings that spell them, as Redis reads
// them too.
//
// Redis 7.0's loader skips some of these checks (the element count, the
// counts per flag, the first entry, the IDs, anything after a terminator
// byte met early) and takes some malformed back lengths; nothing it writes
// fails them. A first entry with other fields than the master entry's is
// refused, not taken with its own fields as our master fields, because
// every entry flagged as having the master fields would then have to hold
// them in full: a small listpack could make a huge node.
func FromListpack(dst, masterKey, lp []byte) ([]byte, error) {
	master, ok := ParseMasterKey(masterKey)
	if !ok {
		return dst, listpackError("master key is not 16 bytes")
	}
	if len(lp) < lpHeaderSize+1 {
		return dst, listpackError("shorter than a listpack header")
	}
	if uint64(len(lp)) > math.MaxUint32 || binary.LittleEndian.Uint32(lp) != uint32(len(lp)) {
		return dst, listpackError("size field does not match the listpack's size")
	}
	if lp[len(lp)-1] != lpEnd {
		return dst, listpackError("no terminator at the end")
	}

	r := lpReader{lp: lp, p: lpHeaderSize}
	wantLive, err := r.count()
	if err != nil {
		return dst, err
	}
	wantDeleted, err := r.count()
	if err != nil {
		return dst, err
	}
	masterCount, err := r.count()
	if err != nil {
		return dst, err
	}
	m := lpFields{at: r.p, step: 1, n: masterCount}
	for range masterCount {
		e, err := r.next()
		if err != nil {
			return dst, err
		}
		m.size += strLen(e)
	}
	if zero, err := r.int(); err != nil {
		return dst, err
	} else if zero != 0 {
		return dst, listpackError("master entry does not end in 0")
	}
	total := wantLive + wantDeleted
	if total == 0 {
		return dst, listpackError("no entries")
	}
	if uint64(total) > math.MaxUint32 {
		return dst, listpackError("more entries than a node holds")
	}

	orig, start := dst, len(dst)
	dst = appendListpackHeader(dst, lp, master, m)
	var live, deleted int
	var lastLive ID // the ID of the last live entry so far, if live > 0
	for i := range total {
		e, err := r.entry(master, m)
		if err != nil {
			return orig, err
		}
		// e.fields is m when the entry is flagged as having the master
		// fields; entries not flagged may have them all the same.
		same := e.fields == m || hasListpackMasterFields(dst[start:], lp, e.fields)
		if i == 0 {
			if e.id != master {
				return orig, listpackError("first entry's ID is not the master key's")
			}
			if !same {
				return orig, listpackError("first entry's fields are not the master fields")
			}
		} else if live > 0 && e.id.Compare(lastLive) <= 0 {
			return orig, listpackError("entry ID not above the live entry before it")
		}
		dst = appendListpackEntry(dst, lp, master, e, same)
		if e.deleted {
			deleted++
		} else {
			live++
			lastLive = e.id
		}
	}
	if r.p != len(lp)-1 {
		return orig, listpackError("elements after the last entry")
	}
	if n := binary.LittleEndian.Uint16(lp[4:]); n != lpCountUnknown && int(n) != r.n {
		return orig, listpackError("element count does not match the elements")
	}
	if live != wantLive || deleted != wantDeleted {
		return orig, listpackError("live and deleted counts do not match the entries")
	}
	binary.LittleEndian.PutUint32(dst[start+offLive:], uint32(live))
	binary.LittleEndian.PutUint32(dst[start+offDeleted:], uint32(deleted))
	return dst, nil
}

// lpElem is a decoded listpack element: an integer, or a string within the
// listpack.
type lpElem struct {
	str   []byte
	num   int64
	isInt bool
}

// lpReader walks a listpack's elements, checking each one. lp's size field
// and terminator are already checked.
type lpReader struct {
	lp []byte
	p  int // offset of the next element
	n  int // elements read so far
}

func (r *lpReader) next() (lpElem, error) {
	// Most elements are small integers and short strings: take those here.
	lp, p := r.lp, r.p
	if end := len(lp) - 1; p < end {
		switch b := lp[p]; {
		case b < 0x80:
			if p+2 <= end && lp[p+1] == 1 {
				r.p, r.n = p+2, r.n+1
				return lpElem{num: int64(b), isInt: true}, nil
			}
		case b&0xC0 == 0x80:
			if n := int(b & 0x3F); p+n+2 <= end && lp[p+n+1] == byte(n+1) {
				r.p, r.n = p+n+2, r.n+1
				return lpElem{str: lp[p+1 : p+n+1 : p+n+1]}, nil
			}
		}
	}
	e, next, err := lpElemAt(r.lp, r.p)
	if err != nil {
		return lpElem{}, err
	}
	r.p = next
	r.n++
	return e, nil
}

// int reads an element that must hold an integer.
func (r *lpReader) int() (int64, error) {
	e, err := r.next()
	if err != nil {
		return 0, err
	}
	if e.isInt {
		return e.num, nil
	}
	if v, ok := LPIntString(e.str); ok {
		return v, nil
	}
	return 0, listpackError("string where an integer belongs")
}

// count reads an integer that must be a count of something in the
// listpack: never negative, and below len(lp), so that sums of counts stay
// far from overflowing.
func (r *lpReader) count() (int, error) {
	v, err := r.int()
	if err != nil {
		return 0, err
	}
	if v < 0 || v >= int64(len(r.lp)) {
		return 0, listpackError("count out of range")
	}
	return int(v), nil
}

// lpFields says where an entry's fields or values lie: n elements from
// offset at, every step-th element, holding size bytes in our node's form
// (each as a uvarint length and its text).
type lpFields struct {
	at, step, n, size int
}

// lpEntry is an entry read and checked by lpReader.entry.
type lpEntry struct {
	id             ID
	deleted        bool
	fields, values lpFields
}

// entry reads the entry at r.p of a node whose master ID is master and
// whose master fields are m.
func (r *lpReader) entry(master ID, m lpFields) (e lpEntry, err error) {
	flags, err := r.int()
	if err != nil {
		return e, err
	}
	e.deleted = flags&flagDeleted != 0
	msDelta, err := r.int()
	if err != nil {
		return e, err
	}
	seqDelta, err := r.int()
	if err != nil {
		return e, err
	}
	e.id = ID{master.Ms + uint64(msDelta), master.Seq + uint64(seqDelta)}

	wantCount := int64(3)
	if flags&flagSameFields != 0 {
		e.fields = m
		e.values = lpFields{at: r.p, step: 1, n: m.n}
		for range m.n {
			v, err := r.next()
			if err != nil {
				return e, err
			}
			e.values.size += strLen(v)
		}
	} else {
		n, err := r.count()
		if err != nil {
			return e, err
		}
		e.fields = lpFields{at: r.p, step: 2, n: n}
		e.values = lpFields{step: 2, n: n}
		for i := range n {
			f, err := r.next()
			if err != nil {
				return e, err
			}
			if i == 0 {
				e.values.at = r.p
			}
			v, err := r.next()
			if err != nil {
				return e, err
			}
			e.fields.size += strLen(f)
			e.values.size += strLen(v)
		}
		wantCount += int64(n) + 1
	}
	wantCount += int64(e.values.n)
	if lpCount, err := r.int(); err != nil {
		return e, err
	} else if lpCount != wantCount {
		return e, listpackError("lp-count does not match the entry")
	}
	return e, nil
}

// appendListpackHeader starts a node with no entries counted yet, master ID
// master and the master fields that fields locates in lp.
func appendListpackHeader(node, lp []byte, master ID, fields lpFields) []byte {
	node = binary.LittleEndian.AppendUint32(node, 0)
	node = binary.LittleEndian.AppendUint32(node, 0)
	node = binary.LittleEndian.AppendUint64(node, master.Ms)
	node = binary.LittleEndian.AppendUint64(node, master.Seq)
	node = binary.AppendUvarint(node, uint64(fields.n))
	return appendLpFields(node, lp, fields)
}

// hasListpackMasterFields reports whether the fields that fields locates in
// lp are node's master fields, in order.
func hasListpackMasterFields(node, lp []byte, fields lpFields) bool {
	count, p := binary.Uvarint(node[headerFixed:])
	if count != uint64(fields.n) {
		return false
	}
	p += headerFixed
	var buf [20]byte
	for i, at := 0, fields.at; i < fields.n; i++ {
		var e lpElem
		e, at = lpElemAtStep(lp, at, fields.step)
		var master []byte
		master, p = readBytes(node, p)
		if string(master) != string(lpText(buf[:0], e)) {
			return false
		}
	}
	return true
}

// appendListpackEntry appends e, read from lp, as Append would: with only
// its values when same says its fields are the master fields. The caller
// counts it.
func appendListpackEntry(node, lp []byte, master ID, e lpEntry, same bool) []byte {
	msDelta := e.id.Ms - master.Ms
	seqDelta := int64(e.id.Seq - master.Seq)
	flags := byte(0)
	if e.deleted {
		flags |= flagDeleted
	}
	bodyLen := 1 + uvarintLen(msDelta) + varintLen(seqDelta) + e.values.size
	if same {
		flags |= flagSameFields
	} else {
		bodyLen += uvarintLen(uint64(e.fields.n)) + e.fields.size
	}

	node = binary.AppendUvarint(node, uint64(bodyLen))
	node = append(node, flags)
	node = binary.AppendUvarint(node, msDelta)
	node = binary.AppendVarint(node, seqDelta)
	if same {
		node = appendLpFields(node, lp, e.values)
	} else {
		node = binary.AppendUvarint(node, uint64(e.fields.n))
		fAt, vAt := e.fields.at, e.values.at
		for range e.fields.n {
			var f, v lpElem
			f, fAt = lpElemAtStep(lp, fAt, e.fields.step)
			v, vAt = lpElemAtStep(lp, vAt, e.values.step)
			node = appendLpText(node, f)
			node = appendLpText(node, v)
		}
	}
	return appendBackLen(node, uint64(uvarintLen(uint64(bodyLen))+bodyLen))
}

// appendLpFields appends each element fields locates in lp as appendBytes
// would.
func appendLpFields(node, lp []byte, fields lpFields) []byte {
	at := fields.at
	for range fields.n {
		var e lpElem
		e, at = lpElemAtStep(lp, at, fields.step)
		node = appendLpText(node, e)
	}
	return node
}

// appendLpText appends e's text as appendBytes would.
func appendLpText(node []byte, e lpElem) []byte {
	if !e.isInt {
		return appendBytes(node, e.str)
	}
	node = binary.AppendUvarint(node, uint64(decimalLen(e.num)))
	return strconv.AppendInt(node, e.num, 10)
}

// lpText returns e's text, formatting an integer into buf.
func lpText(buf []byte, e lpElem) []byte {
	if e.isInt {
		return strconv.AppendInt(buf, e.num, 10)
	}
	return e.str
}

// strLen is the size of e's text in our node's form: uvarint length, text.
func strLen(e lpElem) int {
	n := len(e.str)
	if e.isInt {
		n = decimalLen(e.num)
	}
	return uvarintLen(uint64(n)) + n
}

func decimalLen(v int64) int {
	n := 1
	u := uint64(v)
	if v < 0 {
		n++
		u = -u
	}
	for ; u >= 10; u /= 10 {
		n++
	}
	return n
}

// lpElemAtStep decodes the element at p of a listpack already checked, and
// returns the offset step elements on.
func lpElemAtStep(lp []byte, p, step int) (e lpElem, next int) {
	r := lpReader{lp: lp, p: p}
	e, _ = r.next()
	for range step - 1 {
		r.next()
	}
	return e, r.p
}

// lpElemAt decodes and checks the element at p, returning the offset of the
// one after it. The element and its back length must end before the
// terminator, lp's last byte.
func lpElemAt(lp []byte, p int) (e lpElem, next int, err error) {
	end := len(lp) - 1
	if p >= end {
		return e, p, errNoElement
	}
	b := lp[p]
	room := uint64(end - p) // bytes left for the element and its back length
	var head, size uint64   // encoding and length bytes; all of them with the payload
	switch {
	case b < 0x80:
		e.num, e.isInt, size = int64(b), true, 1
	case b&0xC0 == 0x80:
		head = 1
		size = head + uint64(b&0x3F)
	case b&0xE0 == 0xC0:
		if room < 2 {
			return e, p, errPastEnd
		}
		e.num = int64(uint16(b&0x1F)<<8|uint16(lp[p+1])) << 51 >> 51 // sign-extend 13 bits
		e.isInt, size = true, 2
	case b&0xF0 == 0xE0:
		if room < 2 {
			return e, p, errPastEnd
		}
		head = 2
		size = head + (uint64(b&0x0F)<<8 | uint64(lp[p+1]))
	case b == 0xF0:
		if room < 5 {
			return e, p, errPastEnd
		}
		head = 5
		size = head + uint64(binary.LittleEndian.Uint32(lp[p+1:]))
	case b >= 0xF1 && b <= 0xF4:
		width := [...]uint64{2, 3, 4, 8}[b-0xF1]
		if room < 1+width {
			return e, p, errPastEnd
		}
		var u uint64
		for i := range width {
			u |= uint64(lp[p+1+int(i)]) << (8 * i)
		}
		shift := 64 - 8*width // sign-extend from width bytes
		e.num, e.isInt, size = int64(u<<shift)>>shift, true, 1+width
	default:
		return e, p, listpackError("unknown element encoding")
	}
	var back [lpMaxBackLen]byte
	backLen := 1
	if back[0] = byte(size); size > 127 {
		backLen = lpPutBackLen(back[:], size)
	}
	if size+uint64(backLen) > room {
		return lpElem{}, p, errPastEnd
	}
	next = p + int(size)
	if !e.isInt {
		e.str = lp[p+int(head) : next : next]
	}
	for i, b := range back[:backLen] {
		if lp[next+i] != b {
			return lpElem{}, p, listpackError("back length does not match the element")
		}
	}
	return e, next + backLen, nil
}

const (
	errNoElement = listpackError("element missing")
	errPastEnd   = listpackError("element past the end")
)

// lpBackLen writes the back length of an element of size bytes into buf
// as Redis writes it, and returns its length. Redis's thresholds fall one
// short of the 7-bit group boundaries from 2^14 - 1 on: an element of
// 16383 bytes gets a three-byte back length, with a leading zero group.
func lpPutBackLen(buf []byte, size uint64) int {
	n := lpBacklen(int(size))
	for i := n - 1; i >= 0; i-- {
		buf[i] = byte(size & 0x7F)
		if i != 0 {
			buf[i] |= 0x80
		}
		size >>= 7
	}
	return n
}

const lpMaxBackLen = 5

// appendLpString appends s as Redis does: as an integer when it is a
// canonical decimal int64, else as a string in the smallest encoding that
// holds its length.
func appendLpString(dst, s []byte) []byte {
	if v, ok := LPIntString(s); ok {
		return appendLpInt(dst, v)
	}
	start := len(dst)
	switch n := len(s); {
	case n < 64:
		dst = append(dst, 0x80|byte(n))
	case n < 4096:
		dst = append(dst, 0xE0|byte(n>>8), byte(n))
	default:
		dst = append(dst, 0xF0, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	}
	dst = append(dst, s...)
	return appendLpBackLen(dst, uint64(len(dst)-start))
}

// appendLpInt appends v in the smallest integer encoding that holds it.
func appendLpInt(dst []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(dst, byte(v), 1)
	case v >= -4096 && v <= 4095:
		u := uint64(v) & 0x1FFF
		return append(dst, 0xC0|byte(u>>8), byte(u), 2)
	}
	enc, width := byte(0xF4), 8
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		enc, width = 0xF1, 2
	case v >= -1<<23 && v < 1<<23:
		enc, width = 0xF2, 3
	case v >= math.MinInt32 && v <= math.MaxInt32:
		enc, width = 0xF3, 4
	}
	dst = append(dst, enc)
	for i := range width {
		dst = append(dst, byte(uint64(v)>>(8*i)))
	}
	return append(dst, byte(1+width)) // back length
}

func appendLpBackLen(dst []byte, size uint64) []byte {
	var buf [lpMaxBackLen]byte
	n := lpPutBackLen(buf[:], size)
	return append(dst, buf[:n]...)
}
