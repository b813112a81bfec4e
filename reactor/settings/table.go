// Package settings is corekv's one table of configuration settings: the
// config file, the command-line flags and CONFIG GET/SET all read it, so a
// setting is known, checked (with Redis 7.0's reasons), shown and applied
// the same way wherever it is given.
//
// A value is first stored into a Config (Setting.Set), which is all start-up
// needs; at run time CONFIG SET stores into a copy of the server's Config
// and then makes the change take effect where the cores read it
// (Setting.Apply, through Live).
package settings

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
	"github.com/corekv/corekv/shardowner/aof"
	"github.com/corekv/corekv/shardowner/snapshot"
)

// Setting is one configuration setting.
type Setting struct {
	Name string
	// Aliases are other names of the setting (Redis's ziplist names of the
	// listpack settings); CONFIG GET shows each under the name asked for.
	Aliases []string
	// Multi settings take any number of words in the file and on the
	// command line, joined by single spaces into the one value CONFIG SET
	// would get; the others take exactly one.
	Multi bool
	// Set checks v and stores it in c, or returns Redis's reason for
	// refusing it.
	Set func(c *Config, v string) (refused string)
	// Get shows the value as CONFIG GET does.
	Get func(c *Config) string
	// Mutable settings may be changed by CONFIG SET; the others only at
	// start.
	Mutable bool
	// Check is a further check that only makes sense at run time, of the
	// value next would take over old (nil: none).
	Check func(l *Live, old, next *Config) (refused string)
	// Apply makes c's value take effect where the server reads it at run
	// time (nil: it reads the Config).
	Apply func(l *Live, c *Config)
	// Sensitive values are redacted from the slow log, as Redis does.
	Sensitive bool
	// Hidden settings are left out of CONFIG GET's patterns and answered
	// only when asked for by name, as Redis's hidden configs are: corekv's
	// own start-only settings (which Redis's clients and test suites would
	// otherwise try to CONFIG SET) and the redis.conf lines it ignores.
	Hidden bool
	// Given, where set, is the value CONFIG REWRITE writes instead of
	// Get's: the one start-up was given rather than what it made of it.
	Given func(c *Config) string
	// Quoted values are written within quotes by CONFIG REWRITE, as Redis
	// writes its string settings.
	Quoted bool
	// Protected settings are changed by CONFIG SET only as
	// enable-protected-configs allows (Redis's PROTECTED_CONFIG).
	Protected bool
	// Ignored settings are redis.conf's persistence and daemon settings
	// that corekv has no use for: accepted at start so that an existing
	// file loads, kept as given for CONFIG GET by name, and immutable.
	Ignored bool
}

// Live is where the mutable settings take effect at run time: the atomics
// the cores read, which the server owns.
type Live struct {
	MaxClients *atomic.Int64
	// FitClients returns how many of n clients the open file limit holds
	// once raised as far as it goes.
	FitClients   func(n int64) int64
	Pass         *atomic.Pointer[string]
	OutputHard   *atomic.Int64
	PubsubLimits func(l [3]int64)
	Hz           *atomic.Int32
	ExpireEffort *atomic.Int32
	// LogLevel may be nil: the log level is then not changed.
	LogLevel *slog.LevelVar
	Slowlog  *shardowner.SlowlogConfig
	Enc      *shardowner.EncodingConfig
	Events   *shardowner.NotifyConfig
	// Persist is the snapshot settings the saver reads; nil: none.
	Persist *snapshot.Policy
	// KeyLoadDelay is key-load-delay.
	KeyLoadDelay *atomic.Int64
	// ScriptBusyAfter is busy-reply-threshold; nil: not applied.
	ScriptBusyAfter *atomic.Int64
	// AOF is the append-only file's settings; nil: none.
	AOF *aof.Policy
	// Memory is maxmemory and the eviction's settings; nil: none.
	Memory *shardowner.MemoryConfig
	// TrackingMaxKeys is tracking-table-max-keys; nil: not applied.
	TrackingMaxKeys *atomic.Int64
}

