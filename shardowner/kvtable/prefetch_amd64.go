package kvtable

import "unsafe"

// prefetch asks the CPU to bring the cache line at p in, without waiting
// for it: the touches of a batch then take no room in the CPU's window of
// instructions while their loads are in flight. It returns 0.
//
//go:noescape
func prefetch(p unsafe.Pointer) uint64
