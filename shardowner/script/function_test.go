package script

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/resp"
)

func TestLibraryMeta(t *testing.T) {
	for _, tc := range []struct {
		code, engine, name, err string
	}{
		{"#!lua name=lib\nx", "lua", "lib", ""},
		{"#!LUA name=\"my lib\"\nx", "LUA", "my lib", ""},
		{"#!lua NAME=a\nx", "lua", "a", ""},
		{"no shebang", "", "", "ERR Missing library metadata"},
		{"#!lua name=a", "", "", "ERR Invalid library metadata"},
		{"#!lua name=a name=b\nx", "", "", "ERR Invalid metadata value, name argument was given multiple times"},
		{"#!lua foo=bar\nx", "", "", "ERR Invalid metadata value given: foo=bar"},
		{"#!lua\nx", "", "", "ERR Library name was not given"},
		{"#!lua name=\"a\nx", "", "", "ERR Invalid library metadata"},
	} {
		engine, name, body, err := LibraryMeta([]byte(tc.code))
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %q", tc.code, err, tc.err)
			}
			continue
		}
		if err != nil || engine != tc.engine || name != tc.name || tc.code[body] != '\n' {
			t.Errorf("%q: %q %q %d %v", tc.code, engine, name, body, err)
		}
	}
}

// callFunction runs the engine's function name with keys and args and
// returns its reply.
func callFunction(t *testing.T, e *Engine, h Host, name string, keys, args []string) string {
	t.Helper()
	f := e.FunctionNamed([]byte(name))
	if f == nil {
		t.Fatalf("no function %q", name)
	}
	var w resp.Writer
	e.Call(f, toBytes(keys), toBytes(args), h, &w)
	return string(w.B)
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func TestLoadAndCall(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	h := newHost()
	code := "#!lua name=lib\nlocal n = 0\n" +
		"redis.register_function('count', function(keys, args) n = n + 1; return {n, keys[1], args[1], #keys, #args} end)\n" +
		"redis.register_function{function_name='Set', callback=function(keys, args) return redis.call('set', keys[1], args[1]) end, flags={'allow-oom', 'NO-WRITES'}, description='sets'}\n" +
		"redis.register_function('boom', function() error('bad') end)"
	name, err := e.LoadLibrary([]byte(code), false, LoadTimeout)
	if err != nil || name != "lib" {
		t.Fatalf("LoadLibrary: %q %v", name, err)
	}
	// The library's upvalues last from call to call.
	for _, want := range []string{"*5\r\n:1\r\n$1\r\nk\r\n$1\r\na\r\n:1\r\n:2\r\n", "*5\r\n:2\r\n$1\r\nk\r\n$1\r\na\r\n:1\r\n:2\r\n"} {
		if got := callFunction(t, e, h, "COUNT", []string{"k"}, []string{"a", "b"}); got != want {
			t.Errorf("count: %q, want %q", got, want)
		}
	}
	f := e.FunctionNamed([]byte("set"))
	if f.Flags != FlagAllowOOM|FlagNoWrites || !f.HasDesc || f.Desc != "sets" || f.Lib.Name != "lib" {
		t.Errorf("Set: %+v", f)
	}
	if got := callFunction(t, e, h, "boom", nil, nil); got != "-ERR user_function:5: bad script: boom, on @user_function:5.\r\n" {
		t.Errorf("boom: %q", got)
	}
	if e.FunctionCount() != 3 || len(e.Libraries()) != 1 {
		t.Errorf("%d functions in %d libraries", e.FunctionCount(), len(e.Libraries()))
	}

	// Names: a library is held once; a function name once across them.
	if _, err := e.LoadLibrary([]byte(code), false, LoadTimeout); err == nil || err.Error() != "ERR Library 'lib' already exists" {
		t.Errorf("load again: %v", err)
	}
	other := "#!lua name=other\nredis.register_function('count', function() return 0 end)"
	if _, err := e.LoadLibrary([]byte(other), false, LoadTimeout); err == nil || err.Error() != "ERR Function count already exists" {
		t.Errorf("a function name of another library: %v", err)
	}
	// REPLACE takes the old library's place; a failed one leaves it.
	if _, err := e.LoadLibrary([]byte("#!lua name=lib\nreturn 1"), true, LoadTimeout); err == nil || err.Error() != "ERR No functions registered" {
		t.Errorf("replace with no functions: %v", err)
	}
	if e.FunctionNamed([]byte("count")) == nil {
		t.Error("a failed REPLACE dropped the old library")
	}
	if _, err := e.LoadLibrary([]byte("#!lua name=lib\nredis.register_function('count', function() return 7 end)"), true, LoadTimeout); err != nil {
		t.Fatal(err)
	}
	if got := callFunction(t, e, h, "count", nil, nil); got != ":7\r\n" || e.FunctionNamed([]byte("set")) != nil {
		t.Errorf("after REPLACE: %q", got)
	}
	if !e.DeleteLibrary("lib") || e.DeleteLibrary("lib") || e.FunctionNamed([]byte("count")) != nil {
		t.Error("DeleteLibrary")
	}
}

// What a library's code sees at load: the redis table of
// register_function, log and the version only; globals read-only.
func TestLoadEnvironment(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	for code, want := range map[string]string{
		"return math.random()":      "Script attempted to access nonexistent global variable 'math'",
		"return redis.call('ping')": "Script attempted to access nonexistent global variable 'call'",
		"x = 1":                     "Attempt to modify a readonly table",
		"redis.x = 1":               "Attempt to modify a readonly table",
		"getmetatable(_G)":          "Script attempted to access nonexistent global variable 'getmetatable'",
		"local a = 1 while true do a = a + 1 end":                                          "ERR FUNCTION LOAD timeout",
		"redis.register_function('a-b', function() end)":                                   "Library names can only contain",
		"redis.register_function('f', function() end, 1)":                                  "wrong number of arguments to redis.register_function",
		"redis.register_function{function_name='f', callback=1}":                           "callback argument given to redis.register_function must be a function",
		"redis.register_function{function_name='f', callback=function() end, flags={'x'}}": "unknown flag given",
	} {
		_, err := e.LoadLibrary([]byte("#!lua name=lib\n"+code), false, 50*time.Millisecond)
		if err == nil || !strings.HasPrefix(err.Error(), "ERR Error registering functions: ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", code, err, want)
		}
	}
	if _, err := e.LoadLibrary([]byte("#!lua name=lib\nreturn +"), false, LoadTimeout); err == nil || !strings.HasPrefix(err.Error(), "ERR Error compiling function: user_function:2:") {
		t.Errorf("compile error: %v", err)
	}
	// At run time the full globals, and no register_function.
	code := "#!lua name=lib\nlocal api = redis\n" +
		"redis.register_function('run', function() return string.format('%d', math.floor(2.5)) .. type(redis.call) .. type(redis.register_function) end)\n" +
		"redis.register_function('late', function() api.register_function('x', function() end) end)"
	if _, err := e.LoadLibrary([]byte(code), false, LoadTimeout); err != nil {
		t.Fatal(err)
	}
	h := newHost()
	if got := callFunction(t, e, h, "run", nil, nil); got != "$12\r\n2functionnil\r\n" {
		t.Errorf("run: %q", got)
	}
	if got := callFunction(t, e, h, "late", nil, nil); !strings.Contains(got, "redis.register_function can only be called on FUNCTION LOAD command") {
		t.Errorf("late: %q", got)
	}
	// An EVAL script on the same engine sees no library.
	var w resp.Writer
	e.Eval([]byte("return type(run)"), nil, nil, h, &w)
	if !strings.Contains(string(w.B), "nonexistent global variable 'run'") {
		t.Errorf("EVAL sees a function: %q", w.B)
	}
}

