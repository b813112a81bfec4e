package shardowner

import (
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func TestKeys(t *testing.T) {
	runCases(t, []scriptCase{
		{"del exists touch type", []step{
			{"mset a 1 b 2 c 3", ok},
			{"exists a b x a", num(3)},
			{"touch a a x", num(2)},
			{"del a x a", num(1)},
			{"unlink b c", num(2)},
			{"exists a b c", num(0)},
			{"set k v", ok},
			{"type k", "+string\r\n"},
			{"type nope", "+none\r\n"},
			{"@resp 3", ""},
			{"type k", "+string\r\n"},
		}},
		{"expired keys are gone", []step{
			{"set a 1 px 10", ok},
			{"exists a", num(1)},
			{"@tick 10", ""},
			{"exists a", num(0)},
			{"type a", "+none\r\n"},
			{"set b 1 px 10", ok},
			{"@tick 10", ""},
			{"del b", num(0)},
		}},
		{"rename", []step{
			{"rename a b", errr(resp.ErrNoSuchKey)},
			{"set a 1 ex 100", ok},
			{"rename a a", ok},
			{"rename a b", ok},
			{"exists a", num(0)},
			{"get b", bulk("1")},
			{"ttl b", num(100)},
			{"set c hello", ok},
			{"rename c b", ok},
			{"get b", bulk("hello")},
			{"ttl b", num(-1)},
			{"rename c b", errr(resp.ErrNoSuchKey)},
		}},
		{"renamenx", []step{
			{"renamenx a b", errr(resp.ErrNoSuchKey)},
			{"mset a 1 b 2", ok},
			{"renamenx a a", num(0)},
			{"renamenx a b", num(0)},
			{"renamenx a c", num(1)},
			{"mget a b c", "*3\r\n" + null + bulk("2") + bulk("1")},
		}},
		{"copy", []step{
			{"copy a b", num(0)},
			{"set a hello px 5000", ok},
			{"copy a a", errr(resp.ErrSameObject)},
			{"copy a b", num(1)},
			{"get b", bulk("hello")},
			{"pttl b", num(5000)},
			{"set a world", ok},
			{"copy a b", num(0)},
			{"get b", bulk("hello")},
			{"copy a b replace", num(1)},
			{"get b", bulk("world")},
			{"ttl b", num(-1)},
			{"copy a a db 0", errr(resp.ErrSameObject)},
			{"copy a a db 3", num(1)},
			{"copy a a db 3", num(0)},
			{"copy a a DB 3 REPLACE", num(1)},
			{"copy a b db 16", errr(resp.ErrDBIndex)},
			{"copy a b db -1", errr(resp.ErrDBIndex)},
			{"copy a b db x", errr(resp.ErrNotInteger)},
			{"copy a b db 4294967296", errr(errIntRange)},
			{"copy a b db 2147483647", errr(resp.ErrDBIndex)},
			{"copy a b db", errr(resp.ErrSyntax)},
			{"copy a b foo", errr(resp.ErrSyntax)},
			{"@db 3", ""},
			{"get a", bulk("world")},
			{"set n 42", ok},
			{"copy n m db 0", num(1)},
			{"@db 0", ""},
			{"get m", bulk("42")},
			{"object encoding m", bulk("int")},
		}},
		{"move", []step{
			{"move a 1", num(0)},
			{"set a v ex 100", ok},
			{"move a 0", errr(resp.ErrSameObject)},
			{"move a 16", errr(resp.ErrDBIndex)},
			{"move a -1", errr(resp.ErrDBIndex)},
			{"move a x", errr(resp.ErrNotInteger)},
			{"move a 2147483648", errr(errIntRange)},
			{"move a 1", num(1)},
			{"exists a", num(0)},
			{"@db 1", ""},
			{"get a", bulk("v")},
			{"ttl a", num(100)},
			{"@db 0", ""},
			{"set a w", ok},
			{"move a 1", num(0)},
			{"get a", bulk("w")},
		}},
		{"object", []step{
			{"object encoding nope", null},
			{"set i 12345", ok},
			{"object encoding i", bulk("int")},
			{"set e " + strings.Repeat("x", 44), ok},
			{"object encoding e", bulk("embstr")},
			{"set r " + strings.Repeat("x", 45), ok},
			{"object encoding r", bulk("raw")},
			{"set s 0123", ok},
			{"object encoding s", bulk("embstr")},
			{"object refcount i", num(1)},
			{"set small 9999", ok},
			{"object refcount small", num(2147483647)},
			{"object refcount e", num(1)},
			{"object idletime e", num(0)},
			{"object freq e", errr(errNoLFU)},
			{"object freq nope", null},
			{"object encoding", errr(resp.ErrWrongArgs("object|encoding"))},
			{"object encoding a b", errr(resp.ErrWrongArgs("object|encoding"))},
			{"object help x", errr(resp.ErrWrongArgs("object|help"))},
			{"object foo k", "-ERR unknown subcommand 'foo'. Try OBJECT HELP.\r\n"},
			{"object f\x00oo k", "-ERR unknown subcommand 'f'. Try OBJECT HELP.\r\n"},
			{"@resp 3", ""},
			{"object encoding nope", null3},
		}},
	})
	c := newTestCtx()
	got := do(c, "object", "help")
	if !strings.HasPrefix(got, "*11\r\n+OBJECT <subcommand>") || strings.Count(got, "\r\n") != 12 {
		t.Fatalf("object help: %q", got)
	}
}

// Value bytes read from the table must survive the writes RENAME and COPY
// make to the same table.
func TestRenameLongValue(t *testing.T) {
	c := newTestCtx()
	long := strings.Repeat("abcdefgh", 1000)
	do(c, "set", "a", long)
	for _, k := range []string{"b", "c", "d", "e"} {
		if got := do(c, "rename", "a", k); got != ok {
			t.Fatal(got)
		}
		if got := do(c, "copy", k, "a"); got != num(1) {
			t.Fatal(got)
		}
		if got := do(c, "del", k); got != num(1) {
			t.Fatal(got)
		}
	}
	if got := do(c, "get", "a"); got != bulk(long) {
		t.Fatalf("value changed on the way: %d bytes", len(got))
	}
}
