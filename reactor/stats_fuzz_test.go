package reactor

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzCountError: any reply counts as an error only when it is one, under a
// code of at most 32 bytes without a space.
func FuzzCountError(f *testing.F) {
	for _, r := range []string{"-ERR unknown command\r\n", "-WRONGTYPE Operation\r\n", "-NOSPACEATALL\r\n", "+OK\r\n", "", "-", "- x", ":1\r\n"} {
		f.Add([]byte(r))
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		var c Core
		c.stats.errs = map[string]uint64{}
		c.countError(reply)
		isErr := len(reply) > 0 && reply[0] == '-'
		if c.stats.errorReplies != map[bool]uint64{true: 1}[isErr] || len(c.stats.errs) != int(c.stats.errorReplies) {
			t.Fatalf("%q: %d errors, codes %v", reply, c.stats.errorReplies, c.stats.errs)
		}
		for code := range c.stats.errs {
			if len(code) > 32 || strings.Contains(code, " ") || !bytes.HasPrefix(reply[1:], []byte(code)) && code != "ERR" {
				t.Fatalf("%q counted as %q", reply, code)
			}
		}
	})
}
