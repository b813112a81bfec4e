package aof

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corekv/corekv/shardowner/journal"
	"github.com/valyala/bytebufferpool"
	"golang.org/x/sys/unix"
)

// Fsync is the appendfsync setting: when a written record is made durable.
type Fsync int32

const (
	FsyncNo       Fsync = iota // when the kernel writes it back
	FsyncEverysec              // once a second, off the shard's thread
	FsyncAlways                // before the replies of its turn leave
)

// ParseFsync reads an appendfsync value.
func ParseFsync(v string) (Fsync, bool) {
	switch v {
	case "no":
		return FsyncNo, true
	case "everysec":
		return FsyncEverysec, true
	case "always":
		return FsyncAlways, true
	}
	return 0, false
}

func (f Fsync) String() string {
	switch f {
	case FsyncAlways:
		return "always"
	case FsyncEverysec:
		return "everysec"
	}
	return "no"
}

// Log is one shard's incremental file. Append runs on the shard's thread,
// once per loop turn, with the turn's records: one write, so that the
// replies of the turn may leave once it returns (everysec, no). Under
// always the shard holds the replies until Durable reaches the turn's
// epoch, which the log's syncer goroutine moves on after each fdatasync,
// covering every turn written before it: a shard goes on turning while the
// disk syncs, and one sync serves many turns.
type Log struct {
	shard int
	fsync atomic.Int32 // Fsync

	// Shard thread only.
	file    *os.File
	pending []byte // records a failed write left, written before the next
	iov     [2][]byte
	size    int64  // bytes of the current file
	epochs  uint64 // turns written

	written atomic.Uint64 // epochs, for the syncer
	durable atomic.Uint64 // epochs known on disk
	failed  atomic.Bool   // the last write failed
	errMu   sync.Mutex
	lastErr error

	mu      sync.Mutex // the files the syncer syncs
	syncFd  int
	retired []*os.File // files switched away from, to sync and close

	kick      chan struct{}
	stop      chan struct{}
	stopped   chan struct{}
	onDurable func(shard int)
	syncing   atomic.Int64 // Unix ns an fdatasync began, 0 when none runs
	delayed   atomic.Int64 // syncs that found the last one still running
}

// OpenLog opens (creating) path for appending as shard's incremental file;
// onDurable is called from the syncer when Durable moves.
func OpenLog(shard int, path string, fsync Fsync, onDurable func(shard int)) (*Log, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	l := &Log{shard: shard, file: f, size: st.Size(), syncFd: int(f.Fd()), kick: make(chan struct{}, 1),
		stop: make(chan struct{}), stopped: make(chan struct{}), onDurable: onDurable}
	l.fsync.Store(int32(fsync))
	go l.syncer()
	return l, nil
}

// SetFsync changes the fsync policy; it takes effect with the next turn.
func (l *Log) SetFsync(f Fsync) {
	l.fsync.Store(int32(f))
	l.poke()
}

// Fsync is the policy the log runs with.
func (l *Log) Fsync() Fsync { return Fsync(l.fsync.Load()) }

// Append writes records, a turn's, to the file and returns the turn's
// epoch: the replies of the turn may leave once Durable reaches it. A
// write that fails keeps the records for the next Append and reports the
// error; the epoch is then not reached until a write succeeds.
func (l *Log) Append(records []byte) (uint64, error) {
	bufs := l.iov[:0]
	if len(l.pending) > 0 {
		bufs = append(bufs, l.pending)
	}
	if len(records) > 0 {
		bufs = append(bufs, records)
	}
	n, err := journal.WriteAll(int(l.file.Fd()), bufs)
	clear(l.iov[:])
	l.size += n
	if err != nil {
		// What did not reach the file waits for the next turn's write.
		var rest []byte
		for _, b := range bufs {
			if n >= int64(len(b)) {
				n -= int64(len(b))
				continue
			}
			rest = append(rest, b[n:]...)
			n = 0
		}
		l.pending = rest
		l.setErr(err)
		return l.epochs + 1, err
	}
	l.pending = l.pending[:0]
	l.failed.Store(false)
	l.epochs++
	l.written.Store(l.epochs)
	if Fsync(l.fsync.Load()) == FsyncNo {
		l.poke() // only for the retired files
	}
	return l.epochs, nil
}

// Kick asks the syncer to sync what was written (always).
func (l *Log) Kick() { l.poke() }

