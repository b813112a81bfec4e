package streamnode_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/shardowner/streamnode"
)

// lpOf frames elements, each already encoded with its back length, as a
// listpack.
func lpOf(elements ...[]byte) []byte {
	lp := make([]byte, 6)
	for _, e := range elements {
		lp = append(lp, e...)
	}
	lp = append(lp, 0xFF)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	binary.LittleEndian.PutUint16(lp[4:], uint16(min(len(elements), math.MaxUint16)))
	return lp
}

// lpCounted frames elements as lpOf does, but with element count n in the
// header.
func lpCounted(n uint16, elements ...[]byte) []byte {
	lp := lpOf(elements...)
	binary.LittleEndian.PutUint16(lp[4:], n)
	return lp
}

// el is an element from hex, spaces allowed.
func el(h string) []byte {
	b, err := hex.DecodeString(strings.ReplaceAll(h, " ", ""))
	if err != nil {
		panic(err)
	}
	return b
}

// small is the element of an integer 0..127.
func small(v byte) []byte { return []byte{v, 1} }

// str is the element of a short string, in the 6-bit encoding.
func str(s string) []byte { return append(append([]byte{0x80 | byte(len(s))}, s...), byte(1+len(s))) }

func masterKey(ms, seq uint64) []byte {
	k := streamnode.MasterKey(id{ms, seq})
	return k[:]
}

// TestListpackElements checks the encoding of one value, and of one master
// field, against bytes worked out by hand from Redis's listpack format.
func TestListpackElements(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, c := range []struct {
		text string
		elem string // hex, the element with its back length
	}{
		{"0", "00 01"},
		{"127", "7f 01"},
		{"128", "c0 80 02"},
		{"-1", "df ff 02"},
		{"4095", "cf ff 02"},
		{"-4096", "d0 00 02"},
		{"4096", "f1 00 10 03"},
		{"-4097", "f1 ff ef 03"},
		{"32767", "f1 ff 7f 03"},
		{"-32768", "f1 00 80 03"},
		{"32768", "f2 00 80 00 04"},
		{"-8388608", "f2 00 00 80 04"},
		{"8388608", "f3 00 00 80 00 05"},
		{"-2147483648", "f3 00 00 00 80 05"},
		{"2147483648", "f4 00 00 00 80 00 00 00 00 09"},
		{"9223372036854775807", "f4 ff ff ff ff ff ff ff 7f 09"},
		{"-9223372036854775808", "f4 00 00 00 00 00 00 00 80 09"},
		// Not canonical int64 decimals: strings.
		{"9223372036854775808", "93" + hex.EncodeToString([]byte("9223372036854775808")) + "14"},
		{"-9223372036854775809", "94" + hex.EncodeToString([]byte("-9223372036854775809")) + "15"},
		{"01", "82 3031 03"},
		{"-0", "82 2d30 03"},
		{"+1", "82 2b31 03"},
		{" 1", "82 2031 03"},
		{"1.5", "83 312e35 04"},
		{"", "80 01"},
		{"a", "81 61 02"},
		{long(63), "bf" + hex.EncodeToString([]byte(long(63))) + "40"},
		{long(64), "e0 40" + hex.EncodeToString([]byte(long(64))) + "42"},
		{long(125), "e0 7d" + hex.EncodeToString([]byte(long(125))) + "7f"},
		{long(126), "e0 7e" + hex.EncodeToString([]byte(long(126))) + "01 80"},
		{long(4095), "ef ff" + hex.EncodeToString([]byte(long(4095))) + "20 81"},
		{long(4096), "f0 00 10 00 00" + hex.EncodeToString([]byte(long(4096))) + "20 85"},
		// 5 + 16377 = 16382 bytes: still a two-byte back length ...
		{long(16377), "f0 f9 3f 00 00" + hex.EncodeToString([]byte(long(16377))) + "7f fe"},
		// ... but Redis gives 16383 three bytes.
		{long(16378), "f0 fa 3f 00 00" + hex.EncodeToString([]byte(long(16378))) + "00 ff ff"},
		{long(16379), "f0 fb 3f 00 00" + hex.EncodeToString([]byte(long(16379))) + "01 80 80"},
	} {
		name := c.text
		if len(name) > 24 {
			name = name[:8] + "...(" + strconv.Itoa(len(name)) + ")"
		}
		elem := el(c.elem)

		// As a value: master entry 1 live, 0 deleted, field "f"; then
		// flags SAMEFIELDS, ID deltas 0 0, the value, lp-count 4.
		node := streamnode.Append(nil, id{7, 1}, bs("f"), [][]byte{[]byte(c.text)})
		want := lpOf(small(1), small(0), small(1), str("f"), small(0),
			small(2), small(0), small(0), elem, small(4))
		checkListpack(t, name+" as value", node, want)

		// As the master field, with value "v".
		node = streamnode.Append(nil, id{7, 1}, [][]byte{[]byte(c.text)}, bs("v"))
		want = lpOf(small(1), small(0), small(1), elem, small(0),
			small(2), small(0), small(0), str("v"), small(4))
		checkListpack(t, name+" as field", node, want)
	}
}

