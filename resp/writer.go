package resp

import (
	"math"
	"math/bits"
	"strconv"
)

// Writer appends replies to B in the protocol version the client negotiated
// (2 or 3). The zero value writes RESP2. A Writer never allocates unless B must
// grow; callers keep B and reset it to B[:0] between uses.
type Writer struct {
	B      []byte
	Proto  int
	Errors int // error replies written, so a caller can tell a command failed
}

// RESP3 reports whether replies use the RESP3 types.
func (w *Writer) RESP3() bool { return w.Proto >= 3 }

// OK appends +OK.
func (w *Writer) OK() { w.B = append(w.B, "+OK\r\n"...) }

// Simple appends a simple string; s must not contain CR or LF.
func (w *Writer) Simple(s string) {
	w.B = append(w.B, '+')
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// SimpleArray appends an array of simple strings: the shape of every HELP
// reply.
func (w *Writer) SimpleArray(lines []string) {
	w.Array(len(lines))
	for _, l := range lines {
		w.Simple(l)
	}
}

// Err appends an error reply. Error texts may quote what a client sent, so
// CR and LF in them become spaces, as Redis does: no text can end the reply
// early and forge another.
func (w *Writer) Err(e Error) {
	w.Errors++
	w.B = append(w.B, '-')
	start := len(w.B)
	w.B = append(w.B, e...)
	for i := start; i < len(w.B); i++ {
		if c := w.B[i]; c == '\r' || c == '\n' {
			w.B[i] = ' '
		}
	}
	w.B = append(w.B, '\r', '\n')
}

// Int appends an integer reply. Counts under 1000, the commonest replies
// there are, take one append without strconv.
func (w *Writer) Int(n int64) {
	switch u := uint64(n); {
	case u < 10:
		w.B = append(w.B, ':', byte('0'+u), '\r', '\n')
	case u < 100:
		w.B = append(w.B, ':', byte('0'+u/10), byte('0'+u%10), '\r', '\n')
	case u < 1000:
		w.B = append(w.B, ':', byte('0'+u/100), byte('0'+u/10%10), byte('0'+u%10), '\r', '\n')
	default:
		w.header(':', n)
	}
}

// Bulk appends a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.header('$', int64(len(b)))
	w.B = append(w.B, b...)
	w.B = append(w.B, '\r', '\n')
}

// BulkString appends a bulk string from a Go string.
func (w *Writer) BulkString(s string) {
	w.header('$', int64(len(s)))
	w.B = append(w.B, s...)
	w.B = append(w.B, '\r', '\n')
}

// BulkInt appends n formatted in decimal as a bulk string, the way Redis
// answers GET on an integer-encoded value.
func (w *Writer) BulkInt(n int64) {
	var tmp [20]byte
	w.Bulk(strconv.AppendInt(tmp[:0], n, 10))
}

// Null appends the null bulk string ($-1 in RESP2, _ in RESP3).
func (w *Writer) Null() {
	if w.RESP3() {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "$-1\r\n"...)
}

// NullArray appends the null array (*-1 in RESP2, _ in RESP3).
func (w *Writer) NullArray() {
	if w.RESP3() {
		w.B = append(w.B, "_\r\n"...)
		return
	}
	w.B = append(w.B, "*-1\r\n"...)
}

// header appends the line c, n in decimal, CRLF: B grows once to the
// line's length and the digits are written into it from the end, with no
// copy between.
func (w *Writer) header(c byte, n int64) {
	u := uint64(n)
	size := 3 // c and CRLF
	if n < 0 {
		u = -u
		size++
	}
	size += decimalLen(u)
	b := w.B
	at := len(b)
	if cap(b)-at < size {
		b = append(b, make([]byte, size)...)
	} else {
		b = b[:at+size]
	}
	b[at] = c
	if n < 0 {
		b[at+1] = '-'
	}
	i := len(b) - 2
	b[i], b[i+1] = '\r', '\n'
	for u >= 100 {
		q := u / 100
		d := (u - q*100) * 2
		i -= 2
		b[i], b[i+1] = digitPairs[d], digitPairs[d+1]
		u = q
	}
	if u >= 10 {
		b[i-2], b[i-1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		b[i-1] = byte('0' + u)
	}
	w.B = b
}

// decimalLen is the number of decimal digits of u.
func decimalLen(u uint64) int {
	if u < 10 {
		return 1
	}
	// log10(2) is about 1233/4096: t is the digit count, or one less.
	t := bits.Len64(u) * 1233 >> 12
	if u < pow10[t] {
		return t
	}
	return t + 1
}

// pow10[i] is 10^i, up to what a uint64 holds.
var pow10 = [...]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
	1e16, 1e17, 1e18, 1e19}

