//go:build race

package shardowner

// raceEnabled: sync.Pool (and so bytebufferpool) drops entries at random
// under the race detector, so allocation counts do not hold.
const raceEnabled = true
