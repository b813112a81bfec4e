//go:build !race

package kvtable

const raceEnabled = false
