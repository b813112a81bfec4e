//go:build race

package reactor

// raceEnabled: the race detector makes sync.Pool drop items at random, so
// pooled buffers allocate.
const raceEnabled = true
