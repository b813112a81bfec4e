package router

import (
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/script"
)

// What CLIENT PAUSE WRITE holds back: a write, one of the commands Redis
// marks may-replicate (PUBLISH, SPUBLISH, PFCOUNT, and EVAL, EVALSHA and
// FCALL), and EXEC of a block holding one. A script's own flags say for
// it, as Redis's evalGetCommandFlags: one without a shebang may write,
// one with a shebang may unless it says no-writes, and so does a function;
// the _RO variants never write.

var (
	cmdPFCount  = LookupString("pfcount")
	cmdPublish  = LookupString("publish")
	cmdSPublish = LookupString("spublish")
)

// MayReplicate reports whether cmd with argv may write or propagate, as
// CLIENT PAUSE WRITE asks; sh is the client's core's shard, whose function
// libraries every shard holds alike.
func MayReplicate(sh *shardowner.Shard, cmd *Command, argv [][]byte) bool {
	switch {
	case cmd.FlagsFor(argv)&FlagWrite != 0, cmd == cmdPFCount, cmd == cmdPublish, cmd == cmdSPublish:
		return true
	case cmd.RunAs == nil, cmd.Flags&FlagReadonly != 0, len(argv) < 2:
		return false
	}
	var flags script.Flags
	switch cmd.Name {
	case "fcall":
		fn := functionsOf(sh).FunctionNamed(argv[1])
		if fn == nil {
			return false // answered at once: no such function
		}
		flags = fn.Flags
	case "evalsha":
		body, _ := Scripts.Body(string(argv[1]))
		if body == nil {
			return false // answered at once: NOSCRIPT
		}
		flags, _, _ = script.ParseShebang(body)
	default:
		flags, _, _ = script.ParseShebang(argv[1])
	}
	return flags&script.FlagEvalCompat != 0 || flags&script.FlagNoWrites == 0
}

// MayReplicate reports whether a command of the block may write or
// propagate (MayReplicate), which makes its EXEC wait out CLIENT PAUSE
// WRITE.
func (b *Block) MayReplicate(sh *shardowner.Shard) bool {
	arg := 0
	for i, cmd := range b.cmds {
		_, argv := b.at(i, arg)
		if MayReplicate(sh, cmd, argv) {
			return true
		}
		arg += b.nargs[i]
	}
	return false
}