// applyMemory copies the memory settings into what the shards read.
func applyMemory(l *Live, c *Config) {
	m := l.Memory
	if m == nil {
		return
	}
	m.MaxMemory.Store(c.MaxMemory)
	for i, name := range shardowner.PolicyNames {
		if name == c.MaxMemoryPolicy {
			m.Policy.Store(int32(i))
		}
	}
	m.Samples.Store(int32(c.MaxMemorySamples))
	m.Tenacity.Store(int32(c.EvictionTenacity))
	m.LFULogFactor.Store(int32(c.LFULogFactor))
	m.LFUDecayTime.Store(int32(c.LFUDecayTime))
	m.Gen.Add(1)
}

// ApplyAll makes every setting of c take effect, as at start.
func (l *Live) ApplyAll(c *Config) {
	for i := range Table {
		if Table[i].Apply != nil {
			Table[i].Apply(l, c)
		}
	}
}

// Reasons for refusing a value, in Redis 7's words.
const (
	ErrNotInteger = "argument couldn't be parsed into an integer"
	ErrNotMemory  = "argument must be a memory value"
	ErrNotBool    = "argument must be 'yes' or 'no'"
	ErrLimitArgs  = "Wrong number of arguments in buffer limit configuration."
	ErrLimitClass = "Invalid client class specified in buffer limit configuration."
	ErrLimitValue = "Error in hard, soft or soft_seconds setting in buffer limit configuration."
)

