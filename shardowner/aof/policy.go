package aof

import "sync"

// Settings are the append-only file's settings, as redis.conf names them.
type Settings struct {
	On             bool   // appendonly
	Fsync          Fsync  // appendfsync
	Dir, File      string // appenddirname (in dir), appendfilename
	Preamble       bool   // aof-use-rdb-preamble
	LoadTruncated  bool   // aof-load-truncated
	Timestamps     bool   // aof-timestamp-enabled
	RewritePercent int64  // auto-aof-rewrite-percentage
	RewriteMinSize int64  // auto-aof-rewrite-min-size
	DirPath        string // dir/appenddirname, absolute
}

// Policy holds the settings the server runs with; CONFIG SET changes
// them while the shards write. Safe from any goroutine.
type Policy struct {
	mu       sync.Mutex
	v        Settings
	onChange func(old, cur Settings)
}

// Set replaces the settings and tells the server, when it listens.
func (p *Policy) Set(v Settings) {
	p.mu.Lock()
	old, f := p.v, p.onChange
	p.v = v
	p.mu.Unlock()
	if f != nil {
		f(old, v)
	}
}

// Get returns the settings.
func (p *Policy) Get() Settings {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.v
}

// OnChange names what Set calls with the old and new settings.
func (p *Policy) OnChange(f func(old, cur Settings)) {
	p.mu.Lock()
	p.onChange = f
	p.mu.Unlock()
}

// Status is what INFO persistence shows of the append-only file.
type Status struct {
	Enabled            bool
	RewriteInProgress  bool
	RewriteScheduled   bool
	LastRewriteSecs    int64 // -1 before the first
	CurrentRewriteSecs int64 // -1 when none runs
	LastRewriteOK      bool
	Rewrites           int64
	ConsecutiveFails   int64
	LastWriteOK        bool
	CurrentSize        int64 // the base and incremental files
	BaseSize           int64 // the base and incremental files after the last rewrite or start
	DelayedFsync       int64
	PendingFsync       int64
}
