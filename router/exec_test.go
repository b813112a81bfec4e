package router

import (
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

// testClient is a connection as EXEC's transaction sees it: SELECT is its
// one home command.
type testClient struct {
	ex        *testExec
	db, proto int
	watched   []string // keys of database 0
	unwatched bool
	ran       []string
	quiet     bool // records nothing in ran
	errs      int
}

func (c *testClient) DB() int    { return c.db }
func (c *testClient) Proto() int { return c.proto }
func (c *testClient) Unwatch()   { c.unwatched = true }

func (c *testClient) Watched(i int) (int, []byte, bool) {
	if i >= len(c.watched) {
		return 0, nil, false
	}
	return 0, []byte(c.watched[i]), true
}

func (c *testClient) RunHome(cmd *Command, argv [][]byte) *Slot {
	s := c.ex.NewSlot()
	s.Filled = true
	if cmd.Home != HomeSelect {
		s.Reply = []byte("-ERR not here\r\n")
		return s
	}
	c.db = int(argv[1][0] - '0')
	s.Reply = []byte("+OK\r\n")
	return s
}

func (c *testClient) Ran(cmd *Command, argv [][]byte) {
	if c.quiet {
		return
	}
	c.ran = append(c.ran, string(argv[0]))
}

func (c *testClient) Tracks(*Command, [][]byte) bool { return false }

func (c *testClient) Replied(reply []byte) {
	if isErr(reply) {
		c.errs++
	}
}

// execBlock runs lines as one MULTI block for cl and returns EXEC's reply.
func execBlock(t *testing.T, e *testExec, cl *testClient, lines ...string) string {
	t.Helper()
	var b Block
	b.Reset()
	for _, line := range lines {
		argv := words(line)
		b.Add(Lookup(argv[0]), argv)
	}
	slot := e.NewSlot()
	slot.Client = 7
	var x ExecTxn
	x.RunBlock(e, &e.locks[0], cl, &b, []byte("EXEC"), slot)
	if e.deferred {
		e.drain()
	}
	if !slot.Filled {
		t.Fatalf("%q: EXEC's slot not filled", lines)
	}
	reply := string(slot.Reply)
	e.FreeSlot(slot)
	if len(e.bad) > 0 {
		t.Errorf("%q: exec misuse: %v", lines, e.bad)
	}
	if len(e.live) != 0 {
		t.Errorf("%q: %d slots not freed", lines, len(e.live))
	}
	for sh := range e.locks {
		if e.locks[sh].Active() {
			t.Errorf("%q: shard %d still locked", lines, sh)
		}
	}
	return reply
}

func TestExecBlockAcrossShards(t *testing.T) {
	forModes(t, 3, func(t *testing.T, e *testExec) {
		a, b, c := keyOn("a", 0, 3), keyOn("b", 1, 3), keyOn("c", 2, 3)
		cl := &testClient{ex: e, proto: 2}
		got := execBlock(t, e, cl,
			"set "+a+" 1",
			"set "+b+" 2",
			"mset "+a+" 3 "+c+" 4", // split inside the block
			"select 1",
			"get "+a, // database 1 now
			"incr "+b,
			"rename "+b+" "+c, // a multi-round split: the next waits for it
			"get "+c,
		)
		want := "*8\r\n+OK\r\n+OK\r\n+OK\r\n+OK\r\n$-1\r\n:1\r\n+OK\r\n" + bulk("1")
		if got != want {
			t.Fatalf("EXEC = %q, want %q", got, want)
		}
		if cl.db != 1 || !cl.unwatched {
			t.Errorf("db %d, unwatched %v", cl.db, cl.unwatched)
		}
		if r := e.do(0, "get "+a); r != bulk("3") {
			t.Errorf("db 0 %s = %q", a, r)
		}
		if r := strings.Join(cl.ran, " "); r != "set set mset select get incr rename get EXEC" {
			t.Errorf("shown %q", r)
		}
	})
}

func TestExecBlockErrorsAndProto(t *testing.T) {
	forModes(t, 2, func(t *testing.T, e *testExec) {
		a := keyOn("a", 1, 2)
		cl := &testClient{ex: e, proto: 3}
		got := execBlock(t, e, cl, "set "+a+" x", "incr "+a, "ping")
		w := resp.Writer{Proto: 3}
		w.Array(3)
		want := string(w.B) + "+OK\r\n-ERR value is not an integer or out of range\r\n-ERR not here\r\n"
		if got != want {
			t.Fatalf("EXEC = %q, want %q", got, want)
		}
		if cl.errs != 2 {
			t.Errorf("%d errors counted, want 2", cl.errs)
		}
	})
}

// BenchmarkExecBlock runs a block of two commands on two shards, as EXEC
// does: lock both, run, unlock.
func BenchmarkExecBlock(b *testing.B) {
	e := newTestExec(2, false)
	k0, k1 := keyOn("a", 0, 2), keyOn("b", 1, 2)
	var blk Block
	for _, line := range []string{"set " + k0 + " 1", "incr " + k1} {
		argv := words(line)
		blk.Add(Lookup(argv[0]), argv)
	}
	cl := &testClient{ex: e, proto: 2, quiet: true}
	var x ExecTxn
	name := []byte("EXEC")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		slot := e.NewSlot()
		slot.Client = 7
		x.RunBlock(e, &e.locks[0], cl, &blk, name, slot)
		e.FreeSlot(slot)
	}
}
