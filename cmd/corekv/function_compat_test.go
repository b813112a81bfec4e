package main

// compatFunctionScripts are the steps of FUNCTION and FCALL for
// TestCompatWithRedis: loading and its errors (metadata, names, the load
// environment, register_function's arguments), calls with keys and
// arguments, flags, FCALL_RO, LIST, STATS, DELETE, FLUSH, and the restore
// policies' errors. Their keys share a hash tag.
func compatFunctionScripts() []compatCmd {
	a := compatA
	const nilName = "Lua 5.1 names the field called in 'attempt to call field ... (a nil value)'; gopher-lua does not"
	lib := func(name, body string) string { return "#!lua name=" + name + "\n" + body }
	one := func(name, fn, body string) string {
		return lib(name, "redis.register_function('"+fn+"', function(keys, args)\n"+body+"\nend)")
	}
	return []compatCmd{
		a("FUNCTION", "FLUSH"),
		a("FUNCTION", "LOAD", one("lib1", "f1", "return redis.call('incr', keys[1])")),
		a("FCALL", "f1", "1", "{f}n"), a("FCALL", "F1", "1", "{f}n"), a("GET", "{f}n"),
		a("FUNCTION", "LOAD", one("lib1", "f1", "return 1")),
		a("FUNCTION", "LOAD", "REPLACE", one("lib1", "f1", "return {keys[1], args[1], #keys, #args}")),
		a("FCALL", "f1", "1", "{f}k", "v", "w"),
		a("FUNCTION", "LOAD", "nosuch", one("lib1", "f1", "return 1")),
		a("FUNCTION", "LOAD", "REPLACE"),
		a("FUNCTION", "LOAD", one("lib2", "f1", "return 2")),
		a("FUNCTION", "LOAD", one("bad-name", "f", "return 2")),
		a("FUNCTION", "LOAD", one("lib2", "bad-name", "return 2")),
		a("FUNCTION", "LOAD", "#!python name=lib2\nredis.register_function('x', function() end)"),
		a("FUNCTION", "LOAD", "#! name=lib2\nx"), a("FUNCTION", "LOAD", "#!lua\nx"),
		a("FUNCTION", "LOAD", "#!lua name=a name=b\nx"), a("FUNCTION", "LOAD", "#!lua name=a foo=bar\nx"),
		a("FUNCTION", "LOAD", "#!lua name=\"q\"\nredis.register_function('q', function() return 'q' end)"),
		a("FCALL", "q", "0"), a("FUNCTION", "DELETE", "q"),
		a("FUNCTION", "LOAD", "no shebang"), a("FUNCTION", "LOAD", "#!lua name=x"),
		a("FUNCTION", "LOAD", lib("lib2", "return 1 +")),
		a("FUNCTION", "LOAD", lib("lib2", "return 1")),
		a("FUNCTION", "LOAD", lib("lib2", "error('boom')")),
		a("FUNCTION", "LOAD", lib("lib2", "return math.random()")),
		a("FUNCTION", "LOAD", lib("lib2", "return redis.call('ping')")),
		a("FUNCTION", "LOAD", lib("lib2", "x = 1")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function()")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function('f')")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function(nil, function() end)")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function('f', 'x')")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function('f', function() end, 1)")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function('f', function() end); redis.register_function('f', function() end)")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function{function_name='f'}")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function{callback=function() end}")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function{function_name='f', callback=function() end, flags='x'}")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function{function_name='f', callback=function() end, flags={'nosuch'}}")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function{function_name='f', callback=function() end, other=1}")),
		a("FUNCTION", "LOAD", lib("lib2", "redis.register_function{function_name='f', callback=function() end, description=function() end}")),
		a("FUNCTION", "LOAD", lib("lib2", "local v = redis.REDIS_VERSION\n"+
			"redis.register_function{function_name='ro', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes', 'ALLOW-STALE'}, description='reads'}\n"+
			"redis.register_function{function_name='rw', callback=function(keys) return redis.call('set', keys[1], 'x') end}\n"+
			"redis.register_function('err', function() return redis.call('nosuch') end)\n"+
			"redis.register_function('raise', function() error('raised') end)\n"+
			"redis.register_function('glob', function() y = 1 end)\n"+
			"redis.register_function('reg', function() redis.register_function('z', function() end) end)")),
		a("FCALL", "ro", "1", "{f}n"), a("FCALL_RO", "ro", "1", "{f}n"), a("FCALL_RO", "rw", "1", "{f}n"),
		a("FCALL", "rw", "1", "{f}w"), a("GET", "{f}w"),
		a("FCALL", "err", "0"), a("FCALL", "raise", "0"), a("FCALL", "glob", "0"), a("FCALL", "reg", "0").known(nilName),
		a("FCALL", "nosuch", "0"), a("FCALL", "ro", "x"), a("FCALL", "ro", "2", "a"), a("FCALL", "ro", "-1"),
		// Libraries of one function only: Redis lists in its hash tables'
		// order, corekv in load order.
		a("FUNCTION", "LIST", "LIBRARYNAME", "lib1"),
		a("FUNCTION", "LIST", "libraryname", "*1"), a("FUNCTION", "LIST", "WITHCODE", "libraryname", "lib1"), a("FUNCTION", "LIST", "libraryname"),
		a("FUNCTION", "LIST", "withcode", "withcode"), a("FUNCTION", "LIST", "x"),
		a("FUNCTION", "STATS"), a("FUNCTION", "KILL"),
		a("FUNCTION", "DUMP", "x"), a("FUNCTION", "RESTORE", "bad"), a("FUNCTION", "RESTORE", "a", "b", "c"),
		a("FUNCTION", "RESTORE", "\x0a\x00\x00\x00\x00\x00\x00\x00\x00\x00", "nosuch"),
		a("FUNCTION", "DELETE", "lib2"), a("FUNCTION", "DELETE", "lib2"), a("FCALL", "ro", "1", "{f}n"),
		a("FUNCTION", "FLUSH", "x"), a("FUNCTION", "FLUSH", "SYNC", "x"), a("FUNCTION", "FLUSH", "ASYNC"),
		a("FUNCTION", "LIST"), a("FUNCTION", "STATS"), a("FUNCTION", "NOSUCH"), a("FUNCTION"),
		a("MULTI"), a("FUNCTION", "LOAD", one("lib3", "f3", "return redis.call('incrby', keys[1], 2)")),
		a("FCALL", "f3", "1", "{f}n"), a("EXEC"),
		a("FUNCTION", "FLUSH"), a("DEL", "{f}n", "{f}w"),
	}
}