// Table lists every setting corekv knows: those it has, those of Redis that
// have one fixed value here (which clients read), and the redis.conf lines
// it accepts without effect.
var Table = []Setting{
	// port and bind are mutable in Redis; corekv's cores listen from the
	// start, so CONFIG SET takes only the value they already have.
	{Name: "port", Mutable: true, Get: getPort,
		Set:   intSetting(0, 65535, func(c *Config, n int64) { c.Port = int(n) }),
		Check: startValue("port", getPort)},
	{Name: "bind", Multi: true, Mutable: true, Get: getBind,
		Check: startValue("bind", getBind),
		Set: func(c *Config, v string) string {
			f := strings.Fields(v)
			if len(f) == 0 {
				return "corekv needs an address to listen on"
			}
			c.Bind = f
			return ""
		}},
	{Name: "databases", Get: func(c *Config) string { return strconv.Itoa(c.Databases) },
		Set: intSetting(1, 256, func(c *Config, n int64) { c.Databases = int(n) })},
	{Name: "shards", Hidden: true, Get: func(c *Config) string { return strconv.Itoa(c.Shards) },
		Given: func(c *Config) string { return strconv.Itoa(c.ShardsGiven) },
		Set:   intSetting(0, 1024, func(c *Config, n int64) { c.Shards = int(n) })},
	{Name: "pin", Hidden: true, Get: func(c *Config) string { return c.Pin },
		Set: enumSetting(func(c *Config, v string) { c.Pin = v }, "auto", "yes", "no")},
	{Name: "requirepass", Mutable: true, Sensitive: true, Quoted: true, Get: func(c *Config) string { return c.RequirePass },
		Set:   func(c *Config, v string) string { c.RequirePass = v; return "" },
		Apply: func(l *Live, c *Config) { p := c.RequirePass; l.Pass.Store(&p) }},
	{Name: "maxclients", Mutable: true, Get: func(c *Config) string { return strconv.Itoa(c.MaxClients) },
		Set:   intSetting(1, math.MaxUint32, func(c *Config, n int64) { c.MaxClients = int(n) }),
		Check: checkMaxClients,
		Apply: func(l *Live, c *Config) { l.MaxClients.Store(int64(c.MaxClients)) }},
	{Name: "loglevel", Mutable: true, Get: func(c *Config) string { return c.LogLevel },
		Set: enumSetting(func(c *Config, v string) { c.LogLevel = v }, "debug", "verbose", "notice", "warning"),
		Apply: func(l *Live, c *Config) {
			if l.LogLevel != nil {
				l.LogLevel.Set(SlogLevel(c.LogLevel))
			}
		}},
	{Name: "client-output-buffer-limit", Multi: true, Mutable: true, Get: getOutputLimit, Set: setOutputLimit,
		Apply: func(l *Live, c *Config) {
			l.OutputHard.Store(c.OutputHardLimit)
			l.PubsubLimits(c.OutputLimits[2])
		}},
	{Name: "output-safety-cap", Hidden: true, Get: func(c *Config) string { return strconv.FormatInt(c.OutputSafetyCap, 10) },
		Set: memorySetting(0, math.MaxInt64, func(c *Config, n int64) { c.OutputSafetyCap = n })},
	{Name: "notify-keyspace-events", Mutable: true, Quoted: true,
		Get: func(c *Config) string { return shardowner.NotifyClassesString(c.NotifyClasses) },
		Set: func(c *Config, v string) string {
			classes, ok := shardowner.ParseNotifyClasses(v)
			if !ok {
				return "Invalid event class character. Use 'Ag$lshzxeKEtmdn'."
			}
			c.NotifyClasses = classes
			return ""
		},
		Apply: func(l *Live, c *Config) { l.Events.Classes.Store(int64(c.NotifyClasses)) }},
	fixed("proto-max-bulk-len", strconv.Itoa(resp.MaxBulkLen)),
	fixed("client-query-buffer-limit", strconv.Itoa(resp.MaxQueryBuffer)),
	{Name: "enable-debug-command", Get: func(c *Config) string { return c.EnableDebug },
		Set: enumSetting(func(c *Config, v string) { c.EnableDebug = v }, "no", "yes", "local")},
	{Name: "enable-protected-configs", Get: func(c *Config) string { return c.EnableProtected },
		Set: enumSetting(func(c *Config, v string) { c.EnableProtected = v }, "no", "yes", "local")},
	{Name: "hz", Mutable: true, Get: func(c *Config) string { return strconv.Itoa(c.Hz) },
		// As in Redis, the timer runs 1 to 500 times a second whatever the
		// value, and CONFIG GET shows what it runs at.
		Set:   intSetting(0, math.MaxInt32, func(c *Config, n int64) { c.Hz = int(min(max(n, 1), 500)) }),
		Apply: func(l *Live, c *Config) { l.Hz.Store(int32(min(max(c.Hz, 1), 500))) }},
	{Name: "active-expire-effort", Mutable: true, Get: func(c *Config) string { return strconv.Itoa(c.ActiveExpireEffort) },
		Set:   intSetting(1, 10, func(c *Config, n int64) { c.ActiveExpireEffort = int(n) }),
		Apply: func(l *Live, c *Config) { l.ExpireEffort.Store(int32(min(max(c.ActiveExpireEffort, 1), 10))) }},
	{Name: "spin", Hidden: true, Get: func(c *Config) string { return strconv.Itoa(c.SpinMicros) },
		Set: intSetting(0, math.MaxInt32, func(c *Config, n int64) { c.SpinMicros = int(n) })},
	{Name: "spin-contended", Hidden: true, Get: func(c *Config) string { return yesNo(c.SpinContended) },
		Set: boolSetting(func(c *Config, b bool) { c.SpinContended = b })},
	fixed("timeout", "0"),
	// Snapshots (shardowner/snapshot): where they go, how they are
	// written, and when they are taken by themselves.
	{Name: "save", Multi: true, Mutable: true, Get: func(c *Config) string { return snapshot.FormatPoints(c.SavePoints) },
		Set: func(c *Config, v string) string {
			ps, refused := snapshot.ParsePoints(v)
			if refused == "" {
				c.SavePoints = ps
			}
			return refused
		},
		Apply: applyPersist},
	{Name: "dbfilename", Mutable: true, Protected: true, Quoted: true, Get: func(c *Config) string { return c.DBFilename },
		Set: func(c *Config, v string) string {
			if v != filepath.Base(v) || v == "" || v == "." || v == ".." {
				return "dbfilename can't be a path, just a filename"
			}
			c.DBFilename = v
			return ""
		},
		Apply: applyPersist},
	{Name: "dir", Mutable: true, Protected: true, Quoted: true, Get: getDir, Set: setDir, Check: checkDir, Apply: applyPersist},
	{Name: "rdbcompression", Mutable: true, Get: func(c *Config) string { return yesNo(c.RDBCompression) },
		Set: boolSetting(func(c *Config, b bool) { c.RDBCompression = b }), Apply: applyPersist},
	{Name: "rdbchecksum", Get: func(c *Config) string { return yesNo(c.RDBChecksum) },
		Set: boolSetting(func(c *Config, b bool) { c.RDBChecksum = b }), Apply: applyPersist},
	// RESTORE and loading check every nested encoding whole whatever this
	// says (shardowner/rdb.go); it is kept and shown for Redis's clients.
	{Name: "sanitize-dump-payload", Mutable: true, Get: func(c *Config) string { return c.SanitizeDumpPayload },
		Set: enumSetting(func(c *Config, v string) { c.SanitizeDumpPayload = v }, "no", "yes", "clients")},
	{Name: "stop-writes-on-bgsave-error", Mutable: true, Get: func(c *Config) string { return yesNo(c.StopWritesOnBgsaveError) },
		Set: boolSetting(func(c *Config, b bool) { c.StopWritesOnBgsaveError = b }), Apply: applyPersist},
	// The append-only file (shardowner/aof).
	{Name: "appendonly", Mutable: true, Get: func(c *Config) string { return yesNo(c.AppendOnly) },
		Set: boolSetting(func(c *Config, b bool) { c.AppendOnly = b }), Apply: applyAOF},
	{Name: "appendfsync", Mutable: true, Get: func(c *Config) string { return c.AppendFsync },
		Set: enumSetting(func(c *Config, v string) { c.AppendFsync = v }, "always", "everysec", "no"), Apply: applyAOF},
	{Name: "appenddirname", Quoted: true, Get: func(c *Config) string { return c.AppendDirname },
		Set: func(c *Config, v string) string {
			if v != filepath.Base(v) || v == "" || v == "." || v == ".." {
				return "appenddirname can't be a path, just a dirname"
			}
			c.AppendDirname = v
			return ""
		}},
	{Name: "appendfilename", Quoted: true, Get: func(c *Config) string { return c.AppendFilename },
		Set: func(c *Config, v string) string {
			if v != filepath.Base(v) || v == "" || v == "." || v == ".." {
				return "appendfilename can't be a path, just a filename"
			}
			c.AppendFilename = v
			return ""
		}},
	{Name: "aof-use-rdb-preamble", Mutable: true, Get: func(c *Config) string { return yesNo(c.AOFUseRDBPreamble) },
		Set: boolSetting(func(c *Config, b bool) { c.AOFUseRDBPreamble = b }), Apply: applyAOF},
	{Name: "aof-load-truncated", Mutable: true, Get: func(c *Config) string { return yesNo(c.AOFLoadTruncated) },
		Set: boolSetting(func(c *Config, b bool) { c.AOFLoadTruncated = b }), Apply: applyAOF},
	{Name: "aof-timestamp-enabled", Mutable: true, Get: func(c *Config) string { return yesNo(c.AOFTimestampEnabled) },
		Set: boolSetting(func(c *Config, b bool) { c.AOFTimestampEnabled = b }), Apply: applyAOF},
	{Name: "auto-aof-rewrite-percentage", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.AutoAOFRewritePercentage, 10) },
		Set: intSetting(0, math.MaxInt32, func(c *Config, n int64) { c.AutoAOFRewritePercentage = n }), Apply: applyAOF},
	{Name: "auto-aof-rewrite-min-size", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.AutoAOFRewriteMinSize, 10) },
		Set: memorySetting(0, math.MaxInt64, func(c *Config, n int64) { c.AutoAOFRewriteMinSize = n }), Apply: applyAOF},
	{Name: "maxmemory", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.MaxMemory, 10) },
		Set: memorySetting(0, math.MaxInt64, func(c *Config, n int64) { c.MaxMemory = n }), Apply: applyMemory},
	{Name: "maxmemory-policy", Mutable: true, Get: func(c *Config) string { return c.MaxMemoryPolicy },
		Set: enumSetting(func(c *Config, v string) { c.MaxMemoryPolicy = v }, shardowner.PolicyNames...), Apply: applyMemory},
	{Name: "maxmemory-samples", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.MaxMemorySamples, 10) },
		Set: intSetting(1, math.MaxInt32, func(c *Config, n int64) { c.MaxMemorySamples = n }), Apply: applyMemory},
	{Name: "maxmemory-eviction-tenacity", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.EvictionTenacity, 10) },
		Set: intSetting(0, 100, func(c *Config, n int64) { c.EvictionTenacity = n }), Apply: applyMemory},
	{Name: "lfu-log-factor", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.LFULogFactor, 10) },
		Set: intSetting(0, math.MaxInt32, func(c *Config, n int64) { c.LFULogFactor = n }), Apply: applyMemory},
	{Name: "lfu-decay-time", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.LFUDecayTime, 10) },
		Set: intSetting(0, math.MaxInt32, func(c *Config, n int64) { c.LFUDecayTime = n }), Apply: applyMemory},
	fixed("maxmemory-clients", "0"),
	// A master with no replicas, which Redis's CONFIG SET cannot change.
	{Name: "replicaof", Aliases: []string{"slaveof"}, Multi: true, Get: func(*Config) string { return "" },
		Set: func(_ *Config, v string) string {
			if v != "" {
				return "corekv has no replication"
			}
			return ""
		}},
	// Redis's hidden delay per key loaded, in µs, for its tests: the
	// loading at start sleeps so long per key, off the shard threads.
	{Name: "key-load-delay", Hidden: true, Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.KeyLoadDelay, 10) },
		Set:   intSetting(math.MinInt32, math.MaxInt32, func(c *Config, n int64) { c.KeyLoadDelay = n }),
		Apply: func(l *Live, c *Config) { l.KeyLoadDelay.Store(c.KeyLoadDelay) }},
	{Name: "busy-reply-threshold", Aliases: []string{"lua-time-limit"}, Mutable: true,
		Get: func(c *Config) string { return strconv.FormatInt(c.BusyReplyThreshold, 10) },
		Set: intSetting(0, math.MaxInt64, func(c *Config, n int64) { c.BusyReplyThreshold = n }),
		Apply: func(l *Live, c *Config) {
			if l.ScriptBusyAfter != nil {
				l.ScriptBusyAfter.Store(c.BusyReplyThreshold)
			}
		}},
	{Name: "slowlog-log-slower-than", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.SlowlogSlowerThan, 10) },
		Set:   intSetting(SlowlogSlowerThanMin, math.MaxInt64, func(c *Config, n int64) { c.SlowlogSlowerThan = n }),
		Apply: func(l *Live, c *Config) { l.Slowlog.SlowerThan.Store(c.SlowlogSlowerThan) }},
	{Name: "latency-tracking", Mutable: true, Get: func(c *Config) string { return yesNo(!c.NoLatencyTracking) },
		Set:   boolSetting(func(c *Config, b bool) { c.NoLatencyTracking = !b }),
		Apply: func(l *Live, c *Config) { l.Slowlog.NoLatency.Store(c.NoLatencyTracking) }},
	{Name: "latency-tracking-info-percentiles", Multi: true, Mutable: true, Get: getPercentiles, Set: setPercentiles},
	{Name: "tracking-table-max-keys", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.TrackingMaxKeys, 10) },
		Set: intSetting(0, math.MaxInt64, func(c *Config, n int64) { c.TrackingMaxKeys = n }),
		Apply: func(l *Live, c *Config) {
			if l.TrackingMaxKeys != nil {
				l.TrackingMaxKeys.Store(c.TrackingMaxKeys)
			}
		}},
	{Name: "slowlog-max-len", Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.SlowlogMaxLen, 10) },
		Set:   intSetting(0, math.MaxInt64, func(c *Config, n int64) { c.SlowlogMaxLen = n }),
		Apply: func(l *Live, c *Config) { l.Slowlog.MaxLen.Store(c.SlowlogMaxLen) }},
	encoding("hash-max-listpack-entries", "hash-max-ziplist-entries", HashMaxEntries, false),
	encoding("hash-max-listpack-value", "hash-max-ziplist-value", HashMaxValue, true),
	encoding("set-max-intset-entries", "", SetMaxIntset, false),
	encoding("zset-max-listpack-entries", "zset-max-ziplist-entries", ZSetMaxEntries, false),
	encoding("zset-max-listpack-value", "zset-max-ziplist-value", ZSetMaxValue, true),
	encoding("hll-sparse-max-bytes", "", HLLSparseMaxBytes, true),
	encoding("list-max-listpack-size", "list-max-ziplist-size", ListMaxListpack, false),
	encoding("list-compress-depth", "", ListCompressDepth, false),
	encoding("stream-node-max-bytes", "", StreamNodeMaxBytes, true),
	encoding("stream-node-max-entries", "", StreamNodeMaxEntries, false),
	{Name: "pprof", Hidden: true, Quoted: true, Get: func(c *Config) string { return c.Pprof },
		Set: func(c *Config, v string) string { c.Pprof = v; return "" }},
	{Name: "journal-dir", Hidden: true, Quoted: true, Get: func(c *Config) string { return c.JournalDir },
		Set: func(c *Config, v string) string { c.JournalDir = v; return "" }},
	ignored("protected-mode", "yes"), ignored("daemonize", "no"), quoted(ignored("logfile", "")), ignored("tcp-keepalive", "300"),
}

