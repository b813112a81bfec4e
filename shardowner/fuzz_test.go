package shardowner_test

// The fuzz targets drive the real command handlers, in process, with fuzzed
// argument lists, the way the router calls them: the command comes from the
// router's table and argv passes the table's arity check. Whatever the
// arguments, a handler must not panic, must write exactly one well-formed
// reply (no CR or LF inside a status or error line, lengths that match), and
// must leave every table of the shard consistent (kvtable's Check).
//
//	go test -run XXX -fuzz FuzzCommand -fuzztime 5m ./shardowner/
//	go test -run XXX -fuzz FuzzCommandSequence -fuzztime 5m ./shardowner/
//
// Without -fuzz, the seed corpus runs as an ordinary test.

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// fuzzNow is the shard clock the targets start from, in Unix ms.
const fuzzNow = 1_700_000_000_000

// fuzzCommands are the client commands that run on a shard, in table order.
// Connection and server commands (PING, CLIENT, CONFIG, …) run in the
// reactor and internal shard-to-shard commands take only what the router
// builds, so neither is here.
var fuzzCommands = func() []*router.Command {
	var out []*router.Command
	all := router.Commands()
	for i := range all {
		if c := &all[i]; c.Run != nil && !c.Internal {
			out = append(out, c)
		}
	}
	return out
}()

// fuzzValues are arguments at and beyond the edges of what handlers parse.
var fuzzValues = []string{"", "0", "-0", "1", "-1", "+1", "01", " 1", "1 ", "0x10", "1e3", "1.5", "inf", "-inf", "nan",
	"1e400", "-1e400", "9223372036854775807", "-9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999", "536870911",
	"536870912", "4294967296", "2147483647", "k", "n", "t", "big", "missing", "\r\n", "a\r\nb", "\xff\xfe", "EX", "PX",
	"EXAT", "PXAT", "KEEPTTL", "PERSIST", "NX", "XX", "GT", "LT", "GET", "REPLACE", "DB", "MATCH", "COUNT", "TYPE",
	"SAMPLES", "ENCODING", "FREQ", "IDLETIME", "REFCOUNT", "HELP", "USAGE", "ASYNC", "SYNC", "*", "[", "\\", "LEFT", "RIGHT",
	"BEFORE", "AFTER", "RANK", "MAXLEN", "l", "ls"}

// fuzzJoin packs arguments into one fuzz input: NUL separates them.
func fuzzJoin(args ...string) []byte {
	var b []byte
	for i, a := range args {
		if i > 0 {
			b = append(b, 0)
		}
		b = append(b, a...)
	}
	return b
}

// fuzzShard returns a shard holding a few keys of every kind the handlers
// distinguish: text, an integer, a key with a TTL, a longer value, an empty
// one, and a key in another database.
func fuzzShard() *shardowner.Shard {
	s := shardowner.NewShard(0, 1, 16)
	s.Clock.Ms = fuzzNow
	// Every command enters the slow log, as the call path logs it.
	s.Slowlog = shardowner.NewSlowlogConfig()
	s.Slowlog.SlowerThan.Store(0)
	s.Slowlog.MaxLen.Store(8)
	db := s.DBs[0]
	db.SetString([]byte("k"), []byte("hello"), 0)
	db.SetInt([]byte("n"), 42, 0)
	db.SetString([]byte("t"), []byte("v"), fuzzNow+10_000)
	db.SetString([]byte("big"), bytes.Repeat([]byte("x"), 100), 0)
	db.SetString([]byte("e"), nil, 0)
	s.DBs[1].SetString([]byte("k"), []byte("one"), 0)
	// Small thresholds, so that a few writes convert a hash.
	s.Enc.HashMaxEntries.Store(4)
	s.Enc.HashMaxValue.Store(8)
	c := &shardowner.Ctx{Shard: s, W: &resp.Writer{}}
	shardowner.HSet(c, [][]byte{[]byte("hset"), []byte("h"), []byte("f"), []byte("1"), []byte("g"), []byte("v")})
	shardowner.HSet(c, [][]byte{[]byte("hset"), []byte("hb"), []byte("f"), []byte("a long value")})
	s.Enc.SetMaxIntset.Store(4)
	shardowner.SAdd(c, [][]byte{[]byte("sadd"), []byte("si"), []byte("1"), []byte("-70000")})
	shardowner.SAdd(c, [][]byte{[]byte("sadd"), []byte("ss"), []byte("a"), []byte("b")})
	// Nodes of 2, so that a list of 3 is in nodes.
	s.Enc.ListMaxListpack.Store(2)
	shardowner.RPush(c, [][]byte{[]byte("rpush"), []byte("l"), []byte("a"), []byte("b"), []byte("c"), []byte("a")})
	shardowner.RPush(c, [][]byte{[]byte("rpush"), []byte("ls"), []byte("x")})
	s.Enc.ZSetMaxEntries.Store(4)
	shardowner.ZAdd(c, [][]byte{[]byte("zadd"), []byte("zs"), []byte("1"), []byte("a"), []byte("2"), []byte("b")})
	zb := [][]byte{[]byte("zadd"), []byte("zb")}
	for i := range 300 {
		zb = append(zb, []byte(strconv.Itoa(i%7)), []byte("m"+strconv.Itoa(i)))
	}
	shardowner.ZAdd(c, zb)
	return s
}

