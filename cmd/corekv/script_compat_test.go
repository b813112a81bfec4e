package main

import (
	"strconv"

	"github.com/corekv/corekv/router"
)

// compatScriptingScripts are the scripts of EVAL, EVALSHA and SCRIPT for
// TestCompatWithRedis: replies converted both ways, errors and their
// formats, pcall, RESP3 inside a script, the libraries, the script cache,
// and scripts inside MULTI. Their keys share a hash tag, so that on
// several shards they live on one; a script's first runs there go over
// several shards all the same (router/scriptplan.go), later ones run on it.
func compatScriptingScripts() []compatCmd {
	a := compatA
	unord := func(args ...string) compatCmd { return compatCmd{args: args, mode: compatUnordered} }
	const (
		noDebug = "SCRIPT HELP lists no DEBUG: corekv has no Lua debugger"
	)
	// undeclared lives on another shard than {t}k when there are 4.
	undeclared := "u"
	for i := 0; router.ShardOf([]byte(undeclared), 4) == router.ShardOf([]byte("{t}k"), 4); i++ {
		undeclared = "u" + strconv.Itoa(i)
	}
	return []compatCmd{
		a("EVAL", "return 1", "0"), a("EVAL", "return 'x'", "0"), a("EVAL", "return 3.99", "0"),
		a("EVAL", "return -3.99", "0"), a("EVAL", "return true", "0"), a("EVAL", "return false", "0"),
		a("EVAL", "return nil", "0"), a("EVAL", "return {1,2,3,'x',{4,5}}", "0"),
		a("EVAL", "return {1,2,nil,4}", "0"), a("EVAL", "return {ok='fine'}", "0"),
		a("EVAL", "return {err='My Error'}", "0"), a("EVAL", "return redis.error_reply('E1 bad')", "0"),
		a("EVAL", "return redis.status_reply('DONE')", "0"), a("EVAL", "return {1, {err='nested'}}", "0"),
		a("EVAL", "return KEYS[1] .. ARGV[1] .. #KEYS .. #ARGV", "1", "{t}k", "v"),
		a("EVAL", "return redis.call('set', KEYS[1], ARGV[1])", "1", "{t}k", "hello"),
		a("EVAL", "return redis.call('get', KEYS[1])", "1", "{t}k"),
		a("EVAL", "return redis.call('get', KEYS[1])", "1", "{t}missing"),
		a("EVAL", "return redis.call('incr', KEYS[1])", "1", "{t}n"),
		a("EVAL", "redis.call('rpush', KEYS[1], 'a', 'b', 'c'); return redis.call('lrange', KEYS[1], 0, -1)", "1", "{t}l"),
		a("EVAL", "redis.call('hset', KEYS[1], 'f', 'v', 'g', 'w'); return redis.call('hgetall', KEYS[1])", "1", "{t}h"),
		a("EVAL", "redis.call('zadd', KEYS[1], 1.5, 'a', 2, 'b'); return redis.call('zrange', KEYS[1], 0, -1, 'withscores')", "1", "{t}z"),
		a("EVAL", "return redis.call('incr', KEYS[1])", "1", "{t}k"),
		a("EVAL", "return redis.pcall('incr', KEYS[1])", "1", "{t}k"),
		a("EVAL", "local r = redis.pcall('incr', KEYS[1]); return type(r) .. ':' .. r['err']", "1", "{t}k"),
		a("EVAL", "return redis.call('nosuchcommand')", "0"),
		a("EVAL", "return redis.call('get')", "0"),
		a("EVAL", "return redis.call('blpop', 'x', 0)", "0"),
		a("EVAL", "return redis.call()", "0"),
		a("EVAL", "error('boom')", "0"), a("EVAL", "error({err='TABLE raised'})", "0"),
		// A call or index of a value that cannot take it names the
		// variable as Lua 5.1 does, found from the bytecode.
		a("EVAL", "local f f()", "0"), a("EVAL", "local f\nf()\nreturn 1", "0"), a("EVAL", "redis.nosuch()", "0"),
		a("EVAL", "local t = {} t:m()", "0"), a("EVAL", "local t = {} local x = (t.a)(1) + t.b(2)", "0"),
		a("EVAL", "return (1)()", "0"), a("EVAL", "local ok, r = pcall(function() redis.nope(1) end) return r", "0"),
		a("EVAL", "local u local function g() u() end g()", "0"), a("EVAL", "local x = 5 x()", "0"),
		a("EVAL", "local t = {a={}} t.a.b.c()", "0"), a("EVAL", "local t = {} t[1]()", "0"), a("EVAL", "local k = 'z' local t = {} t[k]()", "0"),
		a("EVAL", "local s = 'x' s:nope()", "0"), a("EVAL", "return redis.call('get', 'x') .. string.nope('y')", "0"),
		a("EVAL", "local t = {f=1} return t.f(t.g())", "0"), a("EVAL", "for i = 1, 2 do local q = i; q() end", "0"),
		a("EVAL", "local a, b = 1, nil; b()", "0"), a("EVAL", "return cjson.nope()", "0"), a("EVAL", "local t = setmetatable({}, {__index = function() return 5 end}) t.x()", "0"),
		a("EVAL", "local x = KEYS[1]() ", "0"), a("EVAL", "return ARGV()", "0"),
		a("EVAL", "local t = nil; return t.x", "0"),
		a("EVAL", "local t = {} t.a.b = 1", "0"), a("EVAL", "return KEYS[1].x.y", "0"), a("EVAL", "local s = 'abc' return s.x.y", "0"),
		a("EVAL", "return redis.nope.x", "0"), a("EVAL", "local n = 5 n.x = 1", "0"), a("EVAL", "local u = nil local function f() return u.x end return f()", "0"),
		a("EVAL", "return (nil).x", "0"), a("EVAL", "local t = {a=1} return t.a.b.c", "0"), a("EVAL", "local ok, e = pcall(function() local z; return z.q end) return e", "0"),
		a("EVAL", "local t = {} t[1][2] = 3", "0"), a("EVAL", "return string.rep(nil)", "0"), a("EVAL", "return ('x'):bad()", "0"),
		a("EVAL", "local a = {} local b = a.x(1, a.y)", "0"),

		a("EVAL", "return nosuchglobal", "0"), a("EVAL", "x = 1", "0"),
		a("EVAL", "return 1 +", "0"), a("EVAL", "return", "0"),
		a("EVAL", "return 1", "-1"), a("EVAL", "return 1", "2", "a"), a("EVAL", "return 1", "x"),
		a("EVAL", "return redis.sha1hex('')", "0"), a("EVAL", "return redis.sha1hex('abc')", "0"),
		a("EVAL", "return cjson.encode({1,2,3})", "0"), a("EVAL", "return cjson.decode('[1,2,{\"a\":3}]')[3].a", "0"),
		a("EVAL", "return cmsgpack.unpack(cmsgpack.pack({1,2,'x'}))", "0"),
		a("EVAL", "return bit.band(0xff, 0x0f) .. ' ' .. bit.tohex(65535)", "0"),
		a("EVAL", "return struct.pack('>I2', 258)", "0"),
		unord("EVAL", "redis.setresp(3); return redis.call('hgetall', KEYS[1])", "1", "{t}h"),
		a("EVAL", "redis.setresp(3); local t = redis.call('hgetall', KEYS[1]); return t['map']['f']", "1", "{t}h"),
		a("EVAL", "return {double=3.5}", "0"),
		a("EVAL", "redis.call('select', 9); redis.call('set', KEYS[1], 'db9'); return redis.call('get', KEYS[1])", "1", "{t}s"),
		a("GET", "{t}s"), a("SELECT", "9"), a("GET", "{t}s"), a("DEL", "{t}s"), a("SELECT", "0"),
		a("EVAL", "return redis.call('ping')", "0"), a("EVAL", "return redis.call('echo', 'hi')", "0"),
		a("SCRIPT", "LOAD", "return 'loaded'"), a("EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8", "0"),
		a("SCRIPT", "EXISTS", "b534286061d4b9e4026607613b95c06c06015ae8", "B534286061D4B9E4026607613B95C06C06015AE8", "ffffffffffffffffffffffffffffffffffffffff"),
		a("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"), a("EVALSHA", "short", "0"),
		a("EVALSHA_RO", "b534286061d4b9e4026607613b95c06c06015ae8", "0"),
		a("SCRIPT", "LOAD", "return +"), a("SCRIPT", "FLUSH"), a("SCRIPT", "FLUSH", "ASYNC"), a("SCRIPT", "FLUSH", "x"),
		a("EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8", "0"),
		a("SCRIPT", "EXISTS", "b534286061d4b9e4026607613b95c06c06015ae8"),
		a("SCRIPT", "KILL"), a("SCRIPT", "HELP").known(noDebug), a("SCRIPT", "NOSUCH"),
		a("EVAL_RO", "return redis.call('get', KEYS[1])", "1", "{t}k"),
		a("EVAL_RO", "return redis.call('set', KEYS[1], 'x')", "1", "{t}k"),
		a("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')", "1", "{t}k"),
		a("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", "{t}k"),
		a("EVAL", "#!lua\nreturn redis.call('get', KEYS[1])", "1", "{t}k"),
		a("EVAL", "#!lua flags=nosuch\nreturn 1", "0"), a("EVAL", "#!python\nreturn 1", "0"),
		a("MULTI"), a("EVAL", "return redis.call('incr', KEYS[1])", "1", "{t}m"),
		a("EVAL", "return redis.call('incrby', KEYS[1], 10)", "1", "{t}m"), a("EXEC"), a("GET", "{t}m"),
		a("EVAL", "redis.call('set', KEYS[1], 'a'); redis.call('append', KEYS[1], 'b'); redis.call('expire', KEYS[1], 100); return redis.call('ttl', KEYS[1])", "1", "{t}e"),
		a("GET", "{t}e"),
		a("SADD", "{t}set", "c", "a", "b", "10", "2"), a("EVAL", "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", "{t}set"),
		a("EVAL", "return redis.call('sort', KEYS[1], 'by', 'nosort', 'limit', 1, 2)", "1", "{t}set"), a("DEL", "{t}set"),
		a("SET", undeclared, "u"), a("EVAL", "return redis.call('get', ARGV[1])", "1", "{t}k", undeclared),
		a("DEL", undeclared),
		a("DEL", "{t}k", "{t}n", "{t}l", "{t}h", "{t}z", "{t}m", "{t}e"),
	}
}

