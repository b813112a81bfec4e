package resp

import (
	"bytes"
	"errors"
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
