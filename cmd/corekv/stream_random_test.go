package main

import (
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/corekv/corekv/router"
)

// diffStreamCommands are TestRandomDiff's stream commands: XADD, XLEN,
// XRANGE, XREVRANGE, XDEL, XTRIM and XSETID, and the key commands on
// streams (TYPE, OBJECT ENCODING, EXISTS, DEL, RENAME, COPY, MOVE, DUMP and
// RESTORE, expiry), the wrong-type errors both ways, and bursts of XADD that
// fill streams past a node (100 entries, 4096 bytes) so that the "~" trims
// have whole nodes to drop. Most commands go to the keys of the {s} hash
// tag ({s}1, {s}2, {s}3, and {s}g, where the group commands keep their
// groups), which only this table writes and corekv keeps on one shard; some
// go to the {t} keys and the other tables' keys, where lists, sets and
// strings live.
//
// Every ID is explicit (ms-seq, ms, ms-*), drawn near a per-key counter of
// the ms reached (diffStreamTops), so that both servers make the same IDs:
// most are accepted, some are equal to or below the stream's top, some are
// 0-0, the largest ID or no ID at all. An automatic ID ("*") is the time on
// the server's clock; it is sent only to {s}far, whose IDs all lie centuries
// ahead (then "*" is the last ID's sequence plus one) and only with
// NOMKSTREAM (a missing key stays missing). No ID with the largest sequence
// is made under a smaller ms: after one, Redis 7.0's "ms-*" on that ms
// answers with a stale errno's error.
//
// The table is registered only when corekv's command table has the stream
// commands (diffStreamsOn); COREKV_DIFF_STREAMS=1 registers it before then,
// COREKV_DIFF_STREAMS=0 leaves it out.
func diffStreamCommands() []diffCommand {
	if !diffStreamsOn("XADD", "XLEN", "XRANGE", "XREVRANGE", "XDEL", "XTRIM", "XSETID") {
		return nil
	}
	return []diffCommand{
		{70, func(g *diffGen) *diffStep {
			key := g.streamKey()
			args := diffJ([]string{"XADD", key}, g.streamAddOpts(key), []string{g.streamAddID(key)}, g.streamFields())
			return diffS(args...)
		}, false},
		{5, func(g *diffGen) *diffStep { return g.streamBurst() }, true},
		{8, func(g *diffGen) *diffStep { return g.streamFar() }, true},
		{10, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"XLEN", g.streamKey()}, g.junk([]string{"x"}))...)
		}, false},
		{30, func(g *diffGen) *diffStep {
			key := g.streamKey()
			start, end := g.streamRange(key)
			args := []string{"XRANGE", key, start, end}
			if g.chance(2) {
				args = []string{"XREVRANGE", key, end, start}
			}
			if g.chance(2) {
				args = append(args, g.pick("COUNT", "COUNT", "count"), g.streamCount())
			}
			if g.chance(8) {
				args = append(args, g.opts([]string{"COUNT", g.streamCount()}, []string{g.pick("COUNT", "FOO", "LIMIT")})...)
			}
			return diffS(args...)
		}, false},
		{14, func(g *diffGen) *diffStep {
			key := g.streamKey()
			args := []string{"XDEL", key}
			for n := 1 + g.r.Intn(4); n > 0; n-- {
				args = append(args, g.streamOldID(key))
			}
			if g.chance(3) {
				args = append(args, args[2]) // the same ID twice
			}
			return diffS(args...)
		}, false},
		{14, func(g *diffGen) *diffStep {
			key := g.streamKey()
			var args []string
			switch g.r.Intn(8) {
			case 0:
				// No strategy, two strategies, LIMIT alone, a stray word.
				args = g.opts(g.streamTrim(key), []string{g.pick("LIMIT", "limit"), g.streamLimit()}, []string{g.pick("FOO", "NOMKSTREAM", "=", "~")})
			default:
				args = g.streamTrim(key)
			}
			return diffS(diffJ([]string{"XTRIM", key}, args)...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			key := g.streamKey()
			args := []string{"XSETID", key, g.streamSetID(key)}
			if g.chance(3) {
				args = append(args, g.pick("ENTRIESADDED", "entriesadded"), g.pick("0", "1", "3", "10", "100", "1000", "-1", "abc", "",
					"9223372036854775807", "18446744073709551615"))
			}
			if g.chance(3) {
				args = append(args, g.pick("MAXDELETEDID", "maxdeletedid"), g.streamOldID(key))
			}
			return diffS(diffJ(args, g.junk([]string{g.pick("FOO", "ENTRIESADDED", "MAXDELETEDID")}))...)
		}, false},

		// The key commands on streams.
		{12, func(g *diffGen) *diffStep {
			key := g.streamKey()
			switch g.r.Intn(6) {
			case 0:
				return diffS("OBJECT", g.pick("ENCODING", "encoding", "REFCOUNT", "FREQ"), key)
			case 1:
				return diffS(diffJ([]string{g.pick("EXISTS", "TOUCH")}, []string{key, g.streamKey(), g.streamTagKey()})...)
			case 2:
				return diffM(diffShape, "MEMORY", "USAGE", key)
			case 3:
				return diffM(diffShape, "OBJECT", "IDLETIME", key)
			}
			return diffS("TYPE", key)
		}, false},
		{6, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{g.pick("DEL", "UNLINK")}, []string{g.streamKey()}, g.opts([]string{g.streamTagKey()}))...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			// Keys of one hash tag, or any (moved between shards).
			from, to := g.streamTagKey(), g.streamTagKey()
			if g.chance(4) {
				from, to = g.streamKey(), g.streamKey()
			}
			switch g.r.Intn(4) {
			case 0:
				return diffS("RENAMENX", from, to)
			case 1:
				return diffS(diffJ([]string{"COPY", from, to}, g.opts([]string{"REPLACE"}, []string{"DB", g.db()}, []string{"replace"}))...)
			case 2:
				return diffS("MOVE", from, g.db())
			}
			return diffS("RENAME", from, to)
		}, false},
		{6, func(g *diffGen) *diffStep {
			key := g.streamKey()
			switch g.r.Intn(6) {
			case 0:
				return diffS(diffJ([]string{"EXPIRE", key, g.ttl()}, g.expireOpt())...)
			case 1:
				return diffS("PERSIST", key)
			case 2:
				return diffT(2000, "PTTL", key)
			case 3:
				return diffS("EXPIRE", key, g.pick("0", "-1")) // gone at once
			}
			return diffT(2, "TTL", key)
		}, false},
		{4, func(g *diffGen) *diffStep { return diffM(diffShape, "DUMP", g.streamKey()) }, false},
		{8, func(g *diffGen) *diffStep {
			opts := g.opts([]string{"REPLACE"}, []string{"REPLACE"}, []string{"IDLETIME", g.pick("0", "10", "-1", "x")},
				[]string{"FREQ", g.pick("0", "255", "x")}, []string{g.pick("ABSTTL", "BOGUS")})
			return diffS(diffJ([]string{"RESTORE", g.streamKey(), g.pick("0", "0", "0", g.pttl()), g.pick(diffStreamPayloads...)}, opts)...)
		}, false},
		{6, func(g *diffGen) *diffStep {
			// Each server's own DUMP, restored by the same server; the
			// payloads may differ, what RESTORE makes of them may not.
			opts := [][]string{{"REPLACE"}, {"REPLACE"}, {}, {"REPLACE", "IDLETIME", "10"}}[g.r.Intn(4)]
			return diffS(diffJ([]string{"EVAL", diffStreamRoundTrip, "2", g.streamTagKey(), g.streamTagKey()}, opts)...)
		}, true},

		// Wrong types, both ways: other types' commands on {s} keys (which
		// may create those types there; SET replaces a stream), and stream
		// commands on the other tables' keys come from streamKey.
		{8, func(g *diffGen) *diffStep {
			key := g.streamTagKey()
			cmds := [][]string{{"GET", key}, {"STRLEN", key}, {"GETRANGE", key, "0", "1"}, {"GETDEL", key}, {"BITCOUNT", key},
				{"RPOP", key}, {"LLEN", key}, {"LRANGE", key, "0", "-1"}, {"HGET", key, "f"}, {"HGETALL", key}, {"SCARD", key},
				{"SMEMBERS", key}, {"ZCARD", key}, {"ZRANGE", key, "0", "-1"}, {"PFCOUNT", key}, {"SORT", key}, {"LPOS", key, "a"},
				{"GETEX", key}, {"SET", key, "v", "GET", "XX"}, {"HLEN", key}, {"SISMEMBER", key, "a"}, {"ZSCORE", key, "a"}}
			return diffS(cmds[g.r.Intn(len(cmds))]...)
		}, false},
		{3, func(g *diffGen) *diffStep {
			// These make their type on a missing key.
			key := g.streamTagKey()
			cmds := [][]string{{"APPEND", key, "x"}, {"INCR", key}, {"SETRANGE", key, "0", "x"}, {"SETBIT", key, "1", "1"},
				{"LPUSH", key, "a"}, {"HSET", key, "f", "v"}, {"SADD", key, "a"}, {"ZADD", key, "1", "a"}, {"PFADD", key, "a"},
				{"SET", key, g.val()}, {"GETSET", key, "v"}}
			return diffS(cmds[g.r.Intn(len(cmds))]...)
		}, false},
	}
}

