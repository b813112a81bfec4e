package streamnode_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/corekv/corekv/shardowner/streamnode"
)

type testEntry struct {
	id             id
	fields, values [][]byte
}

// String keeps failure messages short: the ID and the pair count.
func (e testEntry) String() string { return fmt.Sprintf("%v(%d)", e.id, len(e.fields)) }

func buildNode(entries []testEntry) []byte {
	var node []byte
	for _, e := range entries {
		node = streamnode.Append(node, e.id, e.fields, e.values)
	}
	return node
}

// collect drains it, forwards or backwards, into entries and their flags.
func collect(it streamnode.Iter, backward bool) (got []testEntry, deleted []bool) {
	for {
		var e streamnode.Entry
		var ok bool
		if backward {
			e, ok = it.Prev()
		} else {
			e, ok = it.Next()
		}
		if !ok {
			return got, deleted
		}
		got = append(got, entryOf(e))
		deleted = append(deleted, e.Deleted)
	}
}

func entryOf(e streamnode.Entry) testEntry {
	te := testEntry{id: e.ID, fields: [][]byte{}, values: [][]byte{}}
	for p := e.Pairs(); ; {
		f, v, ok := p.Next()
		if !ok {
			break
		}
		te.fields = append(te.fields, f)
		te.values = append(te.values, v)
	}
	if len(te.fields) != e.Len() {
		panic(fmt.Sprintf("entry %v: Len %d, %d pairs", e.ID, e.Len(), len(te.fields)))
	}
	return te
}

func equalEntry(a, b testEntry) bool {
	return a.id == b.id && slices.EqualFunc(a.fields, b.fields, bytes.Equal) && slices.EqualFunc(a.values, b.values, bytes.Equal)
}

// checkNode checks everything node says against the entries it was built
// from, deleted[i] telling whether entries[i] was marked deleted.
func checkNode(t testing.TB, node []byte, entries []testEntry, deleted []bool) {
	t.Helper()
	forward, fwdDeleted := collect(streamnode.NewIter(node), false)
	if !slices.EqualFunc(forward, entries, equalEntry) {
		t.Fatalf("forward iteration:\n got %v\nwant %v", forward, entries)
	}
	if !slices.Equal(fwdDeleted, deleted) {
		t.Fatalf("deleted flags: got %v, want %v", fwdDeleted, deleted)
	}
	backward, backDeleted := collect(streamnode.NewIter(node), true)
	slices.Reverse(backward)
	slices.Reverse(backDeleted)
	if !slices.EqualFunc(backward, forward, equalEntry) || !slices.Equal(backDeleted, fwdDeleted) {
		t.Fatalf("backward iteration is not forward reversed:\n got %v\nwant %v", backward, forward)
	}

	wantDeleted := 0
	for _, d := range deleted {
		if d {
			wantDeleted++
		}
	}
	if live, del := streamnode.Count(node); live != len(entries)-wantDeleted || del != wantDeleted {
		t.Fatalf("Count = %d, %d; want %d, %d", live, del, len(entries)-wantDeleted, wantDeleted)
	}
	first, firstOK := streamnode.FirstID(node)
	last, lastOK := streamnode.LastID(node)
	if len(entries) == 0 {
		if firstOK || lastOK {
			t.Fatalf("empty node has FirstID %v, %v and LastID %v, %v", first, firstOK, last, lastOK)
		}
		return
	}
	if !firstOK || first != entries[0].id || !lastOK || last != entries[len(entries)-1].id {
		t.Fatalf("FirstID, LastID = %v, %v; want %v, %v", first, last, entries[0].id, entries[len(entries)-1].id)
	}
}

// randomEntries returns n entries with growing IDs, some near the top of the
// ID space and some crossing below the master's seq, and fields that are
// often the first entry's, in order, so both entry forms show up.
func randomEntries(r *rand.Rand, n int) []testEntry {
	randBytes := func(max int) []byte {
		b := make([]byte, r.IntN(max+1))
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		return b
	}
	cur := id{r.Uint64N(1 << 45), r.Uint64N(1 << 10)}
	if r.IntN(4) == 0 {
		cur = id{maxU - uint64(n), r.Uint64()}
	}
	var master [][]byte
	entries := make([]testEntry, n)
	for i := range entries {
		if i > 0 {
			if gap := 1 + r.Uint64N(1000); r.IntN(2) == 0 && cur.Ms <= maxU-gap {
				cur = id{cur.Ms + gap, r.Uint64N(4)}
			} else {
				next, ok := cur.Next()
				if !ok {
					return entries[:i]
				}
				cur = next
			}
		}
		var fields [][]byte
		if i == 0 || r.IntN(3) > 0 {
			fields = slices.Clone(master)
		}
		if fields == nil {
			for range 1 + r.IntN(6) {
				fields = append(fields, randBytes(12))
			}
		}
		if i == 0 {
			master = fields
		}
		values := make([][]byte, len(fields))
		for j := range values {
			values[j] = randBytes(300)
		}
		entries[i] = testEntry{cur, fields, values}
	}
	return entries
}

func TestNodeRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		entries := randomEntries(r, 1+r.IntN(150))
		node := buildNode(entries)
		deleted := make([]bool, len(entries))
		checkNode(t, node, entries, deleted)

		for _, i := range r.Perm(len(entries))[:r.IntN(len(entries)+1)] {
			if !streamnode.MarkDeleted(node, entries[i].id) {
				t.Fatalf("MarkDeleted(%v) = false for a live entry", entries[i].id)
			}
			if streamnode.MarkDeleted(node, entries[i].id) {
				t.Fatalf("MarkDeleted(%v) = true twice", entries[i].id)
			}
			deleted[i] = true
		}
		checkNode(t, node, entries, deleted)
	}
}

func TestEmptyNode(t *testing.T) {
	checkNode(t, nil, nil, nil)
	if streamnode.MarkDeleted(nil, minID) {
		t.Error("MarkDeleted on an empty node = true")
	}
}

func TestMarkDeletedMissing(t *testing.T) {
	entries := []testEntry{
		{id{5, 1}, bs("f"), bs("a")},
		{id{5, 3}, bs("f"), bs("b")},
		{id{9, 0}, bs("g"), bs("c")},
	}
	node := buildNode(entries)
	for _, missing := range []id{{0, 0}, {5, 0}, {5, 2}, {6, 0}, {9, 1}, maxID} {
		if streamnode.MarkDeleted(node, missing) {
			t.Errorf("MarkDeleted(%v) = true, no such entry", missing)
		}
	}
	checkNode(t, node, entries, make([]bool, len(entries)))
}

func TestIterBothEnds(t *testing.T) {
	entries := randomEntries(rand.New(rand.NewPCG(3, 4)), 41)
	node := buildNode(entries)
	// Taking from both ends yields each entry once, front ones in order and
	// back ones in reverse, until the two meet.
	it := streamnode.NewIter(node)
	var front, back []testEntry
	for i := 0; ; i++ {
		if i%3 == 0 {
			e, ok := it.Prev()
			if !ok {
				break
			}
			back = append(back, entryOf(e))
		} else {
			e, ok := it.Next()
			if !ok {
				break
			}
			front = append(front, entryOf(e))
		}
	}
	slices.Reverse(back)
	if got := append(front, back...); !slices.EqualFunc(got, entries, equalEntry) {
		t.Fatalf("got %v\nwant %v", got, entries)
	}
	if _, ok := it.Next(); ok {
		t.Error("Next after the ends met = true")
	}
	if _, ok := it.Prev(); ok {
		t.Error("Prev after the ends met = true")
	}
}

func TestPairsAreCapped(t *testing.T) {
	entries := []testEntry{{id{1, 0}, bs("f1", "f2"), bs("v1", "v2")}, {id{2, 0}, bs("g"), bs("w")}}
	node := buildNode(entries)
	before := bytes.Clone(node)
	it := streamnode.NewIter(node)
	for e, ok := it.Next(); ok; e, ok = it.Next() {
		for p := e.Pairs(); ; {
			f, v, ok := p.Next()
			if !ok {
				break
			}
			_ = append(f, 'X')
			_ = append(v, 'X')
		}
	}
	if !bytes.Equal(node, before) {
		t.Fatal("appending to a yielded field or value wrote into the node")
	}
}

func TestSameFieldsStoresValuesOnly(t *testing.T) {
	long := bytes.Repeat([]byte("f"), 100)
	node := streamnode.Append(nil, id{1, 0}, [][]byte{long, []byte("g")}, bs("1", "2"))
	size := len(node)
	node = streamnode.Append(node, id{1, 1}, [][]byte{long, []byte("g")}, bs("1", "2"))
	same := len(node) - size
	size = len(node)
	node = streamnode.Append(node, id{1, 2}, [][]byte{[]byte("g"), long}, bs("1", "2"))
	if other := len(node) - size; other < same+len(long) {
		t.Errorf("entry with master fields takes %d bytes, with them reordered %d", same, other)
	}
}

func TestAppendPanics(t *testing.T) {
	node := streamnode.Append(nil, id{5, 5}, bs("f"), bs("v"))
	for name, appendBad := range map[string]func(){
		"equal ID":   func() { streamnode.Append(node, id{5, 5}, bs("f"), bs("v")) },
		"smaller ID": func() { streamnode.Append(node, id{4, 9}, bs("f"), bs("v")) },
		"lengths":    func() { streamnode.Append(node, id{6, 0}, bs("f", "g"), bs("v")) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Append did not panic", name)
				}
			}()
			appendBad()
		}()
	}
}

func bs(s ...string) [][]byte {
	b := make([][]byte, len(s))
	for i := range s {
		b[i] = []byte(s[i])
	}
	return b
}
