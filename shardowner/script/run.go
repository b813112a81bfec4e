package script

import (
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/corekv/corekv/resp"
)

// run is the state of the script running: Redis's scriptRunCtx, the part
// of it the engine keeps.
type run struct {
	host   Host
	sha    string
	resp   int  // redis.setresp
	repl   Repl // redis.set_repl
	inCall bool // inside host.Call
}

// Result tells the server how a run ended, beside the reply written.
type Result struct {
	// Ran is false when no script ran: NOSCRIPT, a compile or shebang error
	// (EVAL), an engine already running a script.
	Ran bool
	// Err is set when the reply written is an error.
	Err bool
	// Counted is set with Err when the error is one a command called by the
	// script replied with (redis.call raising it, or the script returning
	// redis.pcall's error table): the host has counted it in the error
	// statistics already, so the server counts the script's command as
	// failed but adds nothing to errorstats or total_error_replies
	// (Redis's ERR_REPLY_FLAG_NO_STATS_UPDATE).
	Counted bool
}

// EvalSHA runs the cached script sha (EVALSHA): keys and args become KEYS
// and ARGV, the commands it calls go to host, and its reply is written to
// w in w's protocol. sha is matched without regard to case; an unknown one
// is answered with NOSCRIPT.
func (e *Engine) EvalSHA(sha string, keys, args [][]byte, host Host, w *resp.Writer) Result {
	s := e.cache.get(sha)
	if s == nil {
		w.Err(ErrNoScript)
		return Result{Err: true}
	}
	return e.Run(s, keys, args, host, w)
}

// Eval compiles body if it is not cached yet, keeping it in the EVAL part
// of the cache, and runs it as EvalSHA does (EVAL). A shebang or compile
// error is written to w.
func (e *Engine) Eval(body []byte, keys, args [][]byte, host Host, w *resp.Writer) Result {
	s, err := e.cache.add(e, body, false)
	if err != nil {
		w.Err(err.(Error))
		return Result{Err: true}
	}
	return e.Run(s, keys, args, host, w)
}

// Run runs the cached script s (from Script, Eval's cache, or Load) with
// KEYS and ARGV set to keys and args, and writes its reply, converted as
// Redis converts a Lua value, to w in w's protocol. Nothing of keys and
// args is kept.
func (e *Engine) Run(s *Script, keys, args [][]byte, host Host, w *resp.Writer) Result {
	res := e.run(s.fn, s.SHA, false, keys, args, host, w)
	if res.Ran {
		e.cache.touch(s)
	}
	return res
}

// run calls fn, named name in error replies, with keys and args: as the
// globals KEYS and ARGV (a script), or as its two parameters (params, a
// function).
func (e *Engine) run(fn *lua.LFunction, name string, params bool, keys, args [][]byte, host Host, w *resp.Writer) Result {
	if e.cur != nil || e.loading != nil {
		w.Err(errBusyRun)
		return Result{Err: true}
	}
	L := e.vm
	e.runState = run{host: host, sha: name, resp: 2, repl: ReplAll}
	r := &e.runState
	e.cur = r
	top := L.GetTop()
	L.Push(fn)
	var err error
	if params {
		// Fresh tables: a function may keep its parameters in its
		// library's upvalues.
		L.Push(e.luaArray(nil, keys))
		L.Push(e.luaArray(nil, args))
		err = L.PCall(2, 1, e.handler)
	} else {
		e.keys = e.luaArray(e.keys, keys)
		e.args = e.luaArray(e.args, args)
		e.realG.RawSetString("KEYS", e.keys)
		e.realG.RawSetString("ARGV", e.args)
		err = L.PCall(0, 1, e.handler)
	}
	e.cur = nil
	res := Result{Ran: true}
	if err != nil {
		res.Err = true
		res.Counted = e.writeError(w, err, name)
	} else {
		res.Err, res.Counted = e.writeReply(w, L.Get(-1), 2, r.resp)
	}
	L.SetTop(top)
	if !params {
		e.realG.RawSetString("KEYS", lua.LNil)
		e.realG.RawSetString("ARGV", lua.LNil)
	}
	return res
}

// luaArray is a Lua array of the strings v: KEYS or ARGV. The table of
// the previous run is filled again when the script left it as an array
// without a metatable, which is what
// almost every script does; otherwise a new one is made. (Only a script
// hiding its KEYS where the next could find it, in the string
// metatable, could tell.)
func (e *Engine) luaArray(t *lua.LTable, v [][]byte) *lua.LTable {
	if t == nil || t.Metatable != lua.LNil || hasKeysAfter(t, t.Len()) {
		t = e.vm.CreateTable(len(v), 0)
	}
	for i := t.Len(); i > len(v); i-- {
		t.RawSetInt(i, lua.LNil)
	}
	for i, b := range v {
		t.RawSetInt(i+1, lua.LString(b))
	}
	return t
}

