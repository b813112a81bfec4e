package servercmd

import (
	"bytes"
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// command answers COMMAND and its subcommands from the command table.
func Command(c Core, cn Conn, argv [][]byte) {
	if len(argv) == 1 {
		w := cn.Begin()
		public := publicCommands()
		w.Array(len(public))
		for _, cmd := range public {
			writeCommandInfo(w, cmd)
		}
		cn.End()
		return
	}
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "count") && len(argv) == 2:
		w := cn.Begin()
		w.Int(int64(len(publicCommands())))
		cn.End()
	case resp.EqualFold(sub, "list"):
		commandList(cn, argv)
	case resp.EqualFold(sub, "info"):
		w := cn.Begin()
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
		cn.End()
	case resp.EqualFold(sub, "docs"):
		var list []*router.Command
		if len(argv) == 2 {
			list = publicCommands()
		} else {
			for _, name := range argv[2:] {
				if cmd := lookupPublic(name); cmd != nil {
					list = append(list, cmd)
				}
			}
		}
		w := cn.Begin()
		w.Map(len(list))
		for _, cmd := range list {
			w.BulkString(cmd.Name)
			writeCommandDocs(w, cmd)
		}
		cn.End()
	case (resp.EqualFold(sub, "getkeys") || resp.EqualFold(sub, "getkeysandflags")) && len(argv) >= 3:
		commandGetKeys(cn, argv[2:], len(sub) > len("getkeys"))
	case resp.EqualFold(sub, "help"):
		cn.Help(commandHelp)
	default:
		cn.Error(resp.ErrUnknownSubcommand("command", sub))
	}
}

var errInvalidCommand = resp.Error("ERR Invalid command specified")

// commandGetKeys answers COMMAND GETKEYS and GETKEYSANDFLAGS for the
// command args. As in Redis: a container's subcommand is looked up first,
// then whether it takes keys at all, then its arity.
func commandGetKeys(cn Conn, args [][]byte, withFlags bool) {
	cmd := router.Lookup(args[0])
	if cmd == nil || cmd.Internal {
		cn.Error(errInvalidCommand)
		return
	}
	if len(cmd.Subcommands) > 0 && len(args) >= 2 {
		if cmd = cmd.Subcommand(args[1]); cmd == nil {
			cn.Error(errInvalidCommand)
			return
		}
	}
	if !cmd.HasKeyArgs() {
		cn.Error(resp.Error("ERR The command has no key arguments"))
		return
	}
	if !cmd.ArityOK(len(args)) {
		cn.Error(resp.Error("ERR Invalid number of arguments specified for command"))
		return
	}
	keys := cmd.GetKeys(args)
	if len(keys) == 0 && cmd.Flags&router.FlagNoMandatoryKeys == 0 {
		cn.Error(resp.Error("ERR Invalid arguments specified for command"))
		return
	}
	w := cn.Begin()
	w.Array(len(keys))
	for _, k := range keys {
		if !withFlags {
			w.Bulk(args[k.Pos])
			continue
		}
		w.Array(2)
		w.Bulk(args[k.Pos])
		writeSimpleSet(w, router.KeyFlagNames(k.Flags), "")
	}
	cn.End()
}

// commandList answers COMMAND LIST [FILTERBY MODULE|ACLCAT|PATTERN arg]:
// the names of the commands and their subcommands that pass the filter.
func commandList(cn Conn, argv [][]byte) {
	pass := func(*router.Command) bool { return true }
	switch {
	case len(argv) == 2:
	case len(argv) == 5 && resp.EqualFold(argv[2], "filterby"):
		arg := argv[4]
		switch kind := argv[3]; {
		case resp.EqualFold(kind, "module"):
			pass = func(*router.Command) bool { return false } // corekv has no modules
		case resp.EqualFold(kind, "aclcat"):
			cat, ok := router.CategoryByName(string(arg))
			pass = func(cmd *router.Command) bool { return ok && cmd.Categories()&cat != 0 }
		case resp.EqualFold(kind, "pattern"):
			pass = func(cmd *router.Command) bool { return shardowner.MatchGlob(arg, []byte(cmd.Name), true) }
		default:
			cn.Error(resp.ErrSyntax)
			return
		}
	default:
		cn.Error(resp.ErrSyntax)
		return
	}
	var names []string
	for _, cmd := range publicCommands() {
		if pass(cmd) {
			names = append(names, cmd.Name)
		}
		for i := range cmd.Subcommands {
			if pass(&cmd.Subcommands[i]) {
				names = append(names, cmd.Subcommands[i].Name)
			}
		}
	}
	w := cn.Begin()
	w.Array(len(names))
	for _, n := range names {
		w.BulkString(n)
	}
	cn.End()
}

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

// ContainerSubcommands returns the subcommands of a container command with
// their arities, and false for a command that has none.
func ContainerSubcommands(name string) (map[string]int, bool) {
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
	first, last, step := cmd.KeyRange()
	w.Int(int64(first))
	w.Int(int64(last))
	w.Int(int64(step))
	cats := router.CategoryNames(cmd.Categories())
	writeSimpleSet(w, cats, "@")
	tips := strings.Fields(cmd.Tips)
	w.Set(len(tips))
	for _, t := range tips {
		w.BulkString(t)
	}
	specs := cmd.KeySpecs()
	w.Set(len(specs))
	for i := range specs {
		writeKeySpec(w, &specs[i])
	}
	// Redis answers an empty set where there are no subcommands.
	if len(cmd.Subcommands) == 0 {
		w.Set(0)
		return
	}
	w.Array(len(cmd.Subcommands))
	for i := range cmd.Subcommands {
		writeCommandInfo(w, &cmd.Subcommands[i])
	}
}

