package script

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A call or index of a value that cannot take it is named as Lua 5.1 (and
// so Redis) names it; each text here is redis-server 7.0's.
func TestFailureNames(t *testing.T) {
	e := New(Options{})
	for src, want := range map[string]string{
		"local f f()":        "attempt to call local 'f' (a nil value)",
		"redis.nosuch()":     "attempt to call field 'nosuch' (a nil value)",
		"local t = {} t:m()": "attempt to call method 'm' (a nil value)",
		"local t = {} local x = (t.a)(1) + t.b(2)": "attempt to call field 'a' (a nil value)",
		"return (1)()":                                 "attempt to call a number value",
		"local u local function g() u() end g()":       "attempt to call upvalue 'u' (a nil value)",
		"local x = 5 x()":                              "attempt to call local 'x' (a number value)",
		"local t = {} t[1]()":                          "attempt to call field '?' (a nil value)",
		"local t = {f=1} return t.f(t.g())":            "attempt to call field 'g' (a nil value)",
		"for i = 1, 2 do local q = i; q() end":         "attempt to call local 'q' (a number value)",
		"return redis.call('get', 'x') .. string.no()": "attempt to call field 'no' (a nil value)",
		"local t = {a={}} t.a.b.c()":                   "attempt to index field 'b' (a nil value)",
		"local t = {a=1} return t.a.b.c":               "attempt to index field 'a' (a number value)",
		"return KEYS[1].x.y":                           "attempt to index field '?' (a nil value)",
		"local n = 5 n.x = 1":                          "attempt to index local 'n' (a number value)",
		"return (nil).x":                               "attempt to index a nil value",
		"local t = setmetatable({}, {__index = function() return 5 end}) t.x()": "attempt to call field 'x' (a number value)",
	} {
		got, _ := eval(t, e, src, 2, nil)
		if want := "-ERR user_script:1: " + want + " script: "; !strings.HasPrefix(got, want) {
			t.Errorf("%q:\n got %q\nwant %q...", src, got, want)
		}
	}
	// pcall's message names it too.
	got, _ := eval(t, e, "local ok, r = pcall(function() redis.nope(1) end) return r", 2, nil)
	if want := bulk("user_script:1: attempt to call field 'nope' (a nil value)"); got != want {
		t.Errorf("pcall: got %q, want %q", got, want)
	}
}

// reNamed finds the name a failure text gives.
var reNamed = regexp.MustCompile(`attempt to (?:call|index) (?:local|global|field|method|upvalue) '([^']*)'`)

// FuzzFailureNames runs scripts that fail: none crashes the engine, the
// reply is one error line, gopher-lua's own texts never show, and a name
// given is one the script holds ("?" aside).
func FuzzFailureNames(f *testing.F) {
	for _, s := range []string{"local f f()", "redis.nosuch()", "local t = {} t:m()", "return KEYS[1].x.y",
		"local t = {f=1} return t.f(t.g())", "for i = 1, 2 do local q = i; q() end", "local n = 5 n.x = 1",
		"local a = {} if a then a.b.c = 1 end", "local x = cjson.decode('[1]') return x[1].y",
		"local t = {} for k, v in pairs({1}) do t[k].z() end", "local function f(...) return (...)() end f(1)",
		"return ({})[1]:m()", "local s = 'abc' return s.x.y", "local ok, e = pcall(function() local z; return z.q end) return e"} {
		f.Add(s)
	}
	e := New(Options{})
	f.Fuzz(func(t *testing.T, src string) {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		e.SetInterrupt(ctx)
		defer e.SetInterrupt(nil)
		got, _ := eval(t, e, src, 2, nil)
		if strings.Contains(got, "non-function object") || strings.Contains(got, "non-table object") {
			t.Fatalf("%q: gopher-lua's text came through: %q", src, got)
		}
		if strings.HasPrefix(got, "-") && strings.Count(got, "\r\n") != 1 {
			t.Fatalf("%q: not one error line: %q", src, got)
		}
		for _, m := range reNamed.FindAllStringSubmatch(got, -1) {
			if m[1] != "?" && !strings.Contains(src, m[1]) {
				t.Fatalf("%q: names %q, which it does not hold: %q", src, m[1], got)
			}
		}
	})
}
