package kvtable

import "testing"

// check fails the test when the table's invariants do not hold.
func (t *Table) check(tb testing.TB) {
	tb.Helper()
	if err := t.Check(); err != nil {
		tb.Fatal(err)
	}
}
