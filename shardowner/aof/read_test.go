package aof_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/journal"
)

// cmd is line's words as a RESP command.
func cmd(line string) string {
	var argv [][]byte
	for _, w := range strings.Fields(line) {
		argv = append(argv, []byte(w))
	}
	return string(journal.AppendCommand(nil, argv...))
}

// cmds is each line of script as a RESP command.
func cmds(script string) string {
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(script), "\n") {
		b.WriteString(cmd(line))
	}
	return b.String()
}

// replayed runs Replay over data and writes what fn saw one command a
// line, "db: arg arg".
func replayed(data []byte, whole aof.Whole) (string, int64, error) {
	var b strings.Builder
	valid, err := aof.Replay(data, whole, func(db int, argv [][]byte) error {
		b.WriteString(strconv.Itoa(db))
		b.WriteByte(':')
		for _, a := range argv {
			b.WriteByte(' ')
			b.Write(a)
		}
		b.WriteByte('\n')
		return nil
	})
	return b.String(), valid, err
}

func lines(s string) string { return strings.TrimSpace(s) + "\n" }

func TestReplayRecordsSelectsAndBlocks(t *testing.T) {
	for _, tc := range []struct {
		name, data, want string
	}{
		{"empty", "", ""},
		{"records", cmds("SET a 1\nDEL a\nINCR n"), "0: SET a 1\n0: DEL a\n0: INCR n\n"},
		{"selects", cmds("SET a 1\nSELECT 3\nSET b 2\nselect 0\nSET c 3\nSELECT 15\nDEL d"),
			"0: SET a 1\n3: SET b 2\n0: SET c 3\n15: DEL d\n"},
		{"annotations", "#TS:1700000000\r\n" + cmd("SET a 1") + "#TS:1700000001\r\n#\r\n#anything at all\r\n#all\r\n" + cmd("SET b 2"),
			"0: SET a 1\n0: SET b 2\n"},
		{"plain MULTI", cmd("SET a 1") + cmds("MULTI\nINCR a\nSELECT 2\nINCR b\nEXEC") + cmd("SET c 3"),
			"0: SET a 1\n0: INCR a\n2: INCR b\n2: SET c 3\n"},
		{"lower case", cmds("multi\nincr a\nexec\nselect 4\nget x"), "0: incr a\n4: get x\n"},
		{"empty block", cmds("MULTI\nEXEC\nSET a 1"), "0: SET a 1\n"},
		{"empty argument", "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$0\r\n\r\n", "0: SET  \n"},
		{"binary value", "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$12\r\n\r\n#tx 1 1\r\n*\r\n", "0: SET k \r\n#tx 1 1\r\n*\n"},
		{"marked whole", "#tx 5 1\r\n" + cmds("MULTI\nSELECT 1\nSET a 1\nEXEC") + "#tx 6 2\r\n" + cmds("MULTI\n#all\nFLUSHALL\nEXEC"),
			"1: SET a 1\n1: FLUSHALL\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := strings.ReplaceAll(tc.data, cmd("#all"), "#all\r\n")
			got, valid, err := replayed([]byte(data), nil)
			if err != nil || valid != int64(len(data)) {
				t.Fatalf("valid %d err %v; want %d, nil", valid, err, len(data))
			}
			if got != tc.want {
				t.Fatalf("replayed:\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// A nil fn only checks; a fn's error stops the replay at once, with valid
// before the command it failed on (before its block, in one).
func TestReplayStopsOnFnError(t *testing.T) {
	data := []byte(cmds("SET a 1\nSET b 2\nMULTI\nSET c 3\nSET d 4\nEXEC"))
	if valid, err := aof.Replay(data, nil, nil); err != nil || valid != int64(len(data)) {
		t.Fatalf("nil fn: %d, %v", valid, err)
	}
	stop := errors.New("stop")
	for _, tc := range []struct {
		at    string
		valid int
	}{
		{"a", 0},
		{"b", len(cmds("SET a 1"))},
		{"c", len(cmds("SET a 1\nSET b 2"))},
		{"d", len(cmds("SET a 1\nSET b 2"))},
	} {
		n := 0
		valid, err := aof.Replay(data, nil, func(db int, argv [][]byte) error {
			n++
			if string(argv[1]) == tc.at {
				return stop
			}
			return nil
		})
		if err != stop || valid != int64(tc.valid) || n != int(tc.at[0]-'a')+1 {
			t.Errorf("stop at %s: valid %d err %v after %d calls; want %d, stop", tc.at, valid, err, n, tc.valid)
		}
	}
}

// The arguments fn gets have no room to append into the data.
func TestReplayArgumentsHaveNoSpareCapacity(t *testing.T) {
	data := []byte(cmds("SET a 1\nSET b 2"))
	orig := string(data)
	aof.Replay(data, nil, func(db int, argv [][]byte) error {
		for _, a := range argv {
			if cap(a) != len(a) {
				t.Fatalf("argument %q has capacity %d", a, cap(a))
			}
			_ = append(a, 'X')
		}
		return nil
	})
	if string(data) != orig {
		t.Fatalf("data changed to %q", data)
	}
}

// sink keeps what each shard's journal handed over.
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

// shards writes two shards' streams with the real journal: plain records,
// SELECTs, transaction 7 whole on both shards (with a FLUSHALL each part
// carries), and transaction 8, whose part on shard 1 never came (the
// server stopped before it was written), with a SELECT in shard 0's part.
func shards() (s0, s1 []byte) {
	j0, j1 := journal.New(), journal.New()
	run := func(j *journal.Journal, o journal.Owner, held bool, db int, line string) {
		j.Begin(o, held, false)
		j.Record(db, words(line)...)
		j.End()
	}
	t7 := journal.Owner{Client: 1, Seq: 1}
	t8 := journal.Owner{Client: 2, Seq: 1}
	run(j0, journal.Owner{}, false, 0, "SET a 1")
	run(j1, journal.Owner{}, false, 2, "SET b 1")
	run(j0, t7, true, 0, "INCR a")
	run(j1, t7, true, 2, "INCR b")
	for _, j := range []*journal.Journal{j0, j1} {
		j.Begin(t7, true, false)
		j.Shared(2, words("FLUSHALL")...)
		j.End()
	}
	run(j0, t7, true, 2, "SET a2 x")
	run(j0, journal.Owner{}, false, 0, "SET other 1") // between the part's commands, not inside its block
	j0.EndTx(t7, 7, 2)
	j1.EndTx(t7, 7, 2)
	run(j0, t8, true, 5, "SET k v")
	run(j1, t8, true, 2, "SET kk vv")
	j0.EndTx(t8, 8, 2)
	run(j0, journal.Owner{}, false, 5, "SET after 1") // no SELECT: the stream is in 5 already
	run(j0, journal.Owner{}, false, 1, "SET last 1")
	run(j1, journal.Owner{}, false, 2, "DEL b")
	s := sink{}
	j0.Flush(0, s)
	j1.Flush(1, s)
	return s[0], s[1]
}

func TestReplayJournalTransactions(t *testing.T) {
	s0, s1 := shards()
	if !bytes.Contains(s0, []byte("#tx 8 2\r\n")) || !bytes.Contains(s0, []byte("#all\r\n")) {
		t.Fatalf("shard 0's stream lacks the marks this test is about:\n%q", s0)
	}
	parts := aof.Parts(s0, s1)
	want := map[uint64]aof.TxParts{7: {Seen: 2, Declared: 2}, 8: {Seen: 1, Declared: 2}}
	if fmt.Sprint(parts) != fmt.Sprint(want) {
		t.Fatalf("Parts: %v, want %v", parts, want)
	}
	whole := aof.Complete(parts)
	if !whole(7) || whole(8) || whole(9) {
		t.Fatalf("Complete: 7 %v, 8 %v, 9 %v", whole(7), whole(8), whole(9))
	}

	got, valid, err := replayed(s0, whole)
	if err != nil || valid != int64(len(s0)) {
		t.Fatalf("shard 0: valid %d err %v", valid, err)
	}
	want0 := lines(`
0: SET a 1
0: SET other 1
0: INCR a
2: FLUSHALL
2: SET a2 x
5: SET after 1
1: SET last 1`)
	if got != want0 {
		t.Fatalf("shard 0 replayed:\n%s\nwant\n%s\nfrom\n%q", got, want0, s0)
	}
	// With every transaction whole, 8's part is replayed too.
	got, _, _ = replayed(s0, nil)
	if !strings.Contains(got, "5: SET k v\n5: SET after 1\n") {
		t.Fatalf("shard 0 replayed with nil Whole:\n%s", got)
	}
	got, _, err = replayed(s1, whole)
	want1 := lines(`
2: SET b 1
2: INCR b
2: FLUSHALL
2: DEL b`)
	if err != nil || got != want1 {
		t.Fatalf("shard 1 replayed (%v):\n%s\nwant\n%s", err, got, want1)
	}

	// Files cut inside a part: that part is not seen; the declaration is.
	cut := bytes.Index(s0, []byte("#tx 8 2\r\n")) + 20
	parts = aof.Parts(s0[:cut], s1)
	want = map[uint64]aof.TxParts{7: {Seen: 2, Declared: 2}, 8: {Seen: 0, Declared: 2}}
	if fmt.Sprint(parts) != fmt.Sprint(want) {
		t.Fatalf("Parts of a torn file: %v, want %v", parts, want)
	}
	if p := aof.Parts(s0[:bytes.Index(s0, []byte("#tx 7"))+3]); len(p) != 0 {
		t.Fatalf("Parts of a file cut in a #tx line: %v", p)
	}
}

// Parts reads values by their lengths: one that holds a whole marked block
// marks nothing.
func TestPartsSkipsValues(t *testing.T) {
	inner := "\r\n#tx 9 1\r\n" + cmds("MULTI\nSET x y\nEXEC")
	data := journal.AppendCommand(nil, []byte("SET"), []byte("k"), []byte(inner))
	data = append(data, "#tx 10 3\r\n"+cmds("MULTI\nSET z 1\nEXEC")...)
	if got := fmt.Sprint(aof.Parts(data)); got != fmt.Sprint(map[uint64]aof.TxParts{10: {Seen: 1, Declared: 3}}) {
		t.Fatalf("Parts: %s", got)
	}
	got, _, err := replayed(data, aof.Complete(aof.Parts(data)))
	if err != nil || got != "0: SET k "+inner+"\n" {
		t.Fatalf("replayed (%v): %q", err, got)
	}
}

// piece is a unit of a file that a cut can only drop whole.
type piece struct {
	data string
	want string // what replaying it passes to fn
}

// tornFile is the pieces of a file: records, SELECTs, a whole transaction,
// one that is not whole (5), and records after; last is the final piece.
func tornFile(last piece) []piece {
	return []piece{
		{cmd("SET a 1"), "0: SET a 1\n"},
		{"#TS:1700000000\r\n", ""},
		{cmd("SELECT 2"), ""},
		{cmd("RPUSH list x y z"), "2: RPUSH list x y z\n"},
		{"#tx 4 2\r\n" + cmds("MULTI\nINCR a\nSELECT 3\nINCR b\nEXEC"), "2: INCR a\n3: INCR b\n"},
		{"#tx 5 2\r\n" + cmds("MULTI\nSELECT 6\nSET x 1\nEXEC"), ""},
		{cmd("SET after 1"), "6: SET after 1\n"},
		last,
	}
}

// Cut at every offset, a file replays what its whole pieces hold, reports
// where they end as valid, and says ErrTruncated, never a FormatError;
// data[:valid] then replays the same with no error.
func TestReplayTornTail(t *testing.T) {
	whole := func(id uint64) bool { return id != 5 }
	for _, last := range []piece{
		{"#tx 9 2\r\n" + cmds("MULTI\nSELECT 1\nSET k v\nDEL k2\nEXEC"), "1: SET k v\n1: DEL k2\n"},
		{cmds("MULTI\nINCRBY n 10\nEXEC"), "6: INCRBY n 10\n"},
		{string(journal.AppendCommand(nil, []byte("SET"), []byte("value"), []byte("\r\n*1\r\n$4\r\n\r\n"))), "6: SET value \r\n*1\r\n$4\r\n\r\n\n"},
		{"#tx 11 2\r\n" + cmds("MULTI\nEXEC"), ""},
	} {
		pieces := tornFile(last)
		var data strings.Builder
		bounds := []int{0}
		wants := []string{""}
		for _, p := range pieces {
			data.WriteString(p.data)
			bounds = append(bounds, data.Len())
			wants = append(wants, wants[len(wants)-1]+p.want)
		}
		file := []byte(data.String())
		for cut := 0; cut <= len(file); cut++ {
			k := 0
			for k+1 < len(bounds) && bounds[k+1] <= cut {
				k++
			}
			got, valid, err := replayed(file[:cut], whole)
			if cut == bounds[k] {
				if err != nil {
					t.Fatalf("cut at boundary %d: %v", cut, err)
				}
			} else if err != aof.ErrTruncated {
				t.Fatalf("cut at %d of %q: %v, want ErrTruncated", cut, file, err)
			}
			if valid != int64(bounds[k]) || got != wants[k] {
				t.Fatalf("cut at %d: valid %d replayed\n%s\nwant %d\n%s", cut, valid, got, bounds[k], wants[k])
			}
			again, v2, err := replayed(file[:valid], whole)
			if err != nil || v2 != valid || again != got {
				t.Fatalf("cut at %d, again at %d: valid %d err %v\n%s", cut, valid, v2, err, again)
			}
		}
	}
}

func TestReplayTruncated(t *testing.T) {
	ping := cmd("PING")
	for _, tc := range []struct {
		data  string
		valid int
	}{
		{"*", 0},
		{"*3", 0},
		{"*3\r", 0},
		{"*3\r\n$3\r\nSET\r\n$1\r\na", 0},
		{"*1\r\n$100\r\nabc", 0},
		{"*1\r\n$536870912\r\n", 0},
		{"#TS:1", 0},
		{ping + "#tx 1 2\r", len(ping)},
		{ping + "#tx 1 2\r\n", len(ping)},
		{ping + "#tx 1 2\r\n#TS:1\r\n", len(ping)},
		{ping + "#TS:1\r\n#tx 1 2\r\n" + cmd("MULTI"), len(ping) + 7},
		{ping + cmds("MULTI\nSET a 1"), len(ping)},
		{ping + cmds("MULTI\nSELECT 1\nSET a 1") + "#all\r\n", len(ping)},
		{ping + "#" + strings.Repeat("x", 60000), len(ping)},
	} {
		got, valid, err := replayed([]byte(tc.data), nil)
		if err != aof.ErrTruncated || valid != int64(tc.valid) {
			t.Errorf("%.80q: valid %d err %v; want %d, ErrTruncated", tc.data, valid, err, tc.valid)
		}
		if want := strings.Repeat("0: PING\n", min(1, tc.valid)); got != want {
			t.Errorf("%.80q: replayed %q", tc.data, got)
		}
	}
}

// Garbage gives a FormatError where it is, with valid at the last record
// before it and the records before it replayed.
func TestReplayFormatErrors(t *testing.T) {
	head := cmds("SET a 1\nSELECT 1")
	h := len(head)
	for _, tc := range []struct {
		data   string
		offset int // from the end of head
		msg    string
		valid  int // from the end of head
	}{
		{"x", 0, "expected '*' or '#'", 0},
		{"PING\r\n", 0, "expected '*' or '#'", 0},
		{"\r\n", 0, "expected '*' or '#'", 0},
		{"*0\r\n", 1, "argument count 0", 0},
		{"*-1\r\n", 1, "negative argument count", 0},
		{"*01\r\n", 1, "argument count 0", 0},
		{"*x\r\n", 1, "expected a digit", 0},
		{"*1x\r\n", 2, "expected CRLF", 0},
		{"*1\n$4\r\nPING\r\n", 2, "expected CRLF", 0},
		{"*1\rx", 3, "expected CRLF", 0},
		{"*1048577\r\n", 7, "argument count over 1048576", 0},
		{"*99999999999999999999999\r\n", 7, "argument count over 1048576", 0},
		{"*1\r\n:4\r\n", 4, "expected '$'", 0},
		{"*1\r\n$-1\r\n", 5, "negative argument length", 0},
		{"*1\r\n$536870913\r\n", 13, "argument length over 536870912", 0},
		{"*1\r\n$4\r\nPINGxx", 12, "expected CRLF", 0},
		{"*1\r\n$4\r\nPING\rx", 13, "expected CRLF", 0},
		{"*2\r\n$3\r\nGET\r\n*1\r\n", 13, "expected '$'", 0},
		{"#TS:1\n", 5, "expected CRLF", 0},
		{"#TS:1\r\nbad", 7, "expected '*' or '#'", 7},
		{"#" + strings.Repeat("x", 70000), 0, "annotation line over 65536 bytes", 0},
		{"#tx 1\r\n", 0, "expected #tx <id> <parts>", 0},
		{"#tx 1 0\r\n", 0, "expected #tx <id> <parts>", 0},
		{"#tx a 1\r\n", 0, "expected #tx <id> <parts>", 0},
		{"#tx 18446744073709551616 1\r\n", 0, "expected #tx <id> <parts>", 0},
		{cmd("SELECT x"), 0, "expected SELECT <db>", 0},
		{cmd("SELECT -1"), 0, "expected SELECT <db>", 0},
		{cmd("SELECT 1 2"), 0, "expected SELECT <db>", 0},
		{cmd("MULTI x"), 0, "expected MULTI with no arguments", 0},
		{cmd("EXEC"), 0, "EXEC without MULTI", 0},
		{cmd("SET b 2") + cmds("MULTI\nSET c 3\nMULTI\nEXEC"), len(cmds("SET b 2\nMULTI\nSET c 3")), "MULTI inside a MULTI block", len(cmd("SET b 2"))},
		{cmds("MULTI\nSET c 3") + "#tx 1 1\r\n", len(cmds("MULTI\nSET c 3")), "#tx inside a MULTI block", 0},
		{cmds("MULTI\nSET c 3") + "garbage" + cmd("EXEC"), len(cmds("MULTI\nSET c 3")), "expected '*' or '#'", 0},
	} {
		data := []byte(head + tc.data)
		got, valid, err := replayed(data, nil)
		var fe *aof.FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%.60q: err %v, want a FormatError", tc.data, err)
			continue
		}
		if fe.Offset != int64(h+tc.offset) || fe.Msg != tc.msg || valid != int64(h+tc.valid) {
			t.Errorf("%.60q: %v, valid %d; want %q at offset %d, valid %d", tc.data, err, valid, tc.msg, h+tc.offset, h+tc.valid)
		}
		want := "0: SET a 1\n"
		if tc.valid > 0 && strings.HasPrefix(tc.data, "*3") {
			want += "1: SET b 2\n"
		}
		if got != want {
			t.Errorf("%.60q: replayed %q, want %q", tc.data, got, want)
		}
	}
	err := error(&aof.FormatError{Offset: 12, Msg: "expected '$'"})
	if err.Error() != "aof: expected '$' at offset 12" {
		t.Fatalf("Error(): %q", err.Error())
	}
}

// Random files of random records, cut anywhere and with garbage put in
// anywhere, hold the properties FuzzReplay checks.
func TestReplayRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		data := randomFile(r)
		if _, valid, err := replayed(data, nil); err != nil || valid != int64(len(data)) {
			t.Fatalf("random file: valid %d err %v\n%q", valid, err, data)
		}
		for range 20 {
			cut := data[:r.IntN(len(data)+1)]
			if _, _, err := replayed(cut, nil); err != nil && err != aof.ErrTruncated {
				t.Fatalf("cut file: %v\n%q", err, cut)
			}
			checkReplay(t, cut)
			bad := bytes.Clone(data)
			bad[r.IntN(len(bad))] = byte(r.IntN(256))
			checkReplay(t, bad)
		}
	}
}

func randomFile(r *rand.Rand) []byte {
	var b []byte
	word := func() []byte {
		w := make([]byte, r.IntN(12))
		for i := range w {
			w[i] = "ab\r\n#*$01"[r.IntN(9)]
		}
		return w
	}
	record := func() {
		argv := [][]byte{[]byte("SET")}
		for range r.IntN(4) {
			argv = append(argv, word())
		}
		b = journal.AppendCommand(b, argv...)
	}
	for range 1 + r.IntN(12) {
		switch r.IntN(6) {
		case 0:
			b = journal.AppendCommand(b, []byte("SELECT"), strconv.AppendInt(nil, int64(r.IntN(16)), 10))
		case 1:
			b = fmt.Appendf(b, "#TS:%d\r\n", r.Int64())
		case 2, 3:
			if r.IntN(2) == 0 {
				b = fmt.Appendf(b, "#tx %d %d\r\n", r.IntN(4), 1+r.IntN(3))
			}
			b = journal.AppendCommand(b, []byte("MULTI"))
			for range r.IntN(4) {
				if r.IntN(3) == 0 {
					b = append(b, "#all\r\n"...)
				}
				record()
			}
			b = journal.AppendCommand(b, []byte("exec"))
		default:
			record()
		}
	}
	return b
}

// checkReplay checks what holds for any data: Replay returns, valid lies
// in data, err nil means all of it, and data[:valid] replays the same with
// no error; the same with a Whole that drops odd transactions.
func checkReplay(t *testing.T, data []byte) {
	t.Helper()
	for _, whole := range []aof.Whole{nil, func(id uint64) bool { return id%2 == 0 }, aof.Complete(aof.Parts(data))} {
		got, valid, err := replayed(data, whole)
		if valid < 0 || valid > int64(len(data)) {
			t.Fatalf("valid %d of %d bytes", valid, len(data))
		}
		if (err == nil) != (valid == int64(len(data))) {
			t.Fatalf("valid %d of %d bytes with err %v", valid, len(data), err)
		}
		var fe *aof.FormatError
		if err != nil && err != aof.ErrTruncated && !errors.As(err, &fe) {
			t.Fatalf("err %v", err)
		}
		if fe != nil && (fe.Offset < valid || fe.Offset >= int64(len(data))) {
			t.Fatalf("FormatError at %d, valid %d, %d bytes", fe.Offset, valid, len(data))
		}
		again, v2, err := replayed(data[:valid], whole)
		if err != nil || v2 != valid || again != got {
			t.Fatalf("data[:%d] again: valid %d err %v\n%q\nthen\n%q\nof %q", valid, v2, err, again, got, data)
		}
	}
}

func FuzzReplay(f *testing.F) {
	s0, s1 := shards()
	f.Add(s0)
	f.Add(s1)
	f.Add(s0[:len(s0)/2])
	for _, p := range tornFile(piece{cmd("DEL x"), ""}) {
		f.Add([]byte(p.data))
	}
	f.Add([]byte("*1\r\n$-1\r\n"))
	f.Add([]byte("#tx 1 1\r\n*1\r\n$5\r\nMULTI\r\n*1\r\n$4\r\nEXEC\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkReplay(t, data)
		if _, _, err := replayed(data, nil); err == nil && len(data) <= 300 {
			// Every cut of a good file is a cut, not garbage.
			for cut := range len(data) {
				if _, _, err := replayed(data[:cut], nil); err != nil && err != aof.ErrTruncated {
					t.Fatalf("cut at %d of good %q: %v", cut, data, err)
				}
			}
		}
		for id, p := range aof.Parts(data) {
			if p.Seen < 0 || p.Declared < 1 {
				t.Fatalf("Parts: %d: %+v", id, p)
			}
		}
	})
}

var okUpTo = regexp.MustCompile(`ok_up_to=(\d+),`)

// redis-check-aof takes the journal's streams as valid AOFs, and where it
// would truncate one cut short is Replay's valid.
func TestRedisCheckAOF(t *testing.T) {
	tool, err := exec.LookPath("redis-check-aof")
	if err != nil {
		t.Skip("redis-check-aof is not installed")
	}
	dir := t.TempDir()
	check := func(data []byte) (bool, int64, string) {
		t.Helper()
		name := filepath.Join(dir, "appendonly.aof.1.incr.aof")
		if err := os.WriteFile(name, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(tool, name).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		m := okUpTo.FindSubmatch(out)
		if m == nil {
			t.Fatalf("redis-check-aof said:\n%s", out)
		}
		n, _ := strconv.ParseInt(string(m[1]), 10, 64)
		return err == nil, n, string(out)
	}
	s0, s1 := shards()
	for _, s := range [][]byte{s0, s1} {
		ok, upTo, out := check(s)
		if !ok || upTo != int64(len(s)) || !strings.Contains(out, "is valid") {
			t.Fatalf("redis-check-aof on a journal stream:\n%s", out)
		}
	}
	// Cut in the last record, outside any block: Redis truncates where
	// Replay's valid is. Cut inside a block after its MULTI: Redis truncates
	// before the MULTI, and keeps or drops the #tx line before it, which
	// Replay drops.
	lastRec := bytes.LastIndex(s0, []byte(cmd("SET last 1")))
	mark := "#tx 8 2\r\n"
	block := bytes.Index(s0, []byte(mark))
	multiEnd := block + len(mark) + len(cmd("MULTI"))
	for _, cut := range []int{lastRec + 1, lastRec + 3, lastRec + 9, lastRec + 20, len(s0) - 2, len(s0) - 1,
		multiEnd, multiEnd + 5, multiEnd + len(cmd("SELECT 5")) + 7} {
		_, valid, err := replayed(s0[:cut], aof.Complete(aof.Parts(s0[:cut], s1)))
		if err != aof.ErrTruncated {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		ok, upTo, out := check(s0[:cut])
		agree := upTo == valid
		if cut >= multiEnd && cut < lastRec {
			agree = valid == int64(block) && (upTo == valid || upTo == valid+int64(len(mark)))
		}
		if ok || !agree || !strings.Contains(out, "is not valid") {
			t.Fatalf("cut at %d (valid %d): redis-check-aof said:\n%s", cut, valid, out)
		}
	}
}

func BenchmarkReplay(b *testing.B) {
	var data []byte
	for i := range 10000 {
		data = journal.AppendCommand(data, []byte("SET"), fmt.Appendf(nil, "key:%06d", i), bytes.Repeat([]byte{'v'}, 32))
	}
	n := 0
	fn := func(db int, argv [][]byte) error {
		n += len(argv)
		return nil
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := aof.Replay(data, nil, fn); err != nil {
			b.Fatal(err)
		}
	}
}
