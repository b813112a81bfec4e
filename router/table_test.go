package router

import (
	"slices"
	"strings"
	"testing"
)

// mixedCase alternates upper and lower case: "incrbyfloat" → "InCrByFlOaT".
func mixedCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		if i%2 == 0 && 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}

func TestLookupEveryCommand(t *testing.T) {
	for i := range Commands() {
		c := &Commands()[i]
		for _, name := range []string{c.Name, strings.ToUpper(c.Name), mixedCase(c.Name)} {
			if got := Lookup([]byte(name)); got != c {
				t.Errorf("Lookup(%q) = %v, want the %q row", name, got, c.Name)
			}
			if got := LookupString(name); got != c {
				t.Errorf("LookupString(%q) = %v, want the %q row", name, got, c.Name)
			}
		}
		if c.ID != i {
			t.Errorf("%s: ID %d, want its index %d", c.Name, c.ID, i)
		}
	}
}

func TestLookupMisses(t *testing.T) {
	tests := []string{
		"",
		"gett",
		"ge",
		"get ",
		" get",
		"getx",
		"g\x00t",                // not a letter
		"GET\xff",               // high byte
		strings.Repeat("a", 24), // fits the buffer, no such command
		strings.Repeat("a", 25), // longer than any command
		"incrbyfloat" + strings.Repeat("x", 100),
		strings.Repeat("GET", 9), // 27 bytes, folds to "getgetget…"
	}
	for _, name := range tests {
		if got := Lookup([]byte(name)); got != nil {
			t.Errorf("Lookup(%q) = %q, want nil", name, got.Name)
		}
		if got := LookupString(name); got != nil {
			t.Errorf("LookupString(%q) = %q, want nil", name, got.Name)
		}
	}
	if got := Lookup(nil); got != nil {
		t.Errorf("Lookup(nil) = %q, want nil", got.Name)
	}
}

// TestLookupFoldsOnlyASCII checks that only A-Z are folded: the bytes just
// outside that range ('@' before 'A', '[' after 'Z') and bytes that differ
// from a letter by 0x20 must not turn into letters.
func TestLookupFoldsOnlyASCII(t *testing.T) {
	for _, name := range []string{"@et", "[et", "g\x05t", "GE\x14", "\xc7et"} {
		if got := Lookup([]byte(name)); got != nil {
			t.Errorf("Lookup(%q) = %q, want nil", name, got.Name)
		}
	}
}

func TestLookupDoesNotAllocate(t *testing.T) {
	names := [][]byte{[]byte("GET"), []byte("mget"), []byte("IncrByFloat"), []byte("corekv.restore"), []byte("nosuch"), []byte(strings.Repeat("x", 40))}
	var sink *Command
	allocs := testing.AllocsPerRun(1000, func() {
		for _, n := range names {
			sink = Lookup(n)
		}
	})
	_ = sink
	if allocs != 0 {
		t.Errorf("Lookup allocates %.1f times per run, want 0", allocs)
	}
}

func TestLookupLeavesInputAlone(t *testing.T) {
	name := []byte("MgEt")
	Lookup(name)
	if string(name) != "MgEt" {
		t.Errorf("Lookup changed its argument to %q", name)
	}
}

