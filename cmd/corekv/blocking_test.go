package main

// TestBlockingWithRedis runs blocking scenarios (a client blocks, others
// push, it is served, times out or is unblocked) against redis-server and
// against corekv with 1, 2 and 4 shards, and compares every reply each
// connection receives, byte for byte.

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// blockStep is one step of a blocking scenario.
type blockStep struct {
	conn    int
	args    []string
	async   bool          // send without reading: the reply comes later (read)
	blocked int           // with async: wait until INFO counts this many blocked clients
	read    bool          // read the reply of conn's earlier async command
	quiet   bool          // send and read, but leave the reply out of the transcript
	close   bool          // close conn
	sleep   time.Duration // wait before the step
}

func bs(conn int, line string) blockStep { return blockStep{conn: conn, args: strings.Fields(line)} }

// bb sends a blocking command on conn and waits until n clients block.
func bb(conn, n int, line string) blockStep {
	return blockStep{conn: conn, args: strings.Fields(line), async: true, blocked: n}
}

func br(conn int) blockStep { return blockStep{conn: conn, read: true} }

func bq(conn int, line string) blockStep {
	return blockStep{conn: conn, args: strings.Fields(line), quiet: true}
}

// bw waits d, then reads conn's pending reply.
func bw(conn int, d time.Duration) blockStep { return blockStep{conn: conn, read: true, sleep: d} }

type blockScenario struct {
	name  string
	steps []blockStep
}

