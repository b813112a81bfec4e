package router

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// testNow is the shards' clock in the tests: a round Unix time in ms.
const testNow = 1_700_000_000_000

const testDatabases = 16

// call is one Submit kept for later by a deferred testExec.
type call struct {
	shard     int
	cmd       *Command
	db, proto int
	argv      [][]byte
	dest      *Slot
}

// testExec is an Exec over real shards in one goroutine. In the default mode
// Submit runs the command at once, as a core does for its local shard. In
// deferred mode it queues the command, as for a remote shard, and drain runs
// the queue later in reverse order, so plans must not depend on the order in
// which parts reply.
type testExec struct {
	shards   []*shardowner.Shard
	locks    []Locks
	deferred bool
	queue    []call

	free      []*Slot
	live      map[*Slot]bool // slots from NewSlot not yet freed
	newSlots  int
	freeSlots int
	orphaned  []*Slot
	bad       []string // misuse seen by the Exec methods
	failed    int      // plans that answered an error
	slowlog   *shardowner.SlowlogConfig
	scratch   *shardowner.Shard

	w      resp.Writer
	ctx    shardowner.Ctx
	parent *Slot
}

func newTestExec(n int, deferred bool) *testExec {
	e := &testExec{deferred: deferred, live: map[*Slot]bool{}, parent: new(Slot), slowlog: shardowner.NewSlowlogConfig()}
	for i := 0; i < n; i++ {
		s := shardowner.NewShard(i, n, testDatabases)
		s.Clock.Ms = testNow
		s.Slowlog = e.slowlog
		e.shards = append(e.shards, s)
	}
	e.locks = make([]Locks, n)
	return e
}

func (e *testExec) Submit(shard int, cmd *Command, db, proto int, argv [][]byte, dest *Slot) {
	if shard < 0 || shard >= len(e.shards) {
		e.bad = append(e.bad, "submit to shard "+strconv.Itoa(shard))
		return
	}
	if !e.live[dest] {
		e.bad = append(e.bad, "submit of "+cmd.Name+" to a slot not from NewSlot")
	}
	if !e.deferred {
		e.run(shard, cmd, db, proto, argv, dest)
		return
	}
	// A remote submission copies argv; the caller may reuse it at once.
	cp := make([][]byte, len(argv))
	for i, a := range argv {
		cp[i] = append([]byte(nil), a...)
	}
	e.queue = append(e.queue, call{shard, cmd, db, proto, cp, dest})
}

// run executes one command on its shard and fills dest with the reply. The
// writer's buffer is reused; Fill copies the reply before it moves the plan
// on, and the plan may submit again from inside Fill.
func (e *testExec) run(shard int, cmd *Command, db, proto int, argv [][]byte, dest *Slot) {
	l := &e.locks[shard]
	if (cmd.Internal || l.Active()) && !l.Admit(cmd, db, proto, argv, dest.Origin(), shard, dest) {
		return
	}
	e.w.B, e.w.Proto = e.w.B[:0], proto
	e.ctx = shardowner.Ctx{Shard: e.shards[shard], DB: db, W: &e.w}
	Call(&e.ctx, cmd, argv, dest.Origin(), Now())
	Fill(e, dest, e.w.B)
	for w := l.TakeReady(); w != nil; w = l.TakeReady() {
		e.w.B, e.w.Proto = e.w.B[:0], w.Proto
		e.ctx = shardowner.Ctx{Shard: e.shards[shard], DB: w.DB, W: &e.w}
		Call(&e.ctx, w.Cmd, w.Argv(), w.Origin, Now())
		dest := w.Dest
		l.Done(w)
		Fill(e, dest, e.w.B)
	}
}

// drain runs queued commands until none is left; a round's replies may
// queue the next round. Shards run their queues last shard first, so plans
// must not depend on the order in which shards reply; each shard runs its
// own in order, as a ring delivers them.
func (e *testExec) drain() {
	for len(e.queue) > 0 {
		q := e.queue
		e.queue = nil
		for sh := len(e.shards) - 1; sh >= 0; sh-- {
			for _, c := range q {
				if c.shard == sh {
					e.run(c.shard, c.cmd, c.db, c.proto, c.argv, c.dest)
				}
			}
		}
	}
}

func (e *testExec) NewSlot() *Slot {
	e.newSlots++
	var s *Slot
	if n := len(e.free); n > 0 {
		s = e.free[n-1]
		e.free = e.free[:n-1]
	} else {
		s = new(Slot)
	}
	e.live[s] = true
	return s
}

func (e *testExec) FreeSlot(s *Slot) {
	if !e.live[s] {
		e.bad = append(e.bad, "FreeSlot of a slot not in use")
		return
	}
	if !s.Filled {
		e.bad = append(e.bad, "FreeSlot of an unfilled slot")
	}
	delete(e.live, s)
	e.freeSlots++
	s.Reset()
	// Poison the kept buffer so a plan that reads a freed slot's reply sees
	// garbage instead of the old reply.
	s.Reply = append(s.Reply[:0], "!freed!"...)
	e.free = append(e.free, s)
}

func (e *testExec) Shards() int    { return len(e.shards) }
func (e *testExec) Databases() int { return testDatabases }

// Orphaned recycles a slot of the plan's own (an unlock's, whose reply
// nobody reads) as a core does, and records the client's.
func (e *testExec) Orphaned(s *Slot) {
	if e.live[s] {
		e.FreeSlot(s)
		return
	}
	e.orphaned = append(e.orphaned, s)
}

func (e *testExec) Failed(stat int) { e.failed++ }

