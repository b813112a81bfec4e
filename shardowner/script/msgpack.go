package script

import (
	"encoding/binary"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The cmsgpack library, lua-cmsgpack 0.4.0 as Redis ships it: pack(...)
// packs each argument and joins them; unpack(s) returns every value of s;
// unpack_one(s [, offset]) and unpack_limit(s, limit [, offset]) return
// the offset after what they read (-1 at the end) and the values.

// msgpackMaxNesting is LUACMSGPACK_MAX_NESTING: tables deeper than this
// pack as nil, so that a table holding itself packs to a finite depth.
const msgpackMaxNesting = 16

// msgpackMaxDepth bounds the nesting unpack follows. Redis's recursion
// ends on the Lua stack's limit with the "too many return values" error;
// this is about where that limit falls.
const msgpackMaxDepth = 4000

func (e *Engine) openCmsgpack() *lua.LTable {
	L := e.vm
	t := L.CreateTable(0, 8)
	t.RawSetString("pack", L.NewFunction(msgpackPack))
	t.RawSetString("unpack", L.NewFunction(func(L *lua.LState) int { return msgpackUnpack(L, 0, 0) }))
	t.RawSetString("unpack_one", L.NewFunction(func(L *lua.LState) int {
		offset := optInteger(L, 2, "unpack_one", 0)
		L.SetTop(1)
		return msgpackUnpack(L, 1, offset)
	}))
	t.RawSetString("unpack_limit", L.NewFunction(func(L *lua.LState) int {
		limit := int64(luaIntOf(checkNumber(L, 2, "unpack_limit")))
		offset := optInteger(L, 3, "unpack_limit", 0)
		L.SetTop(1)
		return msgpackUnpack(L, limit, offset)
	}))
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Salvatore Sanfilippo"))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// luaIntOf is a number as lua_tointeger casts it.
func luaIntOf(f float64) int64 { return luaInt(f) }

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, fname string, def int64) int64 {
	if v := L.Get(n); v == lua.LNil {
		return def
	}
	return luaInt(checkNumber(L, n, fname))
}

func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argErrorf(L, 0, "pack", "MessagePack pack needs input.")
	}
	var b []byte
	for i := 1; i <= n; i++ {
		b = msgpackEncode(L, b, L.Get(i), 0)
	}
	L.Push(lua.LString(b))
	return 1
}

func msgpackEncode(L *lua.LState, b []byte, v lua.LValue, level int) []byte {
	switch x := v.(type) {
	case lua.LString:
		return msgpackBytes(b, string(x))
	case lua.LBool:
		if x {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		f := float64(x)
		if !math.IsInf(f, 0) && float64(int64(f)) == f && f >= -9223372036854775808.0 && f < 9223372036854775808.0 {
			return msgpackInt(b, int64(f))
		}
		if float64(float32(f)) == f {
			b = append(b, 0xca)
			return binary.BigEndian.AppendUint32(b, math.Float32bits(float32(f)))
		}
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(f))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		if n, ok := msgpackArrayLen(x); ok {
			b = msgpackHeader(b, 0x90, 0xdc, 0xdd, n)
			for i := 1; i <= n; i++ {
				b = msgpackEncode(L, b, L.GetTable(x, lua.LNumber(i)), level+1)
			}
			return b
		}
		n := 0
		for k, _ := x.Next(lua.LNil); k != lua.LNil; k, _ = x.Next(k) {
			n++
		}
		b = msgpackHeader(b, 0x80, 0xde, 0xdf, n)
		for k, val := x.Next(lua.LNil); k != lua.LNil; k, val = x.Next(k) {
			b = msgpackEncode(L, b, k, level+1)
			b = msgpackEncode(L, b, val, level+1)
		}
		return b
	}
	return append(b, 0xc0)
}

// msgpackArrayLen is table_is_an_array: the keys are exactly 1..n.
func msgpackArrayLen(t *lua.LTable) (int, bool) {
	count, max := 0, 0
	for k, _ := t.Next(lua.LNil); k != lua.LNil; k, _ = t.Next(k) {
		n, ok := k.(lua.LNumber)
		f := float64(n)
		if !ok || f <= 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			return 0, false
		}
		if int(f) > max {
			max = int(f)
		}
		count++
	}
	return count, max == count
}

