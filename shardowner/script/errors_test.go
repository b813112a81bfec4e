package script

import (
	"context"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

// Errors raised by scripts, as Redis 7.0 writes them: the error, then
// " script: <sha>, on @user_script:<line>.".
func TestRuntimeErrors(t *testing.T) {
	e := New(Options{})
	for _, c := range []struct {
		src, want string
		counted   bool
	}{
		{"return a", "ERR user_script:1: Script attempted to access nonexistent global variable 'a'", false},
		{"\n\nreturn a", "ERR user_script:3: Script attempted to access nonexistent global variable 'a'", false},
		{"a = 10", "ERR user_script:1: Attempt to modify a readonly table", false},
		{"error('boom')", "ERR user_script:1: boom", false},
		{"error('boom', 0)", "ERR boom", false},
		{"error('boom', 2)", "ERR boom", false},
		{"local function f()\n error('in f', 2)\nend\nf()", "ERR user_script:4: in f", false},
		{"error(42)", "ERR user_script:1: 42", false},
		{"error()", "ERR nil", false},
		{"error(true)", "ERR true", false},
		{"error({err='MY bad'})", "MY bad", false},
		{"error({err='x', source='s', line=9})", "x", false},
		{"error(redis.error_reply('E1 custom'))", "E1 custom", false},
		{"assert(false)", "ERR user_script:1: assertion failed!", false},
		{"assert(1 == 2, 'not equal')", "ERR user_script:1: not equal", false},
		{"return nil + 1", "ERR user_script:1: attempt to perform arithmetic on a nil value", false},
		{"return {} .. 'x'", "ERR user_script:1: attempt to concatenate a table value", false},
		{"return 'x' .. {}", "ERR user_script:1: attempt to concatenate a table value", false},
		{"return {} < {}", "ERR user_script:1: attempt to compare two table values", false},
		{"return 1 < 'x'", "ERR user_script:1: attempt to compare number with string", false},
		{"local t = {} return t.x.y", "ERR user_script:1: attempt to index field 'x' (a nil value)", false},
		{"local f f()", "ERR user_script:1: attempt to call local 'f' (a nil value)", false},
		{"return string.rep()", "ERR user_script:1: bad argument #1 to 'rep' (string expected, got no value)", false},
		{"for i = 1, 'x' do end", "ERR user_script:1: 'for' limit must be a number", false},
		{"return redis.call('nosuch')", "ERR Unknown Redis command called from script", true},
		{"\nredis.call('get')", "ERR Wrong number of args calling Redis command from script", true},
		{"return redis.call('blpop', 'x', 0)", "ERR This Redis command is not allowed from script", true},
		{"redis.call('set', 'k', 'v') return redis.call('incr', 'k')", "ERR value is not an integer or out of range", true},
		{"return redis.sha1hex()", "ERR wrong number of arguments", false},
		{"redis.setresp(4)", "ERR RESP version must be 2 or 3.", false},
		{"redis.setresp()", "ERR redis.setresp() requires one argument.", false},
		{"redis.set_repl(12345)", "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.", false},
		{"redis.set_repl()", "ERR redis.set_repl() requires two arguments.", false},
		{"redis.log(1)", "ERR redis.log() requires two arguments or more.", false},
		{"redis.log('x', 'y')", "ERR First argument must be a number (log level).", false},
		{"redis.log(9, 'y')", "ERR Invalid debug level.", false},
		{"return math.random(0)", "ERR user_script:1: bad argument #1 to 'random' (interval is empty)", false},
		{"return math.random(3, 1)", "ERR user_script:1: bad argument #2 to 'random' (interval is empty)", false},
		{"return math.random(1, 2, 3)", "ERR user_script:1: wrong number of arguments", false},
		{"return bit.band({})", "ERR user_script:1: bad argument #1 to 'band' (number expected, got table)", false},
		{"return cjson.encode(function() end)", "ERR user_script:1: Cannot serialise function: type not supported", false},
		{"return table.concat({1, {}})", "ERR user_script:1: invalid value (at index 2) in table for 'concat'", false},
		{"return cjson.decode('{')", "ERR user_script:1: Expected object key string but found T_END at character 2", false},
	} {
		got, res := eval(t, e, c.src, 2, nil)
		sha := SHA1Hex([]byte(c.src))
		want := "-" + c.want
		if !strings.HasPrefix(got, want+" script: "+sha+", on @user_script:") && got != want+"\r\n" {
			t.Errorf("%q:\n got %q\nwant %q script: ...", c.src, got, want)
		}
		if !res.Err || res.Counted != c.counted {
			t.Errorf("%q: result %+v, want Err and Counted %v", c.src, res, c.counted)
		}
	}
	// The line is that of the code running: inside a function, the
	// function's line; for a library function, its caller's.
	for src, line := range map[string]string{
		"return a":              "1",
		"local x = 1\nreturn a": "2",
		"local function f()\n return a\nend\nreturn f()": "2",
		"\n\nredis.call('nosuch')":                       "3",
		"local t = {}\n\nt.x.y = 1":                      "3",
		"local s = 'x'\nreturn s:rep()":                  "2",
		"error({err='x'})\n":                             "1",
	} {
		got, _ := eval(t, e, src, 2, nil)
		if !strings.HasSuffix(got, ", on @user_script:"+line+".\r\n") {
			t.Errorf("%q: got %q, want line %s", src, got, line)
		}
	}
}

// pcall catches what redis.call raises as the error's text (Redis's
// pcall), and Lua errors as their message; xpcall leaves the table.
func TestPcall(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"local ok, r = pcall(function() return 1 end) return 'status: ' .. tostring(ok) .. ' result: ' .. r": "status: true result: 1",
		"local ok, r = pcall(function() return foo end) return tostring(ok) .. ' ' .. r":                     "false user_script:1: Script attempted to access nonexistent global variable 'foo'",
		"local ok, r = pcall(redis.call, 'nosuch') return r":                                                 "ERR Unknown Redis command called from script",
		"local ok, r = pcall(function() redis.call('nosuch') end) return r":                                  "ERR Unknown Redis command called from script",
		"local ok, r = pcall(error, {err='E x'}) return r":                                                   "E x",
		"local ok, r = pcall(error, {1}) return type(r)":                                                     "table",
		"local ok, r = xpcall(function() redis.call('nosuch') end, function(e) return type(e) end) return r": "table",
		"local ok, r = pcall(function() local x = nil + 1 end) return r":                                     "user_script:1: attempt to perform arithmetic on a nil value",
		"local ok, r = pcall(1) return r":                                                                    "attempt to call a number value",
		"return select('#', pcall(function() return 1, 2, 3 end))":                                           "4",
		"local t = redis.pcall('nosuch') return t.err":                                                       "ERR Unknown Redis command called from script",
	} {
		got, _ := eval(t, e, src, 2, nil)
		if got != bulk(want) && got != ":"+want+"\r\n" {
			t.Errorf("%q:\n got %q\nwant %q", src, got, want)
		}
	}
}