// fuzzRun runs one command with the given arguments (NUL-separated in raw)
// and checks the reply. It reports false when the router would not call
// the handler with this argv, or when the input only asks for a huge but
// legitimate allocation.
func fuzzRun(t *testing.T, c *shardowner.Ctx, cmd *router.Command, raw []byte) bool {
	argv := append([][]byte{cmd.NameBytes()}, bytes.Split(raw, []byte{0})...)
	if len(raw) == 0 && !cmd.ArityOK(2) {
		argv = argv[:1] // no arguments at all
	}
	if !cmd.ArityOK(len(argv)) || len(argv) > 64 {
		return false
	}
	if cmd.Name == "setrange" && len(argv) == 4 && len(argv[3]) > 0 {
		// An offset up to 512 MB is valid and makes the value that long.
		if off, err := strconv.ParseInt(string(argv[2]), 10, 64); err == nil && off > 1<<20 && off <= 512<<20-int64(len(argv[3])) {
			return false
		}
	}
	if bigBitWrite(cmd.Name, argv) {
		return false
	}
	c.W.B = c.W.B[:0]
	router.Call(c, cmd, argv, router.Origin{}, router.Now())
	if c.Blocked {
		// A blocking command that found nothing parks without a reply.
		c.Blocked = false
		if len(c.W.B) != 0 || cmd.Flags&router.FlagBlocking == 0 {
			t.Fatalf("%s %q: parked with reply %q", cmd.Name, argv[1:], c.W.B)
		}
		return true
	}
	n, err := fuzzReply(c.W.B)
	if err == nil && n != len(c.W.B) {
		err = fmt.Errorf("%d bytes after the reply", len(c.W.B)-n)
	}
	if err != nil {
		t.Fatalf("%s %q: reply %q: %v", cmd.Name, argv[1:], c.W.B, err)
	}
	for i, db := range c.Shard.DBs {
		if err := db.Check(); err != nil {
			t.Fatalf("%s %q: database %d inconsistent: %v", cmd.Name, argv[1:], i, err)
		}
	}
	return true
}

