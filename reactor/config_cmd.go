package reactor

import (
	"strconv"
	"strings"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// configParam is one parameter CONFIG GET and CONFIG SET know.
type configParam struct {
	name string
	get  func(s *Server) string
	// set applies a new value; nil marks an immutable parameter.
	set func(s *Server, v string) bool
}

// configParams lists the parameters that exist in corekv, plus the few
// persistence and memory ones clients read and that have one fixed value here.
var configParams = []configParam{
	{name: "port", get: func(s *Server) string { return strconv.Itoa(s.port) }},
	{name: "bind", get: func(s *Server) string { return strings.Join(s.cfg.Bind, " ") }},
	{name: "databases", get: func(s *Server) string { return strconv.Itoa(s.cfg.Databases) }},
	{name: "shards", get: func(s *Server) string { return strconv.Itoa(s.cfg.Shards) }},
	{name: "requirepass", get: func(s *Server) string { return s.requirePass() },
		set: func(s *Server, v string) bool { s.pass.Store(&v); return true }},
	{name: "maxclients", get: func(s *Server) string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		set: func(s *Server, v string) bool {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 1 {
				return false
			}
			s.maxClients.Store(n)
			return true
		}},
	{name: "loglevel", get: func(s *Server) string { s.mu.Lock(); defer s.mu.Unlock(); return s.loglevel },
		set: func(s *Server, v string) bool {
			v = strings.ToLower(v)
			switch v {
			case "debug", "verbose", "notice", "warning", "nothing":
				s.mu.Lock()
				s.loglevel = v
				s.mu.Unlock()
				if s.LevelVar != nil {
					s.LevelVar.Set(SlogLevel(v))
				}
				return true
			}
			return false
		}},
	{name: "client-output-buffer-limit", get: func(s *Server) string {
		return "normal 0 " + strconv.FormatInt(s.outHard.Load(), 10) + " 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60"
	}, set: setOutputLimit},
	{name: "proto-max-bulk-len", get: func(s *Server) string { return strconv.Itoa(resp.MaxBulkLen) }},
	{name: "client-query-buffer-limit", get: func(s *Server) string { return strconv.Itoa(resp.MaxQueryBuffer) }},
	{name: "hz", get: func(s *Server) string { return strconv.Itoa(int(s.hz.Load())) },
		set: func(s *Server, v string) bool {
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil || n < 0 {
				return false
			}
			s.setHz(int(n))
			return true
		}},
	{name: "active-expire-effort", get: func(s *Server) string { return strconv.Itoa(int(s.expireEffort.Load())) },
		set: func(s *Server, v string) bool {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 10 {
				return false
			}
			s.expireEffort.Store(int32(n))
			return true
		}},
	{name: "timeout", get: func(s *Server) string { return "0" }},
	{name: "save", get: func(s *Server) string { return "" }},
	{name: "appendonly", get: func(s *Server) string { return "no" }},
	{name: "maxmemory", get: func(s *Server) string { return "0" }},
	{name: "maxmemory-policy", get: func(s *Server) string { return "noeviction" }},
}

// setOutputLimit takes "normal <hard> <soft> <seconds>" groups; only the
// normal class's hard limit applies in corekv.
func setOutputLimit(s *Server, v string) bool {
	f := strings.Fields(v)
	if len(f) == 0 || len(f)%4 != 0 {
		return false
	}
	for i := 0; i < len(f); i += 4 {
		class := strings.ToLower(f[i])
		if class != "normal" && class != "slave" && class != "replica" && class != "pubsub" {
			return false
		}
		hard, err := ParseMemory(f[i+1])
		if err != nil {
			return false
		}
		if _, err := ParseMemory(f[i+2]); err != nil {
			return false
		}
		if _, err := strconv.Atoi(f[i+3]); err != nil {
			return false
		}
		if class == "normal" {
			s.outHard.Store(hard)
		}
	}
	return true
}

// ParseMemory reads a size with Redis's units (1k, 1kb, 1m, 1mb, 1g, 1gb).
func ParseMemory(v string) (int64, error) {
	l := strings.ToLower(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}} {
		if strings.HasSuffix(l, u.suffix) {
			mult = u.mult
			l = strings.TrimSuffix(l, u.suffix)
			break
		}
	}
	n, err := strconv.ParseInt(l, 10, 64)
	return n * mult, err
}

func (c *Core) config(cn *Conn, argv [][]byte) {
	if !subcommandArityOK(cn, "config", argv) {
		return
	}
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "get") && len(argv) >= 3:
		var pairs []string
		seen := map[string]bool{}
		for _, pat := range argv[2:] {
			for _, p := range configParams {
				if !seen[p.name] && shardowner.MatchGlob(pat, []byte(p.name), true) {
					seen[p.name] = true
					pairs = append(pairs, p.name, p.get(c.srv))
				}
			}
		}
		w := cn.begin()
		w.Map(len(pairs) / 2)
		for _, s := range pairs {
			w.BulkString(s)
		}
		cn.end()
	case resp.EqualFold(sub, "set") && len(argv) >= 4 && len(argv)%2 == 0:
		// Check every pair first so that a bad one changes nothing.
		var todo []*configParam
		for i := 2; i < len(argv); i += 2 {
			p := findParam(string(argv[i]))
			if p == nil {
				cn.errorReply(resp.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + string(argv[i]) + "'"))
				return
			}
			if p.set == nil {
				cn.errorReply(resp.Error("ERR CONFIG SET failed (possibly related to argument '" + p.name + "') - can't set immutable config"))
				return
			}
			todo = append(todo, p)
		}
		for i, p := range todo {
			if !p.set(c.srv, string(argv[3+2*i])) {
				cn.errorReply(resp.Error("ERR CONFIG SET failed (possibly related to argument '" + p.name + "') - argument couldn't be parsed into an integer"))
				return
			}
		}
		cn.okReply()
	case resp.EqualFold(sub, "set"):
		cn.errorReply(resp.ErrWrongArgs("config|set"))
	case resp.EqualFold(sub, "get"):
		cn.errorReply(resp.ErrWrongArgs("config|get"))
	case resp.EqualFold(sub, "resetstat") && len(argv) == 2:
		c.srv.resetStats()
		cn.okReply()
	case resp.EqualFold(sub, "rewrite") && len(argv) == 2:
		cn.errorReply(resp.Error("ERR The server is running without a config file"))
	case resp.EqualFold(sub, "help"):
		cn.helpReply(configHelp)
	default:
		cn.errorReply(errUnknownSub(sub, "config"))
	}
}

func findParam(name string) *configParam {
	name = strings.ToLower(name)
	for i := range configParams {
		if configParams[i].name == name {
			return &configParams[i]
		}
	}
	return nil
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
