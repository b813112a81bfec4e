package shardowner

import (
	"strconv"
	"testing"

	"github.com/corekv/corekv/resp"
)

func ms(n int64) string { return strconv.FormatInt(n, 10) }

func TestSet(t *testing.T) {
	invalidSet := errr(resp.ErrInvalidExpire("set"))
	runCases(t, []scriptCase{
		{"basic", []step{
			{"set k v", ok},
			{"get k", bulk("v")},
			{"get nope", null},
			{"SET k w", ok},
			{"get k", bulk("w")},
		}},
		{"nx xx", []step{
			{"set k v nx", ok},
			{"set k w nx", null},
			{"get k", bulk("v")},
			{"set k2 v xx", null},
			{"exists k2", num(0)},
			{"set k w XX", ok},
			{"get k", bulk("w")},
			{"set k w nx nx", null},
		}},
		{"syntax", []step{
			{"set k v nx xx", errr(resp.ErrSyntax)},
			{"set k v xx nx", errr(resp.ErrSyntax)},
			{"set k v ex 10 px 100", errr(resp.ErrSyntax)},
			{"set other v ex 10 ex 10", ok}, // the same option twice: the last wins, as in Redis 7
			{"set k v ex 10 keepttl", errr(resp.ErrSyntax)},
			{"set k v keepttl pxat 10", errr(resp.ErrSyntax)},
			{"set k v ex", errr(resp.ErrSyntax)},
			{"set k v persist", errr(resp.ErrSyntax)},
			{"set k v foo", errr(resp.ErrSyntax)},
			// Conflicts are found before the expire value is read.
			{"set k v ex abc nx xx", errr(resp.ErrSyntax)},
			{"exists k", num(0)},
		}},
		{"expire values", []step{
			{"set k v ex abc", errr(resp.ErrNotInteger)},
			{"set k v ex 1.5", errr(resp.ErrNotInteger)},
			{"set k v ex 0", invalidSet},
			{"set k v px -1", invalidSet},
			{"set k v exat 0", invalidSet},
			{"set k v ex 9223372036854776", invalidSet},
			{"set k v px 9223372036854775807", invalidSet},
			{"set k v ex 9223372036854775808", errr(resp.ErrNotInteger)},
			{"exists k", num(0)},
		}},
		{"ttl options", []step{
			{"set k v ex 10", ok},
			{"pttl k", num(10000)},
			{"set k w keepttl", ok},
			{"pttl k", num(10000)},
			{"get k", bulk("w")},
			{"set k v", ok},
			{"ttl k", num(-1)},
			{"set k v px 1500", ok},
			{"pttl k", num(1500)},
			{"@tick 1499", ""},
			{"get k", bulk("v")},
			{"@tick 1", ""},
			{"get k", null},
			{"set k v pxat " + ms(testNow+1500+3500), ok},
			{"pttl k", num(3500)},
			{"set k v exat " + ms(testNow/1000+100), ok},
			{"pexpiretime k", num(testNow + 100000)},
			{"set k v exat 1", ok},
			{"exists k", num(0)},
			{"dbsize", num(0)},
			{"set k v keepttl", ok},
			{"ttl k", num(-1)},
		}},
		{"get option", []step{
			{"set k v get", null},
			{"get k", bulk("v")},
			{"set k 12 get", bulk("v")},
			{"set k w get", bulk("12")},
			{"set k x nx get", bulk("w")},
			{"get k", bulk("w")},
			{"set k2 x xx get", null},
			{"exists k2", num(0)},
			{"set k y get ex 5", bulk("w")},
			{"ttl k", num(5)},
		}},
		{"resp3 nulls", []step{
			{"@resp 3", ""},
			{"get k", null3},
			{"set k v", ok},
			{"set k v nx", null3},
		}},
	})
}

