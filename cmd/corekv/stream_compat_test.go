package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestStreamCompat sends fixed scripts of stream commands to a fresh
// redis-server and a fresh corekv (1 and 3 shards) and requires the same
// reply, value and error text, for each: the edge cases of XADD's IDs and
// options, XRANGE's bounds, XDEL and XSETID (a last ID above the top
// entry, lowered again), exact and approximate trimming over whole nodes
// (counted by entries and by bytes, deleted entries included), the key
// commands and DUMP/RESTORE on streams, the wrong-type errors both ways,
// and what XINFO STREAM says of entries-added, max-deleted-entry-id and
// recorded-first-entry-id. Each script starts from FLUSHALL; the first
// mismatch ends its script.
func TestStreamCompat(t *testing.T) {
	for _, shards := range []int{1, 3} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			ctx := context.Background()
			rc, kc := redisAndCorekv(t, shards)
			for _, sc := range streamCompatScripts() {
				t.Run(sc.name, func(t *testing.T) {
					for _, c := range []*redis.Client{rc, kc} {
						if err := c.FlushAll(ctx).Err(); err != nil {
							t.Fatal(err)
						}
					}
					for i, st := range sc.steps {
						if st.each != nil {
							// The same command built from each server's own
							// reply to an earlier one (a DUMP payload).
							r, k := streamCompatDo(ctx, rc, st.each(t, ctx, rc), st.mask), streamCompatDo(ctx, kc, st.each(t, ctx, kc), st.mask)
							if r != k {
								t.Fatalf("step %d (%s, each server's own): replies differ\n\tredis:  %s\n\tcorekv: %s", i, st.name, r, k)
							}
							continue
						}
						r, k := streamCompatDo(ctx, rc, st.args, st.mask), streamCompatDo(ctx, kc, st.args, st.mask)
						if r != k {
							t.Fatalf("step %d %s: replies differ\n\tredis:  %s\n\tcorekv: %s", i, streamCompatShow(st.args), r, k)
						}
					}
				})
			}
		})
	}
}

// streamCompatStep is one command of a script.
type streamCompatStep struct {
	args []any
	mask bool // an XINFO STREAM reply: radix-tree-keys and radix-tree-nodes count Redis's radix tree
	// each, when set, builds the command on each server from that server's
	// earlier replies; name describes it.
	each func(t *testing.T, ctx context.Context, c *redis.Client) []any
	name string
}

type streamCompatScript struct {
	name  string
	steps []streamCompatStep
}

// streamCompatDo runs one command and describes its reply: the value as Go
// prints it, or the error's text.
func streamCompatDo(ctx context.Context, c *redis.Client, args []any, mask bool) string {
	v, err := c.Do(ctx, args...).Result()
	if err != nil {
		return "error " + strconv.Quote(err.Error())
	}
	if mask {
		v = streamCompatMask(v)
	}
	return fmt.Sprintf("%#v", v)
}

// streamCompatMask replaces the radix tree's counts in an XINFO STREAM
// reply (field-value pairs, RESP2).
func streamCompatMask(v any) any {
	pairs, ok := v.([]any)
	if !ok {
		return v
	}
	out := append([]any(nil), pairs...)
	for i := 0; i+1 < len(out); i += 2 {
		if k, _ := out[i].(string); k == "radix-tree-keys" || k == "radix-tree-nodes" {
			out[i+1] = "<masked>"
		}
	}
	return out
}

