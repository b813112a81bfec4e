package reactor

import (
	"bytes"
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
)

// command answers COMMAND and its subcommands from the command table.
func (c *Core) command(cn *Conn, argv [][]byte) {
	if len(argv) == 1 {
		w := cn.begin()
		public := publicCommands()
		w.Array(len(public))
		for _, cmd := range public {
			writeCommandInfo(w, cmd)
		}
		cn.end()
		return
	}
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "count") && len(argv) == 2:
		w := cn.begin()
		w.Int(int64(len(publicCommands())))
		cn.end()
	case resp.EqualFold(sub, "list"):
		w := cn.begin()
		public := publicCommands()
		w.Array(len(public))
		for _, cmd := range public {
			w.BulkString(cmd.Name)
		}
		cn.end()
	case resp.EqualFold(sub, "info"):
		w := cn.begin()
		names := argv[2:]
		if len(names) == 0 {
			public := publicCommands()
			w.Array(len(public))
			for _, cmd := range public {
				writeCommandInfo(w, cmd)
			}
		} else {
			w.Array(len(names))
			for _, name := range names {
				if cmd := lookupPublic(name); cmd != nil {
					writeCommandInfo(w, cmd)
				} else {
					w.Null() // Redis's null bulk string, not a null array
				}
			}
		}
		cn.end()
	case resp.EqualFold(sub, "docs"):
		var list []*router.Command
		if len(argv) == 2 {
			list = publicCommands()
		} else {
			for _, name := range argv[2:] {
				if cmd := router.Lookup(name); cmd != nil && !cmd.Internal {
					list = append(list, cmd)
				}
			}
		}
		w := cn.begin()
		w.Map(len(list))
		for _, cmd := range list {
			w.BulkString(cmd.Name)
			w.Map(3)
			w.BulkString("summary")
			w.BulkString(cmd.Summary)
			w.BulkString("since")
			w.BulkString("1.0.0")
			w.BulkString("group")
			w.BulkString(cmd.Group)
		}
		cn.end()
	case resp.EqualFold(sub, "getkeys") && len(argv) >= 3:
		// As in Redis: a container's subcommand is looked up first, then
		// whether it takes keys at all, then its arity.
		cmd := router.Lookup(argv[2])
		if cmd == nil || cmd.Internal {
			cn.errorReply(errInvalidCommand)
			return
		}
		args := argv[2:]
		arity, keyed := cmd.Arity, cmd.FirstKey > 0
		if len(cmd.Subcommands) > 0 && len(args) >= 2 {
			sub := cmd.Subcommand(args[1])
			if sub == nil {
				cn.errorReply(errInvalidCommand)
				return
			}
			arity, keyed = sub.Arity, sub.FirstKey > 0
		}
		if !keyed {
			cn.errorReply(resp.Error("ERR The command has no key arguments"))
			return
		}
		if (arity >= 0 && len(args) != arity) || (arity < 0 && len(args) < -arity) {
			cn.errorReply(resp.Error("ERR Invalid number of arguments specified for command"))
			return
		}
		if cmd.NumKeys > 0 {
			n, ok := resp.ParseInt(args[cmd.NumKeys])
			if !ok || n <= 0 || n > int64(len(args)-cmd.NumKeys-1) {
				cn.errorReply(resp.Error("ERR Invalid arguments specified for command"))
				return
			}
		}
		idx := cmd.KeyIndexes(nil, args)
		w := cn.begin()
		w.Array(len(idx))
		for _, i := range idx {
			w.Bulk(args[i])
		}
		cn.end()
	case resp.EqualFold(sub, "help"):
		cn.helpReply(commandHelp)
	default:
		cn.errorReply(errUnknownSub(sub, "command"))
	}
}

var errInvalidCommand = resp.Error("ERR Invalid command specified")

// lookupPublic finds a command a client may call by its name, or a
// subcommand by "container|sub" as COMMAND INFO names it.
func lookupPublic(name []byte) *router.Command {
	parent, sub, isSub := bytes.Cut(name, []byte("|"))
	cmd := router.Lookup(parent)
	if cmd == nil || cmd.Internal {
		return nil
	}
	if isSub {
		return cmd.Subcommand(sub)
	}
	return cmd
}

// containerSubcommands returns the subcommands of a container command with
// their arities, and false for a command that has none.
func containerSubcommands(name string) (map[string]int, bool) {
	subs, ok := subcommandArities[name]
	return subs, ok
}

// subcommandArities indexes the table's subcommands by container and
// subcommand name.
var subcommandArities = func() map[string]map[string]int {
	m := map[string]map[string]int{}
	for _, cmd := range router.Commands() {
		for _, sub := range cmd.Subcommands {
			if m[cmd.Name] == nil {
				m[cmd.Name] = map[string]int{}
			}
			m[cmd.Name][strings.TrimPrefix(sub.Name, cmd.Name+"|")] = sub.Arity
		}
	}
	return m
}()

// publicCommands is the command table without the shard-to-shard commands.
func publicCommands() []*router.Command {
	all := router.Commands()
	out := make([]*router.Command, 0, len(all))
	for i := range all {
		if !all[i].Internal {
			out = append(out, &all[i])
		}
	}
	return out
}

// writeCommandInfo writes one COMMAND INFO entry in Redis 7's ten-field
// shape: name, arity, flags, first key, last key, step, ACL categories,
// tips, key specs, subcommands.
func writeCommandInfo(w *resp.Writer, cmd *router.Command) {
	w.Array(10)
	w.BulkString(cmd.Name)
	w.Int(int64(cmd.Arity))
	flags := router.FlagNames(cmd.Flags)
	w.Set(len(flags))
	for _, f := range flags {
		w.Simple(f)
	}
	w.Int(int64(cmd.FirstKey))
	w.Int(int64(cmd.LastKey))
	w.Int(int64(cmd.Step))
	cats := router.CategoryNames(cmd.Categories())
	w.Set(len(cats))
	for _, c := range cats {
		w.Simple("@" + c)
	}
	w.Array(0)
	w.Array(0)
	w.Array(len(cmd.Subcommands))
	for i := range cmd.Subcommands {
		writeCommandInfo(w, &cmd.Subcommands[i])
	}
}

// commandHelp is what COMMAND HELP answers.
var commandHelp = []string{
	"COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"(no subcommand)",
	"    Return details about all commands.",
	"COUNT",
	"    Return the total number of commands in this server.",
	"LIST",
	"    Return a list of all commands in this server.",
	"INFO [<command-name> ...]",
	"    Return details about multiple commands.",
	"DOCS [<command-name> ...]",
	"    Return documentation details about multiple commands.",
	"GETKEYS <full-command>",
	"    Return the keys from a full command.",
	"HELP",
	"    Print this help.",
}
