package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// The bit library, LuaBitOp 1.0 as Redis ships it: operations on 32-bit
// integers, results as signed 32-bit numbers.

// bitArg is LuaBitOp's barg: the argument's number, rounded and wrapped to
// 32 bits by adding 2^52+2^51 and taking the low word of the double, so
// that fractions round to nearest even and values wrap modulo 2^32. A
// value that is not a number (or numeric string) is a type error.
func bitArg(L *lua.LState, n int, fname string) uint32 {
	f, ok := luaToNumber(L.Get(n))
	if !ok {
		f = 0
	}
	b := uint32(math.Float64bits(f + 6755399441055744.0))
	if b == 0 && !ok {
		typeError(L, n, fname, "number")
	}
	return b
}

func bitRet(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

func (e *Engine) openBit() *lua.LTable {
	L := e.vm
	t := L.CreateTable(0, 12)
	set := func(name string, f func(L *lua.LState) int) { t.RawSetString(name, L.NewFunction(f)) }
	set("tobit", func(L *lua.LState) int { return bitRet(L, bitArg(L, 1, "tobit")) })
	set("bnot", func(L *lua.LState) int { return bitRet(L, ^bitArg(L, 1, "bnot")) })
	fold := func(name string, op func(a, b uint32) uint32) {
		set(name, func(L *lua.LState) int {
			b := bitArg(L, 1, name)
			for i := L.GetTop(); i > 1; i-- {
				b = op(b, bitArg(L, i, name))
			}
			return bitRet(L, b)
		})
	}
	fold("band", func(a, b uint32) uint32 { return a & b })
	fold("bor", func(a, b uint32) uint32 { return a | b })
	fold("bxor", func(a, b uint32) uint32 { return a ^ b })
	shift := func(name string, op func(b, n uint32) uint32) {
		set(name, func(L *lua.LState) int {
			b := bitArg(L, 1, name)
			n := bitArg(L, 2, name) & 31
			return bitRet(L, op(b, n))
		})
	}
	shift("lshift", func(b, n uint32) uint32 { return b << n })
	shift("rshift", func(b, n uint32) uint32 { return b >> n })
	shift("arshift", func(b, n uint32) uint32 { return uint32(int32(b) >> n) })
	shift("rol", func(b, n uint32) uint32 { return b<<n | b>>(32-n) })
	shift("ror", func(b, n uint32) uint32 { return b<<(32-n) | b>>n })
	set("bswap", func(L *lua.LState) int {
		b := bitArg(L, 1, "bswap")
		return bitRet(L, b>>24|(b>>8)&0xff00|(b&0xff00)<<8|b<<24)
	})
	set("tohex", func(L *lua.LState) int {
		b := bitArg(L, 1, "tohex")
		n := int32(8)
		if L.GetTop() >= 2 {
			n = int32(bitArg(L, 2, "tohex"))
		}
		digits := "0123456789abcdef"
		if n < 0 {
			n = -n
			digits = "0123456789ABCDEF"
		}
		if n > 8 {
			n = 8
		} else if n < 0 {
			n = 0 // -(-2^31): C reads past its buffer here
		}
		var buf [8]byte
		for i := int(n) - 1; i >= 0; i-- {
			buf[i] = digits[b&15]
			b >>= 4
		}
		L.Push(lua.LString(buf[:n]))
		return 1
	})
	return t
}
