package main

// TestCompatWithRedis is a differential test: it sends the same scripted
// commands over raw RESP to a real redis-server and to the corekv binary and
// compares the replies byte for byte. Redis is the reference; a case where
// corekv knowingly differs carries a knownDiff reason, which turns its
// mismatch into a log line until the server is fixed.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// compatMode says how two replies are compared.
type compatMode int

const (
	compatExact     compatMode = iota // byte for byte
	compatUnordered                   // an aggregate whose element order is unspecified: sort, then compare
	compatShape                       // only the reply's types and aggregate lengths (values vary: TIME, PTTL)
	compatScan                        // iterate SCAN to cursor 0; compare the set of keys found
)

// compatCmd is one step of a script.
type compatCmd struct {
	args      []string      // sent as a RESP multibulk
	inline    string        // when set, sent as is instead of args (inline command frames)
	mode      compatMode    // how the replies are compared
	knownDiff string        // a known, not yet fixed difference: log instead of fail
	knownOn   int           // the shard count knownDiff applies to; 0: every count
	sleep     time.Duration // wait this long before sending (lets short TTLs run out)
}

// known marks the step as a known difference, with the reason.
func (c compatCmd) known(reason string) compatCmd {
	c.knownDiff = reason
	return c
}

// knownIn marks the step as a known difference with that many shards only.
func (c compatCmd) knownIn(shards int, reason string) compatCmd {
	c.knownDiff, c.knownOn = reason, shards
	return c
}

// isKnown reports whether a mismatch of this step is a known difference
// when the server runs with that many shards.
func (c compatCmd) isKnown(shards int) bool {
	return c.knownDiff != "" && (c.knownOn == 0 || c.knownOn == shards)
}

func (c compatCmd) String() string {
	if c.inline != "" {
		return fmt.Sprintf("inline %q", c.inline)
	}
	var b strings.Builder
	for i, a := range c.args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" || strings.ContainsAny(a, " \"\\") || strconv.Quote(a) != `"`+a+`"` {
			b.WriteString(strconv.Quote(a))
		} else {
			b.WriteString(a)
		}
	}
	return b.String()
}

// compatScript is a named sequence of steps run on one fresh connection per
// server, after FLUSHALL.
type compatScript struct {
	name     string
	pipeline bool // write every step at once, then read the replies
	cmds     []compatCmd
}

// Helpers that keep the script table short.

// compatS splits a command line on spaces; compatA takes the arguments as
// they are, for those that hold spaces or binary data.
func compatS(line string) compatCmd { return compatCmd{args: strings.Fields(line)} }

func compatA(args ...string) compatCmd { return compatCmd{args: args} }

func compatUnord(line string) compatCmd {
	return compatCmd{args: strings.Fields(line), mode: compatUnordered}
}

func compatShp(line string) compatCmd {
	return compatCmd{args: strings.Fields(line), mode: compatShape}
}

func compatScanOf(line string) compatCmd {
	return compatCmd{args: strings.Fields(line), mode: compatScan}
}

func compatInline(frame string) compatCmd { return compatCmd{inline: frame} }

func compatSleep(d time.Duration, c compatCmd) compatCmd {
	c.sleep = d
	return c
}

// compatKV returns "prefix1 val1 prefix2 val2 …" pairs for MSET, keys
// prefix1..prefixN, so that keys spread over every shard.
func compatKV(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i), fmt.Sprintf("v%d", i))
	}
	return out
}

// compatKeys returns prefix1..prefixN.
func compatKeys(prefix string, n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		out = append(out, fmt.Sprintf("%s%d", prefix, i))
	}
	return out
}

func compatJoin(first []string, rest ...[]string) []string {
	out := append([]string(nil), first...)
	for _, r := range rest {
		out = append(out, r...)
	}
	return out
}

// A fixed future time (2100-01-01T00:00:00Z), so EXPIRETIME and PEXPIRETIME
// replies are the same on both servers.
const (
	compatFutureSec = "4102444800"
	compatFutureMs  = "4102444800123"
)

