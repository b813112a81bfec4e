package shardowner

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/corekv/corekv/resp"
)

func benchCtx() *Ctx {
	s := NewShard(0, 1, 16)
	s.Clock.Ms = testNow
	return &Ctx{Shard: s, W: &resp.Writer{B: make([]byte, 0, 4096)}}
}

func args(a ...string) [][]byte {
	argv := make([][]byte, len(a))
	for i, s := range a {
		argv[i] = []byte(s)
	}
	return argv
}

func BenchmarkGetHit(b *testing.B) {
	c := benchCtx()
	Set(c, args("set", "key:000001", "some value of 32 bytes..........."))
	argv := args("get", "key:000001")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		Get(c, argv)
	}
}

func BenchmarkSetOverwrite(b *testing.B) {
	c := benchCtx()
	argv := args("set", "key:000001", "some value of 32 bytes...........")
	Set(c, argv)
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		Set(c, argv)
	}
}

func BenchmarkSetOverwriteEX(b *testing.B) {
	c := benchCtx()
	argv := args("set", "key:000001", "some value of 32 bytes...........", "EX", "100")
	Set(c, argv)
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		Set(c, argv)
	}
}

func BenchmarkIncr(b *testing.B) {
	c := benchCtx()
	argv := args("incr", "counter")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		Incr(c, argv)
	}
}

func BenchmarkMGet4(b *testing.B) {
	c := benchCtx()
	MSet(c, args("mset", "a", "1", "b", "two", "c", "3", "d", "four"))
	argv := args("mget", "a", "b", "c", "d")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		MGet(c, argv)
	}
}

// Handlers on their hot paths must not allocate (the table's own allocations
// aside, which the benchmarks above show).
func TestHotPathAllocs(t *testing.T) {
	c := benchCtx()
	Set(c, args("set", "k", "value"))
	Set(c, args("set", "n", "1"))
	for _, tc := range []struct {
		name string
		h    Handler
		argv [][]byte
	}{
		{"get", Get, args("get", "k")},
		{"get miss", Get, args("get", "nope")},
		{"incr", Incr, args("incr", "n")},
		{"incrby", IncrBy, args("incrby", "n", "5")},
		{"exists", Exists, args("exists", "k", "n")},
		{"ttl", TTL, args("ttl", "k")},
		{"strlen", StrLen, args("strlen", "k")},
		{"mget", MGet, args("mget", "k", "n", "x")},
	} {
		n := testing.AllocsPerRun(100, func() {
			c.W.B = c.W.B[:0]
			tc.h(c, tc.argv)
		})
		if n != 0 {
			t.Errorf("%s allocates %v times per call", tc.name, n)
		}
	}
}

// BenchmarkAppend1K appends 1 KiB per op to one key, starting over each
// time the value reaches 16 MiB: the cost of building big values by appends.
func BenchmarkAppend1K(b *testing.B) { benchAppend(b, 1024, 16<<20) }

// BenchmarkAppend8 appends 8 bytes per op to one key, starting over each
// time the value reaches 32 KiB: the cost of the lookup and the command
// around a small append.
func BenchmarkAppend8(b *testing.B) { benchAppend(b, 8, 32<<10) }

// benchAppend appends size bytes per op to one key, deleting it whenever it
// reaches limit bytes.
func benchAppend(b *testing.B, size, limit int) {
	c := benchCtx()
	argv := args("append", "key:000001", string(make([]byte, size)))
	del := args("del", "key:000001")
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		Append(c, argv)
		if n++; n == limit/size {
			Del(c, del)
			n = 0
		}
	}
}

// benchHash returns a context with a hash of n fields f0…f(n-1), packed or
// big as the default thresholds make it.
func benchHash(n int) *Ctx {
	c := benchCtx()
	argv := args("hset", "h")
	for i := range n {
		argv = append(argv, []byte("f"+strconv.Itoa(i)), []byte("value-of-14-by"))
	}
	HSet(c, argv)
	return c
}

func BenchmarkHGetPacked(b *testing.B) { benchHGet(b, 10) }
func BenchmarkHGetBig(b *testing.B)    { benchHGet(b, 1000) }

func benchHGet(b *testing.B, n int) {
	c := benchHash(n)
	argv := args("hget", "h", "f5")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		HGet(c, argv)
	}
}

