package script

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/corekv/corekv/resp"
)

// FuzzCjsonDecode feeds cjson.decode arbitrary text: it raises a Lua error
// or returns a value, never crashes, and what it returns encodes to JSON
// that decodes and encodes to the same text again.
func FuzzCjsonDecode(f *testing.F) {
	for _, s := range []string{`[0.0, -5e3, -1, 0.3e-3, 1023.2, 0e10]`, `{"keya": "a", "keyb": "b"}`, `null`,
		`"\u00e9\ud83d\ude00"`, `[1,[2,[3,{"x":null}]]]`, `nan`, `-Infinity`, `0x1p4`, `"\x"`, `{"a":1,}`, `[1]` + "\x00x",
		`[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]`, `{"1":2,"3":[true,false]}`, ``, `"`, `-`, `1e400`} {
		f.Add(s)
	}
	e := New(Options{})
	decode := e.json.decode
	encode := e.json.encode
	call := func(fn lua.LGFunction, arg lua.LValue) (lua.LValue, bool) {
		L := e.vm
		L.Push(L.NewFunction(fn))
		L.Push(arg)
		if err := L.PCall(1, 1, nil); err != nil {
			return nil, false
		}
		v := L.Get(-1)
		L.Pop(1)
		return v, true
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := call(decode, lua.LString(s))
		if !ok {
			return
		}
		enc, ok := call(encode, v)
		if !ok {
			return // NaN, infinities and sparse arrays do not encode
		}
		v2, ok := call(decode, enc)
		if !ok {
			t.Fatalf("%q encoded as %q, which does not decode", s, enc)
		}
		enc2, ok := call(encode, v2)
		if !ok || enc2.String() != enc.String() {
			t.Fatalf("%q: %q then %q", s, enc, enc2)
		}
		if e.vm.GetTop() != 0 {
			t.Fatalf("stack left with %d values", e.vm.GetTop())
		}
	})
}

// FuzzRESPToLuaToRESP gives redis.pcall arbitrary bytes as a command's
// reply, in both protocols of script and client: the engine never
// crashes, and what it writes is one well-formed RESP value.
func FuzzRESPToLuaToRESP(f *testing.F) {
	for _, s := range []string{":1\r\n", "$5\r\nhello\r\n", "$-1\r\n", "*-1\r\n", "+OK\r\n", "-ERR x\r\n",
		"*2\r\n:1\r\n*1\r\n$1\r\na\r\n", "%1\r\n$1\r\nk\r\n$1\r\nv\r\n", "~2\r\n:1\r\n:2\r\n", "_\r\n", "#t\r\n",
		",3.14\r\n", ",nan\r\n", "(123\r\n", "=8\r\ntxt:abcd\r\n", "|1\r\n:1\r\n:2\r\n:3\r\n", "!3\r\nERR\r\n",
		">1\r\n:1\r\n", "*3\r\n:1\r\n_\r\n:2\r\n", "%1\r\n_\r\n:1\r\n", "%1\r\n,nan\r\n:1\r\n", "", "*1\r\n", "$3\r\nab"} {
		f.Add([]byte(s), uint8(0))
	}
	e := New(Options{})
	scripts := []string{"return redis.pcall('x')", "redis.setresp(3) return redis.pcall('x')",
		"return {redis.pcall('x'), redis.pcall('x')}", "redis.setresp(3) return {map={k=redis.pcall('x')}}"}
	var p replyParser
	check := lua.NewState(lua.Options{SkipOpenLibs: true})
	f.Fuzz(func(t *testing.T, reply []byte, mode uint8) {
		h := &rawHost{reply: string(reply)}
		src := scripts[int(mode)%len(scripts)]
		for _, proto := range []int{2, 3} {
			w := resp.Writer{Proto: proto}
			e.Eval([]byte(src), nil, nil, h, &w)
			if len(w.B) == 0 {
				t.Fatalf("%q: no reply", reply)
			}
			p.toLua(check, w.B)
			if p.bad || p.pos != len(w.B) {
				t.Fatalf("%q (script %q, RESP%d) gave %q, not one RESP value", reply, src, proto, w.B)
			}
		}
		if e.vm.GetTop() != 0 {
			t.Fatalf("stack left with %d values", e.vm.GetTop())
		}
	})
}
