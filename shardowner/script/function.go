package script

import (
	"bytes"
	"context"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/corekv/corekv/resp"
)

// Functions (FUNCTION LOAD, FCALL) as Redis 7.0 has them: a library is Lua
// code whose first line names it ("#!lua name=mylib"); loading runs the
// code once, in an environment that offers only redis.register_function,
// redis.log and the version, and what it registers are the library's
// functions, called by name with their keys and arguments as parameters.
// The engine that holds libraries is not the one that runs EVAL scripts,
// as in Redis: SCRIPT FLUSH does not touch them.

// functionChunk is the chunk name libraries compile under: errors read
// "user_function:<line>: ...".
const functionChunk = "user_function"

// LoadTimeout bounds the run of a library's code at FUNCTION LOAD, as
// Redis's LOAD_TIMEOUT_MS.
const LoadTimeout = 500 * time.Millisecond

// Library is a loaded library: its name, its code (shebang included, as
// FUNCTION LIST WITHCODE, DUMP and the RDB carry it) and its functions in
// the order the code registered them.
type Library struct {
	Name      string
	Code      []byte
	Functions []*Function
}

// Function is a function a library registered.
type Function struct {
	Name    string
	Desc    string
	HasDesc bool // a description was given (FUNCTION LIST answers nil without)
	Flags   Flags
	Lib     *Library
	fn      *lua.LFunction
}

// libraries are an engine's loaded libraries, by name (as given: library
// names are matched with their case) and their functions by lower-case
// name (function names are not).
type libraries struct {
	list   []*Library // in load order
	byName map[string]*Library
	funcs  map[string]*Function
}

func (l *libraries) init() {
	l.list = nil
	l.byName = make(map[string]*Library)
	l.funcs = make(map[string]*Function)
}

func (l *libraries) link(lib *Library) {
	l.list = append(l.list, lib)
	l.byName[lib.Name] = lib
	for _, f := range lib.Functions {
		l.funcs[strings.ToLower(f.Name)] = f
	}
}

func (l *libraries) unlink(lib *Library) {
	for i, x := range l.list {
		if x == lib {
			l.list = append(l.list[:i], l.list[i+1:]...)
			break
		}
	}
	delete(l.byName, lib.Name)
	for _, f := range lib.Functions {
		delete(l.funcs, strings.ToLower(f.Name))
	}
}

// loading is the state of a library's code while it runs at load.
type loading struct {
	lib  *Library
	seen map[string]bool
}

// setupFunctions builds what libraries need: the globals their code and
// functions see (funcG, whose reads go to the load API while a library
// loads and to the globals after) and the load API.
func (e *Engine) setupFunctions() {
	L := e.vm
	e.libs.init()
	errMeta := e.realG.Metatable.(*lua.LTable)
	api := L.CreateTable(0, 8)
	api.RawSetString("register_function", L.NewFunction(e.registerFunction))
	api.RawSetString("log", L.NewFunction(e.redisLog))
	for _, name := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"} {
		api.RawSetString(name, e.unproxy(e.realG.RawGetString("redis")).(*lua.LTable).RawGetString(name))
	}
	api.Metatable = errMeta
	loadG := L.CreateTable(0, 1)
	loadG.RawSetString("redis", e.proxy(api))
	loadG.Metatable = errMeta
	e.loadAPI = e.proxy(loadG)

	e.funcMeta = L.CreateTable(0, 2)
	e.funcMeta.RawSetString("__index", e.protG)
	e.funcMeta.RawSetString("__newindex", L.NewFunction(readonlyAssign))
	e.funcG = L.CreateTable(0, 0)
	e.funcG.Metatable = e.funcMeta
	// getmetatable(_G) in a function answers a read-only view of this
	// metatable, as Redis's protected one.
	e.protected[e.funcG] = e.funcG
	e.funcMetaView = e.proxy(e.funcMeta)
}