// Find returns the setting called name, by its name or an alias, in any
// case, or nil.
func Find(name string) *Setting {
	for i := range Table {
		s := &Table[i]
		if strings.EqualFold(s.Name, name) {
			return s
		}
		for _, a := range s.Aliases {
			if strings.EqualFold(a, name) {
				return s
			}
		}
	}
	return nil
}

// Names lists every name CONFIG knows, aliases included, each with its
// setting, in table order; CONFIG GET matches a pattern against those that
// are not Hidden.
func Names() []Name { return names }

// Name is one spelling of a setting.
type Name struct {
	Name    string
	Setting *Setting
}

var names = func() []Name {
	var out []Name
	for i := range Table {
		s := &Table[i]
		out = append(out, Name{s.Name, s})
		for _, a := range s.Aliases {
			out = append(out, Name{a, s})
		}
	}
	return out
}()

func intSetting(lo, hi int64, store func(c *Config, n int64)) func(*Config, string) string {
	return func(c *Config, v string) string {
		n, refused := ParseInt(v, lo, hi)
		if refused == "" {
			store(c, n)
		}
		return refused
	}
}

func memorySetting(lo, hi int64, store func(c *Config, n int64)) func(*Config, string) string {
	return func(c *Config, v string) string {
		n, refused := parseMemorySetting(v, lo, hi)
		if refused == "" {
			store(c, n)
		}
		return refused
	}
}

