package shardowner

import (
	"bytes"
	"encoding/binary"
	"math"
	"strconv"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
	"github.com/corekv/corekv/shardowner/rdbfile"
)

// A DUMP payload is Redis's: one object in RDB form (a type byte, then the
// object), the RDB version as two bytes little endian, and a CRC-64 (Jones
// polynomial, reflected, no inversion) of all that, as eight bytes little
// endian. RESTORE reads what Redis 7.0 writes and the older forms it still
// loads, except zipmap hashes (RDB 2.4); DUMP writes the plainest forms 7.0
// loads. Every length is checked against what is left of the payload
// before it is used, and every nested blob (listpack, ziplist, intset) is
// validated whole, whatever sanitize-dump-payload says. The RDB
// primitives (lengths, strings, the CRC, LZF) are rdbfile's; the version
// DUMP writes and the newest RESTORE takes is rdbfile.Version.
//
// DUMP writes strings plain, never integer encoded or LZF compressed as
// Redis's DUMP does (with rdbcompression yes): RESTORE in Redis and
// corekv takes both forms, and plain strings cost no compression on the
// shard.

// rdbFooter is the version and checksum after the object.
const rdbFooter = 10

// payloadOK reports whether p ends in a footer of a version RESTORE takes
// and a checksum that matches.
func payloadOK(p []byte) bool {
	if len(p) < rdbFooter {
		return false
	}
	f := p[len(p)-rdbFooter:]
	if binary.LittleEndian.Uint16(f) > rdbfile.Version {
		return false
	}
	return rdbfile.CRC(p[:len(p)-8]) == binary.LittleEndian.Uint64(f[2:])
}

// appendPayloadFooter appends the version and the checksum of dst.
func appendPayloadFooter(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint16(dst, rdbfile.Version)
	return binary.LittleEndian.AppendUint64(dst, rdbfile.CRC(dst))
}

// AppendDumpFooter appends the footer of a payload whose body is all of
// dst (FUNCTION DUMP's, of library records).
func AppendDumpFooter(dst []byte) []byte { return appendPayloadFooter(dst) }

// DumpBody returns the body of payload p, before its footer, when the
// footer is one RESTORE takes (FUNCTION RESTORE).
func DumpBody(p []byte) ([]byte, bool) {
	if !payloadOK(p) {
		return nil, false
	}
	return p[:len(p)-rdbFooter], true
}

// rdbObject is an object read from a payload: a string, or the elements of
// an aggregate packed after kvtable.PackedHeadRoom bytes of room in out (a
// sorted set's as appendZElem pairs, in payload order).
type rdbObject struct {
	kind Kind
	str  []byte
	out  *bytebufferpool.ByteBuffer
	n    int   // elements; pairs for a hash or sorted set
	keys []int // offsets in out of a hash's fields or a sorted set's members
	long int   // length of the longest element
	set  bool  // from an intset, which may repeat a member
	blob bool  // from a listpack or ziplist: only the count decides the encoding
	// groups are a stream's consumer groups (streamrdb.go).
	groups []rdbGroup
}

// readObject reads the object of payload p (the footer included, as Redis
// reads it: what follows the object is not looked at). The caller releases
// o.out.
func readObject(p []byte) (o rdbObject, ok bool) {
	if len(p) == 0 {
		return o, false
	}
	return readObjectOf(p[0], p[1:])
}

// readObjectOf reads an object of RDB type t whose body starts p, as
// readObject reads a payload.
func readObjectOf(t byte, p []byte) (o rdbObject, ok bool) {
	var r rdbfile.Reader
	r.Reset(p)
	ok = o.readWith(&r, t)
	return o, ok
}

