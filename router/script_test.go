package router

import (
	"slices"
	"strings"
	"testing"
)

// TestScriptKeys: a script's keys are the numkeys arguments after the
// count; a count that names no key present names none, so the script runs
// on its client's shard and answers the error there.
func TestScriptKeys(t *testing.T) {
	eval := LookupString("eval")
	for _, tc := range []struct {
		line string
		want []int
	}{
		{"EVAL s 0", nil},
		{"EVAL s 0 a b", nil},
		{"EVAL s 1 a b", []int{3}},
		{"EVAL s 2 a b", []int{3, 4}},
		{"EVAL s 3 a b", nil},
		{"EVAL s -1 a", nil},
		{"EVAL s x a", nil},
	} {
		var argv [][]byte
		for _, w := range strings.Fields(tc.line) {
			argv = append(argv, []byte(w))
		}
		if got := eval.KeyIndexes(nil, argv); !slices.Equal(got, tc.want) {
			t.Errorf("%s: keys at %v, want %v", tc.line, got, tc.want)
		}
	}
	for _, name := range []string{"eval", "evalsha", "eval_ro", "evalsha_ro"} {
		c := LookupString(name)
		if c.RunAs == nil || c.Run == nil || c.ReadsOthers == nil || !c.ReadsOthers(nil) {
			t.Errorf("%s: a script runs through RunAs, loads through Run, and holds its shard whole", name)
		}
	}
}
