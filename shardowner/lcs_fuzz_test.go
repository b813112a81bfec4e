package shardowner_test

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner"
)

// FuzzLCS runs LCS on two fuzzed values with fuzzed options (NUL-separated,
// the keys first: x and y hold the values, the fuzz shard's keys are there
// too). Besides fuzzRun's checks, the plain reply must be a common
// subsequence of both values, and LEN and IDX's len must be its length.
//
//	go test -run XXX -fuzz FuzzLCS -fuzztime 5m ./shardowner/
func FuzzLCS(f *testing.F) {
	for _, args := range []string{
		"x\x00y", "x\x00y\x00LEN", "x\x00y\x00idx", "x\x00y\x00IDX\x00MINMATCHLEN\x004\x00WITHMATCHLEN",
		"x\x00y\x00len\x00idx", "x\x00y\x00minmatchlen", "x\x00y\x00minmatchlen\x00-1", "x\x00y\x00foo",
		"x\x00l", "n\x00k\x00idx", "missing\x00e\x00idx\x00withmatchlen", "big\x00x\x00idx\x00minmatchlen\x0099999999999999999999",
	} {
		f.Add([]byte("ohmytext"), []byte("mynewtext"), []byte(args))
		f.Add([]byte("12345"), []byte(""), []byte(args))
	}
	lcs := router.Lookup([]byte("lcs"))
	f.Fuzz(func(t *testing.T, a, b, raw []byte) {
		if len(a) > 4096 || len(b) > 4096 {
			return
		}
		for _, proto := range []int{2, 3} {
			s := fuzzShard()
			s.DBs[0].SetString([]byte("x"), a, 0)
			s.DBs[0].SetString([]byte("y"), b, 0)
			c := &shardowner.Ctx{Shard: s, W: &resp.Writer{Proto: proto}}
			if !fuzzRun(t, c, lcs, raw) {
				return
			}
		}
		// The plain reply on x and y, and LEN and IDX's agreement with it.
		c := &shardowner.Ctx{Shard: fuzzShard(), W: &resp.Writer{}}
		c.Shard.DBs[0].SetString([]byte("x"), a, 0)
		c.Shard.DBs[0].SetString([]byte("y"), b, 0)
		run := func(opts ...string) string {
			fuzzRun(t, c, lcs, []byte(strings.Join(append([]string{"x", "y"}, opts...), "\x00")))
			return string(c.W.B)
		}
		plain := run()
		body := plain[bytes.IndexByte([]byte(plain), '\n')+1 : len(plain)-2]
		if !subseq(body, a) || !subseq(body, b) {
			t.Fatalf("LCS %q %q: %q is no common subsequence", a, b, body)
		}
		n := strconv.Itoa(len(body))
		if got := run("LEN"); got != ":"+n+"\r\n" {
			t.Fatalf("LCS %q %q LEN: %q, string %q", a, b, got, body)
		}
		if got := run("IDX"); !bytes.HasSuffix([]byte(got), []byte("$3\r\nlen\r\n:"+n+"\r\n")) {
			t.Fatalf("LCS %q %q IDX: %q, string %q", a, b, got, body)
		}
	})
}

func subseq(s string, t []byte) bool {
	for i := 0; i < len(t) && s != ""; i++ {
		if t[i] == s[0] {
			s = s[1:]
		}
	}
	return s == ""
}