func boolSetting(store func(c *Config, b bool)) func(*Config, string) string {
	return func(c *Config, v string) string {
		switch strings.ToLower(v) {
		case "yes":
			store(c, true)
		case "no":
			store(c, false)
		default:
			return ErrNotBool
		}
		return ""
	}
}

// enumSetting takes one of words, in any case, stored in lower case.
func enumSetting(store func(c *Config, v string), words ...string) func(*Config, string) string {
	return func(c *Config, v string) string {
		v = strings.ToLower(v)
		for _, w := range words {
			if v == w {
				store(c, v)
				return ""
			}
		}
		return "argument(s) must be one of the following: " + strings.Join(words, ", ")
	}
}

// fixed is a Redis setting that has one value in corekv, shown for the
// clients that read it; CONFIG SET takes that value and refuses any other.
func fixed(name, value string) Setting {
	return Setting{Name: name, Mutable: true, Get: func(*Config) string { return value },
		Set: func(_ *Config, v string) string {
			if v != value {
				return "corekv has no other " + name + " than " + strconv.Quote(value)
			}
			return ""
		}}
}

// ignored is a redis.conf line corekv accepts and does nothing with;
// CONFIG GET by name shows what was given, or Redis's default.
func ignored(name, def string) Setting {
	return Setting{Name: name, Multi: true, Ignored: true, Hidden: true,
		Get: func(c *Config) string {
			if v, ok := c.Ignored[name]; ok {
				return v
			}
			return def
		},
		Set: func(c *Config, v string) string {
			if c.Ignored == nil {
				c.Ignored = map[string]string{}
			}
			c.Ignored[name] = v
			return ""
		}}
}