// diffStreamGroupCommands are the consumer-group, XREAD and XINFO commands:
// XGROUP's subcommands, XREADGROUP and XREAD without BLOCK, XACK, XPENDING,
// XCLAIM, XAUTOCLAIM, XINFO STREAM, GROUPS and CONSUMERS (registered, as
// diffStreamCommands, when corekv's table has them).
//
// Delivery times and consumers' seen times are each server's clock, so
// what shows them is compared with them masked: XINFO STREAM (FULL),
// XINFO CONSUMERS and the extended XPENDING run in a script that zeroes
// those fields (and XINFO STREAM's radix-tree-keys and radix-tree-nodes,
// which count Redis's radix tree), beside the plain commands compared by
// shape. The idle times that decide what XCLAIM, XAUTOCLAIM and XPENDING
// IDLE take are 0 or at least 60,000,000 ms, and the delivery times XCLAIM
// sets are now or more than that in the past: an entry delivered during the
// run is never that old, so both servers take the same entries.
func diffStreamGroupCommands() []diffCommand {
	if !diffStreamsOn("XGROUP", "XREADGROUP", "XREAD", "XACK", "XPENDING", "XCLAIM", "XAUTOCLAIM", "XINFO") {
		return nil
	}
	return []diffCommand{
		{24, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			args := []string{"XGROUP", g.pick("CREATE", "CREATE", "create"), key, g.streamGroup(), g.streamGroupID(key)}
			if g.chance(2) {
				args = append(args, g.pick("MKSTREAM", "mkstream"))
			}
			if g.chance(4) {
				args = append(args, "ENTRIESREAD", g.streamEntriesRead())
			}
			return diffS(diffJ(args, g.junk([]string{g.pick("FOO", "NOACK", "MKSTREAM")}, []string{"ENTRIESREAD"}))...)
		}, false},
		{6, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			args := []string{"XGROUP", g.pick("SETID", "setid"), key, g.streamGroup(), g.streamGroupID(key)}
			if g.chance(3) {
				args = append(args, "ENTRIESREAD", g.streamEntriesRead())
			}
			return diffS(diffJ(args, g.junk([]string{g.pick("MKSTREAM", "FOO")}))...)
		}, false},
		{8, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			switch g.r.Intn(6) {
			case 0, 1:
				return diffS("XGROUP", "CREATECONSUMER", key, g.streamGroup(), g.streamConsumer())
			case 2:
				return diffS("XGROUP", g.pick("DELCONSUMER", "delconsumer"), key, g.streamGroup(), g.streamConsumer())
			case 3:
				return diffS("XGROUP", "DESTROY", key, g.streamGroup())
			case 4:
				return diffS(diffJ([]string{"XGROUP"}, g.opts([]string{g.pick("HELP", "FOO", "CREATE", "DESTROY", "SETID")}, []string{key}, []string{"g1"}))...)
			}
			return diffM(diffKind, "XGROUP", "HELP")
		}, false},
		{20, func(g *diffGen) *diffStep {
			args := []string{"XREADGROUP"}
			opts := [][]string{{g.pick("GROUP", "group"), g.streamGroup(), g.streamConsumer()}, {"COUNT", g.streamCount()}, {g.pick("NOACK", "noack")}}
			args = append(args, opts[0]...)
			args = append(args, g.opts(opts[1:]...)...)
			if g.chance(10) {
				args = diffJ([]string{"XREADGROUP"}, g.opts(opts...)) // no GROUP, or twice
			}
			keys, ids := g.streamReadKeys(), []string{}
			for _, k := range keys {
				if g.chance(4) {
					ids = append(ids, g.pick("0", "0-0", "$", g.streamOldID(k)))
				} else {
					ids = append(ids, ">")
				}
			}
			return diffS(diffJ(args, []string{g.pick("STREAMS", "STREAMS", "streams")}, keys, g.streamUnbalance(ids))...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			keys, ids := g.streamReadKeys(), []string{}
			for _, k := range keys {
				ids = append(ids, g.pick("0", "0-0", "$", ">", "+", g.streamOldID(k), g.streamOldID(k)))
			}
			args := diffJ([]string{"XREAD"}, g.opts([]string{"COUNT", g.streamCount()}, []string{g.pick("NOACK", "GROUP", "FOO")}))
			return diffS(diffJ(args, []string{g.pick("STREAMS", "streams")}, keys, g.streamUnbalance(ids))...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			args := []string{"XACK", key, g.streamGroup()}
			for n := 1 + g.r.Intn(3); n > 0; n-- {
				args = append(args, g.streamOldID(key))
			}
			return diffS(args...)
		}, false},
		{10, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			if g.chance(2) {
				return diffS(diffJ([]string{"XPENDING", key, g.streamGroup()}, g.junk([]string{"x"}))...)
			}
			args := g.streamPendingArgs(key)
			if g.chance(3) {
				return diffM(diffShape, diffJ([]string{"XPENDING", key}, args)...)
			}
			return diffS(diffJ([]string{"EVAL", diffStreamPendingMasked, "1", key}, args)...)
		}, true},
		{10, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			args := []string{"XCLAIM", key, g.streamGroup(), g.streamConsumer(), g.streamMinIdle()}
			for n := 1 + g.r.Intn(3); n > 0; n-- {
				args = append(args, g.streamOldID(key))
			}
			args = append(args, g.opts([]string{"IDLE", g.pick("0", "1000000000000", "-5", "x")},
				[]string{"TIME", g.pick("0", "1", "4102444800000", "-1", "x")}, []string{"RETRYCOUNT", g.pick("0", "3", "-1", "x")},
				[]string{g.pick("FORCE", "force")}, []string{g.pick("JUSTID", "justid")}, []string{"LASTID", g.streamOldID(key)})...)
			return diffS(diffJ(args, g.junk([]string{"FOO"}))...)
		}, false},
		{8, func(g *diffGen) *diffStep {
			// Fixed: a huge COUNT makes Redis allocate COUNT IDs up front.
			key := g.streamGroupKey()
			args := []string{"XAUTOCLAIM", key, g.streamGroup(), g.streamConsumer(), g.streamMinIdle(), g.pick("0", "0-0", "-", g.streamOldID(key), "(0", "+")}
			args = append(args, g.opts([]string{"COUNT", g.pick("1", "2", "10", "0", "-1", "x")}, []string{g.pick("JUSTID", "justid")})...)
			return diffS(diffJ(args, g.junk([]string{"FOO"}, []string{"COUNT"}))...)
		}, true},
		{14, func(g *diffGen) *diffStep {
			key := g.streamGroupKey()
			switch g.r.Intn(8) {
			case 0:
				return diffM(diffShape, diffJ([]string{"XINFO", "STREAM", key}, g.streamInfoOpts())...)
			case 1:
				return diffM(diffShape, "XINFO", "CONSUMERS", key, g.streamGroup())
			case 2:
				return diffS(diffJ([]string{"EVAL", diffStreamInfoMasked, "1", key, "CONSUMERS"}, []string{g.streamGroup()}, g.junk([]string{"x"}))...)
			case 3:
				return diffS(diffJ([]string{"XINFO", "GROUPS", key}, g.junk([]string{"x"}))...)
			case 4:
				// XINFO's errors: missing arguments, unknown subcommands.
				return diffS(diffJ([]string{"XINFO"}, g.opts([]string{g.pick("STREAM", "GROUPS", "CONSUMERS", "FOO", "HELP", "stream")}, []string{key}))...)
			case 5:
				return diffM(diffKind, "XINFO", "HELP")
			}
			return diffS(diffJ([]string{"EVAL", diffStreamInfoMasked, "1", key, "STREAM"}, g.streamInfoOpts())...)
		}, true},
		{4, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"RESTORE", g.streamKey(), "0", diffStreamGroupPayload}, g.opts([]string{"REPLACE"}))...)
		}, false},
	}
}