func (e *testExec) Slowlog() *shardowner.SlowlogConfig { return e.slowlog }

func (e *testExec) Scratch() *shardowner.Shard {
	if e.scratch == nil {
		e.scratch = shardowner.NewShard(0, len(e.shards), testDatabases)
		e.scratch.Enc = e.shards[0].Enc
	}
	e.scratch.Clock.Ms = testNow
	return e.scratch
}

func (e *testExec) Own() *shardowner.Shard { return e.shards[0] }

func (e *testExec) HasSubscribers(int, bool) bool { return true }
func (e *testExec) AcksDurable() bool             { return false }

func (e *testExec) HomeReply(dst []byte, _ *Command, _ int, _ [][]byte) []byte {
	return append(dst, "+HOME\r\n"...)
}

// split runs a multi-shard command given as space-separated words in db with
// the given protocol and returns the reply. It checks that the reply comes
// only after every part, and that every part slot was freed.
func (e *testExec) split(t testing.TB, db, proto int, line string) string {
	t.Helper()
	argv := words(line)
	cmd := Lookup(argv[0])
	if cmd == nil {
		t.Fatalf("%q: no such command", line)
	}
	s := e.parent
	s.Reset()
	StartSplit(e, s, cmd, db, proto, argv)
	// The plan keeps its own copy of the arguments.
	for _, a := range argv {
		for i := range a {
			a[i] = '#'
		}
	}
	if e.deferred {
		if len(e.queue) > 0 && s.Filled {
			t.Fatalf("%q: filled while %d parts were still queued", line, len(e.queue))
		}
		e.drain()
	}
	if !s.Filled {
		t.Fatalf("%q: reply slot not filled", line)
	}
	if s.plan != nil {
		t.Errorf("%q: plan still attached after the reply", line)
	}
	if len(e.bad) > 0 {
		t.Errorf("%q: exec misuse: %v", line, e.bad)
		e.bad = nil
	}
	if e.newSlots != e.freeSlots || len(e.live) != 0 {
		t.Errorf("%q: %d part slots taken, %d freed (%d live)", line, e.newSlots, e.freeSlots, len(e.live))
	}
	return string(s.Reply)
}

// do runs a single-shard command on the shard that owns its first key (shard
// 0 when it has none) and returns the reply.
func (e *testExec) do(db int, line string) string {
	argv := words(line)
	cmd := Lookup(argv[0])
	shard := 0
	if cmd.HasKeys(len(argv)) {
		shard = ShardOf(argv[cmd.FirstKey], len(e.shards))
	}
	w := resp.Writer{Proto: 2}
	ctx := shardowner.Ctx{Shard: e.shards[shard], DB: db, W: &w}
	cmd.Run(&ctx, argv)
	return string(w.B)
}

func words(line string) [][]byte {
	var argv [][]byte
	for _, f := range strings.Fields(line) {
		argv = append(argv, []byte(f))
	}
	return argv
}

// keyOn returns a key starting with prefix that lives on shard of n.
func keyOn(prefix string, shard, n int) string {
	for i := 0; ; i++ {
		k := prefix + strconv.Itoa(i)
		if ShardOf([]byte(k), n) == shard {
			return k
		}
	}
}

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }

// forModes runs f with a synchronous and with a deferred, reversed Exec.
func forModes(t *testing.T, shards int, f func(t *testing.T, e *testExec)) {
	for _, deferred := range []bool{false, true} {
		name := "sync"
		if deferred {
			name = "deferred"
		}
		t.Run(name, func(t *testing.T) { f(t, newTestExec(shards, deferred)) })
	}
}

// step is one command of a script and the exact reply it must produce. A
// command whose keys span shards goes through StartSplit; "!" in front runs it
// on one shard instead (to set up or inspect data).
type step struct {
	db    int
	proto int
	cmd   string
	want  string
}

func runSteps(t *testing.T, e *testExec, steps []step) {
	t.Helper()
	for _, st := range steps {
		proto := st.proto
		if proto == 0 {
			proto = 2
		}
		var got string
		if line, ok := strings.CutPrefix(st.cmd, "!"); ok {
			got = e.do(st.db, line)
		} else {
			got = e.split(t, st.db, proto, st.cmd)
		}
		if got != st.want {
			t.Errorf("db %d RESP%d %q:\n got %q\nwant %q", st.db, proto, st.cmd, got, st.want)
		}
	}
}

// keys4 names a key on each of 4 shards: a on 0, b on 1, c on 2, d on 3, and
// a second key on shard 0.
type keys4 struct{ a, b, c, d, a2 string }

func newKeys4() keys4 {
	return keys4{keyOn("a", 0, 4), keyOn("b", 1, 4), keyOn("c", 2, 4), keyOn("d", 3, 4), keyOn("e", 0, 4)}
}

// fill replaces {a} {b} {c} {d} {a2} in s with the keys.
func (k keys4) fill(s string) string {
	return strings.NewReplacer("{a}", k.a, "{b}", k.b, "{c}", k.c, "{d}", k.d, "{a2}", k.a2).Replace(s)
}

func (k keys4) steps(in []step) []step {
	out := make([]step, len(in))
	for i, st := range in {
		st.cmd, st.want = k.fill(st.cmd), k.fill(st.want)
		out[i] = st
	}
	return out
}