func TestRestoreLibraries(t *testing.T) {
	e := New(Options{})
	defer e.Close()
	lib := func(name, fn string) []byte {
		return []byte("#!lua name=" + name + "\nredis.register_function('" + fn + "', function() return '" + name + "' end)")
	}
	if err := e.RestoreLibraries([][]byte{lib("a", "fa"), lib("b", "fb")}, RestoreAppend); err != nil {
		t.Fatal(err)
	}
	if err := e.RestoreLibraries([][]byte{lib("a", "fx")}, RestoreAppend); err == nil || err.Error() != "ERR Library a already exists" {
		t.Errorf("append over a held library: %v", err)
	}
	if err := e.RestoreLibraries([][]byte{lib("c", "fb")}, RestoreReplace); err == nil || err.Error() != "ERR Function fb already exists" {
		t.Errorf("replace with a function of another library: %v", err)
	}
	if err := e.RestoreLibraries([][]byte{lib("a", "fx")}, RestoreReplace); err != nil || e.FunctionNamed([]byte("fa")) != nil || e.FunctionNamed([]byte("fx")) == nil {
		t.Errorf("replace: %v", err)
	}
	if err := e.RestoreLibraries([][]byte{lib("z", "fz")}, RestoreFlush); err != nil || len(e.Libraries()) != 1 || e.FunctionNamed([]byte("fz")) == nil {
		t.Errorf("flush: %v %d", err, len(e.Libraries()))
	}
	if err := e.RestoreLibraries([][]byte{lib("q", "f1"), lib("q", "f2")}, RestoreFlush); err == nil || len(e.Libraries()) != 1 {
		t.Errorf("a payload holding a library twice: %v", err)
	}
}

// FuzzLoadLibrary loads arbitrary code as a library: it loads or fails
// with an error, never crashes, and what loaded can be called and
// deleted.
func FuzzLoadLibrary(f *testing.F) {
	for _, s := range []string{
		"redis.register_function('f', function(k, a) return {k[1], a[1]} end)",
		"redis.register_function{function_name='f', callback=function() return 1 end, flags={'no-writes'}}",
		"local t = {} for i = 1, 10 do t[i] = i end redis.register_function('f', function() return t end)",
		"redis.register_function('f', function() return redis.call('get', 'k') end) redis.log(redis.LOG_WARNING, 'x')",
		"return 1", "x", "error({err='E'})", "redis.register_function(redis)",
	} {
		f.Add("#!lua name=lib\n" + s)
	}
	e := New(Options{})
	f.Fuzz(func(t *testing.T, code string) {
		name, err := e.LoadLibrary([]byte(code), true, 20*time.Millisecond)
		if err != nil {
			if _, ok := err.(Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		libs := e.Libraries()
		l := libs[len(libs)-1]
		if l.Name != name || len(l.Functions) == 0 {
			t.Fatalf("loaded %q: %+v", name, l)
		}
		// A function that runs on is stopped as SCRIPT KILL would.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		e.SetInterrupt(ctx)
		defer func() {
			e.SetInterrupt(nil)
			cancel()
		}()
		for _, fn := range l.Functions {
			var w resp.Writer
			e.Call(fn, [][]byte{[]byte("k")}, [][]byte{[]byte("a")}, newHost(), &w)
			if len(w.B) == 0 {
				t.Fatalf("%s wrote no reply", fn.Name)
			}
		}
		if !e.DeleteLibrary(name) {
			t.Fatalf("DeleteLibrary(%q)", name)
		}
	})
}
