package snapshot

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/valyala/bytebufferpool"

	"github.com/corekv/corekv/shardowner/rdbfile"
)

func TestParsePoints(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []Point
		bad  bool
	}{
		{"", nil, false},
		{"  ", nil, false},
		{"3600 1 300 100", []Point{{3600, 1}, {300, 100}}, false},
		{"900", nil, true},
		{"x 1", nil, true},
		{"0 1", nil, true},
		{"10 -1", nil, true},
	} {
		got, refused := ParsePoints(tc.in)
		if (refused != "") != tc.bad || !slices.Equal(got, tc.want) {
			t.Errorf("ParsePoints(%q) = %v, %q", tc.in, got, refused)
		}
		if !tc.bad {
			if again, _ := ParsePoints(FormatPoints(got)); !slices.Equal(again, got) {
				t.Errorf("FormatPoints(%v) = %q does not read back", got, FormatPoints(got))
			}
		}
	}
}

// keys collects the key records Parse finds, as db/key.
type keys struct {
	db     int
	found  []string
	resize map[int]uint64
}

func (k *keys) Aux(key, val []byte) error              { return nil }
func (k *keys) SelectDB(db int) error                  { k.db = db; return nil }
func (k *keys) ResizeDB(size, expires uint64) error    { k.resize[k.db] = size; return nil }
func (k *keys) Function(code []byte) error             { return nil }
func (k *keys) ModuleAux(m *rdbfile.ModuleError) error { return m }
func (k *keys) Key(r *rdbfile.Record) error {
	k.found = append(k.found, fmt.Sprintf("%d/%s", k.db, r.Key))
	return nil
}

func record(key string) *bytebufferpool.ByteBuffer {
	b := Chunks.Get()
	b.B = rdbfile.AppendString(rdbfile.AppendKey(b.B[:0], rdbfile.TypeString, []byte(key), false), []byte("v"), false)
	return b
}

// TestSaveStream feeds a Save two shards' records, interleaved over
// databases, and reads the stream back: each key under its database, the
// sizes at the cut first, the checksum right.
func TestSaveStream(t *testing.T) {
	var out bytes.Buffer
	s := Start(&out, 2, 4, Options{Checksum: true, Aux: []Aux{{Key: "redis-ver", Val: "7.0.15"}}})
	s.Cut(0, []int{1, 0, 0, 2}, []int{0, 0, 0, 0})
	s.Chunk(0, 3, record("a"))
	s.Chunk(0, 0, record("b"))
	s.Cut(1, []int{1, 0, 0, 0}, []int{0, 0, 0, 0})
	s.Chunk(1, 0, record("c"))
	s.Chunk(0, 3, record("d"))
	s.Done(1)
	s.Done(0)
	if err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	if s.Written() != int64(out.Len()) || s.Backlog() != 0 {
		t.Errorf("written %d of %d, backlog %d", s.Written(), out.Len(), s.Backlog())
	}
	k := &keys{resize: map[int]uint64{}}
	if err := rdbfile.Parse(out.Bytes(), k); err != nil {
		t.Fatal(err)
	}
	slices.Sort(k.found)
	if want := []string{"0/b", "0/c", "3/a", "3/d"}; !slices.Equal(k.found, want) {
		t.Errorf("keys %v, want %v", k.found, want)
	}
	if k.resize[0] != 2 || k.resize[3] != 2 || len(k.resize) != 2 {
		t.Errorf("RESIZEDB %v", k.resize)
	}
}

// TestSaveAbort: an aborted save writes nothing more and says so.
func TestSaveAbort(t *testing.T) {
	var out bytes.Buffer
	s := Start(&out, 1, 1, Options{})
	s.Cut(0, []int{1}, []int{0})
	s.Abort()
	s.Chunk(0, 0, record("late"))
	if err := s.Wait(); !errors.Is(err, ErrAborted) {
		t.Errorf("Wait: %v, want ErrAborted", err)
	}
	if s.Backlog() != 0 {
		t.Errorf("backlog %d after abort", s.Backlog())
	}
}

// TestSaverFile runs a Saver's save into a directory: one at a time, the
// file renamed into place once whole, the state INFO shows, the save
// points' rule.
func TestSaverFile(t *testing.T) {
	dir := t.TempDir()
	start := time.Now().Add(-time.Hour)
	s := NewSaver(start, nil)
	s.Policy.Set(PolicyValues{Points: []Point{{60, 2}}, Dir: dir, File: "dump.rdb", Check: true, StopWritesOnError: true})
	if s.Due(time.Now(), 1) {
		t.Error("due with 1 change of 2")
	}
	if !s.Due(time.Now(), 2) {
		t.Error("not due with 2 changes, an hour after the start")
	}
	id, err := s.Begin(1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Begin(1, 1, nil); !errors.Is(err, ErrInProgress) {
		t.Errorf("a second Begin: %v", err)
	}
	if !s.Status().InProgress || s.Due(time.Now(), 100) {
		t.Error("a save in progress is not shown, or another is due")
	}
	f := s.Sink(id)
	s.AddCutDirty(id, 5)
	f.Cut(0, []int{1}, []int{0})
	f.Chunk(0, 0, record("k"))
	f.Done(0)
	deadline := time.Now().Add(5 * time.Second)
	for {
		if done, err := s.Result(id); done {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the save did not end")
		}
		time.Sleep(time.Millisecond)
	}
	st := s.Status()
	if st.InProgress || !st.LastOK || st.Saves != 1 || st.DirtyAtSave != 5 || !st.LastSave.After(start) {
		t.Errorf("status after the save: %+v", st)
	}
	data, err := os.ReadFile(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	k := &keys{resize: map[int]uint64{}}
	if err := rdbfile.Parse(data, k); err != nil || len(k.found) != 1 {
		t.Errorf("the file: %v, keys %v", err, k.found)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "temp-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if s.Due(time.Now(), 6) {
		t.Error("due right after a save with one change since")
	}

	// A file that cannot be renamed into place fails the save and, with a
	// save point and stop-writes-on-bgsave-error, refuses writes.
	if err := os.MkdirAll(filepath.Join(dir, "taken", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	s.Policy.Set(PolicyValues{Points: []Point{{60, 2}}, Dir: dir, File: "taken", StopWritesOnError: true})
	id, err = s.Begin(1, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	f = s.Sink(id)
	f.Cut(0, []int{0}, []int{0})
	f.Done(0)
	for done := false; !done; {
		done, err = s.Result(id)
		time.Sleep(time.Millisecond)
	}
	if err == nil || s.Status().LastOK || !s.RefusesWrites() {
		t.Errorf("a save into a directory: %v, status %+v, refuses writes %v", err, s.Status(), s.RefusesWrites())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "temp-*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// FuzzParsePoints: the save setting is taken or refused without a panic,
// and what is taken reads back the same from what CONFIG GET shows.
func FuzzParsePoints(f *testing.F) {
	for _, s := range []string{"", "3600 1 300 100 60 10000", "900", "1 -1", " 5  7 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		ps, refused := ParsePoints(v)
		if refused != "" {
			return
		}
		again, refused := ParsePoints(FormatPoints(ps))
		if refused != "" || !slices.Equal(again, ps) {
			t.Fatalf("%q: %v shows as %q, which reads %v (%s)", v, ps, FormatPoints(ps), again, refused)
		}
	})
}