// LibraryMeta reads a library's first line as Redis's
// functionExtractLibMetaData: "#!<engine> name=<name>", and returns the
// engine, the name and where the code to compile starts (its newline, so
// that line numbers are the code's).
func LibraryMeta(code []byte) (engine, name string, body int, err error) {
	if !bytes.HasPrefix(code, []byte("#!")) {
		return "", "", 0, Error("ERR Missing library metadata")
	}
	nl := bytes.IndexByte(code, '\n')
	if nl < 0 {
		return "", "", 0, Error("ERR Invalid library metadata")
	}
	line := code[:nl]
	if i := bytes.IndexByte(line, 0); i >= 0 {
		line = line[:i]
	}
	parts, ok := resp.SplitWords(string(line))
	if !ok || len(parts) == 0 {
		return "", "", 0, Error("ERR Invalid library metadata")
	}
	engine = parts[0][2:]
	named := false
	for _, p := range parts[1:] {
		if len(p) >= 5 && strings.EqualFold(p[:5], "name=") {
			if named {
				return "", "", 0, Error("ERR Invalid metadata value, name argument was given multiple times")
			}
			name, named = p[5:], true
			continue
		}
		return "", "", 0, Error("ERR Invalid metadata value given: " + cString(p))
	}
	if !named {
		return "", "", 0, Error("ERR Library name was not given")
	}
	return engine, name, nl, nil
}

// validName reports whether s may name a library or a function: letters,
// digits and underscores, at least one.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

const errBadName = "ERR Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// LoadLibrary loads the library code as FUNCTION LOAD [REPLACE] does and
// returns its name: the code runs (for at most timeout, 0 for no limit),
// what it registers becomes the library's functions, and the library
// joins the engine's, replacing the one of that name with replace. On any
// error the engine's libraries are as they were.
func (e *Engine) LoadLibrary(code []byte, replace bool, timeout time.Duration) (string, error) {
	lib, err := e.compileLibrary(code, timeout)
	if err != nil {
		return "", err
	}
	return lib.Name, e.join([]*Library{lib}, replace, "'")
}

// compileLibrary runs code and returns the library it registers, without
// joining it to the engine's.
func (e *Engine) compileLibrary(code []byte, timeout time.Duration) (*Library, error) {
	engine, name, body, err := LibraryMeta(code)
	if err != nil {
		return nil, err
	}
	if !validName(name) {
		return nil, Error(errBadName)
	}
	if !strings.EqualFold(engine, "lua") {
		return nil, Error("ERR Engine '" + cString(engine) + "' not found")
	}
	if e.cur != nil || e.loading != nil {
		return nil, errBusyRun
	}
	proto, cerr := compile(string(code[body:]), functionChunk)
	if cerr != nil {
		return nil, Error("ERR Error compiling function: " + cerr.Error())
	}
	lib := &Library{Name: name, Code: append([]byte(nil), code...)}
	L := e.vm
	fn := L.NewFunctionFromProto(proto)
	fn.Env = e.funcG
	e.funcMeta.RawSetString("__index", e.loadAPI)
	e.loading = &loading{lib: lib, seen: make(map[string]bool)}
	var cancel context.CancelFunc
	var ctx context.Context
	if timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), timeout)
		L.SetContext(ctx)
	} else if e.interrupt != nil {
		L.RemoveContext()
	}
	top := L.GetTop()
	L.Push(fn)
	perr := L.PCall(0, 0, e.handler)
	L.SetTop(top)
	timedOut := ctx != nil && ctx.Err() != nil
	if cancel != nil {
		cancel()
	}
	if e.interrupt != nil {
		L.SetContext(e.interrupt)
	} else if ctx != nil {
		L.RemoveContext()
	}
	e.loading = nil
	e.funcMeta.RawSetString("__index", e.protG)
	if perr != nil {
		msg := "ERR FUNCTION LOAD timeout"
		if !timedOut {
			msg = loadErrorText(perr)
		}
		return nil, Error("ERR Error registering functions: " + msg)
	}
	if len(lib.Functions) == 0 {
		return nil, Error("ERR No functions registered")
	}
	return lib, nil
}