// readWith reads into o an object of RDB type t from r (its body next), r's
// Scratch lent from the pool meanwhile. A caller that reads many objects
// (loading a file) keeps r and o, so that neither is allocated per object.
func (o *rdbObject) readWith(r *rdbfile.Reader, t byte) bool {
	scratch := bytebufferpool.Get()
	r.Scratch = scratch.B[:0]
	ok := o.readFrom(r, t)
	scratch.B = r.Scratch
	r.Scratch = nil
	bytebufferpool.Put(scratch)
	return ok
}

// readFrom is readWith's reading.
func (o *rdbObject) readFrom(r *rdbfile.Reader, t byte) bool {
	*o = rdbObject{keys: o.keys[:0]}
	if t == rdbfile.TypeString {
		s, ok := r.String()
		if !ok {
			return false
		}
		o.out = bytebufferpool.Get()
		o.out.B = append(o.out.B[:0], s...)
		o.kind, o.str = KindString, o.out.B
		return true
	}
	o.out = bytebufferpool.Get()
	var room [kvtable.PackedHeadRoom]byte
	o.out.B = append(o.out.B[:0], room[:]...)
	ok := o.read(r, t)
	if ok && o.n == 0 && o.kind != KindStream {
		ok = false // Redis refuses an empty aggregate (a stream may be empty)
	}
	if !ok {
		o.release()
	}
	return ok
}

func (o *rdbObject) release() {
	if o.out != nil {
		bytebufferpool.Put(o.out)
		o.out = nil
	}
}

// add appends element e; a key (hash field, sorted set member) has its
// offset noted for the duplicate check.
func (o *rdbObject) add(e []byte, key bool) {
	if key {
		o.keys = append(o.keys, len(o.out.B))
	}
	o.out.B = kvtable.AppendElem(o.out.B, e)
	o.long = max(o.long, len(e))
}

// addScored appends member m with score s.
func (o *rdbObject) addScored(m []byte, s float64) bool {
	if math.IsNaN(s) {
		return false
	}
	o.keys = append(o.keys, len(o.out.B))
	o.out.B = appendZElem(o.out.B, m, s)
	o.long = max(o.long, len(m))
	o.n++
	return true
}

func (o *rdbObject) read(r *rdbfile.Reader, t byte) bool {
	switch t {
	case rdbfile.TypeStreamListpacks, rdbfile.TypeStreamListpacks2:
		return o.readStream(r, t == rdbfile.TypeStreamListpacks2)
	case rdbfile.TypeList, rdbfile.TypeSet, rdbfile.TypeHash:
		// A count of strings: elements, members, or field and value pairs.
		o.kind = KindList
		per := 1
		switch t {
		case rdbfile.TypeSet:
			o.kind = KindSet
		case rdbfile.TypeHash:
			o.kind, per = KindHash, 2
		}
		n, ok := r.Count(per)
		if !ok {
			return false
		}
		for i := range n * per {
			e, ok := r.String()
			if !ok {
				return false
			}
			o.add(e, per == 2 && i%2 == 0)
		}
		o.n = n
		return true
	case rdbfile.TypeZSet, rdbfile.TypeZSet2:
		o.kind = KindZSet
		n, ok := r.Count(2)
		if !ok {
			return false
		}
		for range n {
			m, ok := r.String()
			if !ok {
				return false
			}
			// m may alias r.scratch, which the score does not touch.
			var s float64
			if t == rdbfile.TypeZSet2 {
				if s, ok = r.Double(); !ok {
					return false
				}
			} else if s, ok = readTextScore(r); !ok {
				return false
			}
			if !o.addScored(m, s) {
				return false
			}
		}
		return true
	case rdbfile.TypeSetIntset:
		o.kind, o.set = KindSet, true
		b, ok := r.String()
		if !ok || !validIntsetBlob(b) {
			return false
		}
		w := int(binary.LittleEndian.Uint32(b))
		var tmp [20]byte
		for i := 8; i < len(b); i += w {
			var x int64
			switch w {
			case 2:
				x = int64(int16(binary.LittleEndian.Uint16(b[i:])))
			case 4:
				x = int64(int32(binary.LittleEndian.Uint32(b[i:])))
			default:
				x = int64(binary.LittleEndian.Uint64(b[i:]))
			}
			o.add(strconv.AppendInt(tmp[:0], x, 10), false)
			o.n++
		}
		return true
	case rdbfile.TypeListZiplist, rdbfile.TypeHashZiplist, rdbfile.TypeZSetZiplist:
		b, ok := r.String()
		if !ok {
			return false
		}
		return o.readBlob(b, t, walkZiplist)
	case rdbfile.TypeHashListpack, rdbfile.TypeZSetListpack:
		b, ok := r.String()
		if !ok {
			return false
		}
		return o.readBlob(b, t, walkListpack)
	case rdbfile.TypeListQuicklist, rdbfile.TypeListQuicklist2:
		o.kind = KindList
		n, ok := r.Count(2)
		if !ok {
			return false
		}
		for range n {
			container := uint64(rdbfile.QuicklistPacked)
			if t == rdbfile.TypeListQuicklist2 {
				if container, _, ok = r.Len(); !ok || (container != rdbfile.QuicklistPlain && container != rdbfile.QuicklistPacked) {
					return false
				}
			}
			b, ok := r.String()
			if !ok {
				return false
			}
			switch {
			case container == rdbfile.QuicklistPlain:
				o.add(b, false)
				o.n++
			case t == rdbfile.TypeListQuicklist:
				ok = walkZiplist(b, func(e []byte) { o.add(e, false); o.n++ })
			default:
				ok = walkListpack(b, func(e []byte) { o.add(e, false); o.n++ })
			}
			if !ok {
				return false
			}
		}
		return true
	}
	return false
}