// Connection 0 is the control connection of every scenario; $ID1, $ID2 in
// an argument stand for the ids of connections 1 and 2.
func blockScenarios() []blockScenario {
	keys := "k1 k2 k3 k4 k5 k6 k7 k8"
	return []blockScenario{
		{"BLPOP served by RPUSH", []blockStep{
			bb(1, 1, "BLPOP q 0"), bs(0, "RPUSH q a b"), br(1), bs(0, "LRANGE q 0 -1"),
		}},
		{"BRPOP over keys of every shard", []blockStep{
			bb(1, 1, "BRPOP "+keys+" 0"), bs(0, "RPUSH k6 x"), br(1), bs(0, "LRANGE k6 0 -1"),
			bb(1, 1, "BLPOP "+keys+" 0"), bs(0, "RPUSH k2 z"), br(1), bs(0, "EXISTS k2"),
		}},
		{"first blocked, first served", []blockStep{
			bb(1, 1, "BLPOP f 0"), bb(2, 2, "BLPOP f 0"), bb(3, 3, "BRPOP f 0"),
			bs(0, "RPUSH f a b c d"), br(1), br(2), br(3), bs(0, "LRANGE f 0 -1"),
		}},
		{"variadic LPUSH serves after the whole command", []blockStep{
			bb(1, 1, "BLPOP v 0"), bs(0, "LPUSH v a b c"), br(1), bs(0, "LRANGE v 0 -1"),
		}},
		{"MULTI/EXEC serves after EXEC, its final state", []blockStep{
			bb(1, 1, "BLPOP m 0"), bs(0, "MULTI"), bs(0, "RPUSH m a b c"), bs(0, "LPOP m"), bs(0, "RPOP m"),
			bs(0, "EXEC"), br(1), bs(0, "EXISTS m"),
			bb(1, 1, "BLPOP m 0"), bs(0, "MULTI"), bs(0, "RPUSH m a"), bs(0, "DEL m"), bs(0, "EXEC"),
			bs(0, "RPUSH m b"), br(1),
		}},
		{"LMOVE, RENAME, COPY and MOVE into a waited key", []blockStep{
			bs(0, "RPUSH src1 x1 x2"), bb(1, 1, "BLPOP dst1 0"), bs(0, "LMOVE src1 dst1 LEFT RIGHT"), br(1),
			bs(0, "RPUSH tmp1 r"), bb(1, 1, "BLPOP ren1 0"), bs(0, "RENAME tmp1 ren1"), br(1),
			bs(0, "RPUSH tmp2 c1 c2"), bb(1, 1, "BRPOP cp1 0"), bs(0, "COPY tmp2 cp1"), br(1),
			bs(0, "LRANGE cp1 0 -1"),
			bq(1, "SELECT 1"), bb(1, 1, "BLPOP mv1 0"), bs(0, "RPUSH mv1 m"), bs(0, "MOVE mv1 1"), br(1),
			bb(1, 1, "BLPOP sw1 0"), bs(0, "RPUSH sw1 s"), bs(0, "SWAPDB 0 1"), br(1),
		}},
		{"ZUNIONSTORE and ZADD wake BZPOPMIN", []blockStep{
			bs(0, "ZADD za 1 a"), bb(1, 1, "BZPOPMIN zu 0"), bs(0, "ZUNIONSTORE zu 1 za"), br(1),
			bb(1, 1, "BZPOPMAX zu zv 0"), bs(0, "ZADD zv 5 e 7 f"), br(1), bs(0, "ZRANGE zu 0 -1"),
			bb(1, 1, "BZMPOP 0 2 zw zx MAX COUNT 5"), bs(0, "ZADD zx 1 a 2 b 3 c"), br(1),
			bb(1, 1, "BLMPOP 0 3 la lb lc RIGHT COUNT 2"), bs(0, "RPUSH lc 1 2 3"), br(1),
		}},
		{"timeouts", []blockStep{
			bb(1, 1, "BLPOP t1 t2 0.1"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BRPOP t1 0.05"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BLMOVE t1 t2 LEFT RIGHT 0.1"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BRPOPLPUSH t1 t2 0.1"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BZPOPMIN t3 t4 0.1"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BLMPOP 0.1 2 t1 t2 LEFT"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BZMPOP 0.1 1 t3 MIN"), bw(1, 300*time.Millisecond),
			bs(1, "BLPOP t1 -1"), bs(1, "BLPOP t1 abc"), bs(1, "BLPOP t1 1e20"), bs(1, "BLPOP t1 inf"),
			bs(1, "BLPOP t1 nan"), bs(1, "BLMPOP -1 1 t1 LEFT"), bs(1, "BZMPOP x 1 t1 MIN"),
			bs(1, "BLPOP t1 1e-400"), bs(1, "BLPOP t1 -1e400"), bs(1, "BLPOP t1 1e5000"),
			bs(1, "BLMOVE t1 t2 LEFT UP 0"), bs(1, "BLMOVE t1 t2 UP LEFT nan"), bs(1, "BLMOVE t1 t2 LEFT LEFT -1"), bs(1, "BLMPOP 0 0 t1 LEFT"), bs(1, "BLMPOP 0 1 t1 UP"),
			bs(1, "BZMPOP 0 1 t3 MIN COUNT 0"), bs(1, "BLPOP t1"),
			bs(1, "BLMPOP abc 1 t1 MIN"), bs(1, "BZMPOP abc 1 t1 MIN COUNT x"), bs(1, "BLMPOP abc 0 t1 LEFT"),
			bs(1, "BLMPOP abc 5 t1 LEFT"), bs(1, "BZMPOP abc 2 t3 t1 MAX"),
		}},
		{"CLIENT UNBLOCK", []blockStep{
			bb(1, 1, "BLPOP u1 u2 u3 0"), bs(0, "CLIENT UNBLOCK $ID1"), br(1),
			bb(1, 1, "BZPOPMIN u1 0"), bs(0, "CLIENT UNBLOCK $ID1 ERROR"), br(1),
			bb(1, 1, "BLMOVE u4 u5 LEFT LEFT 0"), bs(0, "CLIENT UNBLOCK $ID1 TIMEOUT"), br(1),
			bs(0, "CLIENT UNBLOCK $ID1"), bs(0, "CLIENT UNBLOCK $ID1 FOO"), bs(0, "CLIENT UNBLOCK x"),
			bb(1, 1, "BLPOP u1 0"), bs(0, "RPUSH u1 after"), br(1),
		}},
		{"a blocked client that goes loses nothing", []blockStep{
			bb(1, 1, "BLPOP g1 g2 g3 0"), bb(2, 2, "BLPOP g1 0"), {conn: 1, close: true}, {conn: 2, close: true},
			bs(0, "RPUSH g1 a"), bs(0, "RPUSH g2 b"), bs(0, "LRANGE g1 0 -1"), bs(0, "LRANGE g2 0 -1"),
		}},
		{"blocking inside MULTI answers at once", []blockStep{
			bs(1, "MULTI"), bs(1, "BLPOP n1 0"), bs(1, "BLMOVE n1 n2 LEFT LEFT 0"), bs(1, "BRPOPLPUSH n1 n2 0"),
			bs(1, "BZPOPMIN n3 0"), bs(1, "BLMPOP 0 1 n1 LEFT"), bs(1, "BZMPOP 0 1 n3 MAX"),
			bs(1, "BLPOP n1 -1"), bs(1, "EXEC"),
			bs(0, "RPUSH n1 x"), bs(1, "MULTI"), bs(1, "BLPOP n1 n2 0"), bs(1, "EXEC"),
		}},
		{"wrong types", []blockStep{
			bs(0, "SET w1 str"), bs(1, "BLPOP w1 0"), bs(1, "BZPOPMIN w1 0"), bs(1, "BLMPOP 0 2 w0 w1 LEFT"),
			bb(1, 1, "BLPOP w2 0"), bs(0, "SET w2 str"), bs(0, "DEL w2"), bs(0, "RPUSH w2 ok"), br(1),
			bb(1, 1, "BLMOVE w3 w1 LEFT LEFT 0"), bs(0, "RPUSH w3 keep"), br(1), bs(0, "LRANGE w3 0 -1"),
			bb(1, 1, "BZPOPMIN w4 0"), bs(0, "RPUSH w4 l"), bs(0, "DEL w4"), bs(0, "ZADD w4 1 z"), br(1),
			// A key of another type that a client waits for: an error for
			// a new command; replaced whole by a list, it serves the waiter.
			bb(1, 1, "BLPOP w5 0"), bs(0, "SET w5 str"), bs(2, "BLPOP w5 0"), bs(2, "BLMOVE w5 w6 LEFT LEFT 0"),
			bs(0, "RPUSH w6 x"), bs(0, "RENAME w6 w5"), br(1),
			bb(1, 1, "BRPOP w7 0"), bs(0, "SET w7 str"), bs(0, "RPUSH w8 y z"), bs(0, "COPY w8 w7 REPLACE"), br(1),
			bs(0, "LRANGE w7 0 -1"),
		}},
		{"chained BLMOVE", []blockStep{
			bb(1, 1, "BLMOVE c1 c2 RIGHT LEFT 0"), bb(2, 2, "BRPOPLPUSH c2 c3 0"), bs(0, "RPUSH c1 foo"),
			br(1), br(2), bs(0, "LRANGE c1 0 -1"), bs(0, "LRANGE c2 0 -1"), bs(0, "LRANGE c3 0 -1"),
		}},
		{"the same key twice", []blockStep{
			bb(1, 1, "BLPOP d1 d2 d2 d1 0"), bs(0, "LPUSH d2 a"), br(1),
			bb(1, 1, "BLPOP d1 d1 0"), bs(0, "MULTI"), bs(0, "LPUSH d1 a"), bs(0, "LPUSH d1 b"), bs(0, "EXEC"), br(1),
		}},
		{"RESP3", []blockStep{
			bq(1, "HELLO 3"), bb(1, 1, "BLPOP r1 r2 0"), bs(0, "RPUSH r2 a"), br(1),
			bb(1, 1, "BZPOPMIN r3 r4 0"), bs(0, "ZADD r4 1.5 m"), br(1),
			bb(1, 1, "BZMPOP 0 1 r3 MAX COUNT 2"), bs(0, "ZADD r3 1 a 2 b"), br(1),
			bb(1, 1, "BLPOP r1 0.05"), bw(1, 300*time.Millisecond),
			bb(1, 1, "BLMOVE r1 r2 LEFT LEFT 0.05"), bw(1, 300*time.Millisecond),
			bs(1, "MULTI"), bs(1, "BLPOP r1 0"), bs(1, "BLMOVE r1 r2 LEFT LEFT 0"), bs(1, "EXEC"),
		}},
		{"XREAD BLOCK served by XADD", []blockStep{
			bs(0, "XADD {x}s 1-1 a 1"),
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s $"), bs(0, "XADD {x}s 2-1 b 2"), br(1),
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s {x}t $ $"), bs(0, "XADD {x}t 1-1 c 3"), br(1),
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}new 0"), bs(0, "XADD {x}new 5-5 d 4"), br(1),
			// A reader whose ID is ahead waits on while one after it is served.
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s 100-0"), bb(2, 2, "XREAD COUNT 1 BLOCK 0 STREAMS {x}s $"),
			bs(0, "XADD {x}s 50-0 e 5"), br(2), bs(0, "XADD {x}s 101-0 f 6 g 7"), br(1),
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s $"), bs(0, "XDEL {x}s 101-0"), bs(0, "XADD {x}s 102-0 h 8"), br(1),
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s $"), bs(0, "DEL {x}s"), bs(0, "SET {x}s str"), bs(0, "DEL {x}s"),
			bs(0, "XADD {x}s 200-0 i 9"), br(1),
			bb(1, 1, "XREAD BLOCK 100 STREAMS {x}s $"), bw(1, 300*time.Millisecond),
			bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s $"), bs(0, "CLIENT UNBLOCK $ID1"), br(1),
			bs(1, "XREAD BLOCK -1 STREAMS {x}s $"), bs(1, "XREAD BLOCK abc STREAMS {x}s $"),
			bs(1, "MULTI"), bs(1, "XREAD BLOCK 0 STREAMS {x}s $"), bs(1, "EXEC"),
			bq(1, "HELLO 3"), bb(1, 1, "XREAD BLOCK 0 STREAMS {x}s {x}t $ $"), bs(0, "XADD {x}t 2-2 j 10"), br(1),
			bs(1, "XREAD STREAMS {x}s {x}t 0 0"),
		}},
		{"XREAD and XREADGROUP BLOCK over streams of several shards", []blockStep{
			// No hash tags: on 2 and 4 shards the keys part.
			bs(0, "XADD sx1 1-1 a 1"), bs(0, "XADD sx2 1-1 b 1"), bs(0, "XADD sx3 1-1 c 1"),
			bb(1, 1, "XREAD BLOCK 0 STREAMS sx1 sx2 sx3 $ $ $"), bs(0, "XADD sx3 2-1 d 2"), br(1),
			bb(1, 1, "XREAD BLOCK 0 STREAMS sx1 sx2 sx3 $ $ $"), bs(0, "XADD sx1 3-1 e 3"), br(1),
			bb(1, 1, "XREAD COUNT 5 BLOCK 0 STREAMS sx1 sx2 sxnew 3-1 1-1 0"), bs(0, "XADD sxnew 5-5 f 4"), br(1),
			bs(1, "XREAD BLOCK 0 STREAMS sx1 sx2 sx3 0 0 0"),
			// Deleted or replaced, an XREAD's stream keeps it waiting.
			bb(1, 1, "XREAD BLOCK 0 STREAMS sx1 sx2 $ $"), bs(0, "DEL sx2"), bs(0, "SET sx2 str"), bs(0, "DEL sx2"),
			bs(0, "XADD sx2 9-9 g 5"), br(1),
			bb(1, 1, "XREAD BLOCK 100 STREAMS sx1 sx2 sx3 $ $ $"), bw(1, 300*time.Millisecond),
			bb(1, 1, "XREAD BLOCK 0 STREAMS sx1 sx2 $ $"), bs(0, "CLIENT UNBLOCK $ID1"), br(1),
			bb(1, 1, "XREAD BLOCK 0 STREAMS sx1 sx2 $ $"), bs(0, "CLIENT UNBLOCK $ID1 ERROR"), br(1),
			bs(0, "XGROUP CREATE sx1 g $"), bs(0, "XGROUP CREATE sx2 g $"), bs(0, "XGROUP CREATE sx3 g $"),
			bb(1, 1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS sx1 sx2 sx3 > > >"), bs(0, "XADD sx2 10-1 h 6"), br(1),
			bs(0, "XPENDING sx2 g"),
			bb(1, 1, "XREADGROUP GROUP g alice COUNT 1 BLOCK 0 STREAMS sx1 sx3 > >"), bs(0, "XADD sx3 10-1 i 7"), br(1),
			bb(1, 1, "XREADGROUP GROUP g bob BLOCK 0 NOACK STREAMS sx1 sx2 > >"), bs(0, "XADD sx1 10-1 j 8"), br(1),
			bs(0, "XPENDING sx1 g"),
			// Its stream or its group gone, a blocked XREADGROUP ends.
			bb(1, 1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS sx1 sx2 > >"), bs(0, "DEL sx2"), br(1),
			bb(1, 1, "XREADGROUP GROUP g alice BLOCK 0 STREAMS sx1 sx3 > >"), bs(0, "XGROUP DESTROY sx3 g"), br(1),
			bs(0, "XGROUP CREATE sx3 g $"), bb(1, 1, "XREADGROUP GROUP g alice BLOCK 100 STREAMS sx1 sx3 > >"), bw(1, 300*time.Millisecond),
			bq(1, "HELLO 3"), bb(1, 1, "XREAD BLOCK 0 STREAMS sx1 sx3 $ $"), bs(0, "XADD sx3 20-2 k 9"), br(1),
			bb(1, 1, "XREAD BLOCK 50 STREAMS sx1 sx3 $ $"), bw(1, 300*time.Millisecond),
		}},
		{"CLIENT PAUSE holds what it covers on every core", []blockStep{
			bs(0, "CLIENT PAUSE 100000 WRITE"), bs(1, "GET pk"), bs(1, "PING"),
			bb(1, 1, "SET pk 1"), bb(2, 2, "INCR pk2"), bb(3, 3, "PUBLISH pch m"),
			bs(0, "GET pk"), bs(0, "CLIENT UNPAUSE"), br(1), br(2), br(3), bs(0, "MGET pk pk2"),
			bs(1, "MULTI"), bs(1, "SET pk 2"), bs(0, "CLIENT PAUSE 100000 WRITE"), bb(1, 1, "EXEC"),
			bs(2, "SET pk"), bs(2, "EVAL_RO return 0"), bb(2, 2, "EVAL return 0"),
			bs(0, "CLIENT UNPAUSE"), br(1), br(2), bs(0, "GET pk"),
			bs(0, "CLIENT PAUSE -1"), bs(0, "CLIENT PAUSE x"), bs(0, "CLIENT PAUSE 10 MAYBE"),
			// ALL holds reads too, the control connection's INFO with them,
			// until it ends.
			bs(0, "CLIENT PAUSE 300 ALL"), {conn: 1, args: []string{"GET", "pk"}, async: true}, bw(1, 600*time.Millisecond),
		}},
		{"keyspace events of a served pop", []blockStep{
			bq(0, "CONFIG SET notify-keyspace-events KEA"), bs(2, "PSUBSCRIBE __keyspace@0__:e*"),
			bb(1, 1, "BLPOP e1 0"), bs(0, "RPUSH e1 a"), br(1), br(2), br(2), br(2),
			// Keys of one shard: over several, a gathered command publishes
			// each key's events in order, not Redis's order across keys.
			bb(1, 1, "BLMOVE e{t}2 e{t}3 LEFT RIGHT 0"), bs(0, "LPUSH e{t}2 b"), br(1), br(2), br(2), br(2), br(2),
			bq(0, `CONFIG SET notify-keyspace-events ""`),
		}},
	}
}

var blockIDRE = regexp.MustCompile(`\$ID(\d)`)

// blockRun runs sc on the server at addr and returns its transcript: each
// reply recorded, with the connection that received it.
func blockRun(t *testing.T, addr string, sc blockScenario) []string {
	t.Helper()
	conns := map[int]*compatConn{}
	ids := map[int]string{}
	conn := func(i int) *compatConn {
		if c := conns[i]; c != nil {
			return c
		}
		c, err := compatDial(addr)
		if err != nil {
			t.Fatalf("dial: %v", err)
		}
		rep, err := c.do(compatS("CLIENT ID"))
		if err != nil {
			t.Fatalf("CLIENT ID: %v", err)
		}
		ids[i] = strings.TrimSpace(string(rep.raw[1:]))
		conns[i] = c
		return c
	}
	defer func() {
		for _, c := range conns {
			c.close()
		}
	}()
	if rep, err := conn(0).do(compatS("FLUSHALL")); err != nil || string(rep.raw) != "+OK\r\n" {
		t.Fatalf("FLUSHALL: %v", err)
	}
	conn(0).do(compatS("SELECT 1"))
	conn(0).do(compatS("FLUSHDB"))
	conn(0).do(compatS("SELECT 0"))
	var out []string
	for n, st := range sc.steps {
		time.Sleep(st.sleep)
		c := conn(st.conn)
		args := make([]string, len(st.args))
		for i, a := range st.args {
			args[i] = blockIDRE.ReplaceAllStringFunc(a, func(m string) string {
				conn(int(m[3] - '0'))
				return ids[int(m[3]-'0')]
			})
			if a == `""` {
				args[i] = ""
			}
		}
		switch {
		case st.close:
			c.close()
			delete(conns, st.conn)
			blockWaitBlocked(t, conn(0), -1)
			continue
		case st.read:
			rep, err := c.read()
			if err != nil {
				t.Fatalf("step %d: read on %d: %v", n, st.conn, err)
			}
			out = append(out, fmt.Sprintf("%d: %q", st.conn, rep.raw))
			continue
		case st.async:
			if err := c.send(compatEncode(nil, compatA(args...))); err != nil {
				t.Fatalf("step %d: %v", n, err)
			}
			if !blockWaitBlocked(t, conn(0), st.blocked) {
				t.Fatalf("%s, step %d %v: not %d blocked clients after 3s", sc.name, n, args, st.blocked)
			}
			continue
		}
		rep, err := c.do(compatA(args...))
		if err != nil {
			t.Fatalf("step %d: %v on %d: %v", n, args, st.conn, err)
		}
		if !st.quiet {
			out = append(out, fmt.Sprintf("%d: %q", st.conn, rep.raw))
		}
	}
	return out
}

var blockedRE = regexp.MustCompile(`blocked_clients:(\d+)`)

// blockWaitBlocked waits until INFO reports n blocked clients (n < 0: a
// moment for a closed connection to be seen), then a little more, so that
// a blocking command has reached its shards.
func blockWaitBlocked(t *testing.T, c *compatConn, n int) bool {
	t.Helper()
	if n < 0 {
		time.Sleep(50 * time.Millisecond)
		return true
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		rep, err := c.do(compatS("INFO clients"))
		if err != nil {
			t.Fatalf("INFO: %v", err)
		}
		if m := blockedRE.FindSubmatch(rep.raw); m != nil && string(m[1]) == fmt.Sprint(n) {
			break
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(2 * time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond)
	return true
}

func TestBlockingWithRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	redisAddr := compatStartRedis(t, redisPath)
	scenarios := blockScenarios()
	want := make([][]string, len(scenarios))
	for i, sc := range scenarios {
		want[i] = blockRun(t, redisAddr, sc)
	}
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			for i, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					got := blockRun(t, srv.addr, sc)
					if strings.Join(got, "\n") != strings.Join(want[i], "\n") {
						t.Errorf("replies differ from redis-server's\nredis:\n%s\ncorekv:\n%s",
							strings.Join(want[i], "\n"), strings.Join(got, "\n"))
					}
				})
			}
		})
	}
}