// msgpackHeader appends an array or map header: fix, 16-bit or 32-bit.
func msgpackHeader(b []byte, fix, b16, b32 byte, n int) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}

// msgpackBytes is mp_encode_bytes: strings as fixraw, str 8, raw 16, raw 32.
func msgpackBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = binary.BigEndian.AppendUint16(append(b, 0xda), uint16(n))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0xdb), uint32(n))
	}
	return append(b, s...)
}

// msgpackInt is mp_encode_int: the smallest encoding of n.
func msgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(int8(n)))
	case n >= -128:
		return append(b, 0xd0, byte(int8(n)))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(int16(n)))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(int32(n)))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// msgpackDecoder is mp_cur.
type msgpackDecoder struct {
	L     *lua.LState
	s     string
	pos   int
	err   string // "Missing bytes in input." or "Bad data format in input."
	depth int
}

const (
	errMsgpackEOF = "Missing bytes in input."
	errMsgpackFmt = "Bad data format in input."
)

func (d *msgpackDecoder) need(n int) bool {
	if len(d.s)-d.pos < n {
		d.err = errMsgpackEOF
		return false
	}
	return true
}

func (d *msgpackDecoder) u16(i int) int { return int(binary.BigEndian.Uint16([]byte(d.s[i : i+2]))) }
func (d *msgpackDecoder) u32(i int) uint32 {
	return binary.BigEndian.Uint32([]byte(d.s[i : i+4]))
}
func (d *msgpackDecoder) u64(i int) uint64 {
	return binary.BigEndian.Uint64([]byte(d.s[i : i+8]))
}

// str reads n bytes after a header of h bytes.
func (d *msgpackDecoder) str(h, n int) lua.LValue {
	if !d.need(h + n) {
		return lua.LNil
	}
	v := lua.LString(d.s[d.pos+h : d.pos+h+n])
	d.pos += h + n
	return v
}

func (d *msgpackDecoder) value() lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	d.depth++
	defer func() { d.depth-- }()
	if d.depth > msgpackMaxDepth {
		d.L.RaiseError("stack overflow (too many return values at once; use unpack_one or unpack_limit instead.)")
	}
	c := d.s[d.pos]
	switch c {
	case 0xcc:
		if !d.need(2) {
			return lua.LNil
		}
		d.pos += 2
		return lua.LNumber(d.s[d.pos-1])
	case 0xd0:
		if !d.need(2) {
			return lua.LNil
		}
		d.pos += 2
		return lua.LNumber(int8(d.s[d.pos-1]))
	case 0xcd:
		if !d.need(3) {
			return lua.LNil
		}
		d.pos += 3
		return lua.LNumber(d.u16(d.pos - 2))
	case 0xd1:
		if !d.need(3) {
			return lua.LNil
		}
		d.pos += 3
		return lua.LNumber(int16(d.u16(d.pos - 2)))
	case 0xce:
		if !d.need(5) {
			return lua.LNil
		}
		d.pos += 5
		return lua.LNumber(d.u32(d.pos - 4))
	case 0xd2:
		if !d.need(5) {
			return lua.LNil
		}
		d.pos += 5
		return lua.LNumber(int32(d.u32(d.pos - 4)))
	case 0xcf:
		if !d.need(9) {
			return lua.LNil
		}
		d.pos += 9
		// lua_pushunsigned is lua_pushinteger here: past 2^63 it wraps.
		return lua.LNumber(int64(d.u64(d.pos - 8)))
	case 0xd3:
		if !d.need(9) {
			return lua.LNil
		}
		d.pos += 9
		return lua.LNumber(int64(d.u64(d.pos - 8)))
	case 0xc0:
		d.pos++
		return lua.LNil
	case 0xc3:
		d.pos++
		return lua.LTrue
	case 0xc2:
		d.pos++
		return lua.LFalse
	case 0xca:
		if !d.need(5) {
			return lua.LNil
		}
		d.pos += 5
		return lua.LNumber(math.Float32frombits(d.u32(d.pos - 4)))
	case 0xcb:
		if !d.need(9) {
			return lua.LNil
		}
		d.pos += 9
		return lua.LNumber(math.Float64frombits(d.u64(d.pos - 8)))
	case 0xd9:
		if !d.need(2) {
			return lua.LNil
		}
		return d.str(2, int(d.s[d.pos+1]))
	case 0xda:
		if !d.need(3) {
			return lua.LNil
		}
		return d.str(3, d.u16(d.pos+1))
	case 0xdb:
		if !d.need(5) {
			return lua.LNil
		}
		n := d.u32(d.pos + 1)
		if uint64(n) > uint64(len(d.s)) {
			d.pos += 5
			d.err = errMsgpackEOF
			return lua.LNil
		}
		return d.str(5, int(n))
	case 0xdc, 0xde:
		if !d.need(3) {
			return lua.LNil
		}
		n := d.u16(d.pos + 1)
		d.pos += 3
		return d.aggregate(c == 0xde, int64(n))
	case 0xdd, 0xdf:
		if !d.need(5) {
			return lua.LNil
		}
		n := d.u32(d.pos + 1)
		d.pos += 5
		return d.aggregate(c == 0xdf, int64(n))
	}
	switch {
	case c&0x80 == 0:
		d.pos++
		return lua.LNumber(c)
	case c&0xe0 == 0xe0:
		d.pos++
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0:
		return d.str(1, int(c&0x1f))
	case c&0xf0 == 0x90:
		d.pos++
		return d.aggregate(false, int64(c&0xf))
	case c&0xf0 == 0x80:
		d.pos++
		return d.aggregate(true, int64(c&0xf))
	}
	d.err = errMsgpackFmt
	return lua.LNil
}

