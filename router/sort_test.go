package router

import (
	"slices"
	"testing"
)

// TestSortKeys: SORT's keys as Redis 7.0's COMMAND GETKEYS finds them.
func TestSortKeys(t *testing.T) {
	for _, tc := range []struct {
		line string
		want []int
	}{
		{"sort a", []int{1}},
		{"sort a store b", []int{1, 3}},
		{"sort a STORE b store c", []int{1, 5}},
		{"sort a by x store b", []int{1, 5}},
		{"sort a get store b", []int{1}},
		{"sort a limit 0 store", []int{1}},
		{"sort a store limit 1 2", []int{1, 3}},
		{"sort a store", []int{1}},
		{"sort_ro a store b", []int{1}},
	} {
		argv := words(tc.line)
		if got := LookupString(string(argv[0])).KeyIndexes(nil, argv); !slices.Equal(got, tc.want) {
			t.Errorf("%q: keys at %v, want %v", tc.line, got, tc.want)
		}
	}
}

// TestSortReadsOthers: a BY or GET pattern with '*' reads other keys.
func TestSortReadsOthers(t *testing.T) {
	for line, want := range map[string]bool{
		"sort a": false, "sort a by nosort": false, "sort a get #": false, "sort a get x": false,
		"sort a by w_*": true, "sort_ro a get h_*->f": true, "sort a limit by w_* get #": false,
		"sort a alpha get # GET w_*": true, "sort a store by*": false, "sort a by": false,
	} {
		if got := sortReadsOthers(words(line)); got != want {
			t.Errorf("%q: %v, want %v", line, got, want)
		}
	}
}

// TestLocksSortPatterns: a SORT whose patterns read keys waits while a
// transaction holds any key of the shard; one without runs beside it.
func TestLocksSortPatterns(t *testing.T) {
	var e lockEnv
	e.arrive(9, false, "corekv.lock 9 0 w_a")
	e.arrive(1, false, "sort l get #")  // runs: no key read
	e.arrive(1, false, "sort l by w_*") // waits for the whole shard
	e.arrive(2, false, "sort_ro m")     // waits behind it, in arrival order
	e.expect(t, "9:corekv.lock 9 0 w_a", "1:sort l get #")
	e.arrive(9, false, "corekv.unlock 9")
	e.expect(t, "9:corekv.unlock 9", "1:sort l by w_*", "2:sort_ro m")
}