// checkListpack checks that node encodes as want and that want decodes
// back to node.
func checkListpack(t *testing.T, name string, node, want []byte) {
	t.Helper()
	first, _ := streamnode.FirstID(node)
	key := streamnode.MasterKey(first)
	if got := streamnode.AppendListpack(nil, node); !bytes.Equal(got, want) {
		t.Errorf("%s: AppendListpack =\n%x\nwant\n%x", name, clip(got), clip(want))
	}
	got, err := streamnode.FromListpack(nil, key[:], want)
	if err != nil {
		t.Errorf("%s: FromListpack: %v", name, err)
	} else if !bytes.Equal(got, node) {
		t.Errorf("%s: FromListpack =\n%x\nwant\n%x", name, clip(got), clip(node))
	}
}

func clip(b []byte) []byte {
	if len(b) > 96 {
		return b[:96]
	}
	return b
}

// handEntries and handListpack are a small node, with a deleted entry, an
// entry with other fields and a negative seq delta, and its listpack as
// worked out by hand (and as Redis 7.0.15 writes it: TestRedisDump).
var (
	handEntries = []testEntry{
		{id{5, 1}, bs("a", "b"), bs("1", "x")},
		{id{5, 3}, bs("a", "b"), bs("2", "y")},
		{id{7, 0}, bs("c"), bs("300")},
	}
	handDeleted  = id{5, 3}
	handListpack = el("40000000 1900" + // 64 bytes, 25 elements
		"0201 0101 0201 816102 816202 0001" + // 2 live, 1 deleted, fields a b, 0
		"0201 0001 0001 0101 817802 0501" + // SAMEFIELDS, +0 +0, 1 x, lp-count 5
		"0301 0001 0201 0201 817902 0501" + // SAMEFIELDS|DELETED, +0 +2, 2 y, 5
		"0001 0201 dfff02 0101 816302 c12c02 0601" + // +2 -1, 1 field: c 300, 6
		"ff")
)

// xsetidListpack has deleted entries above later ones, as XSETID allows,
// under masterKey(10, 20): 10-20, 10-25 deleted, 10-21, 10-30 deleted,
// 10-22 deleted, 10-23.
var xsetidListpack = lpOf(small(3), small(3), small(1), str("f"), small(0),
	small(2), small(0), small(0), str("a"), small(4),
	small(3), small(0), small(5), str("b"), small(4),
	small(2), small(0), small(1), str("c"), small(4),
	small(3), small(0), small(10), str("d"), small(4),
	small(3), small(0), small(2), str("e"), small(4),
	small(2), small(0), small(3), str("g"), small(4))

func TestListpackBytes(t *testing.T) {
	node := buildNode(handEntries)
	streamnode.MarkDeleted(node, handDeleted)
	checkListpack(t, "node", node, handListpack)
}

