//go:build race

package shardowner

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// pooled buffers allocate.
const raceEnabled = true
