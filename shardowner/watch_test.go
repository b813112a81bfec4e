package shardowner

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// runWatchSteps runs commands as do does, with these steps besides:
// "@tick n" moves the clock n ms on, "@db n" selects a database, "@swap a b"
// swaps two databases as SWAPDB does, and "@expire" runs active expiry on
// every database. An argument "" is the empty string; a command that
// starts with "!" must answer an error, and others must not.
func runWatchSteps(t *testing.T, c *Ctx, steps []string) {
	t.Helper()
	for _, st := range steps {
		args := strings.Fields(st)
		n := func(i int) int {
			v, err := strconv.Atoi(args[i])
			if err != nil {
				t.Fatalf("step %q: %v", st, err)
			}
			return v
		}
		switch args[0] {
		case "@tick":
			c.Shard.Clock.Ms += int64(n(1))
		case "@db":
			c.DB = n(1)
		case "@swap":
			c.Shard.SwapDB(n(1), n(2))
		case "@expire":
			for _, tb := range c.Shard.DBs {
				tb.ActiveExpire(1e9)
			}
		default:
			for i, a := range args {
				if a == `""` {
					args[i] = ""
				}
			}
			wantErr := strings.HasPrefix(args[0], "!")
			args[0] = strings.TrimPrefix(args[0], "!")
			if r := do(c, args...); strings.HasPrefix(r, "-") != wantErr {
				t.Fatalf("step %q: %q", st, r)
			}
		}
	}
}

// watched asks corekv.watched for client.
func watched(t *testing.T, c *Ctx, client string) bool {
	t.Helper()
	switch r := do(c, "corekv.watched", client); r {
	case num(1):
		return true
	case num(0):
		return false
	default:
		t.Fatalf("corekv.watched %s: %q", client, r)
		return false
	}
}

// checkFreed fails unless the shard holds no watch state at all.
func checkFreed(t *testing.T, s *Shard) {
	t.Helper()
	if n := s.Watching(); n != 0 {
		t.Errorf("Watching() = %d after every client unwatched", n)
	}
	if s.watch.clients != nil {
		t.Errorf("%d clients still known", len(s.watch.clients))
	}
	for i := range s.watch.dbs {
		if s.watch.dbs[i].keys != nil || s.watcherOf(i) != nil {
			t.Errorf("db %d still has watched keys", i)
		}
	}
}

