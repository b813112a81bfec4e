package resp

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"
)

var fuzzSeeds = []string{
	"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n",
	"*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n",
	"*2\r\n$3\r\nGET\r\n$0\r\n\r\n",
	"*0\r\n",
	"*-1\r\n",
	"*1\r\n$-2\r\n",
	"*1\r\n$-1\r\n",
	"*99999999999\r\n",
	"*1\r\n$99999999999\r\n",
	"*3\r\n$3\r\nSET\r\n$1\r\nx\r\nfooz\r\n",
	"*1\rX$3\rYfooZZ",
	"*2\r\n$3\r\nGET\r\n$3\r\nk",
	"PING\r\n",
	"PING\n",
	"\r\n",
	"SET k \"hello\\x41\\n\" 'it\\'s'\r\n",
	"SET k \"unbalanced\r\n",
	"\"a\"b\r\n",
	"\"\\x4\"\n",
	" \t\v\f\n",
	"*1\r\n$01\r\nx\r\n",
	"*01\r\n$1\r\nx\r\n",
	"*00\r\n",
	"*1\r\n$00\r\n\r\n",
	"*1\r\n$12345678\r\n",
	"*1\r\n$123456789\r\n",
	"*123456789\r\n",
	"*2000000\r\n",
	"*1\r\n$3x\r\nabc\r\n",
}

func FuzzParseCommand(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		// Inline parsing rewrites its input, so work on a copy and keep in
		// as the original text.
		buf := append([]byte(nil), in...)
		args, n, err := ParseCommand(buf, nil)
		if n < 0 || n > len(buf) {
			t.Fatalf("n = %d for %d bytes", n, len(buf))
		}
		if err != nil {
			var pe *ProtocolError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ProtocolError", err)
			}
			if n != 0 || len(args) != 0 {
				t.Fatalf("error %v with n=%d, %d args", err, n, len(args))
			}
			return
		}
		if n == 0 {
			if len(args) != 0 {
				t.Fatalf("incomplete request returned %d args", len(args))
			}
			return
		}
		base := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
		for i, a := range args {
			if cap(a) != len(a) {
				t.Fatalf("arg %d: cap %d > len %d", i, cap(a), len(a))
			}
			if len(a) == 0 {
				continue
			}
			p := uintptr(unsafe.Pointer(unsafe.SliceData(a)))
			if p < base || p+uintptr(len(a)) > base+uintptr(n) {
				t.Fatalf("arg %d is not inside buf[:n]", i)
			}
		}

		// The request must not depend on what follows it.
		again := append([]byte(nil), in[:n]...)
		args2, n2, err2 := ParseCommand(again, nil)
		if err2 != nil || n2 != n || len(args2) != len(args) {
			t.Fatalf("reparse of %q: n=%d err=%v args=%d; first n=%d args=%d",
				in[:n], n2, err2, len(args2), n, len(args))
		}
		for i := range args {
			if !bytes.Equal(args[i], args2[i]) {
				t.Fatalf("arg %d: %q then %q", i, args[i], args2[i])
			}
		}

		// And it must be waited for until its last byte has arrived.
		if n <= 512 {
			for i := 0; i < n; i++ {
				part := append([]byte(nil), in[:i]...)
				pa, pn, perr := ParseCommand(part, nil)
				if pn != 0 || perr != nil || len(pa) != 0 {
					t.Fatalf("prefix %d of %q: n=%d err=%v args=%d", i, in[:n], pn, perr, len(pa))
				}
			}
		}
	})
}

// ParseInt accepts exactly the canonical decimal spelling of an int64, which
// is what Redis's string2ll amounts to.
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-0", "01", "+1", "-9223372036854775808", "9223372036854775808", " 1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInt([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		wantOK := err == nil && strconv.FormatInt(want, 10) == s
		if ok != wantOK || (ok && got != want) {
			t.Fatalf("ParseInt(%q) = %d, %v; want %d, %v", s, got, ok, want, wantOK)
		}
	})
}

