package router

import (
	"bytes"
	"math"
	"strconv"
	"testing"

	"github.com/corekv/corekv/shardowner"
)

// noLimit runs a whole batch in one Execute.
const noLimit = math.MaxInt

// bigReply is a test-only command whose reply is a bulk of argv[1] bytes of
// argv[2][0], so a batch can carry large replies without a large keyspace.
var bigReply = &Command{Name: "bigreply", Arity: 3, Run: func(c *shardowner.Ctx, argv [][]byte) {
	n, _ := strconv.Atoi(string(argv[1]))
	c.W.Bulk(bytes.Repeat(argv[2][:1], n))
}}

// TestBatchReplyLimit: the owner runs a batch whose replies pass the limit a
// bounded amount per Execute, sends those replies back on their own, and
// runs the rest later; every reply reaches its slot once, in request order.
func TestBatchReplyLimit(t *testing.T) {
	e := newTestExec(1, false)
	const size, limit, n = 300 << 10, 1 << 20, 10
	var b Batch
	var slots []*Slot
	var want []string
	for i := 0; i < n; i++ {
		big, incr := new(Slot), new(Slot)
		fill := string(rune('a' + i))
		b.Add(bigReply, 0, 2, words("bigreply "+strconv.Itoa(size)+" "+fill), big)
		b.Add(Lookup([]byte("incr")), 0, 2, words("incr n"), incr)
		slots = append(slots, big, incr)
		want = append(want, "$"+strconv.Itoa(size)+"\r\n"+string(bytes.Repeat([]byte(fill), size))+"\r\n",
			":"+strconv.Itoa(i+1)+"\r\n")
	}
	turns := 0
	for {
		turns++
		if turns > 2*n {
			t.Fatal("batch never finished")
		}
		got := b.Execute(e.shards[0], &Locks{}, limit)
		if got > limit+size+64 {
			t.Fatalf("turn %d copied %d reply bytes, limit %d", turns, got, limit)
		}
		if b.Done {
			break
		}
		// The replies so far go back while the batch waits for its next turn.
		var r Batch
		b.TakeReplies(&r)
		if !r.Done || r.Len() == 0 {
			t.Fatalf("turn %d: reply batch done %v len %d", turns, r.Done, r.Len())
		}
		r.Deliver(e)
		for i, s := range slots {
			if s.Filled != (i < b.next) {
				t.Fatalf("turn %d: slot %d filled %v with %d requests run", turns, i, s.Filled, b.next)
			}
		}
	}
	b.Deliver(e)
	if turns < 3 {
		t.Errorf("%d MB of replies ran in %d turns with a %d MB limit", n*size>>20, turns, limit>>20)
	}
	for i, s := range slots {
		if !s.Filled || string(s.Reply) != want[i] {
			t.Fatalf("slot %d: filled %v reply of %d bytes %.20q, want %.20q", i, s.Filled, len(s.Reply), s.Reply, want[i])
		}
	}
	// A reply larger than the limit still runs, alone.
	b.Reset()
	s := new(Slot)
	b.Add(bigReply, 0, 2, words("bigreply "+strconv.Itoa(2*limit)+" z"), s)
	b.Add(Lookup([]byte("incr")), 0, 2, words("incr n"), new(Slot))
	if got := b.Execute(e.shards[0], &Locks{}, limit); got < 2*limit || b.Done || b.next != 1 {
		t.Fatalf("one oversized reply: %d bytes, done %v, %d run", got, b.Done, b.next)
	}
}

// A batch or plan that carried a request with very many arguments gives its
// offset and slice arrays back when recycled, instead of keeping them for ever.
func TestRecycledBuffersShrink(t *testing.T) {
	argv := [][]byte{[]byte("mset")}
	for i := 0; i < 4*argsKeep; i++ {
		argv = append(argv, []byte("k"), []byte("v"))
	}
	var b Batch
	b.Add(LookupString("mset"), 0, 2, argv, new(Slot))
	b.Reset()
	if cap(b.argEnd) > argsKeep {
		t.Errorf("batch keeps room for %d argument offsets after Reset", cap(b.argEnd))
	}
	var s Slot
	s.mem = &plan{argEnd: make([]int, 0, 4*argsKeep)}
	s.Reset()
	if s.mem != nil && cap(s.mem.argEnd) > argsKeep {
		t.Errorf("slot's plan keeps room for %d argument offsets after Reset", cap(s.mem.argEnd))
	}
	small := &plan{argEnd: make([]int, 0, argsKeep)}
	s.mem = small
	s.Reset()
	if s.mem != small {
		t.Errorf("slot drops a plan of ordinary size on Reset")
	}
}

// TestBatchKeyHashes: the read-ahead of a batch hashes each request's first
// key, found among the arguments of the requests before it, in the
// request's database, and skips requests that look up no key.
func TestBatchKeyHashes(t *testing.T) {
	shard := shardowner.NewShard(0, 1, 16)
	var b Batch
	reqs := []struct {
		db   int
		line string
		key  string // "" for no key
	}{
		{0, "ping", ""},
		{0, "set alpha 1", "alpha"},
		{3, "get beta", "beta"},
		{0, "mset gamma 1 delta 2", "gamma"},
		{0, "dbsize", ""},
		{5, "hset epsilon f v", "epsilon"},
		{5, "hset epsilon g v", ""},   // the key before: touched already
		{0, "get epsilon", "epsilon"}, // another database
		{0, "lpush zeta x", "zeta"},
		{0, "lpush zeta y", ""},
	}
	for _, r := range reqs {
		argv := words(r.line)
		b.Add(Lookup(argv[0]), r.db, 2, argv, new(Slot))
	}
	hashes := make([]uint64, len(reqs))
	if n := b.keyHashes(shard, 0, len(reqs), hashes); n != 6 {
		t.Errorf("hashed %d keys, want 6", n)
	}
	for i, r := range reqs {
		want := uint64(0)
		if r.key != "" {
			want = shard.DBs[r.db].Hash([]byte(r.key)) | 1
		}
		if hashes[i] != want {
			t.Errorf("request %d (%q in db %d): hash %x, want %x", i, r.line, r.db, hashes[i], want)
		}
	}
	// From the middle of the batch, as after a turn that stopped early.
	b.next, b.nextArg = 2, 4
	if n := b.keyHashes(shard, 2, len(reqs), hashes); n != 5 || hashes[0] != shard.DBs[3].Hash([]byte("beta"))|1 {
		t.Errorf("from request 2: %d keys, first hash %x", n, hashes[0])
	}
}

// TestOriginBits: what a request carries of its slot's Origin reads back
// as the Origin itself.
func TestOriginBits(t *testing.T) {
	parent := new(Slot)
	for i := 0; i < 1<<7; i++ {
		s := &Slot{Client: int64(i + 1), lead: i&1 != 0, held: i&2 != 0, seq: uint8(i>>3) * 7 % (2 * MaxTxns)}
		if i&4 != 0 {
			s.parent = parent
		}
		if got, want := s.originBits().origin(s.Client), s.Origin(); got != want {
			t.Fatalf("slot %d: origin %+v, want %+v", i, got, want)
		}
	}
	var b Batch
	b.Add(LookupString("get"), 0, 2, [][]byte{[]byte("get"), []byte("k")}, nil)
	if r := b.reqs[0]; r.Origin.origin(r.Client) != (Origin{}) {
		t.Fatalf("a request without a slot has origin %+v", r.Origin.origin(r.Client))
	}
}