func compatScripts() []compatScript {
	s, a, u, shape, scan, in := compatS, compatA, compatUnord, compatShp, compatScanOf, compatInline
	long45 := strings.Repeat("x", 45)
	long44 := strings.Repeat("y", 44)
	// Reasons for the known differences, shared by the steps they affect.
	const (
		cascade     = "follows from the previous known difference"
		setRepeat   = "SET rejects a repeated EX/PX option that Redis accepts (the last one wins)"
		floatPrec   = "INCRBYFLOAT computes in float64; Redis uses long double (wider range, rounds to 17 digits)"
		scanNeg     = "SCAN rejects a negative cursor; Redis parses it as unsigned and scans"
		clientArity = "CLIENT SETNAME with the wrong argument count: unknown-subcommand error instead of Redis's arity error"
		getkeysArgs = "COMMAND GETKEYS with fewer than 3 arguments: a different error than Redis's arity error"
		msetOdd     = "MSET/MSETNX with an odd number of arguments over several shards panics the server (router/fanout.go perShard)"
		crossMove   = "cross-shard RENAME/COPY replies before the destination key is written: later pipelined commands miss it"
	)
	return append([]compatScript{
		{name: "set-options", cmds: []compatCmd{
			s("SET k v"), s("GET k"), s("SET k v2 XX"), s("GET k"), s("SET k v3 NX"), s("GET k"),
			s("SET n v NX"), s("GET n"), s("SET k v4 XX GET"), s("SET missing v XX GET"), s("GET missing"),
			s("SET k v5 NX GET"), s("GET k"), s("SET fresh v NX GET"), s("GET fresh"),
			s("SET e v EX 1000"), s("TTL e"), s("SET e v PX 100000"), shape("PTTL e"), s("TTL e"),
			s("SET e v2 KEEPTTL"), s("TTL e"), s("GET e"), s("SET e v"), s("TTL e"),
			s("SET e v EXAT " + compatFutureSec), s("EXPIRETIME e"), s("PEXPIRETIME e"),
			s("SET e v PXAT " + compatFutureMs), s("PEXPIRETIME e"), s("EXPIRETIME e"),
			s("SET e v3 KEEPTTL XX GET"), s("PEXPIRETIME e"), s("set e v4 ex 1000 nx"), s("get e"),
			s("SET e v5 px 5000000 xx get"), s("TTL e"), s("SET e v EX 10 EX 1000"), s("TTL e"),
			// errors
			s("SET k v EX 0"), s("SET k v EX -1"), s("SET k v PX 0"), s("SET k v PX -1"),
			s("SET k v EXAT 0"), s("SET k v PXAT -5"), s("SET k v NX XX"), s("SET k v XX NX"),
			s("SET k v EX 10 PX 10"), s("SET k v KEEPTTL EX 1"), s("SET k v EX 1 KEEPTTL"),
			s("SET k v PX 1 EXAT 1"), s("SET k v EX"), s("SET k v EX abc"), s("SET k v EX 1.5"),
			s("SET k v PX 10abc"), s("SET k v EX 9223372036854775807"), s("SET k v PX 9223372036854775807"),
			s("SET k v EX 99999999999999999999"), s("SET k v EXAT 9223372036854775807"),
			s("SET k v FOO"), s("SET k v GET GET"), s("SET k v NX NX"), s("SET k"), s("SET"),
			s("GET k"), s("GET missing"), s("GET"), s("GET a b"),
			a("SET", "bin\x00key", "v\r\n\x00\xff"), a("GET", "bin\x00key"), a("SET", "", ""), a("GET", ""),
		}},
		{name: "setnx-setex-psetex-getset-getdel", cmds: []compatCmd{
			s("SETNX a 1"), s("SETNX a 2"), s("GET a"), s("SETNX a"),
			s("SETEX b 100 v"), s("TTL b"), s("GET b"), s("SETEX b 0 v"), s("SETEX b -1 v"), s("SETEX b abc v"),
			s("SETEX b 100"), s("SETEX b 9223372036854775807 v"), s("TTL b"),
			s("PSETEX c 100000 v"), shape("PTTL c"), s("TTL c"), s("PSETEX c 0 v"), s("PSETEX c -10 v"),
			s("PSETEX c abc v"), s("GET c"),
			s("GETSET a 9"), s("GETSET newkey x"), s("GET a"), s("GET newkey"),
			s("SETEX t 100 v"), s("GETSET t w"), s("TTL t"), s("GETSET a"),
			s("GETDEL a"), s("GETDEL a"), s("EXISTS a"), s("GETDEL"), s("GETDEL a b"),
			s("SET i 42"), s("GETDEL i"), s("GETSET i 7"), s("INCR i"),
			compatSleep(120*time.Millisecond, s("PSETEX short 30 v")), compatSleep(120*time.Millisecond, s("GET short")),
			s("EXISTS short"), s("SETNX short again"), s("GET short"),
		}},
		{name: "getex", cmds: []compatCmd{
			s("SET g v"), s("GETEX g"), s("TTL g"), s("GETEX g EX 100"), s("TTL g"), s("GETEX g PX 200000"), s("TTL g"),
			s("GETEX g EXAT " + compatFutureSec), s("EXPIRETIME g"), s("GETEX g PXAT " + compatFutureMs),
			s("PEXPIRETIME g"), s("GETEX g PERSIST"), s("TTL g"), s("getex g persist"), s("GETEX missing"),
			s("GETEX missing EX 10"), s("GETEX missing PERSIST"), s("EXISTS missing"),
			s("GETEX g EX 0"), s("GETEX g EX -1"), s("GETEX g PX 0"), s("GETEX g EX abc"), s("GETEX g EX 10 PX 10"),
			s("GETEX g PERSIST EX 10"), s("GETEX g EX 10 PERSIST"), s("GETEX g FOO"), s("GETEX g EX"),
			s("GETEX g EX 9223372036854775807"), s("TTL g"), s("GETEX g EXAT 1"), s("EXISTS g"), s("GETEX"),
			s("SET i 5"), s("GETEX i EX 100"), s("TTL i"), s("OBJECT ENCODING i"),
		}},
		{name: "mget-mset-msetnx", cmds: []compatCmd{
			a(compatJoin([]string{"MSET"}, compatKV("a", 20))...),
			a(compatJoin([]string{"MGET"}, compatKeys("a", 20), []string{"missing", "a1", "b1"})...),
			s("MSET"), s("MSET b1"), s("MGET"), s("EXISTS b1"),
			s("MSETNX c1 1 c2 2 c3 3"), s("MSETNX c3 x c4 y"), s("EXISTS c4"), s("MGET c1 c2 c3 c4"),
			s("MSETNX c5 1 c5 2"), s("GET c5"), s("MSETNX c6"),
			a(compatJoin([]string{"MSETNX"}, compatKV("d", 20))...), a(compatJoin([]string{"MSETNX"}, compatKV("d", 20))...),
			a(compatJoin([]string{"MSETNX"}, compatKV("e", 19), []string{"d20", "z"})...),
			a(compatJoin([]string{"EXISTS"}, compatKeys("e", 20))...), s("GET d20"),
			s("MSET a1 x a1 y"), s("GET a1"), s("SET t v EX 1000"), s("MSET t w"), s("TTL t"), s("DBSIZE"),
			a(compatJoin([]string{"DEL"}, compatKeys("a", 20), compatKeys("d", 20))...), s("DBSIZE"),
		}},
		// An odd argument count crashed the server: each case has its own
		// script, so a crash does not hide the other steps.
		{name: "mset-odd-args", cmds: []compatCmd{
			s("MSET b1 x b2"), s("EXISTS b1 b2"),
			a(compatJoin([]string{"MSET"}, compatKV("a", 10), []string{"odd"})...), s("DBSIZE"),
		}},
		{name: "msetnx-odd-args", cmds: []compatCmd{
			s("MSETNX c6 1 c7"), s("EXISTS c6 c7"),
			a(compatJoin([]string{"MSETNX"}, compatKV("a", 10), []string{"odd"})...), s("DBSIZE"),
		}},
		{name: "pipeline-cross-shard", pipeline: true, cmds: []compatCmd{
			a(compatJoin([]string{"MSET"}, compatKV("a", 20))...),
			a(compatJoin([]string{"MGET"}, compatKeys("a", 20))...),
			s("INCR a1"), s("GET a1"), s("SET a1 10"), s("INCR a1"), s("INCR b1"), s("INCR b2"), s("INCR b3"),
			s("GET b1"), s("GET b2"), s("APPEND a2 x"), s("GET a2"), s("RENAME a3 b9"), s("GET b9"), s("GET a3"),
			s("EXISTS a1 a2 a3 a4 a5 b1 b9"), s("DEL a1 a2 a3 a4 b1"),
			s("MGET a1 a2 a5 b2 b9"), s("DBSIZE"),
			s("COPY a5 b10"), s("GET b10"), s("PING"), s("ECHO hi"), s("GET nosuch"),
			u("KEYS b*"),
		}},
		{name: "append-strlen", cmds: []compatCmd{
			s("APPEND s hello"), a("APPEND", "s", " world"), s("GET s"), s("STRLEN s"), s("STRLEN missing"),
			s("SET n 12"), s("APPEND n 3"), s("GET n"), s("STRLEN n"), s("INCR n"), s("OBJECT ENCODING n"),
			a("APPEND", "s", ""), s("STRLEN s"), s("APPEND s"), s("STRLEN"), s("SET neg -123"), s("STRLEN neg"),
			s("SET t v EX 1000"), s("APPEND t w"), s("TTL t"), s("GET t"), a("APPEND", "bin", "\x00\x01"), s("STRLEN bin"),
			a("APPEND", "e", ""), s("EXISTS e"), s("GET e"),
		}},
		{name: "incr-decr", cmds: []compatCmd{
			s("SET i 10"), s("INCR i"), s("DECR i"), s("INCRBY i 5"), s("DECRBY i 3"), s("GET i"),
			s("INCR new"), s("DECR new2"), s("INCRBY new3 -5"), s("DECRBY new4 -5"),
			s("SET i 9223372036854775806"), s("INCR i"), s("INCR i"), s("GET i"), s("INCRBY i 1"),
			s("SET i -9223372036854775807"), s("DECR i"), s("DECR i"), s("GET i"),
			s("SET i 0"), s("DECRBY i -9223372036854775808"), s("INCRBY i -9223372036854775808"), s("GET i"),
			s("INCRBY i 9223372036854775808"), s("INCRBY i abc"), s("INCRBY i 1.0"), a("INCRBY", "i", ""),
			a("DECRBY", "i", " 1"), a("INCRBY", "i", "1 "), s("INCRBY i +1"), s("INCRBY i 01"), s("INCRBY i -0"), s("GET i"),
			a("SET", "s", " 1"), s("INCR s"), a("SET", "s", "1 "), s("INCR s"), s("SET s 01"), s("INCR s"),
			s("SET s +1"), s("INCR s"), s("SET s -0"), s("INCR s"), s("SET s abc"), s("INCR s"), a("SET", "s", ""),
			s("INCR s"), s("SET s 1.5"), s("INCR s"), s("SET s 0x10"), s("INCR s"), s("SET s 1e3"), s("DECR s"),
			s("SET big 99999999999999999999"), s("INCR big"), s("DECR big"), s("GET big"),
			s("SET s 9223372036854775807"), s("INCR s"), s("DECR s"), s("GET s"), s("OBJECT ENCODING s"),
			s("SET s -9223372036854775808"), s("DECR s"), s("INCR s"), s("GET s"),
			s("SETEX t 100 5"), s("INCR t"), s("TTL t"), s("DECRBY t 10"), s("GET t"), s("OBJECT ENCODING t"),
			s("INCR"), s("INCR a b"), s("INCRBY i"), s("DECRBY"), s("DECR"),
		}},
		{name: "incrbyfloat", cmds: []compatCmd{
			s("SET f 10.5"), s("INCRBYFLOAT f 0.1"), s("GET f"), s("SET f 5.0e3"), s("INCRBYFLOAT f 2.0e2"),
			s("INCRBYFLOAT f 5.0e3"), s("SET f 3.0"), s("INCRBYFLOAT f 0"), s("SET f 1.10"), s("INCRBYFLOAT f 0"),
			s("SET f 1"), s("INCRBYFLOAT f inf"), s("INCRBYFLOAT f -inf"), s("INCRBYFLOAT f +inf"), s("INCRBYFLOAT f nan"),
			s("INCRBYFLOAT f abc"), a("INCRBYFLOAT", "f", ""), a("INCRBYFLOAT", "f", " 1"), s("INCRBYFLOAT f 1.5.1"),
			s("INCRBYFLOAT f 0x10"), s("GET f"), s("INCRBYFLOAT f 1.23e-5"), s("INCRBYFLOAT f -1.23e-5"), s("GET f"),
			s("INCRBYFLOAT newf 3"), s("INCRBYFLOAT newf -3"), s("GET newf"), s("INCRBYFLOAT newg -2.5"),
			s("SET i 7"), s("INCRBYFLOAT i 1.5"), s("INCRBYFLOAT i -0.5"), s("GET i"), s("OBJECT ENCODING i"),
			s("SET f abc"), s("INCRBYFLOAT f 1"), a("SET", "f", " 1"), s("INCRBYFLOAT f 1"), s("SET f 1e2"), s("INCRBYFLOAT f 1"),
			s("SETEX t 100 1.5"), s("INCRBYFLOAT t 1"), s("TTL t"), s("INCRBYFLOAT f"), s("INCRBYFLOAT"),
			s("SET g 0.1"), s("INCRBYFLOAT g 0.2"),
			s("SET f 5.0e3"), s("INCRBYFLOAT f 1e400"), s("GET f"),
			s("SET f 1e308"), s("INCRBYFLOAT f 1e308"), s("GET f"),
		}},
		{name: "getrange-setrange-substr", cmds: []compatCmd{
			a("SET", "s", "Hello World"), s("GETRANGE s 0 4"), s("GETRANGE s -5 -1"), s("GETRANGE s 5 2"),
			s("GETRANGE s -100 100"), s("GETRANGE s 100 200"), s("GETRANGE s 0 -100"), s("GETRANGE s -1 -5"),
			s("GETRANGE s 0 0"), s("GETRANGE s -1 -1"), s("GETRANGE s 10 10"), s("GETRANGE s 11 11"),
			s("GETRANGE s 0 9223372036854775807"), s("GETRANGE s -9223372036854775808 3"),
			s("GETRANGE s 0 abc"), s("GETRANGE s x 1"), s("GETRANGE s 0 99999999999999999999"),
			s("GETRANGE missing 0 -1"), s("GETRANGE missing 5 2"), s("GETRANGE s 0"),
			s("SUBSTR s 0 4"), s("SUBSTR s -3 -1"), s("SUBSTR s 9 2"), s("SUBSTR missing 0 1"), s("SUBSTR s 0"),
			s("SET i 12345"), s("GETRANGE i 1 2"), s("GETRANGE i -2 -1"), s("SET n -12345"), s("GETRANGE n 0 1"),
			s("SETRANGE s 6 Redis"), s("GET s"), s("SETRANGE s 20 x"), s("GET s"), s("STRLEN s"),
			s("SETRANGE s -1 x"), s("SETRANGE s 536870912 x"),
			a("SETRANGE", "s", "536870912", ""), a("SETRANGE", "s", "0", ""), s("SETRANGE s 99999999999999999999 x"),
			a("SETRANGE", "new", "0", ""), s("EXISTS new"), a("SETRANGE", "new", "9", ""), s("EXISTS new"),
			s("SETRANGE new2 3 ab"), s("GET new2"), s("SETRANGE s abc x"), s("SETRANGE s 1"),
			s("SETRANGE i 0 9"), s("GET i"), s("OBJECT ENCODING i"), s("SETRANGE i 5 6"), s("GET i"),
			s("SETEX t 100 abc"), s("SETRANGE t 1 X"), s("TTL t"), s("GET t"),
		}},
		{name: "del-exists-touch-type", cmds: []compatCmd{
			a(compatJoin([]string{"MSET"}, compatKV("a", 10))...),
			s("DEL a1 a1 a2 missing"), s("EXISTS a1 a2 a3 a3 a3 missing"), s("UNLINK a3 a4 a4"), s("EXISTS a3 a4"),
			s("TOUCH a5 a6 missing a5"), s("TYPE a5"), s("TYPE missing"), s("DEL"), s("EXISTS"), s("UNLINK"),
			s("TOUCH"), s("TYPE"), s("TYPE a b"), s("DBSIZE"),
			a(compatJoin([]string{"EXISTS"}, compatKeys("a", 10), compatKeys("a", 10))...),
			a(compatJoin([]string{"DEL"}, compatKeys("a", 10), compatKeys("b", 10))...), s("DBSIZE"),
			s("SET i 1"), s("TYPE i"), s("SET t v PX 30"), compatSleep(120*time.Millisecond, s("TYPE t")),
			s("EXISTS t"), s("DEL t"),
		}},
		{name: "expire-options", cmds: []compatCmd{
			s("SET k v"), s("EXPIRE k 100 XX"), s("EXPIRE k 100 GT"), s("TTL k"), s("EXPIRE k 100 LT"), s("TTL k"),
			s("EXPIRE k 200 NX"), s("EXPIRE k 200 GT"), s("TTL k"), s("EXPIRE k 50 GT"), s("EXPIRE k 50 LT"), s("TTL k"),
			s("EXPIRE k 500 XX"), s("TTL k"), s("EXPIRE k 600 nx"), s("EXPIRE k 700 gt"), s("TTL k"),
			s("EXPIRE k 100 NX XX"), s("EXPIRE k 100 GT LT"), s("EXPIRE k 100 NX GT"), s("EXPIRE k 100 NX LT"),
			s("EXPIRE k 100 XX GT"), s("EXPIRE k 100 GT GT"), s("EXPIRE k 100 FOO"), s("EXPIRE k 100 XX FOO"),
			s("EXPIRE k abc"), s("EXPIRE k 1.5"), s("EXPIRE k 9223372036854775807"), s("EXPIRE k -9223372036854775808"),
			s("PEXPIRE k 9223372036854775807"), s("EXPIREAT k 9223372036854775807"), s("PEXPIREAT k 9223372036854775807"),
			s("TTL k"), s("EXPIRE missing 100"), s("EXPIRE missing 100 NX"), s("PEXPIRE k 300000"), s("TTL k"),
			s("PEXPIRE k 300001 gt"), s("PEXPIRE k 299000 LT"), s("PEXPIRE k 400000 GT"), s("TTL k"),
			s("EXPIREAT k " + compatFutureSec), s("EXPIRETIME k"), s("EXPIREAT k " + compatFutureSec + " NX"),
			s("EXPIREAT k 4102444801 GT"), s("EXPIRETIME k"), s("PEXPIREAT k 4102444800999 LT"), s("PEXPIRETIME k"),
			s("EXPIRETIME k"), s("PEXPIREAT k 4102444800999 XX GT"), s("PEXPIREAT k " + compatFutureMs + " XX"),
			s("PEXPIRETIME k"), s("EXPIREAT k abc"), s("EXPIREAT k 1 NX XX"),
			s("EXPIRE k 0"), s("EXISTS k"), s("SET k v"), s("EXPIRE k -5"), s("EXISTS k"),
			s("SET k v"), s("EXPIREAT k 1"), s("EXISTS k"), s("SET k v"), s("PEXPIREAT k 0"), s("EXISTS k"),
			s("SET k v"), s("PEXPIRE k -1 NX"), s("EXISTS k"), s("SET k v EX 100"), s("EXPIRE k -1 GT"), s("EXISTS k"),
			s("EXPIRE k -1 LT"), s("EXISTS k"), s("EXPIRE"), s("EXPIRE k"), s("PEXPIRE k"), s("EXPIREAT k"),
			s("EXPIRETIME missing"), s("PEXPIRETIME missing"), s("SET p v"), s("EXPIRETIME p"), s("PEXPIRETIME p"),
			s("EXPIRETIME"), s("PEXPIRETIME a b"),
			s("SET s v"), s("PEXPIRE s 30"), compatSleep(120*time.Millisecond, s("TTL s")), s("PTTL s"), s("GET s"),
		}},
		{name: "ttl-persist", cmds: []compatCmd{
			s("SET k v"), s("TTL k"), s("PTTL k"), s("TTL missing"), s("PTTL missing"),
			s("SET k v EX 1000"), s("TTL k"), shape("PTTL k"), s("PERSIST k"), s("TTL k"), s("PTTL k"),
			s("PERSIST k"), s("PERSIST missing"), s("SET k v EX 1000"), s("SET k w"), s("TTL k"),
			s("TTL"), s("PTTL a b"), s("PERSIST"), s("PERSIST a b"),
			s("SET huge v EXAT " + compatFutureSec), shape("TTL huge"), shape("PTTL huge"),
		}},
		{name: "rename-copy-cross-shard", cmds: []compatCmd{
			a(compatJoin([]string{"MSET"}, compatKV("a", 10))...), s("EXPIRE a2 1000"),
			s("RENAME a1 b7"), s("GET a1"), s("GET b7"), s("RENAME a2 b8"), s("TTL b8"), s("EXISTS a2"),
			s("RENAME missing b9"), s("RENAME a3 a3"), s("GET a3"), s("RENAMENX a3 a3"), s("RENAMENX a4 b7"),
			s("RENAMENX a4 b10"), s("GET b10"), s("EXISTS a4"), s("RENAMENX missing x"), s("RENAME missing missing"),
			s("RENAME b7 b10"), s("GET b10"), s("EXISTS b7"), s("SET b11 x EX 500"), s("RENAME a5 b11"), s("TTL b11"),
			s("SET a8 v EX 700"), s("RENAMENX a8 b12"), s("TTL b12"), s("SET i 99"), s("RENAME i b13"),
			s("OBJECT ENCODING b13"), s("INCR b13"),
			s("COPY a6 b14"), s("GET b14"), s("COPY a6 b14"), s("COPY a6 b14 REPLACE"), s("COPY a6 b14 replace"),
			s("SET a7 v EX 1000"), s("COPY a7 b15"), s("TTL b15"), s("COPY a6 a6"), s("COPY missing b16"),
			s("EXISTS b16"), s("COPY a6 c1 DB 1"), s("COPY a6 c1 DB 1"), s("COPY a6 c1 DB 1 REPLACE"),
			s("COPY a6 c1 DB 16"), s("COPY a6 c1 DB -1"), s("COPY a6 c1 DB abc"), s("COPY a6 c1 FOO"),
			s("COPY a6 c1 DB"), s("COPY a6 c1 REPLACE REPLACE"), s("COPY a6 a6 DB 1"), s("COPY a6 a6 DB 0"),
			s("COPY a7 c2 DB 2"), s("COPY"), s("COPY a6"), s("RENAME a"), s("RENAMENX a b c"),
			s("SELECT 1"), s("GET c1"), s("GET a6"), s("DBSIZE"), u("KEYS *"), s("SELECT 2"), s("TTL c2"),
			s("SELECT 0"), u("KEYS *"), s("DBSIZE"),
		}},
		{name: "move-select-dbsize", cmds: []compatCmd{
			s("SET m v"), s("MOVE m 1"), s("EXISTS m"), s("SELECT 1"), s("GET m"), s("MOVE m 1"), s("MOVE m 0"),
			s("SELECT 0"), s("GET m"), s("SET m x"), s("SELECT 1"), s("SET m y"), s("MOVE m 0"), s("GET m"),
			s("SELECT 0"), s("GET m"), s("MOVE missing 1"), s("MOVE m 16"), s("MOVE m -1"), s("MOVE m abc"),
			s("MOVE m"), s("SELECT 99"), s("SELECT -1"), s("SELECT abc"), s("SELECT 16"), s("SELECT"), s("SELECT 1 2"),
			s("SELECT 4294967296"), s("SELECT 2147483648"), s("SELECT -2147483649"), s("SELECT 9223372036854775808"),
			s("SELECT 15"), s("DBSIZE"), s("SET z 1"), s("DBSIZE"), s("SELECT 0"), s("DBSIZE"),
			s("SET t v EX 1000"), s("MOVE t 2"), s("SELECT 2"), s("TTL t"), s("SELECT 0"),
			a(compatJoin([]string{"MSET"}, compatKV("a", 20))...), s("DBSIZE"), s("FLUSHDB"), s("DBSIZE"),
			s("SELECT 15"), s("DBSIZE"), s("FLUSHDB ASYNC"), s("DBSIZE"), s("SELECT 1"), s("DBSIZE"),
			s("FLUSHDB SYNC"), s("FLUSHDB FOO"), s("FLUSHALL FOO"), s("FLUSHALL SYNC"), s("DBSIZE"), s("DBSIZE x"),
		}},
		{name: "keys-patterns", cmds: []compatCmd{
			a(compatJoin([]string{"MSET"}, compatKV("a", 20), compatKV("b", 5),
				[]string{"h?llo", "1", "hello", "1", "hallo", "1", "hxllo", "1", "a*b", "1", "[x]", "1", "a b", "1"})...),
			u("KEYS *"), u("KEYS a?"), u("KEYS a1*"), u("KEYS a[1-3]"), u("KEYS a[^1]*"), u("KEYS h[ae]llo"),
			u("KEYS h*llo"), u(`KEYS *\?*`), u(`KEYS a\*b`), u(`KEYS \[x\]`), u("KEYS nomatch*"), u("KEYS [a-b]1"),
			u("KEYS a[!1]"), u("KEYS ?"), u("KEYS ??"), u("KEYS *1"), u("KEYS [b]*"), u("KEYS [3-1]*"),
			{args: []string{"KEYS", ""}, mode: compatUnordered}, {args: []string{"KEYS", "a *"}, mode: compatUnordered},
			s("KEYS"), s("KEYS a b"), s("SELECT 1"), s("KEYS *"),
		}},
		{name: "scan", cmds: []compatCmd{
			a(compatJoin([]string{"MSET"}, compatKV("k", 60), []string{"other", "1", "o2", "2"})...),
			scan("SCAN 0"), scan("SCAN 0 COUNT 5"), scan("SCAN 0 COUNT 1"), scan("SCAN 0 MATCH k1*"),
			scan("SCAN 0 MATCH k1* COUNT 1000"), scan("SCAN 0 TYPE string"), scan("SCAN 0 TYPE list"),
			scan("SCAN 0 TYPE STRING"), scan("SCAN 0 MATCH nothing*"), scan("SCAN 0 match o* count 3"),
			scan("SCAN 0 MATCH k? TYPE string COUNT 7"), scan("SCAN 0 TYPE nosuchtype"),
			s("SCAN abc"), s("SCAN 0 COUNT 0"), s("SCAN 0 COUNT -1"), s("SCAN 0 COUNT abc"),
			s("SCAN 0 MATCH"), s("SCAN 0 FOO bar"), s("SCAN 0 TYPE"), s("SCAN"), s("SCAN 18446744073709551616"),
			s("SELECT 3"), scan("SCAN 0"), scan("SCAN 0 MATCH *"),
		}},
		{name: "randomkey-object", cmds: []compatCmd{
			s("RANDOMKEY"), s("RANDOMKEY x"), s("SET only v"), s("RANDOMKEY"), s("DEL only"), s("RANDOMKEY"),
			s("SET i 123"), s("OBJECT ENCODING i"), s("SET e hello"), s("OBJECT ENCODING e"),
			a("SET", "r", long45), s("OBJECT ENCODING r"), a("SET", "e44", long44), s("OBJECT ENCODING e44"),
			s("SET neg -5"), s("OBJECT ENCODING neg"), s("SET big 12345678901234567890"), s("OBJECT ENCODING big"),
			s("SET maxi 9223372036854775807"), s("OBJECT ENCODING maxi"), s("SET lead 0123"), s("OBJECT ENCODING lead"),
			a("SET", "sp", " 12"), s("OBJECT ENCODING sp"), s("SET large 123456789012"), s("OBJECT ENCODING large"),
			s("APPEND e x"), s("OBJECT ENCODING e"), s("OBJECT ENCODING missing"), s("OBJECT FOO i"),
			s("OBJECT ENCODING"), s("OBJECT"), s("SET f 1.5"), s("OBJECT ENCODING f"), s("INCRBYFLOAT f 1"),
			s("OBJECT ENCODING f"), s("INCR i"), s("OBJECT ENCODING i"), s("SETRANGE i 0 9"), s("OBJECT ENCODING i"),
			s("SETEX ti 100 77"), s("OBJECT ENCODING ti"), s("GETSET e 5"), s("OBJECT ENCODING e"),
			s("SET m 1"), s("MSET m 2"), s("OBJECT ENCODING m"),
		}},
		{name: "object-refcount", cmds: []compatCmd{
			s("SET x 7"), s("OBJECT REFCOUNT x"), s("COPY x y"), s("OBJECT REFCOUNT y"), s("OBJECT ENCODING y"),
			s("COPY x {x}z"), s("OBJECT REFCOUNT {x}z"), s("RENAME y y2"), s("OBJECT REFCOUNT y2"),
			s("MOVE y2 1"), s("SELECT 1"), s("OBJECT REFCOUNT y2"), s("COPY y2 y3 DB 0"), s("SELECT 0"),
			s("OBJECT REFCOUNT y3"), s("INCR {x}z"), s("OBJECT REFCOUNT {x}z"), s("SET big 20000"),
			s("COPY big b2"), s("OBJECT REFCOUNT b2"), s("INCR b2"), s("OBJECT REFCOUNT b2"), s("DECRBY b2 19000"),
			s("OBJECT REFCOUNT b2"), s("SET x 8 EX 100"), s("OBJECT REFCOUNT x"), s("COPY x x2"), s("EXPIRE x2 50"),
			s("OBJECT REFCOUNT x2"), s("PERSIST x2"), s("OBJECT REFCOUNT x2"), s("SET s abc"), s("COPY s s2"),
			s("OBJECT REFCOUNT s2"), s("OBJECT REFCOUNT missing"), s("SET neg -3"), s("COPY neg n2"),
			s("OBJECT REFCOUNT neg"), s("OBJECT REFCOUNT n2"), s("COPY x y REPLACE"), s("OBJECT REFCOUNT y"),
			s("SETNX nx 5"), s("OBJECT REFCOUNT nx"), s("GETSET y 6"), s("OBJECT REFCOUNT y"),
		}},
		{name: "errors-and-connection", cmds: []compatCmd{
			s("GET"), s("GET a b"), s("FOO bar baz"), s("FOO"), a("FOO", "a b", "c"), s("get"), s("Get a b"),
			s("ECHO"), s("ECHO hi"), a("ECHO", ""), a("ECHO", "\x00\xff\r\n bin"), s("ECHO a b"),
			s("PING"), s("PING hello"), s("PING a b"), s("ping"),
			s("SELECT 99"), s("CLIENT GETNAME"), s("CLIENT SETNAME myname"), s("CLIENT GETNAME"),
			a("CLIENT", "SETNAME", "a b"), a("CLIENT", "SETNAME", "a\nb"), s("CLIENT GETNAME"),
			a("CLIENT", "SETNAME", ""), s("CLIENT GETNAME"), s("CLIENT SETNAME"), s("CLIENT SETNAME a b"),
			s("CLIENT FOO"), s("CLIENT"),
			s("CONFIG GET maxclients"), s("CONFIG GET nosuchparam"), s("CONFIG SET foo bar"), s("CONFIG"),
			s("CONFIG FOO"), s("CONFIG GET"),
			a("CONFIG", "SET", "save", ""), s("CONFIG GET save"), a("CONFIG", "SET", "save", "abc", "save", ""),
			s("CONFIG SET active-expire-effort 11"), s("CONFIG SET active-expire-effort 0"),
			s("CONFIG SET active-expire-effort x"), s("CONFIG SET active-expire-effort 3"),
			s("CONFIG GET active-expire-effort"), s("CONFIG SET active-expire-effort 1"), s("CONFIG SET hz -1"),
			s("CONFIG SET hz 2147483648"), s("CONFIG SET hz 1000"), s("CONFIG GET hz"), s("CONFIG SET hz 0"),
			s("CONFIG GET hz"), s("CONFIG SET hz 10"), s("CONFIG GET hz"),
			shape("TIME"), s("TIME x"), shape("LASTSAVE"), s("DEBUG SLEEP 0"),
			// COMMAND COUNT is not compared: Redis has many more commands than corekv implements.
			s("COMMAND GETKEYS SET a b"), s("COMMAND GETKEYS MSET a 1 b 2"), s("COMMAND GETKEYS GET"),
			s("COMMAND GETKEYS PING"), s("COMMAND GETKEYS FOO"), s("COMMAND GETKEYS RENAME x y"),
			s("COMMAND GETKEYS DEL a b c"), s("COMMAND GETKEYS OBJECT ENCODING k"), s("COMMAND GETKEYS MSET a"),
			s("COMMAND GETKEYS COPY a b DB 1"), s("COMMAND GETKEYS GETEX k EX 10"), s("COMMAND GETKEYS"),
			s("COMMAND GETKEYS EXPIRE k 10"), s("COMMAND GETKEYS MGET a b c"), s("COMMAND GETKEYS GET a b"),
			s("COMMAND GETKEYS PING x"), s("COMMAND GETKEYS FOO x"), s("COMMAND GETKEYS SET k"),
			s("COMMAND GETKEYS get k"), s("COMMAND GETKEYS MSET a 1 b"), s("COMMAND GETKEYS ECHO x"),
		}},
		{name: "unknown-subcommands", cmds: compatUnknownSubcommands()},
		{name: "config-get-set", cmds: []compatCmd{
			// A plain name is echoed as given, a pattern's matches by their
			// own names; a parameter is answered once, under its first form.
			s("CONFIG GET MAXCLIENTS"), s("CONFIG GET Hz"), a("CONFIG", "GET", "h\\z"), s("CONFIG GET H?"),
			u("CONFIG GET MaxClients maxclients H? hz nosuchparam"), u("CONFIG GET h? HZ"), u("CONFIG GET maxclients maxc*"),
			u("CONFIG GET maxc* MAXCLIENTS"), u("CONFIG GET databases DataBases [d]atabases"),
			s("CONFIG SET a b c"), s("CONFIG SET a"), s("CONFIG SET maxclients 10000 loglevel"), s("CONFIG SET Foo bar"),
			s("CONFIG SET loglevel notice foo bar"), s("CONFIG SET foo bar loglevel x"),
			s("CONFIG SET loglevel foo"), s("CONFIG SET loglevel nothing"), s("CONFIG SET LOGLEVEL NOTHING"),
			s("CONFIG SET LOGLEVEL NOTICE"), s("CONFIG GET loglevel"),
			s("CONFIG SET DATABASES 5"), s("CONFIG SET maxclients 10 MAXCLIENTS 20"),
			s("CONFIG SET maxclients 10 databases 5 maxclients 5"), s("CONFIG SET loglevel bad Databases 5"),
			s("CONFIG SET appendonly no"), s("CONFIG SET appendonly NO"), s("CONFIG SET appendonly 1"),
			a("CONFIG", "SET", "appendonly", ""), s("CONFIG GET appendonly"),
			a("CONFIG", "SET", "client-output-buffer-limit", "foo 0 0 0"),
			a("CONFIG", "SET", "client-output-buffer-limit", "master 0 0 0"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 "),
			a("CONFIG", "SET", "client-output-buffer-limit", " normal 0 0 0"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal  0 0"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 "),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal kb mb +5"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 \t7"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 -0"),
			// The soft seconds end up in a C int, which must not be negative.
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 99999999999999999999"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 -99999999999999999999"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 2147483648"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 4294967296"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 -4294967295"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 +"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 \t"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal +5 0 0"),
			a("CONFIG", "SET", "client-output-buffer-limit", "normal bk 0 0"),
			a("CONFIG", "SET", "client-output-buffer-limit", ""),
			// Every class's limits are kept and shown, though only the normal
			// class's hard limit applies.
			a("CONFIG", "SET", "client-output-buffer-limit", "normal 1gb 512mb 60"), s("CONFIG GET client-output-buffer-limit"),
			a("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1k 2k 4294967297 replica 1 2 3"),
			s("CONFIG GET client-output-buffer-limit"),
			a("CONFIG", "SET", "client-output-buffer-limit", "slave 5 6 7 normal 1 2 3 normal 4 5 6"),
			s("CONFIG GET client-output-buffer-limit"),
			a("CONFIG", "SET", "client-output-buffer-limit",
				"normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"),
			s("CONFIG GET client-output-buffer-limit"),
		}},
		{name: "client-kill-list-filters", cmds: []compatCmd{
			// Each CLIENT KILL filter is checked as it is read: the first bad
			// one decides the error. None of these matches a client.
			s("CLIENT KILL USER nobody"), s("CLIENT KILL USER nobody TYPE foo SKIPME maybe"),
			s("CLIENT KILL TYPE foo USER nobody"), s("CLIENT KILL SKIPME maybe USER nobody"),
			s("CLIENT KILL ID abc USER nobody"), s("CLIENT KILL ID 0"), s("CLIENT KILL ID -1"), s("CLIENT KILL ID +5"),
			s("CLIENT KILL ID 05"), s("CLIENT KILL ID 99999999999999999999"), s("CLIENT KILL ID 987654321"),
			s("CLIENT KILL USER nobody USER nobody LADDR 192.0.2.1:6 LADDR 192.0.2.1:6 192.0.2.1:7"),
			s("CLIENT KILL ADDR 192.0.2.1:5 192.0.2.1:7"), s("CLIENT KILL ADDR 192.0.2.1:5 USER"),
			s("CLIENT KILL ID 987654321 ID"), s("CLIENT KILL MAXAGE 10"), s("CLIENT KILL ADDR 192.0.2.1:5 MAXAGE 10"),
			s("CLIENT KILL MAXAGE 10 USER nobody"), s("CLIENT KILL USER default ADDR 192.0.2.1:5"),
			s("CLIENT KILL USER DEFAULT ADDR 192.0.2.1:5"), s("CLIENT KILL TYPE MASTER"), s("CLIENT KILL TYPE replica"),
			s("CLIENT KILL TYPE Slave SKIPME yes"), s("CLIENT KILL FOO bar ID 0"), s("CLIENT KILL ADDR 192.0.2.1:5 FOO bar"),
			// CLIENT LIST takes TYPE or ID, not both; an ID that is a number
			// but no client's lists nothing.
			s("CLIENT LIST TYPE foo TYPE foo"), s("CLIENT LIST TYPE normal ID 1"), s("CLIENT LIST TYPE foo TYPE pubsub"),
			s("CLIENT LIST ID 0"), s("CLIENT LIST ID -1"), s("CLIENT LIST ID 987654321 987654321"), s("CLIENT LIST ID abc"),
			s("CLIENT LIST ID 0 abc"), s("CLIENT LIST ID 99999999999999999999"), s("CLIENT LIST ID +1"),
			s("CLIENT LIST ID 1 TYPE normal"), s("CLIENT LIST TYPE pubsub"), s("CLIENT LIST TYPE slave"),
			s("CLIENT LIST TYPE MASTER"), s("CLIENT LIST TYPE foo"), s("CLIENT LIST TYPE"), s("CLIENT LIST ID"),
			s("CLIENT LIST FOO"), s("CLIENT LIST type normal extra"),
		}},
		{name: "hello-options-in-order", cmds: []compatCmd{
			// A SETNAME before HELLO's error still names the client.
			s("HELLO 2 SETNAME x FOO"), s("CLIENT GETNAME"), s("HELLO 3 SETNAME v2 FOO"), s("CLIENT GETNAME"),
			s("GET missing"), a("HELLO", "2", "SETNAME", "v3", "SETNAME", "a b"), s("CLIENT GETNAME"),
			s("HELLO 2 SETNAME v4 AUTH nobody pw"), s("CLIENT GETNAME"), s("HELLO 2 AUTH nobody pw SETNAME v5"),
			s("CLIENT GETNAME"), s("HELLO 2 SETNAME v6 AUTH default"), s("CLIENT GETNAME"),
			s("HELLO 2 AUTH default pw SETNAME v7 FOO"), s("CLIENT GETNAME"), s("HELLO 4 SETNAME v8"), s("CLIENT GETNAME"),
			s("HELLO abc SETNAME v9"), s("CLIENT GETNAME"), s("HELLO 2 SETNAME v10 SETNAME"), s("CLIENT GETNAME"),
			compatCmd{args: []string{"HELLO", "2", "SETNAME", ""}, mode: compatShape}, s("CLIENT GETNAME"),
		}},
		{name: "debug-sleep-strtod", cmds: []compatCmd{
			// DEBUG SLEEP reads its time with strtod: text that is no number
			// sleeps 0, trailing text is ignored.
			s("DEBUG SLEEP abc"), a("DEBUG", "SLEEP", ""), s("DEBUG SLEEP 0.01xyz"), a("DEBUG", "SLEEP", " 0.01"),
			s("DEBUG SLEEP -1"), s("DEBUG SLEEP inf"), s("DEBUG SLEEP -inf"), s("DEBUG SLEEP nan"), s("DEBUG SLEEP 1e400"),
			s("DEBUG SLEEP 1e13"), s("DEBUG SLEEP 0x"), s("DEBUG SLEEP 0x1p-7"), s("DEBUG SLEEP 1e-1e"),
			// DEBUG checks its own arguments, with its own error.
			s("DEBUG SLEEP"), s("DEBUG SLEEP 0 0"), s("DEBUG HELP x"), s("DEBUG FOO"), a("DEBUG", strings.Repeat("d", 200)),
			a("DEBUG", "a\x00b"), a("CLIENT", strings.Repeat("c", 200)), a("CONFIG", "c\x00d"),
			s("DEBUG SET-ACTIVE-EXPIRE abc"), s("DEBUG SET-ACTIVE-EXPIRE 1x"), s("DEBUG SET-ACTIVE-EXPIRE 1"),
			s("DEBUG SET-ACTIVE-EXPIRE"),
		}},
		{name: "debug-object", cmds: []compatCmd{
			// DEBUG OBJECT sees a key the expiry has not reached yet (its
			// figures vary: compared by shape); a script then deletes it.
			s("DEBUG SET-ACTIVE-EXPIRE 0"), s("SET dk v PX 1"),
			compatCmd{args: []string{"DEBUG", "OBJECT", "dk"}, mode: compatShape, sleep: 5 * time.Millisecond},
			a("EVAL", "return redis.call('EXISTS', KEYS[1])", "1", "dk"), s("EXISTS dk"), s("DEBUG OBJECT dk"),
			s("DEBUG SET-ACTIVE-EXPIRE 1"), s("DEBUG OBJECT missing"), s("DEBUG OBJECT"), s("DEBUG OBJECT a b"),
			s("RPUSH dl a b c"), shape("DEBUG OBJECT dl"), s("HSET dh f v"), shape("DEBUG OBJECT dh"),
		}},
		{name: "resp3", cmds: []compatCmd{
			shape("HELLO 3"), s("GET missing"), s("SET f 1.5"), s("INCRBYFLOAT f 1"), s("GET f"), s("MGET f missing"),
			s("CLIENT GETNAME"), s("TTL f"), s("EXISTS f"), s("CONFIG GET maxclients"), u("KEYS *"), shape("TIME"),
			s("SET x y GET"), s("SET x z GET"), s("OBJECT ENCODING missing"), s("GETDEL missing"),
			s("GETEX missing"), s("SET i 1"), s("INCR i"), s("PING"), s("ECHO e"), s("GET"),
			s("COMMAND GETKEYS MSET a 1 b 2"), scan("SCAN 0 MATCH f"), s("SELECT 1"), scan("SCAN 0"), s("RANDOMKEY"),
			s("HELLO 4"), s("HELLO abc"), s("HELLO 1"), shape("HELLO 3 SETNAME cli"), s("CLIENT GETNAME"),
			shape("HELLO"), shape("HELLO 2"), s("GET missing"), s("MGET missing"), s("CLIENT GETNAME"),
		}},
		{name: "multi", cmds: []compatCmd{
			s("MULTI"), s("SET a 1"), s("SET b 2"), s("INCR a"), s("MGET a b c d"), s("MSET c 3 d 4"), s("DEL a b"),
			s("EXISTS a b c d"), s("GET"), s("EXEC"), s("EXEC"), s("DISCARD"), s("MULTI"), s("MULTI"), s("WATCH a"),
			s("PING"), s("ECHO x"), s("SELECT 1"), s("SET a in1"), s("SELECT 0"), s("GET a"), s("EXEC"), s("GET a"),
			s("SELECT 1"), s("GET a"), s("SELECT 0"),
			// A command that fails when it runs is answered in place.
			s("MULTI"), s("SET s str"), s("INCR s"), s("RENAME missing x"), s("GET s"), s("EXEC"),
			// Refused while queueing: the block is discarded at EXEC.
			s("MULTI"), s("SET q 1"), s("NOSUCH"), s("EXEC"), s("GET q"),
			s("MULTI"), s("SET q 1"), s("SHUTDOWN NOSAVE"), s("EXEC"), s("GET q"),
			s("MULTI"), s("SET q 1"), s("GET"), s("EXEC"), s("GET q"),
			s("MULTI"), s("SET q 1"), s("EXEC extra"), s("EXEC"), s("GET q"),
			s("MULTI"), s("SET q 1"), s("DISCARD"), s("GET q"), s("EXEC"),
			// WATCH: a key this client changes aborts EXEC; one it does not
			// change does not; EXEC and DISCARD forget the watch.
			s("WATCH c d"), s("SET c changed"), s("MULTI"), s("SET d x"), s("EXEC"), s("GET d"),
			s("WATCH c d"), s("MULTI"), s("SET d y"), s("EXEC"), s("GET d"),
			s("WATCH c"), s("MULTI"), s("DISCARD"), s("SET c z"), s("MULTI"), s("GET c"), s("EXEC"),
			s("WATCH c"), s("UNWATCH"), s("SET c w"), s("MULTI"), s("GET c"), s("EXEC"),
			s("WATCH nokey"), s("DEL nokey"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH c"), s("FLUSHDB"), s("MULTI"), s("PING"), s("EXEC"),
			s("SET c 1"), s("SELECT 2"), s("WATCH c"), s("SELECT 0"), s("SET c 2"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH c"), s("SELECT 2"), s("SET c 3"), s("SELECT 0"), s("MULTI"), s("PING"), s("EXEC"),
			// Multi-key and whole-keyspace commands inside EXEC.
			s("MULTI"), s("MSET k1 1 k2 2 k3 3 k4 4"), s("RENAME k1 k5"), s("COPY k2 k6"), s("MSETNX k7 7 k1 1"),
			s("MGET k1 k2 k3 k4 k5 k6 k7"), s("DBSIZE"), s("KEYS k5"), s("SWAPDB 0 3"), s("DBSIZE"), s("SWAPDB 0 3"),
			s("EXEC"), s("DBSIZE"),
			s("MULTI"), s("FLUSHALL"), s("SET after 1"), s("EXEC"), s("DBSIZE"),
			s("MULTI"), s("EXEC"), shape("HELLO 3"), s("WATCH z"), s("SET z 1"), s("MULTI"), s("PING"), s("EXEC"),
			s("MULTI"), s("GET z"), s("EXEC"),
		}},
		{name: "watch-aggregates", cmds: []compatCmd{
			// What touches a watched hash or set, small and big (thresholds
			// lowered so that 7 elements make a hashtable), as Redis decides.
			s("CONFIG SET hash-max-listpack-entries 4"), s("CONFIG SET set-max-intset-entries 4"),
			s("HSET h a 1"), s("WATCH h"), s("HSET h a 1"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH h"), s("HDEL h nope"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH h"), s("HSETNX h a 2"), s("MULTI"), s("PING"), s("EXEC"),
			s("HSET big a 1 b 2 c 3 d 4 e 5 f 6"), s("WATCH big"), s("HSET big g 7"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH big"), s("HDEL big nope"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH big"), s("HDEL big a"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH big"), s("HINCRBY big b 5"), s("MULTI"), s("PING"), s("EXEC"),
			s("SADD s 1 2"), s("WATCH s"), s("SADD s 1"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH s"), s("SADD s 3"), s("MULTI"), s("PING"), s("EXEC"),
			s("SADD bs 1 2 3 4 5 6 7"), s("WATCH bs"), s("SADD bs 1"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH bs"), s("SADD bs 8"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH bs"), s("SREM bs nope"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH bs"), s("SREM bs 8"), s("MULTI"), s("PING"), s("EXEC"),
			s("SADD {s}2 x y z w v u t"), s("WATCH {s}2"), s("SMOVE {s}2 {s}other x"), s("MULTI"), s("PING"), s("EXEC"),
			s("WATCH {s}other"), s("SMOVE {s}2 {s}other y"), s("MULTI"), s("PING"), s("EXEC"),
			s("CONFIG SET hash-max-listpack-entries 512"), s("CONFIG SET set-max-intset-entries 512"),
		}},
		{name: "multi-pipeline", pipeline: true, cmds: []compatCmd{
			s("MULTI"), s("SET a 1"), s("SET b 2"), s("EXEC"), s("MGET a b"), s("MSET a 3 b 4 c 5"), s("MGET a b c"),
			s("RENAME a z"), s("GET z"), s("MULTI"), s("RENAME z a"), s("GET a"), s("GET z"), s("EXEC"), s("GET a"),
			s("SWAPDB 0 1"), s("MGET a b c"), s("SWAPDB 1 0"), s("MGET a b c"), s("RESET"), s("MULTI"), s("RESET"),
			s("EXEC"),
		}},
		{name: "swapdb", cmds: []compatCmd{
			s("SET a 1"), s("SWAPDB 0 1"), s("GET a"), s("SELECT 1"), s("GET a"), s("SWAPDB 1 1"), s("GET a"),
			s("SWAPDB a 1"), s("SWAPDB 0 b"), s("SWAPDB 0 16"), s("SWAPDB -1 0"), s("SWAPDB 0"), s("SWAPDB 1 0"),
			s("SELECT 0"), s("GET a"), s("SET e v PX 100000"), s("SWAPDB 0 2"), s("SELECT 2"), s("TTL e"),
		}},
		{name: "inline", cmds: []compatCmd{
			in("SET x 1\r\n"), in("GET \"x\"\r\n"), in("PING\r\n"), in("ECHO 'single quoted'\r\n"),
			in("SET \"a b\" \"c\\x41d\"\r\n"), in("GET \"a b\"\r\n"), in("  GET   x  \r\n"), in("get x\n"),
			in("EXISTS x \"a b\" y\r\n"), in("FOO bar\r\n"), in("INCR x\r\nGET x\r\n"), s("GET x"),
			in("ECHO \"tab\\there\\n\"\r\n"), in("ECHO ''\r\n"), in("GET\r\n"),
			in("GET \"unbalanced\r\n"), s("PING"),
		}},
		{name: "scripting", cmds: compatScriptingScripts()},
		{name: "functions", cmds: compatFunctionScripts()},
		{name: "debug protocol", cmds: compatDebugProtocolScripts()},
	}, append(append(append(compatHashScripts(), compatListScripts()...), compatZSetScripts()...), compatGeoScripts()...)...)
}

// compatUnknownSubcommands asks every container for subcommands it lacks:
// plain, in capitals, longer than the 128 bytes the error keeps (cut inside
// a two-byte character), with a NUL, with CR LF, empty, and with printf
// verbs; then the subcommands that check their own arguments.
func compatUnknownSubcommands() []compatCmd {
	long := strings.Repeat("x", 127) + "\u00e9yyyy"
	subs := []string{"foo", "Foo", long, "a\x00b", "a\r\nb", "", "%s%n"}
	var cmds []compatCmd
	for _, c := range []string{"CONFIG", "client", "Object", "MEMORY", "PUBSUB", "LATENCY", "COMMAND", "SLOWLOG", "DEBUG"} {
		for _, sub := range subs {
			cmds = append(cmds, compatA(c, sub), compatA(c, sub, "k"))
		}
	}
	return append(cmds, compatS("SLOWLOG GET 1 2"), compatS("slowlog Get 1 2"), compatS("PUBSUB CHANNELS a b"),
		compatS("PUBSUB shardchannels a b"), compatS("DEBUG SLEEP"), compatS("DEBUG HELP x"))
}

func TestCompatWithRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	scripts := compatScripts()
	bin := corekvBinary(t)
	redisAddr := compatStartRedis(t, redisPath)
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			for _, sc := range scripts {
				var res compatResult
				t.Run(sc.name, func(t *testing.T) {
					res = compatRunScript(t, redisAddr, srv.addr, shards, sc)
				})
				if res.corekvLost {
					// The connection died: give a crashing process a moment
					// to exit.
					for i := 0; i < 100 && !srv.exited(); i++ {
						time.Sleep(10 * time.Millisecond)
					}
				}
				if srv.exited() {
					// A crash fails the test whatever the script expected,
					// and must not hide the scripts after it: report it and
					// start a fresh server for them.
					srv.watch.report(t, fmt.Sprintf("corekv --shards %d", shards), fmt.Sprintf("during script %q", sc.name))
					srv = compatStartCorekv(t, bin, shards)
				}
			}
		})
	}
}

// compatStop ends a child process: SIGTERM, then SIGKILL after a grace
// period.
func compatStop(t testing.TB, cmd *exec.Cmd, done <-chan struct{}) {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Logf("%s did not stop on SIGTERM; killing it", filepath.Base(cmd.Path))
		_ = cmd.Process.Kill()
		<-done
	}
}

func compatFreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// compatStartRedis starts redis-server without persistence on a free port,
// with extra arguments after the defaults, and waits until it answers PING.
func compatStartRedis(t *testing.T, path string, extra ...string) string {
	t.Helper()
	port := compatFreePort(t)
	logs := &safeBuffer{}
	args := append([]string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--enable-debug-command", "yes", "--dir", t.TempDir(), "--loglevel", "warning"}, extra...)
	cmd := exec.Command(path, args...)
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() { compatStop(t, cmd, done) })
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-done:
			t.Fatalf("redis-server exited during start-up:\n%s", logs.String())
		default:
		}
		if c, err := compatDial(addr); err == nil {
			rep, err := c.do(compatS("PING"))
			c.close()
			if err == nil && string(rep.raw) == "+PONG\r\n" {
				return addr
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redis-server did not answer PING on %s:\n%s", addr, logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var compatPortRE = regexp.MustCompile(`\bport=(\d+)`)

// compatCorekv is a running corekv process.
type compatCorekv struct {
	addr  string
	pid   int
	logs  *safeBuffer
	watch *exitWatch
}

// exited reports whether the process has ended (crashed).
func (s *compatCorekv) exited() bool { return s.watch.hasExited() }

// compatStartCorekv starts the built server with --port 0 (and extra
// options) and reads the port it picked from its ready line.
func compatStartCorekv(t testing.TB, bin string, shards int, extra ...string) *compatCorekv {
	t.Helper()
	// DEBUG is on in both servers (redis-server too), so DEBUG SLEEP compares.
	args := append([]string{"--port", "0", "--bind", "127.0.0.1", "--shards", strconv.Itoa(shards), "--enable-debug-command", "yes"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Dir = t.TempDir() // where its snapshots go (dir)
	srv := &compatCorekv{logs: &safeBuffer{}}
	srv.watch = newExitWatch(srv.logs)
	cmd.Stdout = srv.logs
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start corekv: %v", err)
	}
	srv.pid = cmd.Process.Pid
	portc := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			_, _ = srv.logs.Write([]byte(line + "\n"))
			if m := compatPortRE.FindStringSubmatch(line); m != nil {
				select {
				case portc <- m[1]:
				default:
				}
			}
		}
		_, _ = io.Copy(srv.logs, stderr)
	}()
	go func() {
		<-copied // Wait closes the pipe: read all of it first
		srv.watch.exited(cmd.Wait())
	}()
	t.Cleanup(func() {
		srv.watch.report(t, fmt.Sprintf("corekv --shards %d", shards), "before the test ended")
		srv.watch.expect()
		compatStop(t, cmd, srv.watch.done)
		out := srv.logs.String()
		if strings.Contains(out, "WARNING: DATA RACE") {
			t.Errorf("the race detector reported a data race in corekv --shards %d:\n%s", shards, out)
			return
		}
		if t.Failed() {
			t.Logf("corekv --shards %d output:\n%s", shards, out)
		}
	})
	select {
	case port := <-portc:
		srv.addr = net.JoinHostPort("127.0.0.1", port)
		return srv
	case <-srv.watch.done:
		t.Fatalf("corekv exited during start-up (%v):\n%s", srv.watch.err, srv.logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("corekv did not report its port:\n%s", srv.logs.String())
	}
	return nil
}

// compatConn is a raw RESP connection.
type compatConn struct {
	c net.Conn
	r *bufio.Reader
}

func compatDial(addr string) (*compatConn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &compatConn{c: c, r: bufio.NewReader(c)}, nil
}

func (c *compatConn) close() { c.c.Close() }

// compatEncode writes a command as a RESP multibulk, or its inline frame.
func compatEncode(dst []byte, cmd compatCmd) []byte {
	if cmd.inline != "" {
		return append(dst, cmd.inline...)
	}
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(cmd.args)), 10)
	dst = append(dst, "\r\n"...)
	for _, a := range cmd.args {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, "\r\n"...)
		dst = append(dst, a...)
		dst = append(dst, "\r\n"...)
	}
	return dst
}

