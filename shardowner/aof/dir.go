package aof

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Dir is an append-only directory while the file is on: its manifest and
// the steps of a rewrite. A rewrite without fork: new incremental files
// are made and named after the old ones in the manifest first (so that a
// crash meanwhile loses nothing), the server cuts every shard at one
// instant for a snapshot into the new base, each shard switching to its
// new file at the cut (CutFile), and once the base is in place EndRewrite
// puts a manifest of the new base and files over the old one and deletes
// the old files. Safe from any goroutine.
type Dir struct {
	Path, Prefix string

	mu  sync.Mutex
	man *Manifest
	rw  rewrite
}

// rewrite is a Dir's rewrite state and history, under mu.
type rewrite struct {
	running      bool
	id           uint64 // the cut's snapshot id
	base         FileInfo
	set          []FileInfo
	start        time.Time
	scheduled    bool
	switchFailed bool // a shard went on in its old file at the cut
	// stale: the manifest does not lead to the dataset the shards append
	// to (a rewrite that turned the file on has not put its own in
	// place yet), so a rewrite leaves it alone until its end.
	stale bool
	// unnamed are files of failed rewrites that no manifest names (made
	// while stale), deleted by the next rewrite that succeeds.
	unnamed []FileInfo

	lastSecs    int64
	lastOK      bool
	rewrites    int64
	fails       int64
	baseSize    int64 // the files' size after the last rewrite (or the start)
	lastAttempt time.Time
}

// ErrRewriteRunning refuses a rewrite while one runs.
var ErrRewriteRunning = errors.New("Background append only file rewriting already in progress")

// OffStatus is what INFO persistence shows while the file is off.
func OffStatus() Status {
	return Status{LastRewriteSecs: -1, CurrentRewriteSecs: -1, LastRewriteOK: true, LastWriteOK: true}
}

// OpenDir reads the manifest of path for prefix, or makes the directory
// when there is none: Fresh then reports true, and the caller writes the
// empty base NewBase names.
func OpenDir(path, prefix string) (*Dir, error) {
	d := &Dir{Path: path, Prefix: prefix}
	m, err := ReadManifest(path, prefix)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, fmt.Errorf("can't open or create append-only dir %s: %w", path, err)
		}
		m = &Manifest{}
	case err != nil:
		return nil, fmt.Errorf("reading the AOF manifest: %w", err)
	}
	d.man = m
	return d, nil
}

// Fresh reports whether the manifest names no file yet.
func (d *Dir) Fresh() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.man.Base == nil && len(d.man.Incr) == 0
}

// Manifest returns a copy of the manifest.
func (d *Dir) Manifest() Manifest {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := *d.man
	m.Incr = append([]FileInfo(nil), m.Incr...)
	m.History = append([]FileInfo(nil), m.History...)
	return m
}

// NewBase names the first base of a fresh directory, which the caller has
// written as an empty snapshot.
func (d *Dir) NewBase() FileInfo {
	d.mu.Lock()
	defer d.mu.Unlock()
	base := FileInfo{Name: BaseName(d.Prefix, 1, true), Seq: 1, Type: TypeBase}
	d.man.Base = &base
	return base
}

// ShardSet returns the incremental files shards shards append to: the set
// the manifest ends with, or a new one after it (created reports it). The
// manifest is written either way, as Redis writes it at every start.
func (d *Dir) ShardSet(shards int) (set []FileInfo, created bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	set, ok := d.man.ShardFiles(shards)
	if !ok {
		set = newSet(d.man, d.Prefix, shards)
		d.man.Incr = append(d.man.Incr, set...)
	}
	if err := WriteManifest(d.Path, d.Prefix, d.man); err != nil {
		return nil, false, fmt.Errorf("writing the AOF manifest: %w", err)
	}
	d.rw.baseSize = d.size()
	return set, !ok, nil
}

// newSet names a new incremental file per shard after m's last.
func newSet(m *Manifest, prefix string, shards int) []FileInfo {
	var seq int64
	for _, fi := range m.Incr {
		seq = max(seq, fi.Seq)
	}
	set := make([]FileInfo, shards)
	for i := range set {
		seq++
		set[i] = FileInfo{Name: IncrName(prefix, seq), Seq: seq, Type: TypeIncr, Shard: i, Shards: shards}
	}
	return set
}

