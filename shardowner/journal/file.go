package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/valyala/bytebufferpool"
	"golang.org/x/sys/unix"
)

// FileSink writes each shard's stream to a file of its own,
// <dir>/journal-<shard>.resp, from a goroutine of its own, so that no shard
// waits on the disk. It is the journal for inspection and tests: it keeps
// what the shards changed in the form the append-only file does
// (shardowner/aof), but it is not durable (no fsync) and nothing loads it
// back.
//
// Write hands the records over through a channel; when the writer falls
// that far behind, the shard waits for it rather than dropping records.
// The writer writes what has queued up for a file with one writev, then
// lets the next records gather for writeEvery: a shard's hand-over then
// finds no writer waiting to be woken (a futex and a context switch per
// turn, on the shard's CPU when the process is pinned to one), and the
// writer makes about a thousand writes a second however short the turns.
type FileSink struct {
	ch    chan chunk
	files []*os.File
	fds   []int // the files' descriptors, for writev
	done  chan struct{}
	once  sync.Once
	mu    sync.Mutex
	err   error
}

type chunk struct {
	shard int
	buf   *bytebufferpool.ByteBuffer
}

// sinkQueue is how many turns' records may wait for the writer.
const sinkQueue = 1024

// OpenFileSink creates (truncating) the files of shards shards in dir.
func OpenFileSink(dir string, shards int) (*FileSink, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f := &FileSink{ch: make(chan chunk, sinkQueue), done: make(chan struct{})}
	for i := range shards {
		fd, err := os.Create(FilePath(dir, i))
		if err != nil {
			for _, o := range f.files {
				o.Close()
			}
			return nil, err
		}
		f.files = append(f.files, fd)
		f.fds = append(f.fds, int(fd.Fd()))
	}
	go f.write()
	return f, nil
}

// FilePath is the name of shard's file in dir.
func FilePath(dir string, shard int) string {
	return filepath.Join(dir, fmt.Sprintf("journal-%d.resp", shard))
}

// Write hands records to the writer goroutine.
func (f *FileSink) Write(shard int, records *bytebufferpool.ByteBuffer) {
	f.ch <- chunk{shard, records}
}

// writeBatch is the most chunks the writer takes from the queue for one
// round of writes: IOV_MAX, writev's limit.
const writeBatch = 1024

// writeEvery is how long the writer waits after a round that emptied the
// queue. A shard's records reach their file that much later, and a shard
// turning more than sinkQueue times in it waits for the writer.
const writeEvery = time.Millisecond

func (f *FileSink) write() {
	defer close(f.done)
	queued := make([][]*bytebufferpool.ByteBuffer, len(f.files))
	var iov [][]byte
	for c := range f.ch {
		queued[c.shard] = append(queued[c.shard], c.buf)
		// Everything queued behind c goes in the same round.
		n := 1
	drain:
		for ; n < writeBatch; n++ {
			select {
			case c, ok := <-f.ch:
				if !ok {
					break drain
				}
				queued[c.shard] = append(queued[c.shard], c.buf)
			default:
				break drain
			}
		}
		for shard, bufs := range queued {
			if len(bufs) == 0 {
				continue
			}
			iov = iov[:0]
			for _, b := range bufs {
				iov = append(iov, b.B)
			}
			if _, err := WriteAll(f.fds[shard], iov); err != nil {
				f.fail(err)
			}
			for i, b := range bufs {
				bytebufferpool.Put(b)
				bufs[i] = nil
			}
			queued[shard] = bufs[:0]
		}
		clear(iov)
		if n < writeBatch {
			time.Sleep(writeEvery)
		}
	}
}

// WriteAll writes bufs to fd in order, with as few writev calls as it
// takes, and returns how many bytes reached it.
func WriteAll(fd int, bufs [][]byte) (int64, error) {
	var total int64
	for len(bufs) > 0 {
		n, err := unix.Writev(fd, bufs)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return total, err
		}
		total += int64(n)
		for len(bufs) > 0 && n >= len(bufs[0]) {
			n -= len(bufs[0])
			bufs = bufs[1:]
		}
		if len(bufs) > 0 {
			if n == 0 {
				return total, io.ErrShortWrite
			}
			bufs[0] = bufs[0][n:]
		}
	}
	return total, nil
}

func (f *FileSink) fail(err error) {
	f.mu.Lock()
	if f.err == nil {
		f.err = err
	}
	f.mu.Unlock()
}

// Close waits for what was written to reach the files and closes them. No
// Write may follow or run alongside it.
func (f *FileSink) Close() error {
	f.once.Do(func() {
		close(f.ch)
		<-f.done
		var errs []error
		for _, fd := range f.files {
			errs = append(errs, fd.Close())
		}
		f.fail(errors.Join(errs...))
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.err
}
