package script

import (
	"math"
	"strconv"
)

// appendG appends f as C's printf("%.<prec>g") prints it with glibc: prec
// significant digits, the shorter of fixed and exponent notation, trailing
// zeros dropped, an exponent of at least two digits, and "inf", "-inf",
// "nan" or "-nan" (a NaN's sign is printed).
//
// Redis and its Lua print numbers this way in several places: Lua's
// tostring and cjson with %.14g, redis.call arguments and RESP3 doubles with
// %.17g.
func appendG(b []byte, f float64, prec int) []byte {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	if prec == 0 {
		prec = 1
	}
	// Exponent notation with prec digits gives the digits and the exponent
	// X after rounding, which decides the style as C decides it.
	var tmp [40]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', prec-1, 64)
	i := len(e) - 1
	for e[i] != 'e' {
		i--
	}
	x, _ := strconv.Atoi(string(e[i+1:]))
	if x < -4 || x >= prec {
		// Mantissa without trailing zeros, then the exponent as C prints it.
		m := trimZeros(e[:i])
		b = append(b, m...)
		b = append(b, 'e')
		if x < 0 {
			b = append(b, '-')
			x = -x
		} else {
			b = append(b, '+')
		}
		if x < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(x), 10)
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, 'f', prec-1-x, 64)
	return append(b[:start], trimZeros(b[start:])...)
}

// trimZeros drops the trailing zeros of a number's fraction, and its point
// if nothing is left after it.
func trimZeros(m []byte) []byte {
	dot := -1
	for i, c := range m {
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return m
	}
	n := len(m)
	for n > dot+1 && m[n-1] == '0' {
		n--
	}
	if n == dot+1 {
		n = dot
	}
	return m[:n]
}

// formatLuaNumber is a number as Redis's Lua prints it (LUA_NUMBER_FMT,
// "%.14g"): tostring, string coercion in the libraries here, error texts.
func formatLuaNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e14 && (f != 0 || !math.Signbit(f)) {
		// Integers below 10^14 print as themselves; the common case needs no
		// exponent probe.
		return strconv.FormatInt(int64(f), 10)
	}
	var tmp [32]byte
	return string(appendG(tmp[:0], f, 14))
}

// luaInt is (long long)d as C computes it on x86-64: the value truncated
// toward zero, and the "integer indefinite" value, the minimum int64, for a
// NaN or a value out of range. Redis converts a Lua number reply with this
// cast; Go leaves the result of such a conversion to the platform, so it is
// spelled out.
func luaInt(d float64) int64 {
	if d != d || d >= 9223372036854775808.0 || d < -9223372036854775808.0 {
		return math.MinInt64
	}
	return int64(d)
}