func bulk(s string) string { return "$" + itoa(len(s)) + "\r\n" + s + "\r\n" }

// The globals and the libraries are read-only, as in Redis 7.0; the
// functions Redis leaves out are not there.
func TestGlobalsProtection(t *testing.T) {
	e := New(Options{})
	readonly := "Attempt to modify a readonly table"
	for src, want := range map[string]string{
		"a = 10":                          readonly,
		"redis = function() return 1 end": readonly,
		"_G = {}":                         readonly,
		"KEYS = {}":                       readonly,
		"setmetatable(_G, {})":            readonly,
		"local g = getmetatable(_G) g.__index = {}": readonly,
		"rawset(_G, 'x', 1)":                        readonly,
		"redis.call = function() return 1 end":      readonly,
		"redis.newfield = 1":                        readonly,
		"cjson.encode = function() return 1 end":    readonly,
		"cmsgpack.pack = function() return 1 end":   readonly,
		"bit.lshift = function() return 1 end":      readonly,
		"struct.pack = 1":                           readonly,
		"string.upper = nil":                        readonly,
		"math.pi = 3":                               readonly,
		"table.insert(string, 1)":                   readonly,
		"table.sort(math)":                          readonly,
		"rawset(redis, 'x', 1)":                     readonly,
		"setmetatable(cjson, {})":                   readonly,
		"getmetatable('').__index.upper = 1":        readonly,
		"getfenv(redis.call).x = 1":                 readonly,
		"getfenv().x = 1":                           readonly,
		"coroutine.wrap = nil":                      readonly,
		"loadfile('some file')":                     "Script attempted to access nonexistent global variable 'loadfile'",
		"dofile('some file')":                       "Script attempted to access nonexistent global variable 'dofile'",
		"print('some data')":                        "Script attempted to access nonexistent global variable 'print'",
		"return require":                            "Script attempted to access nonexistent global variable 'require'",
		"return os":                                 "Script attempted to access nonexistent global variable 'os'",
		"return io":                                 "Script attempted to access nonexistent global variable 'io'",
		"return debug":                              "Script attempted to access nonexistent global variable 'debug'",
		"return package":                            "Script attempted to access nonexistent global variable 'package'",
		"return _GOPHER_LUA_VERSION":                "Script attempted to access nonexistent global variable '_GOPHER_LUA_VERSION'",
		"loadstring('x = 1')()":                     readonly,
		"coroutine.wrap(function() y = 1 end)()":    readonly,
	} {
		got, _ := eval(t, e, src, 2, nil)
		if !strings.Contains(got, want) || !strings.HasPrefix(got, "-ERR ") {
			t.Errorf("%q: got %q, want ...%s...", src, got, want)
		}
	}
	// What is there reads as in Redis.
	for src, want := range map[string]string{
		"return type(loadstring)":                       "function",
		"return type(load)":                             "function",
		"return type(newproxy)":                         "function",
		"return type(gcinfo)":                           "function",
		"return type(coroutine.create)":                 "function",
		"return type(table.foreach)":                    "function",
		"return type(string.gmatch)":                    "function",
		"return _VERSION":                               "Lua 5.1",
		"return tostring(_G == getfenv())":              "true",
		"return tostring(_G._G == _G)":                  "true",
		"return tostring(math.huge == 1/0)":             "true",
		"return tostring(getmetatable(string))":         "nil",
		"return tostring(rawget(_G, 'redis') == redis)": "true",
		"return type(rawget(redis, 'call'))":            "function",
		"return tostring(#KEYS)":                        "0",
		"return tostring(next(string) ~= nil)":          "true",
		"local n = 0 for k in pairs(redis) do n = n + 1 end return tostring(n > 20)":                     "true",
		"local n = 0 for k, v in pairs(_G) do if k == 'cjson' then n = n + 1 end end return tostring(n)": "1",
		"return ('x'):rep(3)":             "xxx",
		"return tostring(string.__index)": "nil",
		"local t = {} table.insert(t, 'a') table.insert(t, 'b') return table.concat(t, ',')": "a,b",
		"return redis.REDIS_VERSION":               "7.0.15",
		"return tostring(redis.REDIS_VERSION_NUM)": "458767",
		"return tostring(redis.REPL_ALL + redis.REPL_SLAVE + redis.REPL_REPLICA + redis.REPL_AOF + redis.REPL_NONE)": "8",
		"return tostring(redis.LOG_WARNING)":                                        "3",
		"return tostring(redis.replicate_commands())":                               "true",
		"return tostring(redis.breakpoint())":                                       "false",
		"return tostring(select('#', redis.debug('x')))":                            "0",
		"return loadstring('return 1 +')":                                           "",
		"return select(2, loadstring('return 1 +'))":                                `[string "return 1 +"]:1: unexpected symbol near '<eof>'`,
		"return tostring(tonumber('1e5'))":                                          "100000",
		"return tostring(tonumber('  0x10  '))":                                     "16",
		"return tostring(tonumber('z', 36))":                                        "35",
		"return tostring(tonumber('12a'))":                                          "nil",
		"return tostring(-0.0)":                                                     "-0",
		"return tostring(1e15)":                                                     "1e+15",
		"return tostring(2^53)":                                                     "9.007199254741e+15",
		"return table.concat({1/3, 2, 'a'}, ',') .. table.concat({1, 2, 3}, '', 2)": "0.33333333333333,2,a23",
		"return string.format('%s|%5s|%d|%%s', 1/3, 2, 3.0)":                        "0.33333333333333|    2|3|%s",
		"return table.foreach({10}, function(k, v) return v * 2 end)":               "",
		"return tostring(collectgarbage('count'))":                                  "0",
		"return tostring(select('#', collectgarbage()))":                            "1",
	} {
		got, _ := eval(t, e, src, 2, nil)
		if want == "" {
			if !strings.HasPrefix(got, "$-1") && !strings.HasPrefix(got, ":") {
				t.Errorf("%q: got %q", src, got)
			}
			continue
		}
		if got != bulk(want) {
			t.Errorf("%q:\n got %q\nwant %q", src, got, want)
		}
	}
}

