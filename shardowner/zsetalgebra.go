package shardowner

import (
	"bytes"
	"math"
	"slices"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner/kvtable"
)

var (
	errWeightFloat   = resp.Error("ERR weight value is not a float")
	errLimitNegative = resp.Error("ERR LIMIT can't be negative")
)

// parseNumKeys reads a count of keys at argv[i] and returns the keys after
// it, writing Redis's errors.
func parseNumKeys(c *Ctx, argv [][]byte, i int, name string) ([][]byte, bool) {
	n, ok := resp.ParseInt(argv[i])
	switch {
	case !ok:
		c.W.Err(resp.ErrNotInteger)
		return nil, false
	case n < 1:
		c.W.Err(resp.Error("ERR at least 1 input key is needed for '" + name + "' command"))
		return nil, false
	case n > int64(len(argv)-i-1):
		c.W.Err(resp.ErrSyntax)
		return nil, false
	}
	return argv[i+1 : i+1+int(n)], true
}

// zinputs reads the inputs of a command over several sorted sets; a key
// of another type than set or sorted set answers WRONGTYPE. Each missing
// key is a keymiss, the STORE forms' too, as in Redis.
func zinputs(c *Ctx, keys [][]byte) ([]zinput, bool) {
	ins := make([]zinput, len(keys))
	t := c.Table()
	for i, k := range keys {
		v, found := t.Get(k)
		if found && v.Kind != KindZSet && v.Kind != KindSet {
			c.W.Err(resp.ErrWrongType)
			return nil, false
		}
		if !found {
			c.Notify(NotifyKeyMiss, "keymiss", k)
		}
		ins[i] = zinput{v: v, found: found, weight: 1}
	}
	return ins, true
}

type zsetOp uint8

const (
	opUnion zsetOp = iota
	opInter
	opDiff
)

type aggregate uint8

const (
	aggSum aggregate = iota
	aggMin
	aggMax
)

// zinput is one input of ZUNION, ZINTER or ZDIFF: a sorted set, or a set
// whose members all score 1.
type zinput struct {
	v      Value
	found  bool
	weight float64
}

func (in *zinput) len() int {
	switch {
	case !in.found:
		return 0
	case in.v.Kind == KindZSet:
		return zviewOf(in.v).len()
	}
	return aggLen(in.v)
}

func (in *zinput) score(m []byte) (float64, bool) {
	switch {
	case !in.found:
		return 0, false
	case in.v.Kind == KindZSet:
		return zviewOf(in.v).score(m)
	}
	return 1, setHas(in.v, m)
}

// each calls fn on every element of the input.
func (in *zinput) each(fn func(m []byte, s float64)) {
	switch {
	case !in.found:
	case in.v.Kind == KindZSet:
		z := zviewOf(in.v)
		for pi := range z.npages() {
			body := z.page(pi)
			for off := 0; off < len(body); {
				var m []byte
				var s float64
				m, s, off = zAt(body, off)
				fn(m, s)
			}
		}
	default:
		eachMember(in.v, func(m []byte) bool { fn(m, 1); return true })
	}
}

func weighted(s, w float64) float64 {
	v := s * w
	if math.IsNaN(v) {
		return 0 // inf times 0
	}
	return v
}

func (a aggregate) apply(acc, s float64) float64 {
	switch a {
	case aggMin:
		return min(acc, s)
	case aggMax:
		return max(acc, s)
	}
	if v := acc + s; !math.IsNaN(v) {
		return v
	}
	return 0 // inf plus -inf
}

// zalgebra runs ZUNION, ZINTER, ZDIFF and their STORE forms (dst non-nil);
// argv[numAt] is the count of keys.
func zalgebra(c *Ctx, argv [][]byte, numAt int, op zsetOp, dst []byte) {
	name := string(bytes.ToLower(argv[0]))
	keys, ok := parseNumKeys(c, argv, numAt, name)
	if !ok {
		return
	}
	// As in Redis, the inputs' types are checked before the options.
	ins, ok := zinputs(c, keys)
	if !ok {
		return
	}
	agg, withScores := aggSum, false
	opts := argv[numAt+1+len(keys):]
	for i := 0; i < len(opts); i++ {
		a, left := opts[i], len(opts)-i-1
		switch {
		case op != opDiff && resp.EqualFold(a, "weights") && left >= len(keys):
			for j := range ins {
				w, ok := resp.ParseFloat(opts[i+1+j])
				if !ok {
					c.W.Err(errWeightFloat)
					return
				}
				ins[j].weight = w
			}
			i += len(keys)
		case op != opDiff && resp.EqualFold(a, "aggregate") && left >= 1:
			switch v := opts[i+1]; {
			case resp.EqualFold(v, "sum"):
				agg = aggSum
			case resp.EqualFold(v, "min"):
				agg = aggMin
			case resp.EqualFold(v, "max"):
				agg = aggMax
			default:
				c.W.Err(resp.ErrSyntax)
				return
			}
			i++
		case dst == nil && resp.EqualFold(a, "withscores"):
			withScores = true
		default:
			c.W.Err(resp.ErrSyntax)
			return
		}
	}
	// The result is gathered in a map, then sorted; its members alias the
	// inputs, which nothing writes until the reply or store is done.
	res := make(map[string]float64)
	switch op {
	case opUnion:
		for i := range ins {
			in := &ins[i]
			in.each(func(m []byte, s float64) {
				s = weighted(s, in.weight)
				if acc, ok := res[string(m)]; ok {
					res[string(m)] = agg.apply(acc, s)
				} else {
					res[string(m)] = s
				}
			})
		}
	case opInter:
		// Walk the smallest input; a member must be in every other.
		order := make([]int, len(ins))
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return ins[a].len() - ins[b].len() })
		first := &ins[order[0]]
		first.each(func(m []byte, s float64) {
			acc := weighted(s, first.weight)
			for _, j := range order[1:] {
				o, ok := ins[j].score(m)
				if !ok {
					return
				}
				acc = agg.apply(acc, weighted(o, ins[j].weight))
			}
			res[string(m)] = acc
		})
	case opDiff:
		ins[0].each(func(m []byte, s float64) {
			for j := range ins[1:] {
				if _, ok := ins[1+j].score(m); ok {
					return
				}
			}
			res[string(m)] = s
		})
	}
	pairs := make([]zpairRef, 0, len(res))
	for m, s := range res {
		pairs = append(pairs, zpairRef{m, s})
	}
	slices.SortFunc(pairs, func(a, b zpairRef) int {
		switch {
		case a.s < b.s:
			return -1
		case a.s > b.s:
			return 1
		}
		return bytes.Compare([]byte(a.m), []byte(b.m))
	})
	if dst == nil {
		nested := withScores && c.W.RESP3()
		if withScores && !nested {
			c.W.Array(2 * len(pairs))
		} else {
			c.W.Array(len(pairs))
		}
		for _, p := range pairs {
			if nested {
				c.W.Array(2)
			}
			c.W.BulkString(p.m)
			if withScores {
				writeScore(c, p.s)
			}
		}
		return
	}
	buf := bytebufferpool.Get()
	defer bytebufferpool.Put(buf)
	var room [kvtable.PackedHeadRoom]byte
	buf.B = append(buf.B[:0], room[:]...)
	for _, p := range pairs {
		buf.B = appendZElem(buf.B, []byte(p.m), p.s)
	}
	if storeZSet(c, dst, buf.B, len(pairs), zstoreEvents[op]) {
		c.W.Int(int64(len(pairs)))
	}
}