// BeginRewrite makes a rewrite's new incremental files, one per shard,
// names them in the manifest after the old ones and returns the new base
// to write; later (inside EXEC) or saving (a snapshot is being written)
// schedule the rewrite instead (scheduled), for Due to start.
func (d *Dir) BeginRewrite(shards int, later, saving bool) (base FileInfo, scheduled bool, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rw.running {
		return FileInfo{}, false, ErrRewriteRunning
	}
	if later || saving {
		d.rw.scheduled = true
		return FileInfo{}, true, nil
	}
	d.rw.scheduled = false
	d.rw.lastAttempt = time.Now()
	m := d.man
	base, set, err := d.newFiles(shards)
	if err != nil {
		return FileInfo{}, false, err
	}
	if !d.rw.stale {
		next := *m
		next.Incr = append(append([]FileInfo(nil), m.Incr...), set...)
		if err := WriteManifest(d.Path, d.Prefix, &next); err != nil {
			return FileInfo{}, false, fmt.Errorf("writing the AOF manifest: %w", err)
		}
		d.man = &next
	}
	d.rw.running, d.rw.base, d.rw.set, d.rw.start, d.rw.id = true, base, set, time.Now(), 0
	return base, false, nil
}

// BeginEnable begins the rewrite that turns the file on while the server
// runs: its new incremental files are made, but the manifest is left as it
// is until EndRewrite, since the files it names do not lead to the dataset
// of the cut (Redis writes them as temporary files meanwhile).
func (d *Dir) BeginEnable(shards int) (base FileInfo, set []FileInfo, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.rw.running {
		return FileInfo{}, nil, ErrRewriteRunning
	}
	base, set, err = d.newFiles(shards)
	if err != nil {
		return FileInfo{}, nil, err
	}
	d.rw.running, d.rw.base, d.rw.set, d.rw.start, d.rw.id = true, base, set, time.Now(), 0
	d.rw.lastAttempt, d.rw.scheduled, d.rw.stale = time.Now(), false, true
	return base, set, nil
}

// newFiles names the next base and makes a new incremental file per shard
// (under mu).
func (d *Dir) newFiles(shards int) (FileInfo, []FileInfo, error) {
	// After every number this directory has used, named or not: a file
	// of a failed rewrite may still be a shard's.
	seq := max(d.rw.base.Seq, 0) + 1
	if d.man.Base != nil {
		seq = max(seq, d.man.Base.Seq+1)
	}
	base := FileInfo{Name: BaseName(d.Prefix, seq, true), Seq: seq, Type: TypeBase}
	used := &Manifest{Incr: append(append(append([]FileInfo(nil), d.man.Incr...), d.rw.set...), d.rw.unnamed...)}
	set := newSet(used, d.Prefix, shards)
	for _, fi := range set {
		f, err := os.OpenFile(filepath.Join(d.Path, fi.Name), os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
		if err != nil {
			return FileInfo{}, nil, fmt.Errorf("can't open the append-only file %s: %w", fi.Name, err)
		}
		f.Close()
	}
	return base, set, nil
}

// RewriteCut names the cut (a snapshot id) of the rewrite BeginRewrite
// began; a rewrite that could not start its snapshot passes err, and ends.
func (d *Dir) RewriteCut(id uint64, err error) {
	if err != nil {
		d.EndRewrite(err)
		return
	}
	d.mu.Lock()
	d.rw.id = id
	d.mu.Unlock()
}

// CutFile returns the file shard switches to at cut id, when it is the
// running rewrite's.
func (d *Dir) CutFile(id uint64, shard int) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.rw.running || d.rw.id != id || id == 0 || shard >= len(d.rw.set) {
		return "", false
	}
	return filepath.Join(d.Path, d.rw.set[shard].Name), true
}

// SwitchFailed records that a shard went on in its old file at the cut:
// nothing is lost (the manifest names it), and the rewrite fails.
func (d *Dir) SwitchFailed() {
	d.mu.Lock()
	d.rw.switchFailed = true
	d.mu.Unlock()
}