// readBlob reads the elements of a ziplist or listpack b for object type t.
func (o *rdbObject) readBlob(b []byte, t byte, walk func([]byte, func([]byte)) bool) bool {
	o.blob = true
	switch t {
	case rdbfile.TypeListZiplist:
		o.kind = KindList
		return walk(b, func(e []byte) { o.add(e, false); o.n++ })
	case rdbfile.TypeHashZiplist, rdbfile.TypeHashListpack:
		o.kind = KindHash
		i := 0
		ok := walk(b, func(e []byte) {
			o.add(e, i%2 == 0)
			i++
		})
		o.n = i / 2
		return ok && i%2 == 0
	}
	o.kind = KindZSet
	i, good := 0, true
	var member []byte
	var tmp [64]byte
	ok := walk(b, func(e []byte) {
		i++
		if i%2 == 1 {
			member = append(tmp[:0], e...) // an integer's text is the walk's, reused
			return
		}
		// Redis reads a listpack's text score with strtod over at most
		// 127 bytes: text that is no number reads as 0.
		s, _ := strtodPrefix(cString(e[:min(len(e), 127)]))
		good = good && o.addScored(member, s)
	})
	return ok && good && i%2 == 0
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// readTextScore reads a score of the old sorted set type: a length byte,
// with 253, 254 and 255 for NaN, +inf and -inf, then that many bytes of
// text.
func readTextScore(r *rdbfile.Reader) (float64, bool) {
	n, ok := r.Byte()
	if !ok {
		return 0, false
	}
	switch n {
	case 253:
		return math.NaN(), true
	case 254:
		return math.Inf(1), true
	case 255:
		return math.Inf(-1), true
	}
	b, ok := r.Take(uint64(n))
	if !ok {
		return 0, false
	}
	return strtodPrefix(cString(b)) // Redis's sscanf("%lg")
}

// cString is b up to its first NUL, as C reads it.
func cString(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// strtodPrefix reads the longest prefix of b, after white space, that is a
// decimal number, inf, infinity or nan (any case, signed), as C's strtod
// does; ok is false when there is none. A hexadecimal number reads as its
// leading 0.
func strtodPrefix(b []byte) (f float64, ok bool) {
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	start := i
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		i++
	}
	word := func(w string) bool { return len(b)-i >= len(w) && resp.EqualFold(b[i:i+len(w)], w) }
	switch {
	case word("infinity"):
		i += len("infinity")
	case word("inf"):
		i += len("inf")
	case word("nan"):
		return math.NaN(), true
	default:
		digits := 0
		for ; i < len(b) && '0' <= b[i] && b[i] <= '9'; i++ {
			digits++
		}
		if i < len(b) && b[i] == '.' {
			j := i + 1
			for ; j < len(b) && '0' <= b[j] && b[j] <= '9'; j++ {
				digits++
			}
			if digits > 0 {
				i = j
			}
		}
		if digits == 0 {
			return 0, false
		}
		if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
			j := i + 1
			if j < len(b) && (b[j] == '+' || b[j] == '-') {
				j++
			}
			k := j
			for ; k < len(b) && '0' <= b[k] && b[k] <= '9'; k++ {
			}
			if k > j {
				i = k
			}
		}
	}
	f, err := strconv.ParseFloat(string(b[start:i]), 64)
	return f, err == nil || isRangeErr(err)
}

