package rdbfile

import (
	"encoding/binary"
	"fmt"
)

// Error is a fault in an RDB file: what is wrong, and at which byte.
type Error struct {
	Off int // from the start of the file (of the object, from ObjectExtent)
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("rdb: offset %d: %s", e.Off, e.Msg) }

func errAt(off int, format string, args ...any) *Error {
	return &Error{Off: off, Msg: fmt.Sprintf(format, args...)}
}

// ModuleError refuses a module's data: without the module its value
// cannot be read (nor, for a pre-GA module value, even framed).
type ModuleError struct {
	Off  int
	ID   uint64
	Name string // the module type's nine characters
	Ver  int    // its encoding version
	What string // "value" or "aux data"
}

func (e *ModuleError) Error() string {
	return fmt.Sprintf("rdb: offset %d: module %s %q (encoding version %d, id %#x): corekv loads no modules",
		e.Off, e.What, e.Name, e.Ver, e.ID)
}

// moduleName is the module type name packed in id: its top 54 bits are
// nine 6-bit characters, the low 10 the encoding version.
func moduleName(id uint64) (string, int) {
	const set = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	var name [9]byte
	x := id >> 10
	for j := 8; j >= 0; j-- {
		name[j] = set[x&63]
		x >>= 6
	}
	return string(name[:]), int(id & 1023)
}

// Record is a key as Parse finds it. Its slices alias the file or a
// buffer of the parser, and are valid only during the Handler's call.
type Record struct {
	DB       int
	Key      []byte
	ExpireAt int64 // ms since the Unix epoch, -1 for none
	Idle     int64 // LRU idle seconds, -1 for none
	Freq     int   // LFU counter, -1 for none
	Type     byte
	Object   []byte // the encoded object after the type and the key, exactly
	Off      int    // of the record's type byte in the file
}

// Handler takes what Parse finds. An error it returns stops Parse, which
// returns it with the offset of the record. Slices are valid only during
// the call.
type Handler interface {
	Aux(key, val []byte) error
	SelectDB(db int) error
	ResizeDB(size, expires uint64) error
	Key(r *Record) error
	// Function is a FUNCTION2 record: a library's code, to be loaded as
	// FUNCTION LOAD would.
	Function(code []byte) error
	// ModuleAux is module aux data. Returning nil skips it: it is framed
	// by its own opcodes.
	ModuleAux(err *ModuleError) error
}

// Options tune Parse.
type Options struct {
	// SkipChecksum does not check the CRC, as Redis with rdbchecksum no.
	SkipChecksum bool
}

// Parse reads the RDB file data whole, calling h for what it finds. It
// takes versions 1 to Version. At EOF it checks the CRC of everything up
// to and including the EOF byte against the stored one, unless that is 0
// (a file saved without checksum). Bytes after the checksum are ignored,
// as Redis ignores them.
func Parse(data []byte, h Handler) error { return ParseWith(data, h, Options{}) }

// ParseWith is Parse with options.
func ParseWith(data []byte, h Handler, opt Options) error {
	p := parser{h: h, data: data, db: 0}
	return p.run(opt)
}

type parser struct {
	h    Handler
	data []byte
	r    Reader
	db   int
	key  []byte // the AUX key, copied out of the Reader's scratch
}