func getPort(c *Config) string { return strconv.Itoa(c.Port) }
func getBind(c *Config) string { return strings.Join(c.Bind, " ") }

func protected(s Setting) Setting {
	s.Protected, s.Mutable = true, true
	return s
}

// getDir shows dir as Redis does, absolute; by default the working
// directory.
func getDir(c *Config) string {
	if c.Dir != "" {
		return c.Dir
	}
	wd, _ := os.Getwd()
	return wd
}

func setDir(c *Config, v string) string {
	if abs, err := filepath.Abs(v); err == nil {
		v = abs
	}
	c.Dir = v
	return ""
}

// applyPersist hands the snapshot settings to the saver.
func applyPersist(l *Live, c *Config) {
	if l.Persist != nil {
		l.Persist.Set(snapshot.PolicyValues{Points: c.SavePoints, Dir: getDir(c), File: c.DBFilename,
			Compress: c.RDBCompression, Check: c.RDBChecksum, StopWritesOnError: c.StopWritesOnBgsaveError})
	}
}

func applyAOF(l *Live, c *Config) {
	if l.AOF == nil {
		return
	}
	fsync, _ := aof.ParseFsync(c.AppendFsync)
	l.AOF.Set(aof.Settings{On: c.AppendOnly, Fsync: fsync, Dir: c.AppendDirname, File: c.AppendFilename,
		Preamble: c.AOFUseRDBPreamble, LoadTruncated: c.AOFLoadTruncated, Timestamps: c.AOFTimestampEnabled,
		RewritePercent: c.AutoAOFRewritePercentage, RewriteMinSize: c.AutoAOFRewriteMinSize,
		DirPath: filepath.Join(getDir(c), c.AppendDirname)})
}