func TestSetVariants(t *testing.T) {
	runCases(t, []scriptCase{
		{"setnx", []step{
			{"setnx k v", num(1)},
			{"setnx k w", num(0)},
			{"get k", bulk("v")},
		}},
		{"setex psetex", []step{
			{"setex k 10 v", ok},
			{"ttl k", num(10)},
			{"get k", bulk("v")},
			{"psetex k 100 w", ok},
			{"pttl k", num(100)},
			{"setex k 0 v", errr(resp.ErrInvalidExpire("setex"))},
			{"psetex k -5 v", errr(resp.ErrInvalidExpire("psetex"))},
			{"setex k abc v", errr(resp.ErrNotInteger)},
			{"get k", bulk("w")},
		}},
		{"getset", []step{
			{"getset k v", null},
			{"expire k 100", num(1)},
			{"getset k 7", bulk("v")},
			{"ttl k", num(-1)},
			{"get k", bulk("7")},
		}},
		{"getdel", []step{
			{"getdel k", null},
			{"set k 42", ok},
			{"getdel k", bulk("42")},
			{"exists k", num(0)},
		}},
		{"getex", []step{
			{"getex k", null},
			{"getex k ex 10", null},
			{"set k v", ok},
			{"getex k", bulk("v")},
			{"getex k ex 100", bulk("v")},
			{"ttl k", num(100)},
			{"getex k px 500", bulk("v")},
			{"pttl k", num(500)},
			{"getex k pxat " + ms(testNow+700), bulk("v")},
			{"pttl k", num(700)},
			{"getex k exat " + ms(testNow/1000+7), bulk("v")},
			{"ttl k", num(7)},
			{"getex k persist", bulk("v")},
			{"ttl k", num(-1)},
			{"getex k ex 10 persist", errr(resp.ErrSyntax)},
			{"getex k persist ex 10", errr(resp.ErrSyntax)},
			{"getex k ex 10 px 10", errr(resp.ErrSyntax)},
			{"getex k keepttl", errr(resp.ErrSyntax)},
			{"getex k get", errr(resp.ErrSyntax)},
			{"getex k ex", errr(resp.ErrSyntax)},
			{"getex k ex 0", errr(resp.ErrInvalidExpire("getex"))},
			{"getex k ex x", errr(resp.ErrNotInteger)},
			{"getex k exat 1", bulk("v")},
			{"exists k", num(0)},
		}},
		{"mget mset msetnx", []step{
			{"mset a 1 b 2", ok},
			{"mget a b c a", "*4\r\n" + bulk("1") + bulk("2") + null + bulk("1")},
			{"mset a 1 b", errr(resp.ErrWrongArgs("mset"))},
			{"msetnx c 3 a 9", num(0)},
			{"exists c", num(0)},
			{"get a", bulk("1")},
			{"msetnx c 3 d 4", num(1)},
			{"mget c d", "*2\r\n" + bulk("3") + bulk("4")},
			{"msetnx c", errr(resp.ErrWrongArgs("msetnx"))},
			{"@resp 3", ""},
			{"mget x", "*1\r\n_\r\n"},
		}},
	})
}

func TestStringEdits(t *testing.T) {
	runCases(t, []scriptCase{
		{"append strlen", []step{
			{"strlen k", num(0)},
			{"append k abc", num(3)},
			{"append k def", num(6)},
			{"get k", bulk("abcdef")},
			{"strlen k", num(6)},
			{"set n 12", ok},
			{"strlen n", num(2)},
			{"append n 3", num(3)},
			{"object encoding n", bulk("raw")}, // APPEND leaves Redis's raw encoding
			{"incr n", num(124)},
			{"set n -12345", ok},
			{"strlen n", num(6)},
			{"expire k 100", num(1)},
			{"append k g", num(7)},
			{"ttl k", num(100)},
		}},
		{"getrange", []step{
			{"set k Hello,World", ok},
			{"getrange k 0 4", bulk("Hello")},
			{"getrange k -5 -1", bulk("World")},
			{"getrange k 0 -1", bulk("Hello,World")},
			{"getrange k 6 100", bulk("World")},
			{"getrange k 5 3", empty},
			{"getrange k -1 -5", empty},
			{"getrange k -100 2", bulk("Hel")},
			{"getrange k -100 -50", bulk("H")},
			{"getrange k 11 20", empty},
			{"substr k 0 0", bulk("H")},
			{"getrange nope 0 -1", empty},
			{"getrange k x 1", errr(resp.ErrNotInteger)},
			{"set n 12345", ok},
			{"getrange n 1 2", bulk("23")},
		}},
		{"setrange", []step{
			{"set k Hello,World", ok},
			{"setrange k 6 Redis", num(11)},
			{"get k", bulk("Hello,Redis")},
			{"setrange k 11 !", num(12)},
			{"get k", bulk("Hello,Redis!")},
			{"setrange k2 3 ab", num(5)},
			{"get k2", bulk("\x00\x00\x00ab")},
			{"setrange k -1 x", errr(resp.ErrOffsetRange)},
			{"setrange k x x", errr(resp.ErrNotInteger)},
			{"setrange k 536870912 x", errr(resp.ErrStringTooLong)},
			{"set n 100", ok},
			{"setrange n 1 5", num(3)},
			{"get n", bulk("150")},
			{"object encoding n", bulk("raw")}, // so does SETRANGE
			{"expire n 50", num(1)},
			{"setrange n 3 0", num(4)},
			{"ttl n", num(50)},
		}},
	})
	// Empty values cannot be written by the space-split scripts.
	c := newTestCtx()
	if got := do(c, "setrange", "k", "5", ""); got != num(0) {
		t.Fatalf("setrange on a missing key with an empty value: %q", got)
	}
	if got := do(c, "exists", "k"); got != num(0) {
		t.Fatalf("setrange with an empty value created the key: %q", got)
	}
	do(c, "set", "k", "abc")
	if got := do(c, "setrange", "k", "100", ""); got != num(3) {
		t.Fatalf("setrange with an empty value: %q", got)
	}
	if got := do(c, "append", "k", ""); got != num(3) {
		t.Fatalf("append of nothing: %q", got)
	}
	if got := do(c, "set", "s", " 1"); got != ok {
		t.Fatal(got)
	}
	if got := do(c, "incr", "s"); got != errr(resp.ErrNotInteger) {
		t.Fatalf("incr of a spaced number: %q", got)
	}
}