func TestCommandTableRows(t *testing.T) {
	seen := map[string]bool{}
	for i := range Commands() {
		c := &Commands()[i]
		if seen[c.Name] {
			t.Errorf("%s: listed twice", c.Name)
		}
		seen[c.Name] = true
		if c.Name != strings.ToLower(c.Name) {
			t.Errorf("%s: name is not lower case", c.Name)
		}
		if len(c.Name) > 24 {
			t.Errorf("%s: longer than Lookup's 24-byte buffer", c.Name)
		}
		if c.Arity == 0 {
			t.Errorf("%s: arity 0", c.Name)
		}
		switch c.Route {
		case RouteHome:
			if c.Run != nil {
				t.Errorf("%s: home command has a shard handler", c.Name)
			}
		default:
			if c.Run == nil {
				t.Errorf("%s: routed to shards but Run is nil", c.Name)
			}
		}
		if c.Internal != strings.HasPrefix(c.Name, "corekv.") {
			t.Errorf("%s: Internal=%v does not match its name", c.Name, c.Internal)
		}
		if !c.Internal && (c.Group == "" || c.Summary == "") {
			t.Errorf("%s: missing COMMAND DOCS group or summary", c.Name)
		}
		if c.Flags&FlagWrite != 0 && c.Flags&FlagReadonly != 0 {
			t.Errorf("%s: both write and readonly", c.Name)
		}
		// Key positions: a command that names keys has a step and a last
		// key not before the first; a keyless one has none.
		if c.FirstKey > 0 {
			if c.Step < 1 {
				t.Errorf("%s: first key %d with step %d", c.Name, c.FirstKey, c.Step)
			}
			if c.LastKey > 0 && c.LastKey < c.FirstKey {
				t.Errorf("%s: last key %d before first key %d", c.Name, c.LastKey, c.FirstKey)
			}
			// WATCH names keys but routes them itself from the home core;
			// SPUBLISH's channel is a key only for COMMAND (cluster slots).
			if c.Route != RouteKey && c.Home == HomeNone && c.Combine != CombinePublish {
				t.Errorf("%s: has keys but route %d", c.Name, c.Route)
			}
		} else if c.LastKey != 0 || c.Step != 0 {
			t.Errorf("%s: no first key but last %d step %d", c.Name, c.LastKey, c.Step)
		}
		if c.Route == RouteKey && c.FirstKey == 0 {
			t.Errorf("%s: routed by key but has no key position", c.Name)
		}
		// A command whose keys may span shards needs a rule for splitting.
		spans := c.FirstKey > 0 && c.MultiKey()
		if spans && c.Split == SplitNone && c.Home == HomeNone {
			t.Errorf("%s: keys may span shards but Split is SplitNone", c.Name)
		}
		if !spans && c.Split != SplitNone {
			t.Errorf("%s: single-key command with split rule %d", c.Name, c.Split)
		}
	}
	if len(byName) != len(Commands()) {
		t.Errorf("name index holds %d names, table %d rows", len(byName), len(Commands()))
	}
}

func TestKeyIndexes(t *testing.T) {
	tests := []struct {
		args string // space-separated argv
		want []int
	}{
		{"get k", []int{1}},
		{"get", nil},
		{"set k v ex 10", []int{1}},
		{"mset a 1", []int{1}},
		{"mset a 1 b 2 c 3", []int{1, 3, 5}},
		{"mset a 1 b", []int{1, 3}}, // bad arity is caught before routing
		{"msetnx a 1 b 2", []int{1, 3}},
		{"del a", []int{1}},
		{"del a b c d", []int{1, 2, 3, 4}},
		{"exists a a", []int{1, 2}},
		{"mget a b c", []int{1, 2, 3}},
		{"copy src dst", []int{1, 2}},
		{"copy src dst db 3 replace", []int{1, 2}},
		{"rename a b", []int{1, 2}},
		{"object encoding k", []int{2}},
		{"object help", nil},
		{"object", nil},
		{"expire k 10 nx", []int{1}},
		{"ping", nil},
		{"ping hello", nil},
		{"keys *", nil},
		{"dbsize", nil},
		{"scan 0 match *", nil},
		{"corekv.restore k blob nx", []int{1}},
		// A key count names the keys after it; a bad count names none but
		// the first position, whose shard answers the error.
		{"sintercard 2 a b", []int{2, 3}},
		{"sintercard 2 a b limit 1", []int{2, 3}},
		{"sintercard 1 a b c", []int{2}},
		{"sintercard 3 a b", []int{2}},
		{"sintercard 0 a", []int{2}},
		{"sintercard x a", []int{2}},
	}
	for _, tt := range tests {
		argv := strings.Fields(tt.args)
		c := LookupString(argv[0])
		if c == nil {
			t.Fatalf("no command %q", argv[0])
		}
		bargv := make([][]byte, len(argv))
		for i, a := range argv {
			bargv[i] = []byte(a)
		}
		got := c.KeyIndexes(nil, bargv)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%q: KeyIndexes = %v, want %v", tt.args, got, tt.want)
		}
		if has := c.HasKeys(len(argv)); has != (len(tt.want) > 0) {
			t.Errorf("%q: HasKeys = %v, want %v", tt.args, has, len(tt.want) > 0)
		}
	}
}

