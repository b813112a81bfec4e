package journal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/valyala/bytebufferpool"
)

// FileSink writes each shard's stream to a file of its own,
// <dir>/journal-<shard>.resp, from a goroutine of its own, so that no shard
// waits on the disk. It is the journal for inspection and tests: it keeps
// what the shards changed in the form the append-only file will, but it is
// not durable (no fsync) and nothing loads it back.
//
// Write hands the records over through a channel; when the writer falls
// that far behind, the shard waits for it rather than dropping records.
type FileSink struct {
	ch    chan chunk
	files []*os.File
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

func (f *FileSink) write() {
	defer close(f.done)
	for c := range f.ch {
		if _, err := f.files[c.shard].Write(c.buf.B); err != nil {
			f.fail(err)
		}
		bytebufferpool.Put(c.buf)
	}
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
