package shardowner_test

import (
	"bytes"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// FuzzStream runs a sequence of stream commands, each fuzzed (its name
// chosen by a byte, its arguments NUL-separated, commands split by a
// 0x01 byte), on a shard with streams of small nodes: a handler must not
// panic, each reply must be well formed and the tables consistent after
// each command (fuzzRun), whatever the IDs, trims and options.
//
//	go test -run XXX -fuzz FuzzStream -fuzztime 5m ./shardowner/
func FuzzStream(f *testing.F) {
	shardowner.SkipUnderRace(f)
	for _, seed := range [][]byte{
		fuzzJoin("\x00x", "*", "f", "v"),
		fuzzJoin("\x00x", "MAXLEN", "~", "2", "LIMIT", "1", "5-*", "f", "v"),
		fuzzJoin("\x00x", "NOMKSTREAM", "MINID", "=", "3", "9-9", "f", "v", "g", "w"),
		append(fuzzJoin("\x00x", "18446744073709551615-18446744073709551615", "f", "v"), append([]byte{1}, fuzzJoin("\x00x", "*", "a", "b")...)...),
		fuzzJoin("\x01x", "(1-0", "+", "COUNT", "2"),
		fuzzJoin("\x02x", "+", "(0", "COUNT", "-1"),
		fuzzJoin("\x03x", "1-1", "2-2", "3", "x"),
		fuzzJoin("\x04x", "MAXLEN", "~", "1"),
		fuzzJoin("\x04x", "MINID", "4-0", "LIMIT", "0"),
		fuzzJoin("\x05x", "1-0", "ENTRIESADDED", "0", "MAXDELETEDID", "0-1"),
		fuzzJoin("\x06COUNT", "3", "STREAMS", "x", "k", "0", "$"),
		fuzzJoin("\x06BLOCK", "0", "STREAMS", "x", "$"),
		fuzzJoin("\x07STREAM", "x", "FULL", "COUNT", "0"),
		fuzzJoin("\x08x"),
	} {
		f.Add(false, seed)
		f.Add(true, seed)
	}
	cmds := []*router.Command{}
	for _, n := range []string{"xadd", "xrange", "xrevrange", "xdel", "xtrim", "xsetid", "xread", "xinfo", "xlen"} {
		cmds = append(cmds, router.LookupString(n))
	}
	f.Fuzz(func(t *testing.T, resp3 bool, raw []byte) {
		s := fuzzShard()
		s.Enc.StreamNodeMaxEntries.Store(3)
		s.Enc.StreamNodeMaxBytes.Store(80)
		c := &shardowner.Ctx{Shard: s, W: &resp.Writer{}, MayBlock: true}
		if resp3 {
			c.W.Proto = 3
		}
		for i := range 12 {
			id := []byte{'1' + byte(i%9), '-', '0'}
			shardowner.XAdd(c, [][]byte{[]byte("xadd"), []byte("x"), id, []byte("f"), id})
		}
		shardowner.XDel(c, [][]byte{[]byte("xdel"), []byte("x"), []byte("2-0")})
		for n, part := range bytes.Split(raw, []byte{1}) {
			if n >= 8 || len(part) == 0 {
				break
			}
			fuzzRun(t, c, cmds[int(part[0])%len(cmds)], part[1:])
		}
	})
}