// aggregate reads n elements into an array, or n pairs into a map.
func (d *msgpackDecoder) aggregate(isMap bool, n int64) lua.LValue {
	hint := n
	if hint > int64(len(d.s)-d.pos) {
		hint = int64(len(d.s) - d.pos) // each element takes a byte at least
	}
	if isMap {
		t := d.L.CreateTable(0, int(hint))
		for ; n > 0; n-- {
			k := d.value()
			if d.err != "" {
				return t
			}
			v := d.value()
			if d.err != "" {
				return t
			}
			switch x := k.(type) {
			case *lua.LNilType:
				d.L.Error(lua.LString("table index is nil"), 0)
			case lua.LNumber:
				if math.IsNaN(float64(x)) {
					d.L.Error(lua.LString("table index is NaN"), 0)
				}
			}
			t.RawSet(k, v)
		}
		return t
	}
	t := d.L.CreateTable(int(hint), 0)
	for i := 1; int64(i) <= n; i++ {
		v := d.value()
		if d.err != "" {
			return t
		}
		if v != lua.LNil {
			t.RawSetInt(i, v)
		}
	}
	return t
}

// msgpackUnpack is mp_unpack_full: limit 0 and offset 0 unpack everything
// and return only the values; otherwise at most limit values from offset,
// after the offset to go on from (-1 at the end).
func msgpackUnpack(L *lua.LState, limit, offset int64) int {
	s := checkString(L, 1, "unpack")
	all := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		// Redis prints the length where it means the limit.
		L.RaiseError("Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	}
	if offset > int64(len(s)) {
		L.RaiseError("Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if all {
		limit = math.MaxInt32
	}
	d := msgpackDecoder{L: L, s: s, pos: int(offset)}
	start := L.GetTop()
	cnt := 0
	for ; d.pos < len(s) && int64(cnt) < limit; cnt++ {
		v := d.value()
		switch d.err {
		case errMsgpackEOF, errMsgpackFmt:
			L.RaiseError("%s", d.err)
		}
		L.Push(v)
	}
	if !all {
		next := lua.LNumber(d.pos)
		if d.pos == len(s) {
			next = -1
		}
		L.Insert(next, start+1)
		cnt++
	}
	return cnt
}
