package router

import (
	"bytes"

	"github.com/corekv/corekv/resp"
	"github.com/corekv/corekv/shardowner"
)

// SORT's patterns (BY, GET) read keys of the sorted key's shard only; the
// handler asks the router's hash which shard a key is on.
func init() { shardowner.KeyShard = ShardOf }

// sortKeys finds SORT's keys as Redis's COMMAND GETKEYS does: the sorted
// key, then the destination of the last STORE that has one. LIMIT's two
// arguments and BY's and GET's one are stepped over; STORE's is not, so
// "STORE LIMIT 1 2" stores into "LIMIT" and the words after it are read
// as options.
func sortKeys(dst []int, argv [][]byte) []int {
	dst = append(dst, 1)
	store := 0
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case resp.EqualFold(a, "limit"):
			i += 2
		case resp.EqualFold(a, "store") && i+1 < len(argv):
			store = i + 1
		case resp.EqualFold(a, "get"), resp.EqualFold(a, "by"):
			i++
		}
	}
	if store > 0 {
		dst = append(dst, store)
	}
	return dst
}

// sortReadsOthers reports whether SORT's or SORT_RO's options name a BY or
// GET pattern that reads keys: one with a '*', other than GET #.
func sortReadsOthers(argv [][]byte) bool {
	for i := 2; i < len(argv); i++ {
		a := argv[i]
		switch {
		case resp.EqualFold(a, "limit"):
			i += 2
		case resp.EqualFold(a, "get"), resp.EqualFold(a, "by"):
			if i+1 < len(argv) && bytes.IndexByte(argv[i+1], '*') >= 0 {
				return true
			}
			i++
		}
	}
	return false
}
