package rdbfile

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestCompressRecords: records written plain and then compressed parse to
// the same keys and values, and compressible strings shrink.
func TestCompressRecords(t *testing.T) {
	long := []byte(strings.Repeat("abcdefgh", 40))
	var src []byte
	src = AppendExpire(src, 1<<41)
	src = AppendString(AppendKey(src, TypeString, []byte("s"), false), long, false)
	src = AppendString(AppendKey(src, TypeString, long, false), []byte("12345"), false)
	src = AppendLen(AppendKey(src, TypeList, []byte("l"), false), 2)
	src = AppendString(AppendString(src, long, false), []byte("x"), false)
	src = AppendLen(AppendKey(src, TypeHash, []byte("h"), false), 1)
	src = AppendString(AppendString(src, []byte("f"), false), long, false)
	src = AppendLen(AppendKey(src, TypeZSet2, []byte("z"), false), 1)
	src = AppendDouble(AppendString(src, long, false), -2.5)
	src = AppendLen(AppendKey(src, TypeSet, []byte("e"), false), 1)
	src = AppendString(src, []byte("7"), false)
	got, err := CompressRecords(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) >= len(src)/2 {
		t.Errorf("compressed %d bytes to %d", len(src), len(got))
	}
	parse := func(b []byte) []string {
		var out []string
		var r Reader
		r.Reset(b)
		for len(r.Rest()) > 0 {
			typ, _ := r.Byte()
			if typ == OpExpireTimeMs {
				r.Take(8)
				typ, _ = r.Byte()
			}
			k, _ := r.String()
			n, err := ObjectExtent(typ, r.Rest())
			if err != nil {
				t.Fatalf("%s: %v", k, err)
			}
			out = append(out, fmt.Sprintf("%d %q", typ, k))
			var o Reader
			o.Reset(r.Rest()[:n])
			switch typ {
			case TypeString:
				v, _ := o.String()
				out = append(out, string(v))
			case TypeList, TypeSet, TypeHash, TypeZSet2:
				c, _, _ := o.Len()
				for range c {
					v, _ := o.String()
					out = append(out, string(v))
					if typ == TypeHash {
						v, _ = o.String()
						out = append(out, string(v))
					}
					if typ == TypeZSet2 {
						d, _ := o.Double()
						out = append(out, fmt.Sprint(d))
					}
				}
			}
			r.Skip(uint64(n))
		}
		return out
	}
	if a, b := parse(src), parse(got); !slices.Equal(a, b) {
		t.Errorf("compressed records read\n%q\nwant\n%q", b, a)
	}
	if _, err := CompressRecords(nil, src[:len(src)-1]); err == nil {
		t.Error("a torn record was taken")
	}
	if _, err := CompressRecords(nil, []byte{TypeListQuicklist2, 1, 'k'}); err == nil {
		t.Error("a type a snapshot does not write was taken")
	}
}

// TestCompressRecordsAccess: the IDLE and FREQ a snapshot writes after a
// record's expiry come through as they were; a record torn inside them, or
// right after, is refused.
func TestCompressRecordsAccess(t *testing.T) {
	long := []byte(strings.Repeat("abcdefgh", 40))
	var src []byte
	src = AppendIdle(AppendExpire(src, 1<<41), 5000)
	src = AppendString(AppendKey(src, TypeString, []byte("a"), false), long, false)
	src = AppendFreq(src, 77)
	src = AppendString(AppendKey(src, TypeString, []byte("b"), false), []byte("v"), false)
	got, err := CompressRecords(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	want := AppendIdle(AppendExpire(nil, 1<<41), 5000)
	if !bytes.HasPrefix(got, want) {
		t.Errorf("compressed records start %q, want %q", got[:min(len(got), len(want))], want)
	}
	if i := bytes.Index(got, []byte{OpFreq, 77, TypeString, 1, 'b'}); i < 0 {
		t.Errorf("FREQ 77 before key b lost: %q", got)
	}
	for _, cut := range []int{10, 11, 12} { // in the idle time, and right after it
		if _, err := CompressRecords(nil, src[:cut]); err == nil {
			t.Errorf("a record torn after %d bytes was taken", cut)
		}
	}
}

// FuzzCompressRecords: any input is taken or refused without a panic, and
// what is taken compresses to a fixed point (compressing it again, which
// reads its LZF strings back, gives the same bytes).
func FuzzCompressRecords(f *testing.F) {
	long := []byte(strings.Repeat("abcdefgh", 8))
	var seed []byte
	seed = AppendExpire(seed, 1<<41)
	seed = AppendString(AppendKey(seed, TypeString, []byte("s"), false), long, false)
	seed = AppendLen(AppendKey(seed, TypeHash, []byte("h"), false), 1)
	seed = AppendString(AppendString(seed, []byte("f"), false), long, false)
	seed = AppendLen(AppendKey(seed, TypeZSet2, []byte("z"), false), 1)
	seed = AppendDouble(AppendString(seed, []byte("m"), false), 1.5)
	f.Add(seed)
	f.Add(AppendString(AppendKey(AppendFreq(AppendIdle(nil, 9), 3), TypeString, []byte("k"), false), []byte("v"), false))
	f.Fuzz(func(t *testing.T, src []byte) {
		once, err := CompressRecords(nil, src)
		if err != nil {
			return
		}
		twice, err := CompressRecords(nil, once)
		if err != nil || !bytes.Equal(once, twice) {
			t.Fatalf("compressed records do not compress to themselves: %v\n%x\n%x", err, once, twice)
		}
	})
}
