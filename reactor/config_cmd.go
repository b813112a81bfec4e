package reactor

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// configParam is one parameter CONFIG GET and CONFIG SET know.
type configParam struct {
	name string
	get  func(s *Server) string
	// set checks a new value and returns what applies it, or Redis's text
	// for why the value is refused; nil marks an immutable parameter.
	set func(s *Server, v string) (apply func(), refused string)
	// sensitive values are redacted from the slow log, as Redis does.
	sensitive bool
}

// Reasons CONFIG SET gives, in Redis 7's words.
const (
	errNotInteger = "argument couldn't be parsed into an integer"
	errLimitArgs  = "Wrong number of arguments in buffer limit configuration."
	errLimitClass = "Invalid client class specified in buffer limit configuration."
	errLimitValue = "Error in hard, soft or soft_seconds setting in buffer limit configuration."
)

// configParams lists the parameters that exist in corekv, plus the few
// persistence and memory ones clients read and that have one fixed value here.
var configParams = []configParam{
	{name: "port", get: func(s *Server) string { return strconv.Itoa(s.port) }},
	{name: "bind", get: func(s *Server) string { return strings.Join(s.cfg.Bind, " ") }},
	{name: "databases", get: func(s *Server) string { return strconv.Itoa(s.cfg.Databases) }},
	{name: "shards", get: func(s *Server) string { return strconv.Itoa(s.cfg.Shards) }},
	{name: "requirepass", get: func(s *Server) string { return s.requirePass() },
		set:       func(s *Server, v string) (func(), string) { return func() { s.pass.Store(&v) }, "" },
		sensitive: true},
	{name: "maxclients", get: func(s *Server) string { return strconv.FormatInt(s.maxClients.Load(), 10) },
		set: setMaxClients},
	{name: "loglevel", get: func(s *Server) string { s.mu.Lock(); defer s.mu.Unlock(); return s.loglevel },
		set: func(s *Server, v string) (func(), string) {
			v = strings.ToLower(v)
			switch v {
			case "debug", "verbose", "notice", "warning":
				return func() {
					s.mu.Lock()
					s.loglevel = v
					s.mu.Unlock()
					if s.LevelVar != nil {
						s.LevelVar.Set(SlogLevel(v))
					}
				}, ""
			}
			return nil, "argument(s) must be one of the following: debug, verbose, notice, warning"
		}},
	{name: "client-output-buffer-limit", get: getOutputLimit, set: setOutputLimit},
	{name: "notify-keyspace-events", get: func(s *Server) string {
		return shardowner.NotifyClassesString(int(s.events.Classes.Load()))
	}, set: func(s *Server, v string) (func(), string) {
		classes, ok := shardowner.ParseNotifyClasses(v)
		if !ok {
			return nil, "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
		}
		return func() { s.events.Classes.Store(int64(classes)) }, ""
	}},
	{name: "proto-max-bulk-len", get: func(s *Server) string { return strconv.Itoa(resp.MaxBulkLen) }},
	{name: "client-query-buffer-limit", get: func(s *Server) string { return strconv.Itoa(resp.MaxQueryBuffer) }},
	{name: "enable-debug-command", get: func(s *Server) string { return s.cfg.EnableDebug }},
	{name: "hz", get: func(s *Server) string { return strconv.Itoa(int(s.hz.Load())) }, set: setHz},
	{name: "active-expire-effort", get: func(s *Server) string { return strconv.Itoa(int(s.expireEffort.Load())) },
		set: setExpireEffort},
	{name: "timeout", get: func(s *Server) string { return "0" }},
	{name: "save", get: func(s *Server) string { return "" }, set: setSave},
	{name: "appendonly", get: func(s *Server) string { return "no" }, set: setAppendonly},
	{name: "maxmemory", get: func(s *Server) string { return "0" }},
	{name: "maxmemory-policy", get: func(s *Server) string { return "noeviction" }},
	{name: "slowlog-log-slower-than", get: func(s *Server) string { return strconv.FormatInt(s.slowlog.SlowerThan.Load(), 10) },
		set: func(s *Server, v string) (func(), string) {
			n, refused := configInt(v, SlowlogSlowerThanMin, math.MaxInt64)
			return func() { s.slowlog.SlowerThan.Store(n) }, refused
		}},
	{name: "latency-tracking", get: func(s *Server) string { return yesNo(!s.slowlog.NoLatency.Load()) },
		set: func(s *Server, v string) (func(), string) {
			on, refused := configBool(v)
			return func() { s.slowlog.NoLatency.Store(!on) }, refused
		}},
	{name: "latency-tracking-info-percentiles", get: getPercentiles, set: setPercentiles},
	{name: "slowlog-max-len", get: func(s *Server) string { return strconv.FormatInt(s.slowlog.MaxLen.Load(), 10) },
		set: func(s *Server, v string) (func(), string) {
			n, refused := configInt(v, 0, math.MaxInt64)
			return func() { s.slowlog.MaxLen.Store(n) }, refused
		}},
	encodingParam("hash-max-listpack-entries", false, func(s *Server) *atomic.Int64 { return &s.enc.HashMaxEntries }),
	encodingParam("hash-max-ziplist-entries", false, func(s *Server) *atomic.Int64 { return &s.enc.HashMaxEntries }),
	encodingParam("hash-max-listpack-value", true, func(s *Server) *atomic.Int64 { return &s.enc.HashMaxValue }),
	encodingParam("hash-max-ziplist-value", true, func(s *Server) *atomic.Int64 { return &s.enc.HashMaxValue }),
	encodingParam("set-max-intset-entries", false, func(s *Server) *atomic.Int64 { return &s.enc.SetMaxIntset }),
	encodingParam("zset-max-listpack-entries", false, func(s *Server) *atomic.Int64 { return &s.enc.ZSetMaxEntries }),
	encodingParam("zset-max-ziplist-entries", false, func(s *Server) *atomic.Int64 { return &s.enc.ZSetMaxEntries }),
	encodingParam("zset-max-listpack-value", true, func(s *Server) *atomic.Int64 { return &s.enc.ZSetMaxValue }),
	encodingParam("zset-max-ziplist-value", true, func(s *Server) *atomic.Int64 { return &s.enc.ZSetMaxValue }),
	encodingParam("hll-sparse-max-bytes", true, func(s *Server) *atomic.Int64 { return &s.enc.HLLSparseMaxBytes }),
	listParam("list-max-listpack-size", math.MinInt32, func(s *Server) *atomic.Int64 { return &s.enc.ListMaxListpack }),
	listParam("list-max-ziplist-size", math.MinInt32, func(s *Server) *atomic.Int64 { return &s.enc.ListMaxListpack }),
	listParam("list-compress-depth", 0, func(s *Server) *atomic.Int64 { return &s.enc.ListCompressDepth }),
}