// listpackEntries returns n random entries as randomEntries does, with
// some values and master fields replaced by numbers of every integer
// encoding and near misses, and some values long enough for the wider
// string encodings and back lengths.
func listpackEntries(r *rand.Rand, n int) []testEntry {
	number := func() []byte {
		switch r.IntN(4) {
		case 0:
			edge := []string{"0", "-1", "127", "128", "-4096", "4095", "4096", "32767", "-32769",
				"8388607", "-8388609", "2147483647", "-2147483649", "9223372036854775807",
				"-9223372036854775808", "9223372036854775808", "01", "-0", "+5", "1e3", "-"}
			return []byte(edge[r.IntN(len(edge))])
		case 1:
			return strconv.AppendInt(nil, int64(r.Uint64())>>r.IntN(64), 10) // any magnitude, either sign
		}
		return strconv.AppendInt(nil, r.Int64N(1000)-500, 10)
	}
	entries := randomEntries(r, n)
	if r.IntN(3) == 0 {
		// Numbers for the master fields, wherever the entry has them.
		master := entries[0].fields
		numbered := make([][]byte, len(master))
		for i := range numbered {
			numbered[i] = append(number(), byte('0'+i))
		}
		for i := range entries {
			if slices.EqualFunc(entries[i].fields, master, bytes.Equal) {
				entries[i].fields = numbered
			}
		}
	}
	for _, e := range entries {
		for j := range e.values {
			switch r.IntN(40) {
			case 0:
				sizes := []int{63, 64, 125, 126, 4095, 4096, 16377, 16378, 16379, 70000}
				e.values[j] = bytes.Repeat([]byte{byte(r.UintN(256))}, sizes[r.IntN(len(sizes))])
			case 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12:
				e.values[j] = number()
			}
		}
	}
	return entries
}

func TestListpackRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var lp, back []byte
	for range 300 {
		entries := listpackEntries(r, 1+r.IntN(120))
		node := buildNode(entries)
		deleted := make([]bool, len(entries))
		for _, i := range r.Perm(len(entries))[:r.IntN(len(entries)+1)] {
			streamnode.MarkDeleted(node, entries[i].id)
			deleted[i] = true
		}
		lp = streamnode.AppendListpack(lp[:0], node)
		key := streamnode.MasterKey(entries[0].id)
		var err error
		back, err = streamnode.FromListpack(back[:0], key[:], lp)
		if err != nil {
			t.Fatalf("FromListpack of %v: %v", entries, err)
		}
		checkNode(t, back, entries, deleted)
		if !bytes.Equal(back, node) {
			t.Fatalf("FromListpack(AppendListpack(node)) differs from node %v", entries)
		}
		checkDecoded(t, key[:], lp)
	}
}

// TestListpackAppendsToDst checks that both functions leave what dst held.
func TestListpackAppendsToDst(t *testing.T) {
	node := buildNode([]testEntry{{id{1, 2}, bs("f"), bs("v")}})
	lp := streamnode.AppendListpack([]byte("prefix"), node)
	if !bytes.HasPrefix(lp, []byte("prefix")) {
		t.Fatalf("AppendListpack lost dst: %q", lp)
	}
	got, err := streamnode.FromListpack([]byte("head"), masterKey(1, 2), lp[len("prefix"):])
	if err != nil || !bytes.HasPrefix(got, []byte("head")) || !bytes.Equal(got[len("head"):], node) {
		t.Fatalf("FromListpack with dst = %q, %v", got, err)
	}
	bad := slices.Clone(lp[len("prefix"):])
	bad[len(bad)-3]++ // the last lp-count
	if got, err := streamnode.FromListpack([]byte("head"), masterKey(1, 2), bad); err == nil || string(got) != "head" {
		t.Fatalf("FromListpack of a bad listpack = %q, %v; want dst back and an error", got, err)
	}
}

