package shardowner

import "testing"

// SkipUnderRace skips a test that drives a shard from one goroutine, where
// the race detector has nothing to find, and takes minutes under it. The
// README's test command runs this package again without -race, so such
// tests still run on every change.
func SkipUnderRace(t testing.TB) {
	if raceEnabled {
		t.Skip("one goroutine only, minutes under -race: runs in the pass without it")
	}
}
