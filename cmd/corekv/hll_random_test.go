package main

import "strconv"

// diffHLLCommands are TestRandomDiff's HyperLogLog commands: PFADD of a few
// elements at a time keeps most values sparse, a burst makes some dense;
// GET, SETRANGE and APPEND elsewhere in the stream read and corrupt them.
func diffHLLCommands() []diffCommand {
	return []diffCommand{
		{25, func(g *diffGen) *diffStep {
			args := []string{"PFADD", g.key()}
			n := g.r.Intn(6)
			if g.chance(20) {
				n = 1500 + g.r.Intn(1500)
			}
			for ; n > 0; n-- {
				args = append(args, "e"+strconv.Itoa(g.r.Intn(4000)))
			}
			return diffS(args...)
		}, true},
		{15, func(g *diffGen) *diffStep { return diffS(append([]string{"PFCOUNT"}, g.keys(1, 3)...)...) }, false},
		{8, func(g *diffGen) *diffStep { return diffS(append([]string{"PFMERGE"}, g.keys(1, 3)...)...) }, false},
		{4, func(g *diffGen) *diffStep {
			return diffS("PFDEBUG", g.pick("encoding", "todense", "decode", "getreg", "foo"), g.key())
		}, false},
		{2, func(g *diffGen) *diffStep { return diffS("PFSELFTEST") }, false},
	}
}