// TestFromListpackLenient checks listpacks Redis would not write but reads
// fine (wider encodings than needed, integers as decimal strings, an
// unknown element count, entries with the master fields but not the flag
// saying so, unknown flag bits), and ones with IDs out of order as Redis
// writes them after XSETID.
func TestFromListpackLenient(t *testing.T) {
	wide := func(v byte) []byte { return []byte{0xF4, v, 0, 0, 0, 0, 0, 0, 0, 9} }
	str12 := func(s string) []byte { return append(append([]byte{0xE0, byte(len(s))}, s...), byte(2+len(s))) }
	key := masterKey(10, 20)

	entries := []testEntry{
		{id{10, 20}, bs("a", "b"), bs("1", "x")},
		{id{10, 21}, bs("a", "b"), bs("22", "y")},
		{id{11, 0}, bs("c"), bs("z")},
	}
	want := buildNode(entries)
	streamnode.MarkDeleted(want, id{10, 21})
	for name, lp := range map[string][]byte{
		"canonical": lpOf(small(2), small(1), small(2), str("a"), str("b"), small(0),
			small(2), small(0), small(0), small(1), str("x"), small(5),
			small(3), small(0), small(1), small(22), str("y"), small(5),
			small(0), small(1), el("dfec02"), small(1), str("c"), str("z"), small(6)),
		"wide": lpOf(wide(2), str12("1"), wide(2), str12("a"), str("b"), str12("0"),
			wide(2), str("0"), small(0), str12("1"), str12("x"), str("5"),
			small(3), small(0), wide(1), str("22"), str("y"), small(5),
			small(0), small(1), str("-20"), small(1), str("c"), str("z"), small(6)),
		"count unknown": lpCounted(0xFFFF, small(2), small(1), small(2), str("a"), str("b"), small(0),
			small(2), small(0), small(0), small(1), str("x"), small(5),
			small(3), small(0), small(1), small(22), str("y"), small(5),
			small(0), small(1), el("dfec02"), small(1), str("c"), str("z"), small(6)),
		"fields inline": lpOf(small(2), small(1), small(2), str("a"), str("b"), small(0),
			small(0), small(0), small(0), small(2), str("a"), small(1), str("b"), str("x"), small(8),
			small(1), small(0), small(1), small(2), str("a"), small(22), str("b"), str("y"), small(8),
			small(0), small(1), el("dfec02"), small(1), str("c"), str("z"), small(6)),
		"extra flag bits": lpOf(small(2), small(1), small(2), str("a"), str("b"), small(0),
			small(0x7e), small(0), small(0), small(1), str("x"), small(5),
			small(0x7f), small(0), small(1), small(22), str("y"), small(5),
			small(0x7c), small(1), el("dfec02"), small(1), str("c"), str("z"), small(6)),
	} {
		got, err := streamnode.FromListpack(nil, key, lp)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: node differs from the one Append builds", name)
		}
		checkDecoded(t, key, lp)
	}

	lp := xsetidListpack
	checkDecoded(t, key, lp)
	if _, err := streamnode.FromListpack(nil, key, lp); err != nil {
		t.Errorf("deleted entries out of order: %v", err)
	}
	// The last must still be above 10-21, the last live one before it.
	bad := slices.Clone(lp)
	bad[len(bad)-8] = 1 // seq delta 1: 10-21
	if _, err := streamnode.FromListpack(nil, key, bad); err == nil {
		t.Error("live entry at the ID of a live one before it: no error")
	}
	// Below the master ID, with no live entry before it: 10-20 deleted, 9-0.
	lp = lpOf(small(1), small(1), small(1), str("f"), small(0),
		small(3), small(0), small(0), str("a"), small(4),
		small(2), el("dfff02"), el("dfec02"), str("b"), small(4))
	checkDecoded(t, key, lp)
	if _, err := streamnode.FromListpack(nil, key, lp); err != nil {
		t.Errorf("entry below the master ID after a deleted one: %v", err)
	}
}

