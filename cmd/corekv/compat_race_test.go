//go:build race

package main

// A test binary built with -race builds the corekv server it compares with
// Redis with -race too, so the differential test also checks the threads
// that share the rings between shards.
func init() { compatRace = true }