// loadErrorText is the err of what a library's code raised.
func loadErrorText(err error) string {
	var obj lua.LValue = lua.LString(err.Error())
	if aerr, ok := err.(*lua.ApiError); ok && aerr.Object != nil {
		obj = aerr.Object
	}
	if t, ok := obj.(*lua.LTable); ok {
		if s, ok := t.RawGetString("err").(lua.LString); ok {
			return cString(string(s))
		}
		return "ERR execution failure"
	}
	return "ERR " + luaMessage(obj.String())
}

// join links libs to the engine's, as Redis's libraryJoin: a library of a
// name already held is an error, or with replace takes its place; a
// function name already held by another library is an error. Nothing
// changes on error. quote is what the library error puts around the name:
// FUNCTION LOAD quotes it, RESTORE does not.
func (e *Engine) join(libs []*Library, replace bool, quote string) error {
	var replaced []*Library
	undo := func() {
		for _, old := range replaced {
			e.libs.link(old)
		}
	}
	for _, lib := range libs {
		if old := e.libs.byName[lib.Name]; old != nil {
			if !replace {
				undo()
				return Error("ERR Library " + quote + lib.Name + quote + " already exists")
			}
			e.libs.unlink(old)
			replaced = append(replaced, old)
		}
	}
	seen := make(map[string]bool)
	for _, lib := range libs {
		for _, f := range lib.Functions {
			low := strings.ToLower(f.Name)
			if e.libs.funcs[low] != nil || seen[low] {
				undo()
				return Error("ERR Function " + f.Name + " already exists")
			}
			seen[low] = true
		}
	}
	for _, lib := range libs {
		e.libs.link(lib)
	}
	return nil
}