func TestFromListpackErrors(t *testing.T) {
	key := masterKey(10, 20)
	// good is 2 live entries and 1 deleted, as in TestFromListpackLenient.
	good := [][]byte{small(2), small(1), small(2), str("a"), str("b"), small(0),
		small(2), small(0), small(0), small(1), str("x"), small(5),
		small(3), small(0), small(1), small(22), str("y"), small(5),
		small(0), small(1), el("dfec02"), small(1), str("c"), str("z"), small(6)}
	if _, err := streamnode.FromListpack(nil, key, lpOf(good...)); err != nil {
		t.Fatalf("the good listpack: %v", err)
	}
	// with returns good with element i replaced by the given ones.
	with := func(i int, replacement ...[]byte) []byte {
		return lpOf(slices.Concat(good[:i], replacement, good[i+1:])...)
	}
	patched := func(lp []byte, at int, b ...byte) []byte {
		lp = slices.Clone(lp)
		copy(lp[at:], b)
		return lp
	}
	lp := lpOf(good...)
	cases := map[string]struct {
		key, lp []byte
	}{
		"key short":             {key[:15], lp},
		"key long":              {append(slices.Clone(key), 0), lp},
		"empty":                 {key, nil},
		"header only":           {key, lp[:6]},
		"no elements":           {key, lpOf()},
		"size field small":      {key, patched(lp, 0, byte(len(lp)-1))},
		"size field large":      {key, patched(lp, 0, byte(len(lp)+1))},
		"truncated":             {key, lp[:len(lp)-1]},
		"no terminator":         {key, patched(lp, len(lp)-1, 0xFE)},
		"element count":         {key, patched(lp, 4, byte(len(good)+1))},
		"element count low":     {key, patched(lp, 4, byte(len(good)-1))},
		"bad encoding":          {key, with(3, el("f5 01"))},
		"back length":           {key, with(3, el("8161 03"))},
		"back length zero":      {key, with(3, el("8161 00"))},
		"back length with more": {key, with(3, el("8100 82"))},
		"string past the end":   {key, lpOf(small(1), small(0), small(0), small(0), el("bf00"))},
		"12-bit past the end":   {key, lpOf(small(1), small(0), small(0), small(0), el("e1"))},
		"32-bit past the end":   {key, lpOf(small(1), small(0), small(0), small(0), el("f0ffffff7f00"))},
		"int past the end":      {key, lpOf(small(1), small(0), small(0), small(0), el("f40000"))},
		"terminator early":      {key, lpOf(slices.Concat(good, [][]byte{{0xFF}})...)},
		"terminator stale size": {key, slices.Concat(lp, []byte{0xFF})},
		"count not integer":     {key, with(0, str("two"))},
		"count negative":        {key, with(1, el("dfff02"))},
		"live count high":       {key, with(0, small(3))},
		"live count low":        {key, with(0, small(1))},
		"counts swapped":        {key, lpOf(slices.Concat([][]byte{small(1), small(2)}, good[2:])...)},
		"no master terminator":  {key, with(5, small(1))},
		"master fields short":   {key, with(2, small(3))},
		"no entries":            {key, lpOf(small(0), small(0), small(1), str("a"), small(0))},
		"lp-count high":         {key, with(11, small(6))},
		"lp-count low":          {key, with(24, small(5))},
		"field count high":      {key, with(21, small(2))},
		"flags not integer":     {key, with(6, str("x"))},
		"ms delta not integer":  {key, with(7, str("1.0"))},
		"first not at master":   {key, with(8, small(1))},
		"equal IDs":             {key, with(14, small(0))},
		"IDs decreasing":        {key, with(14, el("dfff02"))},
		"IDs decreasing ms":     {key, with(19, el("dfff02"))},
		"element after entries": {key, lpOf(slices.Concat(good, [][]byte{small(0)})...)},
		"entry after entries": {key, lpOf(slices.Concat(good, [][]byte{
			small(0), small(5), small(0), small(1), str("c"), str("z"), small(6)})...)},
		"entry missing": {key, lpOf(good[:18]...)},
		"first entry with other fields": {key, lpOf(small(2), small(1), small(1), str("q"), small(0),
			small(0), small(0), small(0), small(2), str("a"), small(1), str("b"), str("x"), small(8),
			small(1), small(0), small(1), small(2), str("a"), small(22), str("b"), str("y"), small(8),
			small(0), small(1), el("dfec02"), small(1), str("c"), str("z"), small(6))},
		"first entry with fewer fields": {key, lpOf(small(1), small(0), small(2), str("a"), str("b"), small(0),
			small(0), small(0), small(0), small(1), str("a"), small(1), small(6))},
	}
	for name, c := range cases {
		got, err := streamnode.FromListpack(nil, c.key, c.lp)
		if err == nil {
			t.Errorf("%s: no error, node %x", name, got)
		} else if !errors.Is(err, streamnode.ErrListpack) {
			t.Errorf("%s: error %v does not match ErrListpack", name, err)
		}
	}
}

// checkDecoded checks what FromListpack makes of key and lp: an error
// matching ErrListpack, or a node that is exactly what Append and
// MarkDeleted build from its entries and that goes back and forth through
// AppendListpack unchanged.
func checkDecoded(t testing.TB, key, lp []byte) {
	t.Helper()
	node, err := streamnode.FromListpack(nil, key, lp)
	if err != nil {
		if !errors.Is(err, streamnode.ErrListpack) {
			t.Fatalf("error %v does not match ErrListpack", err)
		}
		if node != nil {
			t.Fatalf("error %v with a node", err)
		}
		return
	}
	entries, deleted := collect(streamnode.NewIter(node), false)
	if len(entries) == 0 {
		t.Fatal("FromListpack made an empty node")
	}
	// Append takes only growing IDs; Redis's nodes may have deleted entries
	// above later ones.
	increasing := true
	for i := 1; i < len(entries); i++ {
		increasing = increasing && entries[i].id.Compare(entries[i-1].id) > 0
	}
	if increasing {
		built := buildNode(entries)
		for i, e := range entries {
			if deleted[i] {
				streamnode.MarkDeleted(built, e.id)
			}
		}
		if !bytes.Equal(built, node) {
			t.Fatalf("node from FromListpack is not the one Append builds for %v", entries)
		}
	}
	checkNode(t, node, entries, deleted)

	first, _ := streamnode.FirstID(node)
	if k := streamnode.MasterKey(first); !bytes.Equal(k[:], key) {
		t.Fatalf("master key %x, node's first ID %v", key, first)
	}
	again := streamnode.AppendListpack(nil, node)
	back, err := streamnode.FromListpack(nil, key, again)
	if err != nil {
		t.Fatalf("FromListpack(AppendListpack(node)): %v", err)
	}
	if !bytes.Equal(back, node) {
		t.Fatal("FromListpack(AppendListpack(node)) differs from node")
	}
	if twice := streamnode.AppendListpack(nil, back); !bytes.Equal(twice, again) {
		t.Fatal("AppendListpack differs for equal nodes")
	}
}

