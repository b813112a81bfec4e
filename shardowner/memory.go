package shardowner

import (
	"github.com/corekv/corekv/resp"
)

var memoryHelp = []string{
	"MEMORY <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"USAGE <key> [SAMPLES <count>]",
	"    Return memory in bytes used by <key> and its value, as laid out in the",
	"    shard's table: its entry in the arena, its index slot and its TTL record.",
	"HELP",
	"    Print this help.",
}

// Memory: MEMORY USAGE key [SAMPLES count] and MEMORY HELP. The figure comes
// from the table's real layout, so it is what the key costs here, not an
// estimate of what it would cost in Redis.
func Memory(c *Ctx, argv [][]byte) {
	sub := argv[1]
	switch {
	case resp.EqualFold(sub, "help"):
		if len(argv) != 2 {
			c.W.Err(resp.ErrWrongArgs("memory|help"))
			return
		}
		c.W.SimpleArray(memoryHelp)
	case resp.EqualFold(sub, "usage"):
		if len(argv) < 3 {
			c.W.Err(resp.ErrWrongArgs("memory|usage"))
			return
		}
		for i := 3; i < len(argv); i += 2 {
			if !resp.EqualFold(argv[i], "samples") || i+1 >= len(argv) {
				c.W.Err(resp.ErrSyntax)
				return
			}
			n, ok := resp.ParseInt(argv[i+1])
			if !ok {
				c.W.Err(resp.ErrNotInteger)
				return
			}
			if n < 0 { // Redis: a negative sample count is a syntax error
				c.W.Err(resp.ErrSyntax)
				return
			}
		}
		n, ok := c.Table().MemoryUsage(argv[2])
		if !ok {
			c.W.Null()
			return
		}
		c.W.Int(int64(n))
	default:
		c.W.Err(resp.ErrUnknownSubcommand("memory", sub))
	}
}