func TestIncr(t *testing.T) {
	runCases(t, []scriptCase{
		{"incr decr", []step{
			{"incr n", num(1)},
			{"incr n", num(2)},
			{"decr n", num(1)},
			{"decr n", num(0)},
			{"decr n", num(-1)},
			{"incrby n 100", num(99)},
			{"decrby n 200", num(-101)},
			{"get n", bulk("-101")},
			{"decr m", num(-1)},
			{"incrby x -5", num(-5)},
		}},
		{"errors", []step{
			{"set s abc", ok},
			{"incr s", errr(resp.ErrNotInteger)},
			{"set s 007", ok},
			{"incr s", errr(resp.ErrNotInteger)},
			{"set s 1.5", ok},
			{"decr s", errr(resp.ErrNotInteger)},
			{"set s 12345678901234567890", ok},
			{"incr s", errr(resp.ErrNotInteger)},
			{"incrby n abc", errr(resp.ErrNotInteger)},
			{"incrby n +1", errr(resp.ErrNotInteger)},
			{"incrby n 9223372036854775808", errr(resp.ErrNotInteger)},
			{"exists n", num(0)},
		}},
		{"overflow", []step{
			{"set n 9223372036854775807", ok},
			{"incr n", errr(resp.ErrOverflow)},
			{"get n", bulk("9223372036854775807")},
			{"set n -9223372036854775808", ok},
			{"decr n", errr(resp.ErrOverflow)},
			{"incrby n 9223372036854775807", num(-1)},
			{"decrby n -9223372036854775808", errr(errDecrOverflow)},
			{"decrby n 9223372036854775807", num(-9223372036854775808)},
			{"incrby n -1", errr(resp.ErrOverflow)},
		}},
		{"keeps ttl", []step{
			{"set n 5 ex 100", ok},
			{"incr n", num(6)},
			{"ttl n", num(100)},
		}},
		{"incrbyfloat", []step{
			{"set f 10.50", ok},
			{"incrbyfloat f 0.1", bulk("10.6")},
			{"incrbyfloat f -5", bulk("5.6")},
			{"set f 5.0e3", ok},
			{"incrbyfloat f 2.0e2", bulk("5200")},
			{"get f", bulk("5200")},
			{"object encoding f", bulk("embstr")}, // INCRBYFLOAT keeps a string
			{"incrbyfloat g 3.0", bulk("3")},
			{"incrbyfloat g 0x10", bulk("19")},
			{"incrbyfloat g abc", errr(resp.ErrNotFloat)},
			{"incrbyfloat g nan", errr(resp.ErrNotFloat)},
			{"incrbyfloat g inf", errr(resp.ErrIncrNaN)},
			{"set s abc", ok},
			{"incrbyfloat s 1", errr(resp.ErrNotFloat)},
			{"set i 3", ok},
			{"expire i 10", num(1)},
			{"incrbyfloat i 1.25", bulk("4.25")},
			{"ttl i", num(10)},
			{"@resp 3", ""},
			{"incrbyfloat i 1", bulk("5.25")},
		}},
	})
}