// diffStreamsOn reports whether corekv's command table has the commands
// (so the binary the tests build serves them), or what COREKV_DIFF_STREAMS
// says: 1 for on, 0 for off.
func diffStreamsOn(names ...string) bool {
	switch os.Getenv("COREKV_DIFF_STREAMS") {
	case "1":
		return true
	case "0":
		return false
	}
	for _, n := range names {
		if router.LookupString(n) == nil {
			return false
		}
	}
	return true
}

// diffStreamTops holds, per generator, the ms part each key's stream IDs
// have reached as far as the generator knows (it never sees a reply): most
// XADD and XSETID IDs are drawn at or just past it, and the ranges, XDEL and
// MINID around and below it.
var diffStreamTops = struct {
	sync.Mutex
	m map[*diffGen]map[string]uint64
}{m: map[*diffGen]map[string]uint64{}}

func (g *diffGen) streamTops() map[string]uint64 {
	diffStreamTops.Lock()
	defer diffStreamTops.Unlock()
	tops := diffStreamTops.m[g]
	if tops == nil {
		tops = map[string]uint64{}
		diffStreamTops.m[g] = tops
	}
	return tops
}

// diffMaxID is the largest stream ID.
const diffMaxID = "18446744073709551615-18446744073709551615"

// diffStreamFarMs is the ms of {s}far's IDs: the year 2286, past any clock.
const diffStreamFarMs = 10_000_000_000_000

