package servercmd

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
)

// functionHelp is Redis 7.0's FUNCTION HELP.
var functionHelp = []string{
	"FUNCTION <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"LOAD [REPLACE] <FUNCTION CODE>",
	"    Create a new library with the given library name and code.",
	"DELETE <LIBRARY NAME>",
	"    Delete the given library.",
	"LIST [LIBRARYNAME PATTERN] [WITHCODE]",
	"    Return general information on all the libraries:",
	"    * Library name",
	"    * The engine used to run the Library",
	"    * Library description",
	"    * Functions list",
	"    * Library code (if WITHCODE is given)",
	"    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
	"STATS",
	"    Return information about the current function running:",
	"    * Function name",
	"    * Command used to run the function",
	"    * Duration in MS that the function is running",
	"    If no function is running, return nil",
	"    In addition, returns a list of available engines.",
	"KILL",
	"    Kill the current running function.",
	"FLUSH [ASYNC|SYNC]",
	"    Delete all the libraries.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the libraries.",
	"    * SYNC: Synchronously flush the libraries.",
	"DUMP",
	"    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
	"RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
	"    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
	"    control how to handle existing libraries (default APPEND):",
	"    * FLUSH: delete all existing libraries.",
	"    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
	"    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
	"      libraries with the new libraries (notice that even on this option there is a chance of failure",
	"      in case of functions name collision with another library).",
	"HELP",
	"    Prints this help.",
}

// Function is FUNCTION's subcommands that run on the client's core: KILL
// and STATS, which answer while a shard is busy, and HELP. The others run
// on every shard (router/function.go).
func Function(c Core, cn Conn, argv [][]byte) {
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "help"):
		cn.Help(functionHelp)
	case resp.EqualFold(sub, "kill"):
		killReply(cn, router.KillScript(true), router.ErrBusyEval)
	case resp.EqualFold(sub, "stats"):
		functionStats(c, cn)
	}
}

// functionStats is FUNCTION STATS: the function running past
// busy-reply-threshold (a script's is refused, as in Redis), and the
// libraries and functions every shard holds, counted on this core's.
func functionStats(c Core, cn Conn) {
	name, argv, ms, running := router.RunningFunction()
	if !running && router.AnyBusyReply() == router.ErrBusyEval {
		cn.Error(router.ErrBusyEval)
		return
	}
	libs, funcs, _ := router.FunctionStats(c.Own())
	w := cn.Begin()
	w.Map(2)
	w.BulkString("running_script")
	if running {
		w.Map(3)
		w.BulkString("name")
		w.BulkString(name)
		w.BulkString("command")
		w.Array(len(argv))
		for _, a := range argv {
			w.Bulk(a)
		}
		w.BulkString("duration_ms")
		w.Int(ms)
	} else {
		w.Null()
	}
	w.BulkString("engines")
	w.Map(1)
	w.BulkString("LUA")
	w.Map(2)
	w.BulkString("libraries_count")
	w.Int(int64(libs))
	w.BulkString("functions_count")
	w.Int(int64(funcs))
	cn.End()
}
