package resp

import (
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
