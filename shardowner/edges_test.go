package shardowner

import (
	"runtime"
	"strconv"
	"strings"
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

// TestAppendCopies builds a 4 MiB value by 1 KiB APPENDs and SETRANGEs past
// its end, and measures the bytes allocated meanwhile, which is what copying
// the value costs: a value that grows with room to spare needs a few times
// its final size, where copying it whole on every call needs over 4 GiB.
func TestAppendCopies(t *testing.T) {
	for _, cmd := range []string{"append", "setrange"} {
		c := newTestCtx()
		chunk := string(make([]byte, 1024))
		const n = 4 << 10
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := 0; i < n; i++ {
			argv := []string{cmd, "k", chunk}
			if cmd == "setrange" {
				argv = []string{cmd, "k", strconv.Itoa(i * len(chunk)), chunk}
			}
			if got, want := do(c, argv...), num(int64((i+1)*len(chunk))); got != want {
				t.Fatalf("%s %d = %q, want %q", cmd, i, got, want)
			}
		}
		runtime.ReadMemStats(&after)
		got := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s: building %d bytes allocated %d", cmd, n*1024, got)
		if got > 16*n*1024 {
			t.Errorf("%s: building %d bytes allocated %d", cmd, n*1024, got)
		}
	}
}

// TestBigTemporariesGoBack runs commands that need a value-sized temporary
// buffer (COPY, RENAME, MOVE, SET … GET, GETSET, APPEND, KEYS) on a 32 MiB
// value, then drops the keys: once the collector has run, the heap must not
// keep a buffer of that size for the next command.
func TestBigTemporariesGoBack(t *testing.T) {
	c := newTestCtx()
	func() {
		big := strings.Repeat("x", 32<<20)
		runScript(t, c, []step{
			{"set k " + big, ok},
			{"copy k k2", num(1)},
			{"copy k k4 db 1", num(1)},
			{"rename k k3", ok},
			{"move k3 2", num(1)},
			{"set k2 y get", bulk(big)},
			{"getset k2 z", bulk("y")},
			{"append k2 " + big, num(1 + 32<<20)},
			{"dbsize", num(1)},
			{"flushall", ok},
		})
	}()
	c.W = &resp.Writer{} // the reply buffer is the connection's business
	var m runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&m)
	if m.HeapAlloc > 16<<20 {
		t.Errorf("heap holds %d bytes after the keys are gone", m.HeapAlloc)
	}
	runtime.KeepAlive(c) // as a core keeps its Ctx
}