func (c *compatConn) send(b []byte) error {
	_ = c.c.SetWriteDeadline(time.Now().Add(3 * time.Second))
	_, err := c.c.Write(b)
	return err
}

func (c *compatConn) read() (*compatReply, error) {
	_ = c.c.SetReadDeadline(time.Now().Add(3 * time.Second))
	return compatReadReply(c.r)
}

// do sends one command and reads one reply.
func (c *compatConn) do(cmd compatCmd) (*compatReply, error) {
	if err := c.send(compatEncode(nil, cmd)); err != nil {
		return nil, err
	}
	return c.read()
}

// compatReply is one complete RESP2/RESP3 reply: its raw bytes, its type
// byte and, for aggregates, its elements (maps and attributes: keys and
// values alternating).
type compatReply struct {
	kind  byte
	raw   []byte
	elems []*compatReply
}

// compatReadReply reads exactly one reply, whatever its type.
func compatReadReply(r *bufio.Reader) (*compatReply, error) {
	line, err := r.ReadBytes('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("malformed reply line %q", line)
	}
	rep := &compatReply{kind: line[0], raw: line}
	body := string(line[1 : len(line)-2])
	switch rep.kind {
	case '+', '-', ':', '_', ',', '#', '(':
		return rep, nil
	case '$', '!', '=':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("bad length in %q", line)
		}
		if n < 0 {
			return rep, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return nil, fmt.Errorf("bulk of %d bytes not followed by CRLF: %q", n, buf)
		}
		rep.raw = append(rep.raw, buf...)
		return rep, nil
	case '*', '~', '>', '%', '|':
		n, err := strconv.Atoi(body)
		if err != nil {
			return nil, fmt.Errorf("bad length in %q", line)
		}
		if rep.kind == '%' || rep.kind == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			e, err := compatReadReply(r)
			if err != nil {
				return nil, err
			}
			rep.elems = append(rep.elems, e)
			rep.raw = append(rep.raw, e.raw...)
		}
		if rep.kind == '|' {
			// An attribute precedes the reply it describes: keep both.
			next, err := compatReadReply(r)
			if err != nil {
				return nil, err
			}
			rep.elems = append(rep.elems, next)
			rep.raw = append(rep.raw, next.raw...)
		}
		return rep, nil
	}
	return nil, fmt.Errorf("unknown reply type in %q", line)
}