// hasKeysAfter reports whether t has a non-nil value past index n.
func hasKeysAfter(t *lua.LTable, n int) bool {
	var k lua.LValue
	if n == 0 {
		// Next treats 0 as "after the array part" and would skip the
		// first hash key: start from the beginning instead.
		k, _ = t.Next(lua.LNil)
	} else {
		k, _ = t.Next(lua.LNumber(n))
	}
	return k != lua.LNil
}

// errorHandler is the error handler a script runs under, Redis's
// __redis__err__handler: a non-table error becomes {err='ERR ' ..
// tostring(err)}, and the table gets the source and line of the Lua code
// running when the error was raised (that of its caller when a library
// function raised it).
func (e *Engine) errorHandler(L *lua.LState) int {
	obj := L.Get(1)
	t, ok := obj.(*lua.LTable)
	if ctx := e.interrupt; !ok && ctx != nil && ctx.Err() != nil {
		if s, isStr := obj.(lua.LString); isStr && strings.HasSuffix(string(s), ctx.Err().Error()) {
			t, ok = L.CreateTable(0, 3), true
			t.RawSetString("err", lua.LString(errKilled))
		}
	}
	if !ok {
		var text string
		switch x := obj.(type) {
		case lua.LString:
			text = luaMessage(nameFailure(L, string(x)))
		case lua.LNumber:
			text = formatLuaNumber(float64(x))
		default:
			text = L.ToStringMeta(obj).String()
		}
		t = L.CreateTable(0, 3)
		t.RawSetString("err", lua.LString("ERR "+text))
	}
	// Level 0 is this handler, level 1 the function that raised the error.
	dbg, found := L.GetStack(1)
	if found {
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err == nil && dbg.What == "G" {
			dbg, found = L.GetStack(2)
			if found {
				_, err = L.GetInfo("Sl", dbg, lua.LNil)
				found = err == nil
			}
		} else if err != nil {
			found = false
		}
	}
	if found {
		src := dbg.Source
		if dbg.What == "G" || src == "" {
			src = "=[C]"
		} else if src == scriptChunk || src == functionChunk {
			src = "@" + src
		}
		t.RawSetString("source", lua.LString(src))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
	}
	L.Push(t)
	return 1
}

// writeError writes the reply of a script that raised an error, as
// luaCallFunction does: "-<err> script: <sha>, on <source>:<line>.", and
// reports whether the error came from a command (Result.Counted).
func (e *Engine) writeError(w *resp.Writer, err error, sha string) bool {
	var obj lua.LValue = lua.LString(err.Error())
	if aerr, ok := err.(*lua.ApiError); ok && aerr.Object != nil {
		obj = aerr.Object
	}
	t, ok := obj.(*lua.LTable)
	if !ok {
		// The handler failed: Redis's "Error running script" reply.
		msg := "execution failure"
		if s, ok := obj.(lua.LString); ok {
			msg = luaMessage(string(s))
		}
		if strings.HasPrefix(msg, "lua callstack overflow") {
			// Calls nested past CallStackSize leave no room for the
			// handler either; Lua's own text for the depth.
			msg = "stack overflow"
		}
		if len(msg) > 100 {
			msg = msg[:100]
		}
		w.Err(Error("ERR Error running script " + sha + ", " + msg))
		return false
	}
	var msg string
	switch x := t.RawGetString("err").(type) {
	case lua.LString:
		msg = cString(string(x))
	case lua.LNumber:
		msg = formatLuaNumber(float64(x))
	default:
		// Redis formats a NULL here and crashes; say what happened.
		msg = "ERR the error raised is a table without an err string"
	}
	b := make([]byte, 0, len(msg)+96)
	b = append(b, msg...)
	src, line := t.RawGetString("source"), t.RawGetString("line")
	if isLuaString(src) && isLuaString(line) {
		b = append(b, " script: "...)
		b = append(b, sha...)
		b = append(b, ", on "...)
		b = append(b, cString(luaToString(src))...)
		b = append(b, ':')
		b = append(b, cString(luaToString(line))...)
		b = append(b, '.')
	}
	w.Err(Error(b))
	return t.RawGetString("ignore_error_stats_update") == lua.LTrue
}

// isLuaString is lua_isstring: a string or a number.
func isLuaString(v lua.LValue) bool {
	switch v.(type) {
	case lua.LString, lua.LNumber:
		return true
	}
	return false
}

// cString is s as C reads it: up to its first NUL.
func cString(s string) string {
	if i := indexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