// validIntsetBlob reports whether b has an intset's shape: a width of 2, 4
// or 8 bytes, a count, and that many integers of the width. Their order is
// not checked, as Redis does not by default: the set is rebuilt from them.
func validIntsetBlob(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	w := uint64(binary.LittleEndian.Uint32(b))
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	return (w == 2 || w == 4 || w == 8) && uint64(len(b)-8) == w*n
}

// walkListpack validates listpack b whole and calls fn on each entry, an
// integer as its decimal text. fn's argument is valid only during the call.
func walkListpack(b []byte, fn func(e []byte)) bool {
	const header = 6
	if len(b) < header+1 || binary.LittleEndian.Uint32(b) != uint32(len(b)) || b[len(b)-1] != 0xff {
		return false
	}
	declared := int(binary.LittleEndian.Uint16(b[4:]))
	var tmp [20]byte
	n := 0
	for off := header; ; n++ {
		if off >= len(b)-1 {
			if off != len(b)-1 {
				return false
			}
			break
		}
		c := b[off]
		rest := b[off:]
		var hdr, size int
		var x int64
		isInt := true
		switch {
		case c&0x80 == 0:
			hdr, x = 1, int64(c)
		case c&0xc0 == 0x80:
			hdr, size, isInt = 1, int(c&0x3f), false
		case c&0xe0 == 0xc0:
			if len(rest) < 2 {
				return false
			}
			hdr, x = 2, int64(uint64(c&0x1f)<<8|uint64(rest[1]))
			if x >= 1<<12 {
				x -= 1 << 13
			}
		case c&0xf0 == 0xe0:
			if len(rest) < 2 {
				return false
			}
			hdr, size, isInt = 2, int(c&0x0f)<<8|int(rest[1]), false
		case c == 0xf0:
			if len(rest) < 5 {
				return false
			}
			hdr, isInt = 5, false
			n32 := binary.LittleEndian.Uint32(rest[1:])
			if uint64(n32) > uint64(len(rest)) {
				return false
			}
			size = int(n32)
		case c >= 0xf1 && c <= 0xf4:
			w := [...]int{2, 3, 4, 8}[c-0xf1]
			if len(rest) < 1+w {
				return false
			}
			hdr, x = 1+w, leInt(rest[1:1+w])
		default:
			return false
		}
		entry := hdr + size
		back := backlenSize(entry)
		if entry+back > len(rest)-1 || !backlenOK(rest[entry:entry+back], entry) {
			return false
		}
		if isInt {
			fn(strconv.AppendInt(tmp[:0], x, 10))
		} else {
			fn(rest[hdr:entry])
		}
		off += entry + back
	}
	return declared == 0xffff || declared == n
}

