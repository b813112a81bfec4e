package snapshot

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// ErrNoFile is MapFile's error when there is no file to load.
var ErrNoFile = errors.New("no such file")

// MapFile maps the RDB file at path for reading whole, as rdbfile.Parse
// takes it; unmap releases it. An empty file is an error: Redis's loader
// finds no header in it.
func MapFile(path string) (data []byte, unmap func(), err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w: %s", ErrNoFile, path)
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.Size() == 0 {
		return nil, nil, fmt.Errorf("short read: %s is empty", path)
	}
	data, err = unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("mapping %s: %w", path, err)
	}
	return data, func() { unix.Munmap(data) }, nil
}
