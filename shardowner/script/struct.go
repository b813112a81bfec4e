package script

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// The struct library as Redis ships it (Roberto Ierusalimschy's struct
// 0.2 for Lua 5.1): pack(fmt, ...), unpack(fmt, s [, pos]) and size(fmt)
// over C types as x86-64 Linux lays them out.
//
//	> < ! n   big endian, little endian, alignment n (8 when no n)
//	b B h H l L T i[n] I[n]   integers: char, short, long, size_t, int of n bytes
//	f d   float, double
//	c[n]  n chars (c0: the whole string, or the preceding number of chars)
//	s     zero-terminated string
//	x     a padding byte
//	space ignored

const (
	structMaxIntSize = 32
	structMaxAlign   = 8 // max(offsetof the double in {char; double}, sizeof(int))
	structLittle     = true
)

// structFormat walks a format string.
type structFormat struct {
	L      *lua.LState
	fname  string
	fmt    string
	i      int
	little bool
	align  int
}

func newStructFormat(L *lua.LState, fname string) *structFormat {
	f := checkString(L, 1, fname)
	return &structFormat{L: L, fname: fname, fmt: cString(f), little: structLittle, align: 1}
}

// num is getnum: a decimal count at the cursor, or def.
func (f *structFormat) num(def int) int {
	if f.i >= len(f.fmt) || f.fmt[f.i] < '0' || f.fmt[f.i] > '9' {
		return def
	}
	a := 0
	for f.i < len(f.fmt) && f.fmt[f.i] >= '0' && f.fmt[f.i] <= '9' {
		d := int(f.fmt[f.i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			f.L.RaiseError("integral size overflow")
		}
		a = a*10 + d
		f.i++
	}
	return a
}

// size is optsize.
func (f *structFormat) size(opt byte) int {
	switch opt {
	case 'B', 'b', 'x':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'c':
		return f.num(1)
	case 'i', 'I':
		sz := f.num(4)
		if sz > structMaxIntSize {
			f.L.RaiseError("integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

// toAlign is gettoalign: the padding before an item of size at len.
func (f *structFormat) toAlign(n int, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > f.align {
		size = f.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

// control is controloptions.
func (f *structFormat) control(opt byte) {
	switch opt {
	case ' ':
	case '>':
		f.little = false
	case '<':
		f.little = true
	case '!':
		a := f.num(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			f.L.RaiseError("alignment %d is not a power of 2", a)
		}
		f.align = a
	default:
		argErrorf(f.L, 1, f.fname, "invalid format option '"+string(rune(opt))+"'")
	}
}

func (e *Engine) openStruct() *lua.LTable {
	L := e.vm
	t := L.CreateTable(0, 3)
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

// putInteger is putinteger: the number as a C unsigned long, its size
// bytes in the order asked (bytes past the eighth are zero).
func putInteger(b []byte, n float64, little bool, size int) []byte {
	var v uint64
	switch {
	case n < 0:
		v = uint64(luaInt(n))
	case n < 9223372036854775808.0:
		v = uint64(int64(n))
	case n < 18446744073709551616.0:
		v = uint64(n)
	default:
		v = 1 << 63
	}
	var buf [structMaxIntSize]byte
	if little {
		for i := 0; i < size; i++ {
			buf[i] = byte(v)
			v >>= 8
		}
	} else {
		for i := size - 1; i >= 0; i-- {
			buf[i] = byte(v)
			v >>= 8
		}
	}
	return append(b, buf[:size]...)
}

func structPack(L *lua.LState) int {
	f := newStructFormat(L, "pack")
	arg := 2
	var b []byte
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.size(opt)
		for pad := f.toAlign(len(b), opt, size); pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			b = putInteger(b, checkNumber(L, arg, "pack"), f.little, size)
			arg++
		case 'x':
			b = append(b, 0)
		case 'f':
			v := math.Float32bits(float32(checkNumber(L, arg, "pack")))
			arg++
			if f.little {
				b = binary.LittleEndian.AppendUint32(b, v)
			} else {
				b = binary.BigEndian.AppendUint32(b, v)
			}
		case 'd':
			v := math.Float64bits(checkNumber(L, arg, "pack"))
			arg++
			if f.little {
				b = binary.LittleEndian.AppendUint64(b, v)
			} else {
				b = binary.BigEndian.AppendUint64(b, v)
			}
		case 'c', 's':
			s := checkString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				// Redis names the argument after the string's.
				argErrorf(L, arg, "pack", "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
			}
		default:
			f.control(opt)
		}
	}
	L.Push(lua.LString(b))
	return 1
}

// getInteger is getinteger: size bytes as a C unsigned long (the last
// eight count), sign-extended from the top bit for signed formats.
func getInteger(b string, little, signed bool, size int) float64 {
	var l uint64
	if !little {
		for i := 0; i < size; i++ {
			l = l<<8 | uint64(b[i])
		}
	} else {
		for i := size - 1; i >= 0; i-- {
			l = l<<8 | uint64(b[i])
		}
	}
	if !signed {
		return float64(l)
	}
	// x86 takes shift counts modulo 64.
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	f := newStructFormat(L, "unpack")
	data := checkString(L, 2, "unpack")
	pos := optInteger(L, 3, "unpack", 1)
	if pos <= 0 {
		argErrorf(L, 3, "unpack", "offset must be 1 or greater")
	}
	p := int(pos - 1)
	if pos-1 > int64(len(data)) {
		p = len(data) + 1
	}
	ld := len(data)
	n := 0
	short := func(size int) {
		if size > ld || p > ld-size {
			argErrorf(L, 2, "unpack", "data string too short")
		}
	}
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.size(opt)
		p += f.toAlign(p, opt, size)
		short(size)
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a' && opt <= 'z'
			L.Push(lua.LNumber(getInteger(data[p:p+size], f.little, signed, size)))
			n++
		case 'x':
		case 'f':
			var v uint32
			if f.little {
				v = binary.LittleEndian.Uint32([]byte(data[p : p+4]))
			} else {
				v = binary.BigEndian.Uint32([]byte(data[p : p+4]))
			}
			L.Push(lua.LNumber(math.Float32frombits(v)))
			n++
		case 'd':
			var v uint64
			if f.little {
				v = binary.LittleEndian.Uint64([]byte(data[p : p+8]))
			} else {
				v = binary.BigEndian.Uint64([]byte(data[p : p+8]))
			}
			L.Push(lua.LNumber(math.Float64frombits(v)))
			n++
		case 'c':
			if size == 0 {
				prev, ok := lua.LNil, false
				if n > 0 {
					prev = L.Get(-1)
					_, ok = luaToNumber(prev)
				}
				if !ok {
					L.RaiseError("format 'c0' needs a previous size")
				}
				num, _ := luaToNumber(prev)
				size = int(luaInt(num))
				L.Pop(1)
				n--
				if size < 0 {
					size = ld + 1 // a size_t this large is always too long
				}
				short(size)
			}
			L.Push(lua.LString(data[p : p+size]))
			n++
		case 's':
			e := strings.IndexByte(data[p:], 0)
			if e < 0 {
				L.RaiseError("unfinished string in data")
			}
			size = e + 1
			L.Push(lua.LString(data[p : p+e]))
			n++
		default:
			f.control(opt)
		}
		p += size
	}
	L.Push(lua.LNumber(p + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	f := newStructFormat(L, "size")
	pos := 0
	for f.i < len(f.fmt) {
		opt := f.fmt[f.i]
		f.i++
		size := f.size(opt)
		pos += f.toAlign(pos, opt, size)
		if opt == 's' {
			argErrorf(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argErrorf(L, 1, "size", "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			f.control(opt)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
