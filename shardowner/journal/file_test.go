package journal

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/valyala/bytebufferpool"
)

// Each shard's records reach its own file, whole and in order, however the
// shards' writes interleave; Close waits for them.
func TestFileSinkKeepsEachShardsOrder(t *testing.T) {
	dir := t.TempDir()
	f, err := OpenFileSink(dir, 3)
	if err != nil {
		t.Fatal(err)
	}
	var want [3][]byte
	var wg sync.WaitGroup
	for sh := range 3 {
		for i := range 200 {
			want[sh] = AppendCommand(want[sh], []byte("SET"), []byte("k"+strconv.Itoa(i)), []byte(strconv.Itoa(sh)))
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				turn := bytebufferpool.Get()
				turn.B = AppendCommand(turn.B[:0], []byte("SET"), []byte("k"+strconv.Itoa(i)), []byte(strconv.Itoa(sh)))
				f.Write(sh, turn)
			}
		}()
	}
	wg.Wait()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	for sh := range 3 {
		got, err := os.ReadFile(FilePath(dir, sh))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want[sh]) {
			t.Errorf("shard %d's file: %d bytes, want %d", sh, len(got), len(want[sh]))
		}
	}
}

func TestFileSinkRefusesAFolderItCannotMake(t *testing.T) {
	file := t.TempDir() + "/plain"
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFileSink(file+"/journal", 1); err == nil {
		t.Fatal("a journal folder under a plain file opened")
	}
}

// WriteAll writes every buffer in order, empty ones among them.
func TestWriteAll(t *testing.T) {
	fd, err := os.Create(t.TempDir() + "/f")
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	bufs := [][]byte{nil, []byte("ab"), {}, bytes.Repeat([]byte("c"), 1<<20), []byte("d"), nil}
	var want []byte
	for _, b := range bufs {
		want = append(want, b...)
	}
	if _, err := WriteAll(int(fd.Fd()), bufs); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(fd.Name()); !bytes.Equal(got, want) {
		t.Fatalf("%d bytes written, want %d", len(got), len(want))
	}
}
