//go:build race

package main

// raceBuild makes the tests build the server with the race detector when
// they run with it, so the threads that share rings are checked too.
const raceBuild = true
