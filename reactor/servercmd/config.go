package servercmd

import (
	"bytes"
	"errors"

	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// Config is CONFIG: GET and SET over the one table of settings, RESETSTAT,
// REWRITE of the file the server was started with, and HELP.
func Config(c Core, cn Conn, argv [][]byte) {
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "get"):
		// As in Redis, a name without glob characters is looked up as is and
		// echoed as the client spelled it; a pattern answers the names (and
		// aliases) it matches. Each is answered once, under its first
		// spelling.
		var pairs []string
		seen := map[string]bool{}
		c.Settings().View(func(conf *settings.Config) {
			for _, pat := range argv[2:] {
				if bytes.IndexAny(pat, "[*?") < 0 {
					if n := findName(string(pat)); n != nil && !seen[n.Name] {
						seen[n.Name] = true
						pairs = append(pairs, string(pat), n.Setting.Get(conf))
					}
					continue
				}
				for _, n := range settings.Names() {
					if !n.Setting.Hidden && !seen[n.Name] && shardowner.MatchGlob(pat, []byte(n.Name), true) {
						seen[n.Name] = true
						pairs = append(pairs, n.Name, n.Setting.Get(conf))
					}
				}
			}
		})
		w := cn.Begin()
		w.Map(len(pairs) / 2)
		for _, s := range pairs {
			w.BulkString(s)
		}
		cn.End()
	case resp.EqualFold(sub, "set") && len(argv)%2 != 0:
		cn.Error(resp.ErrSyntax)
	case resp.EqualFold(sub, "set"):
		if e := configSet(c.Settings(), cn, argv); e != "" {
			cn.Error(e)
			return
		}
		cn.OK()
	case resp.EqualFold(sub, "resetstat") && len(argv) == 2:
		c.ConfigResetStat(cn)
	case resp.EqualFold(sub, "rewrite") && len(argv) == 2:
		configRewrite(c, cn, false)
	case resp.EqualFold(sub, "help"):
		cn.Help(configHelp)
	default:
		cn.Error(resp.ErrUnknownSubcommand("config", sub))
	}
}

// configRewrite is CONFIG REWRITE, and DEBUG CONFIG-REWRITE-FORCE-ALL with
// all: the file the server was started with, rewritten with the running
// configuration (settings.Rewrite).
func configRewrite(c Core, cn Conn, all bool) {
	switch err := c.Settings().Rewrite(all); {
	case errors.Is(err, settings.ErrNoConfigFile):
		cn.Error(resp.Error("ERR " + err.Error()))
	case err != nil:
		cn.Error(resp.Error("ERR Rewriting config file: " + settings.Strerror(err)))
	default:
		cn.OK()
	}
}

func configSetFailed(name, why string) resp.Error {
	return resp.Error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why)
}

// findName returns the spelling of a setting CONFIG knows by that name, in
// any case, or nil.
func findName(name string) *settings.Name {
	for i, n := range settings.Names() {
		if len(n.Name) == len(name) && resp.EqualFold([]byte(name), n.Name) {
			return &settings.Names()[i]
		}
	}
	return nil
}

// configSet is CONFIG SET name value ...: it checks every pair first, on a
// copy of the configuration, so that a bad one changes nothing (Redis sets
// all or none), then applies them. Like Redis, it answers the first name it
// refuses (an unknown one before all others), quoting the name as given,
// and the first value refused under the name it was given by, in the
// table's spelling (an alias stays the alias); every sensitive value is
// redacted, whatever is refused.
func configSet(store *settings.Store, cn Conn, argv [][]byte) resp.Error {
	var (
		changed []*settings.Setting
		names   []string // as the table spells the name each was given by
		values  []string
		unknown string
		refusal resp.Error
	)
	var protectedMode string
	store.View(func(c *settings.Config) { protectedMode = c.EnableProtected })
	seen := map[string]bool{}
	for i := 2; i < len(argv); i += 2 {
		n, v := findName(string(argv[i])), string(argv[i+1])
		if n == nil {
			if unknown == "" && refusal == "" {
				unknown = string(argv[i])
			}
			continue
		}
		if n.Setting.Sensitive {
			argv[i+1] = Redacted
		}
		switch {
		case unknown != "" || refusal != "":
		case !n.Setting.Mutable:
			refusal = configSetFailed(string(argv[i]), "can't set immutable config")
		case n.Setting.Protected && !allowedFrom(protectedMode, cn):
			refusal = configSetFailed(string(argv[i]), "can't set protected config")
		case seen[n.Name]:
			refusal = configSetFailed(string(argv[i]), "duplicate parameter")
		}
		seen[n.Name] = true
		changed = append(changed, n.Setting)
		names = append(names, n.Name)
		values = append(values, v)
	}
	if unknown != "" {
		return resp.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + unknown + "'")
	}
	if refusal != "" {
		return refusal
	}
	var e resp.Error
	store.Change(func(old, next *settings.Config, live *settings.Live) ([]*settings.Setting, bool) {
		for i, p := range changed {
			refused := p.Set(next, values[i])
			if refused == "" && p.Check != nil {
				refused = p.Check(live, old, next)
			}
			if refused != "" {
				e = configSetFailed(names[i], refused)
				return nil, true
			}
		}
		return changed, false
	})
	return e
}

// configHelp is what CONFIG HELP answers.
var configHelp = []string{
	"CONFIG <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"GET <pattern>",
	"    Return parameters matching the glob-like <pattern> and their values.",
	"SET <directive> <value>",
	"    Set the configuration <directive> to <value>.",
	"RESETSTAT",
	"    Reset statistics reported by the INFO command.",
	"REWRITE",
	"    Rewrite the configuration file.",
	"HELP",
	"    Print this help.",
}
