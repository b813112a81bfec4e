package shardowner

import (
	"strconv"
	"testing"
	"time"
)

func TestTenacityLimit(t *testing.T) {
	for _, c := range []struct {
		t    int
		want time.Duration
	}{{0, 0}, {1, 50 * time.Microsecond}, {10, 500 * time.Microsecond}, {11, 575 * time.Microsecond}, {100, -1}} {
		if got := tenacityLimit(c.t); got != c.want {
			t.Errorf("tenacityLimit(%d) = %v, want %v", c.t, got, c.want)
		}
	}
}

// TestEvictPoolOrder: the pool keeps the 16 best candidates offered, in
// ascending order of score, each once.
func TestEvictPoolOrder(t *testing.T) {
	var m memState
	for i := range 40 {
		score := uint64((i * 7919) % 40)
		m.offer(0, []byte("k"+strconv.Itoa(int(score))), score)
		m.offer(0, []byte("k"+strconv.Itoa(int(score))), score) // a repeat
	}
	for i := range evictPoolSize {
		c := m.pool[i]
		if want := uint64(40 - evictPoolSize + i); !c.set || c.score != want || string(c.key) != "k"+strconv.Itoa(int(want)) {
			t.Fatalf("pool[%d] = %v %d %q, want score %d", i, c.set, c.score, c.key, want)
		}
	}
}

// TestEvictionOverShards: two shards over a limit evict the excess once
// between them, each in proportion to its size (PlanEviction's floors).
func TestEvictionOverShards(t *testing.T) {
	cfg := NewMemoryConfig()
	cfg.Policy.Store(int32(AllKeysRandom))
	cfg.Tenacity.Store(100) // no time limit: one pass each
	var shards [2]*Ctx
	for i := range shards {
		shards[i] = benchCtx()
		for k := range 3000 * (i + 1) {
			Set(shards[i], args("set", "key:"+strconv.Itoa(k), "some value of 32 bytes..........."))
		}
	}
	a, b := shards[0].Shard, shards[1].Shard
	total := a.MemUsed() + b.MemUsed()
	limit := total * 3 / 4
	cfg.MaxMemory.Store(limit)
	for _, pair := range [][2]*Shard{{a, b}, {b, a}} {
		s, other := pair[0], pair[1]
		s.SyncMemory(cfg, false)
		s.MemOthers = other.MemUsed() // both count from the same instant
		s.OthersEvictable = true
	}
	a.PlanEviction(b.MemUsed())
	b.PlanEviction(a.MemUsed())
	a.MakeRoom()
	b.MakeRoom()
	got := a.MemUsed() + b.MemUsed()
	if got > limit || got < limit-limit/50 {
		t.Errorf("two shards of %d bytes over a limit of %d evicted down to %d", total, limit, got)
	}
	if ra, rb := float64(a.MemUsed())/float64(b.MemUsed()), 0.5; ra < rb*0.9 || ra > rb*1.1 {
		t.Errorf("shards left at %d and %d bytes: not in the 1:2 of their sizes", a.MemUsed(), b.MemUsed())
	}
}
