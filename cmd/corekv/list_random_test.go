package main

import "strconv"

// diffListCommands are TestRandomDiff's list commands. LMOVE, RPOPLPUSH
// and LMPOP take keys of one hash tag, on one shard, or any keys, which
// corekv gathers from their shards; they are not mutated.
func diffListCommands() []diffCommand {
	return []diffCommand{
		{35, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{g.pick("LPUSH", "RPUSH", "LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), g.listKey()}, g.elems(1, 6))...)
		}, false},
		{20, func(g *diffGen) *diffStep {
			args := []string{g.pick("LPOP", "RPOP"), g.listKey()}
			if g.chance(2) {
				args = append(args, g.pick("0", "1", "2", "5", "100", "-1", "abc", "", "9223372036854775807"))
			}
			return diffS(append(args, g.opts([]string{"x"})...)...)
		}, false},
		{10, func(g *diffGen) *diffStep { return diffS("LLEN", g.listKey()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("LRANGE", g.listKey(), g.listIndex(), g.listIndex()) }, false},
		{10, func(g *diffGen) *diffStep { return diffS("LINDEX", g.listKey(), g.listIndex()) }, false},
		{8, func(g *diffGen) *diffStep { return diffS("LSET", g.listKey(), g.listIndex(), g.elem()) }, false},
		{8, func(g *diffGen) *diffStep {
			return diffS("LINSERT", g.listKey(), g.pick("BEFORE", "AFTER", "after", "FOO"), g.elem(), g.elem())
		}, false},
		{8, func(g *diffGen) *diffStep {
			return diffS("LREM", g.listKey(), g.pick("0", "1", "2", "-1", "-2", "100", "abc"), g.elem())
		}, false},
		{6, func(g *diffGen) *diffStep { return diffS("LTRIM", g.listKey(), g.listIndex(), g.listIndex()) }, false},
		{10, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"LPOS", g.listKey(), g.elem()},
				g.opts([]string{"RANK", g.pick("1", "2", "-1", "-3", "0", "abc", "-9223372036854775808", "9223372036854775807")},
					[]string{"COUNT", g.pick("0", "1", "2", "-1", "abc")}, []string{"MAXLEN", g.pick("0", "1", "3", "-1", "abc")},
					[]string{g.pick("FOO", "RANK")}))...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			if g.chance(3) {
				return diffS("RPOPLPUSH", g.listKey(), g.listKey())
			}
			return diffS("LMOVE", g.listKey(), g.listKey(), g.pick("LEFT", "RIGHT", "left", "UP"), g.pick("LEFT", "RIGHT", "right"))
		}, true},
		{8, func(g *diffGen) *diffStep {
			n := 1 + g.r.Intn(3)
			args := []string{"LMPOP", g.pick(strconv.Itoa(n), strconv.Itoa(n), strconv.Itoa(n), "0", "-1", "abc", strconv.Itoa(n+1))}
			for range n {
				args = append(args, g.listKey())
			}
			args = append(args, g.pick("LEFT", "RIGHT", "right", "MIDDLE"))
			return diffS(append(args, g.opts([]string{"COUNT", g.pick("1", "2", "10", "0", "-1", "abc")}, []string{"x"})...)...)
		}, true},
	}
}

// listKey is a key for a list command: often one of a hash tag's keys, so
// that LMOVE and LMPOP find lists there.
func (g *diffGen) listKey() string { return g.setKey() }

// elem is a list element: a few short ones often, so that LPOS, LREM and
// LINSERT find them, sometimes any value.
func (g *diffGen) elem() string {
	if g.chance(6) {
		return g.val()
	}
	return g.pick("a", "b", "c", "1", "", "\x00", "a\r\nb")
}

func (g *diffGen) elems(min, max int) []string {
	out := make([]string, min+g.r.Intn(max-min+1))
	for i := range out {
		out[i] = g.elem()
	}
	return out
}

func (g *diffGen) listIndex() string {
	return g.pick("0", "1", "2", "3", "5", "-1", "-2", "-4", "10", "-100", "100", "abc", "9223372036854775807", "-9223372036854775808")
}
