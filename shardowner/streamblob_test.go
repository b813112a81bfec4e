package shardowner

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// A stream moved between shards (its blob, corekv.dump then corekv.restore)
// arrives whole: entries over several nodes, deletions, its IDs and
// counters, and its consumer groups with their pending lists.
func TestStreamBlobMove(t *testing.T) {
	for name, h := range map[string]Handler{"xadd": XAdd, "xdel": XDel, "xgroup": XGroup,
		"xreadgroup": XReadGroup, "xack": XAck, "xinfo": XInfo} {
		handlers[name] = h
	}
	src, dst := newTestCtx(), newTestCtx()
	src.Shard.Enc.StreamNodeMaxEntries.Store(4)
	for i := range 50 {
		do(src, "xadd", "s", "*", "f", strconv.Itoa(i), "g", "x")
	}
	do(src, "xdel", "s", "0-3", "0-10")
	do(src, "xgroup", "create", "s", "grp", "0")
	do(src, "xgroup", "create", "s", "other", "$")
	do(src, "xreadgroup", "group", "grp", "alice", "count", "20", "streams", "s", ">")
	do(src, "xreadgroup", "group", "grp", "bob", "count", "7", "streams", "s", ">")
	first, _ := readBulk(t, do(src, "xadd", "s", "*", "f", "last"))
	do(src, "xack", "s", "grp", first)
	want := do(src, "xinfo", "stream", "s", "full")
	if !strings.Contains(want, "alice") || !strings.Contains(want, "other") {
		t.Fatalf("XINFO STREAM FULL: %q", want)
	}

	blob, _ := readBulk(t, do(src, "corekv.dump", "s"))
	if got := do(dst, "corekv.restore", "s", blob, "replace"); got != num(1) {
		t.Fatalf("restore: %q", got)
	}
	if got := do(dst, "xinfo", "stream", "s", "full"); got != want {
		t.Fatalf("XINFO STREAM FULL after the move:\n got %q\nwant %q", got, want)
	}
	if err := dst.Shard.DBs[0].Check(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", blob[:len(blob)-1], blob + "x", blob[:12]} {
		if got := do(dst, "corekv.restore", "t", bad, "replace"); got != errr(errBadBlob) {
			t.Errorf("restore of a cut blob (%d bytes): %q", len(bad), got)
		}
	}
}

// FuzzStreamBlob feeds streamFromBlob any bytes: it refuses or rebuilds,
// never panics.
func FuzzStreamBlob(f *testing.F) {
	c := newTestCtx()
	XAdd(c, [][]byte{[]byte("xadd"), []byte("s"), []byte("1-1"), []byte("a"), []byte("b")})
	XGroup(c, [][]byte{[]byte("xgroup"), []byte("create"), []byte("s"), []byte("g"), []byte("0")})
	c.W.B = c.W.B[:0]
	InternalDump(c, [][]byte{[]byte("corekv.dump"), []byte("s")})
	b := c.W.B
	f.Add(b[bytes.IndexByte(b, '\n')+1+blobHeader : len(b)-2])
	f.Fuzz(func(t *testing.T, b []byte) {
		c := newTestCtx()
		if tb, ok := c.streamFromBlob(b); ok && tb != nil {
			tb.Clear()
		}
	})
}