func TestSplitMGet(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "!set {a} va", want: "+OK\r\n"},
			{cmd: "!set {c} 42", want: "+OK\r\n"}, // integer-encoded
			{cmd: "!set {d} vd", want: "+OK\r\n"},
			{cmd: "!set {a2} va2", want: "+OK\r\n"},
			// {b} is missing: $-1 in RESP2, _ in RESP3.
			{cmd: "mget {a} {b} {c} {d} {a2} {a}",
				want: "*6\r\n$2\r\nva\r\n$-1\r\n$2\r\n42\r\n$2\r\nvd\r\n$3\r\nva2\r\n$2\r\nva\r\n"},
			{proto: 3, cmd: "mget {a} {b} {c} {d} {a2} {a}",
				want: "*6\r\n$2\r\nva\r\n_\r\n$2\r\n42\r\n$2\r\nvd\r\n$3\r\nva2\r\n$2\r\nva\r\n"},
			{cmd: "mget {b} {a}", want: "*2\r\n$-1\r\n$2\r\nva\r\n"},
			{proto: 3, cmd: "mget {b} {a}", want: "*2\r\n_\r\n$2\r\nva\r\n"},
			{cmd: "mget {b} {c} {b}", want: "*3\r\n$-1\r\n$2\r\n42\r\n$-1\r\n"},
			// Another database holds none of them.
			{db: 5, cmd: "mget {a} {b} {c}", want: "*3\r\n$-1\r\n$-1\r\n$-1\r\n"},
		}))
	})
}

// TestSplitMGetMatchesGet compares MGET over many random keys with the GET of
// each key, in both protocols, over shard counts up to more than the 64 that
// interleave keeps on its stack.
func TestSplitMGetMatchesGet(t *testing.T) {
	for _, n := range []int{2, 3, 4, 8, 70} {
		for _, deferred := range []bool{false, true} {
			e := newTestExec(n, deferred)
			rng := rand.New(rand.NewPCG(uint64(n), 1))
			for i := 0; i < 300; i += 2 {
				e.do(0, "set k"+strconv.Itoa(i)+" "+strings.Repeat("v", i%13)+strconv.Itoa(i))
			}
			for round := 0; round < 20; round++ {
				var line strings.Builder
				line.WriteString("mget")
				var want [2]strings.Builder
				nkeys := 1 + rng.IntN(150)
				for i := 0; i < nkeys; i++ {
					key := "k" + strconv.Itoa(rng.IntN(300))
					line.WriteString(" " + key)
					got := e.do(0, "get "+key)
					want[0].WriteString(got)
					if got == "$-1\r\n" {
						got = "_\r\n"
					}
					want[1].WriteString(got)
				}
				for i, proto := range []int{2, 3} {
					wantReply := "*" + strconv.Itoa(nkeys) + "\r\n" + want[i].String()
					if got := e.split(t, 0, proto, line.String()); got != wantReply {
						t.Fatalf("%d shards, deferred %v, RESP%d %q:\n got %q\nwant %q",
							n, deferred, proto, line.String(), got, wantReply)
					}
				}
			}
		}
	}
}

func TestSplitMSet(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "mset {a} 1 {b} 2 {c} 3 {a2} x {a} 4", want: "+OK\r\n"},
			{cmd: "!get {a}", want: "$1\r\n4\r\n"}, // the later pair wins
			{cmd: "!get {b}", want: "$1\r\n2\r\n"},
			{cmd: "!get {c}", want: "$1\r\n3\r\n"},
			{cmd: "!get {a2}", want: "$1\r\nx\r\n"},
			{cmd: "!get {d}", want: "$-1\r\n"},
			{db: 2, cmd: "mset {b} in2 {d} in2", want: "+OK\r\n"},
			{db: 2, cmd: "!get {d}", want: "$3\r\nin2\r\n"},
			{cmd: "!get {d}", want: "$-1\r\n"},
			{proto: 3, cmd: "mset {c} r3 {d} r3", want: "+OK\r\n"},
			{cmd: "!get {c}", want: "$2\r\nr3\r\n"},
		}))
	})
}

func TestSplitSumInt(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "exists {a} {b} {c}", want: ":0\r\n"},
			{cmd: "mset {a} 1 {b} 2 {c} 3 {a2} 4", want: "+OK\r\n"},
			{cmd: "exists {a} {b} {c} {d}", want: ":3\r\n"},
			{cmd: "exists {a} {a} {b} {d} {a2}", want: ":4\r\n"}, // a key named twice counts twice
			{cmd: "touch {a} {d} {c}", want: ":2\r\n"},
			{db: 1, cmd: "exists {a} {b}", want: ":0\r\n"},
			{cmd: "del {a} {d} {b} {a}", want: ":2\r\n"}, // a key named twice is removed once
			{cmd: "exists {a} {b} {c} {a2}", want: ":2\r\n"},
			{cmd: "unlink {c} {a2} {b}", want: ":2\r\n"},
			{cmd: "exists {a} {b} {c} {d} {a2}", want: ":0\r\n"},
			{proto: 3, cmd: "del {a} {b}", want: ":0\r\n"},
		}))
	})
}

func TestSplitMSetNX(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "msetnx {a} 1 {b} 2 {c} 3", want: ":1\r\n"},
			{cmd: "mget {a} {b} {c}", want: "*3\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n3\r\n"},
			// {c} exists: nothing is written, not even {d} on another shard.
			{cmd: "msetnx {d} 4 {c} x {a2} 5", want: ":0\r\n"},
			{cmd: "exists {d} {a2}", want: ":0\r\n"},
			{cmd: "!get {c}", want: "$1\r\n3\r\n"},
			{cmd: "msetnx {d} 4 {a2} 5", want: ":1\r\n"},
			{cmd: "mget {d} {a2}", want: "*2\r\n$1\r\n4\r\n$1\r\n5\r\n"},
			// Databases are separate.
			{db: 9, cmd: "msetnx {a} x {b} y", want: ":1\r\n"},
			{db: 9, cmd: "mget {a} {b}", want: "*2\r\n$1\r\nx\r\n$1\r\ny\r\n"},
			{cmd: "!get {a}", want: "$1\r\n1\r\n"},
		}))
	})
}

