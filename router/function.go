package router

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/rdbfile"
	"github.com/corekv/corekv/shardowner/script"
)

// Functions: every shard keeps its own copy of the function libraries, in
// an engine of its own (script.Engine's libraries), as it keeps its slice
// of the keys: FUNCTION LOAD, DELETE, FLUSH and RESTORE run on every shard
// (RouteAll, under the locks of all), each shard records them in its
// journal as every shard's (the AOF replays them on each), and the first
// shard's reply stands for all (CombineFirst). So FCALL finds its function
// on whatever shard its keys live, with no hop and no lock, and a snapshot
// takes the libraries from the first shard at its cut. FUNCTION KILL,
// STATS and HELP run on the client's core (reactor/servercmd).

// functionsOf returns shard sh's function engine, made at its first use.
func functionsOf(sh *shardowner.Shard) *script.Engine {
	r := scriptingOf(sh)
	if r.functions == nil {
		r.functions = script.New(script.Options{Log: scriptLogger(sh), Watch: r.host.watch})
	}
	return r.functions
}

// KeepFunctions makes sh keep its function libraries here, for snapshots
// and loading to reach (shardowner.FunctionStore).
func KeepFunctions(sh *shardowner.Shard) { sh.Functions = functionStore{sh} }

// functionStore is a shard's libraries as shardowner sees them.
type functionStore struct{ sh *shardowner.Shard }

func (s functionStore) Codes() [][]byte {
	r, _ := s.sh.Scripting.(*scriptRun)
	if r == nil || r.functions == nil {
		return nil
	}
	libs := r.functions.Libraries()
	codes := make([][]byte, len(libs))
	for i, l := range libs {
		codes[i] = l.Code
	}
	return codes
}

func (s functionStore) Restore(codes [][]byte, replace bool) error {
	if len(codes) == 0 {
		return nil
	}
	policy := script.RestoreAppend
	if replace {
		policy = script.RestoreReplace
	}
	return functionsOf(s.sh).RestoreLibraries(codes, policy)
}

func (s functionStore) Flush() {
	r, _ := s.sh.Scripting.(*scriptRun)
	if r != nil && r.functions != nil && len(r.functions.Libraries()) > 0 {
		r.functions.FlushLibraries()
	}
}

// functionPart runs FUNCTION's subcommands that every shard runs: LOAD,
// DELETE, FLUSH, RESTORE, and LIST and DUMP, which every shard answers
// alike.
func functionPart(c *shardowner.Ctx, argv [][]byte) {
	e := functionsOf(c.Shard)
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "load"):
		functionLoad(c, e, argv)
	case resp.EqualFold(sub, "delete") && len(argv) == 3:
		if !e.DeleteLibrary(string(argv[2])) {
			c.W.Err("ERR Library not found")
			return
		}
		functionsChanged(c)
		c.W.OK()
	case resp.EqualFold(sub, "flush"):
		switch {
		case len(argv) > 3:
			c.W.Err(errFunctionSyntax(sub))
			return
		case len(argv) == 3 && !resp.EqualFold(argv[2], "sync") && !resp.EqualFold(argv[2], "async"):
			c.W.Err("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")
			return
		}
		e.FlushLibraries()
		functionsChanged(c)
		c.W.OK()
	case resp.EqualFold(sub, "restore") && len(argv) >= 3:
		functionRestore(c, e, argv)
	case resp.EqualFold(sub, "list"):
		functionList(c, e, argv)
	case resp.EqualFold(sub, "dump") && len(argv) == 2:
		c.W.Bulk(DumpFunctions(nil, e.Libraries()))
	case !knownFunctionSub(sub):
		c.W.Err(resp.ErrUnknownSubcommand("function", sub))
	default:
		c.W.Err(errFunctionSyntax(sub))
	}
}

// knownFunctionSub reports whether FUNCTION has a subcommand named sub.
func knownFunctionSub(sub []byte) bool {
	for i := range functionSubcommands {
		if resp.EqualFold(sub, functionSubcommands[i].Name[len("function|"):]) {
			return true
		}
	}
	return false
}

// errFunctionSyntax is Redis's reply to a subcommand it does not know or
// that has the wrong arguments.
func errFunctionSyntax(sub []byte) resp.Error {
	return resp.Error("ERR unknown subcommand or wrong number of arguments for '" + string(sub) + "'. Try FUNCTION HELP.")
}

// functionsChanged counts a change of the libraries as a change of the
// data (for save points), and forgets what scripts' runs showed: a
// function of the same name may now keep to other keys.
func functionsChanged(c *shardowner.Ctx) {
	c.Changed()
	if c.Shard.ID == 0 {
		ForgetScriptHabits()
	}
}

func functionLoad(c *shardowner.Ctx, e *script.Engine, argv [][]byte) {
	replace := false
	i := 2
	for ; i < len(argv)-1; i++ {
		if !resp.EqualFold(argv[i], "replace") {
			c.W.Err(resp.Error("ERR Unknown option given: " + cstr(argv[i])))
			return
		}
		replace = true
	}
	if i >= len(argv) {
		c.W.Err("ERR Function code is missing")
		return
	}
	name, err := e.LoadLibrary(argv[i], replace, script.LoadTimeout)
	if err != nil {
		c.W.Err(err.(script.Error))
		return
	}
	functionsChanged(c)
	c.W.BulkString(name)
}