// TestBlockedClientFlags: CLIENT LIST shows a blocked client with flag b,
// and INFO counts it, until it is served.
func TestBlockedClientFlags(t *testing.T) {
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, corekvBinary(t), shards)
			ctl, err := compatDial(srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer ctl.close()
			blocker, err := compatDial(srv.addr)
			if err != nil {
				t.Fatal(err)
			}
			defer blocker.close()
			blocker.send(compatEncode(nil, compatS("BLPOP a b c d 0")))
			if !blockWaitBlocked(t, ctl, 1) {
				t.Fatal("the client did not block")
			}
			rep, _ := ctl.do(compatS("CLIENT LIST"))
			if !bytes.Contains(rep.raw, []byte("flags=b ")) || !bytes.Contains(rep.raw, []byte("cmd=blpop")) {
				t.Errorf("CLIENT LIST shows no blocked client: %q", rep.raw)
			}
			ctl.do(compatS("RPUSH c x"))
			if rep, err := blocker.read(); err != nil || string(rep.raw) != "*2\r\n$1\r\nc\r\n$1\r\nx\r\n" {
				t.Fatalf("served %q %v", rep.raw, err)
			}
			rep, _ = ctl.do(compatS("CLIENT LIST"))
			if bytes.Contains(rep.raw, []byte("flags=b ")) {
				t.Errorf("CLIENT LIST still shows a blocked client: %q", rep.raw)
			}
			rep, _ = ctl.do(compatS("INFO clients"))
			if !bytes.Contains(rep.raw, []byte("blocked_clients:0\r\n")) {
				t.Errorf("INFO after serving: %q", rep.raw)
			}
		})
	}
}

