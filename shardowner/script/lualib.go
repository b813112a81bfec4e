package script

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// This file adjusts gopher-lua's standard libraries to Lua 5.1 as Redis
// builds it: functions that read tables see through the read-only proxies,
// functions that write them refuse, and a few functions whose gopher-lua
// behaviour a script would notice are replaced (tostring, tonumber, error,
// loadstring, collectgarbage, getfenv, math.random, …).

// gfunc is the Go function behind a library function of t.
func gfunc(t *lua.LTable, name string) lua.LGFunction {
	if f, ok := t.RawGetString(name).(*lua.LFunction); ok && f.IsG {
		return f.GFunction
	}
	return nil
}

// reading wraps f so that a proxy given as argument 1 is replaced by the
// table behind it.
func (e *Engine) reading(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if L.GetTop() >= 1 {
			if r := e.unproxy(L.Get(1)); r != L.Get(1) {
				L.Replace(1, r)
			}
		}
		return f(L)
	}
}

// writing wraps f so that a proxy given as argument 1 raises the read-only
// error.
func (e *Engine) writing(f lua.LGFunction) lua.LGFunction {
	return func(L *lua.LState) int {
		if L.GetTop() >= 1 && e.isProtected(L.Get(1)) {
			refuseWrite(L)
		}
		return f(L)
	}
}

func (e *Engine) setFunc(t *lua.LTable, name string, f lua.LGFunction) {
	t.RawSetString(name, e.vm.NewFunction(f))
}

// setupBase adjusts the base library.
func (e *Engine) setupBase() {
	G := e.realG
	for _, name := range []string{"next", "rawget", "unpack"} {
		e.setFunc(G, name, e.reading(gfunc(G, name)))
	}
	for _, name := range []string{"rawset"} {
		e.setFunc(G, name, e.writing(gfunc(G, name)))
	}
	// pairs and ipairs are closures over their iterators: wrapping them
	// keeps the upvalue.
	for _, name := range []string{"pairs", "ipairs"} {
		orig := G.RawGetString(name).(*lua.LFunction)
		iter := orig.Upvalues[0].Value()
		f := e.reading(orig.GFunction)
		G.RawSetString(name, e.vm.NewClosure(f, iter))
	}
	getmeta := gfunc(G, "getmetatable")
	e.setFunc(G, "getmetatable", func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			if t == e.protG {
				L.Push(e.globalsMeta)
				return 1
			}
			if t == e.funcG {
				L.Push(e.funcMetaView)
				return 1
			}
			if e.protected[t] != nil {
				// Redis's library tables have no metatable.
				L.Push(lua.LNil)
				return 1
			}
		}
		return getmeta(L)
	})
	setmeta := gfunc(G, "setmetatable")
	e.setFunc(G, "setmetatable", func(L *lua.LState) int {
		if e.isProtected(L.Get(1)) {
			refuseWrite(L)
		}
		return setmeta(L)
	})
	getfenv := gfunc(G, "getfenv")
	e.setFunc(G, "getfenv", func(L *lua.LState) int {
		n := getfenv(L)
		if L.Get(-1) == e.realG {
			L.Replace(-1, e.protG)
		}
		return n
	})
	e.setFunc(G, "tostring", func(L *lua.LState) int {
		v := L.CheckAny(1)
		if n, ok := v.(lua.LNumber); ok {
			L.Push(lua.LString(formatLuaNumber(float64(n))))
			return 1
		}
		L.Push(L.ToStringMeta(v))
		return 1
	})
	e.setFunc(G, "tonumber", luaToNumberFunc)
	e.setFunc(G, "error", luaErrorFunc)
	// pcall's error handler names a failed call while its frame is
	// still there to read (callname.go).
	namer := e.vm.NewFunction(func(L *lua.LState) int {
		if s, ok := L.Get(1).(lua.LString); ok {
			L.Push(lua.LString(nameFailure(L, string(s))))
		} else {
			L.Push(L.Get(1))
		}
		return 1
	})
	e.setFunc(G, "pcall", func(L *lua.LState) int { return redisPcall(L, namer) })
	e.setFunc(G, "loadstring", e.loadString)
	e.setFunc(G, "load", e.loadFunc)
	e.setFunc(G, "collectgarbage", collectGarbage)
	e.setFunc(G, "gcinfo", func(L *lua.LState) int {
		L.Push(lua.LNumber(0))
		return 1
	})
}