// checkDir refuses, as Redis's chdir does, a dir that is not one, with the
// C library's words.
func checkDir(_ *Live, _, next *Config) string {
	fi, err := os.Stat(getDir(next))
	switch {
	case err != nil:
		return Strerror(err)
	case !fi.IsDir():
		return "Not a directory"
	}
	return ""
}

func quoted(s Setting) Setting {
	s.Quoted = true
	return s
}

func hidden(s Setting) Setting {
	s.Hidden = true
	return s
}

// startValue refuses, at run time, any value but the one the server runs
// with, for the settings Redis changes live and corekv sets only at start.
func startValue(name string, get func(c *Config) string) func(*Live, *Config, *Config) string {
	return func(_ *Live, old, next *Config) string {
		if get(old) != get(next) {
			return "corekv sets " + name + " only at start"
		}
		return ""
	}
}

// encoding is a threshold of an aggregate's packed encoding, under its
// listpack name and Redis's older ziplist alias; a size in bytes takes memory
// units, as in Redis, and the list settings Redis's int range.
func encoding(name, alias string, field int, bytes bool) Setting {
	s := Setting{Name: name, Mutable: true, Get: func(c *Config) string { return strconv.FormatInt(c.Encoding[field], 10) },
		Apply: func(l *Live, c *Config) { encodingField(l.Enc, field).Store(c.Encoding[field]) }}
	store := func(c *Config, n int64) { c.Encoding[field] = n }
	switch {
	case field == ListMaxListpack:
		s.Set = intSetting(math.MinInt32, math.MaxInt32, store)
	case field == ListCompressDepth:
		s.Set = intSetting(0, math.MaxInt32, store)
	case bytes:
		s.Set = memorySetting(0, math.MaxInt64, store)
	default:
		s.Set = intSetting(0, math.MaxInt64, store)
	}
	if alias != "" {
		s.Aliases = []string{alias}
	}
	return s
}

func encodingField(e *shardowner.EncodingConfig, field int) *atomic.Int64 {
	return [encodingCount]*atomic.Int64{HashMaxEntries: &e.HashMaxEntries, HashMaxValue: &e.HashMaxValue,
		SetMaxIntset: &e.SetMaxIntset, ZSetMaxEntries: &e.ZSetMaxEntries, ZSetMaxValue: &e.ZSetMaxValue,
		HLLSparseMaxBytes: &e.HLLSparseMaxBytes, ListMaxListpack: &e.ListMaxListpack,
		ListCompressDepth: &e.ListCompressDepth, StreamNodeMaxBytes: &e.StreamNodeMaxBytes,
		StreamNodeMaxEntries: &e.StreamNodeMaxEntries}[field]
}

// checkMaxClients refuses, as Redis does, a maxclients above the current one
// that the open file limit cannot hold once raised as far as it goes.
func checkMaxClients(l *Live, _, c *Config) string {
	n := int64(c.MaxClients)
	if n <= l.MaxClients.Load() {
		return ""
	}
	if fit := l.FitClients(n); fit < n {
		return "The operating system is not able to handle the specified number of clients, try with " +
			strconv.FormatInt(max(fit, 1), 10)
	}
	return ""
}

// ParseInt reads an integer setting from lo to hi, with Redis's reasons for
// refusing one.
func ParseInt(v string, lo, hi int64) (int64, string) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, ErrNotInteger
	}
	if n < lo || n > hi {
		return 0, outOfRange(lo, hi)
	}
	return n, ""
}

