package main

import (
	"strconv"
	"strings"
)

// diffZSetCommands are TestRandomDiff's sorted-set commands. Commands over
// two keys take keys of one hash tag, which corekv keeps on one shard.
func diffZSetCommands() []diffCommand {
	return []diffCommand{
		{35, func(g *diffGen) *diffStep {
			args := diffJ([]string{"ZADD", g.zsetKey()}, g.opts([]string{g.pick("NX", "XX")}, []string{g.pick("GT", "LT")},
				[]string{"CH"}, []string{"INCR"}))
			for n := 1 + g.r.Intn(4); n > 0; n-- {
				args = append(args, g.score(), g.zmember())
			}
			if g.chance(10) {
				args = args[:len(args)-1] // an odd argument count
			}
			return diffS(args...)
		}, false},
		{10, func(g *diffGen) *diffStep { return diffS("ZINCRBY", g.zsetKey(), g.score(), g.zmember()) }, false},
		{12, func(g *diffGen) *diffStep {
			args := []string{"ZREM", g.zsetKey()}
			for n := 1 + g.r.Intn(3); n > 0; n-- {
				args = append(args, g.zmember())
			}
			return diffS(args...)
		}, false},
		{8, func(g *diffGen) *diffStep { return diffS("ZCARD", g.zsetKey()) }, false},
		{12, func(g *diffGen) *diffStep {
			return diffS(g.pick("ZSCORE", "ZRANK", "ZREVRANK"), g.zsetKey(), g.zmember())
		}, false},
		{6, func(g *diffGen) *diffStep {
			return diffS("ZMSCORE", g.zsetKey(), g.zmember(), g.zmember())
		}, false},
		{10, func(g *diffGen) *diffStep {
			return diffS(g.pick("ZCOUNT", "ZREMRANGEBYSCORE"), g.zsetKey(), g.scoreEnd(), g.scoreEnd())
		}, false},
		{8, func(g *diffGen) *diffStep {
			return diffS(g.pick("ZLEXCOUNT", "ZREMRANGEBYLEX"), g.zsetKey(), g.lexEnd(), g.lexEnd())
		}, false},
		{6, func(g *diffGen) *diffStep {
			return diffS("ZREMRANGEBYRANK", g.zsetKey(), g.rank(), g.rank())
		}, false},
		{20, func(g *diffGen) *diffStep {
			name := g.pick("ZRANGE", "ZRANGE", "ZREVRANGE", "ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGEBYLEX")
			return g.zrange([]string{name, g.zsetKey()})
		}, false},
		{6, func(g *diffGen) *diffStep {
			// Fixed: a mutation could move a key to another shard. Keys
			// of one hash tag, or any (gathered from their shards).
			return g.zrange([]string{"ZRANGESTORE", g.zsetKey(), g.zsetKey()})
		}, true},
		{8, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{g.pick("ZPOPMIN", "ZPOPMAX"), g.zsetKey()},
				g.opts([]string{g.pick("0", "1", "2", "5", "1000", "-1", "abc")}, []string{"x"}))...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			// Fixed: a mutation could move a key to another shard.
			name := g.pick("ZUNION", "ZINTER", "ZDIFF", "ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZINTERCARD", "ZMPOP")
			args := []string{name}
			key := g.tagKey
			if g.chance(2) {
				key = g.zsetKey
			}
			if strings.HasSuffix(name, "STORE") {
				args = append(args, key())
			}
			n := 1 + g.r.Intn(3)
			// A count past the keys would make option words keys, which
			// corekv may find on other shards.
			args = append(args, g.pick(strconv.Itoa(n), strconv.Itoa(n), "0", "x", "-1"))
			for range n {
				args = append(args, key())
			}
			switch name {
			case "ZINTERCARD":
				return diffS(diffJ(args, g.opts([]string{"LIMIT", g.pick("0", "1", "-1", "x")}))...)
			case "ZMPOP":
				args = append(args, g.pick("MIN", "MAX", "max", "foo"))
				return diffS(diffJ(args, g.opts([]string{"COUNT", g.pick("1", "2", "10", "0", "x")}))...)
			}
			weights := []string{"WEIGHTS"}
			for range n {
				weights = append(weights, g.pick("1", "2", "-1", "0", "inf", "x"))
			}
			return diffS(diffJ(args, g.opts(weights, []string{"AGGREGATE", g.pick("SUM", "min", "MAX", "foo")}, []string{"WITHSCORES"}))...)
		}, true},
		{5, func(g *diffGen) *diffStep {
			args := []string{"ZRANDMEMBER", g.zsetKey()}
			if !g.chance(4) {
				args = append(args, g.pick("0", "1", "2", "10", "-1", "-3", "abc", "", "9223372036854775807", "-9223372036854775808"))
				args = append(args, g.opts([]string{g.pick("WITHSCORES", "x")})...)
			}
			return diffM(diffShape, args...)
		}, true},
		{4, func(g *diffGen) *diffStep {
			if g.chance(2) {
				cursor := g.pick("abc", "1.5", "18446744073709551616", " 1")
				return diffS(diffJ([]string{"ZSCAN", g.zsetKey(), cursor}, g.hscanOpts())...)
			}
			return diffM(diffHScanPage, diffJ([]string{"ZSCAN", g.zsetKey(), "0"}, g.hscanOpts())...)
		}, true},
	}
}

// zrange completes a ZRANGE-family command: ends of a kind chosen at
// random, and options.
func (g *diffGen) zrange(args []string) *diffStep {
	switch by := g.r.Intn(3); {
	case by == 0:
		args = append(args, g.rank(), g.rank())
	case by == 1:
		args = append(args, g.scoreEnd(), g.scoreEnd())
	default:
		args = append(args, g.lexEnd(), g.lexEnd())
	}
	return diffS(diffJ(args, g.opts([]string{g.pick("BYSCORE", "BYLEX", "byscore")}, []string{"REV"},
		[]string{"LIMIT", g.rank(), g.rank()}, []string{"WITHSCORES"}, []string{g.pick("FOO", "LIMIT", "rev")}))...)
}

// zsetKey is a key for a sorted-set command: often one of a hash tag's
// keys, so that ZRANGESTORE finds sorted sets there.
func (g *diffGen) zsetKey() string { return g.setKey() }

// zmember is a sorted-set member: a few names often, sometimes any value
// (long ones convert the sorted set).
func (g *diffGen) zmember() string {
	if g.chance(8) {
		return g.val()
	}
	return g.pick("a", "b", "c", "d", "e", "", "\x00", "aa", "b\r\n")
}

// score is a score: small numbers often, so that members tie and order by
// name, and sometimes any float text.
func (g *diffGen) score() string {
	if g.chance(3) {
		return g.float()
	}
	return g.pick("0", "1", "2", "3", "1.5", "-1", "10")
}

func (g *diffGen) scoreEnd() string {
	s := g.score()
	if g.chance(3) {
		s = "(" + s
	}
	if g.chance(6) {
		s = g.pick("-inf", "+inf", "(inf", "(-inf", "x", "(")
	}
	return s
}

func (g *diffGen) lexEnd() string {
	if g.chance(4) {
		return g.pick("-", "+", "a", "", "(", "[")
	}
	return g.pick("[", "(") + g.zmember()
}

func (g *diffGen) rank() string {
	return g.pick("0", "1", "2", "-1", "-2", "5", "100", "-100", "x")
}
