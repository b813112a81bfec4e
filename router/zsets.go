package router

import so "github.com/corekv/corekv/shardowner"

// The sorted-set commands that take a count of keys check on the shard
// that their keys are all there.
func init() { so.ShardOfKey = ShardOf }
