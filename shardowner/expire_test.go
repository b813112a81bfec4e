package shardowner

import (
	"testing"

	"github.com/corekv/corekv/resp"
)

func TestExpire(t *testing.T) {
	nowS := ms(testNow / 1000)
	runCases(t, []scriptCase{
		{"relative", []step{
			{"expire k 10", num(0)},
			{"set k v", ok},
			{"ttl k", num(-1)},
			{"pttl k", num(-1)},
			{"expiretime k", num(-1)},
			{"expire k 10", num(1)},
			{"ttl k", num(10)},
			{"pttl k", num(10000)},
			{"expiretime k", num(testNow/1000 + 10)},
			{"pexpiretime k", num(testNow + 10000)},
			{"@tick 4400", ""},
			{"ttl k", num(6)},
			{"@tick 200", ""},
			{"ttl k", num(5)},
			{"pttl k", num(5400)},
			{"pexpire k 100", num(1)},
			{"pttl k", num(100)},
			{"@tick 100", ""},
			{"ttl k", num(-2)},
			{"pttl k", num(-2)},
			{"expiretime k", num(-2)},
			{"get k", null},
		}},
		{"absolute", []step{
			{"set k v", ok},
			{"expireat k " + ms(testNow/1000+100), num(1)},
			{"ttl k", num(100)},
			{"pexpireat k " + ms(testNow+250), num(1)},
			{"pttl k", num(250)},
			{"pexpiretime k", num(testNow + 250)},
			{"expiretime k", num(testNow/1000 + 0)},
		}},
		{"past deletes", []step{
			{"set k v", ok},
			{"expire k 0", num(1)},
			{"exists k", num(0)},
			{"set k v", ok},
			{"expire k -10", num(1)},
			{"exists k", num(0)},
			{"set k v", ok},
			{"pexpireat k " + ms(testNow), num(1)},
			{"exists k", num(0)},
			{"set k v", ok},
			{"expireat k 1", num(1)},
			{"dbsize", num(0)},
			{"expire k -10", num(0)},
		}},
		{"options", []step{
			{"set k v", ok},
			{"expire k 100 xx", num(0)},
			{"expire k 100 gt", num(0)},
			{"expire k 100 lt", num(1)},
			{"expire k 100 nx", num(0)},
			{"ttl k", num(100)},
			{"expire k 200 lt", num(0)},
			{"expire k 50 gt", num(0)},
			{"expire k 100 gt", num(0)},
			{"expire k 200 gt", num(1)},
			{"expire k 50 lt xx", num(1)},
			{"ttl k", num(50)},
			{"persist k", num(1)},
			{"expire k 30 nx", num(1)},
			{"ttl k", num(30)},
			{"expire k 40 NX", num(0)},
		}},
		{"option errors", []step{
			{"set k v", ok},
			{"expire k 10 nx xx", errr(errExpireNXConflict)},
			{"expire k 10 nx gt", errr(errExpireNXConflict)},
			{"expire k 10 lt nx", errr(errExpireNXConflict)},
			{"expire k 10 gt lt", errr(errExpireGTLT)},
			{"expire k 10 xx gt lt", errr(errExpireGTLT)},
			{"expire k 10 foo", "-ERR Unsupported option foo\r\n"},
			{"expire k 10 nx foo", "-ERR Unsupported option foo\r\n"},
			{"expire k abc", errr(resp.ErrNotInteger)},
			{"expire k abc nx xx", errr(errExpireNXConflict)},
			{"expire k 9223372036854776", errr(resp.ErrInvalidExpire("expire"))},
			{"expire k -9223372036854776", errr(resp.ErrInvalidExpire("expire"))},
			{"pexpire k 9223372036854775807", errr(resp.ErrInvalidExpire("pexpire"))},
			{"expireat k 9223372036854776", errr(resp.ErrInvalidExpire("expireat"))},
			{"pexpireat k 9223372036854775807", num(1)},
			{"pexpiretime k", num(9223372036854775807)},
			{"expire nope 9223372036854776", errr(resp.ErrInvalidExpire("expire"))},
			{"ttl k", num((9223372036854775807 - testNow + 500) / 1000)},
		}},
		{"persist", []step{
			{"persist k", num(0)},
			{"set k v", ok},
			{"persist k", num(0)},
			{"expire k 10", num(1)},
			{"persist k", num(1)},
			{"ttl k", num(-1)},
			{"expireat k " + nowS, num(1)},
			{"persist k", num(0)},
		}},
	})
}

// TestExpireEdges covers replies Redis shapes in ways easy to miss: an
// expiry time at the end of int64, rounded to seconds, and an unknown
// option holding a NUL byte, which Redis's error text cuts short.
func TestExpireEdges(t *testing.T) {
	runCases(t, []scriptCase{
		{"time at the end of int64", []step{
			{"set k v", ok},
			{"pexpireat k 9223372036854775807", num(1)},
			{"pexpiretime k", num(9223372036854775807)},
			{"expiretime k", num(9223372036854776)},
			{"ttl k", num((9223372036854775807-testNow)/1000 + 1)},
			{"set k v pxat 9223372036854775499", ok},
			{"expiretime k", num(9223372036854775)},
		}},
		{"option with a NUL", []step{
			{"set k v", ok},
			{"expire k 10 xx\x00yy", errr("ERR Unsupported option xx")},
			{"pexpireat k 10 \x00", errr("ERR Unsupported option ")},
			{"ttl k", num(-1)},
		}},
	})
}
