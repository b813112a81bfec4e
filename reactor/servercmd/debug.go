package servercmd

import (
	"errors"
	"strings"

	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// errDebugNotAllowed is Redis 7's refusal of DEBUG under
// enable-debug-command no (or local, from a remote client).
const errDebugNotAllowed resp.Error = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", " +
	"you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."

// debugAllowed applies enable-debug-command.
func debugAllowed(c Core, cn Conn) bool {
	var mode string
	c.Settings().View(func(conf *settings.Config) { mode = conf.EnableDebug })
	return allowedFrom(mode, cn)
}

// allowedFrom applies enable-debug-command or enable-protected-configs: like
// Redis, "local" means a client whose address is 127.0.0.1 or ::1.
func allowedFrom(mode string, cn Conn) bool {
	switch mode {
	case "yes":
		return true
	case "local":
		host := cn.ClientFields().Addr
		if i := strings.LastIndexByte(host, ':'); i >= 0 {
			host = host[:i]
		}
		return host == "127.0.0.1" || host == "::1"
	}
	return false
}

// Debug is DEBUG: SET-ACTIVE-EXPIRE, OBJECT, RELOAD, PROTOCOL,
// SET-DISABLE-DENY-SCRIPTS and HELP here, SLEEP in the loop, which is what
// it stops.
func Debug(c Core, cn Conn, argv [][]byte) {
	if !debugAllowed(c, cn) {
		cn.Error(errDebugNotAllowed)
		return
	}
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "sleep") && len(argv) == 3:
		c.DebugSleep(cn, resp.ParseFloatPrefix(argv[2]))
	case resp.EqualFold(sub, "config-rewrite-force-all") && len(argv) == 2:
		configRewrite(c, cn, true)
	case resp.EqualFold(sub, "set-active-expire") && len(argv) == 3:
		// Redis reads the flag with atoi: a C int from the leading digits,
		// 0 when there are none.
		n, _ := resp.ParseIntPrefix(argv[2])
		c.SetActiveExpire(int32(n) != 0)
		cn.OK()
	case resp.EqualFold(sub, "digest") && len(argv) == 2, resp.EqualFold(sub, "digest-value"):
		if cn.InExec() {
			cn.Error("ERR DEBUG DIGEST is not possible inside MULTI")
			return
		}
		c.DebugDigest(cn, argv[2:])
	case resp.EqualFold(sub, "object") && len(argv) == 3:
		if cn.InExec() {
			cn.Error("ERR DEBUG OBJECT is not possible inside MULTI")
			return
		}
		c.DebugObject(cn, argv[2])
	case resp.EqualFold(sub, "reload"):
		debugReload(c, cn, argv[2:])
	case resp.EqualFold(sub, "protocol") && len(argv) == 3:
		w := cn.Begin()
		if !w.DebugProtocol(argv[2]) {
			w.Err(resp.ErrDebugProtocolType)
		}
		cn.End()
	case resp.EqualFold(sub, "set-disable-deny-scripts") && len(argv) == 3:
		n, _ := resp.ParseIntPrefix(argv[2]) // atoi, as Redis reads it
		router.ScriptDebugAllowed.Store(int32(n) != 0)
		cn.OK()
	case resp.EqualFold(sub, "help") && len(argv) == 2:
		cn.Help(debugHelp)
	default:
		cn.Error(resp.ErrSubcommandSyntax("debug", sub))
	}
}

// errReloadOption is Redis 7.0's refusal of an option DEBUG RELOAD does not
// know.
const errReloadOption resp.Error = "ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options."

// debugReload is DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save, empty
// the keyspace and load the file again.
func debugReload(c Core, cn Conn, args [][]byte) {
	var flags []string
	for _, a := range args {
		switch {
		case resp.EqualFold(a, "merge"), resp.EqualFold(a, "noflush"), resp.EqualFold(a, "nosave"):
			flags = append(flags, strings.ToLower(string(a)))
		default:
			cn.Error(errReloadOption)
			return
		}
	}
	if cn.InExec() {
		cn.Error("ERR DEBUG RELOAD is not possible inside MULTI")
		return
	}
	if err := c.DebugReload(cn, flags); err != nil {
		if errors.Is(err, snapshot.ErrInProgress) {
			cn.Error(errBgsaveInProgress)
			return
		}
		cn.Error("ERR Error trying to save the DB")
	}
}

// debugHelp is what DEBUG HELP answers.
var debugHelp = []string{
	"DEBUG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"CONFIG-REWRITE-FORCE-ALL",
	"    CONFIG REWRITE, writing every setting, those at their defaults too.",
	"OBJECT <key>",
	"    Show low level info about the key and associated value.",
	"SLEEP <seconds>",
	"    Stop the server for <seconds>. Decimals allowed.",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Turn the active expiry cycle off or on.",
	"RELOAD [MERGE] [NOFLUSH] [NOSAVE]",
	"    Save the dataset, empty the keyspace and load the file back. NOSAVE loads",
	"    the file as it is; NOFLUSH keeps the keyspace (a key in both is an error);",
	"    MERGE lets the file's keys replace those held.",
	"PROTOCOL <type>",
	"    Reply with a sample value of <type>: string, integer, double, bignum, null,",
	"    array, set, map, attrib, push, verbatim, true or false.",
	"SET-DISABLE-DENY-SCRIPTS <0|1>",
	"    Let scripts call DEBUG (PROTOCOL), which they may not otherwise.",
	"DIGEST",
	"    A digest of the whole dataset, the same wherever the same data is held.",
	"DIGEST-VALUE <key> [<key> ...]",
	"    A digest of each key's value and TTL (zeros for a missing key).",
	"HELP",
	"    Print this help.",
}
