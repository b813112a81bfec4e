package shardowner

import (
	"strconv"
	"strings"
	"testing"
)

// TestTableFull fills a table whose arena is capped at a few pages: a write
// that finds no room answers errFull and changes nothing, however the
// command reaches the table.
func TestTableFull(t *testing.T) {
	c := newTestCtx()
	c.Table().LimitPages(8)
	big := strings.Repeat("v", 9000) // over the biggest size class: a page each
	n := 0
	for ; n < 100; n++ {
		if got := do(c, "set", "k"+strconv.Itoa(n), big); got != ok {
			if got != errr(errFull) {
				t.Fatalf("SET %d = %q", n, got)
			}
			break
		}
	}
	if n == 0 || n == 100 {
		t.Fatalf("%d big values fit in 8 pages", n)
	}
	full := errr(errFull)
	runScript(t, c, []step{
		{"set small x", full},
		{"exists small", num(0)},
		{"incr counter", full},
		{"append small x", full},
		{"setrange small 3 x", full},
		{"incrbyfloat f 1.5", full},
		{"mset small x other y", full},
		{"msetnx small x other y", full},
		{"setnx small x", full},
		{"set small x get", full},
		{"getset small x", full},
		{"dbsize", num(int64(n))},
		{"rename k0 renamed", full},
		{"copy k0 copied", full},
		{"exists k0 renamed copied", num(1)},
		{"expire k0 100", full},
		{"getex k0 ex 100", full},
		{"ttl k0", num(-1)},
		{"append k0 x", full},
		{"strlen k0", num(9000)},
		{"set k0 " + big + "w get", full},
		{"strlen k0", num(9000)},
		{"del k1 k2", num(2)},
		{"set small x", ok},
		{"rename k0 renamed", ok},
		{"exists k0 renamed", num(1)},
	})
}