// EndRewrite ends the running rewrite with the outcome of its base: on
// success the manifest of the new base and files replaces the old one,
// whose files are deleted. It returns what made the rewrite fail, if
// anything, and how long it took.
func (d *Dir) EndRewrite(err error) (time.Duration, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rw := &d.rw
	took := time.Since(rw.start)
	rw.running = false
	rw.lastSecs = int64(took.Seconds() + 0.5)
	if err == nil && rw.switchFailed {
		err = errors.New("a shard could not switch to its new file")
	}
	rw.switchFailed = false
	if err == nil {
		// Copies: rw's fields are the next rewrite's.
		base := rw.base
		next := &Manifest{Base: &base, Incr: append([]FileInfo(nil), rw.set...)}
		if err = WriteManifest(d.Path, d.Prefix, next); err == nil {
			d.deleteBut(next)
			d.man = next
		}
	}
	if err != nil {
		rw.lastOK = false
		rw.fails++
		if rw.stale {
			rw.unnamed = append(rw.unnamed, rw.set...)
		}
		return took, err
	}
	rw.lastOK, rw.stale = true, false
	rw.rewrites++
	rw.fails = 0
	rw.baseSize = d.size()
	return took, nil
}

// deleteBut deletes the files of the current manifest that next does not
// name.
func (d *Dir) deleteBut(next *Manifest) {
	keep := map[string]bool{}
	for _, fi := range next.Incr {
		keep[fi.Name] = true
	}
	if next.Base != nil {
		keep[next.Base.Name] = true
	}
	old := append(append(append([]FileInfo(nil), d.man.History...), d.man.Incr...), d.rw.unnamed...)
	d.rw.unnamed = nil
	if d.man.Base != nil {
		old = append(old, *d.man.Base)
	}
	for _, fi := range old {
		if !keep[fi.Name] {
			os.Remove(filepath.Join(d.Path, fi.Name))
		}
	}
}

// size is the size of the files the manifest names (under mu).
func (d *Dir) size() int64 {
	var n int64
	add := func(fi FileInfo) {
		if st, err := os.Stat(filepath.Join(d.Path, fi.Name)); err == nil {
			n += st.Size()
		}
	}
	if d.man.Base != nil {
		add(*d.man.Base)
	}
	for _, fi := range d.man.Incr {
		add(fi)
	}
	return n
}

// Due reports whether a rewrite should start at now: a scheduled one once
// no save runs, or the automatic one when the files have grown
// RewritePercent over their size after the last rewrite and are at least
// RewriteMinSize (after a failure, not before a minute has passed).
func (d *Dir) Due(pv Settings, now time.Time, saving bool) (due bool, growth int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	rw := &d.rw
	if rw.running || saving {
		return false, 0
	}
	if rw.scheduled {
		return true, 0
	}
	if pv.RewritePercent == 0 || (rw.fails > 0 && now.Sub(rw.lastAttempt) < time.Minute) {
		return false, 0
	}
	size := d.size()
	if size < pv.RewriteMinSize {
		return false, 0
	}
	base := max(rw.baseSize, 1)
	growth = (size - base) * 100 / base
	return growth >= pv.RewritePercent, growth
}

// Status is INFO persistence's view of the directory and its logs.
func (d *Dir) Status(logs []*Log) Status {
	d.mu.Lock()
	defer d.mu.Unlock()
	rw := &d.rw
	st := OffStatus()
	st.Enabled = true
	st.RewriteInProgress, st.RewriteScheduled = rw.running, rw.scheduled
	st.LastRewriteOK, st.Rewrites, st.ConsecutiveFails = rw.lastOK || rw.rewrites+rw.fails == 0, rw.rewrites, rw.fails
	st.CurrentSize, st.BaseSize = d.size(), rw.baseSize
	if rw.rewrites > 0 || rw.fails > 0 {
		st.LastRewriteSecs = rw.lastSecs
	}
	if rw.running {
		st.CurrentRewriteSecs = int64(time.Since(rw.start).Seconds())
	}
	for _, l := range logs {
		if failed, _ := l.Failed(); failed {
			st.LastWriteOK = false
		}
		st.DelayedFsync += l.Delayed()
		if l.SyncInProgress() {
			st.PendingFsync++
		}
	}
	return st
}
