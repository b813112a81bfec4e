package script

import (
	"context"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

// LogLevel is a redis.log level: redis.LOG_DEBUG to redis.LOG_WARNING, with
// Redis's values (LL_DEBUG to LL_WARNING).
type LogLevel int

// The levels of redis.log.
const (
	LogDebug   LogLevel = 0
	LogVerbose LogLevel = 1
	LogNotice  LogLevel = 2
	LogWarning LogLevel = 3
)

// Options configure an Engine.
type Options struct {
	// Log receives what scripts pass to redis.log, at any valid level: the
	// server drops the levels under its verbosity, as Redis does. Nil
	// discards the lines.
	Log func(level LogLevel, msg []byte)
	// Version is redis.REDIS_VERSION, "7.0.15" when empty; REDIS_VERSION_NUM
	// is computed from it as Redis computes it (major<<16 | minor<<8 | patch).
	Version string
	// Watch, when set, shows the running script to other goroutines and
	// lets them stop it (SCRIPT KILL); the host frames each run with its
	// Begin and End. The interpreter then asks at every instruction
	// whether to stop.
	Watch *Watch
}

// Engine is one shard's Lua interpreter and script cache. It is not safe for
// concurrent use: the shard's goroutine owns it.
type Engine struct {
	vm   *lua.LState
	opts Options

	// realG holds the globals; scripts see them only through protG, an
	// empty table whose metatable reads from realG and refuses writes. The
	// library tables are shown the same way: protected maps each such proxy
	// to the table behind it, so that the base functions that take tables
	// (pairs, rawget, unpack, table.concat, …) read through it and those
	// that write (rawset, setmetatable, table.insert, …) refuse.
	realG     *lua.LTable
	protG     *lua.LTable
	protected map[*lua.LTable]*lua.LTable
	// globalsMeta is what getmetatable(_G) answers: in Redis, the globals'
	// metatable, whose __index raises the nonexistent-global error. It is
	// read-only like the rest.
	globalsMeta *lua.LTable
	// handler is the error handler of a run (Redis's
	// __redis__err__handler): it notes where the error was raised.
	handler *lua.LFunction

	cache cache
	rand  rand48
	json  cjson
	// interrupt, when set, stops scripts once done (SetInterrupt).
	interrupt context.Context

	// cur is the run in progress (runState), nil between runs.
	cur      *run
	runState run
	// libs are the loaded function libraries (function.go); funcG is
	// the globals their code sees, through funcMeta, whose reads go to
	// loadAPI while a library's code runs at load (loading) and to protG
	// after; funcMetaView is what getmetatable answers for funcG.
	libs                  libraries
	funcG, funcMeta       *lua.LTable
	funcMetaView, loadAPI *lua.LTable
	loading               *loading
	// keys and args are the tables of KEYS and ARGV, kept for the next run
	// (a function's parameters).
	keys, args *lua.LTable
	// Buffers reused from call to call.
	argv   [][]byte
	numBuf []byte
	reply  []byte
	parser replyParser
}

// New returns an Engine with a fresh interpreter and an empty cache.
func New(opts Options) *Engine {
	if opts.Version == "" {
		opts.Version = "7.0.15"
	}
	e := &Engine{opts: opts}
	e.rand.x = rand48Init
	e.cache.init()
	e.setup()
	return e
}

// Close releases the interpreter. The Engine must not be used after.
func (e *Engine) Close() { e.vm.Close() }

// versionNum is REDIS_VERSION_NUM for a version string "major.minor.patch".
func versionNum(v string) int {
	n := 0
	parts := strings.SplitN(v, ".", 3)
	for i := 0; i < 3; i++ {
		x := 0
		if i < len(parts) {
			x, _ = strconv.Atoi(parts[i])
		}
		n = n<<8 | (x & 0xff)
	}
	return n
}

// setup builds the interpreter as Redis's scriptingInit does: the libraries,
// the redis table, math.random replaced, the error handler, then every
// table reachable from the globals made read-only.
func (e *Engine) setup() {
	L := lua.NewState(lua.Options{
		SkipOpenLibs: true,
		// Lua frames: gopher-lua's default of 256 is far below what Lua 5.1
		// allows (LUAI_MAXCALLS, 20000); the stack grows as it is used.
		CallStackSize:       20000,
		MinimizeStackMemory: true,
		// Value stack: room for unpack of several thousand values, as
		// redis.call('rpush', k, unpack(t)) scripts do.
		RegistrySize:     1024 * 4,
		RegistryMaxSize:  1024 * 1024,
		RegistryGrowStep: 1024 * 4,
	})
	e.vm = L
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.open))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	G := L.G.Global
	e.realG = G
	// What gopher-lua adds that Redis's Lua has not.
	for _, name := range []string{"dofile", "loadfile", "print", "_printregs", "_GOPHER_LUA_VERSION", "module", "require"} {
		G.RawSetString(name, lua.LNil)
	}
	// The package library is not opened, but gopher-lua's loaders register
	// modules in the registry; scripts cannot reach it.

	e.setupBase()
	e.setupTable()
	e.setupString()
	e.setupMath()
	G.RawSetString("bit", e.openBit())
	G.RawSetString("cjson", e.openCjson())
	G.RawSetString("cmsgpack", e.openCmsgpack())
	G.RawSetString("struct", e.openStruct())
	G.RawSetString("redis", e.openRedis())

	e.handler = L.NewFunction(e.errorHandler)
	e.protect()
	e.setupFunctions()
	if e.interrupt == nil && e.opts.Watch != nil {
		e.interrupt = &e.opts.Watch.ctx
	}
	if e.interrupt != nil {
		L.SetContext(e.interrupt)
	}
}