// compatSorted returns the reply's bytes with the elements of every array,
// set or map sorted (map entries as key/value pairs).
func compatSorted(r *compatReply) []byte {
	if len(r.elems) == 0 {
		return r.raw
	}
	var parts [][]byte
	if r.kind == '%' {
		for i := 0; i+1 < len(r.elems); i += 2 {
			parts = append(parts, append(append([]byte(nil), compatSorted(r.elems[i])...), compatSorted(r.elems[i+1])...))
		}
	} else {
		for _, e := range r.elems {
			parts = append(parts, compatSorted(e))
		}
	}
	sort.Slice(parts, func(i, j int) bool { return bytes.Compare(parts[i], parts[j]) < 0 })
	hdr := r.raw[:bytes.IndexByte(r.raw, '\n')+1]
	return append(append([]byte(nil), hdr...), bytes.Join(parts, nil)...)
}

// compatShapeOf describes a reply without its values: the type bytes, and
// for aggregates their lengths.
func compatShapeOf(r *compatReply) string {
	switch r.kind {
	case '*', '~', '>', '%', '|':
		parts := make([]string, len(r.elems))
		for i, e := range r.elems {
			parts[i] = compatShapeOf(e)
		}
		return fmt.Sprintf("%c%d[%s]", r.kind, len(r.elems), strings.Join(parts, " "))
	case '$':
		if bytes.HasPrefix(r.raw, []byte("$-1")) {
			return "$nil"
		}
	}
	return string(r.kind)
}

