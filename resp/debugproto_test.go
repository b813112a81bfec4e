package resp

import (
	"bytes"
	"strings"
	"testing"
)

// debugProtocolTypes are DEBUG PROTOCOL's types, as Redis names them.
var debugProtocolTypes = strings.Split("string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false", "|")

// FuzzDebugProtocol: any name is answered only when it is one of Redis's
// types, in any case, and an unknown one leaves the writer as it was.
func FuzzDebugProtocol(f *testing.F) {
	for _, t := range append(debugProtocolTypes, "MAP", "nosuch", "") {
		f.Add([]byte(t), byte(2))
		f.Add([]byte(t), byte(3))
	}
	f.Fuzz(func(t *testing.T, name []byte, proto byte) {
		w := Writer{Proto: 2 + int(proto&1), B: []byte("x")}
		known := false
		for _, ty := range debugProtocolTypes {
			known = known || EqualFold(name, ty)
		}
		ok := w.DebugProtocol(name)
		switch {
		case ok != known:
			t.Fatalf("%q: answered %v, a type of Redis's: %v", name, ok, known)
		case !ok && string(w.B) != "x":
			t.Fatalf("%q: unknown, yet wrote %q", name, w.B[1:])
		case ok && (len(w.B) < 4 || !bytes.HasSuffix(w.B, []byte("\r\n"))):
			t.Fatalf("%q: wrote %q", name, w.B[1:])
		}
	})
}
