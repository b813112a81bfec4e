package shardowner_test

import (
	"bytes"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// FuzzSort drives SORT's and SORT_RO's argument parser and what follows it
// with fuzzed options over the fuzz shard's lists, sets and sorted sets,
// with keys for BY and GET patterns to find. Beyond FuzzCommand's checks,
// an error reply must be one SORT can give.
//
//	go test -run XXX -fuzz FuzzSort -fuzztime 5m ./shardowner/
func FuzzSort(f *testing.F) {
	for _, seed := range [][]string{
		{"l"}, {"l", "ALPHA"}, {"ls", "DESC", "LIMIT", "0", "1"}, {"si", "BY", "nosort"}, {"ss", "BY", "nosort", "STORE", "d"},
		{"zb", "BY", "nosort", "DESC", "LIMIT", "290", "20"}, {"zs", "BY", "w_*", "GET", "#", "GET", "h*->f"},
		{"l", "BY", "w_*", "ALPHA", "GET", "w_*", "STORE", "l"}, {"l", "LIMIT", "-9223372036854775808", "9223372036854775807"},
		{"l", "LIMIT", "1", "9223372036854775807", "BY", "h*->"}, {"zb", "STORE", "zb"}, {"k"}, {"h", "foo"},
		{"l", "GET"}, {"l", "LIMIT", "x", "1"}, {"missing", "STORE", "l"}, {"si", "BY", "nosort", "GET", "*"},
	} {
		f.Add(false, false, fuzzJoin(seed...))
		f.Add(true, true, fuzzJoin(seed...))
	}
	sortCmd, sortRO := router.LookupString("sort"), router.LookupString("sort_ro")
	f.Fuzz(func(t *testing.T, ro, resp3 bool, raw []byte) {
		s := fuzzShard()
		db := s.DBs[0]
		for _, kv := range [][2]string{{"w_a", "3"}, {"w_b", "x"}, {"w_c", ""}, {"w_x", "1.5"}, {"w_1", "-inf"}} {
			db.SetString([]byte(kv[0]), []byte(kv[1]), 0)
		}
		c := &shardowner.Ctx{Shard: s, W: &resp.Writer{}}
		if resp3 {
			c.W.Proto = 3
		}
		cmd := sortCmd
		if ro {
			cmd = sortRO
		}
		if !fuzzRun(t, c, cmd, raw) || len(c.W.B) == 0 || c.W.B[0] != '-' {
			return
		}
		line := c.W.B[:bytes.IndexByte(c.W.B, '\r')]
		for _, e := range []string{"-ERR syntax error", "-ERR value is not an integer or out of range",
			"-WRONGTYPE ", "-ERR One or more scores can't be converted into double", "-ERR wrong number of arguments"} {
			if bytes.HasPrefix(line, []byte(e)) {
				return
			}
		}
		t.Fatalf("sort %q: unexpected error %q", raw, line)
	})
}
