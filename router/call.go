package router

import (
	"time"

	"github.com/corekv/corekv/shardowner"
)

// epoch is the origin of Now. It carries a monotonic reading, so time.Since
// reads only the monotonic clock, once.
var epoch = time.Now()

// Now is a monotonic clock reading in nanoseconds, for timing commands.
func Now() int64 { return int64(time.Since(epoch)) }

// Origin says for whom and as what a command runs on a shard.
type Origin struct {
	Client int64 // the connection's ID, for the slow log
	// Part marks one part of a command split over shards: the home core
	// counts the command's call and failure once, and the part adds its
	// time.
	Part bool
	// Lead marks the part that stands for the whole in the slow log.
	Lead bool
	// Held marks a part of a transaction (Txn): it runs under the keys
	// its transaction holds on the shard, where other commands wait.
	Held bool
}

// Call runs cmd with argv on the shard and database of ctx, its reply going
// to ctx.W. Every command that runs on a shard passes here, whether its
// client is on this core, on another (router.Batch), or it is one part of a
// multi-shard plan, so this is where a command's run is accounted: its call,
// time and failure in the shard's command statistics, and the slow log. It
// is also the place for propagation (AOF, replicas) once that exists; WATCH
// and keyspace notifications hear of changes from the tables and the
// handlers themselves.
//
// start is the clock (Now) when the command began; Call returns the clock
// when it ended, so that a caller running commands back to back reads the
// clock once per command.
func Call(ctx *shardowner.Ctx, cmd *Command, argv [][]byte, o Origin, start int64) int64 {
	errs := ctx.W.Errors
	cmd.Run(ctx, argv)
	return Account(ctx.Shard, cmd, argv, o, start, ctx.W.Errors != errs)
}

// Account records a run of cmd that began at start on shard sh and returns
// the clock now. Commands that run on the client's home core outside any
// keyspace (RouteHome) are accounted through it directly.
func Account(sh *shardowner.Shard, cmd *Command, argv [][]byte, o Origin, start int64, failed bool) int64 {
	end := Now()
	d := end - start
	sh.Record(cmd.ID, uint64(d), !o.Part, failed && !o.Part)
	if cfg := sh.Slowlog; cfg != nil && (!o.Part || o.Lead) && cmd.Flags&FlagSkipSlowlog == 0 {
		if t := cfg.SlowerThan.Load(); t >= 0 && d/1000 >= t {
			sh.LogSlow(argv, d/1000, o.Client)
		}
	}
	return end
}