// Compile errors, as EVAL and SCRIPT LOAD answer them.
func TestCompileErrors(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"return 1 +":            "user_script:1: unexpected symbol near '<eof>'",
		"return 1 +\n":          "user_script:2: unexpected symbol near '<eof>'",
		"if x then return 1":    "user_script:1: 'end' expected near '<eof>'",
		"if x then\nreturn 1\n": "user_script:3: 'end' expected (to close 'if' at line 1) near '<eof>'",
		"while true do\n":       "user_script:2: 'end' expected (to close 'while' at line 1) near '<eof>'",
		"repeat\n":              "user_script:2: 'until' expected (to close 'repeat' at line 1) near '<eof>'",
		"return 'abc":           "user_script:1: unfinished string near '",
		"x = = 1":               "user_script:1: unexpected symbol near '='",
		"break":                 "user_script:1: no loop to break",
		"return ...":            "",
		"#!lua\nreturn 1 +":     "user_script:2: unexpected symbol near '<eof>'",
	} {
		_, err := e.Load([]byte(src))
		if want == "" {
			continue
		}
		prefix := "ERR Error compiling script (new function): "
		if err == nil || !strings.HasPrefix(err.Error(), prefix+want) {
			t.Errorf("%q: got %v, want %s%s", src, err, prefix, want)
		}
		got, res := eval(t, e, src, 2, nil)
		if !strings.HasPrefix(got, "-"+prefix+want) || res.Ran || !res.Err {
			t.Errorf("EVAL %q: got %q %+v", src, got, res)
		}
	}
}