func TestKeyIndexesAppends(t *testing.T) {
	dst := []int{-1}
	got := LookupString("del").KeyIndexes(dst, words("del a b"))
	if !slices.Equal(got, []int{-1, 1, 2}) {
		t.Errorf("KeyIndexes onto [-1] = %v, want [-1 1 2]", got)
	}
	buf := make([]int, 0, 8)
	mset, sintercard := words("mset a 1 b 2 c 3"), words("sintercard 3 a b c limit 1")
	allocs := testing.AllocsPerRun(100, func() {
		buf = LookupString("mset").KeyIndexes(buf[:0], mset)
		buf = LookupString("sintercard").KeyIndexes(buf[:0], sintercard)
	})
	if allocs != 0 {
		t.Errorf("KeyIndexes into a buffer with room allocates %.1f times", allocs)
	}
}

func TestLastKeyIndex(t *testing.T) {
	tests := []struct {
		name string
		argc int
		want int
	}{
		{"get", 2, 1},
		{"del", 2, 1},
		{"del", 5, 4},
		{"mset", 5, 4},
		{"copy", 3, 2},
		{"copy", 6, 2},
		{"copy", 2, 1}, // clipped to argv
		{"object", 3, 2},
	}
	for _, tt := range tests {
		if got := LookupString(tt.name).LastKeyIndex(tt.argc); got != tt.want {
			t.Errorf("%s with %d args: LastKeyIndex = %d, want %d", tt.name, tt.argc, got, tt.want)
		}
	}
}

func TestArityOK(t *testing.T) {
	tests := []struct {
		name string
		argc int
		ok   bool
	}{
		{"get", 2, true},
		{"get", 1, false},
		{"get", 3, false},
		{"set", 2, false},
		{"set", 3, true},
		{"set", 7, true},
		{"mset", 2, false},
		{"mset", 3, true},
		{"mset", 5, true},
		{"mget", 1, false},
		{"mget", 2, true},
		{"mget", 100, true},
		{"ping", 1, true},
		{"ping", 2, true},
		{"dbsize", 1, true},
		{"dbsize", 2, false},
		{"randomkey", 1, true},
		{"object", 1, false},
		{"object", 2, true},
		{"copy", 2, false},
		{"copy", 3, true},
		{"copy", 6, true},
		{"rename", 3, true},
		{"rename", 4, false},
		{"getrange", 4, true},
		{"getrange", 5, false},
		{"hello", 1, true},
		{"reset", 1, true},
		{"reset", 2, false},
		{"corekv.restore", 3, false},
		{"corekv.restore", 4, true},
		{"corekv.restore", 6, true}, // events to publish follow
	}
	for _, tt := range tests {
		if got := LookupString(tt.name).ArityOK(tt.argc); got != tt.ok {
			t.Errorf("%s with %d args: ArityOK = %v, want %v", tt.name, tt.argc, got, tt.ok)
		}
	}
}

