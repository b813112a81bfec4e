package router

import "github.com/corekv/corekv/resp"

// georadiusKeys finds GEORADIUS's keys as its handler reads them: the key
// searched, then the destination of the last STORE or STOREDIST, which is
// the one it writes. COUNT's argument is stepped over, as the handler
// steps over it.
func georadiusKeys(dst []int, argv [][]byte) []int { return geoStoreKeys(dst, argv, 6) }

// georadiusByMemberKeys is georadiusKeys for GEORADIUSBYMEMBER, whose
// options begin one argument earlier.
func georadiusByMemberKeys(dst []int, argv [][]byte) []int { return geoStoreKeys(dst, argv, 5) }

func geoStoreKeys(dst []int, argv [][]byte, base int) []int {
	dst = append(dst, 1)
	store := 0
	for i := base; i+1 < len(argv); i++ {
		a := argv[i]
		switch {
		case resp.EqualFold(a, "count"):
			i++
		case resp.EqualFold(a, "store"), resp.EqualFold(a, "storedist"):
			store = i + 1
			i++
		}
	}
	if store > 0 {
		dst = append(dst, store)
	}
	return dst
}
