package main

// diffSortCommands are TestRandomDiff's SORT and SORT_RO commands, and the
// writes of the keys their BY and GET patterns name ({t}w_<element>, a
// string; {t}h_<element>, a hash). Patterns go with keys of the {t} hash
// tag, which corekv keeps on one shard.
//
// What the stream leaves out, and why:
//   - numeric sorts by the elements themselves: Redis never clears errno
//     before SORT's strtod, so an out-of-range value read by an earlier
//     command makes it refuse later sorts of non-integer elements. Numeric
//     sorts here go BY keys that hold integers, which Redis never parses
//     (TestSortCompatWithRedis and the unit tests cover element scores);
//   - the order of elements ALPHA finds equal (strcoll stops at a NUL):
//     Redis leaves them in its set's or sorted set's own order. ALPHA
//     without STORE is compared as a set of replies; with STORE, which
//     compares every byte, the list it stores is compared exactly.
//   - ALPHA BY with STORE or LIMIT, for the same reason (missing keys tie).
func diffSortCommands() []diffCommand {
	return []diffCommand{
		{8, func(g *diffGen) *diffStep {
			return diffS("SET", "{t}w_"+g.sortElem(), g.pick("0", "1", "2", "3", "-7", "10", "12", "-1", "9223372036854775807"))
		}, false},
		{6, func(g *diffGen) *diffStep {
			if g.chance(2) {
				return diffS("HSET", "{t}h_"+g.sortElem(), "g", g.pick("0", "5", "-3", "11"))
			}
			return diffS("HSET", "{t}h_"+g.sortElem(), "f", g.pick("x", "", "b", "\x00", "5", "B"))
		}, false},
		{20, func(g *diffGen) *diffStep { return g.sortCommand() }, true},
	}
}

// sortElem is an element of a list, set or sorted set of the other streams.
func (g *diffGen) sortElem() string {
	switch g.r.Intn(3) {
	case 0:
		return g.elem()
	case 1:
		return g.member()
	}
	return g.zmember()
}

// sortCommand is one SORT or SORT_RO: ALPHA, BY a key's integers, BY
// nosort, or a bad option, with LIMIT, GET, DESC and STORE drawn around it.
func (g *diffGen) sortCommand() *diffStep {
	name := g.pick("SORT", "SORT", "SORT_RO")
	store := name == "SORT" && g.chance(3)
	mode := compatExact
	var opts [][]string
	var key string
	switch g.r.Intn(5) {
	case 0, 1: // ALPHA, perhaps with GET patterns
		key = g.setKey()
		opts = append(opts, []string{"ALPHA"})
		if g.chance(2) {
			key = g.tagKey()
			opts = append(opts, g.sortGets()...)
		}
		if !store {
			mode = compatUnordered
		}
	case 2: // BY a key of integers, numerically
		key = g.tagKey()
		opts = append(opts, []string{"BY", g.pick("{t}w_*", "{t}h_*->g", "{t}w_*", "{t}x_*")})
		opts = append(opts, g.sortGets()...)
	case 3: // BY nosort: a list or sorted set keeps its order
		key = g.setKey()
		opts = append(opts, []string{"BY", g.pick("nosort", "{t}const")})
		if g.chance(2) {
			key = g.tagKey()
			opts = append(opts, g.sortGets()...)
		}
		if !store {
			mode = compatUnordered // a set: in its own order
		}
	default: // ALPHA BY, or an option Redis refuses
		key = g.tagKey()
		if g.chance(2) {
			store = false
			opts = append(opts, []string{"ALPHA"}, []string{"BY", g.pick("{t}h_*->f", "{t}w_*")})
			mode = compatUnordered
		} else {
			bad := g.pick("LIMIT", "LIMIT 1", "FOO", "BY", "GET", "STORE", "ASC")
			opts = append(opts, []string{bad})
			if bad == "BY" {
				// A DESC drawn after it becomes BY desc, a pattern without
				// a star: no sorting, and a set comes in its own order.
				mode = compatUnordered
			}
			if g.chance(2) {
				opts = append(opts, []string{"LIMIT", g.pick("x", "1.5", "", "99999999999999999999"), "1"})
			}
			store = false
		}
	}
	if g.chance(3) {
		opts = append(opts, []string{g.pick("DESC", "ASC", "desc")})
	}
	if g.chance(3) && mode != compatUnordered {
		opts = append(opts, []string{"LIMIT", g.pick("0", "1", "3", "-1", "100", "-9223372036854775808", "9223372036854775807"),
			g.pick("0", "1", "2", "5", "-1", "9223372036854775807")})
	}
	if store {
		dst := g.tagKey()
		if g.chance(3) && !diffHasPattern(opts) {
			dst = g.key() // gathered from its shard
		}
		opts = append(opts, []string{"STORE", dst})
	}
	g.r.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
	args := []string{name, key}
	for _, o := range opts {
		for _, a := range o {
			args = append(args, splitOpt(a)...)
		}
	}
	return diffM(mode, args...)
}

// sortGets is zero to three GET options.
func (g *diffGen) sortGets() [][]string {
	var out [][]string
	for n := g.r.Intn(4); n > 0; n-- {
		out = append(out, []string{"GET", g.pick("#", "{t}w_*", "{t}h_*->f", "{t}h_*->g", "{t}h_*->", "{t}nostar")})
	}
	return out
}

// diffHasPattern reports whether opts name keys through a pattern.
func diffHasPattern(opts [][]string) bool {
	for _, o := range opts {
		if len(o) == 2 && (o[0] == "GET" || o[0] == "BY") && o[1] != "#" && o[1] != "nosort" {
			return true
		}
	}
	return false
}

// splitOpt splits "LIMIT 1" into its words; other options are one word.
func splitOpt(a string) []string {
	if a == "LIMIT 1" {
		return []string{"LIMIT", "1"}
	}
	return []string{a}
}
