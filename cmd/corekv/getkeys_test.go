package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestCommandGetKeys checks COMMAND GETKEYS against the replies of Redis
// 7.0: a container's subcommand is resolved first (an unknown one is an
// invalid command), then whether the command takes keys, then its arity.
func TestCommandGetKeys(t *testing.T) {
	srv := startServer(t, nil, "--shards", "1")
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	const (
		noKeys  = "-ERR The command has no key arguments\r\n"
		badArgc = "-ERR Invalid number of arguments specified for command\r\n"
		invalid = "-ERR Invalid command specified\r\n"
	)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"GET", "k"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"RANDOMKEY", "foo"}, noKeys},
		{[]string{"RESET", "x", "x"}, noKeys},
		{[]string{"OBJECT", "HELP"}, noKeys},
		{[]string{"OBJECT", "HELP", "x"}, noKeys},
		{[]string{"OBJECT", "encoding"}, badArgc},
		{[]string{"OBJECT", "encoding", "k"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"OBJECT", "encoding", "k", "x"}, badArgc},
		{[]string{"OBJECT", "c", "c"}, invalid},
		{[]string{"MEMORY", "USAGE"}, badArgc},
		{[]string{"MEMORY", "USAGE", "k", "SAMPLES", "5"}, "*1\r\n$1\r\nk\r\n"},
		{[]string{"MEMORY", "FOO", "k"}, invalid},
		{[]string{"CLIENT", "FOO"}, invalid},
		{[]string{"CONFIG", "GET", "x"}, noKeys},
		{[]string{"SLOWLOG", "GET"}, noKeys},
		{[]string{"SLOWLOG", "FOO"}, invalid},
		{[]string{"DEBUG", "SLEEP", "0"}, noKeys},
		{[]string{"NOSUCH", "x"}, invalid},
		{[]string{"SPUBLISH", "ch", "m"}, noKeys},
		{[]string{"ZUNION", "2", "a"}, "-ERR Invalid arguments specified for command\r\n"},
	} {
		rep, err := c.do(compatA(append([]string{"COMMAND", "GETKEYS"}, tc.args...)...))
		if err != nil {
			t.Fatal(err)
		}
		if string(rep.raw) != tc.want {
			t.Errorf("COMMAND GETKEYS %q: got %q, want %q", tc.args, rep.raw, tc.want)
		}
	}
}

// getKeysCases are argument lists for COMMAND GETKEYS: every shape of key
// positions corekv has, key counts good and bad, SORT's STORE, commands
// without keys, and commands corekv does not have.
var getKeysCases = []string{
	"get k",
	"setbit k 1 1",
	"getbit k 1",
	"bitcount k 0 -1 bit",
	"bitpos k 1 0",
	"bitop and dst a b c",
	"bitop not dst a",
	"bitfield k",
	"bitfield k get u8 0",
	"bitfield k GET u8 0 overflow sat get i4 3",
	"bitfield k get u8 0 set u8 0 1",
	"bitfield k incrby u8 0 1",
	"bitfield k overflow",
	"bitfield k get u8",
	"bitfield k foo",
	"bitfield_ro k get u8 0 get i8 8",
	"set k v",
	"set k v get",
	"set k v nx GET",
	"set k v xget",
	"del a b c",
	"mset a 1 b 2",
	"mset a 1 b",
	"zunion 2 a b",
	"zunion 3 a",
	"zunion 0 a",
	"zunion 2abc a b",
	"zunion -1 a",
	"zunion +1 a",
	"zunion 02 a b",
	"zunion 4294967297 a",
	"zunion 4294967296 a",
	"zunionstore dst 2 a b",
	"zunionstore dst 0 a",
	"zunionstore dst 01 a",
	"zunionstore dst 2x a b",
	"zunionstore dst 5 a b",
	"zunionstore dst 4294967298 a",
	"zunionstore dst 9223372036854775807 a",
	"zinterstore dst 1 a weights 1",
	"zdiffstore dst 2 a b",
	"zinter 1 a",
	"zdiff 2 a b withscores",
	"zintercard 2 a b limit 1",
	"sintercard 1 a",
	"sintercard 2 a b limit 1",
	"lmpop 2 a b left count 1",
	"blmpop 0 2 a b left",
	"zmpop 1 a min",
	"bzmpop 0 1 a min",
	"blpop a b 0",
	"brpop a 0",
	"bzpopmin a b 0",
	"blmove a b left right 0",
	"lmove a b left right",
	"rpoplpush a b",
	"brpoplpush a b 0",
	"smove a b m",
	"sort k",
	"sort k store d",
	"sort k store d by x limit 0 1 get y store e",
	"sort k limit store a store",
	"sort k STORE",
	"sort_ro k by x",
	"sort_ro k store a",
	"memory usage k samples 5",
	"memory usage k",
	"memory help",
	"object encoding k",
	"object help",
	"object",
	"memory usage",
	"memory",
	"object freq k",
	"object nosuch k",
	"spublish ch m",
	"ssubscribe a b",
	"sunsubscribe a",
	"sunsubscribe",
	"watch a b",
	"copy a b db 1",
	"rename a b",
	"renamenx a b",
	"sdiffstore d a b",
	"sinterstore d a",
	"sunionstore d a b",
	"zrangestore d s 0 1",
	"getex k px 10",
	"exists a b",
	"touch a",
	"unlink a b",
	"expire k 10",
	"randomkey",
	"ping",
	"client id",
	"client kill 1.2.3.4:5",
	"config get x",
	"slowlog get",
	"debug sleep 0",
	"command info",
	"publish a b",
	"subscribe a",
	"nosuch x",
	"migrate h p k 0 10",
	"eval s 1 k",
	"eval s 0",
	"eval s 0 a",
	"eval s 2 a b c",
	"eval s 3 a b",
	"eval s x a",
	"eval s -1 a",
	"evalsha x 1 k",
	"eval_ro s 2 a b",
	"evalsha_ro x 1 k",
	"get",
	"get a b",
	"hset h f v",
	"mget a b c",
	"msetnx a 1 b 2",
}

// TestCommandGetKeysCompat compares COMMAND GETKEYS and GETKEYSANDFLAGS
// with redis-server's, in RESP2 and RESP3, for getKeysCases.
func TestCommandGetKeysCompat(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 1)
	// Commands corekv does not have are invalid there.
	absent := map[string]bool{"migrate": true}
	for _, proto := range []int{2, 3} {
		rc := dialProto(t, redisAddr, proto)
		defer rc.close()
		kc := dialProto(t, srv.addr, proto)
		defer kc.close()
		// A long key count, past any small buffer of key positions.
		many := "zunionstore target 260"
		for i := range 260 {
			many += fmt.Sprint(" key", i)
		}
		for _, line := range append(getKeysCases, many) {
			args := strings.Fields(line)
			for _, sub := range []string{"GETKEYS", "GETKEYSANDFLAGS"} {
				cmd := compatA(append([]string{"COMMAND", sub}, args...)...)
				w, err := rc.do(cmd)
				if err != nil {
					t.Fatal(err)
				}
				g, err := kc.do(cmd)
				if err != nil {
					t.Fatal(err)
				}
				if absent[args[0]] {
					w = &compatReply{raw: []byte("-ERR Invalid command specified\r\n")}
				}
				if !bytes.Equal(g.raw, w.raw) {
					t.Errorf("RESP%d COMMAND %s %s:\n got %q\nwant %q", proto, sub, line, g.raw, w.raw)
				}
			}
		}
	}
}