func TestSplitRename(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "!set {a} va px 100000", want: "+OK\r\n"},
			{cmd: "rename {a} {b}", want: "+OK\r\n"},
			{cmd: "exists {a}", want: ":0\r\n"},
			{cmd: "!get {b}", want: "$2\r\nva\r\n"},
			{cmd: "!pttl {b}", want: ":100000\r\n"}, // the TTL moves with the value
			// Onto an existing key: overwritten, and its TTL is the source's.
			{cmd: "!set {c} old", want: "+OK\r\n"},
			{cmd: "!set {d} 77", want: "+OK\r\n"},
			{cmd: "rename {d} {c}", want: "+OK\r\n"},
			{cmd: "!get {c}", want: "$2\r\n77\r\n"},
			{cmd: "!pttl {c}", want: ":-1\r\n"},
			{cmd: "!object encoding {c}", want: "$3\r\nint\r\n"},
			{cmd: "!get {d}", want: "$-1\r\n"},
			// A missing source is an error and leaves the target alone.
			{cmd: "rename {d} {c}", want: "-ERR no such key\r\n"},
			{cmd: "!get {c}", want: "$2\r\n77\r\n"},
			{db: 3, cmd: "rename {c} {b}", want: "-ERR no such key\r\n"},
			{proto: 3, cmd: "rename {c} {a}", want: "+OK\r\n"},
			{cmd: "!get {a}", want: "$2\r\n77\r\n"},
		}))
	})
}

// TestSplitRenameFull renames onto a shard whose table has no room: the
// client gets the table-full error and the source is still there, with its
// TTL, though RENAME took it from its shard first.
func TestSplitRenameFull(t *testing.T) {
	k := newKeys4()
	const full = "-OOM command not allowed when the shard's key table is full\r\n"
	forModes(t, 4, func(t *testing.T, e *testExec) {
		e.shards[1].DBs[0].LimitPages(1) // {b}'s table: no page at all
		runSteps(t, e, k.steps([]step{
			{cmd: "!set {a} va px 100000", want: "+OK\r\n"},
			{cmd: "rename {a} {b}", want: full},
			{cmd: "!get {a}", want: "$2\r\nva\r\n"},
			{cmd: "!pttl {a}", want: ":100000\r\n"},
			{cmd: "renamenx {a} {b}", want: full},
			{cmd: "copy {a} {b}", want: full},
			{cmd: "exists {a} {b}", want: ":1\r\n"},
			{cmd: "rename {a} {c}", want: "+OK\r\n"},
		}))
	})
}

func TestSplitRenameNX(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "!set {a} va", want: "+OK\r\n"},
			{cmd: "!set {b} vb", want: "+OK\r\n"},
			// Target exists: nothing changes.
			{cmd: "renamenx {a} {b}", want: ":0\r\n"},
			{cmd: "mget {a} {b}", want: "*2\r\n$2\r\nva\r\n$2\r\nvb\r\n"},
			// Target free: moved.
			{cmd: "renamenx {a} {c}", want: ":1\r\n"},
			{cmd: "mget {a} {c}", want: "*2\r\n$-1\r\n$2\r\nva\r\n"},
			{cmd: "renamenx {a} {d}", want: "-ERR no such key\r\n"},
			{cmd: "exists {d}", want: ":0\r\n"},
		}))
	})
}

func TestSplitCopy(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "!set {a} va px 5000", want: "+OK\r\n"},
			{cmd: "copy {a} {b}", want: ":1\r\n"},
			{cmd: "mget {a} {b}", want: "*2\r\n$2\r\nva\r\n$2\r\nva\r\n"},
			{cmd: "!pttl {b}", want: ":5000\r\n"},
			// Target exists without REPLACE: 0 and unchanged.
			{cmd: "!set {a} new", want: "+OK\r\n"},
			{cmd: "copy {a} {b}", want: ":0\r\n"},
			{cmd: "!get {b}", want: "$2\r\nva\r\n"},
			{cmd: "copy {a} {b} REPLACE", want: ":1\r\n"},
			{cmd: "!get {b}", want: "$3\r\nnew\r\n"},
			{cmd: "!pttl {b}", want: ":-1\r\n"},
			// DB option: the copy goes to another database.
			{cmd: "copy {a} {c} db 3", want: ":1\r\n"},
			{db: 3, cmd: "!get {c}", want: "$3\r\nnew\r\n"},
			{cmd: "!get {c}", want: "$-1\r\n"},
			{cmd: "copy {a} {c} DB 3", want: ":0\r\n"},
			{cmd: "!set {a} newer", want: "+OK\r\n"},
			{cmd: "copy {a} {c} replace db 3", want: ":1\r\n"},
			{db: 3, cmd: "!get {c}", want: "$5\r\nnewer\r\n"},
			// From a database other than 0 to 0.
			{db: 3, cmd: "copy {c} {d} db 0", want: ":1\r\n"},
			{cmd: "!get {d}", want: "$5\r\nnewer\r\n"},
			// Missing source: {c} exists only in db 3.
			{cmd: "copy {c} {b}", want: ":0\r\n"},
			{cmd: "!get {b}", want: "$3\r\nnew\r\n"},
			// Bad options are answered without touching a shard.
			{cmd: "copy {a} {b} db 16", want: "-ERR DB index is out of range\r\n"},
			{cmd: "copy {a} {b} db -1", want: "-ERR DB index is out of range\r\n"},
			{cmd: "copy {a} {b} db 2147483648", want: "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"},
			{cmd: "copy {a} {b} db -9223372036854775808", want: "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"},
			{cmd: "copy {a} {b} db x", want: "-ERR value is not an integer or out of range\r\n"},
			{cmd: "copy {a} {b} db", want: "-ERR syntax error\r\n"},
			{cmd: "copy {a} {b} nx", want: "-ERR syntax error\r\n"},
			{cmd: "!get {b}", want: "$3\r\nnew\r\n"},
		}))
	})
}

