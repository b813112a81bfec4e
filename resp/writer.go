package resp

import (
	"math"
	"strconv"
)

// Writer appends replies to B in the protocol version the client negotiated
// (2 or 3). The zero value writes RESP2. A Writer never allocates unless B must
// grow; callers keep B and reset it to B[:0] between uses.
type Writer struct {
	B     []byte
	Proto int
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

// Err appends an error reply.
func (w *Writer) Err(e Error) {
	w.B = append(w.B, '-')
	w.B = append(w.B, e...)
	w.B = append(w.B, '\r', '\n')
}

// Int appends an integer reply.
func (w *Writer) Int(n int64) {
	w.B = append(w.B, ':')
	w.B = strconv.AppendInt(w.B, n, 10)
	w.B = append(w.B, '\r', '\n')
}

// Bulk appends a bulk string.
func (w *Writer) Bulk(b []byte) {
	w.B = append(w.B, '$')
	w.B = strconv.AppendInt(w.B, int64(len(b)), 10)
	w.B = append(w.B, '\r', '\n')
	w.B = append(w.B, b...)
	w.B = append(w.B, '\r', '\n')
}

// BulkString appends a bulk string from a Go string.
func (w *Writer) BulkString(s string) {
	w.B = append(w.B, '$')
	w.B = strconv.AppendInt(w.B, int64(len(s)), 10)
	w.B = append(w.B, '\r', '\n')
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

func (w *Writer) header(c byte, n int) {
	w.B = append(w.B, c)
	w.B = strconv.AppendInt(w.B, int64(n), 10)
	w.B = append(w.B, '\r', '\n')
}

// Array appends the header of an array of n elements.
func (w *Writer) Array(n int) { w.header('*', n) }

// Map appends the header of a map of n key/value pairs: %n in RESP3, an array
// of 2n elements in RESP2.
func (w *Writer) Map(n int) {
	if w.RESP3() {
		w.header('%', n)
		return
	}
	w.header('*', 2*n)
}

// Set appends the header of a set of n elements: ~n in RESP3, *n in RESP2.
func (w *Writer) Set(n int) {
	if w.RESP3() {
		w.header('~', n)
		return
	}
	w.header('*', n)
}

// Push appends the header of an out-of-band push of n elements: >n in RESP3,
// *n in RESP2.
func (w *Writer) Push(n int) {
	if w.RESP3() {
		w.header('>', n)
		return
	}
	w.header('*', n)
}

// Double appends a floating point reply: ,f in RESP3, a bulk string in RESP2.
// The text is the shortest that reads back to the same float, as Redis 7 prints
// it, with inf/-inf/nan spelled the RESP3 way.
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

// AppendFloat formats f as Redis does for doubles (INCRBYFLOAT, ZSCORE, …).
func AppendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'g', -1, 64)
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
	w.header('=', len(text)+4)
	w.B = append(w.B, format...)
	w.B = append(w.B, ':')
	w.B = append(w.B, text...)
	w.B = append(w.B, '\r', '\n')
}