// FuzzCommand runs one command, chosen by which, with fuzzed arguments on a
// shard that holds a few keys.
func FuzzCommand(f *testing.F) {
	shardowner.SkipUnderRace(f)
	for i, cmd := range fuzzCommands {
		// Every command with no arguments, then with each edge value in
		// each of its first positions, next to a key.
		f.Add(uint8(i), false, []byte(nil))
		for _, v := range fuzzValues {
			f.Add(uint8(i), false, fuzzJoin("k", v))
			f.Add(uint8(i), true, fuzzJoin("n", v, "x"))
			f.Add(uint8(i), false, fuzzJoin("t", "1", v))
			f.Add(uint8(i), false, fuzzJoin("k", "0", "1", v))
		}
		switch cmd.Name {
		case "set", "getex":
			for _, o := range []string{"EX", "PX", "EXAT", "PXAT"} {
				for _, v := range []string{"9223372036854775807", "-9223372036854775808", "9223372036854776", "0", "1"} {
					f.Add(uint8(i), false, fuzzJoin("k", "v", o, v))
					f.Add(uint8(i), false, fuzzJoin("t", o, v))
				}
			}
		case "setrange", "getrange", "substr":
			for _, off := range []string{"9223372036854775807", "9223372036854775806", "-9223372036854775808", "536870911", "536870912"} {
				f.Add(uint8(i), false, fuzzJoin("k", off, "xy"))
				f.Add(uint8(i), false, fuzzJoin("k", "0", off))
				f.Add(uint8(i), false, fuzzJoin("missing", off, ""))
			}
		case "incrby", "decrby", "incrbyfloat", "append":
			for _, v := range []string{"9223372036854775807", "-9223372036854775808", "1e308", "1.7976931348623157e308"} {
				f.Add(uint8(i), false, fuzzJoin("n", v))
			}
		case "scan":
			f.Add(uint8(i), false, fuzzJoin("0", "COUNT", "9223372036854775807", "MATCH", "*", "TYPE", "string"))
		case "copy":
			f.Add(uint8(i), false, fuzzJoin("k", "k2", "DB", "1", "REPLACE"))
			f.Add(uint8(i), false, fuzzJoin("k", "k", "DB", "1"))
			f.Add(uint8(i), false, fuzzJoin("hb", "h", "REPLACE"))
		case "hrandfield":
			for _, v := range []string{"-9223372036854775807", "-4611686018427387903", "-1048577", "-3", "3", "100"} {
				f.Add(uint8(i), false, fuzzJoin("h", v, "WITHVALUES"))
				f.Add(uint8(i), true, fuzzJoin("hb", v, "WITHVALUES"))
				f.Add(uint8(i), false, fuzzJoin("hb", v))
			}
		case "hscan":
			f.Add(uint8(i), false, fuzzJoin("hb", "0", "COUNT", "9223372036854775807", "MATCH", "*"))
			f.Add(uint8(i), false, fuzzJoin("h", "0", "MATCH", "f*"))
		case "sadd", "srem", "smismember", "sismember", "spop", "srandmember", "smove":
			f.Add(uint8(i), false, fuzzJoin("si", "5", "x", "9223372036854775807"))
			f.Add(uint8(i), true, fuzzJoin("ss", "-2", "a"))
			f.Add(uint8(i), false, fuzzJoin("si", "ss", "1"))
		case "sinter", "sunion", "sdiff", "sinterstore", "sunionstore", "sdiffstore":
			f.Add(uint8(i), false, fuzzJoin("si", "ss", "k", "missing"))
			f.Add(uint8(i), true, fuzzJoin("si", "si", "ss"))
		case "zadd", "zincrby", "zrem", "zscore", "zrank", "zrange", "zrangebyscore", "zrangebylex", "zrevrange",
			"zremrangebyscore", "zremrangebylex", "zremrangebyrank", "zpopmin", "zrandmember", "zscan", "zrangestore":
			f.Add(uint8(i), false, fuzzJoin("zs", "1", "x", "(2", "+inf"))
			f.Add(uint8(i), true, fuzzJoin("zb", "(1", "[m5", "WITHSCORES", "LIMIT", "0", "3"))
			f.Add(uint8(i), false, fuzzJoin("zb", "-1", "5", "BYSCORE", "REV"))
			f.Add(uint8(i), false, fuzzJoin("zs", "zb", "[a", "+", "BYLEX"))
		case "hset", "hmset", "hsetnx", "hincrby", "hincrbyfloat", "hdel":
			f.Add(uint8(i), false, fuzzJoin("h", "f", "123456789"))
			f.Add(uint8(i), false, fuzzJoin("h", "x", "1", "y", "2", "z", "3"))
			f.Add(uint8(i), false, fuzzJoin("hb", "f", "1.5"))
			f.Add(uint8(i), false, fuzzJoin("h", "f", "g"))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, resp3 bool, raw []byte) {
		c := &shardowner.Ctx{Shard: fuzzShard(), W: &resp.Writer{}}
		if resp3 {
			c.W.Proto = 3
		}
		fuzzRun(t, c, fuzzCommands[int(which)%len(fuzzCommands)], raw)
	})
}