func TestSplitRouteAll(t *testing.T) {
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, []step{
			{cmd: "dbsize", want: ":0\r\n"},
			{cmd: "keys *", want: "*0\r\n"},
			{cmd: "randomkey", want: "$-1\r\n"},
			{proto: 3, cmd: "randomkey", want: "_\r\n"},
		})
		// DBSIZE and KEYS hold every shard while they run: a lock, a
		// part and an unlock per shard, and the plan's own slot.
		// RANDOMKEY holds nothing: a part per shard.
		if want := 2*(3*4+1) + 2*4; e.newSlots != want {
			t.Errorf("4 whole-keyspace commands over 4 shards took %d part slots, want %d", e.newSlots, want)
		}
		var all []string
		for i := 0; i < 40; i++ {
			key := "key:" + strconv.Itoa(i)
			all = append(all, key)
			e.do(0, "set "+key+" v")
		}
		e.do(1, "set only 1")
		runSteps(t, e, []step{
			{cmd: "dbsize", want: ":40\r\n"},
			{proto: 3, cmd: "dbsize", want: ":40\r\n"},
			{db: 1, cmd: "dbsize", want: ":1\r\n"},
			{db: 2, cmd: "dbsize", want: ":0\r\n"},
			{db: 1, cmd: "keys *", want: "*1\r\n$4\r\nonly\r\n"},
			{db: 1, cmd: "randomkey", want: "$4\r\nonly\r\n"},
			{db: 1, proto: 3, cmd: "randomkey", want: "$4\r\nonly\r\n"},
			{db: 2, cmd: "keys *", want: "*0\r\n"},
		})
		for _, tt := range []struct {
			pattern string
			want    []string
		}{
			{"*", all},
			{"key:1*", []string{"key:1", "key:10", "key:11", "key:12", "key:13", "key:14", "key:15", "key:16", "key:17", "key:18", "key:19"}},
			{"key:3?", []string{"key:30", "key:31", "key:32", "key:33", "key:34", "key:35", "key:36", "key:37", "key:38", "key:39"}},
			{"nomatch*", nil},
		} {
			for _, proto := range []int{2, 3} {
				got := e.split(t, 0, proto, "keys "+tt.pattern)
				keys, ok := parseBulkArray(got)
				if !ok {
					t.Fatalf("KEYS %s RESP%d: malformed reply %q", tt.pattern, proto, got)
				}
				slices.Sort(keys)
				want := slices.Clone(tt.want)
				slices.Sort(want)
				if !slices.Equal(keys, want) {
					t.Errorf("KEYS %s RESP%d = %v, want %v", tt.pattern, proto, keys, want)
				}
			}
		}
		for i := 0; i < 20; i++ {
			got := e.split(t, 0, 2, "randomkey")
			keys, ok := parseBulks(got)
			if !ok || len(keys) != 1 || !slices.Contains(all, keys[0]) {
				t.Fatalf("RANDOMKEY = %q, want one of the keys", got)
			}
		}
		runSteps(t, e, []step{
			{cmd: "flushall foo", want: "-ERR syntax error\r\n"},
			{cmd: "dbsize", want: ":40\r\n"},
			{db: 1, cmd: "flushdb", want: "+OK\r\n"},
			{db: 1, cmd: "dbsize", want: ":0\r\n"},
			{cmd: "dbsize", want: ":40\r\n"},
			{cmd: "!set k3 x", want: "+OK\r\n"},
			{db: 3, cmd: "!set k3 x", want: "+OK\r\n"},
			{db: 7, cmd: "flushall async", want: "+OK\r\n"},
			{cmd: "dbsize", want: ":0\r\n"},
			{db: 3, cmd: "dbsize", want: ":0\r\n"},
			{proto: 3, cmd: "flushall", want: "+OK\r\n"},
			{cmd: "randomkey", want: "$-1\r\n"},
		})
	})
}

// TestSplitRandomKeyOneShard puts the only key on each shard in turn.
func TestSplitRandomKeyOneShard(t *testing.T) {
	forModes(t, 4, func(t *testing.T, e *testExec) {
		for sh := 0; sh < 4; sh++ {
			key := keyOn("r", sh, 4)
			e.do(0, "set "+key+" v")
			for _, proto := range []int{2, 3} {
				if got := e.split(t, 0, proto, "randomkey"); got != bulk(key) {
					t.Errorf("key on shard %d, RESP%d: RANDOMKEY = %q, want %q", sh, proto, got, bulk(key))
				}
			}
			e.do(0, "del "+key)
		}
	})
}