// writeSimpleSet writes names as a set of simple strings, each after
// prefix.
func writeSimpleSet(w *resp.Writer, names []string, prefix string) {
	w.Set(len(names))
	for _, n := range names {
		w.Simple(prefix + n)
	}
}

// writeKeySpec writes a key specification in Redis's shape: notes, flags,
// where the search for keys begins and how the keys are found from there.
func writeKeySpec(w *resp.Writer, s *router.KeySpec) {
	if s.Notes != "" {
		w.Map(4)
		w.BulkString("notes")
		w.BulkString(s.Notes)
	} else {
		w.Map(3)
	}
	w.BulkString("flags")
	writeSimpleSet(w, router.KeyFlagNames(s.Flags), "")
	w.BulkString("begin_search")
	w.Map(2)
	w.BulkString("type")
	switch {
	case s.Begin == 0:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	case s.Keyword != "":
		w.BulkString("keyword")
		w.BulkString("spec")
		w.Map(2)
		w.BulkString("keyword")
		w.BulkString(s.Keyword)
		writeIntField(w, "startfrom", s.Begin)
	default:
		w.BulkString("index")
		w.BulkString("spec")
		w.Map(1)
		w.BulkString("index")
		w.Int(int64(s.Begin))
	}
	w.BulkString("find_keys")
	w.Map(2)
	w.BulkString("type")
	switch {
	case s.Begin == 0:
		w.BulkString("unknown")
		w.BulkString("spec")
		w.Map(0)
	case s.NumKeys:
		w.BulkString("keynum")
		w.BulkString("spec")
		w.Map(3)
		writeIntField(w, "keynumidx", 0)
		writeIntField(w, "firstkey", 1)
		writeIntField(w, "keystep", 1)
	default:
		w.BulkString("range")
		w.BulkString("spec")
		w.Map(3)
		writeIntField(w, "lastkey", s.Last)
		writeIntField(w, "keystep", s.Step)
		writeIntField(w, "limit", s.Limit)
	}
}

func writeIntField(w *resp.Writer, name string, v int) {
	w.BulkString(name)
	w.Int(int64(v))
}

// writeCommandDocs writes a command's COMMAND DOCS entry in Redis's
// shape: summary, since, group, complexity, then the doc flags, history,
// arguments and subcommands it has.
func writeCommandDocs(w *resp.Writer, cmd *router.Command) {
	args := cmd.DocArgs()
	n := 3
	if cmd.Complexity != "" {
		// Redis leaves it out for a command it documents none for
		// (MONITOR).
		n++
	}
	if cmd.Deprecated != "" {
		n += 3
	} else if cmd.SysCmd {
		n++
	}
	for _, has := range []bool{len(cmd.History) > 0, len(args) > 0, len(cmd.Subcommands) > 0} {
		if has {
			n++
		}
	}
	w.Map(n)
	w.BulkString("summary")
	w.BulkString(cmd.Summary)
	w.BulkString("since")
	w.BulkString(cmd.Since)
	w.BulkString("group")
	w.BulkString(cmd.Group)
	if cmd.Complexity != "" {
		w.BulkString("complexity")
		w.BulkString(cmd.Complexity)
	}
	if cmd.Deprecated != "" {
		since, by, _ := strings.Cut(cmd.Deprecated, " ")
		w.BulkString("doc_flags")
		writeSimpleSet(w, []string{"deprecated"}, "")
		w.BulkString("deprecated_since")
		w.BulkString(since)
		w.BulkString("replaced_by")
		w.BulkString(by)
	} else if cmd.SysCmd {
		w.BulkString("doc_flags")
		writeSimpleSet(w, []string{"syscmd"}, "")
	}
	if len(cmd.History) > 0 {
		w.BulkString("history")
		w.Set(len(cmd.History))
		for _, h := range cmd.History {
			version, what, _ := strings.Cut(h, " ")
			w.Array(2)
			w.BulkString(version)
			w.BulkString(what)
		}
	}
	if len(args) > 0 {
		w.BulkString("arguments")
		writeDocArgs(w, args)
	}
	if len(cmd.Subcommands) > 0 {
		w.BulkString("subcommands")
		w.Map(len(cmd.Subcommands))
		for i := range cmd.Subcommands {
			sub := &cmd.Subcommands[i]
			w.BulkString(sub.Name)
			writeCommandDocs(w, sub)
		}
	}
}

// writeDocArgs writes arguments as COMMAND DOCS describes them.
func writeDocArgs(w *resp.Writer, args []router.Arg) {
	w.Array(len(args))
	for i := range args {
		a := &args[i]
		n := 2
		for _, has := range []bool{a.KeySpec >= 0, a.Token != "", a.Since != "", len(a.Flags) > 0,
			a.Deprecated != "", len(a.Args) > 0} {
			if has {
				n++
			}
		}
		w.Map(n)
		w.BulkString("name")
		w.BulkString(a.Name)
		w.BulkString("type")
		w.BulkString(a.Type)
		if a.KeySpec >= 0 {
			writeIntField(w, "key_spec_index", a.KeySpec)
		}
		if a.Token != "" {
			w.BulkString("token")
			w.BulkString(a.Token)
		}
		if a.Since != "" {
			w.BulkString("since")
			w.BulkString(a.Since)
		}
		if len(a.Flags) > 0 {
			w.BulkString("flags")
			writeSimpleSet(w, a.Flags, "")
		}
		if a.Deprecated != "" {
			w.BulkString("deprecated_since")
			w.BulkString(a.Deprecated)
		}
		if len(a.Args) > 0 {
			w.BulkString("arguments")
			writeDocArgs(w, a.Args)
		}
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
	"GETKEYSANDFLAGS <full-command>",
	"    Return the keys and the access flags from a full command.",
	"HELP",
	"    Print this help.",
}
