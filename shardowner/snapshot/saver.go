package snapshot

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Point is a save point: save after Seconds when at least Changes changes
// were made since the last save.
type Point struct{ Seconds, Changes int64 }

// ParsePoints reads the save setting: pairs of seconds and changes, or
// nothing for no automatic saves. The reason for a refusal is Redis's.
func ParsePoints(v string) ([]Point, string) {
	f := strings.Fields(v)
	if len(f)%2 != 0 {
		return nil, "Invalid save parameters"
	}
	var ps []Point
	for i := 0; i < len(f); i += 2 {
		s, err1 := strconv.ParseInt(f[i], 10, 64)
		c, err2 := strconv.ParseInt(f[i+1], 10, 64)
		if err1 != nil || err2 != nil || s < 1 || c < 0 {
			return nil, "Invalid save parameters"
		}
		ps = append(ps, Point{s, c})
	}
	return ps, ""
}

// FormatPoints is the save setting as CONFIG GET shows it.
func FormatPoints(ps []Point) string {
	var b strings.Builder
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%d %d", p.Seconds, p.Changes)
	}
	return b.String()
}

// Policy is the snapshot settings the server runs with; CONFIG SET changes
// them while saves run.
type Policy struct {
	mu                sync.Mutex
	points            []Point
	dir, file         string
	compress, check   bool
	stopWritesOnError bool
}

// PolicyValues are Policy's settings at one moment.
type PolicyValues struct {
	Points            []Point
	Dir, File         string
	Compress, Check   bool
	StopWritesOnError bool
}

// Set replaces the settings.
func (p *Policy) Set(v PolicyValues) {
	p.mu.Lock()
	p.points, p.dir, p.file, p.compress, p.check, p.stopWritesOnError = v.Points, v.Dir, v.File, v.Compress, v.Check, v.StopWritesOnError
	p.mu.Unlock()
}

// Get returns the settings.
func (p *Policy) Get() PolicyValues {
	p.mu.Lock()
	defer p.mu.Unlock()
	return PolicyValues{p.points, p.dir, p.file, p.compress, p.check, p.stopWritesOnError}
}

// Saver is the server's snapshot state: at most one save runs, and the
// outcome of the last one is what INFO persistence, LASTSAVE and the
// MISCONF refusal read. Its methods are safe from any core.
type Saver struct {
	Policy Policy

	mu        sync.Mutex
	cur       *File
	curID     uint64
	curStart  time.Time
	curDirty  uint64 // the shards' changes summed at the current save's cut
	seq       uint64
	lastSave  time.Time // the last successful save, or the start
	lastOK    bool
	lastErr   error
	lastTook  time.Duration
	lastTried time.Time
	saves     int64
	loaded    [2]int64 // keys the last load stored, and dropped as expired
	// loading: the file's load at start, since when, its size, and how
	// far its first reader has got.
	loading      bool
	loadingSince time.Time
	loadingTotal int64
	loadingAt    atomic.Int64
	dirtySave    uint64 // the shards' changes summed at the last successful save's cut
	results      map[uint64]error
	scheduled    bool // BGSAVE SCHEDULE: save once the running save ends
	onFinish     func()
	// rewrite: the running save is an append-only file's base
	// (BeginRewrite), whose end rewriteDone hears of instead of the
	// snapshot's statistics.
	rewrite     bool
	rewriteDone func(error)
}

// NewSaver returns a Saver of a server started at start; onFinish is
// called (from the writer's goroutine) when a save ends.
func NewSaver(start time.Time, onFinish func()) *Saver {
	return &Saver{lastSave: start, lastOK: true, results: map[uint64]error{}, onFinish: onFinish}
}

// ErrInProgress refuses a save while another runs.
var ErrInProgress = fmt.Errorf("Background save already in progress")

// Begin creates the file of a new save of shards shards and returns its
// id; the caller then cuts every shard for it (Sink).
func (s *Saver) Begin(shards, databases int, aux []Aux) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return 0, ErrInProgress
	}
	pv := s.Policy.Get()
	f, err := CreateFile(pv.Dir, pv.File, shards, databases, Options{Checksum: pv.Check, Compress: pv.Compress, Aux: aux})
	if err != nil {
		s.lastOK, s.lastErr, s.lastTried = false, err, time.Now()
		return 0, err
	}
	s.seq++
	s.scheduled = false
	s.cur, s.curID, s.curStart, s.curDirty = f, s.seq, time.Now(), 0
	s.rewrite, s.rewriteDone = false, nil
	go s.finish(f, s.seq)
	return s.seq, nil
}

// BeginRewrite creates dir/name, the base of an append-only file's
// rewrite, as Begin creates a save's file; done is called from the
// writer's goroutine with the outcome once the file is in place or not.
// A rewrite and a save do not run together (one walk per shard).
func (s *Saver) BeginRewrite(dir, name string, shards, databases int, aux []Aux, done func(error)) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return 0, ErrInProgress
	}
	pv := s.Policy.Get()
	f, err := CreateFile(dir, name, shards, databases, Options{Checksum: pv.Check, Compress: pv.Compress, Aux: aux})
	if err != nil {
		return 0, err
	}
	s.seq++
	s.cur, s.curID, s.curStart, s.curDirty = f, s.seq, time.Now(), 0
	s.rewrite, s.rewriteDone = true, done
	go s.finish(f, s.seq)
	return s.seq, nil
}