// FuzzCommandSequence runs a series of commands on one shard: a line per
// command, its first byte choosing the command, its second the protocol
// (bit 7) and the database (bit 6), and the rest its NUL-separated
// arguments. The clock moves on between commands, so that
// keys expire on the way.
func FuzzCommandSequence(f *testing.F) {
	line := func(name string, args ...string) []byte {
		for i, c := range fuzzCommands {
			if c.Name == name {
				return append([]byte{byte(i), 0}, fuzzJoin(args...)...)
			}
		}
		panic("no command " + name)
	}
	seq := func(lines ...[]byte) []byte { return bytes.Join(lines, []byte("\n")) }
	f.Add(seq(line("set", "a", "1", "PX", "5"), line("incr", "a"), line("get", "a"), line("ttl", "a"), line("dbsize")))
	f.Add(seq(line("setrange", "s", "100", "x"), line("append", "s", "yz"), line("getrange", "s", "-3", "-1"), line("strlen", "s")))
	f.Add(seq(line("mset", "a", "1", "b", "2"), line("rename", "a", "b"), line("copy", "b", "c", "DB", "2"), line("move", "c", "2"), line("keys", "*")))
	f.Add(seq(line("set", "f", "1.5"), line("incrbyfloat", "f", "1e308"), line("incrbyfloat", "f", "1e308"), line("object", "ENCODING", "f")))
	f.Add(seq(line("set", "x", "9223372036854775806"), line("incr", "x"), line("incr", "x"), line("decrby", "x", "-9223372036854775808")))
	f.Add(seq(line("setex", "e", "1", "v"), line("pexpire", "e", "10", "GT"), line("expire", "e", "100", "LT"), line("persist", "e"), line("scan", "0", "TYPE", "string")))
	f.Add(seq(line("append", "big", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), line("setrange", "big", "9223372036854775806", "ab"), line("getdel", "big")))
	f.Add(seq(line("set", "k", string(bytes.Repeat([]byte("v"), 200))), line("slowlog", "GET", "2"), line("slowlog", "LEN"), line("slowlog", "RESET"), line("slowlog", "GET", "-1")))
	f.Add(seq(line("set", "k", "v", "EXAT", "1"), line("randomkey"), line("flushdb"), line("randomkey"), line("memory", "USAGE", "k")))
	f.Add(seq(line("hset", "h", "a", "1", "b", "2"), line("hincrby", "h", "a", "5"), line("hset", "h", "c", "3", "d", "4", "e", "5"),
		line("object", "ENCODING", "h"), line("hdel", "h", "a", "b", "c", "d"), line("hgetall", "h"), line("rename", "h", "k"),
		line("copy", "k", "k2"), line("move", "k2", "1"), line("expire", "k", "1"), line("hrandfield", "k", "-5", "WITHVALUES")))
	f.Add(seq(line("sadd", "s", "1", "2", "3"), line("sadd", "s", "4", "5"), line("object", "ENCODING", "s"), line("sadd", "t", "x", "1"),
		line("sinterstore", "u", "s", "t"), line("sdiffstore", "s", "s", "t"), line("spop", "s", "2"), line("smove", "t", "s", "x"),
		line("srandmember", "s", "-3"), line("sscan", "s", "0", "MATCH", "*"), line("rename", "s", "k"), line("srem", "k", "2", "3", "4", "5", "x")))
	f.Add(seq(line("hset", "x", "f", "a long value!"), line("hincrbyfloat", "x", "g", "1.5"), line("hscan", "x", "0", "COUNT", "1"),
		line("hdel", "x", "f", "g"), line("type", "x"), line("hsetnx", "h", "f", "2"), line("hstrlen", "h", "f"), line("hmget", "h", "f", "g", "z")))
	f.Add(seq(line("rpush", "q", "a", "b", "c", "d", "e"), line("linsert", "q", "AFTER", "c", "x"), line("lset", "q", "-1", "y"),
		line("lrem", "q", "-1", "a"), line("lpos", "q", "x", "RANK", "-1", "COUNT", "0"), line("ltrim", "q", "1", "-2"),
		line("lmove", "q", "l", "LEFT", "RIGHT"), line("rpoplpush", "l", "q"), line("lmpop", "2", "ls", "q", "RIGHT", "COUNT", "9"),
		line("rename", "l", "ls"), line("copy", "ls", "m"), line("lrange", "m", "0", "-1"), line("rpop", "m", "3")))
	f.Add(seq(line("lpush", "l", "1", "2", "3"), line("lpop", "l", "2"), line("rpushx", "l", "z"), line("lindex", "l", "-2"),
		line("move", "l", "1"), line("object", "ENCODING", "l"), line("lrange", "l", "-100", "100"), line("ltrim", "ls", "5", "1")))
	f.Add(seq(line("zadd", "z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e"), line("object", "ENCODING", "z"),
		line("zincrby", "z", "-10", "c"), line("zrange", "z", "0", "-1", "WITHSCORES"), line("zremrangebyrank", "zb", "5", "200"),
		line("zrangestore", "zb", "z", "(1", "+inf", "BYSCORE"), line("rename", "zb", "k"), line("copy", "k", "k2", "DB", "1"),
		line("zpopmax", "k", "3"), line("zrank", "k2", "e"), line("zscan", "zb", "0"), line("zrem", "k", "a", "b", "c", "d", "e")))
	f.Add(seq(line("rpush", "q", "a", "b"), line("blpop", "x", "q", "0"), line("brpop", "q", "q", "0.1"), line("blpop", "q", "-1"),
		line("blmove", "q", "d", "LEFT", "RIGHT", "0"), line("brpoplpush", "d", "d", "1e20"), line("blmpop", "0", "2", "x", "d", "RIGHT", "COUNT", "5"),
		line("zadd", "z", "1", "a", "2", "b"), line("bzpopmin", "z", "0"), line("bzpopmax", "x", "z", "nan"), line("bzmpop", "0", "1", "z", "MAX", "COUNT", "2"),
		line("set", "s", "v"), line("blpop", "s", "0"), line("bzmpop", "abc", "1", "s", "MIN")))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &shardowner.Ctx{Shard: fuzzShard(), W: &resp.Writer{}}
		lines := bytes.Split(data, []byte("\n"))
		if len(lines) > 32 {
			lines = lines[:32]
		}
		for _, l := range lines {
			if len(l) < 2 {
				continue
			}
			c.W.Proto = 2 + int(l[1]>>7)
			c.DB = int(l[1]>>6) & 1
			fuzzRun(t, c, fuzzCommands[int(l[0])%len(fuzzCommands)], l[2:])
			c.Shard.Clock.Ms += 3
			for _, db := range c.Shard.DBs {
				db.Tick()
			}
		}
	})
}

