package shardowner

import (
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

// testNow is the clock the tests start from: a round Unix time in ms.
const testNow = 1_700_000_000_000

// handlers maps lower-case command names to handlers for the scripted tests.
var handlers = map[string]Handler{
	"get": Get, "set": Set, "setnx": SetNX, "setex": SetEX, "psetex": PSetEX,
	"getset": GetSet, "getdel": GetDel, "getex": GetEx, "mget": MGet, "mset": MSet,
	"msetnx": MSetNX, "append": Append, "strlen": StrLen, "incr": Incr, "decr": Decr,
	"incrby": IncrBy, "decrby": DecrBy, "incrbyfloat": IncrByFloat, "getrange": GetRange,
	"substr": GetRange, "setrange": SetRange,
	"del": Del, "unlink": Del, "exists": Exists, "touch": Touch, "type": Type,
	"rename": Rename, "renamenx": RenameNX, "copy": Copy, "move": Move, "object": Object,
	"expire": Expire, "pexpire": PExpire, "expireat": ExpireAt, "pexpireat": PExpireAt,
	"ttl": TTL, "pttl": PTTL, "expiretime": ExpireTime, "pexpiretime": PExpireTime, "persist": Persist,
	"dbsize": DBSize, "flushdb": FlushDB, "flushall": FlushAll, "keys": Keys,
	"randomkey": RandomKey, "scan": Scan, "memory": Memory,
	"corekv.dump": InternalDump, "corekv.take": InternalTake, "corekv.restore": InternalRestore,
	"corekv.watch": InternalWatch, "corekv.unwatch": InternalUnwatch, "corekv.watched": InternalWatched,
	"hset": HSet, "hsetnx": HSetNX, "hmset": HMSet, "hget": HGet, "hmget": HMGet, "hdel": HDel, "hlen": HLen,
	"hstrlen": HStrLen, "hexists": HExists, "hkeys": HKeys, "hvals": HVals, "hgetall": HGetAll,
	"hincrby": HIncrBy, "hincrbyfloat": HIncrByFloat, "hrandfield": HRandField, "hscan": HScan,
	"sadd": SAdd, "srem": SRem, "scard": SCard, "sismember": SIsMember, "smismember": SMIsMember,
	"smembers": SMembers, "srandmember": SRandMember, "spop": SPop, "smove": SMove, "sinter": SInter,
	"sunion": SUnion, "sdiff": SDiff, "sinterstore": SInterStore, "sunionstore": SUnionStore, "sintercard": SInterCard,
	"sdiffstore": SDiffStore, "sscan": SScan,
}

func newTestCtx() *Ctx {
	s := NewShard(0, 1, 16)
	s.Clock.Ms = testNow
	return &Ctx{Shard: s, W: &resp.Writer{}}
}

// do runs one command given as separate arguments and returns its reply.
func do(c *Ctx, args ...string) string {
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	h, ok := handlers[strings.ToLower(args[0])]
	if !ok {
		panic("no handler for " + args[0])
	}
	c.W.B = c.W.B[:0]
	h(c, argv)
	return string(c.W.B)
}

// step is one line of a script: a command, split on spaces, and the exact
// reply bytes it must produce. Three special commands steer the test: "@tick n"
// moves the clock n ms forward, "@db n" selects a database, and "@resp n"
// switches the protocol; they expect no reply.
type step struct {
	cmd  string
	want string
}

func runScript(t *testing.T, c *Ctx, steps []step) {
	t.Helper()
	for i, s := range steps {
		args := strings.Fields(s.cmd)
		switch args[0] {
		case "@tick":
			n, _ := strconv.ParseInt(args[1], 10, 64)
			c.Shard.Clock.Ms += n
			continue
		case "@db":
			c.DB, _ = strconv.Atoi(args[1])
			continue
		case "@resp":
			c.W.Proto, _ = strconv.Atoi(args[1])
			continue
		}
		if got := do(c, args...); got != s.want {
			t.Fatalf("step %d %q: got %q, want %q", i, s.cmd, got, s.want)
		}
	}
}

// Reply shorthands.
const (
	ok    = "+OK\r\n"
	null  = "$-1\r\n"
	nullA = "*-1\r\n"
	null3 = "_\r\n"
	empty = "$0\r\n\r\n"
)

func bulk(s string) string { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
func num(n int64) string   { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
func errr(e resp.Error) string {
	return "-" + string(e) + "\r\n"
}

type scriptCase struct {
	name  string
	steps []step
}

func runCases(t *testing.T, cases []scriptCase) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			runScript(t, newTestCtx(), tc.steps)
		})
	}
}