// zstoreEvents are the events of the STORE forms, by op.
var zstoreEvents = [...]string{opUnion: "zunionstore", opInter: "zinterstore", opDiff: "zdiffstore"}

type zpairRef struct {
	m string
	s float64
}

// ZUnion: ZUNION numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES].
func ZUnion(c *Ctx, argv [][]byte) { zalgebra(c, argv, 1, opUnion, nil) }

// ZInter: ZINTER numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES].
func ZInter(c *Ctx, argv [][]byte) { zalgebra(c, argv, 1, opInter, nil) }

// ZDiff: ZDIFF numkeys key [key ...] [WITHSCORES].
func ZDiff(c *Ctx, argv [][]byte) { zalgebra(c, argv, 1, opDiff, nil) }

// ZUnionStore: ZUNIONSTORE dst numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX].
func ZUnionStore(c *Ctx, argv [][]byte) { zalgebra(c, argv, 2, opUnion, argv[1]) }

// ZInterStore: ZINTERSTORE dst numkeys key [key ...] [WEIGHTS w ...] [AGGREGATE SUM|MIN|MAX].
func ZInterStore(c *Ctx, argv [][]byte) { zalgebra(c, argv, 2, opInter, argv[1]) }

// ZDiffStore: ZDIFFSTORE dst numkeys key [key ...].
func ZDiffStore(c *Ctx, argv [][]byte) { zalgebra(c, argv, 2, opDiff, argv[1]) }

// ZInterCard: ZINTERCARD numkeys key [key ...] [LIMIT limit].
func ZInterCard(c *Ctx, argv [][]byte) {
	keys, ok := parseNumKeys(c, argv, 1, "zintercard")
	if !ok {
		return
	}
	ins, ok := zinputs(c, keys)
	if !ok {
		return
	}
	limit := int64(0)
	opts := argv[2+len(keys):]
	for i := 0; i < len(opts); i++ {
		if resp.EqualFold(opts[i], "limit") && i+1 < len(opts) {
			n, ok := resp.ParseInt(opts[i+1])
			if !ok || n < 0 {
				c.W.Err(errLimitNegative)
				return
			}
			limit = n
			i++
			continue
		}
		c.W.Err(resp.ErrSyntax)
		return
	}
	order := make([]int, len(ins))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return ins[a].len() - ins[b].len() })
	n := int64(0)
	ins[order[0]].each(func(m []byte, _ float64) {
		if limit > 0 && n >= limit {
			return
		}
		for _, j := range order[1:] {
			if _, ok := ins[j].score(m); !ok {
				return
			}
		}
		n++
	})
	c.W.Int(n)
}

// ZMPop: ZMPOP numkeys key [key ...] MIN|MAX [COUNT count]. Pops from the
// first key that holds a sorted set.
func ZMPop(c *Ctx, argv [][]byte) { mpop(c, argv, KindZSet, "min", "max", zmpopReply) }

// zmpopReply pops up to count members of sorted set v under key from its
// low or high end (max) and answers them with the key, as ZMPOP and BZMPOP
// do.
func zmpopReply(c *Ctx, key []byte, v Value, max bool, count int64) {
	z := zviewOf(v)
	k := int(min(count, int64(z.len())))
	sp := zspan{0, k}
	if max {
		sp = zspan{z.len() - k, z.len()}
	}
	c.W.Array(2)
	c.W.Bulk(key)
	writeElems(c, z, sp, max, true, true)
	zremSpan(c, key, v, sp)
	c.NotifyRemoval(NotifyZset, zpopEvent(max), key)
	// ZMPOP and BZMPOP, as Redis propagates them.
	propagateCount(c, zpopWord(max), key, k)
}