// fuzzReply parses one RESP2 or RESP3 reply at the start of b and returns
// its length.
func fuzzReply(b []byte) (int, error) {
	end := bytes.Index(b, []byte("\r\n"))
	if end < 1 {
		return 0, fmt.Errorf("no complete line")
	}
	line := b[1:end]
	if bytes.ContainsAny(line, "\r\n") {
		return 0, fmt.Errorf("CR or LF inside the line %q", line)
	}
	n := end + 2
	switch b[0] {
	case '+', '-':
		return n, nil
	case ':':
		if _, err := strconv.ParseInt(string(line), 10, 64); err != nil {
			return 0, fmt.Errorf("bad integer %q", line)
		}
		return n, nil
	case '_':
		if len(line) != 0 {
			return 0, fmt.Errorf("null with a body %q", line)
		}
		return n, nil
	case '#':
		if string(line) != "t" && string(line) != "f" {
			return 0, fmt.Errorf("bad boolean %q", line)
		}
		return n, nil
	case ',':
		if _, err := strconv.ParseFloat(string(line), 64); err != nil && string(line) != "inf" && string(line) != "-inf" && string(line) != "nan" {
			return 0, fmt.Errorf("bad double %q", line)
		}
		return n, nil
	case '(':
		if !fuzzDigits(line) {
			return 0, fmt.Errorf("bad big number %q", line)
		}
		return n, nil
	case '$', '=', '!':
		size, err := strconv.Atoi(string(line))
		if err != nil || size < -1 || (size == -1 && b[0] != '$') {
			return 0, fmt.Errorf("bad length %q", line)
		}
		if size == -1 {
			return n, nil
		}
		if len(b) < n+size+2 || b[n+size] != '\r' || b[n+size+1] != '\n' {
			return 0, fmt.Errorf("bulk of %d bytes not followed by CRLF", size)
		}
		return n + size + 2, nil
	case '*', '~', '%', '>', '|':
		count, err := strconv.Atoi(string(line))
		if err != nil || count < -1 || (count == -1 && b[0] != '*') {
			return 0, fmt.Errorf("bad count %q", line)
		}
		if b[0] == '%' || b[0] == '|' {
			count *= 2
		}
		if b[0] == '|' {
			count++ // the reply the attribute describes
		}
		for i := 0; i < count; i++ {
			m, err := fuzzReply(b[n:])
			if err != nil {
				return 0, fmt.Errorf("element %d: %v", i, err)
			}
			n += m
		}
		return n, nil
	}
	return 0, fmt.Errorf("unknown reply type %q", b[0])
}

// fuzzDigits checks a RESP3 big number: an optional sign, then digits.
func fuzzDigits(s []byte) bool {
	if len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	for _, ch := range s {
		if ch < '0' || ch > '9' {
			return false
		}
	}
	return len(s) > 0
}

// bigBitWrite reports whether SETBIT or BITFIELD would write past the first
// MB of a string: bit offsets up to 2^32-1 are valid and make the value up to
// 512 MB long.
func bigBitWrite(name string, argv [][]byte) bool {
	big := func(off []byte) bool {
		bits := int64(1) // a field of BITFIELD's #n form is up to 64 bits
		if len(off) > 0 && off[0] == '#' {
			off, bits = off[1:], 64
		}
		n, err := strconv.ParseInt(string(off), 10, 64)
		return err == nil && n > 8<<20/bits
	}
	switch name {
	case "setbit":
		return len(argv) > 2 && big(argv[2])
	case "bitfield":
		for i := 2; i+2 < len(argv); i++ {
			if (bytes.EqualFold(argv[i], []byte("set")) || bytes.EqualFold(argv[i], []byte("incrby"))) && big(argv[i+2]) {
				return true
			}
		}
	}
	return false
}
