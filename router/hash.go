package router

import (
	"bytes"
	"hash/maphash"
	"math/bits"
)

// seed is fixed for the life of the process: every core must send a key to
// the same shard. It is random per process on purpose; nothing outside the
// process sees shard numbers.
var seed = maphash.MakeSeed()

// HashTag returns the part of key that decides its shard: the text between
// the first '{' and the next '}' when that is non-empty, else the whole key.
// This is Redis Cluster's rule, so keys that share a tag share a shard.
func HashTag(key []byte) []byte {
	i := bytes.IndexByte(key, '{')
	if i < 0 {
		return key
	}
	if j := bytes.IndexByte(key[i+1:], '}'); j > 0 {
		return key[i+1 : i+1+j]
	}
	return key
}

// ShardOf returns the shard that owns key among n shards.
func ShardOf(key []byte, n int) int {
	if n == 1 {
		return 0
	}
	h := maphash.Bytes(seed, HashTag(key))
	// Multiply-shift maps the hash onto [0, n) without a division.
	hi, _ := bits.Mul64(h, uint64(n))
	return int(hi)
}