// setupTable adjusts the table library, and adds what Lua 5.1 has that
// gopher-lua lacks (foreach, foreachi, setn).
func (e *Engine) setupTable() {
	t := e.realG.RawGetString("table").(*lua.LTable)
	e.setFunc(t, "concat", e.reading(tableConcat))
	for _, name := range []string{"getn", "maxn"} {
		e.setFunc(t, name, e.reading(gfunc(t, name)))
	}
	for _, name := range []string{"insert", "remove", "sort"} {
		e.setFunc(t, name, e.writing(gfunc(t, name)))
	}
	e.setFunc(t, "setn", func(L *lua.LState) int {
		L.RaiseError("'setn' is obsolete")
		return 0
	})
	e.setFunc(t, "foreach", e.reading(func(L *lua.LState) int {
		tb := checkTable(L, 1, "foreach")
		f := checkFunction(L, 2, "foreach")
		k, v := tb.Next(lua.LNil)
		for k != lua.LNil {
			L.Push(f)
			L.Push(k)
			L.Push(v)
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
			k, v = tb.Next(k)
		}
		return 0
	}))
	e.setFunc(t, "foreachi", e.reading(func(L *lua.LState) int {
		tb := checkTable(L, 1, "foreachi")
		f := checkFunction(L, 2, "foreachi")
		n := tb.Len()
		for i := 1; i <= n; i++ {
			L.Push(f)
			L.Push(lua.LNumber(i))
			L.Push(tb.RawGetInt(i))
			L.Call(2, 1)
			if r := L.Get(-1); r != lua.LNil {
				return 1
			}
			L.Pop(1)
		}
		return 0
	}))
}

// tableConcat is Lua 5.1's table.concat(t [, sep [, i [, j]]]): numbers
// joined as Lua prints them (%.14g).
func tableConcat(L *lua.LState) int {
	t := checkTable(L, 1, "concat")
	sep := ""
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		sep = checkString(L, 2, "concat")
	}
	i, j := 1, t.Len()
	if L.GetTop() >= 3 && L.Get(3) != lua.LNil {
		i = checkInt(L, 3, "concat")
	}
	if L.GetTop() >= 4 && L.Get(4) != lua.LNil {
		j = checkInt(L, 4, "concat")
	}
	var b strings.Builder
	for k := i; k <= j; k++ {
		switch v := t.RawGetInt(k).(type) {
		case lua.LString, lua.LNumber:
			b.WriteString(luaToString(v))
		default:
			L.RaiseError("invalid value (at index %d) in table for 'concat'", k)
		}
		if k != j {
			b.WriteString(sep)
		}
		if b.Len() > maxStringSize {
			L.RaiseError("not enough memory")
		}
	}
	L.Push(lua.LString(b.String()))
	return 1
}

// maxStringSize bounds what string.rep builds: Redis's proto-max-bulk-len
// default. Beyond it Lua would fail to allocate; here the script gets Lua's
// error instead of the server its memory.
const maxStringSize = 512 << 20