// listParam is a list encoding parameter: an int from lo to Redis's int
// maximum.
func listParam(name string, lo int64, field func(s *Server) *atomic.Int64) configParam {
	return configParam{name: name, get: func(s *Server) string { return strconv.FormatInt(field(s).Load(), 10) },
		set: func(s *Server, v string) (func(), string) {
			n, refused := configInt(v, lo, math.MaxInt32)
			return func() { field(s).Store(n) }, refused
		}}
}

// encodingParam is a threshold of an aggregate's packed encoding (the
// ziplist names are Redis's old aliases of the listpack ones); a size in
// bytes takes memory units, as in Redis.
func encodingParam(name string, bytes bool, field func(s *Server) *atomic.Int64) configParam {
	return configParam{name: name, get: func(s *Server) string { return strconv.FormatInt(field(s).Load(), 10) },
		set: func(s *Server, v string) (func(), string) {
			var n int64
			var refused string
			if bytes {
				n, refused = configMemory(v, 0, math.MaxInt64)
			} else {
				n, refused = configInt(v, 0, math.MaxInt64)
			}
			return func() { field(s).Store(n) }, refused
		}}
}

// configMemory reads a size parameter as Redis does: digits with an
// optional unit (ParseMemory), "" meaning 0, a size past int64 out of range.
func configMemory(v string, lo, hi int64) (int64, string) {
	if v == "" {
		v = "0"
	}
	n, err := ParseMemory(v)
	if err != nil {
		return 0, "argument must be a memory value"
	}
	if _, err := strconv.ParseInt(v, 10, 64); n == math.MaxInt64 && err != nil {
		n = -1 // saturated: past the range
	}
	if n < lo || n > hi {
		return 0, "argument must be between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10) + " inclusive"
	}
	return n, ""
}

// configInt reads an integer parameter from lo to hi, with Redis's reasons
// for refusing one.
func configInt(v string, lo, hi int64) (int64, string) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, errNotInteger
	}
	if n < lo || n > hi {
		return 0, "argument must be between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10) + " inclusive"
	}
	return n, ""
}

