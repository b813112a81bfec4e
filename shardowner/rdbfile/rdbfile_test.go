package rdbfile

import (
	"bytes"
	"encoding/binary"
	"hash/crc64"
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestCRC(t *testing.T) {
	if got := CRC([]byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC = %x", got)
	}
	b := []byte("hello, incremental world")
	if got := UpdateCRC(UpdateCRC(0, b[:7]), b[7:]); got != CRC(b) {
		t.Fatalf("incremental CRC %x, whole %x", got, CRC(b))
	}
}

func TestAppendLen(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{
		{0, "\x00"}, {63, "\x3f"}, {64, "\x40\x40"}, {16383, "\x7f\xff"},
		{16384, "\x80\x00\x00\x40\x00"}, {math.MaxUint32, "\x80\xff\xff\xff\xff"},
		{math.MaxUint32 + 1, "\x81\x00\x00\x00\x01\x00\x00\x00\x00"},
	} {
		got := AppendLen(nil, c.n)
		if string(got) != c.want {
			t.Errorf("AppendLen(%d) = %q, want %q", c.n, got, c.want)
		}
		r := NewReader(got)
		if n, enc, ok := r.Len(); !ok || enc || n != uint64(c.n) || len(r.Rest()) != 0 {
			t.Errorf("Len of %q = %d %v %v", got, n, enc, ok)
		}
	}
}

func TestAppendString(t *testing.T) {
	long := strings.Repeat("abc", 20)
	for _, c := range []struct {
		s        string
		compress bool
		want     string // "" for "compressed", checked by round trip
	}{
		{"0", false, "\xc0\x00"},
		{"-128", false, "\xc0\x80"},
		{"127", false, "\xc0\x7f"},
		{"128", false, "\xc1\x80\x00"},
		{"-32768", false, "\xc1\x00\x80"},
		{"32768", false, "\xc2\x00\x80\x00\x00"},
		{"2147483647", false, "\xc2\xff\xff\xff\x7f"},
		{"-2147483648", false, "\xc2\x00\x00\x00\x80"},
		{"2147483648", false, "\x0a2147483648"},
		{"-0", false, "\x02-0"},
		{"01", false, "\x0201"},
		{"+1", false, "\x02+1"},
		{"", false, "\x00"},
		{"hello", true, "\x05hello"},
		{long, false, "\x3c" + long},
		{long, true, ""},
		{"abcdefghijklmnopqrstuvwxyz", true, "\x1aabcdefghijklmnopqrstuvwxyz"}, // incompressible
		{strings.Repeat("a", 20), true, "\x14" + strings.Repeat("a", 20)},      // not over 20
	} {
		got := AppendString([]byte("x"), []byte(c.s), c.compress)
		if got[0] != 'x' {
			t.Fatalf("AppendString overwrote dst")
		}
		got = got[1:]
		if c.want != "" && string(got) != c.want {
			t.Errorf("AppendString(%q, %v) = %q, want %q", c.s, c.compress, got, c.want)
		}
		if c.want == "" && (got[0] != 0xc3 || len(got) > len(c.s)) {
			t.Errorf("AppendString(%q, true) = %q, not compressed", c.s, got)
		}
		r := NewReader(got)
		if s, ok := r.String(); !ok || string(s) != c.s || len(r.Rest()) != 0 {
			t.Errorf("String of %q = %q %v", got, s, ok)
		}
		r.Reset(got)
		if !r.SkipString() || len(r.Rest()) != 0 {
			t.Errorf("SkipString of %q left %q", got, r.Rest())
		}
	}
}

// TestAppendStringAllocs: the primitives allocate nothing in a buffer
// with room.
func TestAppendStringAllocs(t *testing.T) {
	buf := make([]byte, 0, 1<<16)
	long := bytes.Repeat([]byte("0123456789"), 500)
	if n := testing.AllocsPerRun(20, func() {
		b := AppendString(buf[:0], long, true)
		b = AppendString(b, []byte("12345"), true)
		b = AppendExpire(b, 1)
		_ = AppendKey(b, TypeString, []byte("key"), true)
	}); n != 0 {
		t.Fatalf("%v allocations", n)
	}
}

func TestReaderBounds(t *testing.T) {
	for _, p := range []string{
		"", "\x40", "\x80\x00", "\x81\x00\x00", "\x05abc", "\xc0", "\xc1\x00", "\xc2\x00\x00",
		"\xc3\x01\x7f\x00",             // claims to expand 1 byte into 127
		"\xc3\x02\x05\x01a",            // expands to 2, not 5
		"\xc3\x02\x02\x20\x00",         // reference before the start
		"\xc4", "\x82\x00\x00\x00\x01", // unknown encodings
	} {
		r := NewReader([]byte(p))
		if s, ok := r.String(); ok {
			t.Errorf("String of %q = %q, want a failure", p, s)
		}
	}
	r := NewReader(binary.LittleEndian.AppendUint64(nil, math.Float64bits(-1.5)))
	if f, ok := r.Double(); !ok || f != -1.5 {
		t.Errorf("Double = %v %v", f, ok)
	}
	r = NewReader([]byte("\x05ab"))
	if _, ok := r.Count(1); ok {
		t.Errorf("Count took 5 items of a byte in 2 bytes")
	}
}

func TestCanonicalInt(t *testing.T) {
	for i := int64(-1000); i <= 1000; i++ {
		if v, ok := canonicalInt([]byte(strconv.FormatInt(i, 10))); !ok || v != i {
			t.Fatalf("canonicalInt(%d) = %d %v", i, v, ok)
		}
	}
	for _, s := range []string{"", "-", "00", "-01", " 1", "1 ", "1a", "99999999999", "-2147483649"} {
		if _, ok := canonicalInt([]byte(s)); ok {
			t.Errorf("canonicalInt(%q) took it", s)
		}
	}
}

// TestCRCSlicing checks the eight-bytes-at-a-time CRC against Go's crc64
// with Redis's variant's inversions, over every length and split up to 64.
func TestCRCSlicing(t *testing.T) {
	tab := crc64.MakeTable(0x95ac9329ac4bc9b5)
	b := make([]byte, 200)
	for i := range b {
		b[i] = byte(i*131 + 7)
	}
	for n := range 65 {
		want := ^crc64.Update(^uint64(0), tab, b[:n])
		for split := range n + 1 {
			if got := UpdateCRC(UpdateCRC(0, b[:split]), b[split:n]); got != want {
				t.Fatalf("len %d split %d: %x, want %x", n, split, got, want)
			}
		}
	}
}

func BenchmarkCRC(b *testing.B) {
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(buf)))
	for range b.N {
		UpdateCRC(0, buf)
	}
}
