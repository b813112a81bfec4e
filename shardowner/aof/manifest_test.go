package aof

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestParseManifestAsRedis(t *testing.T) {
	m, err := ParseManifest([]byte("# comment\nfile appendonly.aof.1.base.rdb seq 1 type b\n" +
		"file appendonly.aof.1.incr.aof seq 1 type i\nfile \"odd name\" seq 2 type i shard 1/2 later-key v\n"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Base == nil || m.Base.Name != "appendonly.aof.1.base.rdb" || len(m.Incr) != 2 ||
		m.Incr[1] != (FileInfo{Name: "odd name", Seq: 2, Type: TypeIncr, Shard: 1, Shards: 2}) {
		t.Fatalf("parsed %+v %+v", m.Base, m.Incr)
	}
	for _, tc := range []struct{ in, msg string }{
		{"", "Found an empty AOF manifest"},
		{"file a seq 1\n", "Invalid AOF manifest file format"},
		{"file a seq 1 type b\nfile b seq 2 type b\n", "Found duplicate base file information"},
		{"file a seq 2 type i\nfile b seq 2 type i\n", "Found a non-monotonic sequence number"},
		{"file a seq 1 type x\n", "Unknown AOF file type"},
		{"file ../a seq 1 type i\n", "File can't be a path, just a filename"},
		{"file a seq 1 type i", "The AOF manifest file contains too long line"},
		{"file a seq 0 type i\n", "Invalid AOF manifest file format"},
		{"\n", "Invalid AOF manifest file format"},
		{"file \"a seq 1 type i\n", "Invalid AOF manifest file format"},
	} {
		_, err := ParseManifest([]byte(tc.in))
		var me *ManifestError
		if !errors.As(err, &me) || me.Msg != tc.msg {
			t.Errorf("%q: got %v, want %q", tc.in, err, tc.msg)
		}
	}
}

func TestManifestFormatReadsBack(t *testing.T) {
	m := &Manifest{Base: &FileInfo{Name: "x.1.base.rdb", Seq: 1, Type: TypeBase},
		Incr: []FileInfo{{Name: "x y\"z", Seq: 3, Type: TypeIncr, Shard: 0, Shards: 2}, {Name: "x.4.incr.aof", Seq: 4, Type: TypeIncr, Shard: 1, Shards: 2}}}
	got, err := ParseManifest(m.Format())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Fatalf("read back %+v, want %+v", got, m)
	}
	if set, ok := got.ShardFiles(2); !ok || set[1].Name != "x.4.incr.aof" {
		t.Errorf("ShardFiles(2) = %v %v", set, ok)
	}
	if _, ok := got.ShardFiles(3); ok {
		t.Error("ShardFiles(3) found a set of 3 in a set of 2")
	}
	dir := t.TempDir()
	if err := WriteManifest(dir, "x", m); err != nil {
		t.Fatal(err)
	}
	if back, err := ReadManifest(dir, "x"); err != nil || !reflect.DeepEqual(back, m) {
		t.Fatalf("ReadManifest: %v %+v", err, back)
	}
	if _, err := ReadManifest(filepath.Join(dir, "none"), "x"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing directory: %v", err)
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte("file a.1.base.rdb seq 1 type b\nfile a.1.incr.aof seq 1 type i shard 0/1\n"))
	f.Add([]byte("file \"q\\x41\" seq 5 type h\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseManifest(data)
		if err != nil {
			return
		}
		again, err := ParseManifest(m.Format())
		if err != nil {
			t.Fatalf("a manifest that parsed does not read back once written: %v\n%q", err, m.Format())
		}
		if !reflect.DeepEqual(again, m) {
			t.Fatalf("read back %+v, want %+v", again, m)
		}
	})
}

func TestLogAlwaysSyncsBeforeDurable(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.aof")
	woke := make(chan struct{}, 16)
	l, err := OpenLog(0, path, FsyncAlways, func(int) { woke <- struct{}{} })
	if err != nil {
		t.Fatal(err)
	}
	e, err := l.Append([]byte("*1\r\n$4\r\nPING\r\n"))
	if err != nil || e != 1 {
		t.Fatalf("Append: %d %v", e, err)
	}
	if l.Durable() != 0 {
		t.Fatal("an append is durable before any sync")
	}
	l.Kick()
	select {
	case <-woke:
	case <-time.After(5 * time.Second):
		t.Fatal("the syncer did not report the sync")
	}
	if l.Durable() < 1 {
		t.Fatalf("Durable = %d after the sync", l.Durable())
	}
	if err := l.Switch(filepath.Join(dir, "g.aof")); err != nil {
		t.Fatal(err)
	}
	if e, _ := l.Append([]byte("x")); e != 2 {
		t.Fatalf("the epoch after the switch is %d", e)
	}
	// The old file still waits for the syncer: the shard cannot sync for it.
	if l.SyncHere() && l.Durable() < 2 {
		t.Fatal("SyncHere reported a sync that left the epoch short")
	}
	l.Kick()
	deadline := time.Now().Add(5 * time.Second)
	for l.Durable() < 2 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if e, _ := l.Append([]byte("y")); e != 3 || !l.SyncHere() || l.Durable() != 3 {
		t.Fatalf("SyncHere on the shard thread: epoch %d, durable %d", e, l.Durable())
	}
	l.SetFsync(FsyncNo)
	if l.Durable() != 3 {
		t.Errorf("under no, Durable (%d) is what was written", l.Durable())
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(path)
	b, _ := os.ReadFile(filepath.Join(dir, "g.aof"))
	if string(a) != "*1\r\n$4\r\nPING\r\n" || string(b) != "xy" {
		t.Errorf("files hold %q and %q", a, b)
	}
}
