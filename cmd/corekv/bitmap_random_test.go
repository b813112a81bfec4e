package main

import (
	"strconv"
	"strings"
)

// diffBitmapCommands are TestRandomDiff's bitmap commands. They are not
// mutated: a random offset can be a valid one near 2^32 bits, which would
// make both servers allocate half a gigabyte; the generators already cover
// the bad forms, with offsets that write at most a few KB.
func diffBitmapCommands() []diffCommand {
	return []diffCommand{
		{25, func(g *diffGen) *diffStep {
			return diffS("SETBIT", g.key(), g.bitOffset(), g.pick("0", "1", "1", "0", "2", "-1", "abc", "", "01"))
		}, true},
		{15, func(g *diffGen) *diffStep { return diffS("GETBIT", g.key(), g.bitReadOffset()) }, true},
		{20, func(g *diffGen) *diffStep {
			args := []string{"BITCOUNT", g.key()}
			switch g.r.Intn(6) {
			case 0:
			case 1:
				args = append(args, g.num())
			default:
				args = append(args, g.bitIndex(), g.bitIndex())
				if g.chance(2) {
					args = append(args, g.bitUnit())
				}
				if g.chance(15) {
					args = append(args, "x")
				}
			}
			return diffS(args...)
		}, true},
		{20, func(g *diffGen) *diffStep {
			args := []string{"BITPOS", g.key(), g.pick("0", "1", "0", "1", "2", "-1", "abc")}
			for n := g.r.Intn(4); n > 0; n-- {
				args = append(args, g.bitIndex())
			}
			if len(args) == 5 && g.chance(2) {
				args = append(args, g.bitUnit())
			}
			if g.chance(15) {
				args = append(args, g.bitUnit())
			}
			return diffS(args...)
		}, true},
		{20, func(g *diffGen) *diffStep {
			args := []string{"BITFIELD", g.key()}
			for n := g.r.Intn(5); n > 0; n-- {
				args = append(args, g.bitfieldOp(true)...)
			}
			return diffS(args...)
		}, true},
		{8, func(g *diffGen) *diffStep {
			args := []string{"BITFIELD_RO", g.key()}
			for n := g.r.Intn(4); n > 0; n-- {
				args = append(args, g.bitfieldOp(g.chance(6))...)
			}
			return diffS(args...)
		}, true},
		{15, func(g *diffGen) *diffStep {
			// Sources of one hash tag, on one shard, or any keys, which
			// corekv gathers from their shards.
			op := g.pick("AND", "OR", "XOR", "NOT", "and", "or", "xor", "not", "NAND", "")
			n := 1 + g.r.Intn(4)
			if strings.EqualFold(op, "not") && !g.chance(5) {
				n = 1
			}
			key := g.key
			if g.chance(2) {
				key = g.tagKey
			}
			args := []string{"BITOP", op, key()}
			for range n {
				args = append(args, key())
			}
			return diffS(args...)
		}, true},
	}
}

// bitOffset is a bit offset for a write: mostly within a few hundred bits,
// sometimes a few KB in, or invalid.
func (g *diffGen) bitOffset() string {
	switch g.r.Intn(10) {
	case 0:
		return strconv.Itoa(g.r.Intn(40_000))
	case 1:
		return g.pick("-1", "4294967296", "9223372036854775807", "-9223372036854775808", "abc", "", "1.5",
			"18446744073709551616", "#1", "01", "+5", " 1", "1\x00")
	}
	return strconv.Itoa(g.r.Intn(300))
}

// bitReadOffset is a bit offset to read: a write's, or one far past any
// string, up to the last valid one.
func (g *diffGen) bitReadOffset() string {
	if g.chance(8) {
		return g.pick("4294967295", "2147483648", "536870912", "100000000")
	}
	return g.bitOffset()
}

// bitIndex is a start or end of BITCOUNT or BITPOS.
func (g *diffGen) bitIndex() string {
	if g.chance(3) {
		return strconv.Itoa(g.r.Intn(400) - 200)
	}
	return g.num()
}

func (g *diffGen) bitUnit() string { return g.pick("BYTE", "BIT", "bit", "byte", "Bit", "bits", "") }

// bitfieldOp is one BITFIELD operation, with a write when write allows it,
// sometimes after an OVERFLOW, sometimes malformed.
func (g *diffGen) bitfieldOp(write bool) []string {
	var out []string
	if write && g.chance(3) {
		out = append(out, "OVERFLOW", g.pick("WRAP", "SAT", "FAIL", "sat", "fail", "wrap", "BOOM"))
	}
	typ := g.pick("u1", "u2", "u8", "i8", "i5", "u16", "i32", "i64", "u63", "i63", "u64", "i65", "i0", "u0", "x8", "I8",
		"u", "i", "", "u8\x00", "u-1", "u08", "i+8")
	if g.chance(3) {
		typ = g.pick("u", "i") + strconv.Itoa(1+g.r.Intn(64))
	}
	off := g.bitOffset()
	switch g.r.Intn(6) {
	case 0:
		off = "#" + strconv.Itoa(g.r.Intn(100))
	case 1:
		off = g.pick("#-1", "#", "#abc", "#67108863", "#67108864", "#2305843009213693953", "4294967295", "4294967232")
	}
	op := "GET"
	if write {
		op = g.pick("GET", "SET", "INCRBY", "set", "incrby", "get", "FOO")
	}
	if (op != "GET" && op != "get") && strings.HasPrefix(off, "#") && !strings.HasPrefix(off, "#-") {
		// #67108863 and past write up to 512 MB in: keep writes near.
		if n, err := strconv.Atoi(off[1:]); err == nil && n > 1000 {
			off = "#" + strconv.Itoa(n%1000)
		}
	}
	if op != "GET" && op != "get" && (off == "4294967295" || off == "4294967232") {
		off = "0"
	}
	out = append(out, op, typ, off)
	if op != "GET" && op != "get" {
		val := g.num()
		if g.chance(3) {
			val = strconv.Itoa(g.r.Intn(600) - 300)
		}
		out = append(out, val)
	}
	if g.chance(20) {
		out = out[:len(out)-1] // too few arguments
	}
	return out
}
