package router

import (
	"reflect"
	"testing"
)

func TestParseArgs(t *testing.T) {
	got := parseArgs("x", "key#0 ?condition%o@3.0.2(=NX =XX) ?*+pattern#1=GET%p dst#2=STORE%k ip:port!2.8.12 *pair%b(score%d member)")
	want := []Arg{
		{Name: "key", Type: "key", KeySpec: 0},
		{Name: "condition", Type: "oneof", KeySpec: -1, Since: "3.0.2", Flags: []string{"optional"}, Args: []Arg{
			{Name: "nx", Type: "pure-token", KeySpec: -1, Token: "NX"},
			{Name: "xx", Type: "pure-token", KeySpec: -1, Token: "XX"},
		}},
		{Name: "pattern", Type: "pattern", KeySpec: 1, Token: "GET", Flags: []string{"optional", "multiple", "multiple_token"}},
		{Name: "dst", Type: "key", KeySpec: 2, Token: "STORE"},
		{Name: "ip:port", Type: "string", KeySpec: -1, Deprecated: "2.8.12"},
		{Name: "pair", Type: "block", KeySpec: -1, Flags: []string{"multiple"}, Args: []Arg{
			{Name: "score", Type: "double", KeySpec: -1},
			{Name: "member", Type: "string", KeySpec: -1},
		}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseArgs:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{"", "a%x", "a(b", "a%o", "a(b)", "=", "a#x", "a b)", "a  b"} {
		func() {
			defer func() {
				if recover() == nil && bad != "" {
					t.Errorf("parseArgs(%q) did not panic", bad)
				}
			}()
			parseArgs("x", bad)
		}()
	}
}

// TestCommandDocs checks that every command and subcommand a client may
// call is documented for COMMAND DOCS. Redis documents no complexity for
// MONITOR.
func TestCommandDocs(t *testing.T) {
	for i := range commands {
		c := &commands[i]
		if c.Internal {
			continue
		}
		for _, d := range append([]Command{*c}, c.Subcommands...) {
			if d.Group == "" || d.Summary == "" || d.Since == "" || d.Complexity == "" && d.Name != "monitor" {
				t.Errorf("%s: group %q, summary %q, since %q, complexity %q", d.Name, d.Group, d.Summary, d.Since, d.Complexity)
			}
		}
	}
}