// setupString adjusts the string library: no __index field (gopher-lua's
// string table is its own metatable), string.dump giving a binary chunk no
// one can load (Redis's Lua refuses binary chunks, gopher-lua has no
// string.dump), and string.rep bounded.
func (e *Engine) setupString() {
	s := e.realG.RawGetString("string").(*lua.LTable)
	s.RawSetString("__index", lua.LNil)
	e.setFunc(s, "dump", func(L *lua.LState) int {
		checkFunction(L, 1, "dump")
		// The header of a Lua 5.1 binary chunk; loadstring reads the
		// escape byte as Lua source, which fails, as Redis's does.
		L.Push(lua.LString("\x1bLuaQ\x00\x01\x04\x08\x04\x08\x00"))
		return 1
	})
	format := gfunc(s, "format")
	e.setFunc(s, "format", func(L *lua.LState) int {
		// %s of a number prints it as Lua does (%.14g), not as Go does.
		f, ok := L.Get(1).(lua.LString)
		if !ok {
			return format(L)
		}
		arg := 1
		for i := 0; i < len(f); i++ {
			if f[i] != '%' {
				continue
			}
			i++
			if i < len(f) && f[i] == '%' {
				continue
			}
			for i < len(f) && strings.IndexByte("-+ #0123456789.", f[i]) >= 0 {
				i++
			}
			arg++
			if i < len(f) && f[i] == 's' {
				if n, isNum := L.Get(arg).(lua.LNumber); isNum {
					L.Replace(arg, lua.LString(formatLuaNumber(float64(n))))
				}
			}
		}
		return format(L)
	})
	e.setFunc(s, "rep", func(L *lua.LState) int {
		str := checkString(L, 1, "rep")
		n := checkInt(L, 2, "rep")
		if n <= 0 || len(str) == 0 {
			L.Push(lua.LString(""))
			return 1
		}
		if int64(len(str))*int64(n) > maxStringSize {
			L.RaiseError("not enough memory")
		}
		L.Push(lua.LString(strings.Repeat(str, n)))
		return 1
	})
}

// setupMath adjusts the math library: Redis's math.random and
// math.randomseed, and math.huge as HUGE_VAL (gopher-lua has the largest
// finite double).
func (e *Engine) setupMath() {
	m := e.realG.RawGetString("math").(*lua.LTable)
	m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	e.setFunc(m, "random", e.mathRandom)
	e.setFunc(m, "randomseed", e.mathRandomseed)
}

// luaErrorFunc is Lua 5.1's error: a string message gets the position of
// the function at the given level (1, the caller, by default), counted as
// Lua counts levels.
func luaErrorFunc(L *lua.LState) int {
	msg := L.Get(1)
	level := 1
	if L.GetTop() >= 2 {
		level = checkInt(L, 2, "error")
	}
	if s, ok := msg.(lua.LString); ok && level > 0 {
		msg = lua.LString(where(L, level) + string(s))
	} else if n, ok := msg.(lua.LNumber); ok && level > 0 {
		msg = lua.LString(where(L, level) + formatLuaNumber(float64(n)))
	}
	L.Error(msg, 0)
	return 0
}

// where is luaL_where: "source:line: " of the function level frames up
// from the running Go function, or "" for a Go function or no function.
func where(L *lua.LState, level int) string {
	dbg, ok := L.GetStack(level)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil || dbg.CurrentLine <= 0 {
		return ""
	}
	return dbg.Source + ":" + strconv.Itoa(dbg.CurrentLine) + ": "
}

