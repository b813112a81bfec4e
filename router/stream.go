package router

import "github.com/corekv/corekv/resp"

// xreadKeys finds XREAD's keys as Redis's xreadGetKeys does: the first
// half of the arguments after the STREAMS option, found past the options
// before it (STREAMS may also name a key or a group). Malformed arguments
// give none: the command runs on the client's core, which answers its
// error.
func xreadKeys(dst []int, argv [][]byte) []int {
	at := -1
scan:
	for i := 1; i < len(argv); i++ {
		switch a := argv[i]; {
		case resp.EqualFold(a, "block"), resp.EqualFold(a, "count"):
			i++
		case resp.EqualFold(a, "group"):
			i += 2
		case resp.EqualFold(a, "noack"):
		case resp.EqualFold(a, "streams"):
			at = i
			break scan
		default:
			break scan
		}
	}
	n := len(argv) - at - 1
	if at < 0 || n == 0 || n%2 != 0 {
		return dst
	}
	for i := at + 1; i <= at+n/2; i++ {
		dst = append(dst, i)
	}
	return dst
}
