package shardowner

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func init() {
	for name, h := range map[string]func(*Ctx, [][]byte){
		"zadd": ZAdd, "zincrby": ZIncrBy, "zrem": ZRem, "zcard": ZCard, "zscore": ZScore,
		"zmscore": ZMScore, "zrank": ZRank, "zrevrank": ZRevRank, "zcount": ZCount,
		"zlexcount": ZLexCount, "zrange": ZRange, "zrevrange": ZRevRange,
		"zrangebyscore": ZRangeByScore, "zrevrangebyscore": ZRevRangeByScore,
		"zrangebylex": ZRangeByLex, "zrevrangebylex": ZRevRangeByLex, "zpopmin": ZPopMin,
		"zpopmax": ZPopMax, "zremrangebyrank": ZRemRangeByRank,
		"zremrangebyscore": ZRemRangeByScore, "zremrangebylex": ZRemRangeByLex, "zrandmember": ZRandMember,
		"zscan": ZScan, "zrangestore": ZRangeStore, "zunion": ZUnion, "zinter": ZInter, "zdiff": ZDiff,
		"zunionstore": ZUnionStore, "zinterstore": ZInterStore, "zdiffstore": ZDiffStore, "zintercard": ZInterCard,
		"zmpop": ZMPop,
	} {
		handlers[name] = h
	}
}

type zpair struct {
	m string
	s float64
}

// zmodel is the sorted set the test expects: a plain map, sorted on demand.
type zmodel map[string]float64

func (z zmodel) sorted() []zpair {
	out := make([]zpair, 0, len(z))
	for m, s := range z {
		out = append(out, zpair{m, s})
	}
	sort.Slice(out, func(i, j int) bool { return zLess(out[i].s, []byte(out[i].m), out[j].s, []byte(out[j].m)) })
	return out
}

// popReply is the reply of a pop with a count that takes pairs, in order.
func popReply(pairs []zpair, resp3 bool) string {
	var b strings.Builder
	if resp3 {
		fmt.Fprintf(&b, "*%d\r\n", len(pairs))
	} else {
		fmt.Fprintf(&b, "*%d\r\n", 2*len(pairs))
	}
	for _, p := range pairs {
		s := strconv.FormatFloat(p.s, 'g', 17, 64)
		if resp3 {
			fmt.Fprintf(&b, "*2\r\n$%d\r\n%s\r\n,%s\r\n", len(p.m), p.m, s)
		} else {
			fmt.Fprintf(&b, "$%d\r\n%s\r\n$%d\r\n%s\r\n", len(p.m), p.m, len(s), s)
		}
	}
	return b.String()
}

// checkZSet compares the stored sorted set under key with the model, and
// a big one's pages with its directory and member table.
func checkZSet(t *testing.T, c *Ctx, key string, want zmodel) {
	t.Helper()
	v, found := c.Table().Get([]byte(key))
	if len(want) == 0 {
		if found {
			t.Fatalf("%s: present, want gone", key)
		}
		return
	}
	if !found || v.Kind != KindZSet {
		t.Fatalf("%s: missing or not a zset", key)
	}
	z := zviewOf(v)
	exp := want.sorted()
	if z.len() != len(exp) {
		t.Fatalf("len %d, want %d", z.len(), len(exp))
	}
	i := 0
	for pi := range z.npages() {
		body := z.page(pi)
		n := 0
		for off := 0; off < len(body); n++ {
			var m []byte
			var s float64
			m, s, off = zAt(body, off)
			if i >= len(exp) || string(m) != exp[i].m || s != exp[i].s {
				t.Fatalf("element %d: %q %v, want %v", i, m, s, exp[min(i, len(exp)-1)])
			}
			i++
		}
		if n != z.pageLen(pi) || n == 0 {
			t.Fatalf("page %d holds %d, directory says %d", pi, n, z.pageLen(pi))
		}
		if _, first, _ := zAt(body, 0); v.Big != nil && v.Big.Order.Dir[pi].Min != first {
			t.Fatalf("page %d starts at score %v, directory says %v", pi, first, v.Big.Order.Dir[pi].Min)
		}
	}
	if i != len(exp) {
		t.Fatalf("%d elements in pages, want %d", i, len(exp))
	}
	if v.Big != nil {
		if err := v.Big.Check(); err != nil {
			t.Fatal(err)
		}
		for _, p := range exp {
			if s, ok := z.score([]byte(p.m)); !ok || s != p.s {
				t.Fatalf("member table: %q %v %v", p.m, s, ok)
			}
		}
	}
	// ranks both ways, and by-rank reads from a few places
	for r := 0; r < len(exp); r += 1 + len(exp)/16 {
		if got := z.rank([]byte(exp[r].m), exp[r].s); got != r {
			t.Fatalf("rank of %q: %d, want %d", exp[r].m, got, r)
		}
		var it ziter
		it.start(z, r)
		m, s := it.at()
		if string(m) != exp[r].m || s != exp[r].s {
			t.Fatalf("at rank %d: %q", r, m)
		}
		if r > 0 && (!it.prev() || func() bool { m, _ := it.at(); return string(m) != exp[r-1].m }()) {
			t.Fatalf("prev of rank %d", r)
		}
		it.release()
	}
}