func BenchmarkHSetPacked(b *testing.B) { benchHSet(b, 10) }
func BenchmarkHSetBig(b *testing.B)    { benchHSet(b, 1000) }

// benchHSet overwrites one field, alternating two values so that each call
// writes.
func benchHSet(b *testing.B, n int) {
	c := benchHash(n)
	argv := [2][][]byte{args("hset", "h", "f5", "value-of-14-bx"), args("hset", "h", "f5", "value-of-14-by")}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		HSet(c, argv[i&1])
		i++
	}
}

func BenchmarkSAddIntSet(b *testing.B) { benchSAdd(b, "1", "2") }
func BenchmarkSAddPacked(b *testing.B) { benchSAdd(b, "member-a", "member-b") }

// benchSAdd adds and removes one member of a set of 10, so that each SADD
// writes.
func benchSAdd(b *testing.B, m1, m2 string) {
	c := benchCtx()
	argv := args("sadd", "s", m1)
	for i := range 10 {
		argv = append(argv, []byte(m1+strconv.Itoa(i)))
	}
	SAdd(c, argv)
	add, rem := args("sadd", "s", m2), args("srem", "s", m2)
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		SAdd(c, add)
		SRem(c, rem)
	}
}

func BenchmarkSAddBig(b *testing.B) {
	c := benchCtx()
	argv := args("sadd", "s")
	for i := range 1000 {
		argv = append(argv, []byte("member:"+strconv.Itoa(i)))
	}
	SAdd(c, argv)
	add, rem := args("sadd", "s", "new member"), args("srem", "s", "new member")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		SAdd(c, add)
		SRem(c, rem)
	}
}

// BenchmarkSAddBigHit adds a member a big set already has, as most of a
// pipeline of SADDs over a bounded range of members does.
func BenchmarkSAddBigHit(b *testing.B) {
	c := benchCtx()
	argv := args("sadd", "s")
	for i := range 1000 {
		argv = append(argv, []byte("member:"+strconv.Itoa(i)))
	}
	SAdd(c, argv)
	add := args("sadd", "s", "member:500")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		SAdd(c, add)
	}
}

func BenchmarkSIsMember(b *testing.B) {
	c := benchCtx()
	SAdd(c, args("sadd", "s", "a", "b", "c", "d", "e"))
	argv := args("sismember", "s", "d")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		SIsMember(c, argv)
	}
}

// BenchmarkSPopDrain is redis-benchmark's SPOP after its SADDs: one member
// at a time from a set that 100k SADDs of random members filled (about 63k
// members), filling it again when it is empty.
func BenchmarkSPopDrain(b *testing.B) {
	c := benchCtx()
	var fill [][][]byte
	rnd := uint64(1)
	for range 100_000 {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		fill = append(fill, args("sadd", "s", fmt.Sprintf("element:%012d", rnd>>33%100_000)))
	}
	benchDrain(b, c, fill, SAdd, SPop, args("spop", "s"), "$-1\r\n")
}

// BenchmarkSetEvicting is SET of new keys into a shard held at its
// maxmemory: each SET evicts about one key first (MakeRoom), per policy.
func BenchmarkSetEvicting(b *testing.B) {
	for _, p := range []EvictPolicy{AllKeysLRU, AllKeysLFU, AllKeysRandom, VolatileTTL} {
		b.Run(PolicyNames[p], func(b *testing.B) {
			c := benchCtx()
			cfg := NewMemoryConfig()
			cfg.Policy.Store(int32(p))
			val := "some value of 32 bytes..........."
			for i := range 20000 {
				Set(c, args("set", "key:"+strconv.Itoa(i), val, "EX", "100000"))
			}
			cfg.MaxMemory.Store(c.Shard.MemUsed())
			c.Shard.SyncMemory(cfg, false)
			keys := make([][]byte, 1<<16)
			for i := range keys {
				keys[i] = []byte("new:" + strconv.Itoa(i))
			}
			argv := args("set", "", val, "EX", "100000")
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				c.W.B = c.W.B[:0]
				argv[1] = keys[i&(len(keys)-1)]
				i++
				c.Shard.MakeRoom()
				Set(c, argv)
			}
			b.ReportMetric(float64(c.Shard.Stats.Evicted)/float64(b.N), "evicted/op")
		})
	}
}