// errKilled is the error a script stopped by its context (a Watch's or SetInterrupt's) raises:
// Redis's for a script ended by SCRIPT KILL.
const errKilled = "ERR Script killed by user with SCRIPT KILL..."

// SetInterrupt makes scripts stop once ctx is done: the running one, if
// ctx is done while it runs, and any started after. A stopped script
// raises Redis's SCRIPT KILL error, at every instruction, so that pcall
// cannot keep it going. It is for a host that must stop a run from
// outside the interpreter's own checks and has no Watch to do it with;
// SetInterrupt(nil) clears it after.
//
// While a context is set the interpreter checks it at every instruction,
// which makes Lua code slower (BenchmarkLuaLoop); a watched engine
// (Options.Watch) runs under its watch's context and comes back to it.
func (e *Engine) SetInterrupt(ctx context.Context) {
	if ctx == nil && e.opts.Watch != nil {
		ctx = &e.opts.Watch.ctx // back to the watch's
	}
	e.interrupt = ctx
	if ctx == nil {
		e.vm.RemoveContext()
		return
	}
	e.vm.SetContext(ctx)
}

// protect makes the globals and every library table read-only, as Redis's
// luaSetTableProtectionRecursively does, and makes reading an undefined
// global an error (luaSetErrorMetatable).
func (e *Engine) protect() {
	L := e.vm
	e.protected = make(map[*lua.LTable]*lua.LTable)

	// Library tables first: each global holding a table is replaced by its
	// proxy, and so is the string metatable's __index.
	var libs []string
	e.realG.ForEach(func(k, v lua.LValue) {
		if _, ok := v.(*lua.LTable); ok {
			if s, ok := k.(lua.LString); ok && s != "_G" {
				libs = append(libs, string(s))
			}
		}
	})
	for _, name := range libs {
		real := e.realG.RawGetString(name).(*lua.LTable)
		e.realG.RawSetString(name, e.proxy(real))
	}
	strMeta := L.NewTable()
	strMeta.RawSetString("__index", e.realG.RawGetString("string"))
	L.SetMetatable(lua.LString(""), strMeta)

	// The globals: reading a name that is not there raises Redis's error.
	errMeta := L.NewTable()
	errMeta.RawSetString("__index", L.NewFunction(nonexistentGlobal))
	e.realG.Metatable = errMeta
	e.globalsMeta = e.proxy(errMeta)
	e.protG = e.proxy(e.realG)
	e.realG.RawSetString("_G", e.protG)
	L.Env = e.protG
}

// proxy returns an empty table standing for real: reads go through to real
// (its __index), writes raise Redis's read-only error (__newindex), and #
// counts real's array.
func (e *Engine) proxy(real *lua.LTable) *lua.LTable {
	L := e.vm
	p := L.CreateTable(0, 0)
	mt := L.CreateTable(0, 3)
	mt.RawSetString("__index", real)
	mt.RawSetString("__newindex", L.NewFunction(readonlyAssign))
	mt.RawSetString("__len", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(real.Len()))
		return 1
	}))
	p.Metatable = mt
	e.protected[p] = real
	return p
}

// unproxy is the table behind a protected proxy, or v itself.
func (e *Engine) unproxy(v lua.LValue) lua.LValue {
	if t, ok := v.(*lua.LTable); ok {
		if r := e.protected[t]; r != nil {
			return r
		}
	}
	return v
}

// isProtected reports whether v is one of the read-only tables.
func (e *Engine) isProtected(v lua.LValue) bool {
	t, ok := v.(*lua.LTable)
	return ok && e.protected[t] != nil
}

// errReadonly is Redis's text for any write to a protected table.
const errReadonly = "Attempt to modify a readonly table"

// readonlyAssign is a proxy's __newindex: an assignment in Lua code, so
// the error carries the script's position, as the Lua VM's does in Redis.
func readonlyAssign(L *lua.LState) int {
	L.RaiseError(errReadonly)
	return 0
}

// refuseWrite raises the read-only error as Redis's lua_rawset does when a
// library function (rawset, table.insert, setmetatable) writes: without a
// position, since the function running is not Lua code.
func refuseWrite(L *lua.LState) {
	L.Error(lua.LString(errReadonly), 0)
}

// nonexistentGlobal is the globals' __index: Redis's luaProtectedTableError.
func nonexistentGlobal(L *lua.LState) int {
	name := L.Get(2)
	switch name.(type) {
	case lua.LString, lua.LNumber:
	default:
		L.RaiseError("Second argument to luaProtectedTableError must be a string or number")
	}
	L.RaiseError("Script attempted to access nonexistent global variable '%s'", luaToString(name))
	return 0
}
