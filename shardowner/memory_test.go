package shardowner

import (
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func TestMemory(t *testing.T) {
	c := newTestCtx()
	runScript(t, c, []step{
		{"memory usage missing", "$-1\r\n"},
		{"memory usage", "-" + string(resp.ErrWrongArgs("memory|usage")) + "\r\n"},
		{"memory help x", "-" + string(resp.ErrWrongArgs("memory|help")) + "\r\n"},
		{"memory doctor", "-ERR unknown subcommand 'doctor'. Try MEMORY HELP.\r\n"},
		{"memory \x00doctor", "-ERR unknown subcommand ''. Try MEMORY HELP.\r\n"},
		{"set k v", "+OK\r\n"},
		{"memory usage k samples", "-" + string(resp.ErrSyntax) + "\r\n"},
		{"memory usage k samples x", "-" + string(resp.ErrNotInteger) + "\r\n"},
		{"memory usage k samples -1", "-" + string(resp.ErrSyntax) + "\r\n"},
		{"memory usage missing samples -5", "-" + string(resp.ErrSyntax) + "\r\n"},
	})
	// The figure follows the real layout: at least the key and the value,
	// and more for a bigger value.
	small := memoryUsage(t, c, "k")
	if small < len("k")+len("v") {
		t.Fatalf("MEMORY USAGE k = %d, less than its bytes", small)
	}
	do(c, "set", "big", strings.Repeat("x", 1000))
	if big := memoryUsage(t, c, "big"); big < 1000 || big <= small {
		t.Fatalf("MEMORY USAGE big = %d (small key: %d)", big, small)
	}
	if got := do(c, "memory", "usage", "k", "samples", "0"); got != ":"+strconv.Itoa(small)+"\r\n" {
		t.Fatalf("MEMORY USAGE k SAMPLES 0 = %q", got)
	}
}

func memoryUsage(t *testing.T, c *Ctx, key string) int {
	t.Helper()
	r := do(c, "memory", "usage", key)
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(r, ":"), "\r\n"))
	if err != nil {
		t.Fatalf("MEMORY USAGE %s = %q", key, r)
	}
	return n
}
