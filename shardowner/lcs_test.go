package shardowner

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func init() { handlers["lcs"] = LCS }

// The replies below are redis-server 7.0.15's.
func TestLCSScript(t *testing.T) {
	idx := "*4\r\n$7\r\nmatches\r\n*2\r\n" +
		"*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n" +
		"*3\r\n*2\r\n:2\r\n:3\r\n*2\r\n:0\r\n:1\r\n:2\r\n" +
		"$3\r\nlen\r\n:6\r\n"
	runCases(t, []scriptCase{
		{"replies", []step{
			{"set a ohmytext", ok},
			{"set b mynewtext", ok},
			{"lcs a b", bulk("mytext")},
			{"lcs a b len", num(6)},
			{"lcs a b LEN LEN minmatchlen -5", num(6)},
			{"lcs a b idx withmatchlen", idx},
			{"lcs a b IDX MINMATCHLEN 4 WITHMATCHLEN",
				"*4\r\n$7\r\nmatches\r\n*1\r\n*3\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n:4\r\n$3\r\nlen\r\n:6\r\n"},
			{"lcs a b idx minmatchlen 3",
				"*4\r\n$7\r\nmatches\r\n*1\r\n*2\r\n*2\r\n:4\r\n:7\r\n*2\r\n:5\r\n:8\r\n$3\r\nlen\r\n:6\r\n"},
			{"lcs a a", bulk("ohmytext")},
			// Missing keys are empty strings; integers read as their digits.
			{"lcs x y", empty},
			{"lcs a y len", num(0)},
			{"lcs x y idx", "*4\r\n$7\r\nmatches\r\n*0\r\n$3\r\nlen\r\n:0\r\n"},
			{"set n 12345", ok},
			{"set m 1x3x5", ok},
			{"lcs n m", bulk("135")},
			{"lcs n m idx",
				"*4\r\n$7\r\nmatches\r\n*3\r\n*2\r\n*2\r\n:4\r\n:4\r\n*2\r\n:4\r\n:4\r\n*2\r\n*2\r\n:2\r\n:2\r\n*2\r\n:2\r\n:2\r\n" +
					"*2\r\n*2\r\n:0\r\n:0\r\n*2\r\n:0\r\n:0\r\n$3\r\nlen\r\n:3\r\n"},
			{"@resp 3", ""},
			{"lcs a b idx withmatchlen", "%2" + idx[2:]},
			{"lcs a b", bulk("mytext")},
		}},
		{"errors", []step{
			{"set a ohmytext", ok},
			{"rpush l x", num(1)},
			{"lcs a b len idx", errr(errLCSLenIdx)},
			{"lcs a b foo", errr(resp.ErrSyntax)},
			{"lcs a b minmatchlen", errr(resp.ErrSyntax)},
			{"lcs a b minmatchlen x", errr(resp.ErrNotInteger)},
			{"lcs a b idx minmatchlen 99999999999999999999", errr(resp.ErrNotInteger)},
			// The type is checked before the options.
			{"lcs a l", errr(errLCSType)},
			{"lcs l nokey len foo", errr(errLCSType)},
		}},
	})
}

// TestLCSSizeLimit: a table of more than proto-max-bulk-len bytes is
// refused, as Redis refuses it; one just below the limit is computed.
func TestLCSSizeLimit(t *testing.T) {
	c := newTestCtx()
	do(c, "set", "a", strings.Repeat("x", 11584))
	do(c, "set", "b", strings.Repeat("x", 11585))
	do(c, "set", "c", strings.Repeat("x", 11583))
	if got := do(c, "lcs", "a", "b", "len"); got != errr(errLCSTooLarge) {
		t.Fatalf("lcs a b len: %q", got)
	}
	if got := do(c, "lcs", "b", "nokey", "len"); got != num(0) {
		t.Fatalf("lcs b nokey len: %q", got)
	}
	if got := do(c, "lcs", "c", "a", "len"); got != num(11583) {
		t.Fatalf("lcs c a len: %q", got)
	}
}

// TestLCSRandom checks LCS's string against a plain recursive definition's
// length and that it is a subsequence of both, and IDX's runs against the
// string.
func TestLCSRandom(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	c := newTestCtx()
	for n := 0; n < 500; n++ {
		a, b := lcsRandString(rng), lcsRandString(rng)
		do(c, "set", "a", a)
		do(c, "set", "b", b)
		want := lcsLenRef(a, b)
		got := do(c, "lcs", "a", "b")
		s := got[strings.Index(got, "\r\n")+2 : len(got)-2]
		if len(s) != want || !isSubseq(s, a) || !isSubseq(s, b) || got != bulk(s) {
			t.Fatalf("lcs %q %q: %q, want a common subsequence of %d", a, b, got, want)
		}
		if got := do(c, "lcs", "a", "b", "len"); got != num(int64(want)) {
			t.Fatalf("lcs %q %q len: %q, want %d", a, b, got, want)
		}
		// The runs, last first, spell the string when joined.
		var joined string
		tab := make([]uint32, (len(a)+1)*(len(b)+1))
		lcsTable([]byte(a), []byte(b), tab)
		lcsWalk([]byte(a), []byte(b), tab, nil, 0, func(as, ae, bs, be int) {
			if a[as:ae+1] != b[bs:be+1] {
				t.Fatalf("lcs %q %q: run a[%d:%d] b[%d:%d] differ", a, b, as, ae, bs, be)
			}
			joined = a[as:ae+1] + joined
		})
		if joined != s {
			t.Fatalf("lcs %q %q: runs spell %q, string %q", a, b, joined, s)
		}
	}
}

func lcsRandString(rng *rand.Rand) string {
	b := make([]byte, rng.Intn(12))
	for i := range b {
		b[i] = "abc"[rng.Intn(3)]
	}
	return string(b)
}

func lcsLenRef(a, b string) int {
	if a == "" || b == "" {
		return 0
	}
	if a[0] == b[0] {
		return 1 + lcsLenRef(a[1:], b[1:])
	}
	return max(lcsLenRef(a[1:], b), lcsLenRef(a, b[1:]))
}

func isSubseq(s, t string) bool {
	for i := 0; i < len(t) && s != ""; i++ {
		if t[i] == s[0] {
			s = s[1:]
		}
	}
	return s == ""
}