// TestRedisArity pins the arity of every client command to Redis 7's, which
// clients and the COMMAND reply depend on.
func TestRedisArity(t *testing.T) {
	want := map[string]int{
		"auth": -2, "client": -2, "echo": 2, "hello": -1, "ping": -1, "quit": -1, "reset": 1, "select": 2,
		"command": -1, "config": -2, "dbsize": 1, "debug": -2, "flushall": -1, "flushdb": -1, "info": -1,
		"lastsave": 1, "save": 1, "bgsave": -1, "bgrewriteaof": 1, "latency": -2, "memory": -2, "monitor": 1, "shutdown": -1, "slowlog": -2, "time": 1,
		"copy": -3, "del": -2, "dump": 2, "exists": -2, "expire": -3, "expireat": -3, "expiretime": 2, "keys": 2,
		"move": 3, "object": -2, "persist": 2, "pexpire": -3, "pexpireat": -3, "pexpiretime": 2, "pttl": 2,
		"randomkey": 1, "rename": 3, "renamenx": 3, "restore": -4, "scan": -2, "touch": -2, "ttl": 2, "type": 2, "unlink": -2,
		"sort": -2, "sort_ro": -2,
		"append": 3, "decr": 2, "decrby": 3, "get": 2, "getdel": 2, "getex": -2, "getrange": 4, "getset": 3,
		"incr": 2, "incrby": 3, "incrbyfloat": 3, "lcs": -3, "mget": -2, "mset": -3, "msetnx": -3, "psetex": 4, "set": -3,
		"setex": 4, "setnx": 3, "setrange": 4, "strlen": 2, "substr": 4,
		"pfadd": -2, "pfcount": -2, "pfdebug": 3, "pfmerge": -2, "pfselftest": 1,
		"bitcount": -2, "bitfield": -2, "bitfield_ro": -2, "bitop": -4, "bitpos": -3, "getbit": 3, "setbit": 4,
		"multi": 1, "exec": 1, "discard": 1, "watch": -2, "unwatch": 1, "swapdb": 3,
		"hdel": -3, "hexists": 3, "hget": 3, "hgetall": 2, "hincrby": 4, "hincrbyfloat": 4, "hkeys": 2, "hlen": 2,
		"hmget": -3, "hmset": -4, "hrandfield": -2, "hscan": -3, "hset": -4, "hsetnx": 4, "hstrlen": 3, "hvals": 2,
		"sadd": -3, "srem": -3, "scard": 2, "sismember": 3, "smismember": -3, "smembers": 2, "srandmember": -2, "spop": -2,
		"smove": 4, "sinter": -2, "sunion": -2, "sdiff": -2, "sinterstore": -3, "sintercard": -3, "sunionstore": -3, "sdiffstore": -3, "sscan": -3,
		"psubscribe": -2, "publish": 3, "pubsub": -2, "punsubscribe": -1, "spublish": 3, "ssubscribe": -2,
		"subscribe": -2, "sunsubscribe": -1, "unsubscribe": -1,
		"blmove": 6, "blmpop": -5, "blpop": -3, "brpop": -3, "brpoplpush": 4, "lindex": 3, "linsert": 5, "llen": 2, "lmove": 5, "lmpop": -4, "eval": -3, "evalsha": -3, "eval_ro": -3, "evalsha_ro": -3, "fcall": -3, "fcall_ro": -3, "function": -2, "script": -2, "lpop": -2, "lpos": -3, "lpush": -3, "lpushx": -3,
		"lrange": 4, "lrem": 4, "lset": 4, "ltrim": 4, "rpop": -2, "rpoplpush": 3, "rpush": -3, "rpushx": -3,
		"xack": -4, "xadd": -5, "xautoclaim": -6, "xclaim": -6, "xdel": -3, "xgroup": -2, "xinfo": -2, "xpending": -3, "xread": -4, "xreadgroup": -7, "xlen": 2, "xrange": -4, "xrevrange": -4, "xsetid": -3, "xtrim": -4,
		"zadd": -4, "zcard": 2, "zcount": 4, "zdiff": -3, "zdiffstore": -4, "zincrby": 4, "zinter": -3, "zintercard": -3,
		"bzmpop": -5, "bzpopmax": -3, "bzpopmin": -3, "zinterstore": -4, "zlexcount": 4, "zmpop": -4, "zmscore": -3, "zpopmax": -2, "zpopmin": -2, "zrandmember": -2,
		"zrange": -4, "zrangebylex": -4, "zrangebyscore": -4, "zrangestore": -5, "zrank": 3, "zrem": -3, "zremrangebylex": 4,
		"zremrangebyrank": 4, "zremrangebyscore": 4, "zrevrange": -4, "zrevrangebylex": -4, "zrevrangebyscore": -4,
		"zrevrank": 3, "zscan": -3, "zscore": 3, "zunion": -3, "zunionstore": -4,
		"geoadd": -5, "geodist": -4, "geohash": -2, "geopos": -2, "georadius": -6, "georadius_ro": -6,
		"georadiusbymember": -5, "georadiusbymember_ro": -5, "geosearch": -7, "geosearchstore": -8,
	}
	for _, c := range Commands() {
		if c.Internal {
			continue
		}
		a, ok := want[c.Name]
		if !ok {
			t.Errorf("%s: not in this test's list; add its Redis arity", c.Name)
			continue
		}
		if c.Arity != a {
			t.Errorf("%s: arity %d, Redis has %d", c.Name, c.Arity, a)
		}
	}
}

