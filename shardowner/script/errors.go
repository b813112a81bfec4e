package script

import (
	"regexp"
	"strings"

	"github.com/corekv/corekv/resp"
)

// Error replies of scripting, with Redis 7.0's wording. The texts a command
// called from a script is refused with are here too, for the host to send
// (see Guard); those Redis shares with other commands (OOM, READONLY,
// MISCONF) are the server's.
const (
	ErrNoScript Error = "NOSCRIPT No matching script. Please use EVAL."
	// ErrNotAllowed refuses a command flagged noscript (blocking commands,
	// EVAL, MULTI, SUBSCRIBE, …).
	ErrNotAllowed Error = "ERR This Redis command is not allowed from script"
	// ErrUnknownCommand and ErrWrongArity replace the usual unknown-command
	// and arity texts for commands a script calls.
	ErrUnknownCommand Error = "ERR Unknown Redis command called from script"
	ErrWrongArity     Error = "ERR Wrong number of args calling Redis command from script"
	// ErrWriteReadOnly refuses a write (or may-replicate) command in a
	// script run by EVAL_RO/EVALSHA_RO or flagged no-writes.
	ErrWriteReadOnly Error = "ERR Write commands are not allowed from read-only scripts."
	ErrStale         Error = "ERR Can not execute the command on a stale replica"
	// Cluster refusals: a key of another node (for corekv: of another
	// shard, where the server cannot run the command from the script), keys
	// of two slots in a script without allow-cross-slot-keys, a cluster
	// that is down.
	ErrNonLocalKey  Error = "ERR Script attempted to access a non local key in a cluster node"
	ErrCrossSlot    Error = "ERR Script attempted to access keys that do not hash to the same slot"
	ErrClusterDown  Error = "ERR Script attempted to execute a command while the cluster is down"
	ErrClusterDownR Error = "ERR Script attempted to execute a write command while the cluster is down and readonly"

	// Refusals of a whole script before it runs (CheckRun).
	ErrNoCluster    Error = "ERR Can not run script on cluster, 'no-cluster' flag is set."
	ErrStaleScript  Error = "MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' and 'allow-stale' flag is not set on the script."
	ErrReadOnlyRepl Error = "READONLY Can not run script with write flag on readonly replica"
	ErrROCommand    Error = "ERR Can not execute a script with write flag using *_ro command."
	ErrOOMScript    Error = "OOM allow-oom flag is not set on the script, can not run it when used memory > 'maxmemory'"
	ErrMisconfRDB   Error = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts."
	// ErrMisconfAOF is followed by the AOF error's strerror text.
	ErrMisconfAOF Error = "MISCONF Redis is configured to persist data to AOF, but it's currently unable to persist to disk. Writable scripts are blocked. Use 'no-writes' flag for read only scripts. AOF error: "

	// Errors of EVAL's own arguments, for the server's EVAL handler.
	ErrNumKeysTooMany Error = "ERR Number of keys can't be greater than number of args"
	ErrNumKeysNeg     Error = "ERR Number of keys can't be negative"

	errBusyRun Error = "ERR a script is already running on this engine"
)

// Error is an error reply's text, as resp.Error.
type Error = resp.Error

// The texts of runtime errors gopher-lua writes its own way, and Lua 5.1's.
var (
	reArith   = regexp.MustCompile(`cannot perform (\w+) operation between (\w+) and (\w+)`)
	reIndex   = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '[^']*'`)
	reCompare = regexp.MustCompile(`attempt to compare (\w+) with (\w+)`)
	reBadArg  = regexp.MustCompile(`bad argument #(-?\d+) to ([^' (][^ (]*) \(`)
)

// luaMessage rewrites the error texts of gopher-lua's VM and libraries that
// have a Lua 5.1 counterpart into that counterpart, keeping any position
// before them. Lua 5.1 often names the variable involved ("attempt to call
// global 'f' (a nil value)"); the error handlers name failed calls and
// indexes where the frame shows them (callname.go), and the texts here are
// those Lua writes when it has no name.
func luaMessage(s string) string {
	if !strings.Contains(s, "attempt") && !strings.Contains(s, "cannot perform") &&
		!strings.Contains(s, "bad argument") && !strings.Contains(s, "for statement") {
		return s
	}
	s = strings.ReplaceAll(s, "attempt to call a non-function object", "attempt to call a nil value")
	s = reArith.ReplaceAllStringFunc(s, func(m string) string {
		sub := reArith.FindStringSubmatch(m)
		op, lhs, rhs := sub[1], sub[2], sub[3]
		if op == "concat" {
			// Lua blames the first operand that is neither string nor number.
			t := lhs
			if lhs == "string" || lhs == "number" {
				t = rhs
			}
			return "attempt to concatenate a " + t + " value"
		}
		// Lua blames the first operand that does not convert to a number.
		t := rhs
		if lhs != "number" && (lhs != "string" || rhs == "number" || rhs == "string") {
			t = lhs
		}
		return "attempt to perform arithmetic on a " + t + " value"
	})
	s = reIndex.ReplaceAllString(s, "attempt to index a $1 value")
	s = reCompare.ReplaceAllStringFunc(s, func(m string) string {
		sub := reCompare.FindStringSubmatch(m)
		if sub[1] == sub[2] {
			return "attempt to compare two " + sub[1] + " values"
		}
		return m
	})
	s = reBadArg.ReplaceAllString(s, "bad argument #$1 to '$2' (")
	s = strings.ReplaceAll(s, "for statement init must be a number", "'for' initial value must be a number")
	s = strings.ReplaceAll(s, "for statement limit must be a number", "'for' limit must be a number")
	s = strings.ReplaceAll(s, "for statement step must be a number", "'for' step must be a number")
	return s
}