// streamTagKey is a key of the {s} hash tag, which corekv keeps on one
// shard and only this table writes.
func (g *diffGen) streamTagKey() string { return g.pick("{s}1", "{s}2", "{s}3") }

// streamKey is a stream command's key: mostly an {s} key, sometimes {s}g
// (the groups' key), a key of the {t} tag or of the whole key space, where
// other types live.
func (g *diffGen) streamKey() string {
	switch g.r.Intn(8) {
	case 0:
		return g.tagKey()
	case 1:
		return g.key()
	case 2:
		return "{s}g"
	}
	return g.streamTagKey()
}

// streamIDForm writes an ID with that ms: ms alone (sequence 0, or any for
// a range's end), ms-seq with a small sequence, or for XADD ms-* (the
// stream's next sequence on that ms).
func (g *diffGen) streamIDForm(ms uint64, add bool) string {
	s := strconv.FormatUint(ms, 10)
	switch g.r.Intn(6) {
	case 0:
		return s
	case 1:
		if add {
			return s + "-*"
		}
	}
	return s + "-" + strconv.Itoa(g.r.Intn(4))
}

// streamBadID is an argument no ID parser takes, or one it takes in a way
// that is easy to get wrong (leading zeros, signs, 2^64).
func (g *diffGen) streamBadID() string {
	return g.pick("abc", "1-", "-1", "1-abc", "", " 1", "1 ", "1.5", "0x10", "18446744073709551616", "1-18446744073709551616",
		"-", "+", "(1", "$", ">", "1-2-3", "01-01", "*-1", "-0", "+1", "1-+1", "1e3", "\x00", "1-*-1", "**", "1--1", "*")
}

// streamAddID is XADD's ID for key.
func (g *diffGen) streamAddID(key string) string {
	tops := g.streamTops()
	top := tops[key]
	switch n := g.r.Intn(200); {
	case n < 130:
		ms := top + uint64(g.r.Intn(3))
		tops[key] = ms
		return g.streamIDForm(ms, true)
	case n < 160:
		return g.streamIDForm(top-min(top, uint64(g.r.Intn(4))), true)
	case n < 178:
		return g.pick("0-0", "0", "0-*", "0-1", "1", "1-*", "0-2")
	case n < 198:
		if s := g.streamBadID(); s != "*" {
			return s
		}
		return "abc"
	}
	// The end of the ID space: the stream is full after it.
	return g.pick(diffMaxID, "18446744073709551615", "18446744073709551615-*", "18446744073709551615-0")
}

// streamOldID is an ID at or below key's top, where entries may be (XDEL,
// MINID, MAXDELETEDID, XACK); or a bad one.
func (g *diffGen) streamOldID(key string) string {
	if g.chance(10) {
		if s := g.streamBadID(); s != "*" {
			return s
		}
		return g.pick("0-0", diffMaxID)
	}
	top := g.streamTops()[key]
	return g.streamIDForm(uint64(g.r.Int63n(int64(top)+2)), false)
}

// streamSetID is XSETID's ID: mostly at or past the top (which it moves),
// some below it.
func (g *diffGen) streamSetID(key string) string {
	tops := g.streamTops()
	top := tops[key]
	switch n := g.r.Intn(20); {
	case n < 12:
		ms := top + uint64(g.r.Intn(3))
		tops[key] = ms
		return g.streamIDForm(ms, false)
	case n < 16:
		return g.streamIDForm(top-min(top, uint64(g.r.Intn(4))), false)
	case n < 19:
		return g.pick(g.streamBadID(), "0-0", "0", "1-*")
	}
	return diffMaxID
}

// streamBound is one end of an XRANGE: - or +, an ID at or past the top,
// whole or partial, inclusive or exclusive, or an edge: exclusive ends at
// 0-0 and at the largest ID are errors.
func (g *diffGen) streamBound(key string) string {
	switch g.r.Intn(12) {
	case 0, 1, 2:
		return g.pick("-", "+")
	case 3:
		return g.pick("0", "0-0", "(0-0", diffMaxID, "("+diffMaxID, "18446744073709551615", "(18446744073709551615", "(0", "0-1", "(-", "(+")
	case 4:
		return g.pick(g.streamBadID(), "(", "((1", "(1-", "(abc")
	}
	top := g.streamTops()[key]
	s := g.streamIDForm(uint64(g.r.Int63n(int64(top)+3)), false)
	if g.chance(3) {
		s = "(" + s
	}
	return s
}

// streamRange is an XRANGE's start and end, in order more often than not.
func (g *diffGen) streamRange(key string) (string, string) {
	start, end := g.streamBound(key), g.streamBound(key)
	if g.chance(3) {
		start = "-"
	} else if g.chance(3) {
		end = "+"
	}
	return start, end
}

// streamCount is a COUNT: small mostly, 0 and negative ones, a few refused.
func (g *diffGen) streamCount() string {
	if g.chance(5) {
		return g.pick("abc", "", "1.5", "9223372036854775807", "9223372036854775808", "-9223372036854775808")
	}
	return g.pick("0", "1", "1", "2", "2", "3", "5", "10", "100", "-1", "-5")
}