func TestRoutes(t *testing.T) {
	tests := []struct {
		name    string
		route   Route
		split   Split
		combine Combine
	}{
		{"ping", RouteHome, SplitNone, 0},
		{"select", RouteHome, SplitNone, 0},
		{"get", RouteKey, SplitNone, 0},
		{"mget", RouteKey, SplitPerKey, 0},
		{"mset", RouteKey, SplitPairsOK, 0},
		{"msetnx", RouteKey, SplitMSETNX, 0},
		{"del", RouteKey, SplitSumInt, 0},
		{"unlink", RouteKey, SplitSumInt, 0},
		{"exists", RouteKey, SplitSumInt, 0},
		{"touch", RouteKey, SplitSumInt, 0},
		{"rename", RouteKey, SplitMoveKey, 0},
		{"renamenx", RouteKey, SplitMoveKey, 0},
		{"copy", RouteKey, SplitMoveKey, 0},
		{"dbsize", RouteAll, SplitNone, CombineSumInt},
		{"flushall", RouteAll, SplitNone, CombineOK},
		{"flushdb", RouteAll, SplitNone, CombineOK},
		{"keys", RouteAll, SplitNone, CombineConcatArray},
		{"randomkey", RouteAll, SplitNone, CombineRandomKey},
		{"scan", RouteCursor, SplitNone, 0},
	}
	for _, tt := range tests {
		c := LookupString(tt.name)
		if c.Route != tt.route || c.Split != tt.split || c.Combine != tt.combine {
			t.Errorf("%s: route %d split %d combine %d, want %d %d %d",
				tt.name, c.Route, c.Split, c.Combine, tt.route, tt.split, tt.combine)
		}
	}
}

func TestFlagNames(t *testing.T) {
	tests := []struct {
		f    Flag
		want []string
	}{
		{0, nil},
		{FlagWrite, []string{"write"}},
		{FlagReadonly | FlagFast, []string{"readonly", "fast"}},
		{FlagWrite | FlagDenyOOM | FlagFast, []string{"write", "denyoom", "fast"}},
		{FlagNoAuth | FlagAllowBusy, []string{"no_auth", "allow_busy"}},
		{FlagWrite | FlagDenyOOM | FlagMovableKeys, []string{"write", "denyoom", "movablekeys"}},
		// Redis's order, not the order the flags were added in
		{FlagSkipSlowlog | FlagFast, []string{"skip_slowlog", "fast"}},
		{FlagMovableKeys | FlagAllowBusy, []string{"movablekeys", "allow_busy"}},
		{FlagNoScript | FlagStale | FlagSkipMonitor | FlagNoMandatoryKeys | FlagMovableKeys, []string{"noscript", "stale", "skip_monitor", "no_mandatory_keys", "movablekeys"}},
		{FlagAdmin | FlagStale | FlagNoMulti | FlagAllowBusy, []string{"admin", "stale", "no_multi", "allow_busy"}},
	}
	for _, tt := range tests {
		if got := FlagNames(tt.f); !slices.Equal(got, tt.want) {
			t.Errorf("FlagNames(%b) = %v, want %v", tt.f, got, tt.want)
		}
	}
	if len(flagNames) != 18 || FlagAllowBusy != 1<<17 {
		t.Errorf("%d flag names for flags up to %b", len(flagNames), FlagAllowBusy)
	}
}

// TestMemberArgs: every command given a member position exists, takes a
// key before it, and has room for it within its arity.
func TestMemberArgs(t *testing.T) {
	for name, pos := range memberArgs {
		c := LookupString(name)
		if c == nil {
			t.Errorf("%s: no such command", name)
			continue
		}
		if c.Member != pos || c.FirstKey == 0 || pos <= c.FirstKey || pos >= max(c.Arity, -c.Arity) {
			t.Errorf("%s: member at %d, first key %d, arity %d", name, c.Member, c.FirstKey, c.Arity)
		}
	}
	if c := LookupString("get"); c.Member != 0 {
		t.Errorf("get: member at %d", c.Member)
	}
}

