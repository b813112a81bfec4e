package reactor

import (
	"bytes"

	"github.com/corekv/corekv/reactor/settings"
	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

func (c *Core) config(cn *Conn, argv [][]byte) {
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "get"):
		// As in Redis, a name without glob characters is looked up as is and
		// echoed as the client spelled it; a pattern answers the names (and
		// aliases) it matches. Each is answered once, under its first
		// spelling.
		s := c.srv
		var pairs []string
		seen := map[string]bool{}
		s.mu.Lock()
		for _, pat := range argv[2:] {
			if bytes.IndexAny(pat, "[*?") < 0 {
				if n := findName(string(pat)); n != nil && !seen[n.Name] {
					seen[n.Name] = true
					pairs = append(pairs, string(pat), n.Setting.Get(&s.conf))
				}
				continue
			}
			for _, n := range settings.Names() {
				if !seen[n.Name] && shardowner.MatchGlob(pat, []byte(n.Name), true) {
					seen[n.Name] = true
					pairs = append(pairs, n.Name, n.Setting.Get(&s.conf))
				}
			}
		}
		s.mu.Unlock()
		w := cn.begin()
		w.Map(len(pairs) / 2)
		for _, s := range pairs {
			w.BulkString(s)
		}
		cn.end()
	case resp.EqualFold(sub, "set") && len(argv)%2 != 0:
		cn.errorReply(resp.ErrSyntax)
	case resp.EqualFold(sub, "set"):
		if e := c.srv.configSet(argv); e != "" {
			cn.errorReply(e)
			return
		}
		cn.okReply()
	case resp.EqualFold(sub, "resetstat") && len(argv) == 2:
		if cn.capture {
			c.publishStats()
			c.srv.resetStats()
			cn.okReply()
			return
		}
		c.allShards(cn, cmdResetAll, resetAllArgv)
	case resp.EqualFold(sub, "rewrite") && len(argv) == 2:
		cn.errorReply(resp.Error("ERR The server is running without a config file"))
	case resp.EqualFold(sub, "help"):
		cn.helpReply(configHelp)
	default:
		cn.errorReply(errUnknownSub(sub, "config"))
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
// all or none), then applies them. Like Redis, the name errors quote the
// name as given, the value errors the canonical one.
func (s *Server) configSet(argv [][]byte) resp.Error {
	var (
		changed []*settings.Setting
		values  []string
	)
	seen := map[string]bool{}
	for i := 2; i < len(argv); i += 2 {
		n := findName(string(argv[i]))
		values = append(values, string(argv[i+1]))
		if n != nil && n.Setting.Sensitive {
			argv[i+1] = redacted
		}
		if n == nil {
			return resp.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + string(argv[i]) + "'")
		}
		if !n.Setting.Mutable {
			return configSetFailed(string(argv[i]), "can't set immutable config")
		}
		if seen[n.Name] {
			return configSetFailed(string(argv[i]), "duplicate parameter")
		}
		seen[n.Name] = true
		changed = append(changed, n.Setting)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	live := s.live
	live.LogLevel = s.LevelVar
	next := s.conf.Clone()
	for i, p := range changed {
		refused := p.Set(&next, values[i])
		if refused == "" && p.Check != nil {
			refused = p.Check(&live, &next)
		}
		if refused != "" {
			return configSetFailed(p.Name, refused)
		}
	}
	s.conf = next
	for _, p := range changed {
		if p.Apply != nil {
			p.Apply(&live, &s.conf)
		}
	}
	return ""
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
	"HELP",
	"    Print this help.",
}
