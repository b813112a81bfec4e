package streamnode_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// FuzzParseID runs every parser on one argument. None may panic, the
// parsers must agree with each other, and any ID that parses must come back
// from its own text form.
//
//	go test -run XXX -fuzz FuzzParseID -fuzztime 1m ./shardowner/streamnode/
func FuzzParseID(f *testing.F) {
	for _, s := range []string{
		"0-0", "0", "-", "+", "*", "5-*", "(5", "(5-1", "1-", "-1", "1-2-3", "",
		"18446744073709551615-18446744073709551615", "18446744073709551616",
		" 1", "+1", "01", "1- -5", "1--05", "1--9223372036854775809", "1\x00x", "*\x00x",
	} {
		f.Add([]byte(s), uint64(7))
	}
	f.Fuzz(func(t *testing.T, arg []byte, missingSeq uint64) {
		parsed, ok := streamnode.ParseID(arg, missingSeq)
		strict, strictOK := streamnode.ParseStrictID(arg, missingSeq)
		if strictOK && (!ok || strict != parsed) {
			t.Fatalf("ParseStrictID(%q) = %v but ParseID = %v, %v", arg, strict, parsed, ok)
		}
		if ok && !strictOK && parsed != streamnode.MinID && parsed != streamnode.MaxID {
			t.Fatalf("ParseStrictID(%q) refuses %v, not a range bound", arg, parsed)
		}
		if ok {
			text := streamnode.AppendID(nil, parsed)
			again, ok := streamnode.ParseStrictID(text, missingSeq)
			if !ok || again != parsed {
				t.Fatalf("ParseID(%q) = %v, but its text %q parses as %v, %v", arg, parsed, text, again, ok)
			}
		}

		ranged, exclusive, rangeOK := streamnode.ParseRangeID(arg, missingSeq)
		if !exclusive && (rangeOK != ok || ranged != parsed) {
			t.Fatalf("ParseRangeID(%q) = %v, %v; ParseID = %v, %v", arg, ranged, rangeOK, parsed, ok)
		}
		if exclusive && rangeOK {
			want, _ := streamnode.ParseStrictID(arg[1:], missingSeq)
			if ranged != want {
				t.Fatalf("ParseRangeID(%q) = %v, want %v", arg, ranged, want)
			}
		}
		if first, last, err := streamnode.ParseInterval(arg, arg); err == "" && !exclusive && first.Compare(last) > 0 {
			t.Fatalf("ParseInterval(%q, %q) = [%v, %v], an inclusive bound covering nothing", arg, arg, first, last)
		}

		add, addOK := streamnode.ParseAddID(arg)
		if addOK && add.Kind == streamnode.AddExplicit {
			if want, _ := streamnode.ParseStrictID(arg, 0); add.ID != want {
				t.Fatalf("ParseAddID(%q) = %v, ParseStrictID = %v", arg, add.ID, want)
			}
		}
		if addOK {
			last := streamnode.ID{Ms: missingSeq % 4, Seq: missingSeq}
			if id, err := add.Resolve(last, missingSeq%8); err == "" && id.Compare(last) <= 0 {
				t.Fatalf("ParseAddID(%q).Resolve(%v) = %v, not above the last ID", arg, last, id)
			}
		}
	})
}

// FuzzNode builds a node from entries the fuzzer describes, marks some
// deleted, and checks iteration both ways, counts and first/last IDs
// against the entries.
//
//	go test -run XXX -fuzz FuzzNode -fuzztime 1m ./shardowner/streamnode/
func FuzzNode(f *testing.F) {
	f.Add([]byte("\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x02\x01a\x01b\x01c\x03xyz\x00\x04\x11"))
	f.Add(bytes.Repeat([]byte{0xff}, 64))
	f.Add(bytes.Repeat([]byte{0x5a, 0x03, 0x02, 'f', 'g', 0x01, 'v'}, 20))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, deleted := fuzzEntries(data)
		node := buildNode(entries)
		checkNode(t, node, entries, make([]bool, len(entries)))
		for i, e := range entries {
			if deleted[i] && !streamnode.MarkDeleted(node, e.id) {
				t.Fatalf("MarkDeleted(%v) = false for a live entry", e.id)
			}
		}
		checkNode(t, node, entries, deleted)
	})
}

// maxFuzzEntries bounds a fuzzed node: nodes hold about a hundred entries,
// and MarkDeleted's linear scan makes deleting all of a huge one quadratic.
const maxFuzzEntries = 200

// fuzzEntries reads up to maxFuzzEntries entries from data: a 16-byte starting ID, then per
// entry an op byte (how the ID moves on, whether to reuse the first entry's
// fields, whether to delete it), a field count, and length-prefixed bytes.
func fuzzEntries(data []byte) (entries []testEntry, deleted []bool) {
	take := func(n int) []byte {
		n = min(n, len(data))
		b := data[:n:n]
		data = data[n:]
		return b
	}
	takeByte := func() byte {
		if b := take(1); len(b) == 1 {
			return b[0]
		}
		return 0
	}
	start := append(take(16), make([]byte, 16)...)
	cur := id{binary.BigEndian.Uint64(start), binary.BigEndian.Uint64(start[8:])}
	for len(data) > 0 && len(entries) < maxFuzzEntries {
		op := takeByte()
		if len(entries) > 0 {
			var ok bool
			if gap := uint64(op & 0x0f); op&0x10 != 0 && cur.Ms <= maxU-gap-1 {
				cur, ok = id{cur.Ms + gap + 1, uint64(takeByte())}, true
			} else {
				cur, ok = cur.Next()
			}
			if !ok {
				break
			}
		}
		var fields, values [][]byte
		if op&0x20 != 0 && len(entries) > 0 {
			fields = entries[0].fields
		} else {
			for range takeByte() % 5 {
				fields = append(fields, take(int(takeByte()%16)))
			}
		}
		for range fields {
			values = append(values, take(int(takeByte()%64)))
		}
		entries = append(entries, testEntry{cur, fields, values})
		deleted = append(deleted, op&0x40 != 0)
	}
	return entries, deleted
}