// TestSplitRandomKeySpread spreads keys unevenly over four shards, one of
// them empty: RANDOMKEY must return every key, and each shard's keys in
// proportion to their number. Each bound is over six standard deviations
// from its expectation.
func TestSplitRandomKeySpread(t *testing.T) {
	forModes(t, 4, func(t *testing.T, e *testExec) {
		perShard := []int{30, 10, 0, 60}
		shardOf := map[string]int{}
		for sh, n := range perShard {
			for i := 0; i < n; i++ {
				key := keyOn("s"+strconv.Itoa(sh)+"-"+strconv.Itoa(i)+"-", sh, 4)
				shardOf[key] = sh
				e.do(0, "set "+key+" v")
			}
		}
		const calls = 4000
		hits := make([]int, 4)
		seen := map[string]bool{}
		for i := 0; i < calls; i++ {
			keys, ok := parseBulks(e.split(t, 0, 2, "randomkey"))
			if !ok || len(keys) != 1 {
				t.Fatalf("RANDOMKEY = %q", keys)
			}
			sh, in := shardOf[keys[0]]
			if !in {
				t.Fatalf("RANDOMKEY = %q, not a key", keys[0])
			}
			hits[sh]++
			seen[keys[0]] = true
		}
		for sh, n := range perShard {
			want := calls * n / 100
			if hits[sh] < want*7/10 || hits[sh] > want*13/10 {
				t.Errorf("shard %d holds %d%% of the keys and got %d of %d picks, want about %d", sh, n, hits[sh], calls, want)
			}
		}
		if len(seen) != len(shardOf) {
			t.Errorf("%d of %d keys came up", len(seen), len(shardOf))
		}
	})
}

// TestSplitOrphan: a reply for a connection that has gone is handed to
// Orphaned once, after the plan, instead of being left filled.
func TestSplitOrphan(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		for _, line := range []string{"mget {a} {b}", "dbsize", "renamenx {a} {b}", "msetnx {a} 1 {b} 2", "copy {a} {c} db 99"} {
			line = k.fill(line)
			e.orphaned = nil
			s := e.parent
			s.Reset()
			s.Orphan = true
			StartSplit(e, s, Lookup(words(line)[0]), 0, 2, words(line))
			e.drain()
			if len(e.orphaned) != 1 || e.orphaned[0] != s {
				t.Errorf("%q: Orphaned called with %v, want once with the reply slot", line, e.orphaned)
			}
			if e.newSlots != e.freeSlots {
				t.Errorf("%q: %d part slots taken, %d freed", line, e.newSlots, e.freeSlots)
			}
		}
	})
}

// TestSplitFreshSlots runs the same plans in fresh and in reused reply slots,
// so no state of one plan leaks into the next.
func TestSplitFreshSlots(t *testing.T) {
	k := newKeys4()
	script := k.steps([]step{
		{cmd: "mset {a} 1 {b} 2", want: "+OK\r\n"},
		{cmd: "copy {a} {c} replace db 2", want: ":1\r\n"},
		{cmd: "copy {b} {c}", want: ":1\r\n"},
		{cmd: "copy {b} {c}", want: ":0\r\n"}, // REPLACE of the earlier COPY must not stick
		{cmd: "copy {a} {d} db 2", want: ":1\r\n"},
		{cmd: "!get {d}", want: "$-1\r\n"}, // nor its DB
		{cmd: "msetnx {a} 1 {d} 2", want: ":0\r\n"},
		{cmd: "msetnx {a2} 1 {d} 2", want: ":1\r\n"},
		{cmd: "rename {a2} {b}", want: "+OK\r\n"},
		{cmd: "mget {a} {b} {c} {d}", want: "*4\r\n$1\r\n1\r\n$1\r\n1\r\n$1\r\n2\r\n$1\r\n2\r\n"},
	})
	forModes(t, 4, func(t *testing.T, e *testExec) { runSteps(t, e, script) })
	forModes(t, 4, func(t *testing.T, e *testExec) {
		for _, st := range script {
			e.parent = new(Slot)
			runSteps(t, e, []step{st})
		}
	})
}

// parseBulkArray reads an array of bulk strings.
func parseBulkArray(r string) ([]string, bool) {
	if !strings.HasPrefix(r, "*") {
		return nil, false
	}
	i := strings.Index(r, "\r\n")
	n, err := strconv.Atoi(r[1:i])
	if err != nil {
		return nil, false
	}
	out, ok := parseBulks(r[i+2:])
	return out, ok && len(out) == n
}

// parseBulks reads consecutive bulk strings up to the end of r.
func parseBulks(r string) ([]string, bool) {
	out := []string{}
	for len(r) > 0 {
		if r[0] != '$' {
			return nil, false
		}
		i := strings.Index(r, "\r\n")
		n, err := strconv.Atoi(r[1:i])
		if err != nil || n < 0 || len(r) < i+2+n+2 {
			return nil, false
		}
		out = append(out, r[i+2:i+2+n])
		r = r[i+2+n+2:]
	}
	return out, true
}

