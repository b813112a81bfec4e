package shardowner

import (
	"strconv"
	"testing"
)

// benchZSet returns a context holding sorted set "z" of n members.
func benchZSet(n int) *Ctx {
	c := benchCtx()
	argv := args("zadd", "z")
	for i := range n {
		argv = append(argv, []byte(strconv.Itoa(i)), []byte("member:"+strconv.Itoa(i)))
	}
	ZAdd(c, argv)
	return c
}

// The ZADD benchmarks move one member's score back and forth, so that
// each ZADD writes.
func BenchmarkZAddSmall(b *testing.B) { benchZAdd(b, 100) }
func BenchmarkZAddBig(b *testing.B)   { benchZAdd(b, 100_000) }

func benchZAdd(b *testing.B, n int) {
	c := benchZSet(n)
	mid := "member:" + strconv.Itoa(n/2)
	up, down := args("zadd", "z", "1.5", mid), args("zadd", "z", strconv.Itoa(n/2), mid)
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		ZAdd(c, up)
		ZAdd(c, down)
	}
}

func BenchmarkZScoreSmall(b *testing.B) { benchZRead(b, 100, ZScore, "zscore") }
func BenchmarkZScoreBig(b *testing.B)   { benchZRead(b, 100_000, ZScore, "zscore") }
func BenchmarkZRankSmall(b *testing.B)  { benchZRead(b, 100, ZRank, "zrank") }
func BenchmarkZRankBig(b *testing.B)    { benchZRead(b, 100_000, ZRank, "zrank") }

func benchZRead(b *testing.B, n int, h func(*Ctx, [][]byte), name string) {
	c := benchZSet(n)
	argv := args(name, "z", "member:"+strconv.Itoa(n/3))
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		h(c, argv)
	}
}

func BenchmarkZRangeBig10(b *testing.B) {
	c := benchZSet(100_000)
	argv := args("zrange", "z", "50000", "50009", "WITHSCORES")
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		ZRange(c, argv)
	}
}

// Sorted-set handlers on their hot paths allocate nothing.
func TestZSetHotPathAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops buffers under the race detector")
	}
	for _, n := range []int{100, 5000} {
		c := benchZSet(n)
		mid := "member:" + strconv.Itoa(n/2)
		up, down := args("zadd", "z", "1.5", mid), args("zadd", "z", strconv.Itoa(n/2), mid)
		score, rank := args("zscore", "z", mid), args("zrank", "z", mid)
		allocs := testing.AllocsPerRun(200, func() {
			c.W.B = c.W.B[:0]
			ZAdd(c, up)
			ZAdd(c, down)
			ZScore(c, score)
			ZRank(c, rank)
		})
		if allocs != 0 {
			t.Errorf("%d members: %v allocations per ZADD, ZSCORE and ZRANK", n, allocs)
		}
	}
}

// BenchmarkZAddGrow is the same into a sorted set that grows from empty,
// starting over every 100k ZADDs, as in a redis-benchmark run of that many.
func BenchmarkZAddGrow(b *testing.B) {
	c := benchZSet(0)
	argvs := randomZAdds(1 << 16)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		ZAdd(c, argvs[i%len(argvs)])
		if i++; i%100_000 == 0 {
			c.Table().Delete([]byte("z"))
		}
	}
}

// BenchmarkZAddHuge adds new members with random scores to one sorted set
// that grows to 5M, starting over then: run with -benchtime 5000000x to
// see what page splits in a very big set cost.
func BenchmarkZAddHuge(b *testing.B) {
	const huge = 5_000_000
	c := benchZSet(0)
	argv := args("zadd", "z", "", "")
	var score, member [24]byte
	rnd := uint64(1)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		rnd = rnd*6364136223846793005 + 1442695040888963407
		argv[2] = strconv.AppendUint(score[:0], rnd>>33%100_000_000, 10)
		argv[3] = strconv.AppendInt(append(member[:0], "m:"...), int64(i), 10)
		ZAdd(c, argv)
		if i++; i == huge {
			c.Table().Delete([]byte("z"))
			i = 0
		}
	}
}

// randomZAdds returns n ZADDs of a random score, 0 to 99999, for a random
// member element:0 to element:99999, as redis-benchmark's.
func randomZAdds(n int) [][][]byte {
	var argvs [][][]byte
	rnd := uint64(1)
	next := func() string {
		rnd = rnd*6364136223846793005 + 1442695040888963407
		return strconv.Itoa(int(rnd >> 33 % 100_000))
	}
	for range n {
		argvs = append(argvs, args("zadd", "z", next(), "element:"+next()))
	}
	return argvs
}

// BenchmarkZAddRandom is redis-benchmark's ZADD: a random score for a
// random member of one sorted set of up to 100k members.
func BenchmarkZAddRandom(b *testing.B) {
	c := benchZSet(0)
	argvs := randomZAdds(1 << 16)
	for i := range 100_000 {
		ZAdd(c, argvs[i%len(argvs)])
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.W.B = c.W.B[:0]
		ZAdd(c, argvs[i%len(argvs)])
		i++
	}
}

// BenchmarkZPopMinDrain is redis-benchmark's ZPOPMIN after its ZADDs: one
// member at a time from a sorted set that 400k random ZADDs filled, filling
// it again when it is empty.
func BenchmarkZPopMinDrain(b *testing.B) {
	benchDrain(b, benchZSet(0), randomZAdds(400_000), ZAdd, ZPopMin, args("zpopmin", "z"), "*0\r\n")
}

// benchDrain times pop on c, running the add commands of fill, untimed,
// first and each time pop's reply is empty, the value gone.
func benchDrain(b *testing.B, c *Ctx, fill [][][]byte, add, pop func(*Ctx, [][]byte), popArgv [][]byte, empty string) {
	refill := func() {
		for _, argv := range fill {
			add(c, argv)
		}
	}
	refill()
	b.ReportAllocs()
	for b.Loop() {
		c.W.B = c.W.B[:0]
		pop(c, popArgv)
		if string(c.W.B) == empty {
			b.StopTimer()
			refill()
			b.StartTimer()
		}
	}
}