// TestBlockingStress: consumers blocked in BLPOP on keys spread over the
// shards, some on one key and some on keys of several shards, while a
// producer pushes elements: every element is delivered exactly once, and
// each consumer sees each key's elements in the order they were pushed.
func TestBlockingStress(t *testing.T) {
	consumers, elements := 24, 3000
	if raceBuild || testing.Short() {
		consumers, elements = 8, 600
	}
	keys := consumers / 2 // every key has consumers of its own
	srv := compatStartCorekv(t, corekvBinary(t), 4)
	deadline := time.Now().Add(60 * time.Second)
	type got struct {
		key  string
		seq  int
		from int
	}
	// Room for every element twice: a duplicate is reported, not a hang.
	results := make(chan got, 2*elements)
	var delivered atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, consumers+1)
	for i := 0; i < consumers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			c, err := compatDial(srv.addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.close()
			args := []string{"BLPOP", fmt.Sprintf("s%d", i%keys)}
			if i%3 == 0 {
				// Keys of several shards in one command.
				args = append(args, fmt.Sprintf("s%d", (i+5)%keys), fmt.Sprintf("s%d", (i+7)%keys))
			}
			args = append(args, "0.2")
			last := map[string]int{}
			for delivered.Load() < int64(elements) && time.Now().Before(deadline) {
				rep, err := c.do(compatA(args...))
				if err != nil {
					errs <- err
					return
				}
				if rep.kind != '*' || len(rep.elems) != 2 {
					continue // timed out
				}
				key := string(bulkBody(rep.elems[0].raw))
				var seq int
				fmt.Sscanf(string(bulkBody(rep.elems[1].raw)), "%d", &seq)
				if seq <= last[key] {
					errs <- fmt.Errorf("consumer %d got %s:%d after %d", i, key, seq, last[key])
					return
				}
				last[key] = seq
				delivered.Add(1)
				select {
				case results <- got{key, seq, i}:
				default:
					errs <- fmt.Errorf("more than %d deliveries", 2*elements)
					return
				}
			}
		}(i)
	}
	p, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	next := make([]int, keys)
	for n := 0; n < elements; n++ {
		k := (n * 7) % keys
		next[k]++
		if _, err := p.do(compatA("RPUSH", fmt.Sprintf("s%d", k), fmt.Sprint(next[k]))); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(results)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	seen := map[string]bool{}
	for g := range results {
		id := fmt.Sprintf("%s:%d", g.key, g.seq)
		if seen[id] {
			t.Errorf("%s delivered twice", id)
		}
		seen[id] = true
	}
	if len(seen) != elements {
		t.Errorf("%d of %d elements delivered", len(seen), elements)
	}
	for k := 0; k < keys; k++ {
		if rep, _ := p.do(compatA("LLEN", fmt.Sprintf("s%d", k))); string(rep.raw) != ":0\r\n" {
			t.Errorf("s%d left with %q", k, rep.raw)
		}
	}
	rep, _ := p.do(compatS("INFO clients"))
	if !bytes.Contains(rep.raw, []byte("blocked_clients:0\r\n")) {
		t.Errorf("after the run: %q", rep.raw)
	}
}