func outOfRange(lo, hi int64) string {
	return "argument must be between " + strconv.FormatInt(lo, 10) + " and " + strconv.FormatInt(hi, 10) + " inclusive"
}

// parseMemorySetting reads a size setting as Redis does: digits with an
// optional unit (ParseMemory), "" meaning 0, a size past int64 out of range.
func parseMemorySetting(v string, lo, hi int64) (int64, string) {
	if v == "" {
		v = "0"
	}
	n, err := ParseMemory(v)
	if err != nil {
		return 0, ErrNotMemory
	}
	if _, err := strconv.ParseInt(v, 10, 64); n == math.MaxInt64 && err != nil {
		n = -1 // saturated: past the range
	}
	if n < lo || n > hi {
		return 0, outOfRange(lo, hi)
	}
	return n, ""
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func getPercentiles(c *Config) string {
	words := make([]string, len(c.LatencyPercentiles))
	for i, p := range c.LatencyPercentiles {
		words[i] = strconv.FormatFloat(p, 'f', -1, 64)
	}
	return strings.Join(words, " ")
}

// setPercentiles takes the percentiles INFO latencystats reports, between 0
// and 100, separated by spaces; none is allowed.
func setPercentiles(c *Config, v string) string {
	var ps []float64
	for _, w := range strings.Fields(v) {
		p, err := strconv.ParseFloat(w, 64)
		if err != nil || math.IsNaN(p) {
			return "Invalid latency-tracking-info-percentiles parameters"
		}
		if p < 0 || p > 100 {
			return "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]"
		}
		ps = append(ps, p)
	}
	c.LatencyPercentiles = ps
	return ""
}

// outLimitClasses names the classes of Config.OutputLimits, in order.
var outLimitClasses = [3]string{"normal", "slave", "pubsub"}

func getOutputLimit(c *Config) string {
	l := c.OutputLimits
	l[0][0] = c.OutputHardLimit
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
// them all if one is bad. Like Redis it splits the value at each single
// space, so an empty field (from two spaces in a row, or one at an end)
// counts, and reads as 0.
func setOutputLimit(c *Config, v string) string {
	var f []string
	if v != "" {
		f = strings.Split(v, " ")
	}
	if len(f)%4 != 0 {
		return ErrLimitArgs
	}
	limits := c.OutputLimits
	limits[0][0] = c.OutputHardLimit
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
			return ErrLimitClass
		}
		hard, ok := limitMemory(f[i+1])
		if !ok {
			return ErrLimitValue
		}
		soft, ok := limitMemory(f[i+2])
		if !ok {
			return ErrLimitValue
		}
		secs, ok := limitSeconds(f[i+3])
		if !ok {
			return ErrLimitValue
		}
		limits[class] = [3]int64{hard, soft, secs}
	}
	c.OutputLimits = limits
	c.OutputHardLimit = limits[0][0]
	return ""
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

// SlogLevel maps Redis's log levels onto slog's.
func SlogLevel(level string) slog.Level {
	switch level {
	case "debug", "verbose":
		return slog.LevelDebug
	case "warning":
		return slog.LevelWarn
	case "nothing":
		return slog.LevelError + 4
	}
	return slog.LevelInfo
}

// Store is a running server's configuration: what CONFIG GET shows and
// CONFIG SET changes, and where the changes take effect.
type Store struct {
	mu   sync.Mutex
	conf Config
	live Live
}

// NewStore keeps c and makes every setting of it take effect through live.
func NewStore(c *Config, live Live) *Store {
	s := &Store{conf: c.Clone(), live: live}
	live.ApplyAll(&s.conf)
	return s
}

// View calls f with the configuration, which it must not keep or change.
func (s *Store) View(f func(c *Config)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.conf)
}

// Change calls f with the configuration and a copy of it to change; unless f
// refuses, the copy becomes the configuration and each setting f names in
// changed takes effect.
func (s *Store) Change(f func(old, next *Config, live *Live) (changed []*Setting, refused bool)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := s.conf.Clone()
	changed, refused := f(&s.conf, &next, &s.live)
	if refused {
		return
	}
	s.conf = next
	for _, p := range changed {
		if p.Apply != nil {
			p.Apply(&s.live, &s.conf)
		}
	}
}

// SetLogLevel names the log level loglevel changes.
func (s *Store) SetLogLevel(v *slog.LevelVar) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live.LogLevel = v
}