// TestFromListpackMutations decodes every truncation and many one-byte
// changes of a few valid listpacks; each must fail cleanly or decode to a
// good node.
func TestFromListpackMutations(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rounds := 20
	if testing.Short() {
		rounds = 4
	}
	for range rounds {
		entries := listpackEntries(r, 1+r.IntN(6))
		for i := range entries {
			for j := range entries[i].values {
				entries[i].values[j] = entries[i].values[j][:min(len(entries[i].values[j]), 20)]
			}
		}
		node := buildNode(entries)
		if r.IntN(2) == 0 {
			streamnode.MarkDeleted(node, entries[r.IntN(len(entries))].id)
		}
		lp := streamnode.AppendListpack(nil, node)
		key := streamnode.MasterKey(entries[0].id)
		for n := range len(lp) {
			checkDecoded(t, key[:], lp[:n])
		}
		for i := range lp {
			for _, b := range []byte{lp[i] ^ 1, lp[i] ^ 0x80, lp[i] + 1, lp[i] - 1, 0, 0xFF, 0x7F, 0xF0, 0xF4} {
				mutated := slices.Clone(lp)
				mutated[i] = b
				checkDecoded(t, key[:], mutated)
			}
		}
	}
}

func TestListpackNoAllocs(t *testing.T) {
	node := benchListpackNode()
	lp := streamnode.AppendListpack(nil, node)
	key := streamnode.MasterKey(id{1, 0})
	dst := make([]byte, 0, 2*len(lp))
	if allocs := testing.AllocsPerRun(100, func() { streamnode.AppendListpack(dst, node) }); allocs != 0 {
		t.Errorf("AppendListpack allocates %v times", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() { streamnode.FromListpack(dst, key[:], lp) }); allocs != 0 {
		t.Errorf("FromListpack allocates %v times", allocs)
	}
	bad := slices.Clone(lp)
	bad[len(bad)-3]++ // the last lp-count
	if allocs := testing.AllocsPerRun(100, func() { streamnode.FromListpack(dst, key[:], bad) }); allocs != 0 {
		t.Errorf("FromListpack of a bad listpack allocates %v times", allocs)
	}
}

// benchListpackNode is benchNodeEntries entries of two fields with 8-byte
// values, all with the master fields.
func benchListpackNode() []byte {
	var node []byte
	fields := bs("field-01", "field-02")
	for i := range uint64(benchNodeEntries) {
		values := [][]byte{fmt.Appendf(nil, "v%07d", i), fmt.Appendf(nil, "w%07d", i)}
		node = streamnode.Append(node, id{1 + i/4, i % 4}, fields, values)
	}
	return node
}

func BenchmarkAppendListpack(b *testing.B) {
	node := benchListpackNode()
	lp := streamnode.AppendListpack(nil, node)
	b.ReportAllocs()
	b.SetBytes(int64(len(lp)))
	for b.Loop() {
		lp = streamnode.AppendListpack(lp[:0], node)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchNodeEntries), "ns/entry")
}

func BenchmarkFromListpack(b *testing.B) {
	node := benchListpackNode()
	lp := streamnode.AppendListpack(nil, node)
	key := streamnode.MasterKey(id{1, 0})
	b.ReportAllocs()
	b.SetBytes(int64(len(lp)))
	for b.Loop() {
		var err error
		node, err = streamnode.FromListpack(node[:0], key[:], lp)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchNodeEntries), "ns/entry")
}