// A run that fails leaves the engine as it was for the next one.
func TestErrorsDoNotLeak(t *testing.T) {
	e := New(Options{})
	h := newHost()
	for i := 0; i < 100; i++ {
		eval(t, e, "redis.call('set', 'x', 'y') error('x')", 2, h)
		eval(t, e, "return redis.call('nosuch')", 2, h)
	}
	if top := e.vm.GetTop(); top != 0 {
		t.Fatalf("Lua stack holds %d values", top)
	}
	got, _ := eval(t, e, "return redis.call('get', 'x')", 2, h)
	if got != "$1\r\ny\r\n" {
		t.Fatalf("after errors: %q", got)
	}
}

// A script whose interrupt context is done stops with Redis's SCRIPT KILL
// error, even inside pcall.
func TestInterrupt(t *testing.T) {
	e := New(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	e.SetInterrupt(ctx)
	h := &killHost{cancel: cancel}
	got, res := eval(t, e, "local i = 0\nwhile true do\n pcall(function() redis.call('ping') end)\n i = i + 1\nend", 2, h)
	if !strings.HasPrefix(got, "-ERR Script killed by user with SCRIPT KILL... script: ") || !res.Err {
		t.Fatalf("killed: %q %+v", got, res)
	}
	e.SetInterrupt(nil)
	if got, _ := eval(t, e, "return 1", 2, nil); got != ":1\r\n" {
		t.Fatalf("after: %q", got)
	}
	// A context done before the run stops it at once.
	e.SetInterrupt(ctx)
	if got, _ := eval(t, e, "return 2", 2, nil); !strings.HasPrefix(got, "-ERR Script killed") {
		t.Fatalf("done before: %q", got)
	}
	e.SetInterrupt(nil)
}

// killHost cancels the interrupt on the third command.
type killHost struct {
	n      int
	cancel func()
}

func (h *killHost) Call(ctx CallContext, argv [][]byte, dst []byte) []byte {
	h.n++
	if h.n == 3 {
		h.cancel()
	}
	return append(dst, "+PONG\r\n"...)
}

// Recursion deeper than Lua 5.1 allows (LUAI_MAXCALLS) fails the script
// and leaves the engine usable.
func TestStackOverflow(t *testing.T) {
	e := New(Options{})
	src := "local function f(n) if n == 0 then return 0 end return 1 + f(n-1) end return f(tonumber(ARGV[1]))"
	w := resp.Writer{Proto: 2}
	e.Eval([]byte(src), nil, [][]byte{[]byte("15000")}, newHost(), &w)
	if string(w.B) != ":15000\r\n" {
		t.Fatalf("15000 deep: %q", w.B)
	}
	w.B = nil
	res := e.Eval([]byte(src), nil, [][]byte{[]byte("30000")}, newHost(), &w)
	if !strings.Contains(string(w.B), "stack overflow") || !res.Err {
		t.Fatalf("30000 deep: %q", w.B)
	}
	if got, _ := eval(t, e, "return 1", 2, nil); got != ":1\r\n" {
		t.Fatalf("after: %q", got)
	}
}