// digitPairs holds "00" to "99", two bytes each.
const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// Array appends the header of an array of n elements.
func (w *Writer) Array(n int) { w.header('*', int64(n)) }

// Map appends the header of a map of n key/value pairs: %n in RESP3, an array
// of 2n elements in RESP2.
func (w *Writer) Map(n int) {
	if w.RESP3() {
		w.header('%', int64(n))
		return
	}
	w.header('*', int64(2*n))
}

// Set appends the header of a set of n elements: ~n in RESP3, *n in RESP2.
func (w *Writer) Set(n int) {
	if w.RESP3() {
		w.header('~', int64(n))
		return
	}
	w.header('*', int64(n))
}

// Push appends the header of an out-of-band push of n elements: >n in RESP3,
// *n in RESP2.
func (w *Writer) Push(n int) {
	if w.RESP3() {
		w.header('>', int64(n))
		return
	}
	w.header('*', int64(n))
}

// Double appends a floating point reply: ,f in RESP3, a bulk string in RESP2.
// The text is AppendFloat's, which is also how RESP3 spells inf, -inf and nan.
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	b := AppendFloat(tmp[:0], f)
	if w.RESP3() {
		w.B = append(w.B, ',')
		w.B = append(w.B, b...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// AppendFloat formats f as Redis 7 replies with a double (ZSCORE, ZINCRBY,
// RESP3 doubles): the shortest digits that read back to f, written plainly
// unless that would take more than 7 trailing zeros or, for a fraction, more
// than 6 decimals with the leading digit 4 or more places from the point; then
// in exponent form with an unpadded exponent ("1e+8", "1.5e-7"). Infinities
// and NaN are "inf", "-inf" and "nan".
//
// INCRBYFLOAT stores its result in a different, never-exponent form; this is
// not that.
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	if math.Signbit(f) {
		dst = append(dst, '-')
		f = -f
	}
	if f == 0 {
		return append(dst, '0')
	}
	// strconv finds the shortest digits; only the layout is Redis's.
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64) // d[.ddd]e±XX
	var digits [24]byte
	nd := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	neg := e[i+1] == '-'
	exp := 0
	for _, c := range e[i+2:] {
		exp = exp*10 + int(c-'0')
	}
	if neg {
		exp = -exp
	}
	d := digits[:nd]
	k := exp - (nd - 1) // power of ten of the last digit
	absExp := exp
	if absExp < 0 {
		absExp = -absExp
	}
	switch {
	case k >= 0 && exp < nd+7:
		dst = append(dst, d...)
		for ; k > 0; k-- {
			dst = append(dst, '0')
		}
		return dst
	case k < 0 && (k > -7 || absExp < 4):
		point := nd + k
		if point <= 0 {
			dst = append(dst, '0', '.')
			for ; point < 0; point++ {
				dst = append(dst, '0')
			}
			return append(dst, d...)
		}
		dst = append(dst, d[:point]...)
		dst = append(dst, '.')
		return append(dst, d[point:]...)
	}
	dst = append(dst, d[0])
	if nd > 1 {
		dst = append(dst, '.')
		dst = append(dst, d[1:]...)
	}
	dst = append(dst, 'e')
	if exp < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(absExp), 10)
}

// Bool appends a boolean: #t/#f in RESP3, :1/:0 in RESP2.
func (w *Writer) Bool(v bool) {
	if w.RESP3() {
		if v {
			w.B = append(w.B, "#t\r\n"...)
		} else {
			w.B = append(w.B, "#f\r\n"...)
		}
		return
	}
	if v {
		w.B = append(w.B, ":1\r\n"...)
	} else {
		w.B = append(w.B, ":0\r\n"...)
	}
}

// BigNumber appends a big number given as decimal digits: (n in RESP3, a bulk
// string in RESP2.
func (w *Writer) BigNumber(digits []byte) {
	if w.RESP3() {
		w.B = append(w.B, '(')
		w.B = append(w.B, digits...)
		w.B = append(w.B, '\r', '\n')
		return
	}
	w.Bulk(digits)
}

// Verbatim appends a verbatim string with a three-letter format ("txt",
// "mkd"): =len\r\nfmt:text in RESP3, a bulk string in RESP2.
func (w *Writer) Verbatim(format string, text []byte) {
	if !w.RESP3() {
		w.Bulk(text)
		return
	}
	w.header('=', int64(len(text)+4))
	w.B = append(w.B, format...)
	w.B = append(w.B, ':')
	w.B = append(w.B, text...)
	w.B = append(w.B, '\r', '\n')
}
