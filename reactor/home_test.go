package reactor

import (
	"testing"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/router"
)

// TestSubcommandArityErr checks the arity check of home containers'
// subcommands, which reads the command table's rows.
func TestSubcommandArityErr(t *testing.T) {
	argv := func(s ...string) [][]byte {
		out := make([][]byte, len(s))
		for i, a := range s {
			out[i] = []byte(a)
		}
		return out
	}
	for _, tc := range []struct {
		argv []string
		want resp.Error
	}{
		{[]string{"client", "SETNAME"}, resp.ErrWrongArgs("client|setname")},
		{[]string{"client", "setname", "a"}, ""},
		{[]string{"config", "get"}, resp.ErrWrongArgs("config|get")},
		{[]string{"config", "get", "a", "b"}, ""},
		{[]string{"client", "nosuch"}, ""},
		{[]string{"client"}, ""},
		{[]string{"ping", "x", "y"}, ""},
	} {
		cmd := router.LookupString(tc.argv[0])
		if got := subcommandArityErr(cmd, argv(tc.argv...)); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.argv, got, tc.want)
		}
	}
}
