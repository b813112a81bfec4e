package main

import "strconv"

// diffBlockingCommands are TestRandomDiff's blocking commands. The stream
// has one client at a time, so a command that finds its keys empty waits
// out a short timeout (or gets a timeout's error); never 0, which would
// wait for ever. Their arguments are generated whole, not mutated.
func diffBlockingCommands() []diffCommand {
	return []diffCommand{
		{6, func(g *diffGen) *diffStep {
			args := []string{g.pick("BLPOP", "BRPOP", "BZPOPMIN", "BZPOPMAX")}
			for range 1 + g.r.Intn(3) {
				args = append(args, g.listKey())
			}
			return diffS(append(args, g.blockTimeout())...)
		}, true},
		{4, func(g *diffGen) *diffStep {
			if g.chance(3) {
				return diffS("BRPOPLPUSH", g.listKey(), g.listKey(), g.blockTimeout())
			}
			return diffS("BLMOVE", g.listKey(), g.listKey(), g.pick("LEFT", "RIGHT", "UP"), g.pick("LEFT", "RIGHT"), g.blockTimeout())
		}, true},
		{4, func(g *diffGen) *diffStep {
			n := 1 + g.r.Intn(3)
			args := []string{g.pick("BLMPOP", "BZMPOP"), g.blockTimeout(), g.pick(strconv.Itoa(n), strconv.Itoa(n), "0", "abc")}
			for range n {
				args = append(args, g.listKey())
			}
			args = append(args, g.pick("LEFT", "RIGHT", "MIN", "MAX"))
			return diffS(append(args, g.opts([]string{"COUNT", g.pick("1", "2", "10", "0", "abc")})...)...)
		}, true},
	}
}

// blockTimeout is a blocking command's timeout: short, or one Redis
// refuses.
func (g *diffGen) blockTimeout() string {
	if g.chance(10) {
		return g.pick("-1", "abc", "1e20", "nan", "", "1e400", "1e-5000")
	}
	return g.pick("0.01", "0.001", "0.02")
}
