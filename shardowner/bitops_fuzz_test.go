package shardowner_test

import (
	"bytes"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// FuzzBitfield runs fuzzed BITFIELD arguments on key k ("hello"), and the
// same through BITFIELD_RO on a second shard: besides fuzzRun's checks,
// BITFIELD_RO must either refuse (a write, or an error BITFIELD also
// gives) or reply as BITFIELD does, and never change the value.
//
//	go test -run XXX -fuzz FuzzBitfield -fuzztime 5m ./shardowner/
func FuzzBitfield(f *testing.F) {
	for _, args := range [][]string{
		{"GET", "u8", "0"},
		{"get", "i64", "#1", "GET", "u63", "3"},
		{"SET", "i8", "#2", "-129", "INCRBY", "u4", "13", "100"},
		{"OVERFLOW", "SAT", "INCRBY", "i64", "0", "9223372036854775807", "OVERFLOW", "FAIL", "incrby", "u1", "0", "1"},
		{"overflow", "wrap", "get", "u8"},
		{"get", "u8", "4294967295"},
		{"get", "u8", "#536870911"},
		{"get", "i1", "#-1"},
		{"get", "u8\x00x", "0"},
		{"set", "u8", "0"},
		{"overflow"},
	} {
		f.Add(fuzzJoin(append([]string{"k"}, args...)...))
		f.Add(fuzzJoin(append([]string{"n"}, args...)...))
		f.Add(fuzzJoin(append([]string{"missing"}, args...)...))
	}
	bf, ro := router.Lookup([]byte("bitfield")), router.Lookup([]byte("bitfield_ro"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := &shardowner.Ctx{Shard: fuzzShard(), W: &resp.Writer{}}
		if !fuzzRun(t, c, bf, raw) {
			return
		}
		want := append([]byte(nil), c.W.B...)
		c = &shardowner.Ctx{Shard: fuzzShard(), W: &resp.Writer{}}
		key := bytes.Split(raw, []byte{0})[0]
		before, _ := c.Shard.DBs[0].Get(key)
		beforeStr := append([]byte(nil), before.Str...)
		fuzzRun(t, c, ro, raw)
		got := c.W.B
		if !bytes.Equal(got, want) && !bytes.Equal(got, []byte("-ERR BITFIELD_RO only supports the GET subcommand\r\n")) {
			t.Fatalf("BITFIELD_RO %q: %q, BITFIELD %q", raw, got, want)
		}
		after, _ := c.Shard.DBs[0].Get(key)
		if !bytes.Equal(after.Str, beforeStr) || after.Int != before.Int {
			t.Fatalf("BITFIELD_RO %q changed the value", raw)
		}
	})
}