// SyncHere syncs what was written on the calling shard thread and reports
// whether it did: under always, when no sync runs and no file switched
// away from waits for the syncer. A shard with nothing else to do then
// saves the two hand-offs, to the syncer and back, that a sync off its
// thread costs.
func (l *Log) SyncHere() bool {
	if Fsync(l.fsync.Load()) != FsyncAlways || l.syncing.Load() != 0 {
		return false
	}
	l.mu.Lock()
	fd, waiting := l.syncFd, len(l.retired) > 0
	l.mu.Unlock()
	if waiting {
		return false
	}
	target := l.epochs
	if target <= l.durable.Load() {
		return true
	}
	l.syncing.Store(time.Now().UnixNano())
	err := unix.Fdatasync(fd)
	l.syncing.Store(0)
	if err != nil {
		l.setErr(fmt.Errorf("fdatasync: %w", err))
		return false
	}
	for {
		cur := l.durable.Load()
		if cur >= target || l.durable.CompareAndSwap(cur, target) {
			return true
		}
	}
}

func (l *Log) setErr(err error) {
	l.errMu.Lock()
	l.lastErr = err
	l.errMu.Unlock()
	l.failed.Store(true)
}

// Failed reports whether the last write failed, and its error.
func (l *Log) Failed() (bool, error) {
	if !l.failed.Load() {
		return false, nil
	}
	l.errMu.Lock()
	defer l.errMu.Unlock()
	return true, l.lastErr
}

// Durable is the last epoch known to be as durable as the policy asks:
// on disk under always, written otherwise.
func (l *Log) Durable() uint64 {
	if Fsync(l.fsync.Load()) != FsyncAlways {
		return l.written.Load()
	}
	return l.durable.Load()
}

// Size is the current file's size (shard thread).
func (l *Log) Size() int64 { return l.size }

// Delayed counts the syncs that began while the one before still ran
// (INFO's aof_delayed_fsync).
func (l *Log) Delayed() int64 { return l.delayed.Load() }

// SyncInProgress reports whether an fdatasync is running.
func (l *Log) SyncInProgress() bool { return l.syncing.Load() != 0 }

// Switch makes path the file the next Append writes to, at a cut (a
// rewrite): what was written to the old one is synced and the old one
// closed by the syncer. It runs on the shard's thread.
func (l *Log) Switch(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.mu.Lock()
	l.retired = append(l.retired, l.file)
	l.file, l.syncFd = f, int(f.Fd())
	l.mu.Unlock()
	l.size = st.Size()
	l.poke()
	return nil
}

func (l *Log) poke() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// syncer makes written epochs durable: at once under always, every second
// under everysec; under no it only closes retired files.
func (l *Log) syncer() {
	defer close(l.stopped)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		fsync := Fsync(l.fsync.Load())
		select {
		case <-l.stop:
			l.sync(true)
			return
		case <-l.kick:
			if fsync == FsyncEverysec {
				l.sync(false) // only the retired files
				continue
			}
		case <-tick.C:
			if fsync != FsyncEverysec {
				continue
			}
		}
		l.sync(fsync != FsyncNo)
	}
}

// sync syncs and closes the retired files and, with all, syncs the
// current one, then moves Durable to what was written before.
func (l *Log) sync(all bool) {
	target := l.written.Load()
	l.mu.Lock()
	retired, fd := l.retired, l.syncFd
	l.retired = nil
	l.mu.Unlock()
	for _, f := range retired {
		f.Sync()
		f.Close()
	}
	if !all && len(retired) == 0 {
		return
	}
	if all && target > l.durable.Load() {
		if l.syncing.Load() != 0 {
			l.delayed.Add(1)
		}
		l.syncing.Store(time.Now().UnixNano())
		err := unix.Fdatasync(fd)
		l.syncing.Store(0)
		if err != nil {
			l.setErr(fmt.Errorf("fdatasync: %w", err))
			return
		}
	}
	if all {
		for {
			cur := l.durable.Load()
			if cur >= target || l.durable.CompareAndSwap(cur, target) {
				break
			}
		}
		if l.onDurable != nil {
			l.onDurable(l.shard)
		}
	}
}

// Close syncs what was written and closes the file; no Append may follow.
func (l *Log) Close() error {
	close(l.stop)
	<-l.stopped
	err := l.file.Sync()
	if cerr := l.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// Logs is every shard's Log: the journal's sink (journal.Sink) while the
// append-only file is on.
type Logs struct {
	Logs []*Log
	// Epochs holds each shard's last Append's epoch, read on that shard's
	// thread after the journal's Flush.
	Epochs []uint64
	// Errs holds each shard's last Append's error.
	Errs []error
}

// Write appends a shard's turn of records to its log (journal.Sink).
func (ls *Logs) Write(shard int, records *bytebufferpool.ByteBuffer) {
	ls.Epochs[shard], ls.Errs[shard] = ls.Logs[shard].Append(records.B)
	bytebufferpool.Put(records)
}

// Written is the epoch of the last turn written (shard thread).
func (l *Log) Written() uint64 { return l.epochs }

// Pending reports whether records of a failed write wait for the next.
func (l *Log) Pending() bool { return len(l.pending) > 0 }

// Retry writes what a failed write left, when anything.
func (l *Log) Retry() error {
	if len(l.pending) == 0 {
		return nil
	}
	_, err := l.Append(nil)
	return err
}