// TestWatchTouch runs one client's WATCH against what other commands do to
// its key, with the outcome redis-server 7.0 gives to the same commands
// (with active expiry off, where a key expires: here the tests run it
// explicitly).
func TestWatchTouch(t *testing.T) {
	stale := []string{"set x 1 px 1", "@tick 10"} // x expired, not yet deleted
	blob := string(EncodeValue(nil, Value{Kind: KindString, Str: []byte("v")}))
	expiredBlob := string(EncodeValue(nil, Value{Kind: KindString, Str: []byte("v"), ExpireAt: 1}))
	for _, tc := range []struct {
		name    string
		setup   []string
		watchDB int
		mod     []string
		touched bool
	}{
		{"nothing", []string{"set x 1"}, 0, nil, false},
		{"set", []string{"set x 1"}, 0, []string{"set x 1"}, true},
		{"set missing", nil, 0, []string{"set x 1"}, true},
		{"set pxat past, missing", nil, 0, []string{"set x v pxat 1000"}, true},
		{"set pxat past, existing", []string{"set x 1"}, 0, []string{"set x v pxat 1000"}, true},
		{"set nx, existing", []string{"set x 1"}, 0, []string{"set x v nx"}, false},
		{"set xx, missing", nil, 0, []string{"set x v xx"}, false},
		{"set get keepttl", []string{"set x 1 ex 100"}, 0, []string{"set x 2 get keepttl"}, true},
		{"setnx, existing", []string{"set x 1"}, 0, []string{"setnx x 2"}, false},
		{"setex", nil, 0, []string{"setex x 10 v"}, true},
		{"getset", []string{"set x 1"}, 0, []string{"getset x 2"}, true},
		{"get", []string{"set x 1"}, 0, []string{"get x", "strlen x", "getrange x 0 1", "exists x", "ttl x", "type x", "object encoding x", "mget x y", "touch x", "keys *", "scan 0", "randomkey", "dbsize", "memory usage x"}, false},
		{"del", []string{"set x 1"}, 0, []string{"del x"}, true},
		{"del missing", nil, 0, []string{"del x"}, false},
		{"unlink", []string{"set x 1"}, 0, []string{"unlink y x"}, true},
		{"getdel", []string{"set x 1"}, 0, []string{"getdel x"}, true},
		{"getdel missing", nil, 0, []string{"getdel x"}, false},
		{"expire", []string{"set x 1"}, 0, []string{"expire x 10"}, true},
		{"expire, same time", []string{"set x 1 pxat 99999999999999"}, 0, []string{"pexpireat x 99999999999999"}, true},
		{"expire missing", nil, 0, []string{"expire x 10"}, false},
		{"expire past, missing", nil, 0, []string{"expire x -1"}, false},
		{"expire past", []string{"set x 1"}, 0, []string{"expire x -1"}, true},
		{"expire nx vetoed", []string{"set x 1 ex 100"}, 0, []string{"expire x 10 nx"}, false},
		{"expire gt vetoed", []string{"set x 1 ex 100"}, 0, []string{"expire x 10 gt"}, false},
		{"persist", []string{"set x 1 ex 100"}, 0, []string{"persist x"}, true},
		{"persist without ttl", []string{"set x 1"}, 0, []string{"persist x"}, false},
		{"getex", []string{"set x 1 ex 100"}, 0, []string{"getex x"}, false},
		{"getex ex", []string{"set x 1"}, 0, []string{"getex x ex 100"}, true},
		{"getex persist", []string{"set x 1 ex 100"}, 0, []string{"getex x persist"}, true},
		{"getex persist without ttl", []string{"set x 1"}, 0, []string{"getex x persist"}, false},
		{"getex pxat past", []string{"set x 1"}, 0, []string{"getex x pxat 1000"}, true},
		{"getex pxat past, missing", nil, 0, []string{"getex x pxat 1000"}, false},
		{"append", []string{"set x abc"}, 0, []string{"append x d"}, true},
		{"append to int", []string{"set x 1"}, 0, []string{"append x 2"}, true},
		{"append nothing", []string{"set x 1"}, 0, []string{`append x ""`}, true},
		{"append missing", nil, 0, []string{"append x a"}, true},
		{"setrange", []string{"set x abc"}, 0, []string{"setrange x 0 a"}, true},
		{"setrange missing", nil, 0, []string{"setrange x 2 a"}, true},
		{"incr", []string{"set x 1"}, 0, []string{"incr x"}, true},
		{"incrby 0", []string{"set x 5"}, 0, []string{"incrby x 0"}, true},
		{"incr of digits", []string{"set x 1", "append x 2"}, 0, []string{"incr x"}, true},
		{"incr missing", nil, 0, []string{"decr x"}, true},
		{"incr overflow", []string{"set x 9223372036854775807"}, 0, []string{"!incr x"}, false},
		{"incr not a number", []string{"set x a"}, 0, []string{"!incr x"}, false},
		{"incrbyfloat", []string{"set x 1"}, 0, []string{"incrbyfloat x 0.5"}, true},
		{"mset", nil, 0, []string{"mset y 1 x 2"}, true},
		{"msetnx", nil, 0, []string{"msetnx y 1 x 2"}, true},
		{"msetnx refused", []string{"set y 1"}, 0, []string{"msetnx x 1 y 2"}, false},
		{"rename same key", []string{"set x 1"}, 0, []string{"rename x x"}, false},
		{"rename source", []string{"set x 1"}, 0, []string{"rename x y"}, true},
		{"rename destination", []string{"set y 1"}, 0, []string{"rename y x"}, true},
		{"renamenx refused", []string{"set y 1", "set x 2"}, 0, []string{"renamenx y x", "renamenx x y"}, false},
		{"move source", []string{"set x 1"}, 0, []string{"move x 1"}, true},
		{"move destination", []string{"set x 1"}, 1, []string{"move x 1"}, true},
		{"move refused", []string{"set x 1", "@db 1", "set x 2"}, 0, []string{"move x 1"}, false},
		{"copy source", []string{"set x 1"}, 0, []string{"copy x y"}, false},
		{"copy destination", []string{"set y 1"}, 0, []string{"copy y x"}, true},
		{"copy refused", []string{"set y 1", "set x 1"}, 0, []string{"copy y x"}, false},
		{"copy replace", []string{"set y 1", "set x 1"}, 0, []string{"copy y x replace"}, true},
		{"copy to another db", []string{"set y 1"}, 1, []string{"copy y x db 1"}, true},
		{"zadd", []string{"zadd x 1 a"}, 0, []string{"zadd x 2 a"}, true},
		{"pfadd", []string{"pfadd x a"}, 0, []string{"pfadd x b"}, true},
		{"pfadd, no register changed", []string{"pfadd x a"}, 0, []string{"pfadd x a"}, false},
		{"pfcount, stale cache", []string{"pfadd x a"}, 0, []string{"pfcount x"}, true},
		{"pfcount, cached", []string{"pfadd x a", "pfcount x"}, 0, []string{"pfcount x"}, false},
		{"pfdebug todense", []string{"pfadd x a"}, 0, []string{"pfdebug todense x", "pfdebug encoding x"}, false},
		{"pfdebug getreg", []string{"pfadd x a"}, 0, []string{"pfdebug getreg x"}, false},
		{"zadd, same score", []string{"zadd x 1 a"}, 0, []string{"zadd x 1 a", "zadd x nx 5 a", "zrem x b", "zremrangebyscore x 5 6"}, false},
		{"zadd big, in place", []string{"zadd x 1 a 2 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}, 0, []string{"zadd x 3 b"}, true},
		{"zadd big, same score", []string{"zadd x 1 a 2 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}, 0, []string{"zadd x 1 a", "zadd x xx 3 b", "zrem x b", "zrange x 0 -1", "zscore x a"}, false},
		{"zincrby big", []string{"zadd x 1 a 2 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}, 0, []string{"zincrby x 1 a"}, true},
		{"zrem big", []string{"zadd x 1 a 2 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}, 0, []string{"zrem x a"}, true},
		{"zpopmin big", []string{"zadd x 1 a 2 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}, 0, []string{"zpopmin x"}, true},
		{"zremrangebyrank big", []string{"zadd x 1 a 2 LLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLLL"}, 0, []string{"zremrangebyrank x 0 0"}, true},
		{"zrangestore", []string{"zadd y 1 a"}, 0, []string{"zrangestore x y 0 -1"}, true},
		{"zrangestore nothing", nil, 0, []string{"zrangestore x y 0 -1"}, false},
		{"smove into a set that has the member", []string{"sadd y a b", "sadd x a"}, 0, []string{"smove y x a"}, false},
		{"smove into a big set that has the member", []string{"sadd y a b", "sadd x a " + strings.Repeat("L", 70)}, 0, []string{"smove y x a"}, false},
		{"smove into a set", []string{"sadd y a b", "sadd x c"}, 0, []string{"smove y x a"}, true},
		{"smove out", []string{"sadd x a b", "sadd y a"}, 0, []string{"smove x y a"}, true},
		{"smove within", []string{"sadd x a b"}, 0, []string{"smove x x a"}, false},
		{"other db", []string{"set x 1"}, 1, []string{"set x 2", "del x"}, false},
		{"flushdb", []string{"set x 1"}, 0, []string{"flushdb"}, true},
		{"flushdb, missing", nil, 0, []string{"flushdb"}, false},
		{"flushdb, key in another db", []string{"@db 1", "set x 1"}, 0, []string{"@db 1", "flushdb"}, false},
		{"flushall", []string{"@db 3", "set x 1"}, 3, []string{"flushall"}, true},
		{"flushall, key in another db", []string{"@db 1", "set x 1"}, 0, []string{"flushall"}, false},
		{"dump", []string{"set x 1"}, 0, []string{"corekv.dump x"}, false},
		{"take", []string{"set x 1"}, 0, []string{"corekv.take x"}, true},
		{"take missing", nil, 0, []string{"corekv.take x"}, false},
		{"restore", nil, 0, []string{"corekv.restore x " + blob + " any"}, true},
		{"restore nx refused", []string{"set x 1"}, 0, []string{"corekv.restore x " + blob + " nx"}, false},
		{"restore expired blob", nil, 0, []string{"corekv.restore x " + expiredBlob + " any"}, true},

		// Expiry: a key live when watched is touched when it expires,
		// whether or not something has deleted it yet.
		{"expired since", []string{"set x 1 px 30"}, 0, []string{"@tick 50"}, true},
		{"expired since, read", []string{"set x 1 px 30"}, 0, []string{"@tick 50", "get x"}, true},
		{"expired since, active expiry", []string{"set x 1 px 30"}, 0, []string{"@tick 50", "@expire"}, true},
		{"expired since, flushdb", []string{"set x 1 px 30"}, 0, []string{"@tick 50", "flushdb"}, true},
		{"missing, then set and expired", nil, 0, []string{"set x 1 px 1", "@tick 10"}, true},
		{"not yet expired", []string{"set x 1 px 30"}, 0, []string{"@tick 29"}, false},

		// Stale keys: expired but not deleted when watched.
		{"stale", stale, 0, nil, false},
		{"stale, deleted by a read", stale, 0, []string{"exists x"}, false},
		{"stale, deleted by active expiry", stale, 0, []string{"@expire"}, false},
		{"stale, del", stale, 0, []string{"del x"}, false},
		{"stale, flushdb", stale, 0, []string{"flushdb"}, false},
		{"stale, expire", stale, 0, []string{"expire x 100"}, false},
		{"stale, set", stale, 0, []string{"set x 2"}, true},
		{"stale, deleted then set", stale, 0, []string{"exists x", "set x 3"}, true},
		{"stale, setnx", stale, 0, []string{"setnx x 3"}, true},
		{"stale, set nx", stale, 0, []string{"set x 3 nx"}, true},
		{"stale, incr", stale, 0, []string{"incr x"}, true},
		{"stale, append", stale, 0, []string{"append x 1"}, true},
		{"stale, set pxat past", stale, 0, []string{"set x 1 pxat 1000"}, true},
		{"stale, getex pxat past", stale, 0, []string{"getex x pxat 1000"}, false},
		{"stale, move", stale, 0, []string{"move x 1"}, false},
		{"stale, moved onto", []string{"set x 1 px 1", "@db 1", "set x 2", "@tick 10"}, 0, []string{"@db 1", "move x 0"}, true},
		{"stale, copied onto", []string{"set x 1 px 1", "set y 2", "@tick 10"}, 0, []string{"copy y x replace"}, true},
		{"stale, renamed onto", []string{"set x 1 px 1", "set y 2", "@tick 10"}, 0, []string{"rename y x"}, true},

		// SWAPDB.
		{"swapdb, key in the watched db", []string{"set x 1"}, 0, []string{"@swap 0 1"}, true},
		{"swapdb, key in the other db", []string{"@db 1", "set x 1"}, 0, []string{"@swap 0 1"}, true},
		{"swapdb, key in neither", nil, 0, []string{"@swap 0 1"}, false},
		{"swapdb, other dbs", []string{"set x 1"}, 0, []string{"@swap 1 2"}, false},
		{"swapdb, same db", []string{"set x 1"}, 0, []string{"@swap 0 0"}, false},
		{"swapdb, stale key for none", stale, 0, []string{"@swap 0 1"}, false},
		{"swapdb, none for a stale key", []string{"@db 1", "set x 1 px 1", "@tick 10"}, 0, []string{"@swap 0 1"}, false},
		{"swapdb, stale key for a stale key", []string{"set x 1 px 1", "@db 1", "set x 1 px 1", "@tick 10"}, 0, []string{"@swap 0 1"}, false},
		{"swapdb, stale key for a live key", []string{"set x 1 px 1", "@db 1", "set x 1", "@tick 10"}, 0, []string{"@swap 0 1"}, true},
		{"swapdb, live key for a stale key", []string{"set x 1", "@db 1", "set x 1 px 1", "@tick 10"}, 0, []string{"@swap 0 1"}, true},
		{"swapdb, then set in the watched db", nil, 0, []string{"@swap 0 1", "set x 1"}, true},
		{"swapdb, then set in the other db", nil, 0, []string{"@swap 0 1", "@db 1", "set x 1"}, false},
		{"swapdb, none for a stale key, then deleted", []string{"@db 1", "set x 1 px 1", "@tick 10"}, 0, []string{"@swap 0 1", "del x"}, false},
		{"swapdb, none for a stale key, then set", []string{"@db 1", "set x 1 px 1", "@tick 10"}, 0, []string{"@swap 0 1", "set x 2"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newTestCtx()
			runWatchSteps(t, c, tc.setup)
			c.DB = tc.watchDB
			if r := do(c, "corekv.watch", "7", "x"); r != ok {
				t.Fatalf("corekv.watch: %q", r)
			}
			c.DB = 0
			runWatchSteps(t, c, tc.mod)
			if got := watched(t, c, "7"); got != tc.touched {
				t.Fatalf("touched = %v, want %v", got, tc.touched)
			}
			if watched(t, c, "7") != tc.touched {
				t.Fatal("corekv.watched changed its answer")
			}
			if r := do(c, "corekv.unwatch", "7"); r != ok {
				t.Fatalf("corekv.unwatch: %q", r)
			}
			if watched(t, c, "7") {
				t.Fatal("touched after unwatch")
			}
			checkFreed(t, c.Shard)
		})
	}
}

// Clients, keys and databases are watched apart.
func TestWatchClients(t *testing.T) {
	c := newTestCtx()
	s := c.Shard
	do(c, "corekv.watch", "1", "a", "b")
	do(c, "corekv.watch", "1", "a", "b", "a") // again: registered once
	do(c, "corekv.watch", "2", "b", "c")
	c.DB = 1
	do(c, "corekv.watch", "3", "a")
	if n := s.Watching(); n != 5 {
		t.Fatalf("Watching() = %d, want 5", n)
	}
	do(c, "set", "b", "1") // db 1: nobody watches it there
	c.DB = 0
	if watched(t, c, "1") || watched(t, c, "2") || watched(t, c, "3") {
		t.Fatal("a write to another database touched a watch")
	}
	do(c, "set", "b", "1")
	if !watched(t, c, "1") || !watched(t, c, "2") || watched(t, c, "3") {
		t.Fatal("set b: want clients 1 and 2 touched, not 3")
	}
	// A touched client's keys are dropped at once, and it stays touched,
	// whatever it watches next, until it unwatches.
	if n := s.Watching(); n != 1 {
		t.Fatalf("Watching() = %d after two clients were touched, want 1", n)
	}
	do(c, "corekv.watch", "1", "z")
	if n := s.Watching(); n != 1 || !watched(t, c, "1") {
		t.Fatalf("a touched client watching more: Watching() = %d", n)
	}
	do(c, "corekv.unwatch", "1")
	do(c, "corekv.watch", "1", "a")
	if watched(t, c, "1") {
		t.Fatal("touched after unwatch and watch again")
	}
	do(c, "corekv.unwatch", "99") // a client this shard never saw
	for _, id := range []string{"1", "2", "3"} {
		do(c, "corekv.unwatch", id)
	}
	checkFreed(t, s)
	// Nothing is watched: writes are not told to anyone.
	do(c, "set", "a", "1")
	do(c, "corekv.watch", "1", "a")
	if watched(t, c, "1") {
		t.Fatal("a write before the watch touched it")
	}
}

func TestWatchCommandErrors(t *testing.T) {
	c := newTestCtx()
	for _, cmd := range [][]string{
		{"corekv.watch", "x", "k"},
		{"corekv.unwatch", "1.5"},
		{"corekv.watched", ""},
	} {
		if got, want := do(c, cmd...), errr("ERR value is not an integer or out of range"); got != want {
			t.Errorf("%q: %q, want %q", cmd, got, want)
		}
	}
	if n := c.Shard.Watching(); n != 0 {
		t.Errorf("Watching() = %d after refused commands", n)
	}
}

// TestWatchModel runs random commands of a few clients on a few keys of two
// databases against a model: with no TTLs, a watch is touched exactly when
// its key is written, or deleted (DEL, FLUSHDB) while it exists. A touched
// watch stays touched until its client unwatches.
func TestWatchModel(t *testing.T) {
	c := newTestCtx()
	s := c.Shard
	rng := rand.New(rand.NewPCG(1, 2))
	const clients, keys, dbs = 4, 6, 2
	type dk struct {
		db  int
		key string
	}
	exists := map[dk]bool{}
	watching := make([]map[dk]bool, clients)
	touched := make([]bool, clients)
	for i := range watching {
		watching[i] = map[dk]bool{}
	}
	touch := func(k dk) {
		for i := range watching {
			if watching[i][k] {
				touched[i] = true
			}
		}
	}
	for step := range 20000 {
		c.DB = rng.IntN(dbs)
		key := "k" + strconv.Itoa(rng.IntN(keys))
		k := dk{c.DB, key}
		client := rng.IntN(clients)
		id := strconv.Itoa(client)
		switch op := rng.IntN(100); {
		case op < 25:
			do(c, "corekv.watch", id, key)
			watching[client][k] = true
		case op < 30:
			do(c, "corekv.unwatch", id)
			clear(watching[client])
			touched[client] = false
		case op < 45:
			if got := watched(t, c, id); got != touched[client] {
				t.Fatalf("step %d: client %d touched = %v, model %v", step, client, got, touched[client])
			}
		case op < 60:
			do(c, "set", key, "1")
			exists[k] = true
			touch(k)
		case op < 67:
			do(c, "incr", key)
			exists[k] = true
			touch(k)
		case op < 80:
			if exists[k] {
				touch(k)
			}
			do(c, "del", key)
			exists[k] = false
		case op < 82:
			for kk := range exists {
				if kk.db == c.DB && exists[kk] {
					touch(kk)
					exists[kk] = false
				}
			}
			do(c, "flushdb")
		default:
			do(c, "get", key)
			do(c, "exists", key)
		}
		n := 0
		for _, c := range s.watch.clients {
			n += len(c.regs)
		}
		if n != s.Watching() {
			t.Fatalf("step %d: Watching() = %d, clients hold %d", step, s.Watching(), n)
		}
	}
	for i := range clients {
		do(c, "corekv.unwatch", strconv.Itoa(i))
	}
	checkFreed(t, s)
}

// BenchmarkSetOverwriteWatching is BenchmarkSetOverwrite while another key
// of the table is watched: each write is looked up among the watched keys.
func BenchmarkSetOverwriteWatching(b *testing.B) {
	c := benchCtx()
	argv := args("set", "key:000001", "some value of 32 bytes...........")
	Set(c, argv)
	c.Shard.Watch(0, []byte("key:000002"), 1)
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		Set(c, argv)
	}
}
