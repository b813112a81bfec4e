//go:build !race

package reactor

const raceEnabled = false