// registerFunction is the load API's redis.register_function(name, fn) or
// redis.register_function{function_name=, callback=, flags=, description=}.
func (e *Engine) registerFunction(L *lua.LState) int {
	ld := e.loading
	if ld == nil {
		raiseError(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{Lib: ld.lib}
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			raiseError(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		e.namedArgs(L, t, f)
	case 2:
		name, ok := luaStringArg(L.Get(1))
		if !ok {
			raiseError(L, "first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raiseError(L, "second argument to redis.register_function must be a function")
		}
		f.Name, f.fn = name, fn
	default:
		raiseError(L, "wrong number of arguments to redis.register_function")
	}
	if !validName(f.Name) {
		raiseError(L, errBadName[len("ERR "):])
	}
	if ld.seen[f.Name] {
		raiseError(L, "Function already exists in the library")
	}
	ld.seen[f.Name] = true
	ld.lib.Functions = append(ld.lib.Functions, f)
	return 0
}

// namedArgs reads register_function's table of named arguments into f.
func (e *Engine) namedArgs(L *lua.LState, t *lua.LTable, f *Function) {
	named := false
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		key, ok := luaStringArg(k)
		if !ok {
			raiseError(L, "named argument key given to redis.register_function is not a string")
		}
		switch strings.ToLower(key) {
		case "function_name":
			if f.Name, ok = luaStringArg(v); !ok {
				raiseError(L, "function_name argument given to redis.register_function must be a string")
			}
			named = true
		case "description":
			if f.Desc, ok = luaStringArg(v); !ok {
				raiseError(L, "description argument given to redis.register_function must be a string")
			}
			f.HasDesc = true
		case "callback":
			if f.fn, ok = v.(*lua.LFunction); !ok {
				raiseError(L, "callback argument given to redis.register_function must be a function")
			}
		case "flags":
			ft, ok := e.unproxy(v).(*lua.LTable)
			if !ok {
				raiseError(L, "flags argument to redis.register_function must be a table representing function flags")
			}
			flags, ok := functionFlags(ft)
			if !ok {
				raiseError(L, "unknown flag given")
			}
			f.Flags = flags
		default:
			raiseError(L, "unknown argument given to redis.register_function")
		}
	}
	if !named {
		raiseError(L, "redis.register_function must get a function name argument")
	}
	if f.fn == nil {
		raiseError(L, "redis.register_function must get a callback argument")
	}
}

// functionFlags reads a function's flags from the array t, names matched
// without regard to case.
func functionFlags(t *lua.LTable) (Flags, bool) {
	var flags Flags
	for i := 1; ; i++ {
		v := t.RawGetInt(i)
		if v == lua.LNil {
			return flags, true
		}
		name, ok := luaStringArg(v)
		if !ok {
			return 0, false
		}
		found := false
		for _, n := range flagNames {
			if strings.EqualFold(name, n.name) {
				flags |= n.flag
				found = true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
}

// luaStringArg is a string argument as Lua's lua_isstring takes it (a
// number too), read as C reads it: up to its first NUL.
func luaStringArg(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return luaToString(x), true
	}
	return "", false
}

// FunctionNamed returns the function called name (any case), or nil.
func (e *Engine) FunctionNamed(name []byte) *Function {
	if len(e.libs.funcs) == 0 {
		return nil
	}
	var buf [64]byte
	low := buf[:0]
	for _, c := range name {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low = append(low, c)
	}
	return e.libs.funcs[string(low)]
}

// Libraries returns the engine's libraries in load order. The slice is
// the engine's: read it, do not keep it past the next change.
func (e *Engine) Libraries() []*Library { return e.libs.list }

// FunctionCount is the number of functions of every library.
func (e *Engine) FunctionCount() int { return len(e.libs.funcs) }

// DeleteLibrary drops the library named name (FUNCTION DELETE) and
// reports whether there was one.
func (e *Engine) DeleteLibrary(name string) bool {
	lib := e.libs.byName[name]
	if lib == nil {
		return false
	}
	e.libs.unlink(lib)
	return true
}

// FlushLibraries drops every library (FUNCTION FLUSH) and starts a fresh
// interpreter, as Redis does, so that what they kept goes too.
func (e *Engine) FlushLibraries() {
	if e.cur != nil {
		return
	}
	e.vm.Close()
	e.cache.init()
	e.setup()
}

// The ways FUNCTION RESTORE joins the libraries of a payload to the
// engine's.
const (
	RestoreAppend  = iota // a library of a name held is an error
	RestoreReplace        // it takes the held one's place
	RestoreFlush          // every held library goes first
)

// RestoreLibraries loads the libraries of codes (FUNCTION RESTORE, an RDB
// file's) and joins them to the engine's by policy. On any error the
// engine's libraries are as they were.
func (e *Engine) RestoreLibraries(codes [][]byte, policy int) error {
	libs := make([]*Library, 0, len(codes))
	names := make(map[string]bool)
	funcs := make(map[string]bool)
	for _, code := range codes {
		lib, err := e.compileLibrary(code, 0)
		if err != nil {
			return err
		}
		// The payload's libraries among themselves, as Redis's load of
		// them into a fresh context checks.
		if names[lib.Name] {
			return Error("ERR Library '" + lib.Name + "' already exists")
		}
		names[lib.Name] = true
		for _, f := range lib.Functions {
			low := strings.ToLower(f.Name)
			if funcs[low] {
				return Error("ERR Function " + f.Name + " already exists")
			}
			funcs[low] = true
		}
		libs = append(libs, lib)
	}
	if policy == RestoreFlush {
		e.libs.init()
		for _, lib := range libs {
			e.libs.link(lib)
		}
		return nil
	}
	return e.join(libs, policy == RestoreReplace, "")
}

// Call runs the function f with keys and args as its two parameters (FCALL)
// and writes its reply as Run does.
func (e *Engine) Call(f *Function, keys, args [][]byte, host Host, w *resp.Writer) Result {
	return e.run(f.fn, f.Name, true, keys, args, host, w)
}