// streamFields are an entry's field-value pairs: mostly the same few fields
// (which the node's master entry shares), integers (kept as integers in a
// node), duplicates, sometimes any value (long ones fill a node by bytes);
// now and then an odd count or none.
func (g *diffGen) streamFields() []string {
	n := 1 + g.r.Intn(2)
	if g.chance(4) {
		n += g.r.Intn(4)
	}
	var out []string
	for i := 0; i < n; i++ {
		f := g.pick("f", "f", "g", "h", "", "\x00", "a\r\nb", "1", "-5", "field-with-a-longer-name")
		if i == 0 && g.chance(2) {
			f = "f"
		}
		v := g.pick("v", "1", "0", "-1", "123456789012", "9223372036854775807", "", "x y", "1.5")
		if g.chance(5) {
			v = g.val()
			if v == "*" {
				v = "v"
			}
		}
		out = append(out, f, v)
	}
	switch g.r.Intn(40) {
	case 0:
		out = out[:len(out)-1]
	case 1:
		out = nil
	}
	return out
}

// streamMaxLen is a MAXLEN threshold: small mostly, near the lengths the
// bursts make, or refused.
func (g *diffGen) streamMaxLen() string {
	if g.chance(4) {
		return g.pick("50", "99", "100", "101", "150", "200", "-1", "abc", "", "1.5", "9223372036854775807", "9223372036854775808", "-0")
	}
	return strconv.Itoa(g.r.Intn(11))
}

func (g *diffGen) streamLimit() string {
	return g.pick("0", "1", "2", "5", "10", "100", "150", "-1", "abc", "")
}

// streamTrim is a trimming strategy: MAXLEN or MINID, exact (=, or
// nothing) or approximate (~), sometimes with a LIMIT (refused without ~).
func (g *diffGen) streamTrim(key string) []string {
	var out []string
	if g.chance(2) {
		out = append(out, g.pick("MAXLEN", "MAXLEN", "maxlen", "MaxLen"))
	} else {
		out = append(out, g.pick("MINID", "MINID", "minid"))
	}
	approx := false
	switch g.r.Intn(3) {
	case 0:
		out = append(out, "=")
	case 1:
		out, approx = append(out, "~"), true
	}
	if strings.EqualFold(out[0], "maxlen") {
		out = append(out, g.streamMaxLen())
	} else {
		out = append(out, g.streamOldID(key))
	}
	if (approx && g.chance(3)) || g.chance(12) {
		out = append(out, g.pick("LIMIT", "LIMIT", "limit"), g.streamLimit())
	}
	return out
}