// Rewriting reports whether the running save is a rewrite's base.
func (s *Saver) Rewriting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cur != nil && s.rewrite
}

// Sink returns the save named id while it runs, else nil.
func (s *Saver) Sink(id uint64) *File {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.curID != id {
		return nil
	}
	return s.cur
}

// AddCutDirty adds a shard's change count at the cut of save id.
func (s *Saver) AddCutDirty(id, dirty uint64) {
	s.mu.Lock()
	if s.curID == id {
		s.curDirty += dirty
	}
	s.mu.Unlock()
}

func (s *Saver) finish(f *File, id uint64) {
	err := f.Finish()
	s.mu.Lock()
	if s.rewrite {
		done := s.rewriteDone
		s.cur, s.rewrite, s.rewriteDone = nil, false, nil
		s.mu.Unlock()
		done(err)
		if s.onFinish != nil {
			s.onFinish()
		}
		return
	}
	s.lastTook = time.Since(s.curStart)
	s.lastTried = time.Now()
	s.lastOK, s.lastErr = err == nil, err
	if err == nil {
		s.lastSave = s.lastTried
		s.saves++
		s.dirtySave = s.curDirty
	}
	s.results[id] = err
	s.cur = nil
	s.mu.Unlock()
	if s.onFinish != nil {
		s.onFinish()
	}
}

// Result reports whether save id has ended, and its error; the first
// call that sees it ended forgets it.
func (s *Saver) Result(id uint64) (done bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err, done = s.results[id]
	if done {
		delete(s.results, id)
	}
	return done, err
}

// LoadingStarted records that the load of a file of total bytes begins.
func (s *Saver) LoadingStarted(total int64) {
	s.mu.Lock()
	s.loading, s.loadingSince, s.loadingTotal = true, time.Now(), total
	s.mu.Unlock()
}

// LoadingAt records how far into the file the load has read.
func (s *Saver) LoadingAt(off int64) { s.loadingAt.Store(off) }

// Loaded records what loading at start made of the file.
func (s *Saver) Loaded(keys, expired int64) {
	s.mu.Lock()
	s.loaded = [2]int64{keys, expired}
	s.loading = false
	s.mu.Unlock()
}

// Schedule asks for a save as soon as none runs (BGSAVE SCHEDULE).
func (s *Saver) Schedule() {
	s.mu.Lock()
	s.scheduled = true
	s.mu.Unlock()
}

// AbortCurrent stops the running save, if any: its file is not put in
// place (the save at shutdown replaces it).
func (s *Saver) AbortCurrent() {
	s.mu.Lock()
	f := s.cur
	s.mu.Unlock()
	if f != nil {
		f.Abort()
		<-f.Finished()
	}
}

// Status is what INFO persistence and LASTSAVE show.
type Status struct {
	InProgress  bool
	Scheduled   bool
	CurrentSecs int64 // -1 when none runs
	LastSave    time.Time
	LastOK      bool
	LastErr     error
	LastSecs    int64 // -1 before the first
	Saves       int64
	DirtyAtSave uint64
	// LoadLoaded and LoadExpired are the keys the last load stored and
	// dropped as expired.
	LoadLoaded, LoadExpired int64
	// Loading: a load is under way since LoadingSince, of LoadingTotal
	// bytes, LoadingAt read.
	Loading                 bool
	LoadingSince            time.Time
	LoadingTotal, LoadingAt int64
}

// Status returns the saver's state.
func (s *Saver) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{InProgress: s.cur != nil && !s.rewrite, Scheduled: s.scheduled, CurrentSecs: -1, LastSave: s.lastSave, LastOK: s.lastOK, LastErr: s.lastErr,
		LastSecs: -1, Saves: s.saves, DirtyAtSave: s.dirtySave, LoadLoaded: s.loaded[0], LoadExpired: s.loaded[1],
		Loading: s.loading, LoadingSince: s.loadingSince, LoadingTotal: s.loadingTotal, LoadingAt: s.loadingAt.Load()}
	if st.InProgress {
		st.CurrentSecs = int64(time.Since(s.curStart) / time.Second)
	}
	if !s.lastTried.IsZero() {
		st.LastSecs = int64((s.lastTook + time.Second/2) / time.Second)
	}
	return st
}

// Due reports whether a save point is reached at now with dirty changes
// made in all: Redis's rule, and after a failed save not before 5 seconds.
func (s *Saver) Due(now time.Time, dirty uint64) bool {
	pv := s.Policy.Get()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil {
		return false
	}
	if s.scheduled {
		return true
	}
	changes := dirty - s.dirtySave
	for _, p := range pv.Points {
		if int64(changes) >= p.Changes && now.Sub(s.lastSave) >= time.Duration(p.Seconds)*time.Second &&
			(s.lastOK || now.Sub(s.lastTried) >= 5*time.Second) {
			return true
		}
	}
	return false
}

// RefusesWrites reports whether writes get MISCONF: the last save failed,
// saves are configured and stop-writes-on-bgsave-error is on.
func (s *Saver) RefusesWrites() bool {
	pv := s.Policy.Get()
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.lastOK && len(pv.Points) > 0 && pv.StopWritesOnError
}
