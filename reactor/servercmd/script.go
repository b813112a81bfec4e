package servercmd

import (
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner/script"
)

// scriptHelp is Redis's, less DEBUG: corekv has no Lua debugger.
var scriptHelp = []string{
	"SCRIPT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"EXISTS <sha1> [<sha1> ...]",
	"    Return information about the existence of the scripts in the script cache.",
	"FLUSH [ASYNC|SYNC]",
	"    Flush the Lua scripts cache. Very dangerous on replicas.",
	"    When called without the optional mode argument, the behavior is determined by the",
	"    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
	"    * ASYNC: Asynchronously flush the scripts cache.",
	"    * SYNC: Synchronously flush the scripts cache.",
	"KILL",
	"    Kill the currently executing Lua script.",
	"LOAD <script>",
	"    Load a script into the scripts cache without executing it.",
	"HELP",
	"    Prints this help.",
}

// killReply answers SCRIPT KILL or FUNCTION KILL by what KillScript did;
// other is the busy reply when the busy script is of the other kind.
func killReply(cn Conn, outcome int, other resp.Error) {
	switch outcome {
	case router.KillDone:
		cn.OK()
	case router.KillUnkillable:
		cn.Error("UNKILLABLE Sorry the script already executed write commands against the dataset. " +
			"You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.")
	case router.KillOtherKind:
		cn.Error(other)
	default:
		cn.Error("NOTBUSY No scripts in execution right now.")
	}
}

// Script is SCRIPT: the process's script registry (router.Scripts), which
// every shard's engine compiles from.
func Script(c Core, cn Conn, argv [][]byte) {
	sub := argv[1]
	switch {
	case len(argv) == 2 && resp.EqualFold(sub, "help"):
		cn.Help(scriptHelp)
	case resp.EqualFold(sub, "flush"):
		if len(argv) > 3 || len(argv) == 3 && !resp.EqualFold(argv[2], "sync") && !resp.EqualFold(argv[2], "async") {
			cn.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			return
		}
		router.Scripts.Flush()
		router.ForgetScriptHabits()
		cn.OK()
	case resp.EqualFold(sub, "exists"):
		w := cn.Begin()
		w.Array(len(argv) - 2)
		for _, sha := range argv[2:] {
			if router.Scripts.Exists(string(sha)) {
				w.Int(1)
			} else {
				w.Int(0)
			}
		}
		cn.End()
	case len(argv) == 3 && resp.EqualFold(sub, "load"):
		sha, err := script.Check(argv[2])
		if err != nil {
			cn.Error(err.(script.Error))
			return
		}
		router.Scripts.Add(sha, argv[2], true)
		w := cn.Begin()
		w.BulkString(sha)
		cn.End()
	case len(argv) == 2 && resp.EqualFold(sub, "kill"):
		// A script runs whole within its shard's turn, so a busy one is
		// of another core's shard: this core reads its watch.
		killReply(cn, router.KillScript(false), router.ErrBusyFunction)
	default:
		cn.Error(resp.ErrUnknownSubcommand("script", sub))
	}
}