func (p *parser) run(opt Options) error {
	d := p.data
	if len(d) < 9 {
		return errAt(len(d), "file of %d bytes ends inside the 9-byte header", len(d))
	}
	if string(d[:5]) != "REDIS" {
		return errAt(0, "wrong signature %q, not an RDB file", d[:5])
	}
	ver := 0
	for _, c := range d[5:9] {
		if c < '0' || c > '9' {
			return errAt(5, "version %q is not a number", d[5:9])
		}
		ver = ver*10 + int(c-'0')
	}
	if ver < 1 || ver > Version {
		return errAt(5, "Can't handle RDB format version %d", ver)
	}
	r := &p.r
	r.Reset(d)
	r.Skip(9)
	rec := Record{ExpireAt: -1, Idle: -1, Freq: -1}
	for {
		off := r.Offset()
		t, ok := r.Byte()
		if !ok {
			return errAt(off, "file ends before the EOF opcode (truncated)")
		}
		trunc := func(what string) error {
			return errAt(r.Offset(), "file ends inside %s of the record at offset %d", what, off)
		}
		wrap := func(err error) error {
			if err == nil {
				return nil
			}
			if _, ok := err.(*ModuleError); ok {
				return err
			}
			return fmt.Errorf("rdb: record at offset %d: %w", off, err)
		}
		switch t {
		case OpExpireTimeMs:
			x, ok := r.Take(8)
			if !ok {
				return trunc("the expire time")
			}
			rec.ExpireAt = int64(binary.LittleEndian.Uint64(x))
		case OpExpireTime:
			x, ok := r.Take(4)
			if !ok {
				return trunc("the expire time")
			}
			rec.ExpireAt = int64(int32(binary.LittleEndian.Uint32(x))) * 1000
		case OpIdle:
			n, _, ok := r.Len()
			if !ok {
				return trunc("the idle time")
			}
			rec.Idle = int64(n & (1<<63 - 1))
		case OpFreq:
			b, ok := r.Byte()
			if !ok {
				return trunc("the frequency")
			}
			rec.Freq = int(b)
		case OpSelectDB:
			n, _, ok := r.Len()
			if !ok {
				return trunc("the database number")
			}
			if n > 1<<31-1 {
				return errAt(off, "database number %d out of range", n)
			}
			p.db = int(n)
			if err := wrap(p.h.SelectDB(p.db)); err != nil {
				return err
			}
		case OpResizeDB:
			size, _, ok1 := r.Len()
			exp, _, ok2 := r.Len()
			if !ok1 || !ok2 {
				return trunc("the sizes")
			}
			if err := wrap(p.h.ResizeDB(size, exp)); err != nil {
				return err
			}
		case OpAux:
			k, ok := r.String()
			if !ok {
				return p.badString(off, "the AUX key")
			}
			p.key = append(p.key[:0], k...)
			v, ok := r.String()
			if !ok {
				return p.badString(off, "the AUX value")
			}
			if err := wrap(p.h.Aux(p.key, v)); err != nil {
				return err
			}
		case OpModuleAux:
			if err := p.moduleAux(off); err != nil {
				return err
			}
		case OpFunction2:
			code, ok := r.String()
			if !ok {
				return p.badString(off, "the function library")
			}
			if err := wrap(p.h.Function(code)); err != nil {
				return err
			}
		case OpFunctionPreGA:
			return errAt(off, "Pre-release function format not supported (opcode 246)")
		case OpEOF:
			return p.end(off, ver, opt)
		default:
			key, ok := r.String()
			if !ok {
				return p.badString(off, "the key")
			}
			rest := r.Rest()
			n, err := ObjectExtent(t, rest)
			if err != nil {
				return p.objectErr(err, r.Offset(), key)
			}
			rec.DB, rec.Key, rec.Type, rec.Object, rec.Off = p.db, key, t, rest[:n], off
			if err := wrap(p.h.Key(&rec)); err != nil {
				return err
			}
			r.Skip(uint64(n))
			rec = Record{ExpireAt: -1, Idle: -1, Freq: -1}
		}
	}
}

// badString reports a string that could not be read at the record at
// off: the file ends, or the encoding is bad.
func (p *parser) badString(off int, what string) error {
	if len(p.r.Rest()) == 0 {
		return errAt(p.r.Offset(), "file ends inside %s of the record at offset %d", what, off)
	}
	return errAt(off, "%s of the record is not a valid RDB string (truncated or corrupt)", what)
}