// streamAddOpts are XADD's options before the ID: none mostly, else
// NOMKSTREAM and a trimming strategy in either order, and now and then a
// second strategy or a LIMIT of its own.
func (g *diffGen) streamAddOpts(key string) []string {
	if g.chance(2) {
		return nil
	}
	var parts [][]string
	if g.chance(3) {
		parts = append(parts, []string{g.pick("NOMKSTREAM", "nomkstream")})
	}
	if !g.chance(5) {
		parts = append(parts, g.streamTrim(key))
	}
	if g.chance(10) {
		parts = append(parts, g.pick2([]string{"LIMIT", g.streamLimit()}, g.streamTrim(key)))
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return diffJ(nil, parts...)
}

func (g *diffGen) pick2(a, b []string) []string {
	if g.chance(2) {
		return a
	}
	return b
}

// streamBurst is a script of XADDs of one key: n entries on the next ms with
// sequences 1..n, value lengths cycling below a bound (a high one fills
// nodes by bytes), and a second field every k entries (entries whose fields
// differ from the node's master entry). It returns how many were added and
// the length after.
func (g *diffGen) streamBurst() *diffStep {
	key := g.streamKey()
	if g.chance(3) {
		key = g.streamTagKey()
	}
	tops := g.streamTops()
	ms := tops[key] + 1
	tops[key] = ms + 1
	n := []string{"20", "99", "100", "101", "150", "250"}[g.r.Intn(6)]
	return diffS("EVAL", diffStreamBurst, "1", key, strconv.FormatUint(ms, 10), n, g.pick("1", "40", "300"), g.pick("1000", "7", "1"))
}

// streamFar is a command on {s}far, whose IDs are all past any clock:
// XADD with "*" is then deterministic, with NOMKSTREAM against a missing
// key. Nothing else writes {s}far or makes an ID below diffStreamFarMs
// there.
func (g *diffGen) streamFar() *diffStep {
	const key = "{s}far"
	tops := g.streamTops()
	if tops[key] < diffStreamFarMs {
		tops[key] = diffStreamFarMs
	}
	next := func() string {
		ms := tops[key] + uint64(g.r.Intn(2))
		tops[key] = ms
		return strconv.FormatUint(ms, 10) + "-" + strconv.Itoa(g.r.Intn(3))
	}
	switch g.r.Intn(13) {
	case 0, 1, 2, 3:
		opts := []string{"NOMKSTREAM"}
		if g.chance(3) {
			opts = append(opts, "MAXLEN", g.pick("=", "~"), strconv.Itoa(g.r.Intn(6)))
		}
		return diffS(diffJ([]string{"XADD", key}, opts, []string{"*"}, g.streamFields())...)
	case 4, 5:
		return diffS(diffJ([]string{"XADD", key, next()}, g.streamFields())...)
	case 6:
		return diffS("XSETID", key, next())
	case 7:
		if g.chance(6) {
			return diffS("XADD", key, diffMaxID, "f", "v") // full: "*" is refused after it
		}
		return diffS("XLEN", key)
	case 10:
		return diffS("DEL", key)
	case 8:
		return diffS("XTRIM", key, "MAXLEN", strconv.Itoa(g.r.Intn(4)))
	case 9:
		return diffS("XDEL", key, strconv.FormatUint(tops[key]-uint64(g.r.Intn(2)), 10)+"-"+strconv.Itoa(g.r.Intn(3)))
	}
	return diffS("XREVRANGE", key, "+", "-", "COUNT", "3")
}

// streamGroupKey is a group command's key: mostly {s}g, which the key
// commands that replace a whole stream (RENAME, COPY, RESTORE) seldom
// touch, so that the groups made there last; or another stream command's
// key.
func (g *diffGen) streamGroupKey() string {
	if g.chance(3) {
		return g.streamKey()
	}
	return "{s}g"
}

// junk is now and then one of the groups, to spoil a command's end.
func (g *diffGen) junk(groups ...[]string) []string {
	if g.chance(8) {
		return groups[g.r.Intn(len(groups))]
	}
	return nil
}

// streamGroup is a consumer group's name: a few, one that differs by case.
func (g *diffGen) streamGroup() string {
	if g.chance(2) {
		return "g1"
	}
	return g.pick("g1", "g2", "g2", "g3", "G1", "", "a b")
}

func (g *diffGen) streamConsumer() string { return g.pick("c1", "c1", "c2", "c3", "C1", "") }

// streamGroupID is XGROUP CREATE's and SETID's ID: $, 0, an ID of the
// stream, or a bad one.
func (g *diffGen) streamGroupID(key string) string {
	switch g.r.Intn(6) {
	case 0:
		return "$"
	case 1:
		return g.pick("0", "0-0", "-", "+", ">", diffMaxID)
	}
	return g.streamOldID(key)
}

func (g *diffGen) streamEntriesRead() string {
	return g.pick("0", "1", "3", "10", "-1", "-2", "abc", "9223372036854775807")
}

// streamMinIdle is XCLAIM's and XAUTOCLAIM's min-idle-time: none, or more
// than any entry delivered during the run has (entries XCLAIM has set far
// in the past have more).
func (g *diffGen) streamMinIdle() string {
	return g.pick("0", "0", "0", "60000000", "60000000", "-1", "x")
}

// streamReadKeys are the keys of an XREAD or XREADGROUP: one key, or a few
// of the {s} tag.
func (g *diffGen) streamReadKeys() []string {
	if g.chance(2) {
		return []string{g.streamGroupKey()}
	}
	keys := make([]string, 1+g.r.Intn(3))
	for i := range keys {
		keys[i] = g.pick("{s}g", "{s}g", "{s}1", "{s}2")
	}
	return keys
}

// streamUnbalance sometimes drops or adds an ID, so that STREAMS is
// followed by an odd count.
func (g *diffGen) streamUnbalance(ids []string) []string {
	switch g.r.Intn(25) {
	case 0:
		return ids[:len(ids)-1]
	case 1:
		return append(ids, "0")
	}
	return ids
}

// streamPendingArgs are the extended XPENDING's arguments after the key.
func (g *diffGen) streamPendingArgs(key string) []string {
	args := []string{g.streamGroup()}
	if g.chance(3) {
		args = append(args, "IDLE", g.pick("0", "60000000", "-1", "x"))
	}
	start, end := g.streamRange(key)
	args = append(args, start, end, g.pick("1", "3", "10", "100", "0", "-1", "x"))
	if g.chance(3) {
		args = append(args, g.streamConsumer())
	}
	if g.chance(10) {
		args = append(args, "x")
	}
	return args
}

func (g *diffGen) streamInfoOpts() []string {
	switch g.r.Intn(6) {
	case 0, 1:
		return nil
	case 2:
		return []string{g.pick("FULL", "full")}
	case 3:
		return []string{"FULL", "COUNT", g.pick("0", "1", "2", "10", "-1", "x")}
	case 4:
		return []string{g.pick("FOO", "COUNT", "FULL COUNT")}
	}
	return []string{"FULL", g.pick("COUNT", "FOO"), "1", "x"}
}

// diffStreamBurst adds ARGV[2] entries to KEYS[1] (see streamBurst).
const diffStreamBurst = `local n, len, every, ok = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), 0
for i = 1, n do
  local args = {'XADD', KEYS[1], ARGV[1] .. '-' .. i, 'f', string.rep('x', (i * 7) % len)}
  if i % every == 0 then
    args[#args + 1] = 'g'
    args[#args + 1] = tostring(i)
  end
  if type(redis.pcall(unpack(args))) ~= 'table' then ok = ok + 1 end
end
return {ok, redis.pcall('XLEN', KEYS[1])}`

// diffStreamRoundTrip DUMPs KEYS[1] and RESTOREs the payload to KEYS[2] on
// the same server, with ARGV as RESTORE's options, and returns RESTORE's
// reply, and for a stream its length and entries.
const diffStreamRoundTrip = `local d = redis.pcall('DUMP', KEYS[1])
if type(d) == 'table' then return d end
if not d then return 'no key' end
local r = redis.pcall('RESTORE', KEYS[2], '0', d, unpack(ARGV))
if r.err or redis.call('TYPE', KEYS[2]).ok ~= 'stream' then return r end
return {r, redis.call('XLEN', KEYS[2]), redis.call('XRANGE', KEYS[2], '-', '+', 'COUNT', 20),
  redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 5)}`

// diffStreamInfoMasked runs XINFO ARGV[1] KEYS[1] ARGV[2...] and zeroes what
// depends on the server's clock or on Redis's radix tree: seen-time, idle,
// the delivery times in pending lists, radix-tree-keys and radix-tree-nodes.
const diffStreamInfoMasked = `local function mask(t)
  for i = 1, #t - 1, 2 do
    local k, v = t[i], t[i + 1]
    if k == 'radix-tree-keys' or k == 'radix-tree-nodes' or k == 'seen-time' or k == 'idle' then
      t[i + 1] = 0
    elseif type(v) == 'table' and (k == 'groups' or k == 'consumers') then
      for _, e in ipairs(v) do mask(e) end
    elseif type(v) == 'table' and k == 'pending' then
      for _, e in ipairs(v) do e[#e - 1] = 0 end
    end
  end
end
local r = redis.pcall('XINFO', ARGV[1], KEYS[1], unpack(ARGV, 2))
if type(r) ~= 'table' or r.err then return r end
if string.lower(ARGV[1]) == 'consumers' then
  for _, e in ipairs(r) do mask(e) end
else
  mask(r)
end
return r`

// diffStreamPendingMasked runs XPENDING KEYS[1] ARGV... and zeroes the
// extended form's idle times.
const diffStreamPendingMasked = `local r = redis.pcall('XPENDING', KEYS[1], unpack(ARGV))
if type(r) ~= 'table' or r.err or #ARGV == 1 then return r end
for _, e in ipairs(r) do
  if type(e) == 'table' then e[3] = 0 end
end
return r`

// diffStreamPayloads are RESTORE's stream payloads: redis-server 7.0.15's
// DUMPs of a stream of two entries with two field sets; of one with deleted
// entries after XSETID 9-9 ENTRIESADDED 20 MAXDELETEDID 8-0; of an empty
// stream whose last ID is 7-3; of 150 entries over two nodes (100 and 50,
// LZF-compressed, integers, a second field set, two deleted); then the first
// with a bad checksum.
var diffStreamPayloads = []string{
	"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x0133\x00\x00\x00\x13\x00\x02\x01\x00\x01\x01\x01\x81f\x02\x00\x01\x02\x01\x00\x01\x00\x01\x81v\x02\x04\x01\x00\x01\x01\x01\x00\x01\x02\x01\x81f\x02\x81w\x02\x81g\x02\x81x\x02\x08\x01\xff\x02\x02\x01\x01\x01\x00\x00\x02\x00\n\x00\x96\x03\x8en\xf8\x0f)\x86",
	"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00@DD\x00\x00\x00\x1e\x00\x03\x01\x02\x01\x01\x01\x81f\x02\x00\x01\x02\x01\x00\x01\x00\x01\x01\x01\x04\x01\x03\x01\x01\x01\x00\x01\x02\x01\x04\x01\x02\x01\x02\x01\x00\x01\x03\x01\x04\x01\x03\x01\x03\x01\x00\x01\x04\x01\x04\x01\x02\x01\x04\x01\x00\x01\x05\x01\x04\x01\xff\x03\t\t\x01\x00\x08\x00\x14\x00\n\x00\xd8ki\xaf\xb1\xbe\x90_",
	"\x13\x00\x00\x07\x03\x00\x00\x07\x03\x01\x00\n\x00\x82\x9c+\x81\x1f\xa6GA",
	"\x13\x02\x10\x00\x00\x00\x00\x00\x00\x00d\x00\x00\x00\x00\x00\x00\x00\x01\xc3CSD\xa3\x07\xa3\x04\x00\x00!\x02c\x01@\x00\x07\x81f\x02\x00\x01\x02\x01\x00 \x01\x02\x01\x01\x04`\t\x00\x01 \x05\x80\t\x02\x02\x01\x03\xa0\t@\x07\x80\x13\x02\x04\x01\x05 \x03@1\x02\x05\x01\x06 \t\x00\x03 /\x02\x06\x01\x07 \t\x00\x02 \t\x02\x07\x01\x08\xa0\t\x02\x08\x01\t \t@M\x00\t \x19 f\x06\n\x01\x81h\x02\x8ax\xe0\x00\x00\x01\x0b\x08 \x17\x04\x01\x01\n\x01\x0b '@\t\x02\x0b\x01\x0c\xa0\t\x02\x0c\x01\r`\t\x00\x02 \x07\x00\x0e\xa0\t\x02\x0e\x01\x0f\xa0\t\x02\x0f\x01\x10\xa0\t\x02\x10\x01\x11\xa0\t\x02\x11\x01\x12\xa0\t\x02\x12\x01\x13 \t@\xbb\x00\x13 ? w\x00\x14@w\x00\x87\xa0v\x00\x08@t\x04\x03\x01\x14\x01\x15 $@\t\x02\x15\x01\x16\xa0\t\x02\x16\x01\x17\xa0\t\x02\x17\x01\x18\xa0\t\x02\x18\x01\x19\xa0\t\x02\x19\x01\x1a\xa0\t\x02\x1a\x01\x1b`\t\x00\x04 \x07\x00\x1c \x05@\t\x02\x1c\x01\x1d \tA\x1c\x00\x1d \x0f t\x00\x1e@t\x00\x84@t\x00\x05@q\x04\x04\x01\x1e\x01\x1f \x05@\t\x02\x1f\x01 \xa0\t\x02 \x01!\xa0\t\x02!\x01\"`\t\x00\x05 \x07\x00#\xa0\t\x02#\x01$\xa0\t\x02$\x01%\xa0\t\x02%\x01&\xa0\t\x02&\x01' \tA\x84\x00' U q\x00(@q\x02\x81x\x02@n\x04\x05\x01(\x01) \x1e\x00\x02!\x99\x02)\x01*\xa0\t\x02*\x01+\xa0\t\x02+\x01,\xa0\t\x02,\x01-\xa0\t\x02-\x01.\xa0\t\x02.\x01/\xa0\t\x02/\x010`\t\x00\x07 \x07\x001 \t\x00\x00 \t\x001 U n\x002@n\x00\x8b@\xe0\xa0\x00\x00\x0c@x\x04\x07\x012\x013 (@\t\x023\x014\xa0\t\x024\x015\xa0\t\x025\x016\xa0\t\x026\x017`\t\x00\x08 \x07\x008\xa0\t\x028\x019\xa0\t\x029\x01:\xa0\t\x02:\x01; \t\x00\x00 '\x00; U x\x00<@x\x00\x88\xa0t\x01x\t@u\x04\x08\x01<\x01= %@\t\x02=\x01>`\t\x00\t \x07\x00?\xa0\t\x02?\x01@\xa0\t\x02@\x01A\xa0\t\x02A\x01B\xa0\t\x02B\x01C\xa0\t\x02C\x01D\xa0\t\x02D\x01E \t\x00\x00\"\x9c\x00E U u\x00F@u\x00\x85 p\x02xx\x06@r\x04\n\x01F\x01G \"@\t\x02G\x01H\xa0\t\x02H\x01I\xa0\t\x02I\x01J\xa0\t\x02J\x01K\xa0\t\x02K\x01L`\t\x00\x0b \x07\x00M\xa0\t\x02M\x01N\xa0\t\x02N\x01O \t\x00\x00 \x1d\x00O U r\x00P@r\x03\x82xx\x03@o\x04\x0b\x01P\x01Q \x1f@\t\x02Q\x01R\xa0\t\x02R\x01S`\t\x00\x0c \x07\x00T\xa0\t\x02T\x01U\xa0\t\x02U\x01V\xa0\t\x02V\x01W\xa0\t\x02W\x01X\xa0\t\x02X\x01Y \t\x00\x00 ;\x00Y U o\x00Z@o\x00\x8c \xe0\xe0\x00\x00\x00\r@y\x04\r\x01Z\x01[ )@\t\x02[\x01\\\xa0\t\x02\\\x01]\xa0\t\x02]\x01^\xa0\t\x02^\x01_\xa0\t\x02_\x01`\xa0\t\x02`\x01a`\t\x00\x0e \x07\x00b\xa0\t\x02b\x01c \t\x00\x00 \x13\x00c U y\x00d@y\x00\x89\xe0\x00v\x03\n\x08\x01\xff\x10\x00\x00\x00\x00\x00\x00\x00r\x00\x00\x00\x00\x00\x00\x00e\xc3A\xc5Bi\x07i\x02\x00\x00\x13\x011\x01@\x00\x07\x81f\x02\x00\x01\x02\x01\x00 \x01\x02e\x01\x04`\t\x02\x01\x01f\xa0\t\x02\x02\x01g\xa0\t\x02\x03\x01h`\t\x00\x01 \x05\x00i \x03@\t\x02\x05\x01j\xa0\t\x02\x06\x01k\xa0\t\x02\x07\x01l\xa0\t\x02\x08\x01m \t@M\x00\t - f\x06n\x01\x81h\x02\x86x`\x00\x01\x07\x08 \x13\x04\x01\x01\n\x01o #\x00\x02 \x01\x02\x0b\x01p\xa0\t\x02\x0c\x01q\xa0\t\x02\r\x01r\xa0\t\x02\x0e\x01s\xa0\t\x02\x0f\x01t\xa0\t\x02\x10\x01u\xa0\t\x02\x11\x01v`\t\x04\x03\x01\x12\x01w \t@\xad\x00\x13 S s\x00x@s\x00\x83 r\x00\x04@p\x04\x03\x01\x14\x01y  @\t\x02\x15\x01z\xa0\t\x02\x16\x01{\xa0\t\x02\x17\x01|\xa0\t\x02\x18\x01}`\t\x04\x04\x01\x19\x01~ \x05@\t\x02\x1a\x01\x7f\xa0\t\x04\x1b\x01\xc0\x80\x02\x80\x14\x03\x1c\x01\xc0\x81 \n\x00\x00 \x19\x00\x1d % r\x02\xc0\x82\x02 \xe7\x00\x80 \xff@4\x03\x1e\x01\xc0\x83 \x1f@\n\x03\x1f\x01\xc0\x84`\n\x05\x05\x01 \x01\xc0\x85\xa0\n\x03!\x01\xc0\x86\xa0\n\x03\"\x01\xc0\x87\xa0\n\x03#\x01\xc0\x88\xa0\n\x03$\x01\xc0\x89\xa0\n\x03%\x01\xc0\x8a\xa0\n\x03&\x01\xc0\x8b \nAz\x00' ]@w\x00\x8c@w\x00\x8a \xeb\xa0\x00\x00\x0b@\x81\x05\x06\x01(\x01\xc0\x8d )@\n\x03)\x01\xc0\x8e\xa0\n\x03*\x01\xc0\x8f\xa0\n\x03+\x01\xc0\x90\xa0\n\x03,\x01\xc0\x91\xa0\n\x03-\x01\xc0\x92`\n\x05\x07\x01.\x01\xc0\x93\xa0\n\x03/\x01\xc0\x94\xa0\n\x030\x01\xc0\x95 \n\x00\x00  \x001 ]@\x81\x00\x96@\x81\x00\x87\xa0~\x03\x08\x08\x01\xff@\x94@y@\x96@d\x01@x@\x8c@\x96\x00\n\x00\x1co_\x1b\xe7\xb4\\\xb9",
	"\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x0133\x00\x00\x00\x13\x00\x02\x01\x00\x01\x01\x01\x81f\x02\x00\x01\x02\x01\x00\x01\x00\x01\x81v\x02\x04\x01\x00\x01\x01\x01\x00\x01\x02\x01\x81f\x02\x81w\x02\x81g\x02\x81x\x02\x08\x01\xff\x02\x02\x01\x01\x01\x00\x00\x02\x00\n\x00\x96\x03\x8en\xf8\x0f)\x87",
}

// diffStreamGroupPayload is redis-server 7.0.15's DUMP of entries 1-0..5-0
// (2-0 deleted) with group g1 (c1 pending 1-0 and 2-0, c2 pending 3-0, c3
// none) and group g2 at $ with ENTRIESREAD 3.
const diffStreamGroupPayload = "\x13\x01\x10\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\xc3<@D\x07D\x00\x00\x00\x1e\x00\x04\x01@\x00\x07\x81f\x02\x00\x01\x02\x01\x00 \x01\x04\x01\x01\x04\x01\x03 \x05@\x0f\x00\x04 \x13@\x15\x00\x03`\t\x00\x03 \x13\x00\x04 \x01@\x17\x02\x00\x01\x05 \t\x00\xff\x04\x05\x00\x01\x00\x02\x00\x05\x02\x02g1\x03\x00\x03\x03\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x1fF&<\xa2\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x1fF&<\xa2\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x1fF&<\xa2\x01\x00\x00\x01\x03\x02c1\x1fF&<\xa2\x01\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x00\x02c2\x1fF&<\xa2\x01\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x00\x02c3\x1fF&<\xa2\x01\x00\x00\x00\x02g2\x05\x00\x03\x00\x00\n\x00X\xff\x0b\xfa\"[\xfe#"
