package aof

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestDirRewriteSteps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "appendonlydir")
	d, err := OpenDir(path, "a.aof")
	if err != nil || !d.Fresh() {
		t.Fatalf("OpenDir: %v, fresh %v", err, d.Fresh())
	}
	base := d.NewBase()
	os.WriteFile(filepath.Join(path, base.Name), []byte("REDIS0010"), 0o644)
	set, created, err := d.ShardSet(2)
	if err != nil || !created || len(set) != 2 || set[1].Shard != 1 {
		t.Fatalf("ShardSet: %v %v %v", set, created, err)
	}
	for _, fi := range set {
		os.WriteFile(filepath.Join(path, fi.Name), []byte("*1\r\n$4\r\nPING\r\n"), 0o644)
	}
	if again, created, _ := d.ShardSet(2); created || again[0] != set[0] {
		t.Fatalf("a second ShardSet(2) made a new set: %v", again)
	}

	// A rewrite behind a save is scheduled, and Due then says so.
	if _, scheduled, err := d.BeginRewrite(2, false, true); !scheduled || err != nil {
		t.Fatalf("behind a save: scheduled %v, %v", scheduled, err)
	}
	if due, _ := d.Due(Settings{}, time.Now(), false); !due {
		t.Fatal("a scheduled rewrite is not due")
	}
	nb, _, err := d.BeginRewrite(2, false, false)
	if err != nil || nb.Seq != 2 {
		t.Fatalf("BeginRewrite: %v %v", nb, err)
	}
	if _, _, err := d.BeginRewrite(2, false, false); !errors.Is(err, ErrRewriteRunning) {
		t.Fatalf("a second rewrite: %v", err)
	}
	mid, err := ReadManifest(path, "a.aof")
	if err != nil || len(mid.Incr) != 4 || mid.Base.Name != base.Name {
		t.Fatalf("the manifest during the rewrite: %+v %v", mid, err)
	}
	d.RewriteCut(7, nil)
	if p, ok := d.CutFile(7, 1); !ok || filepath.Base(p) != mid.Incr[3].Name {
		t.Fatalf("CutFile: %q %v", p, ok)
	}
	if _, ok := d.CutFile(8, 1); ok {
		t.Fatal("CutFile answered another cut")
	}
	os.WriteFile(filepath.Join(path, nb.Name), []byte("REDIS0010"), 0o644)
	if _, err := d.EndRewrite(nil); err != nil {
		t.Fatal(err)
	}
	end, _ := ReadManifest(path, "a.aof")
	if end.Base.Name != nb.Name || len(end.Incr) != 2 || end.Incr[0].Name != mid.Incr[2].Name {
		t.Fatalf("the manifest after the rewrite: %+v", end)
	}
	for _, gone := range []string{base.Name, set[0].Name, set[1].Name} {
		if _, err := os.Stat(filepath.Join(path, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after the rewrite", gone)
		}
	}
	if st := d.Status(nil); st.Rewrites < 1 || !st.LastRewriteOK || st.RewriteInProgress {
		t.Errorf("Status after the rewrite: %+v", st)
	}

	// A second rewrite deletes the first one's base.
	nb2, _, err := d.BeginRewrite(2, false, false)
	if err != nil {
		t.Fatal(err)
	}
	d.RewriteCut(8, nil)
	os.WriteFile(filepath.Join(path, nb2.Name), []byte("REDIS0010"), 0o644)
	if _, err := d.EndRewrite(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(path, nb.Name)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the first rewrite's base %s is still there after the second", nb.Name)
	}
	nb = nb2

	// A failed rewrite leaves the manifest naming every file written.
	if _, _, err := d.BeginRewrite(2, false, false); err != nil {
		t.Fatal(err)
	}
	d.EndRewrite(errors.New("disk full"))
	failed, _ := ReadManifest(path, "a.aof")
	if failed.Base.Name != nb.Name || len(failed.Incr) != 4 {
		t.Fatalf("the manifest after a failed rewrite: %+v", failed)
	}
	if st := d.Status(nil); st.LastRewriteOK || st.ConsecutiveFails != 1 {
		t.Errorf("Status after the failure: %+v", st)
	}
}

// TestDirFailedEnableLeavesNoFiles: the files of an enable whose base
// failed are named nowhere; the next rewrite that succeeds deletes them.
func TestDirFailedEnableLeavesNoFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "appendonlydir")
	d, err := OpenDir(path, "a.aof")
	if err != nil {
		t.Fatal(err)
	}
	_, set, err := d.BeginEnable(2)
	if err != nil {
		t.Fatal(err)
	}
	d.EndRewrite(errors.New("no room"))
	if _, err := ReadManifest(path, "a.aof"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a failed enable wrote a manifest: %v", err)
	}
	base, _, err := d.BeginRewrite(2, false, false)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(path, base.Name), []byte("REDIS0010"), 0o644)
	if _, err := d.EndRewrite(nil); err != nil {
		t.Fatal(err)
	}
	for _, fi := range set {
		if _, err := os.Stat(filepath.Join(path, fi.Name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s of the failed enable is still there", fi.Name)
		}
	}
	m, err := ReadManifest(path, "a.aof")
	if err != nil || m.Base.Name != base.Name || len(m.Incr) != 2 || m.Incr[0].Name == set[0].Name {
		t.Fatalf("the manifest after the rewrite: %+v %v", m, err)
	}
}
