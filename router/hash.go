package router

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

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

// ShardOf returns the shard that owns key among n shards. The mapping is
// the same in every process: a shard's incremental append-only file holds
// the keys it owns, and a restart with as many shards replays each file on
// its own shard. A client that wants its keys on one shard can say so
// anyway (hash tags), so a fixed hash gives nothing away; the tables hash
// keys with a seed of their own.
func ShardOf(key []byte, n int) int {
	if n == 1 {
		return 0
	}
	h := shardHash(HashTag(key))
	// Multiply-shift maps the hash onto [0, n) without a division.
	hi, _ := bits.Mul64(h, uint64(n))
	return int(hi)
}

// Constants of shardHash's multiply-mix rounds (odd, well-mixed).
const (
	mixA = 0xa0761d6478bd642f
	mixB = 0xe7037ed1a0b428db
	mixC = 0x8ebc6af09c88c6e3
)

// shardHash is a fixed 64-bit hash of b: eight bytes at a time folded in
// by a 128-bit multiply, whose high bits ShardOf takes.
func shardHash(b []byte) uint64 {
	h := uint64(len(b)) ^ mixA
	for len(b) >= 8 {
		hi, lo := bits.Mul64(binary.LittleEndian.Uint64(b)^mixB, h^mixC)
		h = hi ^ lo
		b = b[8:]
	}
	var t uint64
	for i, c := range b {
		t |= uint64(c) << (8 * i)
	}
	hi, lo := bits.Mul64(t^mixB, h^mixA)
	hi, lo = bits.Mul64(hi^lo, mixC)
	return hi ^ lo
}
