//go:build !race

package shardowner

const raceEnabled = false