// redisPcall is Redis's pcall: Lua's, except that an error raised as a
// table with an err field (what redis.call raises) is caught as that
// string, as scripts written for Redis before 7.0 expect. handler rewrites
// errors where they are raised.
func redisPcall(L *lua.LState, handler *lua.LFunction) int {
	if L.GetTop() < 1 {
		argErrorf(L, 1, "pcall", "value expected")
	}
	if f := L.Get(1); f.Type() != lua.LTFunction && L.GetMetaField(f, "__call").Type() != lua.LTFunction {
		// Lua raises this from pcall itself, so without a position.
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + f.Type().String() + " value"))
		return 2
	}
	nargs := L.GetTop() - 1
	if err := L.PCall(nargs, lua.MultRet, handler); err != nil {
		var obj lua.LValue = lua.LString(err.Error())
		if aerr, ok := err.(*lua.ApiError); ok {
			obj = aerr.Object
		}
		switch x := obj.(type) {
		case lua.LString:
			obj = lua.LString(luaMessage(string(x)))
		case *lua.LTable:
			if s := x.RawGetString("err"); s.Type() == lua.LTString || s.Type() == lua.LTNumber {
				obj = s
			}
		}
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// loadString is loadstring(s [, chunkname]): the chunk compiled under the
// globals scripts see, or nil and Lua 5.1's message.
func (e *Engine) loadString(L *lua.LState) int {
	src := checkString(L, 1, "loadstring")
	name := chunkID(src)
	if L.GetTop() >= 2 {
		name = chunkID(checkString(L, 2, "loadstring"))
	}
	return e.loadChunk(L, src, name)
}

// loadFunc is load(func [, chunkname]): the pieces func returns, joined.
func (e *Engine) loadFunc(L *lua.LState) int {
	f := checkFunction(L, 1, "load")
	name := "=(load)"
	if L.GetTop() >= 2 {
		name = checkString(L, 2, "load")
	}
	var b strings.Builder
	for {
		L.Push(f)
		L.Call(0, 1)
		v := L.Get(-1)
		L.Pop(1)
		if v == lua.LNil {
			break
		}
		s, ok := v.(lua.LString)
		if !ok {
			if n, isNum := v.(lua.LNumber); isNum {
				s = lua.LString(formatLuaNumber(float64(n)))
			} else {
				L.Push(lua.LNil)
				L.Push(lua.LString("reader function must return a string"))
				return 2
			}
		}
		if len(s) == 0 {
			break
		}
		b.WriteString(string(s))
	}
	return e.loadChunk(L, b.String(), chunkID(name))
}

func (e *Engine) loadChunk(L *lua.LState, src, name string) int {
	proto, err := compile(src, name)
	if err != nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(err.Error()))
		return 2
	}
	fn := L.NewFunctionFromProto(proto)
	fn.Env = e.protG
	L.Push(fn)
	return 1
}

// chunkID is how Lua 5.1 names a chunk in messages (luaO_chunkid): "=name"
// and "@name" as name, any other source as [string "its first line..."].
func chunkID(source string) string {
	if strings.HasPrefix(source, "=") || strings.HasPrefix(source, "@") {
		return source[1:]
	}
	const max = 60 - len(`[string "..."]`)
	line := source
	cut := false
	if i := strings.IndexAny(line, "\r\n"); i >= 0 {
		line, cut = line[:i], true
	}
	if len(line) > max {
		line, cut = line[:max], true
	}
	if cut {
		return `[string "` + line + `..."]`
	}
	return `[string "` + line + `"]`
}

// collectGarbage is collectgarbage(opt [, arg]). gopher-lua's runs a full Go
// collection, which would stall the shard; here the options answer in
// Lua 5.1's shapes and collect nothing: the Go collector runs on its own.
func collectGarbage(L *lua.LState) int {
	opt := "collect"
	if L.GetTop() >= 1 && L.Get(1) != lua.LNil {
		opt = checkString(L, 1, "collectgarbage")
	}
	switch opt {
	case "collect", "stop", "restart":
		L.Push(lua.LNumber(0))
	case "count":
		L.Push(lua.LNumber(0))
	case "step":
		L.Push(lua.LFalse)
	case "setpause", "setstepmul":
		L.Push(lua.LNumber(100))
		if opt == "setpause" {
			L.Replace(-1, lua.LNumber(200))
		}
	default:
		argErrorf(L, 1, "collectgarbage", "invalid option '"+opt+"'")
	}
	return 1
}

// luaToNumberFunc is Lua 5.1's tonumber: strings as C's strtod reads them
// (exponents, hex, surrounding spaces), or in a given base 2 to 36.
func luaToNumberFunc(L *lua.LState) int {
	base := 10
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		base = checkInt(L, 2, "tonumber")
	}
	v := L.CheckAny(1)
	if base == 10 {
		if n, ok := luaToNumber(v); ok {
			L.Push(lua.LNumber(n))
		} else {
			L.Push(lua.LNil)
		}
		return 1
	}
	if base < 2 || base > 36 {
		argErrorf(L, 2, "tonumber", "base out of range")
	}
	s := strings.TrimLeft(checkString(L, 1, "tonumber"), " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	end := 0
	var n uint64
	for end < len(s) {
		d := digitValue(s[end])
		if d < 0 || d >= base {
			break
		}
		n = n*uint64(base) + uint64(d)
		end++
	}
	if end == 0 || strings.TrimLeft(s[end:], " \t\n\v\f\r") != "" {
		L.Push(lua.LNil)
		return 1
	}
	if neg {
		n = -n
	}
	L.Push(lua.LNumber(float64(n)))
	return 1
}

