package reactor

// Config is what a Server starts with. Fields that CONFIG SET may change at
// run time are copied into the Server's atomics at start.
type Config struct {
	Port        int
	Bind        []string
	RequirePass string
	MaxClients  int
	Databases   int
	Shards      int
	// CPUs lists the CPUs the shards are pinned to, shard i on CPUs[i %
	// len(CPUs)]; empty means no pinning.
	CPUs     []int
	LogLevel string
	// OutputHardLimit closes a normal client whose pending output exceeds it
	// (client-output-buffer-limit normal hard limit); 0 means no limit, as in
	// Redis, and OutputSafetyCap still applies.
	OutputHardLimit int64
	// OutputSafetyCap bounds every client's pending output whatever the
	// configured limits, so a client that stops reading cannot exhaust memory.
	OutputSafetyCap int64
	// SpinMicros is how long a core keeps polling epoll with a zero timeout
	// after a turn that ran at least spinAfterCommands commands, before it
	// sleeps; 0 sleeps at once. An idle core never spins.
	SpinMicros int
	// SpinContended keeps the core polling after busy turns while its
	// thread is being preempted; by default it stops (see watchPreemption).
	SpinContended bool
	// Hz is how many times a second each core runs its timers (table upkeep,
	// published statistics); CONFIG SET hz changes it, within 1 to 500.
	Hz int
	// EnableDebug is enable-debug-command: "no" refuses DEBUG, "yes" allows
	// it, "local" allows it from 127.0.0.1 and ::1 only.
	EnableDebug string
	// ActiveExpireEffort (1 to 10; 0 means 1) raises the CPU share and the
	// per-turn time active expiry may take while expired keys pile up, as
	// Redis's active-expire-effort does.
	ActiveExpireEffort int
	// SlowlogSlowerThan is slowlog-log-slower-than: commands that run this
	// many microseconds or more enter the slow log; -1 logs none.
	SlowlogSlowerThan int64
	// SlowlogMaxLen is slowlog-max-len: the most entries each shard keeps.
	SlowlogMaxLen int64
	// JournalDir, when set, makes every shard journal its changes to a file
	// of its own there (journal.FileSink).
	JournalDir string
}

// SlowlogSlowerThanMin is the least slowlog-log-slower-than, as in Redis:
// -1 turns the slow log off.
const SlowlogSlowerThanMin = -1

// Defaults returns the configuration corekv starts with when nothing is
// given.
func Defaults() Config {
	return Config{
		Port:            6379,
		Bind:            []string{"127.0.0.1", "::1"},
		MaxClients:      10000,
		Databases:       16,
		LogLevel:        "notice",
		OutputSafetyCap: 1 << 30,
		Hz:              10,
		SpinMicros:      20,
		EnableDebug:     "no",

		SlowlogSlowerThan: 10000,
		SlowlogMaxLen:     128,
	}
}
