package journal

import (
	"strings"
	"testing"

	"github.com/valyala/bytebufferpool"
)

// sink keeps what each shard handed over.
type sink map[int][]byte

func (s sink) Write(shard int, b *bytebufferpool.ByteBuffer) {
	s[shard] = append(s[shard], b.B...)
	bytebufferpool.Put(b)
}

func words(line string) [][]byte {
	var out [][]byte
	for _, w := range strings.Fields(line) {
		out = append(out, []byte(w))
	}
	return out
}

// show writes a merged stream one command a line, SELECT where the
// database changes.
func show(cmds []Command) string {
	var b strings.Builder
	db := -1
	for _, c := range cmds {
		name := strings.ToUpper(string(c.Argv[0]))
		if c.DB != db && name != "MULTI" && name != "EXEC" {
			b.WriteString("SELECT " + string(rune('0'+c.DB)) + "\n")
			db = c.DB
		}
		for i, a := range c.Argv {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.Write(a)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func TestStreamSelectsDatabases(t *testing.T) {
	j := New()
	j.Begin(Owner{}, false, false)
	j.Record(0, words("SET a 1")...)
	j.Record(0, words("SET b 2")...)
	j.End()
	j.Begin(Owner{}, false, false)
	j.Record(3, words("DEL c")...)
	j.End()
	s := sink{}
	j.Flush(0, s)
	again := sink{}
	if j.Flush(0, again); len(again) != 0 {
		t.Fatalf("a second Flush handed over %q", again[0])
	}
	want := "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n" +
		"*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*2\r\n$3\r\nDEL\r\n$1\r\nc\r\n"
	if got := string(s[0]); got != want {
		t.Fatalf("stream:\n%q\nwant\n%q", got, want)
	}
}

// A transaction's part holds its records back until EndTx, while other
// commands' records go on; a transaction that writes nothing leaves none.
func TestTransactionPartsWaitForTheirEnd(t *testing.T) {
	j := New()
	tx := Owner{Client: 7, Seq: 1}
	j.Begin(tx, true, false)
	j.Record(0, words("SET a 1")...)
	j.End()
	j.Begin(Owner{Client: 8}, false, false)
	j.Record(0, words("SET z 9")...)
	j.End()
	j.Begin(tx, true, false)
	j.Record(1, words("SET b 2")...)
	j.End()
	j.EndTx(tx, 42, 1)
	j.EndTx(Owner{Client: 9}, 43, 0)
	s := sink{}
	j.Flush(0, s)
	cmds, err := Merge([][]byte{s[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT 0\nSET z 9\nMULTI\nSET a 1\nSELECT 1\nSET b 2\nEXEC\n"
	if got := show(cmds); got != want {
		t.Fatalf("merged:\n%s\nwant\n%s", got, want)
	}
}

// build runs script over the shards' journals: each line is
// "shard: command", "shard: tx id parts" (the commands after it, up to
// "shard: end", are that transaction's part), or "shard: all command".
func build(t *testing.T, shards int, script string) [][]byte {
	t.Helper()
	js := make([]*Journal, shards)
	for i := range js {
		js[i] = New()
	}
	type open struct {
		o     Owner
		id    uint64
		parts int
	}
	tx := make([]*open, shards)
	for _, line := range strings.Split(strings.TrimSpace(script), "\n") {
		sh := int(line[0] - '0')
		rest := strings.TrimSpace(line[2:])
		j := js[sh]
		f := strings.Fields(rest)
		switch {
		case f[0] == "tx":
			var id, parts int
			for _, c := range f[1] {
				id = id*10 + int(c-'0')
			}
			parts = int(f[2][0] - '0')
			tx[sh] = &open{Owner{Client: int64(id)}, uint64(id), parts}
		case f[0] == "end":
			j.EndTx(tx[sh].o, tx[sh].id, tx[sh].parts)
			tx[sh] = nil
		default:
			held := tx[sh] != nil
			o := Owner{}
			if held {
				o = tx[sh].o
			}
			j.Begin(o, held, false)
			if f[0] == "all" {
				j.Shared(0, words(strings.Join(f[1:], " "))...)
			} else {
				j.Record(0, words(rest)...)
			}
			j.End()
		}
	}
	out := make([][]byte, shards)
	for i, j := range js {
		s := sink{}
		j.Flush(i, s)
		out[i] = s[i]
	}
	return out
}

func TestMergeKeepsTransactionsWhole(t *testing.T) {
	streams := build(t, 3, `
0: SET a 1
1: SET b 1
0: tx 5 2
0: SET a 2
0: end
1: SET b 2
1: tx 5 2
1: DEL b
1: end
2: SET c 1
0: SET a 3
`)
	cmds, err := Merge(streams, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := show(cmds)
	// b's SET 2 must come before the transaction that deletes it, and a's
	// SET 3 after the one that sets it to 2.
	for _, order := range [][2]string{{"SET b 2", "DEL b"}, {"SET a 2", "SET a 3"}, {"SET a 1", "MULTI"}} {
		if i, k := strings.Index(got, order[0]), strings.Index(got, order[1]); i < 0 || k < 0 || i > k {
			t.Errorf("%q should come before %q in:\n%s", order[0], order[1], got)
		}
	}
	if strings.Count(got, "MULTI") != 1 || !strings.Contains(got, "MULTI\nSET a 2\nDEL b\nEXEC\n") {
		t.Errorf("the transaction is not one block:\n%s", got)
	}
}

// The records every part carries (#all) come once, and cut the parts: what
// each part did before SWAPDB stays before it.
func TestMergeSharedRecordsOnce(t *testing.T) {
	streams := build(t, 2, `
0: tx 9 2
0: SET a 1
0: all SWAPDB 0 1
0: SET a 2
0: end
1: tx 9 2
1: all SWAPDB 0 1
1: SET b 1
1: end
`)
	cmds, err := Merge(streams, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "MULTI\nSELECT 0\nSET a 1\nSWAPDB 0 1\nSET a 2\nSET b 1\nEXEC\n"
	if got := show(cmds); got != want {
		t.Fatalf("merged:\n%s\nwant\n%s", got, want)
	}
}

func TestMergeRefusesTornAndMissingParts(t *testing.T) {
	streams := build(t, 2, `
0: tx 3 2
0: SET a 1
0: end
`)
	if _, err := Merge(streams, nil); err == nil {
		t.Error("a transaction with a part missing merged")
	}
	whole := build(t, 1, `
0: tx 3 1
0: SET a 1
0: end
`)[0]
	for cut := 1; cut < len(whole); cut++ {
		if _, err := Merge([][]byte{whole[:cut]}, nil); err == nil {
			t.Errorf("a stream cut after %d of %d bytes merged", cut, len(whole))
		}
	}
	// Two shards that ordered two transactions on one key differently.
	crossed := build(t, 2, `
0: tx 1 2
0: SET a 1
0: end
0: tx 2 2
0: SET a 2
0: end
1: tx 2 2
1: SET b 2
1: end
1: tx 1 2
1: SET b 1
1: end
`)
	if _, err := Merge(crossed, testKeys); err == nil {
		t.Error("transactions ordered differently on two shards merged")
	}
}

func FuzzMerge(f *testing.F) {
	for _, s := range build(&testing.T{}, 2, `
0: SET a 1
0: tx 5 2
0: all FLUSHALL
0: end
1: tx 5 2
1: all FLUSHALL
1: end
`) {
		f.Add(s)
	}
	f.Add([]byte("#tx 1 1\r\n*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n"))
	f.Add([]byte("*2\r\n$-1\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		cmds, err := Merge([][]byte{b}, testKeys)
		if err != nil {
			return
		}
		for _, c := range cmds {
			if len(c.Argv) == 0 {
				t.Fatal("a command without arguments")
			}
		}
	})
}

// testKeys takes every argument after the name for a key, and FLUSHALL
// and SWAPDB for all.
func testKeys(argv [][]byte) ([][]byte, bool) {
	switch strings.ToUpper(string(argv[0])) {
	case "FLUSHALL", "SWAPDB":
		return nil, true
	}
	return argv[1:2], false
}

// Transactions on keys of their own may close their parts in different
// orders on different shards: either order is theirs.
func TestMergeReordersTransactionsThatCommute(t *testing.T) {
	crossed := build(t, 2, `
0: tx 1 2
0: SET a 1
0: end
0: SET c 1
0: tx 2 2
0: SET b 1
0: end
1: tx 2 2
1: SET x 2
1: end
1: tx 1 2
1: SET y 1
1: end
`)
	cmds, err := Merge(crossed, testKeys)
	if err != nil {
		t.Fatal(err)
	}
	got := show(cmds)
	if strings.Count(got, "MULTI") != 2 || !strings.Contains(got, "SET c 1") {
		t.Fatalf("merged:\n%s", got)
	}
	// A record between that names the moved part's key pins it.
	pinned := build(t, 2, `
0: tx 1 2
0: SET a 1
0: end
0: SET b 0
0: tx 2 2
0: SET b 1
0: end
1: tx 2 2
1: SET x 2
1: end
1: tx 1 2
1: SET x 1
1: end
`)
	if _, err := Merge(pinned, testKeys); err == nil {
		t.Error("a part moved past a record on its own key")
	}
}

// A key a transaction holds that expires between its commands (active
// expiry, outside any command) is deleted inside the transaction's part;
// any other goes into the stream.
func TestExpiryOfAHeldKeyGoesIntoItsPart(t *testing.T) {
	j := New()
	tx := Owner{Client: 3, Seq: 2}
	j.Holder = func(db int, key []byte) (Owner, bool) { return tx, string(key) == "held" }
	j.Begin(tx, true, false)
	j.Record(0, words("INCR held")...)
	j.End()
	j.Expired(0, []byte("held"))
	j.Expired(0, []byte("free"))
	j.Begin(tx, true, false)
	j.Record(0, words("SET other 1")...)
	j.End()
	j.EndTx(tx, 1, 1)
	// A transaction that only reads (DBSIZE over shards) holds the whole
	// shard: the expiry it saw is not lost with its empty part.
	reader := Owner{Client: 4}
	j.Holder = func(db int, key []byte) (Owner, bool) { return reader, true }
	j.Expired(0, []byte("gone"))
	j.EndTx(reader, 0, 0)
	s := sink{}
	j.Flush(0, s)
	cmds, err := Merge([][]byte{s[0]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "SELECT 0\nDEL free\nMULTI\nINCR held\nDEL held\nSET other 1\nEXEC\nDEL gone\n"
	if got := show(cmds); got != want {
		t.Fatalf("merged:\n%s\nwant\n%s", got, want)
	}
}

func TestStampGoesBeforeTheTurnsRecords(t *testing.T) {
	j := New()
	j.Stamp(5) // nothing recorded: no line
	j.Record(0, words("SET a 1")...)
	j.Stamp(1700000000)
	s := sink{}
	j.Flush(0, s)
	want := "#TS:1700000000\r\n*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\n1\r\n"
	if string(s[0]) != want {
		t.Fatalf("stream %q, want %q", s[0], want)
	}
}

// TestScriptPart: the commands a script calls record into its part, not
// the stream, unless the script runs as a part of a transaction, whose
// part they join; EndTx of ScriptOwner closes it as a block or, with no
// parts, as plain records.
func TestScriptPart(t *testing.T) {
	j := New()
	set := func(held, scripted bool, o Owner, key string) {
		j.Begin(o, held, scripted)
		j.Record(0, []byte("SET"), []byte(key), []byte("v"))
		j.End()
	}
	set(false, true, Owner{Client: 7}, "a")
	set(false, true, Owner{Client: 7}, "b")
	if j.Records(ScriptOwner) != 2 || len(j.buf) != 0 {
		t.Fatalf("script records: %d in its part, %d bytes in the stream", j.Records(ScriptOwner), len(j.buf))
	}
	j.EndTx(ScriptOwner, 9, 1)
	got := string(j.buf)
	if !strings.HasPrefix(got, "#tx 9 1\r\n*1\r\n$5\r\nMULTI\r\n") || !strings.HasSuffix(got, "*1\r\n$4\r\nEXEC\r\n") ||
		strings.Index(got, "$1\r\na") > strings.Index(got, "$1\r\nb") {
		t.Fatalf("the script's block: %q", got)
	}
	j.buf = j.buf[:0]
	tx := Owner{Client: 7, Seq: 3}
	set(true, true, tx, "c")
	if j.Records(tx) != 1 || j.Records(ScriptOwner) != 0 {
		t.Fatalf("a script inside a transaction: %d in the transaction's part, %d in the script's", j.Records(tx), j.Records(ScriptOwner))
	}
	set(false, true, Owner{Client: 7}, "d")
	j.EndTx(ScriptOwner, 0, 0)
	if got := string(j.buf); strings.Contains(got, "MULTI") || !strings.Contains(got, "$1\r\nd") {
		t.Fatalf("a script of one write: %q", got)
	}
}

// TestDropTx: a dropped part leaves nothing in the stream, and the next
// script's part starts empty.
func TestDropTx(t *testing.T) {
	j := New()
	j.Begin(Owner{Client: 7}, false, true)
	j.Record(0, []byte("SET"), []byte("gone"), []byte("v"))
	j.End()
	j.DropTx(ScriptOwner)
	j.DropTx(ScriptOwner) // nothing left: no-op
	if j.Records(ScriptOwner) != 0 || len(j.buf) != 0 {
		t.Fatalf("after DropTx: %d records, stream %q", j.Records(ScriptOwner), j.buf)
	}
	j.Begin(Owner{Client: 7}, false, true)
	j.Record(0, []byte("SET"), []byte("kept"), []byte("v"))
	j.End()
	j.EndTx(ScriptOwner, 0, 0)
	if got := string(j.buf); strings.Contains(got, "gone") || !strings.Contains(got, "kept") {
		t.Fatalf("the next script's records: %q", got)
	}
}
