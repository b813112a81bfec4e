package router

import "testing"

// TestSplitGatherBitop: BITOP over keys of several shards gathers its
// sources, stores the result on the destination's shard (dropping its TTL
// and type), and deletes the destination when every source is empty.
func TestSplitGatherBitop(t *testing.T) {
	k := newKeys4()
	forModes(t, 4, func(t *testing.T, e *testExec) {
		runSteps(t, e, k.steps([]step{
			{cmd: "!set {a} \xff\x0f", want: "+OK\r\n"},
			{cmd: "!set {b} \xf0", want: "+OK\r\n"},
			{cmd: "!sadd {d} x", want: ":1\r\n"},
			{cmd: "!pexpire {d} 100000", want: ":1\r\n"},
			{cmd: "bitop and {c} {a} {b}", want: ":2\r\n"},
			{cmd: "!get {c}", want: "$2\r\n\xf0\x00\r\n"},
			{cmd: "bitop xor {d} {a} {b} {nokey}", want: ":2\r\n"},
			{cmd: "!get {d}", want: "$2\r\n\x0f\x0f\r\n"},
			{cmd: "!pttl {d}", want: ":-1\r\n"},
			{cmd: "bitop not {a} {a}", want: ":2\r\n"},
			{cmd: "!get {a}", want: "$2\r\n\x00\xf0\r\n"},
			{cmd: "!sadd {s} x", want: ":1\r\n"},
			{cmd: "bitop or {c} {a} {s}", want: "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
			{cmd: "!get {c}", want: "$2\r\n\xf0\x00\r\n"},
			{cmd: "bitop or {c} {nokey} {nokey2}", want: ":0\r\n"},
			{cmd: "!exists {c}", want: ":0\r\n"},
		}))
	})
}