// backlenSize is how many bytes a listpack entry of l bytes keeps its
// length in, after it.
func backlenSize(l int) int {
	switch {
	case l < 1<<7:
		return 1
	case l < 1<<14:
		return 2
	case l < 1<<21:
		return 3
	case l < 1<<28:
		return 4
	}
	return 5
}

// backlenOK reports whether b holds l as a listpack back length: seven
// bits a byte, the lowest last, each byte but the first marked 0x80.
func backlenOK(b []byte, l int) bool {
	v := 0
	for i, c := range b {
		if (i == 0) == (c&0x80 != 0) {
			return false
		}
		v = v<<7 | int(c&0x7f)
	}
	return v == l
}

// walkZiplist validates ziplist b whole (each entry's previous length
// included) and calls fn on each entry, an integer as its decimal text.
func walkZiplist(b []byte, fn func(e []byte)) bool {
	const header = 10
	if len(b) < header+1 || binary.LittleEndian.Uint32(b) != uint32(len(b)) || b[len(b)-1] != 0xff {
		return false
	}
	tail := int(binary.LittleEndian.Uint32(b[4:]))
	declared := int(binary.LittleEndian.Uint16(b[8:]))
	var tmp [20]byte
	n, prev, last := 0, 0, header
	for off := header; ; n++ {
		if off >= len(b)-1 {
			if off != len(b)-1 {
				return false
			}
			break
		}
		rest := b[off:]
		var plen, pl int
		if rest[0] < 254 {
			plen, pl = int(rest[0]), 1
		} else if rest[0] == 254 && len(rest) >= 5 {
			plen, pl = int(binary.LittleEndian.Uint32(rest[1:])), 5
		} else {
			return false
		}
		if plen != prev {
			return false
		}
		rest = rest[pl:]
		if len(rest) < 1 {
			return false
		}
		c := rest[0]
		var hdr, size int
		var x int64
		isInt := true
		switch {
		case c>>6 == 0:
			hdr, size, isInt = 1, int(c&0x3f), false
		case c>>6 == 1:
			if len(rest) < 2 {
				return false
			}
			hdr, size, isInt = 2, int(c&0x3f)<<8|int(rest[1]), false
		case c>>6 == 2:
			if len(rest) < 5 {
				return false
			}
			n32 := binary.BigEndian.Uint32(rest[1:])
			if uint64(n32) > uint64(len(rest)) {
				return false
			}
			hdr, size, isInt = 5, int(n32), false
		case c == 0xfe:
			if len(rest) < 2 {
				return false
			}
			hdr, x = 2, int64(int8(rest[1]))
		case c >= 0xf1 && c <= 0xfd:
			hdr, x = 1, int64(c&0x0f)-1
		default:
			w := ziplistIntWidth(c)
			if w == 0 || len(rest) < 1+w {
				return false
			}
			hdr, x = 1+w, leInt(rest[1:1+w])
		}
		entry := pl + hdr + size
		if hdr+size > len(rest)-1 {
			return false
		}
		if isInt {
			fn(strconv.AppendInt(tmp[:0], x, 10))
		} else {
			fn(rest[hdr : hdr+size])
		}
		last, prev = off, entry
		off += entry
	}
	return tail == last && (declared == 0xffff || declared == n)
}

// leInt reads the little-endian two's-complement integer of b's 1 to 8
// bytes, as listpacks and ziplists store their integers.
func leInt(b []byte) int64 {
	var u uint64
	for k := len(b) - 1; k >= 0; k-- {
		u = u<<8 | uint64(b[k])
	}
	w := 8 * uint(len(b))
	return int64(u<<(64-w)) >> (64 - w)
}

// ziplistIntWidth is the width of a ziplist integer of encoding c, 0 when
// c is none.
func ziplistIntWidth(c byte) int {
	switch c {
	case 0xc0:
		return 2
	case 0xd0:
		return 4
	case 0xe0:
		return 8
	case 0xf0:
		return 3
	}
	return 0
}