func TestCategoryNames(t *testing.T) {
	tests := []struct {
		c    Category
		want []string
	}{
		{0, nil},
		{CatKeyspace, []string{"keyspace"}},
		// Redis's order: the type categories between write and fast
		{CatSlow | CatList | CatWrite | CatSortedSet | CatSet | CatDangerous,
			[]string{"write", "set", "sortedset", "list", "slow", "dangerous"}},
		{CatConnection | CatDangerous | CatAdmin | CatSlow, []string{"admin", "slow", "dangerous", "connection"}},
		{CatTransaction | CatFast, []string{"fast", "transaction"}},
		{CatScripting | CatBlocking | CatPubSub, []string{"pubsub", "blocking", "scripting"}},
	}
	for _, tt := range tests {
		if got := CategoryNames(tt.c); !slices.Equal(got, tt.want) {
			t.Errorf("CategoryNames(%b) = %v, want %v", tt.c, got, tt.want)
		}
	}
	if len(categoryNames) != 21 || CatScripting != 1<<20 {
		t.Errorf("%d category names for categories up to %b", len(categoryNames), CatScripting)
	}
}

// TestCategories checks the categories a command's flags imply beside
// those its row states, Redis's for each.
func TestCategories(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"get", []string{"read", "string", "fast"}},
		{"set", []string{"write", "string", "slow"}},
		{"del", []string{"keyspace", "write", "slow"}},
		{"sort", []string{"write", "set", "sortedset", "list", "slow", "dangerous"}},
		{"bzpopmax", []string{"write", "sortedset", "fast", "blocking"}},
		{"blmpop", []string{"write", "list", "slow", "blocking"}},
		{"publish", []string{"pubsub", "fast"}},
		{"flushall", []string{"keyspace", "write", "slow", "dangerous"}},
		{"lastsave", []string{"admin", "fast", "dangerous"}},
		{"debug", []string{"admin", "slow", "dangerous"}},
		{"multi", []string{"fast", "transaction"}},
		{"config", []string{"slow"}},
	}
	for _, tt := range tests {
		if got := CategoryNames(LookupString(tt.name).Categories()); !slices.Equal(got, tt.want) {
			t.Errorf("%s: categories %v, want %v", tt.name, got, tt.want)
		}
	}
	config := LookupString("config")
	if got := CategoryNames(config.Subcommand([]byte("GeT")).Categories()); !slices.Equal(got, []string{"admin", "slow", "dangerous"}) {
		t.Errorf("config|get: categories %v", got)
	}
}

// TestSubcommandRows checks the containers' subcommand rows, and that a
// command found by a key count says that its keys move.
func TestSubcommandRows(t *testing.T) {
	for i := range Commands() {
		c := &Commands()[i]
		if c.NumKeys > 0 && c.Flags&FlagMovableKeys == 0 {
			t.Errorf("%s: keys after a count but not movablekeys", c.Name)
		}
		seen := map[string]bool{}
		for j := range c.Subcommands {
			s := &c.Subcommands[j]
			sub, ok := strings.CutPrefix(s.Name, c.Name+"|")
			if !ok || sub == "" || sub != strings.ToLower(sub) || strings.Contains(sub, "|") {
				t.Errorf("%s: subcommand named %q", c.Name, s.Name)
			}
			if seen[sub] {
				t.Errorf("%s: listed twice", s.Name)
			}
			seen[sub] = true
			if s.Arity == 0 || len(s.Subcommands) > 0 {
				t.Errorf("%s: arity %d, %d subcommands", s.Name, s.Arity, len(s.Subcommands))
			}
			if got := c.Subcommand([]byte(strings.ToUpper(sub))); got != s {
				t.Errorf("%s: Subcommand(%q) = %v", c.Name, strings.ToUpper(sub), got)
			}
			// A subcommand's keys are where its container routes them.
			if s.FirstKey != 0 && (s.FirstKey != c.FirstKey || s.LastKey != c.LastKey || s.Step != c.Step) {
				t.Errorf("%s: keys %d %d %d, container's %d %d %d", s.Name,
					s.FirstKey, s.LastKey, s.Step, c.FirstKey, c.LastKey, c.Step)
			}
		}
		if c.Subcommand([]byte("nosuch")) != nil || c.Subcommand(nil) != nil {
			t.Errorf("%s: found a subcommand it does not have", c.Name)
		}
	}
}
