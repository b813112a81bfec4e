package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// tmpSeq tells apart the temporary files of saves in one process.
var tmpSeq atomic.Uint64

// File is a Save into a file: written as a temporary file beside the
// target, which replaces the target only once it is whole and on disk.
type File struct {
	*Save
	f         *os.File
	tmp, path string
}

// CreateFile starts a Save into dir/name.
func CreateFile(dir, name string, shards, databases int, opts Options) (*File, error) {
	path := filepath.Join(dir, name)
	tmp := filepath.Join(dir, fmt.Sprintf("temp-%d-%d.rdb", os.Getpid(), tmpSeq.Add(1)))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("failed opening the temp RDB file %s (in server root dir %s) for saving: %w", filepath.Base(tmp), dir, err)
	}
	return &File{Save: Start(f, shards, databases, opts), f: f, tmp: tmp, path: path}, nil
}

// Finish waits for the Save, then makes the file durable and puts it in
// place: fsync, close, rename over the target, fsync of the directory. On
// any error the temporary file is removed and the target left as it was.
func (f *File) Finish() error {
	err := f.Wait()
	if err == nil {
		err = f.f.Sync()
	}
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp, f.path)
	}
	if err != nil {
		os.Remove(f.tmp)
		return err
	}
	return syncDir(filepath.Dir(f.path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
