package shardowner

import (
	"testing"

	"github.com/corekv/corekv/resp"
)

// TestNumericEdges sends offsets, lengths, increments, expire times and
// database indexes at the ends of the 64-bit range. Every reply is the one
// redis-server 7.0 gives to the same command.
func TestNumericEdges(t *testing.T) {
	tooLong := errr(resp.ErrStringTooLong)
	offRange := errr(resp.ErrOffsetRange)
	notInt := errr(resp.ErrNotInteger)
	overflow := errr(resp.ErrOverflow)
	nan := errr(resp.ErrIncrNaN)
	dbRange := errr(resp.ErrDBIndex)
	intRange := errr(errIntRange)
	runCases(t, []scriptCase{
		{"setrange", []step{
			{"setrange k 9223372036854775807 x", tooLong},
			{"setrange k 9223372036854775806 xy", tooLong},
			{"setrange k 536870912 x", tooLong},
			{"setrange k 536870911 xy", tooLong},
			{"setrange k -1 x", offRange},
			{"setrange k -9223372036854775808 x", offRange},
			{"setrange k 99999999999999999999 x", notInt},
			{"exists k", num(0)},
			{"set s hello", ok},
			{"setrange s 9223372036854775807 x", tooLong},
			{"get s", bulk("hello")},
		}},
		{"getrange", []step{
			{"set s hello", ok},
			{"getrange s -9223372036854775808 -1", bulk("hello")},
			{"getrange s -9223372036854775808 9223372036854775807", bulk("hello")},
			{"substr s -9223372036854775808 9223372036854775807", bulk("hello")},
			{"getrange s 9223372036854775807 9223372036854775807", empty},
			{"getrange s -1 -9223372036854775808", empty},
			{"getrange s -9223372036854775808 -9223372036854775808", bulk("h")},
			{"getrange s 0 -9223372036854775808", bulk("h")},
			{"getrange s -3 -9223372036854775807", empty},
			{"getrange s 9223372036854775807 -9223372036854775808", empty},
			{"getrange s 4 100", bulk("o")},
			{"getrange s 5 5", empty},
			{"getrange nokey -9223372036854775808 -1", empty},
			{"getrange s 0 9223372036854775808", notInt},
			{"set n 12345", ok},
			{"getrange n -9223372036854775808 9223372036854775807", bulk("12345")},
			{"getrange n -100 -1", bulk("12345")},
		}},
		{"incr and decr", []step{
			{"set i 9223372036854775807", ok},
			{"incr i", overflow},
			{"incrby i 1", overflow},
			{"decrby i -1", overflow},
			{"incrby i 9223372036854775807", overflow},
			{"incrby i -9223372036854775808", num(-1)},
			{"set j -9223372036854775808", ok},
			{"decr j", overflow},
			{"decrby j 1", overflow},
			{"incrby j -1", overflow},
			{"decrby j 9223372036854775807", overflow},
			{"decrby j -9223372036854775808", errr(errDecrOverflow)},
			{"decrby nokey -9223372036854775808", errr(errDecrOverflow)},
			{"exists nokey", num(0)},
			{"incrby new -9223372036854775808", num(-9223372036854775808)},
			{"incrby new -9223372036854775808", overflow},
			{"incrby i 9223372036854775808", notInt},
			{"decrby i -9223372036854775809", notInt},
		}},
		{"incrbyfloat", []step{
			{"set f 1.7976931348623157e308", ok},
			{"incrbyfloat f inf", nan},
			{"incrbyfloat f -inf", nan},
			{"incrbyfloat f nan", errr(resp.ErrNotFloat)},
			{"set g 1.1e4932", ok},
			{"incrbyfloat g 1e4931", nan},
			{"incrbyfloat g 0x1p16384", errr(resp.ErrNotFloat)},
			{"incrbyfloat g -1.1e4932", bulk("0")},
			{"set h 1.2e4932", ok},
			{"incrbyfloat h 0", errr(resp.ErrNotFloat)},
			{"incrbyfloat h2 1e-5000", errr(resp.ErrNotFloat)},
			{"incrbyfloat h3 1e-4950", bulk("0")},
		}},
		{"set expire", []step{
			{"set x v ex 9223372036854775807", errr(resp.ErrInvalidExpire("set"))},
			{"set x v ex 9223372036854775", errr(resp.ErrInvalidExpire("set"))},
			{"set x v ex 9223372036854774", errr(resp.ErrInvalidExpire("set"))},
			{"set x v px 9223372036854775807", errr(resp.ErrInvalidExpire("set"))},
			{"set x v px -9223372036854775808", errr(resp.ErrInvalidExpire("set"))},
			{"set x v exat 9223372036854775807", errr(resp.ErrInvalidExpire("set"))},
			{"set x v exat 9223372036854776", errr(resp.ErrInvalidExpire("set"))},
			{"set x v exat -9223372036854775808", errr(resp.ErrInvalidExpire("set"))},
			{"set x v exat 9223372036854775", ok},
			{"expiretime x", num(9223372036854775)},
			{"set x v pxat 9223372036854775807", ok},
			{"pexpiretime x", num(9223372036854775807)},
			{"setex x 9223372036854775807 v", errr(resp.ErrInvalidExpire("setex"))},
			{"setex x 9223372036854775 v", errr(resp.ErrInvalidExpire("setex"))},
			{"psetex x 9223372036854775807 v", errr(resp.ErrInvalidExpire("psetex"))},
			{"psetex x -9223372036854775808 v", errr(resp.ErrInvalidExpire("psetex"))},
			{"getex x ex 9223372036854775807", errr(resp.ErrInvalidExpire("getex"))},
			{"getex x px 9223372036854775807", errr(resp.ErrInvalidExpire("getex"))},
			{"getex x exat 9223372036854775807", errr(resp.ErrInvalidExpire("getex"))},
			{"getex x ex -9223372036854775808", errr(resp.ErrInvalidExpire("getex"))},
			{"getex x pxat 9223372036854775807", bulk("v")},
			{"getex nope ex 9223372036854775807", null},
		}},
		{"expire", []step{
			{"set x v", ok},
			{"expire x 9223372036854775807", errr(resp.ErrInvalidExpire("expire"))},
			{"expire x 9223372036854775", errr(resp.ErrInvalidExpire("expire"))},
			{"pexpire x 9223372036854775807", errr(resp.ErrInvalidExpire("pexpire"))},
			{"expireat x 9223372036854775807", errr(resp.ErrInvalidExpire("expireat"))},
			{"expireat x 9223372036854776", errr(resp.ErrInvalidExpire("expireat"))},
			{"expire nokey 9223372036854775807", errr(resp.ErrInvalidExpire("expire"))},
			{"expire x -9223372036854776", errr(resp.ErrInvalidExpire("expire"))},
			{"expireat x -9223372036854775808", errr(resp.ErrInvalidExpire("expireat"))},
			{"exists x", num(1)},
			{"expireat x 9223372036854775", num(1)},
			{"pexpireat x 9223372036854775807", num(1)},
			{"pexpiretime x", num(9223372036854775807)},
			{"expire x -9223372036854775", num(1)},
			{"exists x", num(0)},
			{"set x v", ok},
			{"pexpire x -9223372036854775808", num(1)},
			{"exists x", num(0)},
			{"set x v", ok},
			{"pexpireat x -9223372036854775808", num(1)},
			{"exists x", num(0)},
		}},
		{"copy and move db", []step{
			{"set c v", ok},
			{"copy c c2 db 9223372036854775807", intRange},
			{"copy c c2 db -9223372036854775808", intRange},
			{"copy c c2 db 2147483648", intRange},
			{"copy c c2 db -2147483649", intRange},
			{"copy c c2 db 2147483647", dbRange},
			{"copy c c2 db -2147483648", dbRange},
			{"copy c c2 db 16", dbRange},
			{"copy c c2 db -1", dbRange},
			{"copy c c2 db 99999999999999999999", notInt},
			{"move c 9223372036854775807", intRange},
			{"move c -9223372036854775808", intRange},
			{"move c 2147483648", intRange},
			{"move c 2147483647", dbRange},
			{"move c -1", dbRange},
			{"move c 16", dbRange},
			{"move c 99999999999999999999", notInt},
			{"move nokey 16", dbRange},
			{"copy c c2 db 15", num(1)},
		}},
	})

	// An empty value changes nothing and is not checked against the limit.
	c := newTestCtx()
	if got := do(c, "setrange", "k", "9223372036854775807", ""); got != num(0) {
		t.Errorf("SETRANGE of nothing on a missing key = %q, want :0", got)
	}
	do(c, "set", "s", "hello")
	if got := do(c, "setrange", "s", "9223372036854775807", ""); got != num(5) {
		t.Errorf("SETRANGE of nothing = %q, want :5", got)
	}
}