// parsedReq is what a parse returned, with the arguments copied out.
type parsedReq struct {
	args []string
	n    int
	err  error
}

func (r parsedReq) String() string {
	return fmt.Sprintf("{%q n=%d err=%v}", r.args, r.n, r.err)
}

// parseAll parses the requests in in one after another, each from a buffer
// that holds it whole, as ParseCommand sees them.
func parseAll(in []byte, unauth bool, max int) []parsedReq {
	var out []parsedReq
	for len(in) > 0 && len(out) < max {
		buf := append([]byte(nil), in...)
		p := Parser{Unauthenticated: unauth}
		args, n, err := p.Parse(buf, nil)
		out = append(out, parsedReq{strs(args), n, err})
		if n == 0 || err != nil {
			break
		}
		in = in[n:]
	}
	return out
}

// parsePieces feeds the requests in in to one Parser as a connection
// receives them: the bytes arrive in pieces whose ends next returns, and
// each call gets a new buffer holding the unparsed bytes received so far,
// as when the reader compacts or grows its buffer.
func parsePieces(t *testing.T, in []byte, unauth bool, max int, next func(have int) int) []parsedReq {
	var out []parsedReq
	p := Parser{Unauthenticated: unauth}
	start, have := 0, 0
	for have < len(in) && len(out) < max {
		have = min(max0(next(have), have+1), len(in))
		for len(out) < max {
			buf := append([]byte(nil), in[start:have]...)
			args, n, err := p.Parse(buf, nil)
			if len(p.args)*6 > len(buf) || cap(p.args) > len(buf)/3+16 {
				t.Fatalf("%d offsets kept (room for %d) for %d bytes", len(p.args), cap(p.args), len(buf))
			}
			if n == 0 && err == nil {
				if len(args) != 0 {
					t.Fatalf("incomplete request returned %d args", len(args))
				}
				if have == len(in) {
					out = append(out, parsedReq{nil, 0, nil})
					return out
				}
				break
			}
			out = append(out, parsedReq{strs(args), n, err})
			if err != nil {
				return out
			}
			start += n
			if start == have {
				break
			}
		}
	}
	return out
}

func max0(a, b int) int {
	if a > b {
		return a
	}
	return b
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sameReqs(a, b []parsedReq) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].n != b[i].n || errText(a[i].err) != errText(b[i].err) || !equalStrs(a[i].args, b[i].args) {
			return false
		}
	}
	return true
}

// A Parser fed a stream in pieces, byte by byte, split at every position or
// at random ones, returns the same requests as parsing each one whole.
func FuzzParserPieces(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s), false, uint64(1))
	}
	f.Add([]byte(frame("AUTH", "pw")+"*11\r\n"), true, uint64(7))
	f.Add([]byte("*1\r\n$16385\r\n"), true, uint64(3))
	f.Add([]byte(frame("SET", "k", "v")+frame("GET", "k")+"PING\r\n"+frame("DEL", "a", "b")), false, uint64(99))
	f.Fuzz(func(t *testing.T, in []byte, unauth bool, seed uint64) {
		const max = 16
		want := parseAll(in, unauth, max)
		// The whole stream's last request may be incomplete: parseAll ends
		// with it, and so must the pieces.
		check := func(how string, got []parsedReq) {
			if !sameReqs(got, want) {
				t.Fatalf("%s: %q\nwhole: %q", how, got, want)
			}
		}
		check("byte by byte", parsePieces(t, in, unauth, max, func(have int) int { return have + 1 }))
		if len(in) <= 256 {
			for i := 1; i < len(in); i++ {
				check("split at "+strconv.Itoa(i), parsePieces(t, in, unauth, max, func(have int) int {
					if have < i {
						return i
					}
					return len(in)
				}))
			}
		}
		r := rand.New(rand.NewPCG(seed, seed>>32))
		check("random pieces", parsePieces(t, in, unauth, max, func(have int) int {
			return have + 1 + r.IntN(max0(len(in)/4, 1))
		}))
	})
}
