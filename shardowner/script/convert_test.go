package script

import (
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

// rawHost answers every command with the reply it holds.
type rawHost struct {
	reply string
	ctx   CallContext
	argv  []string
}

func (h *rawHost) Call(ctx CallContext, argv [][]byte, dst []byte) []byte {
	h.ctx = ctx
	h.argv = h.argv[:0]
	for _, a := range argv {
		h.argv = append(h.argv, string(a))
	}
	return append(dst, h.reply...)
}

// eval runs src as EVAL with no keys in a client of protocol proto and
// returns the reply bytes.
func eval(t testing.TB, e *Engine, src string, proto int, h Host) (string, Result) {
	t.Helper()
	if h == nil {
		h = newHost()
	}
	w := resp.Writer{Proto: proto}
	res := e.Eval([]byte(src), nil, nil, h, &w)
	return string(w.B), res
}

// Lua values to RESP, as luaReplyToRedisReply converts them; the client's
// protocol decides the shapes, the script's (redis.setresp) how booleans
// read.
func TestLuaToRESP(t *testing.T) {
	e := New(Options{})
	for _, c := range []struct {
		src          string
		resp2, resp3 string
	}{
		{"return 'hello world'", "$11\r\nhello world\r\n", ""},
		{"return ''", "$0\r\n\r\n", ""},
		{"return 'a\\0b'", "$3\r\na\x00b\r\n", ""},
		{"return 100.5", ":100\r\n", ""},
		{"return -100.5", ":-100\r\n", ""},
		{"return 9007199254740991", ":9007199254740991\r\n", ""},
		{"return 1e300", ":-9223372036854775808\r\n", ""},
		{"return 0/0", ":-9223372036854775808\r\n", ""},
		{"return true", ":1\r\n", ""},
		{"return false", "$-1\r\n", "_\r\n"},
		{"return nil", "$-1\r\n", "_\r\n"},
		{"return", "$-1\r\n", "_\r\n"},
		{"return function() end", "$-1\r\n", "_\r\n"},
		{"return cjson.null", "$-1\r\n", "_\r\n"},
		{"return coroutine.create(function() end)", "$-1\r\n", "_\r\n"},
		{"redis.setresp(3) return true", ":1\r\n", "#t\r\n"},
		{"redis.setresp(3) return false", ":0\r\n", "#f\r\n"},
		{"redis.setresp(3) return nil", "$-1\r\n", "_\r\n"},
		{"return {ok='fine'}", "+fine\r\n", ""},
		{"return {ok='a\\r\\nb'}", "+a  b\r\n", ""},
		{"return {ok='a\\0b'}", "+a\r\n", ""},
		{"return {ok=1}", "*0\r\n", ""},
		{"return {err='ERR this is an error'}", "-ERR this is an error\r\n", ""},
		{"return {err='no code'}", "-no code\r\n", ""},
		{"return {err='x\\r\\n'}", "-x\r\n", ""},
		{"return {err='a\\nb'}", "-a b\r\n", ""},
		{"return {err=''}", "-\r\n", ""},
		{"return {err='e', ok='o'}", "-e\r\n", ""},
		{"return redis.error_reply('MY_ERR_CODE custom msg')", "-MY_ERR_CODE custom msg\r\n", ""},
		{"return redis.error_reply('-MY_ERR_CODE custom msg')", "-MY_ERR_CODE custom msg\r\n", ""},
		{"return redis.error_reply('nospace')", "-ERR nospace\r\n", ""},
		{"return redis.error_reply('')", "-ERR \r\n", ""},
		{"return redis.error_reply(1)", "-ERR wrong number or type of arguments\r\n", ""},
		{"return redis.status_reply('MY_OK_CODE custom msg')", "+MY_OK_CODE custom msg\r\n", ""},
		{"return {1,2,3,'ciao',{1,2}}", "*5\r\n:1\r\n:2\r\n:3\r\n$4\r\nciao\r\n*2\r\n:1\r\n:2\r\n", ""},
		{"return {1,nil,3}", "*1\r\n:1\r\n", ""},
		{"return {}", "*0\r\n", ""},
		{"return {a=1}", "*0\r\n", ""},
		{"return {1,{err='x'},3}", "*3\r\n:1\r\n-x\r\n:3\r\n", ""},
		{"return {double=3.141}", "$5\r\n3.141\r\n", ",3.141\r\n"},
		{"return {double=0.1}", "$19\r\n0.10000000000000001\r\n", ",0.10000000000000001\r\n"},
		{"return {double=1/0}", "$3\r\ninf\r\n", ",inf\r\n"},
		{"return {double=-1/0}", "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"return {double=10}", "$2\r\n10\r\n", ",10\r\n"},
		{"return {double='1'}", "*0\r\n", ""},
		{"return {big_number='1234567999999999999999999999999999999'}",
			"$37\r\n1234567999999999999999999999999999999\r\n", "(1234567999999999999999999999999999999\r\n"},
		{"return {big_number='123\\r\\n123'}", "$8\r\n123  123\r\n", "(123  123\r\n"},
		{"return {verbatim_string={format='txt', string='This is a verbatim\\nstring'}}",
			"$25\r\nThis is a verbatim\nstring\r\n", "=29\r\ntxt:This is a verbatim\nstring\r\n"},
		{"return {verbatim_string={format='m', string='hi'}}", "$2\r\nhi\r\n", "=6\r\nm  :hi\r\n"},
		{"return {verbatim_string={format='markdown', string='hi'}}", "$2\r\nhi\r\n", "=6\r\nmar:hi\r\n"},
		{"return {verbatim_string={string='hi'}}", "*0\r\n", ""},
		{"return {map={a=1}}", "*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n$1\r\na\r\n:1\r\n"},
		{"return {map={}}", "*0\r\n", "%0\r\n"},
		{"return {map={[1]={1,2}}}", "*2\r\n:1\r\n*2\r\n:1\r\n:2\r\n", "%1\r\n:1\r\n*2\r\n:1\r\n:2\r\n"},
		{"return {set={a=true}}", "*1\r\n$1\r\na\r\n", "~1\r\n$1\r\na\r\n"},
		{"return {set={}}", "*0\r\n", "~0\r\n"},
		{"return {map={a=1}, set={b=true}}", "*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n$1\r\na\r\n:1\r\n"},
		{"return {ok='x', map={a=1}}", "+x\r\n", ""},
		{"local t = setmetatable({}, {__index=function() error('no') end}) return t", "*0\r\n", ""},
		{"return _G", "*0\r\n", ""},
		{"return KEYS", "*0\r\n", ""},
	} {
		want3 := c.resp3
		if want3 == "" {
			want3 = c.resp2
		}
		if got, _ := eval(t, e, c.src, 2, nil); got != c.resp2 {
			t.Errorf("RESP2 %s:\n got %q\nwant %q", c.src, got, c.resp2)
		}
		if got, _ := eval(t, e, c.src, 3, nil); got != want3 {
			t.Errorf("RESP3 %s:\n got %q\nwant %q", c.src, got, want3)
		}
	}
}

// A table holding itself is written until the Lua stack would overflow
// in Redis: 7995 nested arrays, then the error, as tests/unit/scripting.tcl
// reads it.
func TestLuaToRESPStackLimit(t *testing.T) {
	e := New(Options{})
	got, res := eval(t, e, "local a = {}; local b = {a}; a[1] = b; return a", 2, nil)
	want := strings.Repeat("*1\r\n", 7995) + "-ERR reached lua stack limit\r\n"
	if got != want {
		t.Fatalf("got %d bytes ending %q", len(got), got[len(got)-40:])
	}
	if res.Err || res.Counted {
		t.Fatalf("result %+v: the error is nested, the reply is an array", res)
	}
	// A map holding itself: each level takes 3 slots, its key one more, so
	// the last map has both its key and its value replaced by the error.
	got, _ = eval(t, e, "local m = {} m.map = {x=m} return m", 3, nil)
	last := "%1\r\n-ERR reached lua stack limit\r\n-ERR reached lua stack limit\r\n"
	if n := strings.Count(got, "%1\r\n$1\r\nx\r\n"); n != 2664 || !strings.HasSuffix(got, last) {
		t.Fatalf("map nesting: %d levels, ends %q", n, got[len(got)-40:])
	}
}

// RESP replies to redis.call become Lua values, and those values return
// to the client as Redis converts them back: the pairs of
// tests/unit/scripting.tcl's "protocol parsing" tests, with the script in
// RESP2 and RESP3 and the client in RESP2 and RESP3.
func TestRESPToLuaToRESP(t *testing.T) {
	e := New(Options{})
	for _, c := range []struct {
		name  string
		reply string // the command's reply, in the script's protocol
		// What the client receives, by client protocol.
		client2, client3 string
		scriptResp       int
	}{
		{"integer", ":12345\r\n", ":12345\r\n", ":12345\r\n", 2},
		{"negative", ":-3\r\n", ":-3\r\n", ":-3\r\n", 2},
		{"bulk", "$11\r\nHello World\r\n", "$11\r\nHello World\r\n", "$11\r\nHello World\r\n", 2},
		{"empty bulk", "$0\r\n\r\n", "$0\r\n\r\n", "$0\r\n\r\n", 2},
		{"null bulk", "$-1\r\n", "$-1\r\n", "_\r\n", 2},
		{"null array", "*-1\r\n", "$-1\r\n", "_\r\n", 2},
		{"status", "+OK\r\n", "+OK\r\n", "+OK\r\n", 2},
		{"error", "-ERR value is not an integer or out of range\r\n",
			"-ERR value is not an integer or out of range\r\n", "-ERR value is not an integer or out of range\r\n", 2},
		{"error without code", "-oops\r\n", "-ERR oops\r\n", "-ERR oops\r\n", 2},
		{"array", "*3\r\n:0\r\n:1\r\n:2\r\n", "*3\r\n:0\r\n:1\r\n:2\r\n", "*3\r\n:0\r\n:1\r\n:2\r\n", 2},
		{"nested", "*2\r\n*1\r\n$1\r\na\r\n:5\r\n", "*2\r\n*1\r\n$1\r\na\r\n:5\r\n", "*2\r\n*1\r\n$1\r\na\r\n:5\r\n", 2},
		{"array with null bulk", "*3\r\n:1\r\n$-1\r\n:3\r\n", "*3\r\n:1\r\n$-1\r\n:3\r\n", "*3\r\n:1\r\n_\r\n:3\r\n", 2},
		{"empty array", "*0\r\n", "*0\r\n", "*0\r\n", 2},
		{"bignum", "(1234567999999999999999999999999999999\r\n",
			"$37\r\n1234567999999999999999999999999999999\r\n", "(1234567999999999999999999999999999999\r\n", 3},
		{"map", "%1\r\n$5\r\nfield\r\n$5\r\nvalue\r\n",
			"*2\r\n$5\r\nfield\r\n$5\r\nvalue\r\n", "%1\r\n$5\r\nfield\r\n$5\r\nvalue\r\n", 3},
		{"map of booleans", "%1\r\n:1\r\n#t\r\n", "*2\r\n:1\r\n:1\r\n", "%1\r\n:1\r\n#t\r\n", 3},
		{"set", "~1\r\n:0\r\n", "*1\r\n:0\r\n", "~1\r\n:0\r\n", 3},
		{"double", ",3.141\r\n", "$5\r\n3.141\r\n", ",3.141\r\n", 3},
		{"double inf", ",inf\r\n", "$3\r\ninf\r\n", ",inf\r\n", 3},
		{"double exponent", ",1e21\r\n", "$5\r\n1e+21\r\n", ",1e+21\r\n", 3},
		{"double digits", ",1.5e300\r\n", "$23\r\n1.5000000000000001e+300\r\n", ",1.5000000000000001e+300\r\n", 3},
		{"null", "_\r\n", "$-1\r\n", "_\r\n", 3},
		{"verbatim", "=29\r\ntxt:This is a verbatim\nstring\r\n",
			"$25\r\nThis is a verbatim\nstring\r\n", "=29\r\ntxt:This is a verbatim\nstring\r\n", 3},
		{"true", "#t\r\n", ":1\r\n", "#t\r\n", 3},
		{"false", "#f\r\n", ":0\r\n", "#f\r\n", 3},
		{"attribute", "|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n$39\r\nSome real reply following the attribute\r\n",
			"$39\r\nSome real reply following the attribute\r\n", "$39\r\nSome real reply following the attribute\r\n", 3},
		{"blob error", "!5\r\nERR x\r\n", "-ERR x\r\n", "-ERR x\r\n", 3},
		{"array with null", "*3\r\n:1\r\n_\r\n:3\r\n", "*1\r\n:1\r\n", "*1\r\n:1\r\n", 3},
		// Redis's parser of a call's reply has no push: nil.
		{"push", ">2\r\n:1\r\n:2\r\n", "$-1\r\n", "_\r\n", 3},
		{"malformed", "$5\r\nab\r\n", "-ERR the command's reply is not valid RESP\r\n", "-ERR the command's reply is not valid RESP\r\n", 2},
		{"unknown type", "?\r\n", "-ERR the command's reply is not valid RESP\r\n", "-ERR the command's reply is not valid RESP\r\n", 2},
	} {
		src := "return redis.pcall('x')"
		if c.scriptResp == 3 {
			src = "redis.setresp(3) " + src
		}
		for proto, want := range map[int]string{2: c.client2, 3: c.client3} {
			h := &rawHost{reply: c.reply}
			got, _ := eval(t, e, src, proto, h)
			if got != want {
				t.Errorf("%s, client RESP%d:\n got %q\nwant %q", c.name, proto, got, want)
			}
			if h.ctx.Resp != c.scriptResp {
				t.Errorf("%s: host asked for RESP%d, want %d", c.name, h.ctx.Resp, c.scriptResp)
			}
		}
	}
}

// What scripts see of replies: types and fields.
func TestRESPToLuaTypes(t *testing.T) {
	e := New(Options{})
	for _, c := range []struct{ reply, src, want string }{
		{":1\r\n", "local r = redis.call('x') return type(r)", "number"},
		{"$-1\r\n", "local r = redis.call('x') return tostring(r)", "false"},
		{"*-1\r\n", "local r = redis.call('x') return tostring(r)", "false"},
		{"+OK\r\n", "local r = redis.call('x') return r.ok", "OK"},
		{"-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
			"local r = redis.pcall('x') return r.err", "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{"-ERR x\r\n", "local r = redis.pcall('x') return tostring(r.ignore_error_stats_update)", "true"},
		{"%1\r\n$1\r\nf\r\n$1\r\nv\r\n", "redis.setresp(3) local r = redis.call('x') return r.map.f", "v"},
		{"~1\r\n$1\r\nm\r\n", "redis.setresp(3) local r = redis.call('x') return tostring(r.set.m)", "true"},
		{",2.5\r\n", "redis.setresp(3) local r = redis.call('x') return tostring(r.double)", "2.5"},
		{"(123\r\n", "redis.setresp(3) local r = redis.call('x') return r.big_number", "123"},
		{"=6\r\ntxt:hi\r\n", "redis.setresp(3) local r = redis.call('x') return r.verbatim_string.format .. r.verbatim_string.string", "txthi"},
		{"_\r\n", "redis.setresp(3) local r = redis.call('x') return type(r)", "nil"},
		{"#f\r\n", "redis.setresp(3) local r = redis.call('x') return type(r)", "boolean"},
	} {
		got, _ := eval(t, e, c.src, 2, &rawHost{reply: c.reply})
		want := "$" + itoa(len(c.want)) + "\r\n" + c.want + "\r\n"
		if got != want {
			t.Errorf("%q with %q: got %q, want %q", c.src, c.reply, got, want)
		}
	}
}

func itoa(n int) string {
	var w resp.Writer
	w.Int(int64(n))
	return strings.TrimSuffix(strings.TrimPrefix(string(w.B), ":"), "\r\n")
}

// Arguments to redis.call: strings as they are, numbers with %.17g, and
// anything else refused.
func TestCallArguments(t *testing.T) {
	e := New(Options{})
	h := &rawHost{reply: "+OK\r\n"}
	eval(t, e, "redis.call('set', 'k', 9007199254740991, 0.1, 3, -0.5, 1e20, 'x\\0y')", 2, h)
	want := []string{"set", "k", "9007199254740991", "0.10000000000000001", "3", "-0.5", "1e+20", "x\x00y"}
	if strings.Join(h.argv, "|") != strings.Join(want, "|") {
		t.Fatalf("argv %q, want %q", h.argv, want)
	}
	// Many numbers take the other path.
	src := "redis.call('rpush', 'l'" + strings.Repeat(", 1.5", 40) + ")"
	eval(t, e, src, 2, h)
	if len(h.argv) != 42 || h.argv[41] != "1.5" || h.argv[2] != "1.5" {
		t.Fatalf("many numbers: %q", h.argv)
	}
	for src, want := range map[string]string{
		"return redis.call('ping', {})":      "-ERR Lua redis lib command arguments must be strings or integers script: ",
		"return redis.call('ping', true)":    "-ERR Lua redis lib command arguments must be strings or integers script: ",
		"return redis.call('ping', nil)":     "-ERR Lua redis lib command arguments must be strings or integers script: ",
		"return redis.pcall('ping', {})":     "-ERR Lua redis lib command arguments must be strings or integers\r\n",
		"return redis.call()":                "-ERR Please specify at least one argument for this redis lib call script: ",
		"return redis.pcall()":               "-ERR Please specify at least one argument for this redis lib call\r\n",
		"return redis.pcall('ping', 'asdf')": "+OK\r\n",
	} {
		got, _ := eval(t, e, src, 2, h)
		if !strings.HasPrefix(got, want) {
			t.Errorf("%s: got %q, want %q...", src, got, want)
		}
	}
}

// KEYS and ARGV are set per run and gone after.
func TestKeysArgv(t *testing.T) {
	e := New(Options{})
	w := resp.Writer{Proto: 2}
	e.Eval([]byte("return {KEYS[1],KEYS[2],ARGV[1],ARGV[2],#KEYS,#ARGV}"),
		[][]byte{[]byte("a{t}"), []byte("b{t}")}, [][]byte{[]byte("c{t}"), []byte("d{t}")}, newHost(), &w)
	if got, want := string(w.B), "*6\r\n$4\r\na{t}\r\n$4\r\nb{t}\r\n$4\r\nc{t}\r\n$4\r\nd{t}\r\n:2\r\n:2\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
	// A script may change its own KEYS.
	got, _ := eval(t, e, "KEYS[1] = 'x' return KEYS[1]", 2, nil)
	if got != "$1\r\nx\r\n" {
		t.Fatalf("KEYS assignment: %q", got)
	}
	if e.realG.RawGetString("KEYS").String() != "nil" {
		t.Fatal("KEYS kept after the run")
	}
}

// The KEYS and ARGV tables are reused from run to run only when the last
// script left them as plain arrays.
func TestKeysArgvReuse(t *testing.T) {
	e := New(Options{})
	h := newHost()
	run := func(src string, keys ...string) string {
		var kb [][]byte
		for _, k := range keys {
			kb = append(kb, []byte(k))
		}
		w := resp.Writer{Proto: 2}
		e.Eval([]byte(src), kb, nil, h, &w)
		return string(w.B)
	}
	for _, c := range []struct {
		spoil string
		keys  []string
	}{
		{"KEYS.x = 1", nil},
		{"KEYS.x = 1", []string{"a"}},
		{"KEYS[5] = 1", []string{"a"}},
		{"KEYS[3] = 1", []string{"a", "b"}},
		{"setmetatable(KEYS, {__index = function() return 'm' end})", nil},
		{"KEYS[2] = nil", []string{"a", "b"}},
	} {
		run(c.spoil, c.keys...)
		got := run("local n = 0 for k, v in pairs(KEYS) do n = n + 1 end return {n, tostring(KEYS.x), tostring(KEYS[5]), tostring(KEYS[9])}", "k")
		if got != "*4\r\n:1\r\n$3\r\nnil\r\n$3\r\nnil\r\n$3\r\nnil\r\n" {
			t.Errorf("after %q: %q", c.spoil, got)
		}
	}
	if got := run("return #KEYS", "a", "b", "c"); got != ":3\r\n" {
		t.Fatal(got)
	}
	if got := run("return {#KEYS, KEYS[1]}", "z"); got != "*2\r\n:1\r\n$1\r\nz\r\n" {
		t.Fatal(got)
	}
}
