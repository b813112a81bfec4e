package shardowner

import (
	"testing"

	"github.com/corekv/corekv/resp"
)

func TestEncodeDecodeValue(t *testing.T) {
	for _, v := range []Value{
		{Kind: KindString, Str: []byte("hello")},
		{Kind: KindString, Str: []byte{}},
		{Kind: KindString, Str: []byte("with ttl"), ExpireAt: testNow + 5},
		{Kind: KindString, IsInt: true, Int: -9223372036854775808},
		{Kind: KindString, IsInt: true, Int: 42, ExpireAt: 1},
	} {
		b := EncodeValue([]byte("prefix"), v)
		got, _, ok := DecodeValue(b[len("prefix"):])
		if !ok {
			t.Fatalf("decode of %+v failed", v)
		}
		if got.Kind != v.Kind || got.IsInt != v.IsInt || got.Int != v.Int ||
			got.ExpireAt != v.ExpireAt || string(got.Str) != string(v.Str) {
			t.Fatalf("round trip: got %+v, want %+v", got, v)
		}
	}
	good := EncodeValue(nil, Value{Kind: KindString, IsInt: true, Int: 7})
	for _, b := range [][]byte{
		nil,
		good[:blobHeader],
		good[:len(good)-1],
		append([]byte{0}, good[1:]...),
		append([]byte{byte(KindString), 0x80}, good[2:]...),
		EncodeValue(nil, Value{Kind: KindString, Str: []byte("x"), ExpireAt: -1}),
	} {
		if v, _, ok := DecodeValue(b); ok {
			t.Errorf("DecodeValue(%q) accepted: %+v", b, v)
		}
	}
}

// The router moves a key between shards by taking (or dumping) it on one and
// restoring the blob on the other. These tests play both shards.
func TestInternalMove(t *testing.T) {
	src, dst := newTestCtx(), newTestCtx()
	if got := do(src, "corekv.dump", "k"); got != null {
		t.Fatalf("dump of a missing key: %q", got)
	}
	do(src, "set", "k", "hello", "px", "5000")
	do(src, "set", "n", "123")

	blob, _ := readBulk(t, do(src, "corekv.dump", "k"))
	if got := do(src, "exists", "k"); got != num(1) {
		t.Fatal("dump deleted the key")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"corekv.restore", "k2", blob, "nx"}, num(1)},
		{[]string{"corekv.restore", "k2", blob, "nx"}, num(0)},
		{[]string{"corekv.restore", "k2", blob, "replace"}, num(1)},
		{[]string{"corekv.restore", "k3", blob, "ANY"}, num(1)},
		{[]string{"corekv.restore", "k3", blob, "bogus"}, errr(resp.ErrSyntax)},
		{[]string{"corekv.restore", "k4", "junk", "any"}, errr(errBadBlob)},
		{[]string{"get", "k2"}, bulk("hello")},
		{[]string{"pttl", "k2"}, num(5000)},
		{[]string{"exists", "k4"}, num(0)},
	} {
		if got := do(dst, tc.args...); got != tc.want {
			t.Fatalf("%q: got %q, want %q", tc.args[:1], got, tc.want)
		}
	}

	blob, _ = readBulk(t, do(src, "corekv.take", "n"))
	if got := do(src, "exists", "n"); got != num(0) {
		t.Fatal("take left the key")
	}
	if got := do(src, "corekv.take", "n"); got != null {
		t.Fatalf("take of a missing key: %q", got)
	}
	if got := do(dst, "corekv.restore", "n", blob, "replace"); got != num(1) {
		t.Fatal(got)
	}
	if got := do(dst, "object", "encoding", "n"); got != bulk("int") {
		t.Fatalf("restored int: %q", got)
	}

	// A value whose TTL ran out on the way arrives as a deletion.
	blob, _ = readBulk(t, do(src, "corekv.dump", "k"))
	dst.Shard.Clock.Ms += 5000
	do(dst, "set", "late", "old")
	if got := do(dst, "corekv.restore", "late", blob, "replace"); got != num(1) {
		t.Fatal(got)
	}
	if got := do(dst, "exists", "late"); got != num(0) {
		t.Fatal("expired value was restored")
	}
}

// TestBlockTimeout: a blocking command's timeout as Redis reads it:
// fractional seconds rounded up to milliseconds, its two errors.
func TestBlockTimeout(t *testing.T) {
	// Past a double's range, as Redis reads them in long double: a positive
	// sliver is 1 ms, a negative one no timeout at all.
	for in, want := range map[string]int64{"0": 0, "1": 1000, "0.1": 100, "0.0001": 1, "-0": 0, "2.5e3": 2500000,
		"0x10": 16000, "1e-320": 1, "1e-400": 1, "1e-4950": 1, "-1e-400": 0} {
		if got, e := BlockTimeout([]byte(in)); got != want || e != "" {
			t.Errorf("%q: %d %q, want %d", in, got, e, want)
		}
	}
	for in, want := range map[string]resp.Error{"-1": errTimeoutNegative, "1e20": errTimeoutNegative,
		"inf": errTimeoutNegative, "abc": errTimeoutFloat, "nan": errTimeoutFloat, "": errTimeoutFloat, " 1": errTimeoutFloat,
		"1e400": errTimeoutNegative, "-1e400": errTimeoutNegative, "1e-5000": errTimeoutFloat, "1e5000": errTimeoutFloat} {
		if _, e := BlockTimeout([]byte(in)); e != want {
			t.Errorf("%q: %q, want %q", in, e, want)
		}
	}
}
