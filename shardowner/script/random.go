package script

import (
	"math"

	lua "github.com/yuin/gopher-lua"
)

// rand48 is the 48-bit linear congruential generator of POSIX lrand48,
// which Redis ships as its own (rand.c) so that math.random gives the same
// sequence on every platform: x' = (a*x + c) mod 2^48, the output the top 31
// bits.
type rand48 struct{ x uint64 }

const (
	rand48A    = 0x5DEECE66D
	rand48C    = 0xB
	rand48Mask = 1<<48 - 1
	// rand48Init is the state before any seeding: lrand48's default seed.
	rand48Init = 0x1234ABCD330E
	// rand48Max is Redis's REDIS_LRAND48_MAX, INT32_MAX.
	rand48Max = math.MaxInt32
)

// seed sets the state as srand48 does: the seed's 32 bits above 0x330E.
func (r *rand48) seed(s int32) { r.x = uint64(uint32(s))<<16 | 0x330E }

// next is one lrand48() draw, in [0, 2^31).
func (r *rand48) next() int32 {
	r.x = (rand48A*r.x + rand48C) & rand48Mask
	return int32(r.x >> 17)
}

// mathRandom is Redis's math.random: Lua 5.1's own with rand() replaced by
// the generator above. Redis 7.0 neither seeds the generator at start nor
// reseeds it before each script: the sequence goes on from script to
// script, and math.randomseed restarts it.
func (e *Engine) mathRandom(L *lua.LState) int {
	r := float64(e.rand.next()%rand48Max) / float64(rand48Max)
	switch L.GetTop() {
	case 0:
		L.Push(lua.LNumber(r))
	case 1:
		u := checkInt(L, 1, "random")
		if u < 1 {
			argError(L, 1, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
	case 2:
		l := checkInt(L, 1, "random")
		u := checkInt(L, 2, "random")
		if l > u {
			argError(L, 2, "random", "interval is empty")
		}
		L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
	default:
		L.RaiseError("wrong number of arguments")
	}
	return 1
}

// mathRandomseed is Redis's math.randomseed: srand48 with the argument
// truncated to an int.
func (e *Engine) mathRandomseed(L *lua.LState) int {
	e.rand.seed(int32(checkInt(L, 1, "randomseed")))
	return 0
}