// TestZSetModel drives ZADD, ZINCRBY, ZREM, ZPOPMIN/MAX (some across
// pages) and ZREMRANGEBY* at random on small and big sorted sets and checks
// every step against a map.
func TestZSetModel(t *testing.T) {
	for seed := range uint64(6) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 1))
			c := newTestCtx()
			c.Shard.Enc.ZSetMaxEntries.Store(int64(rng.IntN(200)))
			model := zmodel{}
			members := 50 + rng.IntN(3000)
			steps := 4000
			if testing.Short() {
				steps = 800
			}
			member := func() string {
				m := "m" + strconv.Itoa(rng.IntN(members))
				if rng.IntN(50) == 0 {
					// past zset-max-listpack-value; a length of one byte or two
					m += string(bytes.Repeat([]byte{'x'}, 70+70*rng.IntN(2)))
				}
				return m
			}
			score := func() float64 { return float64(rng.IntN(40)) / 4 }
			count := func() int {
				if rng.IntN(8) == 0 {
					return rng.IntN(400) // across pages
				}
				return rng.IntN(5)
			}
			for step := range steps {
				switch op := rng.IntN(21); {
				case op < 12:
					args := []string{"zadd", "z"}
					for range 1 + rng.IntN(8) {
						m, s := member(), score()
						args = append(args, strconv.FormatFloat(s, 'g', -1, 64), m)
						model[m] = s
					}
					do(c, args...)
				case op < 14:
					m, s := member(), score()
					do(c, "zincrby", "z", strconv.FormatFloat(s, 'g', -1, 64), m)
					model[m] += s
				case op < 17:
					m := member()
					do(c, "zrem", "z", m)
					delete(model, m)
				case op == 17 || op == 18:
					exp := model.sorted()
					n := count()
					c.W.Proto = 2 + rng.IntN(2)
					var popped []zpair
					for i := 0; i < n && i < len(exp); i++ {
						p := exp[i]
						if op == 18 {
							p = exp[len(exp)-1-i]
						}
						popped = append(popped, p)
						delete(model, p.m)
					}
					cmd := map[bool]string{true: "zpopmin", false: "zpopmax"}[op == 17]
					if got, want := do(c, cmd, "z", strconv.Itoa(n)), popReply(popped, c.W.Proto == 3); got != want {
						t.Fatalf("step %d: %s %d: %q, want %q", step, cmd, n, got, want)
					}
					c.W.Proto = 2
				case op == 19:
					// a rank range at either end
					exp := model.sorted()
					n := 1 + count() // 0 -1 would be the whole set
					if rng.IntN(2) == 0 {
						do(c, "zremrangebyrank", "z", "0", strconv.Itoa(n-1))
						for _, p := range exp[:min(n, len(exp))] {
							delete(model, p.m)
						}
					} else {
						do(c, "zremrangebyrank", "z", strconv.Itoa(-n), "-1")
						for i := 0; i < n && i < len(exp); i++ {
							delete(model, exp[len(exp)-1-i].m)
						}
					}
				default:
					lo := score()
					hi := lo + float64(rng.IntN(3))/4
					do(c, "zremrangebyscore", "z", strconv.FormatFloat(lo, 'g', -1, 64), strconv.FormatFloat(hi, 'g', -1, 64))
					for m, s := range model {
						if s >= lo && s <= hi {
							delete(model, m)
						}
					}
				}
				if step%50 == 0 || step == steps-1 {
					checkZSet(t, c, "z", model)
				}
			}
		})
	}
}

// TestZSetPagesSplit fills a big sorted set past several pages in
// ascending, descending and equal-score order.
func TestZSetPagesSplit(t *testing.T) {
	for _, order := range []string{"asc", "desc", "same"} {
		c := newTestCtx()
		model := zmodel{}
		for i := range 1000 {
			s := float64(i)
			switch order {
			case "desc":
				s = float64(-i)
			case "same":
				s = 1
			}
			m := fmt.Sprintf("k%05d", (i*7919)%1000)
			do(c, "zadd", "z", strconv.FormatFloat(s, 'g', -1, 64), m)
			model[m] = s
		}
		checkZSet(t, c, "z", model)
		v, _ := c.Table().Get([]byte("z"))
		if v.Big == nil || len(v.Big.Order.Dir) < 1000/zsetPageEntries {
			t.Fatalf("%s: not paged", order)
		}
		for _, p := range v.Big.Order.Dir {
			if p.N > zsetPageEntries {
				t.Fatalf("%s: page of %d", order, p.N)
			}
		}
	}
}

// TestZRandMemberBig draws a few distinct members of a big sorted set.
func TestZRandMemberBig(t *testing.T) {
	c := newTestCtx()
	args := []string{"zadd", "z"}
	for i := range 20000 {
		args = append(args, strconv.Itoa(i), "m"+strconv.Itoa(i))
	}
	do(c, args...)
	for _, n := range []int{1, 5, 50} {
		got := members(t, do(c, "zrandmember", "z", strconv.Itoa(n)))
		if len(got) != n {
			t.Fatalf("ZRANDMEMBER %d: %d members", n, len(got))
		}
		for i := 1; i < len(got); i++ {
			if got[i] == got[i-1] {
				t.Fatalf("ZRANDMEMBER %d: %q twice", n, got[i])
			}
		}
		for _, m := range got {
			if !strings.HasPrefix(m, "m") {
				t.Fatalf("not a member: %q", m)
			}
		}
	}
}