func setMaxClients(s *Server, v string) (func(), string) {
	n, refused := configInt(v, 1, math.MaxUint32)
	if refused != "" {
		return nil, refused
	}
	if n > s.maxClients.Load() {
		// As in Redis, a value the open file limit cannot hold (once
		// raised as far as it goes) is refused.
		if fit, _ := fitFDLimit(n, reservedFDs(&s.cfg)); fit < n {
			return nil, "The operating system is not able to handle the specified number of clients, try with " +
				strconv.FormatInt(max(fit, 1), 10)
		}
	}
	return func() { s.maxClients.Store(n) }, ""
}

// setHz takes Redis's range for hz; as in Redis, the timer runs at 1 to 500
// times a second whatever the value.
func setHz(s *Server, v string) (func(), string) {
	n, refused := configInt(v, 0, math.MaxInt32)
	if refused != "" {
		return nil, refused
	}
	return func() { s.setHz(int(n)) }, ""
}

// setExpireEffort takes active-expire-effort, 1 to 10.
func setExpireEffort(s *Server, v string) (func(), string) {
	n, refused := configInt(v, 1, 10)
	if refused != "" {
		return nil, refused
	}
	return func() { s.expireEffort.Store(int32(n)) }, ""
}

// setAppendonly accepts "no", what corekv without persistence always is, so
// that clients that switch the AOF off work; "yes" is refused.
func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func configBool(v string) (bool, string) {
	switch strings.ToLower(v) {
	case "yes":
		return true, ""
	case "no":
		return false, ""
	}
	return false, "argument must be 'yes' or 'no'"
}