// objectErr places an error of ObjectExtent, whose offsets count from the
// object's start at base, in the file.
func (p *parser) objectErr(err error, base int, key []byte) error {
	switch e := err.(type) {
	case *Error:
		return errAt(base+e.Off, "key %.64q: %s", key, e.Msg)
	case *ModuleError:
		e.Off += base
		return e
	}
	return err
}

// end checks the checksum after the EOF opcode at off.
func (p *parser) end(off, ver int, opt Options) error {
	if ver < 5 {
		return nil // no checksum before version 5
	}
	x, ok := p.r.Take(8)
	if !ok {
		return errAt(off+1, "file ends inside the checksum after EOF")
	}
	stored := binary.LittleEndian.Uint64(x)
	if opt.SkipChecksum || stored == 0 {
		return nil
	}
	if sum := CRC(p.data[:off+1]); sum != stored {
		return errAt(off+1, "RDB CRC error: computed %016x, file has %016x", sum, stored)
	}
	return nil
}

// moduleAux frames a MODULE_AUX record at off and tells the handler.
func (p *parser) moduleAux(off int) error {
	r := &p.r
	id, _, ok1 := r.Len()
	whenOp, _, ok2 := r.Len()
	_, _, ok3 := r.Len()
	if !ok1 || !ok2 || !ok3 {
		return errAt(r.Offset(), "file ends inside the module aux header of the record at offset %d", off)
	}
	if whenOp != moduleOpUint {
		return errAt(off, "module aux 'when' is not saved as an unsigned integer")
	}
	name, ver := moduleName(id)
	if err := p.h.ModuleAux(&ModuleError{Off: off, ID: id, Name: name, Ver: ver, What: "aux data"}); err != nil {
		return err
	}
	if !skipModuleValue(r) {
		return errAt(r.Offset(), "module aux data of the record at offset %d is truncated or corrupt", off)
	}
	return nil
}

// Module value opcodes, which frame a module's data in RDB 2 module types
// and module aux records.
const (
	moduleOpEOF    = 0
	moduleOpSint   = 1
	moduleOpUint   = 2
	moduleOpFloat  = 3
	moduleOpDouble = 4
	moduleOpString = 5
)

// skipModuleValue steps over opcode-framed module data, up to its EOF.
func skipModuleValue(r *Reader) bool {
	for {
		op, _, ok := r.Len()
		if !ok {
			return false
		}
		switch op {
		case moduleOpEOF:
			return true
		case moduleOpSint, moduleOpUint:
			ok = lenOK(r)
		case moduleOpFloat:
			ok = r.Skip(4)
		case moduleOpDouble:
			ok = r.Skip(8)
		case moduleOpString:
			ok = r.SkipString()
		default:
			return false
		}
		if !ok {
			return false
		}
	}
}

func lenOK(r *Reader) bool {
	_, _, ok := r.Len()
	return ok
}

