package settings

import "github.com/corekv/corekv/shardowner/snapshot"

// Config is what a server starts with, every setting of Table in one place.
// The settings CONFIG SET may change are copied into the server's atomics at
// start (Live) and again whenever they change.
type Config struct {
	Port        int
	Bind        []string
	RequirePass string
	MaxClients  int
	Databases   int
	// Shards is the shard count; 0 at start-up means one per CPU of the
	// affinity mask (see cmd/corekv's placement), which then sets it.
	Shards int
	// ShardsGiven is the shard count as given, 0 for the default, which
	// CONFIG REWRITE writes back.
	ShardsGiven int
	// Pin is auto, yes or no: whether shard i is pinned to the i-th CPU of
	// the affinity mask. Start-up turns it into CPUs.
	Pin string
	// CPUs lists the CPUs the shards are pinned to, shard i on CPUs[i %
	// len(CPUs)]; empty means no pinning.
	CPUs     []int
	LogLevel string
	// OutputHardLimit closes a normal client whose pending output exceeds it
	// (client-output-buffer-limit normal hard limit); 0 means no limit, as in
	// Redis, and OutputSafetyCap still applies.
	OutputHardLimit int64
	// OutputLimits is client-output-buffer-limit as CONFIG GET shows it:
	// hard, soft and seconds of the normal, slave and pubsub classes. The
	// normal class's hard limit is OutputHardLimit; the pubsub class applies
	// too, the rest is only kept.
	OutputLimits [3][3]int64
	// OutputSafetyCap bounds every client's pending output whatever the
	// configured limits, so a client that stops reading cannot exhaust memory.
	OutputSafetyCap int64
	// SpinMicros is how long a core keeps polling epoll with a zero timeout
	// after a turn that ran many commands (reactor's spinAfterCommands), before it
	// sleeps; 0 sleeps at once. An idle core never spins.
	SpinMicros int
	// SpinContended keeps the core polling after busy turns while its
	// thread is being preempted; by default it stops (reactor's watchPreemption).
	SpinContended bool
	// Hz is how many times a second each core runs its timers (table upkeep,
	// published statistics), 1 to 500 whatever was asked, as in Redis.
	Hz int
	// EnableDebug is enable-debug-command: "no" refuses DEBUG, "yes" allows
	// it, "local" allows it from 127.0.0.1 and ::1 only.
	EnableDebug string
	// EnableProtected is enable-protected-configs, which gates CONFIG SET
	// of the Protected settings as EnableDebug gates DEBUG.
	EnableProtected string
	// ActiveExpireEffort (1 to 10; 0 means 1) raises the CPU share and the
	// per-turn time active expiry may take while expired keys pile up, as
	// Redis's active-expire-effort does.
	ActiveExpireEffort int
	// SlowlogSlowerThan is slowlog-log-slower-than: commands that run this
	// many microseconds or more enter the slow log; -1 logs none.
	SlowlogSlowerThan int64
	// SlowlogMaxLen is slowlog-max-len: the most entries each shard keeps.
	SlowlogMaxLen int64
	// TrackingMaxKeys is tracking-table-max-keys: the most keys CLIENT
	// TRACKING remembers (0: no bound).
	TrackingMaxKeys int64
	// NoLatencyTracking is latency-tracking no: run times go into no
	// histogram.
	NoLatencyTracking bool
	// LatencyPercentiles is latency-tracking-info-percentiles, the
	// percentiles INFO latencystats shows.
	LatencyPercentiles []float64
	// NotifyClasses is notify-keyspace-events, as shardowner's class bits.
	NotifyClasses int
	// Encoding holds the thresholds of the aggregates' packed encodings,
	// indexed by HashMaxEntries and the constants after it.
	Encoding [encodingCount]int64
	// Pprof is the address net/http/pprof is served on; "" serves nothing.
	Pprof string
	// JournalDir, when set, makes every shard journal its changes to a file
	// of its own there (journal.FileSink).
	JournalDir string
	// SavePoints are save's pairs: a snapshot after so many seconds with
	// so many changes; none, no automatic snapshots.
	SavePoints []snapshot.Point
	// DBFilename and Dir are where snapshots go (dbfilename, dir; Dir
	// absolute). RDBCompression, RDBChecksum and StopWritesOnBgsaveError
	// are rdbcompression, rdbchecksum and stop-writes-on-bgsave-error.
	DBFilename, Dir         string
	RDBCompression          bool
	RDBChecksum             bool
	StopWritesOnBgsaveError bool
	// SanitizeDumpPayload is sanitize-dump-payload (no, yes, clients):
	// shown, while every payload and file is checked whole anyway.
	SanitizeDumpPayload string
	// AppendOnly and the fields after it are the append-only file's
	// settings (shardowner/aof): appendonly, appendfsync, appenddirname,
	// appendfilename, aof-use-rdb-preamble, aof-load-truncated,
	// aof-timestamp-enabled, auto-aof-rewrite-percentage and
	// auto-aof-rewrite-min-size.
	AppendOnly               bool
	AppendFsync              string
	AppendDirname            string
	AppendFilename           string
	AOFUseRDBPreamble        bool
	AOFLoadTruncated         bool
	AOFTimestampEnabled      bool
	AutoAOFRewritePercentage int64
	AutoAOFRewriteMinSize    int64
	// MaxMemory is maxmemory in bytes (0: no limit); MaxMemoryPolicy is
	// maxmemory-policy, a name of shardowner.PolicyNames; the rest are the
	// eviction's and the LFU counters' knobs, as in Redis.
	MaxMemory        int64
	MaxMemoryPolicy  string
	MaxMemorySamples int64
	EvictionTenacity int64
	LFULogFactor     int64
	LFUDecayTime     int64
	// KeyLoadDelay is key-load-delay: µs to sleep per key loaded at start
	// (Redis's, for tests of loading).
	KeyLoadDelay int64
	// BusyReplyThreshold is busy-reply-threshold (lua-time-limit): ms after
	// which a running script is busy and SCRIPT KILL may stop it.
	BusyReplyThreshold int64
	// ConfigFile is the absolute path of the config file the server was
	// started with, which CONFIG REWRITE rewrites; "" when there is none.
	ConfigFile string
	// Ignored holds the redis.conf lines accepted without effect, by
	// setting name, as given.
	Ignored map[string]string
}