func streamCompatShow(args []any) string {
	parts := make([]string, len(args))
	for i, a := range args {
		s := fmt.Sprint(a)
		if s == "" || strings.ContainsAny(s, " \"\\") || strconv.Quote(s) != `"`+s+`"` {
			s = strconv.Quote(s)
		}
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

func streamCompatScripts() []streamCompatScript {
	// s splits a line on spaces; a takes the arguments as they are; info is
	// a masked XINFO STREAM.
	s := func(line string) streamCompatStep {
		var args []any
		for _, f := range strings.Fields(line) {
			args = append(args, f)
		}
		return streamCompatStep{args: args}
	}
	a := func(args ...any) streamCompatStep { return streamCompatStep{args: args} }
	info := func(line string) streamCompatStep {
		st := s("XINFO STREAM " + line)
		st.mask = true
		return st
	}
	// burst adds n entries to key on ms 1..n (seq 0), each value of vlen
	// bytes, with a second field every k-th entry (0: none).
	burst := func(key string, from, n, vlen, k int) []streamCompatStep {
		var out []streamCompatStep
		for i := from; i < from+n; i++ {
			args := []any{"XADD", key, strconv.Itoa(i) + "-0", "f", strings.Repeat("v", vlen) + strconv.Itoa(i)}
			if k > 0 && i%k == 0 {
				args = append(args, "g", strconv.Itoa(i))
			}
			out = append(out, streamCompatStep{args: args})
		}
		return out
	}
	cat := func(parts ...[]streamCompatStep) []streamCompatStep {
		var out []streamCompatStep
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	const max = "18446744073709551615-18446744073709551615"

	return []streamCompatScript{
		{name: "xadd-ids", steps: []streamCompatStep{
			s("XADD s 1-1 f v"), s("XADD s 1-1 f v"), s("XADD s 1-0 f v"), s("XADD s 0-0 f v"), s("XADD s 0 f v"),
			s("XADD s abc f v"), s("XADD s 1- f v"), s("XADD s -1 f v"), s("XADD s 1-x f v"), s("XADD s 18446744073709551616 f v"),
			s("XADD s 1-18446744073709551616 f v"),
			s("XADD s 1-* f v"), s("XADD s 2 f v g w"), s("XADD s 2-* a 1"), s("XADD s 2-5 f v"), s("XADD s 2-* f v"),
			s("XADD s 2-3 f v"), s("XADD s 02-7 f v"), s("XADD s +3 f v"), s("XADD s 3-0 f"), s("XADD s 3-0"), s("XADD s f v"),
			s("XADD s 3-1 f v g"), s("XADD s 3-1 f v f w"), s("XRANGE s 3 3"), s("XRANGE s - +"),
			a("XADD", "s", "4-0", "bin\x00", "a\r\nb", "", "", "9223372036854775807", "-1", "1.5", "007"), s("XRANGE s 4 +"),
			s("XADD nokey NOMKSTREAM 1-0 f v"), s("EXISTS nokey"), s("XADD nokey NOMKSTREAM 0-0 f v"),
			s("XADD nokey nomkstream 1-0 f"), s("EXISTS nokey"),
			s("XADD new 0-* f v"), s("XADD new 0-* f v"), s("XADD new 0 f v"), s("XRANGE new - +"),
			s("XADD max " + max + " f v"), s("XADD max * f v"), s("XADD max 18446744073709551615-* f v"),
			s("XADD max NOMKSTREAM 1-0 f v"), s("XADD max MAXLEN 0 * f v"), s("XLEN max"), s("XDEL max " + max),
			s("XADD max * f v"), s("XLEN max"), s("EXISTS max"), s("TYPE max"),
			s("XADD m2 18446744073709551615 f v"), s("XADD m2 18446744073709551615-* f v"), s("XADD m2 18446744073709551615-* f v"),
			s("XRANGE m2 18446744073709551615 +"), s("XLEN s"), s("XLEN"), s("XLEN s x"), s("XADD s"), s("XADD"),
		}},
		{name: "xadd-options", steps: []streamCompatStep{
			s("XADD s MAXLEN -1 1-0 f v"), s("XADD s MAXLEN ~ -1 1-0 f v"), s("XADD s MAXLEN x 1-0 f v"),
			s("XADD s MAXLEN 3 LIMIT 2 1-0 f v"), s("XADD s LIMIT 2 1-0 f v"), s("XADD s MAXLEN 3 MINID 1 1-0 f v"),
			s("XADD s MAXLEN 1 MAXLEN 2 1-0 f v"), s("XADD s MAXLEN ~ 3 LIMIT -1 1-0 f v"), s("XADD s MAXLEN ~ 3 LIMIT x 1-0 f v"),
			s("XADD s MINID abc 1-0 f v"), s("XADD s MINID (1 1-0 f v"), s("XADD s MINID - 1-0 f v"), s("XADD s MAXLEN == 1 1-0 f v"),
			s("XADD s MAXLEN 9223372036854775808 1-0 f v"), s("EXISTS s"),
			s("XADD s maxlen = 2 nomkstream 1-0 f v"), s("EXISTS s"), s("XADD s maxlen = 2 1-0 f v"), s("XADD s MAXLEN 2 2-0 f v"),
			s("XADD s MAXLEN 2 3-0 f v"), s("XLEN s"), s("XRANGE s - +"), s("XADD s MINID 3 4-0 f v"), s("XRANGE s - +"),
			s("XADD s MINID = 4-0 5-0 f v"), s("XRANGE s - +"), s("XADD s MAXLEN ~ 1 LIMIT 10 6-0 f v"), s("XLEN s"),
			s("XADD s MAXLEN ~ 1 7-0 f v"), s("XLEN s"), s("XADD s minid ~ 9 8-0 f v"), s("XLEN s"),
			s("XADD s NOMKSTREAM MAXLEN 0 9-0 f v"), s("XLEN s"), s("EXISTS s"), s("XRANGE s - +"),
			s("XADD s 9-0 f v"), s("XADD s 9-1 f v"), s("XADD s foo 10-0 f v"), s("XADD s maxlen"), s("XADD s MAXLEN 1"),
			s("XADD s MAXLEN 1 10-0"), s("XADD s NOMKSTREAM"), s("XADD s LIMIT 10-0 f v"),
			s("XADD s MINID 100 MAXLEN 0 10-0 f v"), s("XLEN s"),
		}},
		{name: "xrange", steps: []streamCompatStep{
			s("XADD r 1-0 a 1"), s("XADD r 1-1 b 2"), s("XADD r 2-0 c 3"), s("XADD r 3-5 d 4"), s("XADD r 18446744073709551615-0 e 5"),
			s("XRANGE r - +"), s("XREVRANGE r + -"), s("XRANGE r (0-0 +"), s("XRANGE r - (0-0"),
			s("XRANGE r (" + max + " +"), s("XRANGE r - (" + max), s("XREVRANGE r (0-0 -"), s("XREVRANGE r + (" + max),
			s("XREVRANGE r (" + max + " -"), s("XRANGE r ( +"), s("XRANGE r - ("), s("XRANGE r (- +"), s("XRANGE r - (+"),
			s("XRANGE r ((1 +"), s("XRANGE r 1 1"), s("XRANGE r (1 +"), s("XRANGE r - (2"), s("XRANGE r (1-1 (3-5"),
			s("XRANGE r (0 +"), s("XRANGE r - (0"), s("XRANGE r (18446744073709551615 +"), s("XRANGE r 18446744073709551615 +"),
			s("XRANGE r 2 1"), s("XRANGE r 3-5 3-5"), s("XRANGE r (3-5 (3-6"), s("XRANGE r - + COUNT 2"), s("XRANGE r - + COUNT 0"),
			s("XRANGE r - + COUNT -1"), s("XRANGE r - + COUNT x"), s("XRANGE r - + COUNT"), s("XRANGE r - + LIMIT 1"),
			s("XRANGE r - + count 1 COUNT 3"), s("XRANGE r - + COUNT 9223372036854775807"), s("XRANGE r - + COUNT 9223372036854775808"),
			s("XREVRANGE r + - COUNT 1"), s("XREVRANGE r 2 1"), s("XREVRANGE r - +"), s("XREVRANGE r + - COUNT 0"),
			s("XRANGE nokey - +"), s("XRANGE nokey - + COUNT 0"), s("XREVRANGE nokey + -"), s("XRANGE nokey ( +"),
			s("XRANGE r 1-x +"), s("XRANGE r abc +"), s("XRANGE r -1 2"), s("XRANGE r 1- 2"), s("XRANGE r 18446744073709551616 +"),
			s("XRANGE r"), s("XRANGE r -"), s("XREVRANGE r +"),
		}},
		{name: "xdel-xsetid", steps: []streamCompatStep{
			s("XADD d 1-0 f v"), s("XADD d 2-0 f v"), s("XADD d 3-0 f v"), s("XADD d 4-0 f v"),
			s("XDEL d 2-0 2-0 9-9 abc"), s("XLEN d"), s("XDEL d 2-0 2-0 9-9"), s("XDEL d 2"), s("XDEL d 4"), s("XLEN d"),
			s("XADD d 4-0 f v"), s("XADD d 3-5 f v"), s("XSETID d 3-0"), s("XADD d 3-1 f v"), s("XSETID d 1-0"),
			s("XSETID d 9-0 ENTRIESADDED 1"), s("XSETID d 9-0 ENTRIESADDED -1"), s("XSETID d 9-0 ENTRIESADDED x"),
			s("XSETID d 9-0 MAXDELETEDID 10-0"), s("XSETID d 9-0 MAXDELETEDID abc"), s("XSETID d 9-0 ENTRIESADDED 100 MAXDELETEDID 8-0"),
			s("XSETID d 9-0 FOO"), s("XSETID d 9-0 ENTRIESADDED"), s("XSETID d 9-0 maxdeletedid 9-0 entriesadded 3"),
			s("XSETID nokey 1-0"), s("XSETID nokey abc"), s("XSETID d 9-*"), s("XSETID d"), s("XSETID d *"),
			s("XADD d 9-0 f v"), s("XADD d 9-1 f v"), s("XTRIM d MAXLEN 0"), s("XSETID d 1-0"), s("XADD d 1-1 f v"), s("XLEN d"),
			s("XADD e 5-0 f v"), s("XDEL e 5-0"), s("XLEN e"), s("EXISTS e"), s("XADD e 5-0 f v"), s("XSETID e 1-0"),
			s("XADD e 2-0 f v"), s("XRANGE e - +"), s("XDEL e"), s("XDEL nokey 1-0"), s("EXISTS nokey"),
		}},
		{name: "xtrim", steps: cat([]streamCompatStep{
			s("XADD t 1-0 f v"),
			s("XTRIM t"), s("XTRIM t MAXLEN"), s("XTRIM t FOO 1"), s("XTRIM t LIMIT 5"), s("XTRIM t MAXLEN 2 LIMIT 1"),
			s("XTRIM t MAXLEN -1"), s("XTRIM t MAXLEN 1 MINID 1"), s("XTRIM t MAXLEN ~ 5 LIMIT 5 foo"), s("XTRIM t MAXLEN == 1"),
			s("XTRIM t NOMKSTREAM MAXLEN 1"), s("XTRIM nokey MAXLEN 1"), s("EXISTS nokey"), s("XTRIM t MINID 1 LIMIT 1"),
			s("DEL t"),
		},
			// 250 entries: nodes of 100, 100 and 50. A "~" trim drops only
			// whole nodes, and only while what stays is at least the limit.
			burst("t", 1, 250, 1, 0),
			[]streamCompatStep{
				s("XTRIM t MAXLEN ~ 120"), s("XLEN t"), s("XTRIM t MAXLEN ~ 120"), s("XTRIM t MINID ~ 230"), s("XLEN t"),
				s("XTRIM t MAXLEN ~ 10 LIMIT 0"), s("XTRIM t MAXLEN = 10"), s("XRANGE t - + COUNT 1"), s("XTRIM t MINID 245"),
				s("XRANGE t - +"), s("XTRIM t MINID = 300"), s("XLEN t"), s("EXISTS t"),
			},
			// LIMIT: at most that many entries, in whole nodes.
			burst("u", 1, 300, 1, 0),
			[]streamCompatStep{
				s("XTRIM u MAXLEN ~ 0 LIMIT 150"), s("XLEN u"), s("XADD u MAXLEN ~ 0 LIMIT 99 301-0 f v"), s("XLEN u"),
				s("XADD u MAXLEN ~ 0 LIMIT 100 302-0 f v"), s("XLEN u"), s("XTRIM u MINID ~ 302 LIMIT 1000"), s("XLEN u"),
			},
			// Nodes closed by bytes (4096), and fields that differ from the
			// node's master entry.
			burst("v", 1, 80, 200, 3),
			[]streamCompatStep{
				s("XTRIM v MAXLEN ~ 60"), s("XLEN v"), s("XTRIM v MAXLEN ~ 20"), s("XLEN v"), s("XRANGE v - + COUNT 2"),
			},
			// Deleted entries still count towards a node's 100.
			burst("w", 1, 100, 1, 0),
			[]streamCompatStep{s("XDEL w 1-0 2-0 3-0 4-0 5-0 6-0 7-0 8-0 9-0 10-0")},
			burst("w", 101, 50, 1, 0),
			[]streamCompatStep{
				s("XTRIM w MAXLEN ~ 45"), s("XLEN w"), s("XRANGE w - + COUNT 1"), s("XADD w MINID ~ 150 151-0 f v"), s("XLEN w"),
			},
		)},
		{name: "key-commands", steps: []streamCompatStep{
			s("XADD {k}a 1-0 f v"), s("XADD {k}a 2-0 g w"), s("XDEL {k}a 1-0"), s("XADD {k}a 3-0 f v"), s("XDEL {k}a 3-0"),
			s("TYPE {k}a"), s("OBJECT ENCODING {k}a"), s("OBJECT REFCOUNT {k}a"), s("EXISTS {k}a {k}b"),
			s("RENAME {k}a {k}b"), s("XRANGE {k}b - +"), s("EXISTS {k}a"), s("COPY {k}b {k}c"), s("XADD {k}c 4-0 f v"),
			s("XLEN {k}b"), s("XLEN {k}c"), s("COPY {k}b {k}c"), s("COPY {k}b {k}c REPLACE"), s("XLEN {k}c"),
			s("XADD {k}c 3-0 f v"), s("XADD {k}c 3-1 f v"), s("RENAME {k}c other"), s("XRANGE other - +"), s("XADD other 3-1 f v"),
			s("RENAMENX other {k}b"), s("COPY other {k}d DB 1"), s("COPY other {k}d DB 1"), s("COPY other {k}d DB 1 REPLACE"),
			s("MOVE other 1"), s("MOVE other 2"), s("EXISTS other"), s("COPY {k}d x DB 2"),
			s("EXPIRE {k}b 1000"), s("PERSIST {k}b"), s("TTL {k}b"),
			// Redis's DUMP payloads restored by both; then each server's
			// own DUMP, restored by itself.
			a("RESTORE", "{k}r", "0", diffStreamPayloads[0]), s("XRANGE {k}r - +"), a("RESTORE", "{k}r", "0", diffStreamPayloads[0]),
			a("RESTORE", "{k}r", "0", diffStreamPayloads[1], "REPLACE"), s("XRANGE {k}r - +"), s("XADD {k}r 9-9 f v"),
			s("XADD {k}r 9-10 f v"), info("{k}r"),
			a("RESTORE", "{k}e", "0", diffStreamPayloads[2]), s("XLEN {k}e"), s("XADD {k}e 7-3 f v"), s("XADD {k}e 7-* f v"),
			a("RESTORE", "{k}big", "0", diffStreamPayloads[3]), s("XLEN {k}big"), s("XRANGE {k}big - + COUNT 3"),
			s("XREVRANGE {k}big + - COUNT 3"), s("XRANGE {k}big 120 121"), s("XTRIM {k}big MAXLEN ~ 10"), s("XLEN {k}big"),
			a("RESTORE", "{k}bad", "0", diffStreamPayloads[4]), s("EXISTS {k}bad"),
			{name: "DUMP {k}b, RESTORE {k}own", each: func(t *testing.T, ctx context.Context, c *redis.Client) []any {
				d, err := c.Dump(ctx, "{k}b").Result()
				if err != nil {
					t.Fatalf("DUMP {k}b: %v", err)
				}
				return []any{"RESTORE", "{k}own", "0", d}
			}},
			s("XRANGE {k}own - +"), s("XADD {k}own 3-0 f v"), info("{k}own"),
			{name: "DUMP {k}big, RESTORE {k}big2", each: func(t *testing.T, ctx context.Context, c *redis.Client) []any {
				d, err := c.Dump(ctx, "{k}big").Result()
				if err != nil {
					t.Fatalf("DUMP {k}big: %v", err)
				}
				return []any{"RESTORE", "{k}big2", "0", d}
			}},
			s("XRANGE {k}big2 - +"), info("{k}big2"),
			s("DEL {k}b"), s("XLEN {k}b"), s("UNLINK {k}big2 {k}own"), s("EXISTS {k}big2 {k}own"),
		}},
		{name: "wrong-type", steps: []streamCompatStep{
			s("SET str x"), s("XADD str 1-0 f v"), s("XADD str NOMKSTREAM 1-0 f v"), s("XLEN str"), s("XRANGE str - +"),
			s("XREVRANGE str + -"), s("XDEL str 1-0"), s("XTRIM str MAXLEN 1"), s("XSETID str 1-0"), s("XADD str 0-0 f v"),
			s("XRANGE str ( +"), s("XSETID str abc"), s("RPUSH l a"), s("XADD l 1-0 f v"), s("XLEN l"),
			s("XADD st 1-0 f v"), s("GET st"), s("APPEND st x"), s("LPUSH st a"), s("HSET st f v"), s("SADD st a"), s("ZADD st 1 a"),
			s("INCR st"), s("LLEN st"), s("SORT st"), s("PFADD st a"), s("STRLEN st"), s("SETRANGE st 0 x"), s("GETDEL st"),
			s("SET st v GET"), s("TYPE st"), s("SET st v"), s("TYPE st"), s("XLEN st"),
		}},
		{name: "xinfo-stream", steps: []streamCompatStep{
			s("XADD i 1-0 f v"), s("XADD i 2-0 f v g w"), s("XADD i 3-0 f v"), info("i"),
			s("XDEL i 2-0"), info("i"), s("XDEL i 1-0"), info("i"),
			s("XSETID i 5-0 ENTRIESADDED 10 MAXDELETEDID 4-0"), info("i"), s("XADD i 5-* f v"), info("i"),
			s("XTRIM i MAXLEN 0"), info("i"), info("i FULL"), s("XADD i 6-0 f v"), info("i FULL"), info("i FULL COUNT 1"),
			info("i FULL COUNT 0"), info("i FULL COUNT -1"), s("XINFO STREAM i FULL COUNT x"), s("XINFO STREAM i COUNT 1"),
			s("XINFO STREAM i FULL 1"), s("XINFO STREAM nokey"), s("SET str x"), s("XINFO STREAM str"), s("XINFO STREAM"),
			s("XINFO FOO"), s("XINFO FOO i"), s("XINFO GROUPS i"), s("XINFO GROUPS nokey"), s("XINFO CONSUMERS i g"),
			s("XINFO CONSUMERS i"), s("XINFO GROUPS"),
			a("RESTORE", "p", "0", diffStreamPayloads[1]), info("p"), info("p FULL"), a("RESTORE", "q", "0", diffStreamPayloads[2]), info("q"),
		}},
	}
}