// compatOutcome is what one server answered to one step: what is compared
// and what is shown.
type compatOutcome struct {
	key  string // compared between the servers
	show string // printed on a mismatch
	err  error  // the connection failed: the script stops here
}

func compatFromReply(cmd compatCmd, rep *compatReply, err error) compatOutcome {
	if err != nil {
		var ne net.Error
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
			return compatOutcome{key: "<connection closed>", show: "<connection closed>", err: err}
		case errors.As(err, &ne) && ne.Timeout():
			return compatOutcome{key: "<no reply: timeout>", show: "<no reply: timeout>", err: err}
		}
		return compatOutcome{key: "<error>", show: "<error: " + err.Error() + ">", err: err}
	}
	show := strconv.Quote(string(rep.raw))
	switch cmd.mode {
	case compatUnordered:
		return compatOutcome{key: string(compatSorted(rep)), show: show}
	case compatShape:
		sh := compatShapeOf(rep)
		return compatOutcome{key: sh, show: "shape " + sh + ": " + show}
	}
	return compatOutcome{key: string(rep.raw), show: show}
}

// compatScanAll iterates SCAN from cursor 0 until the server returns cursor
// 0 and reports the set of keys seen. An error reply is compared as is.
func compatScanAll(c *compatConn, cmd compatCmd) compatOutcome {
	args := append([]string(nil), cmd.args...)
	seen := map[string]bool{}
	for round := 0; ; round++ {
		if round > 10000 {
			return compatOutcome{key: "<scan did not end>", show: "<scan did not reach cursor 0 in 10000 calls>"}
		}
		rep, err := c.do(compatCmd{args: args})
		if err != nil || rep.kind == '-' {
			return compatFromReply(cmd, rep, err)
		}
		if rep.kind != '*' || len(rep.elems) != 2 || rep.elems[1].kind != '*' {
			return compatOutcome{key: "<bad scan reply>", show: "<bad scan reply " + strconv.Quote(string(rep.raw)) + ">"}
		}
		for _, k := range rep.elems[1].elems {
			seen[string(compatBulk(k))] = true
		}
		cursor := string(compatBulk(rep.elems[0]))
		if cursor == "0" {
			break
		}
		args[1] = cursor
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	show := fmt.Sprintf("%d keys %q", len(keys), keys)
	return compatOutcome{key: show, show: show}
}

// compatBulk returns the payload of a bulk string reply.
func compatBulk(r *compatReply) []byte {
	i := bytes.IndexByte(r.raw, '\n')
	if r.kind != '$' || i < 0 || len(r.raw) < i+3 {
		return r.raw
	}
	return r.raw[i+1 : len(r.raw)-2]
}

// compatResult sums up a script run.
type compatResult struct {
	corekvLost bool // the connection to corekv failed
}

// compatRunScript runs one script on fresh connections to both servers and
// reports every step whose replies differ.
func compatRunScript(t *testing.T, redisAddr, corekvAddr string, shards int, sc compatScript) (res compatResult) {
	names := [2]string{"redis", "corekv"}
	var conns [2]*compatConn
	for i, addr := range []string{redisAddr, corekvAddr} {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatalf("dial %s: %v", names[i], err)
		}
		defer c.close()
		rep, err := c.do(compatS("FLUSHALL"))
		if err != nil || string(rep.raw) != "+OK\r\n" {
			t.Fatalf("FLUSHALL on %s: %v %q", names[i], err, func() []byte {
				if rep == nil {
					return nil
				}
				return rep.raw
			}())
		}
		conns[i] = c
	}

	var results [2][]compatOutcome
	if sc.pipeline {
		for i, c := range conns {
			var buf []byte
			for _, cmd := range sc.cmds {
				buf = compatEncode(buf, cmd)
			}
			if err := c.send(buf); err != nil {
				t.Fatalf("%s: write pipeline: %v", names[i], err)
			}
			for _, cmd := range sc.cmds {
				rep, err := c.read()
				out := compatFromReply(cmd, rep, err)
				results[i] = append(results[i], out)
				if out.err != nil {
					break
				}
			}
		}
	}

	for n, cmd := range sc.cmds {
		var outs [2]compatOutcome
		if sc.pipeline {
			for i := range outs {
				if n < len(results[i]) {
					outs[i] = results[i][n]
				} else {
					outs[i] = compatOutcome{key: "<not read>", show: "<not read: pipeline stopped>", err: io.EOF}
				}
			}
		} else {
			if cmd.sleep > 0 {
				time.Sleep(cmd.sleep)
			}
			for i, c := range conns {
				if cmd.mode == compatScan {
					outs[i] = compatScanAll(c, cmd)
				} else {
					rep, err := c.do(cmd)
					outs[i] = compatFromReply(cmd, rep, err)
				}
			}
		}
		if outs[0].key != outs[1].key {
			msg := fmt.Sprintf("step %d: %s\n\tredis:  %s\n\tcorekv: %s", n+1, cmd, outs[0].show, outs[1].show)
			if cmd.isKnown(shards) {
				t.Logf("known difference (%s): %s", cmd.knownDiff, msg)
			} else {
				t.Errorf("reply differs: %s", msg)
			}
		} else if cmd.isKnown(shards) {
			t.Logf("step %d: %s is marked as a known difference (%s) but matched Redis this time: remove the mark once it is fixed",
				n+1, cmd, cmd.knownDiff)
		}
		if outs[1].err != nil {
			res.corekvLost = true
		}
		if outs[0].err != nil || outs[1].err != nil {
			// A closed or stuck connection ends the script: later replies
			// would be read out of step.
			if outs[0].err == nil || outs[1].err == nil || outs[0].key != outs[1].key {
				t.Logf("stopping script %q after step %d: redis %v, corekv %v", sc.name, n+1, outs[0].err, outs[1].err)
			}
			return res
		}
	}
	return res
}