// The packed-encoding thresholds of Config.Encoding.
const (
	HashMaxEntries = iota
	HashMaxValue
	SetMaxIntset
	ZSetMaxEntries
	ZSetMaxValue
	HLLSparseMaxBytes
	ListMaxListpack
	ListCompressDepth
	StreamNodeMaxBytes
	StreamNodeMaxEntries
	encodingCount
)

// SlowlogSlowerThanMin is the least slowlog-log-slower-than, as in Redis:
// -1 turns the slow log off.
const SlowlogSlowerThanMin = -1

// DefaultOutputLimits are Redis's client-output-buffer-limit defaults,
// which corekv starts with.
var DefaultOutputLimits = [3][3]int64{{0, 0, 0}, {256 << 20, 64 << 20, 60}, {32 << 20, 8 << 20, 60}}

// Defaults returns the configuration corekv starts with when nothing is
// given.
func Defaults() Config {
	return Config{
		Port:               6379,
		Bind:               []string{"127.0.0.1", "::1"},
		MaxClients:         10000,
		Databases:          16,
		Pin:                "auto",
		LogLevel:           "notice",
		OutputLimits:       DefaultOutputLimits,
		OutputSafetyCap:    1 << 30,
		Hz:                 10,
		SpinMicros:         20,
		EnableDebug:        "no",
		EnableProtected:    "no",
		ActiveExpireEffort: 1,

		SavePoints:              []snapshot.Point{{Seconds: 3600, Changes: 1}, {Seconds: 300, Changes: 100}, {Seconds: 60, Changes: 10000}},
		DBFilename:              "dump.rdb",
		RDBCompression:          true,
		RDBChecksum:             true,
		StopWritesOnBgsaveError: true,
		SanitizeDumpPayload:     "no",

		AppendFsync:              "everysec",
		AppendDirname:            "appendonlydir",
		AppendFilename:           "appendonly.aof",
		AOFUseRDBPreamble:        true,
		AOFLoadTruncated:         true,
		AutoAOFRewritePercentage: 100,
		AutoAOFRewriteMinSize:    64 << 20,

		MaxMemoryPolicy:  "noeviction",
		MaxMemorySamples: 5,
		EvictionTenacity: 10,
		LFULogFactor:     10,
		LFUDecayTime:     1,

		BusyReplyThreshold: 5000,
		SlowlogSlowerThan:  10000,
		SlowlogMaxLen:      128,
		TrackingMaxKeys:    1000000,
		LatencyPercentiles: []float64{50, 99, 99.9},
		Encoding: [encodingCount]int64{HashMaxEntries: 512, HashMaxValue: 64, SetMaxIntset: 512,
			ZSetMaxEntries: 128, ZSetMaxValue: 64, HLLSparseMaxBytes: 3000, ListMaxListpack: -2,
			StreamNodeMaxBytes: 4096, StreamNodeMaxEntries: 100},
	}
}

// Clone returns a copy of c that shares no slice with it, for CONFIG SET to
// change while readers keep the old one.
func (c *Config) Clone() Config {
	d := *c
	d.Bind = append([]string(nil), c.Bind...)
	d.CPUs = append([]int(nil), c.CPUs...)
	d.LatencyPercentiles = append([]float64(nil), c.LatencyPercentiles...)
	d.SavePoints = append([]snapshot.Point(nil), c.SavePoints...)
	if c.Ignored != nil {
		d.Ignored = make(map[string]string, len(c.Ignored))
		for k, v := range c.Ignored {
			d.Ignored[k] = v
		}
	}
	return d
}