func getPercentiles(s *Server) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	words := make([]string, len(s.latencyPercentiles))
	for i, p := range s.latencyPercentiles {
		words[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	return strings.Join(words, " ")
}

// setPercentiles takes the percentiles INFO latencystats reports, between 0
// and 100, separated by spaces; none is allowed.
func setPercentiles(s *Server, v string) (func(), string) {
	var ps []float64
	for _, w := range strings.Fields(v) {
		p, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsNaN(p) {
			return nil, "Invalid latency-tracking-info-percentiles parameters"
		}
		if p < 0 || p > 100 {
			return nil, "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		ps = append(ps, p)
	}
	return func() {
		s.mu.Lock()
		s.latencyPercentiles = ps
		s.mu.Unlock()
	}, ""
}

func setAppendonly(s *Server, v string) (func(), string) {
	switch strings.ToLower(v) {
	case "no":
		return func() {}, ""
	case "yes":
		return nil, "corekv has no persistence, so appendonly can only be no"
	}
	return nil, "argument must be 'yes' or 'no'"
}

// setSave accepts "", no snapshots, which is what corekv without
// persistence always does, so that clients and test suites that switch
// snapshots off work; a schedule is refused.
func setSave(s *Server, v string) (func(), string) {
	if strings.TrimSpace(v) == "" {
		return func() {}, ""
	}
	return nil, "corekv has no persistence, so save can only be empty"
}

// outLimitClasses names the classes of Server.outLimits, in order.
var outLimitClasses = [3]string{"normal", "slave", "pubsub"}

// defaultOutLimits are Redis's defaults, which corekv starts with but for
// the normal class's hard limit (Config.OutputHardLimit).
var defaultOutLimits = [3][3]int64{{0, 0, 0}, {256 << 20, 64 << 20, 60}, {32 << 20, 8 << 20, 60}}

func getOutputLimit(s *Server) string {
	s.mu.Lock()
	l := s.outLimits
	l[0][0] = s.outHard.Load()
	s.mu.Unlock()
	var b strings.Builder
	for i, class := range outLimitClasses {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s %d %d %d", class, l[i][0], l[i][1], l[i][2])
	}
	return b.String()
}

// setOutputLimit takes "<class> <hard> <soft> <seconds>" groups, refusing
// them all if one is bad. Every class's values are kept for CONFIG GET; the
// normal class's hard limit and the pubsub class apply in corekv. Like Redis it splits
// the value at each single space, so an empty field (from two spaces in a
// row, or one at an end) counts, and reads as 0.
func setOutputLimit(s *Server, v string) (func(), string) {
	var f []string
	if v != "" {
		f = strings.Split(v, " ")
	}
	if len(f)%4 != 0 {
		return nil, errLimitArgs
	}
	type group struct {
		class  int
		limits [3]int64
	}
	var groups []group
	for i := 0; i < len(f); i += 4 {
		class := -1
		switch strings.ToLower(f[i]) {
		case "normal":
			class = 0
		case "slave", "replica":
			class = 1
		case "pubsub":
			class = 2
		default:
			return nil, errLimitClass
		}
		hard, ok := limitMemory(f[i+1])
		if !ok {
			return nil, errLimitValue
		}
		soft, ok := limitMemory(f[i+2])
		if !ok {
			return nil, errLimitValue
		}
		secs, ok := limitSeconds(f[i+3])
		if !ok {
			return nil, errLimitValue
		}
		groups = append(groups, group{class, [3]int64{hard, soft, secs}})
	}
	return func() {
		s.mu.Lock()
		for _, g := range groups {
			s.outLimits[g.class] = g.limits
			switch g.class {
			case 0:
				s.outHard.Store(g.limits[0])
			case 2:
				s.ps.setLimits(g.limits)
			}
		}
		s.mu.Unlock()
	}, ""
}

// limitMemory reads a buffer limit's size as Redis does: ParseMemory's
// sizes, and a unit without digits (or nothing at all) as 0.
func limitMemory(v string) (int64, bool) {
	switch strings.ToLower(v) {
	case "", "b", "k", "kb", "m", "mb", "g", "gb":
		return 0, true
	}
	n, err := ParseMemory(v)
	return n, err == nil
}

// limitSeconds reads a buffer limit's soft seconds as Redis does: with
// strtoll and nothing left over (leading white space and a sign are
// allowed, an empty field is 0), kept in a C int, which must not be
// negative.
func limitSeconds(v string) (int64, bool) {
	n, end := resp.ParseIntPrefix([]byte(v))
	return int64(int32(n)), end == len(v) && int32(n) >= 0
}

// ParseMemory reads a size with Redis's units (1k, 1kb, 1m, 1mb, 1g, 1gb).
// Like Redis it refuses a sign; a size past what int64 holds is taken as the
// largest one.
func ParseMemory(v string) (int64, error) {
	l := strings.ToLower(v)
	mult := uint64(1)
	for _, u := range []struct {
		suffix string
		mult   uint64
	}{{"kb", 1024}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1000}, {"m", 1000 * 1000}, {"g", 1000 * 1000 * 1000}, {"b", 1}} {
		if strings.HasSuffix(l, u.suffix) {
			mult = u.mult
			l = strings.TrimSuffix(l, u.suffix)
			break
		}
	}
	if l == "" || l[0] < '0' || l[0] > '9' {
		return 0, fmt.Errorf("invalid size %q", v)
	}
	n, err := strconv.ParseUint(l, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, fmt.Errorf("invalid size %q", v)
	}
	if err != nil || n > math.MaxInt64/mult {
		return math.MaxInt64, nil
	}
	return int64(n * mult), nil
}

func (c *Core) config(cn *Conn, argv [][]byte) {
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "get"):
		// As in Redis, a name without glob characters is looked up as is and
		// echoed as the client spelled it; a pattern answers the canonical
		// names. A parameter is answered once, under its first spelling.
		var pairs []string
		seen := map[string]bool{}
		for _, pat := range argv[2:] {
			if bytes.IndexAny(pat, "[*?") < 0 {
				if p := findParam(string(pat)); p != nil && !seen[p.name] {
					seen[p.name] = true
					pairs = append(pairs, string(pat), p.get(c.srv))
				}
				continue
			}
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
	case resp.EqualFold(sub, "set") && len(argv)%2 != 0:
		cn.errorReply(resp.ErrSyntax)
	case resp.EqualFold(sub, "set"):
		// Check every pair first so that a bad one changes nothing: Redis
		// sets all or none. Like Redis, the name errors quote the name as
		// given, the value errors the canonical one.
		var (
			params []*configParam
			values []string
			apply  []func()
		)
		seen := map[*configParam]bool{}
		for i := 2; i < len(argv); i += 2 {
			p := findParam(string(argv[i]))
			values = append(values, string(argv[i+1]))
			if p != nil && p.sensitive {
				argv[i+1] = redacted
			}
			if p == nil {
				cn.errorReply(resp.Error("ERR Unknown option or number of arguments for CONFIG SET - '" + string(argv[i]) + "'"))
				return
			}
			if p.set == nil {
				cn.errorReply(configSetFailed(string(argv[i]), "can't set immutable config"))
				return
			}
			if seen[p] {
				cn.errorReply(configSetFailed(string(argv[i]), "duplicate parameter"))
				return
			}
			seen[p] = true
			params = append(params, p)
		}
		for i, p := range params {
			f, refused := p.set(c.srv, values[i])
			if refused != "" {
				cn.errorReply(configSetFailed(p.name, refused))
				return
			}
			apply = append(apply, f)
		}
		for _, f := range apply {
			f()
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
		cn.errorReply(resp.ErrUnknownSubcommand("config", sub))
	}
}

func configSetFailed(name, why string) resp.Error {
	return resp.Error("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + why)
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