// ObjectExtent is how many bytes of p the object of type typ at its start
// takes. It knows every type Redis 7.0 and older write, streams included;
// it checks the framing (lengths, counts, what follows what), not the
// contents of strings or listpacks. Error offsets count from p's start.
func ObjectExtent(typ byte, p []byte) (int, error) {
	r := Reader{p: p}
	fail := func(what string) (int, error) {
		if len(r.p) == 0 {
			return 0, errAt(r.off, "object of type %d ends early, in %s (truncated)", typ, what)
		}
		return 0, errAt(r.off, "object of type %d: bad %s", typ, what)
	}
	// strings reads a count of groups of per strings.
	strings := func(per int) bool {
		n, ok := r.Count(per)
		for i := 0; ok && i < n*per; i++ {
			ok = r.SkipString()
		}
		return ok
	}
	switch typ {
	case TypeString, TypeHashZipmap, TypeListZiplist, TypeSetIntset, TypeZSetZiplist,
		TypeHashZiplist, TypeHashListpack, TypeZSetListpack:
		if !r.SkipString() {
			return fail("string")
		}
	case TypeList, TypeSet, TypeListQuicklist:
		if !strings(1) {
			return fail("element list")
		}
	case TypeHash:
		if !strings(2) {
			return fail("field list")
		}
	case TypeZSet, TypeZSet2:
		n, ok := r.Count(2)
		for i := 0; ok && i < n; i++ {
			ok = r.SkipString() && skipScore(&r, typ)
		}
		if !ok {
			return fail("member list")
		}
	case TypeListQuicklist2:
		n, ok := r.Count(2)
		for i := 0; ok && i < n; i++ {
			var c uint64
			c, _, ok = r.Len()
			if ok && c != QuicklistPlain && c != QuicklistPacked {
				return 0, errAt(r.off, "quicklist node container %d is neither plain nor packed", c)
			}
			ok = ok && r.SkipString()
		}
		if !ok {
			return fail("quicklist node")
		}
	case TypeStreamListpacks, TypeStreamListpacks2:
		if what := skipStream(&r, typ == TypeStreamListpacks2); what != "" {
			return fail(what)
		}
	case TypeModulePreGA, TypeModule2:
		id, _, ok := r.Len()
		if !ok {
			return fail("module id")
		}
		name, ver := moduleName(id)
		return 0, &ModuleError{Off: 0, ID: id, Name: name, Ver: ver, What: "value"}
	default:
		if typ >= 20 && typ < OpFunction2 {
			return 0, errAt(0, "object type %d is newer than Redis 7.0 (RDB version 10) knows", typ)
		}
		return 0, errAt(0, "unknown object type %d", typ)
	}
	return r.off, nil
}

// skipScore steps over a sorted set score: binary for zset2, else a length
// byte (253, 254, 255: NaN, +inf, -inf) and that much text.
func skipScore(r *Reader, typ byte) bool {
	if typ == TypeZSet2 {
		return r.Skip(8)
	}
	n, ok := r.Byte()
	if !ok {
		return false
	}
	if n >= 253 {
		return true
	}
	return r.Skip(uint64(n))
}

// skipStream steps over a stream: its listpacks keyed by master ID, its
// length and IDs, and its consumer groups with their pending entries and
// consumers. v2 (RDB type 19) adds the first and max deleted IDs, entries
// added, and each group's entries read. It returns what it failed on, ""
// when it did not.
func skipStream(r *Reader, v2 bool) string {
	nodes, ok := r.Count(2)
	for i := 0; ok && i < nodes; i++ {
		ok = r.SkipString() && r.SkipString() // master ID, listpack
	}
	if !ok {
		return "stream listpacks"
	}
	return skipStreamTail(r, v2)
}

// skipStreamTail steps over what follows a stream's listpacks: its length
// and IDs, and its consumer groups (skipStream).
func skipStreamTail(r *Reader, v2 bool) string {
	lens := 3 // length, last ID ms and seq
	if v2 {
		lens += 5 // first ID, max deleted ID, entries added
	}
	for i := 0; i < lens; i++ {
		if !lenOK(r) {
			return "stream metadata"
		}
	}
	groups, ok := r.Count(1)
	if !ok {
		return "consumer group count"
	}
	for g := 0; g < groups; g++ {
		if !r.SkipString() || !lenOK(r) || !lenOK(r) || (v2 && !lenOK(r)) {
			return "consumer group"
		}
		// The group's pending entries: ID, delivery time, delivery count.
		n, ok := r.Count(16 + 8 + 1)
		for i := 0; ok && i < n; i++ {
			ok = r.Skip(16+8) && lenOK(r)
		}
		if !ok {
			return "consumer group pending entries"
		}
		consumers, ok := r.Count(1 + 8 + 1)
		for c := 0; ok && c < consumers; c++ {
			// Name, seen time, then the IDs of its pending entries.
			if ok = r.SkipString() && r.Skip(8); !ok {
				break
			}
			var ids int
			ids, ok = r.Count(16)
			ok = ok && r.Skip(uint64(ids)*16)
		}
		if !ok {
			return "consumer"
		}
	}
	return ""
}