// TestBatchRoundTrip sends commands of two databases and both protocols
// through a Batch, executes it on a shard and delivers the replies.
func TestBatchRoundTrip(t *testing.T) {
	e := newTestExec(1, false)
	var b Batch
	b.From = 3
	lines := []struct {
		db, proto int
		cmd, want string
	}{
		{0, 2, "set k v1", "+OK\r\n"},
		{1, 2, "set k v2", "+OK\r\n"},
		{0, 2, "get k", "$2\r\nv1\r\n"},
		{1, 3, "get k", "$2\r\nv2\r\n"},
		{2, 2, "get k", "$-1\r\n"},
		{2, 3, "get k", "_\r\n"},
		{0, 2, "incr n", ":1\r\n"},
		{0, 2, "incr n", ":2\r\n"},
	}
	slots := make([]*Slot, len(lines))
	for i, l := range lines {
		slots[i] = new(Slot)
		argv := words(l.cmd)
		b.Add(Lookup(argv[0]), l.db, l.proto, argv, slots[i])
		for _, a := range argv { // Add copied the arguments
			for j := range a {
				a[j] = '#'
			}
		}
	}
	if b.Len() != len(lines) {
		t.Fatalf("Len = %d, want %d", b.Len(), len(lines))
	}
	b.Execute(e.shards[0], &Locks{}, noLimit)
	if !b.Done {
		t.Fatal("Done not set after Execute")
	}
	b.Deliver(e)
	for i, l := range lines {
		if !slots[i].Filled || string(slots[i].Reply) != l.want {
			t.Errorf("%q in db %d RESP%d: filled %v reply %q, want %q",
				l.cmd, l.db, l.proto, slots[i].Filled, slots[i].Reply, l.want)
		}
		if b.reqs[i].Dest != nil {
			t.Errorf("request %d still points at its slot after Deliver", i)
		}
	}
	b.Reset()
	if b.Len() != 0 || b.Bytes() != 0 || b.Done || b.From != 3 {
		t.Errorf("after Reset: len %d bytes %d done %v from %d", b.Len(), b.Bytes(), b.Done, b.From)
	}
	// Reused after Reset, the batch carries only the new requests.
	s := new(Slot)
	b.Add(Lookup([]byte("get")), 1, 2, words("get k"), s)
	b.Execute(e.shards[0], &Locks{}, noLimit)
	b.Deliver(e)
	if string(s.Reply) != "$2\r\nv2\r\n" {
		t.Errorf("reused batch: reply %q", s.Reply)
	}
	if !bytes.Equal(b.replies.B, s.Reply) {
		t.Errorf("reused batch kept old replies: %q", b.replies.B)
	}
}

// TestBatchCarriesPlanParts sends the parts of a split command through
// batches, the way a core sends them to remote shards.
func TestBatchCarriesPlanParts(t *testing.T) {
	k := newKeys4()
	e := newTestExec(4, true)
	e.do(0, k.fill("set {a} 1"))
	e.do(0, k.fill("set {c} 3"))
	s := new(Slot)
	argv := words(k.fill("mget {a} {b} {c} {d}"))
	StartSplit(e, s, Lookup(argv[0]), 0, 3, argv)
	// Each round carries what the transaction sent: its locks one shard at
	// a time, then the parts, then the unlocks.
	for round := 0; len(e.queue) > 0; round++ {
		for _, c := range e.queue {
			if s.Filled && c.cmd != cmdUnlock {
				t.Fatalf("reply filled with %s still to send in round %d", c.cmd.Name, round)
			}
		}
		var batches [4]Batch
		for _, c := range e.queue {
			batches[c.shard].Add(c.cmd, c.db, c.proto, c.argv, c.dest)
		}
		e.queue = nil
		for i := len(batches) - 1; i >= 0; i-- {
			batches[i].Execute(e.shards[i], &e.locks[i], noLimit)
		}
		for i := range batches {
			batches[i].Deliver(e)
		}
	}
	if want := "*4\r\n$1\r\n1\r\n_\r\n$1\r\n3\r\n_\r\n"; string(s.Reply) != want {
		t.Errorf("MGET through batches = %q, want %q", s.Reply, want)
	}
	if e.newSlots != e.freeSlots || len(e.live) != 0 {
		t.Errorf("%d part slots taken, %d freed", e.newSlots, e.freeSlots)
	}
	for i := range e.locks {
		if e.locks[i].Active() {
			t.Errorf("shard %d still has locks held or waiting", i)
		}
	}
}

// TestSplitOddPairs: MSET and MSETNX with a key but no value at the end pass
// the arity check (-3), so a split must answer the arity error itself, as the
// single-shard handlers do, instead of reading past argv.
func TestSplitOddPairs(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "mset {a} 1 {b}", want: "-ERR wrong number of arguments for 'mset' command\r\n"},
			{cmd: "msetnx {a} 1 {b}", want: "-ERR wrong number of arguments for 'msetnx' command\r\n"},
			{cmd: "!set {a} x", want: "+OK\r\n"},
			// Not ":0" either, although {a} exists.
			{cmd: "msetnx {a} 1 {b}", want: "-ERR wrong number of arguments for 'msetnx' command\r\n"},
			{cmd: "exists {b}", want: ":0\r\n"},
		}))
	})
}

// TestBatchSteadyStateAllocs: once its buffers have grown, a batch filled,
// executed and delivered again allocates nothing (DESIGN §4).
func TestBatchSteadyStateAllocs(t *testing.T) {
	if raceBuild() {
		t.Skip("allocation counts differ under the race detector")
	}
	e := newTestExec(1, false)
	e.do(0, "set k v")
	cmd := LookupString("get")
	argv := words("get k")
	slots := make([]*Slot, 64)
	for i := range slots {
		slots[i] = new(Slot)
	}
	var batch Batch
	run := func() {
		batch.Reset()
		for _, s := range slots {
			batch.Add(cmd, 0, 2, argv, s)
		}
		batch.Execute(e.shards[0], &Locks{}, noLimit)
		batch.Deliver(e)
	}
	run()
	if n := testing.AllocsPerRun(100, run); n != 0 {
		t.Errorf("a 64-GET batch allocates %.1f times per round trip, want 0", n)
	}
}