// cstr is b as C reads it: up to its first NUL.
func cstr(b []byte) string {
	for i, x := range b {
		if x == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

func functionRestore(c *shardowner.Ctx, e *script.Engine, argv [][]byte) {
	if len(argv) > 4 {
		c.W.Err(errFunctionSyntax(argv[1]))
		return
	}
	policy := script.RestoreAppend
	if len(argv) == 4 {
		switch {
		case resp.EqualFold(argv[3], "append"):
		case resp.EqualFold(argv[3], "replace"):
			policy = script.RestoreReplace
		case resp.EqualFold(argv[3], "flush"):
			policy = script.RestoreFlush
		default:
			c.W.Err("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")
			return
		}
	}
	codes, msg := ParseFunctionDump(argv[2])
	if msg != "" {
		c.W.Err(msg)
		return
	}
	if err := e.RestoreLibraries(codes, policy); err != nil {
		c.W.Err(err.(script.Error))
		return
	}
	functionsChanged(c)
	c.W.OK()
}

// DumpFunctions appends FUNCTION DUMP's payload of libs to dst: a FUNCTION2
// record per library, then the RDB version and the CRC64 of all before it,
// as DUMP frames a value. dst holds nothing before.
func DumpFunctions(dst []byte, libs []*script.Library) []byte {
	for _, l := range libs {
		dst = rdbfile.AppendString(append(dst, rdbfile.OpFunction2), l.Code, false)
	}
	return shardowner.AppendDumpFooter(dst)
}

// ParseFunctionDump reads the library codes of a FUNCTION DUMP payload, or
// returns Redis's error for it.
func ParseFunctionDump(payload []byte) (codes [][]byte, err resp.Error) {
	body, ok := shardowner.DumpBody(payload)
	if !ok {
		return nil, "ERR DUMP payload version or checksum are wrong"
	}
	var rd rdbfile.Reader
	rd.Reset(body)
	for len(rd.Rest()) > 0 {
		t, ok := rd.Byte()
		if !ok {
			return nil, "ERR can not read data type"
		}
		if t != rdbfile.OpFunction2 {
			if t == rdbfile.OpFunctionPreGA {
				return nil, "ERR Pre-GA function format not supported"
			}
			return nil, "ERR given type is not a function"
		}
		code, ok := rd.String()
		if !ok {
			return nil, "ERR Failed loading library payload"
		}
		codes = append(codes, append([]byte(nil), code...))
	}
	return codes, ""
}

// functionList is FUNCTION LIST [LIBRARYNAME pattern] [WITHCODE].
func functionList(c *shardowner.Ctx, e *script.Engine, argv [][]byte) {
	withCode := false
	var pattern []byte
	for i := 2; i < len(argv); i++ {
		switch {
		case !withCode && resp.EqualFold(argv[i], "withcode"):
			withCode = true
		case pattern == nil && resp.EqualFold(argv[i], "libraryname"):
			if i >= len(argv)-1 {
				c.W.Err("ERR library name argument was not given")
				return
			}
			i++
			pattern = argv[i]
		default:
			c.W.Err(resp.Error("ERR Unknown argument " + cstr(argv[i])))
			return
		}
	}
	var libs []*script.Library
	for _, l := range e.Libraries() {
		if pattern == nil || shardowner.MatchGlob(pattern, []byte(l.Name), true) {
			libs = append(libs, l)
		}
	}
	w := c.W
	w.Array(len(libs))
	for _, l := range libs {
		if withCode {
			w.Map(4)
		} else {
			w.Map(3)
		}
		w.BulkString("library_name")
		w.BulkString(l.Name)
		w.BulkString("engine")
		w.BulkString("LUA")
		w.BulkString("functions")
		w.Array(len(l.Functions))
		for _, f := range l.Functions {
			w.Map(3)
			w.BulkString("name")
			w.BulkString(f.Name)
			w.BulkString("description")
			if f.HasDesc {
				w.BulkString(f.Desc)
			} else {
				w.Null()
			}
			w.BulkString("flags")
			names := f.Flags.Names()
			w.Set(len(names))
			for _, n := range names {
				w.Simple(n)
			}
		}
		if withCode {
			w.BulkString("library_code")
			w.Bulk(l.Code)
		}
	}
}

// FunctionStats is FUNCTION STATS's engines part for the home core's
// shard: its libraries and functions, which every shard has alike, and the
// bytes of their code, names and descriptions (INFO used_memory_functions).
func FunctionStats(sh *shardowner.Shard) (libraries, functions, bytes int) {
	r, _ := sh.Scripting.(*scriptRun)
	if r == nil || r.functions == nil {
		return 0, 0, 0
	}
	for _, l := range r.functions.Libraries() {
		bytes += len(l.Name) + len(l.Code)
		for _, f := range l.Functions {
			bytes += len(f.Name) + len(f.Desc)
		}
	}
	return len(r.functions.Libraries()), r.functions.FunctionCount(), bytes
}