// compatDebugProtocolScripts: DEBUG PROTOCOL's sample replies, asked
// directly and from scripts (under DEBUG SET-DISABLE-DENY-SCRIPTS) in
// each protocol of the script and of the client: every reply type's
// conversion into Lua and back out, as Redis's own scripting tests see it.
func compatDebugProtocolScripts() []compatCmd {
	a := compatA
	types := []string{"string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib", "push",
		"verbatim", "true", "false", "nosuch"}
	cmds := []compatCmd{a("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1")}
	for _, proto := range []string{"2", "3"} {
		cmds = append(cmds, compatCmd{args: []string{"HELLO", proto}, mode: compatShape})
		for _, typ := range types {
			if proto == "2" || typ != "push" { // RESP3's push is two replies
				cmds = append(cmds, a("DEBUG", "PROTOCOL", typ))
			}
			for _, lua := range []string{"2", "3"} {
				for _, call := range []string{"call", "pcall"} {
					cmds = append(cmds, a("EVAL", "redis.setresp("+lua+") return redis."+call+"('debug', 'protocol', '"+typ+"')", "0"))
				}
			}
		}
	}
	return append(cmds, compatCmd{args: []string{"HELLO", "2"}, mode: compatShape},
		a("EVAL", "return redis.pcall('debug', 'protocol', 'string')", "0"),
		a("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"),
		a("EVAL", "return redis.pcall('debug', 'protocol', 'string')", "0"))
}
