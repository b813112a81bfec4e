// Package snapshot turns the shards' snapshot records into one RDB stream:
// the shards walk their tables (shardowner.StartSnapshot) and hand it
// chunks of key records; a goroutine of its own writes the header, the
// databases' sizes at the cut, the chunks as they come (a SELECTDB where
// the database changes) and the end with its checksum, so that no shard
// thread waits on the disk. A Save writes to any io.Writer: a file (File,
// which renames it into place only once it is whole), or later a replica's
// socket.
package snapshot

import (
	"bufio"
	"errors"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/shardowner/rdbfile"
)

// Aux is one auxiliary field of the file's header.
type Aux = rdbfile.Aux

// HeaderAux are the header fields of a file this server writes, those
// Redis 7.0 writes that mean something here; used-mem is the Go heap's,
// informative (loaders only log it).
func HeaderAux(redisVersion string) []Aux {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return []Aux{
		{Key: "redis-ver", Val: redisVersion},
		rdbfile.AuxInt("redis-bits", 64),
		rdbfile.AuxInt("ctime", time.Now().Unix()),
		rdbfile.AuxInt("used-mem", int64(ms.HeapInuse+ms.StackInuse)),
		rdbfile.AuxInt("aof-base", 0),
	}
}

// Chunks is the pool of the shards' record chunks: a pool of its own, so
// that a snapshot's many large buffers do not tune the shared pool's
// sizes away from what the commands' hot paths use.
var Chunks bytebufferpool.Pool

// Options are how the file is written.
type Options struct {
	Checksum bool // rdbchecksum: a CRC-64 at the end, else zeros
	Compress bool // rdbcompression: the records' long strings LZF-compressed here
	// Aux are the header's auxiliary fields, in order.
	Aux []Aux
}

// Save is one snapshot being written. It is a shardowner.SnapshotSink.
type Save struct {
	shards, databases int
	opts              Options
	out               *bufio.Writer

	mu      sync.Mutex
	wake    *sync.Cond
	queue   []chunk
	cuts    int
	funcs   [][]byte // the function libraries' codes, from the first shard's cut
	keys    []int    // per database, summed over the shards' cuts
	expires []int
	done    int
	aborted bool
	backlog atomic.Int64

	finished chan struct{}
	err      error
	written  int64
}

type chunk struct {
	db  int
	buf *bytebufferpool.ByteBuffer
}

// ErrAborted ends a Save that Abort stopped.
var ErrAborted = errors.New("snapshot aborted")

// Start begins writing a snapshot of shards shards with the given number
// of databases to out. The shards' records follow (Cut, Chunk, Done); Wait
// returns once all is written.
func Start(out io.Writer, shards, databases int, opts Options) *Save {
	s := &Save{shards: shards, databases: databases, opts: opts, out: bufio.NewWriterSize(out, 256<<10),
		keys: make([]int, databases), expires: make([]int, databases), finished: make(chan struct{})}
	s.wake = sync.NewCond(&s.mu)
	go s.write()
	return s
}

// Functions records the code of each function library at the cut; the
// file has them before the databases, as Redis writes them.
func (s *Save) Functions(codes [][]byte) {
	s.mu.Lock()
	s.funcs = codes
	s.mu.Unlock()
}

// Cut records the sizes of a shard's databases at the cut.
func (s *Save) Cut(shard int, keys, expires []int) {
	s.mu.Lock()
	for db := range keys {
		s.keys[db] += keys[db]
		s.expires[db] += expires[db]
	}
	s.cuts++
	s.mu.Unlock()
	s.wake.Signal()
}

// Chunk queues records of database db for the writer, which owns buf.
func (s *Save) Chunk(shard, db int, buf *bytebufferpool.ByteBuffer) {
	s.backlog.Add(int64(len(buf.B)))
	s.mu.Lock()
	if s.aborted {
		s.mu.Unlock()
		s.backlog.Add(-int64(len(buf.B)))
		Chunks.Put(buf)
		return
	}
	s.queue = append(s.queue, chunk{db, buf})
	s.mu.Unlock()
	s.wake.Signal()
}

// Done records that a shard has sent everything.
func (s *Save) Done(shard int) {
	s.mu.Lock()
	s.done++
	s.mu.Unlock()
	s.wake.Signal()
}

// Backlog is the bytes queued and not yet written.
func (s *Save) Backlog() int { return int(s.backlog.Load()) }

// Abort stops the save: what is queued is dropped and Wait returns
// ErrAborted once the writer has stopped. The shards must stop sending
// (shardowner.AbortSnapshot) too.
func (s *Save) Abort() {
	s.mu.Lock()
	s.aborted = true
	s.mu.Unlock()
	s.wake.Signal()
}

// Finished is closed once the writer has stopped.
func (s *Save) Finished() <-chan struct{} { return s.finished }

// Wait waits for the writer and returns its error.
func (s *Save) Wait() error {
	<-s.finished
	return s.err
}

// Written is the bytes the stream holds, once finished.
func (s *Save) Written() int64 { return s.written }

func (s *Save) write() {
	defer close(s.finished)
	w := rdbfile.NewWriter(s.out)
	w.Header(s.opts.Aux...)
	// The databases' sizes go first, each under its own SELECTDB, so the
	// loader can size its tables before the keys come.
	s.mu.Lock()
	for s.cuts < s.shards && !s.aborted {
		s.wake.Wait()
	}
	funcs := s.funcs
	s.mu.Unlock()
	for _, code := range funcs {
		w.Function(code)
	}
	for db := range s.databases {
		if s.keys[db] > 0 {
			w.SelectDB(db)
			w.ResizeDB(uint64(s.keys[db]), uint64(s.expires[db]))
		}
	}
	last := -1
	var packed []byte
	var bad error
	for {
		s.mu.Lock()
		for len(s.queue) == 0 && s.done < s.shards && !s.aborted {
			s.wake.Wait()
		}
		q, aborted, all := s.queue, s.aborted, s.done == s.shards
		s.queue = nil
		s.mu.Unlock()
		if aborted {
			for _, c := range q {
				s.backlog.Add(-int64(len(c.buf.B)))
				Chunks.Put(c.buf)
			}
			s.err = ErrAborted
			return
		}
		for _, c := range q {
			if c.db != last {
				w.SelectDB(c.db)
				last = c.db
			}
			if s.opts.Compress {
				var err error
				if packed, err = rdbfile.CompressRecords(packed[:0], c.buf.B); err != nil && bad == nil {
					bad = err // a record no shard writes: the file is not put in place
				}
				w.Raw(packed)
			} else {
				w.Raw(c.buf.B)
			}
			s.backlog.Add(-int64(len(c.buf.B)))
			Chunks.Put(c.buf)
		}
		if all && len(q) == 0 {
			break
		}
	}
	if err := w.End(s.opts.Checksum); err != nil || bad != nil {
		s.err = errors.Join(err, bad)
		return
	}
	s.err = s.out.Flush()
	s.written = w.Written()
}
