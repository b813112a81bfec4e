package shardowner

// FuzzRestore gives RESTORE fuzzed objects under a footer whose checksum
// matches, so that they reach the payload reader. Whatever the object,
// RESTORE must answer OK or Bad data format, without a panic, leave the
// table consistent (kvtable's Check), and a value it took must come back
// the same through DUMP and RESTORE.
//
//	go test -run XXX -fuzz FuzzRestore -fuzztime 5m ./shardowner/

import (
	"strings"
	"testing"

	"github.com/corekv/corekv/shardowner/rdbfile"
)

// fuzzObjects are the seed objects: Redis's payloads less their footers, and
// hand-made ones of each type the reader takes.
func fuzzObjects() []string {
	var out []string
	for _, p := range []string{redisDumpHello, redisDumpLZF, redisDumpList, redisDumpIntset, redisDumpHash, redisDumpZSetLP} {
		out = append(out, p[:len(p)-rdbFooter])
	}
	return append(out,
		"\x00\xc0\x7f", "\x00\xc1\x00\x80", "\x00\xc2\x00\x00\x00\x80",
		"\x01\x02\x01a\x01b", "\x02\x02\x01a\x01a", "\x04\x01\x01f\x01v",
		"\x03\x01\x01a\x031.5", "\x03\x01\x01a\xfd", "\x05\x01\x01a\x00\x00\x00\x00\x00\x00\xf8\x3f",
		"\x12\x02\x01\x01x\x02\x0d\x0d\x00\x00\x00\x01\x00\x81a\x02\xff",
		"\x0e\x01\x0d\x0d\x00\x00\x00\x0b\x00\x00\x00\x01\x00\x00\xf2\xff",
		"\x0a\x0d\x0d\x00\x00\x00\x0a\x00\x00\x00\x00\x00\xff"+strings.Repeat("\x00", 1),
		"\x0b\x0c\x08\x00\x00\x00\x01\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00",
		"\x01\x80\xff\xff\xff\xff", "\x05\x81\x00\x00\x00\x01\x00\x00\x00\x00",
	)
}

func FuzzRestore(f *testing.F) {
	for _, o := range fuzzObjects() {
		f.Add([]byte(o))
	}
	f.Fuzz(func(t *testing.T, obj []byte) {
		c := newTestCtx()
		p := string(appendPayloadFooter(append([]byte(nil), obj...)))
		got := do(c, "restore", "k", "0", p)
		switch got {
		case ok:
		case errr(errBadDataFormat):
			if do(c, "exists", "k") != num(0) {
				t.Fatalf("a refused payload left a key")
			}
			return
		default:
			t.Fatalf("restore of %q: %q", obj, got)
		}
		if err := c.Table().Check(); err != nil {
			t.Fatal(err)
		}
		dump := do(c, "dump", "k")
		if !strings.HasPrefix(dump, "$") {
			t.Fatalf("dump after restore of %q: %q", obj, dump)
		}
		again := dump[strings.Index(dump, "\r\n")+2 : len(dump)-2]
		if got := do(c, "restore", "k2", "0", again); got != ok {
			t.Fatalf("restore of our own dump %q: %q", again, got)
		}
		// Big sets and hashes may list their elements in another order.
		if typ := do(c, "type", "k"); typ != "+set\r\n" && typ != "+hash\r\n" && do(c, "dump", "k2") != dump {
			t.Fatalf("dump of a restored dump differs from the first")
		}
		if err := c.Table().Check(); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzPayloadBlobs feeds the nested blob readers arbitrary bytes: they
// must not panic, and what a listpack or ziplist walk accepts must have
// come from inside the blob.
func FuzzPayloadBlobs(f *testing.F) {
	f.Add([]byte("\x0d\x00\x00\x00\x01\x00\x81a\x02\xff"))
	f.Add([]byte("\x0d\x00\x00\x00\x0b\x00\x00\x00\x01\x00\x00\xf2\xff"))
	f.Add([]byte("\x02\x00\x00\x00\x01\x00\x00\x00\x05\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		total := 0
		walkListpack(b, func(e []byte) { total += len(e) })
		walkZiplist(b, func(e []byte) { total += len(e) })
		if total > 2*len(b)+64*len(b) {
			t.Fatalf("walks gave %d bytes from a %d-byte blob", total, len(b))
		}
		validIntsetBlob(b)
		if out, ok := rdbfile.Decompress(nil, b, 4*len(b)); ok && len(out) != 4*len(b) {
			t.Fatalf("lzf gave %d bytes, not the %d asked for", len(out), 4*len(b))
		}
		var r rdbfile.Reader
		r.Reset(b)
		for range 64 {
			if _, ok := r.String(); !ok {
				break
			}
		}
	})
}