// TestSplitSteadyStateAllocs: a reply slot reused for the same split command
// allocates nothing once its plan's buffers have grown.
func TestSplitSteadyStateAllocs(t *testing.T) {
	if raceBuild() {
		t.Skip("allocation counts differ under the race detector")
	}
	k := newKeys4()
	e := newTestExec(4, false)
	e.do(0, k.fill("set {a} 1"))
	// Each case leaves the keys as it found them, so every run takes the
	// same path.
	for _, lines := range [][]string{
		{"mget {a} {b} {c} {d} {a2}"},
		{"exists {a} {b} {c}"},
		{"mset {b} 1 {c} 2", "del {b} {c}"},
		{"msetnx {b} 1 {c} 2", "del {b} {c}"},
		{"dbsize"},
		{"copy {a} {c} replace"},
		{"rename {a} {d}", "rename {d} {a}"},
		{"renamenx {a} {b}", "renamenx {b} {a}"},
	} {
		var argvs [][][]byte
		var slots []*Slot
		for _, line := range lines {
			argvs = append(argvs, words(k.fill(line)))
			slots = append(slots, new(Slot))
		}
		run := func() {
			for i, argv := range argvs {
				slots[i].Reset()
				StartSplit(e, slots[i], Lookup(argv[0]), 0, 2, argv)
			}
		}
		run()
		if n := testing.AllocsPerRun(100, run); n != 0 {
			t.Errorf("%q allocates %.1f times per run, want 0", lines, n)
		}
	}
}

// TestBatchResetKeepsBuffers: Reset keeps ordinary buffers for reuse and
// lets go of ones an unusual request grew past batchKeep.
func TestBatchResetKeepsBuffers(t *testing.T) {
	cmd := LookupString("set")
	var b Batch
	b.Add(cmd, 0, 2, [][]byte{[]byte("set"), []byte("k"), []byte("small")}, nil)
	small := cap(b.args)
	b.Reset()
	if cap(b.args) != small || b.Bytes() != 0 {
		t.Errorf("after Reset: cap %d (want %d kept), %d bytes", cap(b.args), small, b.Bytes())
	}
	b.Add(cmd, 0, 2, [][]byte{[]byte("set"), []byte("k"), make([]byte, batchKeep+1)}, nil)
	b.Reset()
	if cap(b.args) > batchKeep {
		t.Errorf("after Reset: a %d-byte argument buffer was kept", cap(b.args))
	}
	b.Add(cmd, 0, 2, [][]byte{[]byte("set"), []byte("k"), []byte("v")}, nil)
	if b.Len() != 1 || b.Bytes() != 5 {
		t.Errorf("reused batch: %d requests, %d bytes; want 1 and 5", b.Len(), b.Bytes())
	}
}

// TestSplitGather: set commands over keys of several shards run whole on
// the values gathered from the shards, and write back what they changed,
// TTLs, types and errors included, as on one shard.
func TestSplitGather(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "!sadd {a} 1 2 3", want: ":3\r\n"},
			{cmd: "!sadd {b} 2 3 4", want: ":3\r\n"},
			{cmd: "!set {d} str", want: "+OK\r\n"},
			{cmd: "sinter {a} {b}", want: "*2\r\n$1\r\n2\r\n$1\r\n3\r\n"},
			{proto: 3, cmd: "sinter {a} {b}", want: "~2\r\n$1\r\n2\r\n$1\r\n3\r\n"},
			{cmd: "sinter {a} {d}", want: "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
			{cmd: "sinterstore {c} {a} {b}", want: ":2\r\n"},
			{cmd: "!smembers {c}", want: "*2\r\n$1\r\n2\r\n$1\r\n3\r\n"},
			{cmd: "!pexpire {c} 100000", want: ":1\r\n"},
			{cmd: "sdiffstore {c} {c} {a}", want: ":0\r\n"},
			{cmd: "!exists {c}", want: ":0\r\n"},
			{cmd: "smove {a} {b} 1", want: ":1\r\n"},
			{cmd: "!sismember {a} 1", want: ":0\r\n"},
			{cmd: "!sismember {b} 1", want: ":1\r\n"},
			{cmd: "smove {a} {d} 2", want: "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
			{cmd: "!sismember {a} 2", want: ":1\r\n"},
			{cmd: "smove {c} {b} 9", want: ":0\r\n"},
			{cmd: "sunion {c} {c}", want: "*0\r\n"},
		}))
	})
}

func TestOwnPart(t *testing.T) {
	argv := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	// Keys placed on shards 0 and 1 of 2 by hash tags found by search.
	var k0, k1 string
	for i := 0; k0 == "" || k1 == ""; i++ {
		k := "k" + strconv.Itoa(i)
		if ShardOf([]byte(k), 2) == 0 && k0 == "" {
			k0 = k
		} else if ShardOf([]byte(k), 2) == 1 && k1 == "" {
			k1 = k
		}
	}
	for _, tc := range []struct {
		in   []string
		want string
		ok   bool
	}{
		{[]string{"MSET", k0, "a", k1, "b"}, "mset " + k1 + " b", true},
		{[]string{"MSETNX", k1, "a", k0, "b"}, "mset " + k1 + " a", true},
		{[]string{"DEL", k0, k1, k1}, "del " + k1 + " " + k1, true},
		{[]string{"RENAME", k0, k1}, "", false},
	} {
		part, run, ok := OwnPart(nil, LookupString(strings.ToLower(tc.in[0])), argv(tc.in...), 1, 2)
		if ok != tc.ok {
			t.Errorf("%q: ok %v", tc.in, ok)
			continue
		}
		if !ok {
			continue
		}
		got := run.Name
		for _, a := range part[1:] {
			got += " " + string(a)
		}
		if got != tc.want {
			t.Errorf("%q: part %q, want %q", tc.in, got, tc.want)
		}
	}
}