// bulkBody is the body of a bulk string reply.
func bulkBody(raw []byte) []byte {
	i := bytes.IndexByte(raw, '\n')
	return bytes.TrimSuffix(raw[i+1:], []byte("\r\n"))
}

// TestStopWithBlockedClients: SIGTERM stops a server whose clients sit
// blocked for ever, on one shard and over several, at once and cleanly.
func TestStopWithBlockedClients(t *testing.T) {
	s := startServer(t, nil, "--shards", "4")
	for _, line := range []string{"BLPOP a 0", "BLPOP a b c d e f 0", "BZPOPMIN z 0"} {
		c := s.raw(t)
		if _, err := c.Write(compatEncode(nil, compatS(line))); err != nil {
			t.Fatal(err)
		}
	}
	ctl, err := compatDial(s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.close()
	if !blockWaitBlocked(t, ctl, 3) {
		t.Fatal("the clients did not block")
	}
	start := time.Now()
	s.stop(t)
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("stopping took %v", d)
	}
	if !strings.Contains(s.log.String(), "corekv stopped") {
		t.Errorf("no clean stop:\n%s", s.log.String())
	}
}

// TestClientPauseHoldsEviction: while CLIENT PAUSE WRITE lasts, a server
// over maxmemory evicts nothing, reads still answer; once unpaused it
// evicts. redis-server and corekv alike.
func TestClientPauseHoldsEviction(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	srv := compatStartCorekv(t, corekvBinary(t), 2)
	for _, addr := range []string{redisAddr, srv.addr} {
		t.Logf("server %s (redis: %v)", addr, addr == redisAddr)
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		do := func(args ...string) string {
			rep, err := c.do(compatA(args...))
			if err != nil {
				t.Fatalf("%s %v: %v", addr, args, err)
			}
			return string(rep.raw)
		}
		do("FLUSHALL")
		for i := range 20 {
			do("SET", "pe:"+strconv.Itoa(i), strings.Repeat("x", 100))
		}
		do("CONFIG", "SET", "maxmemory-policy", "allkeys-random")
		do("CLIENT", "PAUSE", "100000", "WRITE")
		do("CONFIG", "SET", "maxmemory", "1")
		for i := range 20 {
			if got := do("GET", "pe:"+strconv.Itoa(i)); got == "$-1\r\n" {
				t.Errorf("%s: pe:%d evicted while paused", addr, i)
			}
		}
		if got := do("DBSIZE"); got != ":20\r\n" {
			t.Errorf("%s: DBSIZE while paused %q, want 20", addr, got)
		}
		do("CLIENT", "UNPAUSE")
		deadline := time.Now().Add(3 * time.Second)
		for do("DBSIZE") != ":0\r\n" {
			if time.Now().After(deadline) {
				t.Fatalf("%s: keys not evicted once unpaused", addr)
			}
			time.Sleep(10 * time.Millisecond)
		}
		do("CONFIG", "SET", "maxmemory", "0")
		do("CONFIG", "SET", "maxmemory-policy", "noeviction")
		c.close()
	}
}