func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return -1
}

// luaToNumber is lua_tonumber: a number, or a string that reads whole as
// one (luaO_str2d).
func luaToNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		return str2d(string(x))
	}
	return 0, false
}

// str2d is Lua 5.1's luaO_str2d on glibc: strtod (decimal, exponent, "inf",
// "nan", hex floats), else a hex integer; spaces around allowed, nothing
// else.
func str2d(s string) (float64, bool) {
	t := strings.Trim(s, " \t\n\v\f\r")
	if t == "" || strings.ContainsAny(t, "_") {
		return 0, false
	}
	if f, err := strconv.ParseFloat(t, 64); err == nil || isRangeErr(err) {
		return f, true
	}
	// strtod stops at an 'x' it cannot read as hex float: Lua then reads
	// the whole as a hex integer (strtoul, base 16), sign and all.
	u := t
	neg := false
	if u[0] == '-' || u[0] == '+' {
		neg = u[0] == '-'
		u = u[1:]
	}
	if len(u) > 2 && u[0] == '0' && (u[1] == 'x' || u[1] == 'X') {
		var n uint64
		for i := 2; i < len(u); i++ {
			d := digitValue(u[i])
			if d < 0 || d >= 16 {
				return 0, false
			}
			if n > math.MaxUint64>>4 {
				n = math.MaxUint64
			} else {
				n = n<<4 | uint64(d)
			}
		}
		if neg {
			n = -n
		}
		return float64(n), true
	}
	return 0, false
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// luaToString is lua_tostring: a string as it is, a number as Lua prints
// it, "" otherwise.
func luaToString(v lua.LValue) string {
	switch x := v.(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return formatLuaNumber(float64(x))
	}
	return ""
}

// typeName is luaL_typename of argument n: "no value" past the last one.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// argErrorf raises luaL_argerror's text for argument n of function fname.
func argErrorf(L *lua.LState, n int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fname, msg)
}

// argError is argErrorf for the functions in this package.
func argError(L *lua.LState, n int, fname, msg string) { argErrorf(L, n, fname, msg) }

// typeError raises luaL_typerror's text.
func typeError(L *lua.LState, n int, fname, want string) {
	argErrorf(L, n, fname, want+" expected, got "+typeName(L, n))
}

// checkNumber is luaL_checknumber: a number or a string that reads as one.
func checkNumber(L *lua.LState, n int, fname string) float64 {
	if f, ok := luaToNumber(L.Get(n)); ok && n <= L.GetTop() {
		return f
	}
	typeError(L, n, fname, "number")
	return 0
}

// checkInt is luaL_checkint: checkNumber truncated to an int as C casts it.
func checkInt(L *lua.LState, n int, fname string) int {
	return int(int32(luaInt(checkNumber(L, n, fname))))
}

// checkString is luaL_checklstring: a string, or a number as Lua prints it.
func checkString(L *lua.LState, n int, fname string) string {
	switch x := L.Get(n).(type) {
	case lua.LString:
		return string(x)
	case lua.LNumber:
		return formatLuaNumber(float64(x))
	}
	typeError(L, n, fname, "string")
	return ""
}

func checkTable(L *lua.LState, n int, fname string) *lua.LTable {
	if t, ok := L.Get(n).(*lua.LTable); ok {
		return t
	}
	typeError(L, n, fname, "table")
	return nil
}

func checkFunction(L *lua.LState, n int, fname string) *lua.LFunction {
	if f, ok := L.Get(n).(*lua.LFunction); ok {
		return f
	}
	typeError(L, n, fname, "function")
	return nil
}
