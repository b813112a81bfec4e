package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pubsubStep is one command of a Pub/Sub script: sent on connection conn,
// then replies replies read from each connection named in read (message
// pushes arrive on the subscribers, not on the publisher).
type pubsubStep struct {
	conn  int
	args  []string
	reads []int // connections to read one reply from, in order
	skip  bool  // replies that differ by nature (HELLO's id): not compared
	// unordered: an array whose order Redis leaves unspecified (its dict's)
	unordered bool
}

func psStep(conn int, line string, reads ...int) pubsubStep {
	if reads == nil {
		reads = []int{conn}
	}
	return pubsubStep{conn: conn, args: strings.Fields(line), reads: reads}
}

// pubsubScript drives three connections: 0 and 1 subscribe (1 speaks RESP3),
// 2 publishes. Channel names are spread so that with several shards the
// subscribers' cores differ from the channels' shards.
var pubsubScript = []pubsubStep{
	psStep(2, "CONFIG SET notify-keyspace-events Q"),
	psStep(2, "CONFIG SET notify-keyspace-events gK"),
	psStep(2, "CONFIG GET notify-keyspace-events"),
	psStep(2, "CONFIG SET notify-keyspace-events AKEmn"),
	psStep(2, "CONFIG GET notify-keyspace-events"),
	psStep(2, "CONFIG SET notify-keyspace-events nt$lsKdxez"),
	psStep(2, "CONFIG GET notify-keyspace-events"),
	{conn: 2, args: []string{"CONFIG", "SET", "notify-keyspace-events", ""}, reads: []int{2}},
	psStep(2, "CONFIG GET notify-keyspace-events"),
	psStep(0, "SUBSCRIBE news sport news"),
	{conn: 0, args: nil, reads: []int{0, 0}}, // the two other confirmations
	psStep(0, "GET x"),
	psStep(0, "CLIENT LIST"),
	psStep(0, "SLOWLOG GET"),
	psStep(0, "PUBSUB NUMPAT"),
	psStep(0, "PING"),
	psStep(0, "PING hello"),
	psStep(0, "SUBSCRIBE"),
	psStep(0, "PSUBSCRIBE n*"),
	{conn: 1, args: []string{"HELLO", "3"}, reads: []int{1}, skip: true},
	psStep(1, "PSUBSCRIBE *o*"),
	psStep(1, "GET x"),
	psStep(1, "PING"),
	psStep(1, "SSUBSCRIBE shardy"),
	psStep(1, "CLIENT INFO"),
	// A RESP3 client's own message comes before its PUBLISH's reply.
	psStep(1, "SUBSCRIBE me"),
	psStep(1, "PUBLISH me hi", 1, 1),
	psStep(1, "PUBLISH me again", 1, 1),
	psStep(1, "UNSUBSCRIBE me"),
	psStep(2, "PUBLISH news first", 2, 0, 0),
	psStep(2, "PUBLISH sport second", 2, 0, 1),
	psStep(2, "PUBLISH nothing third", 2, 0, 1),
	psStep(2, "PUBLISH nobody x", 2),
	psStep(2, "SPUBLISH shardy s1", 2, 1),
	psStep(2, "SPUBLISH news s2", 2),
	psStep(2, "PUBSUB NUMSUB news sport none"),
	psStep(2, "PUBSUB NUMPAT"),
	{conn: 2, args: []string{"PUBSUB", "CHANNELS"}, reads: []int{2}, unordered: true},
	psStep(2, "PUBSUB CHANNELS s*"),
	psStep(2, "PUBSUB SHARDCHANNELS"),
	psStep(2, "PUBSUB SHARDNUMSUB shardy"),
	psStep(2, "PUBSUB CHANNELS a b"),
	psStep(2, "PUBSUB NUMPAT x"),
	psStep(2, "PUBSUB FOO"),
	psStep(2, "PUBSUB HELP"),
	psStep(2, "PUBLISH a"),
	psStep(2, "SUBSCRIBE"),
	psStep(0, "UNSUBSCRIBE sport"),
	psStep(0, "PUNSUBSCRIBE n*"),
	psStep(0, "PUNSUBSCRIBE"),
	psStep(2, "PUBLISH sport gone", 2, 1),
	psStep(1, "SUNSUBSCRIBE"),
	psStep(1, "SUNSUBSCRIBE"),
	psStep(1, "PUNSUBSCRIBE *o*"),
	// CLIENT REPLY OFF and SKIP drop replies, not Pub/Sub's confirmations
	// and messages; the +OK of REPLY ON shows what was dropped before it.
	{conn: 1, args: []string{"CLIENT", "REPLY", "OFF"}, reads: []int{}},
	psStep(1, "SUBSCRIBE quiet"),
	{conn: 1, args: []string{"GET", "x"}, reads: []int{}},
	{conn: 2, args: []string{"CLIENT", "REPLY", "SKIP"}, reads: []int{}},
	psStep(2, "SUBSCRIBE quiet"),
	psStep(1, "PUBLISH quiet m1", 1, 2),
	psStep(2, "UNSUBSCRIBE quiet"),
	psStep(2, "GET x"),
	psStep(1, "CLIENT REPLY ON"),
	psStep(1, "UNSUBSCRIBE quiet"),
	psStep(0, "RESET"),
	psStep(0, "GET x"),
	psStep(2, "PUBLISH news after-reset", 2),
	psStep(2, "PUBSUB NUMSUB news"),
	psStep(0, "UNSUBSCRIBE"),
	psStep(0, "SSUBSCRIBE a b"),
	{conn: 0, args: nil, reads: []int{0}},
	psStep(0, "SUNSUBSCRIBE a"),
	psStep(0, "GET x"),
	psStep(0, "QUIT"),
}

// runPubsubScript runs the script on addr and returns every reply read, in
// order, with the step that read it.
func runPubsubScript(t *testing.T, addr string) []string {
	t.Helper()
	var conns [3]*compatConn
	for i := range conns {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		conns[i] = c
	}
	var out []string
	for _, st := range pubsubScript {
		if st.args != nil {
			if err := conns[st.conn].send(compatEncode(nil, compatCmd{args: st.args})); err != nil {
				t.Fatalf("%q: %v", st.args, err)
			}
		}
		for _, r := range st.reads {
			rep, err := conns[r].read()
			if err != nil {
				t.Fatalf("%s: %q: reading conn %d: %v", addr, st.args, r, err)
			}
			raw := string(rep.raw)
			if st.skip {
				raw = "(not compared)"
			}
			if st.unordered {
				raw = string(compatSorted(rep))
			}
			if len(st.args) >= 2 && strings.EqualFold(st.args[0], "client") {
				raw = clientListFields(raw)
			}
			out = append(out, fmt.Sprintf("%q conn %d: %q", st.args, r, raw))
		}
	}
	return out
}

// clientListFields keeps the fields of a CLIENT LIST reply that Pub/Sub
// decides.
func clientListFields(raw string) string {
	var keep []string
	for _, f := range strings.Fields(raw) {
		for _, p := range []string{"flags=", "sub=", "psub=", "ssub="} {
			if strings.HasPrefix(f, p) {
				keep = append(keep, f)
			}
		}
	}
	return strings.Join(keep, " ")
}

// TestPubSubCompatWithRedis compares, byte for byte, the replies and the
// pushed messages of a Pub/Sub script with redis-server's, with one and
// with several shards.
func TestPubSubCompatWithRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	want := runPubsubScript(t, compatStartRedis(t, redisPath))
	for _, shards := range []int{1, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			got := runPubsubScript(t, srv.addr)
			for i := range want {
				if i >= len(got) || got[i] != want[i] {
					g := "(none)"
					if i < len(got) {
						g = got[i]
					}
					t.Fatalf("reply %d differs:\nredis:  %s\ncorekv: %s", i, want[i], g)
				}
			}
		})
	}
}

// TestPubSubGoRedisAcrossCores subscribes go-redis clients (channels,
// patterns, shard channels) spread over every shard, publishes from two
// connections at once, and checks that each subscriber gets every message
// exactly once, in each publisher's order, and that PUBLISH counts them.
func TestPubSubGoRedisAcrossCores(t *testing.T) {
	srv := startServer(t, nil, "--shards", "4")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const subscribers = 12
	const perPublisher = 2000
	pubs := make([]*redis.PubSub, subscribers)
	for i := range pubs {
		c := redis.NewClient(&redis.Options{Addr: srv.addr})
		defer c.Close()
		switch i % 3 {
		case 0:
			pubs[i] = c.Subscribe(ctx, "ch")
		case 1:
			pubs[i] = c.PSubscribe(ctx, "c?")
		case 2:
			pubs[i] = c.SSubscribe(ctx, "ch")
		}
		defer pubs[i].Close()
		if _, err := pubs[i].Receive(ctx); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, subscribers+2)
	for i, ps := range pubs {
		wg.Add(1)
		go func(i int, ps *redis.PubSub) {
			defer wg.Done()
			next := map[string]int{}
			for got := 0; got < 2*perPublisher; got++ {
				m, err := ps.ReceiveMessage(ctx)
				if err != nil {
					errs <- fmt.Errorf("subscriber %d after %d messages: %v", i, got, err)
					return
				}
				pub, seq, _ := strings.Cut(m.Payload, ":")
				n, _ := strconv.Atoi(seq)
				if n != next[pub] {
					errs <- fmt.Errorf("subscriber %d: from %s got %d, want %d", i, pub, n, next[pub])
					return
				}
				next[pub]++
			}
		}(i, ps)
	}
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			c := redis.NewClient(&redis.Options{Addr: srv.addr})
			defer c.Close()
			pipe := c.Pipeline()
			for n := 0; n < perPublisher; n++ {
				msg := fmt.Sprintf("p%d:%d", p, n)
				pipe.Publish(ctx, "ch", msg)
				pipe.SPublish(ctx, "ch", msg)
				if n%50 == 49 || n == perPublisher-1 {
					cmds, err := pipe.Exec(ctx)
					if err != nil {
						errs <- err
						return
					}
					for i, cmd := range cmds {
						want := int64(2 * subscribers / 3)
						if i%2 == 1 {
							want = subscribers / 3
						}
						if got := cmd.(*redis.IntCmd).Val(); got != want {
							errs <- fmt.Errorf("%v answered %d, want %d", cmd.Args(), got, want)
							return
						}
					}
				}
			}
		}(p)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	c := srv.client(t, 2)
	if n, err := c.PubSubNumSub(ctx, "ch").Result(); err != nil || n["ch"] != subscribers/3 {
		t.Errorf("PUBSUB NUMSUB ch = %v, %v", n, err)
	}
	info, _ := c.Info(ctx, "stats").Result()
	for _, f := range []string{"pubsub_channels:1", "pubsub_patterns:1", "pubsubshard_channels:1"} {
		if !strings.Contains(info, f+"\r\n") {
			t.Errorf("INFO stats lacks %s", f)
		}
	}
}

// TestPubSubSlowSubscriberCutOff: a subscriber that stops reading is closed
// at the pubsub class's hard limit, while a reading subscriber gets every
// message and the publisher is answered throughout.
func TestPubSubSlowSubscriberCutOff(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	admin := srv.client(t, 2)
	if err := admin.ConfigSet(ctx, "client-output-buffer-limit", "pubsub 1mb 512kb 60").Err(); err != nil {
		t.Fatal(err)
	}
	if v, _ := admin.ConfigGet(ctx, "client-output-buffer-limit").Result(); !strings.Contains(v["client-output-buffer-limit"], "pubsub 1048576 524288 60") {
		t.Fatalf("CONFIG GET client-output-buffer-limit = %v", v)
	}
	slow := srv.raw(t)
	slow.Write([]byte("SUBSCRIBE feed\r\n"))
	good := redis.NewClient(&redis.Options{Addr: srv.addr})
	defer good.Close()
	ps := good.Subscribe(ctx, "feed")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	for {
		if n, _ := admin.PubSubNumSub(ctx, "feed").Result(); n["feed"] == 2 {
			break
		}
		if ctx.Err() != nil {
			t.Fatal("the raw subscriber never subscribed")
		}
		time.Sleep(10 * time.Millisecond)
	}
	received := make(chan int, 1)
	const messages = 4000
	go func() {
		n := 0
		for ; n < messages; n++ {
			if _, err := ps.ReceiveMessage(ctx); err != nil {
				break
			}
		}
		received <- n
	}()
	payload := string(bytes.Repeat([]byte("x"), 16<<10))
	cutAt := -1
	for i := 0; i < messages; i++ {
		n, err := admin.Publish(ctx, "feed", payload).Result()
		if err != nil {
			t.Fatal(err)
		}
		if n == 1 && cutAt < 0 {
			cutAt = i
		}
	}
	if cutAt < 0 {
		t.Fatal("the subscriber that does not read was never cut off")
	}
	// 1 MB of 16 KB messages, plus what the socket buffers took.
	if cutAt < 1<<20/(16<<10) {
		t.Errorf("cut off after %d messages, before it could reach the limit", cutAt)
	}
	if n := <-received; n != messages {
		t.Errorf("the reading subscriber got %d of %d messages", n, messages)
	}
	srv.mustServe(t)
}

// notifySteps are writes whose keyspace notifications are compared with
// redis-server's. Keys on several shards, one subscriber of every
// notification channel.
var notifySteps = slices.Concat(stringNotifySteps, hashNotifySteps, setNotifySteps, listNotifySteps, zsetNotifySteps)

var stringNotifySteps = []string{
	"SET k1 v",
	"SET k1 v EX 100",
	"SETNX k2 v",
	"SETNX k2 v",
	"GETSET k2 w",
	"MSET k3 a k4 b k5 c",
	"APPEND k3 more",
	"APPEND k6 new",
	"INCR n1",
	"INCRBY n1 5",
	"DECR n1",
	"INCRBYFLOAT f1 1.5",
	"SETRANGE k3 1 xyz",
	"EXPIRE k4 100",
	"PERSIST k4",
	"PEXPIRE k5 0",
	"GETEX k3 EX 100",
	"GETEX k3 PERSIST",
	"GETDEL k6",
	"DEL k1 k2 k3 nokey",
	"SET {r}a 1",
	"RENAME {r}a {r}b",
	"COPY {r}b {r}c",
	"MOVE {r}c 1",
	"SETEX k7 100 v",
	"SET gone v PX 30",
	"UNLINK {r}b n1 f1 k4 k7",
	// keys that may live on different shards
	"SET src1 v",
	"RENAME src1 dst1",
	"RENAMENX dst1 dst2",
	"SET dst4 v",
	"RENAMENX dst2 dst4",
	"COPY dst2 dst3",
	"COPY dst2 dst3 REPLACE",
	"COPY dst2 dst3",
	"RENAME dst3 dst4",
	"SET {r}x 1",
	"SET {r}y 2",
	"RENAME {r}x {r}y",
	"COPY {r}y {r}x",
	"COPY {r}y {r}x REPLACE",
	"DEL dst2 dst3 dst4 {r}x {r}y",
	// reads of missing keys: keymiss
	"GET nokey",
	"MGET nokey k1 nokey2",
	"STRLEN nokey",
	"GETRANGE nokey 0 1",
	"TTL nokey",
	"PTTL nokey",
	"EXISTS nokey nokey2",
	"TYPE nokey",
	"GETEX nokey",
	"GETDEL nokey",
	"GETSET nokey3 v",
	"SET nokey4 v GET",
	"INCR fresh",
	"APPEND fresh2 x",
	"SETRANGE fresh3 0 x",
	"OBJECT ENCODING nokey",
	"DEL nokey3 nokey4 fresh fresh2 fresh3",
}

// Values past the small encodings' limits: a hash value and a set member
// longer than 64 bytes, a list element longer than a list node's 8 KB.
var (
	notifyLong = strings.Repeat("v", 100)
	notifyHuge = strings.Repeat("e", 9000)
)

var hashNotifySteps = []string{
	"HSET hash:1 f1 v1 f2 v2",
	"HSET hash:1 f1 v1",
	"HMSET hash:1 f3 v3",
	"HSETNX hash:1 f1 x",
	"HSETNX hash:1 f4 v4",
	"HSETNX hash:2 f v",
	"HINCRBY hash:1 n 5",
	"HINCRBY hash:1 f1 1",
	"HINCRBYFLOAT hash:1 fl 1.5",
	"HINCRBYFLOAT hash:1 f1 1",
	"HDEL hash:1 nofield",
	"HDEL hash:1 f1 f2",
	"HDEL hash:2 f",
	"HDEL hash:nokey f",
	"HSET hash:big f " + notifyLong,
	"HSET hash:big g v",
	"HINCRBY hash:big n 1",
	"HDEL hash:big g",
	"HDEL hash:big f n",
	"HDEL hash:1 f3 f4 n fl",
	"SADD hash:1 a",
	"HSET hash:1 f v",
	"DEL hash:1",
	// reads of missing keys: keymiss
	"HGET hash:nokey f",
	"HMGET hash:nokey f g",
	"HEXISTS hash:nokey f",
	"HSTRLEN hash:nokey f",
	"HLEN hash:nokey",
	"HKEYS hash:nokey",
	"HVALS hash:nokey",
	"HGETALL hash:nokey",
	"HRANDFIELD hash:nokey",
	"HRANDFIELD hash:nokey 2",
	"HRANDFIELD hash:nokey x",
	"HSCAN hash:nokey 0",
	"HGET hash:big f",
	"HGET k5 f",
}

var setNotifySteps = []string{
	"SADD set:1 a b c",
	"SADD set:1 a",
	"SREM set:1 x",
	"SREM set:1 a",
	"SADD set:i 1 2 3",
	"SPOP set:i",
	"SPOP set:i 0",
	"SPOP set:i 5",
	"SPOP set:nokey",
	"SPOP set:nokey 2",
	"SADD set:i 7",
	"SPOP set:i",
	"SADD set:big a " + notifyLong,
	"SADD set:big b c",
	"SREM set:big a b",
	"SPOP set:big 1",
	"SREM set:big a c b " + notifyLong,
	"SMOVE set:1 set:2 b",
	"SMOVE set:1 set:2 x",
	"SMOVE set:1 set:2 c",
	"SADD set:3 b",
	"SMOVE set:2 set:3 b",
	"SMOVE set:nokey set:3 b",
	"SMOVE set:3 set:3 b",
	"SINTERSTORE set:d set:2 set:3",
	"SUNIONSTORE set:d set:2 set:3",
	"SUNIONSTORE set:d set:2 set:3",
	"SDIFFSTORE set:d set:2 set:2",
	"SINTERSTORE set:d set:2 set:nokey",
	"SET set:str x",
	"SINTERSTORE set:str set:2 set:nokey",
	"SDIFFSTORE set:e set:2 set:3",
	"SINTERSTORE set:e set:2 set:2",
	"SADD set:4 1 2 " + notifyLong,
	"SUNIONSTORE set:big2 set:4 set:3",
	"SINTERSTORE set:big2 set:4 set:big2",
	"SDIFFSTORE set:big2 set:4 set:4",
	"SADD set:e x",
	"SREM set:1 x",
	// a member moved through sets that may live on different shards
	"SADD set:c1 m " + notifyLong,
	"SMOVE set:c1 set:c2 m",
	"SMOVE set:c2 set:c3 m",
	"SMOVE set:c3 set:c4 m",
	"SMOVE set:c4 set:c5 m",
	"SMOVE set:c1 set:c5 " + notifyLong,
	"SUNIONSTORE set:c6 set:c5 set:c1",
	"SINTERSTORE set:c7 set:c6 set:c5",
	"SDIFFSTORE set:c7 set:c6 set:c5",
	"SMOVE set:c5 set:c6 m",
	"SINTER set:c6 set:nokey set:c5",
	"SUNION set:nokey set:c6 set:nokey2",
	"SDIFF set:c6 set:c1",
	"SINTERCARD 2 set:c5 set:nokey",
	"DEL set:2 set:3 set:4 set:e set:big set:c5 set:c6",
	"SCARD set:nokey",
	"SISMEMBER set:nokey a",
	"SMISMEMBER set:nokey a b",
	"SMEMBERS set:nokey",
	"SRANDMEMBER set:nokey",
	"SRANDMEMBER set:nokey 3",
	"SSCAN set:nokey 0",
	"SINTER set:nokey",
	"SCARD set:c1",
}

var listNotifySteps = []string{
	"RPUSH list:1 a b c",
	"LPUSH list:1 z",
	"LPUSHX list:nokey a",
	"RPUSHX list:nokey a",
	"RPUSHX list:1 d",
	"LPUSHX list:1 y",
	"LINSERT list:1 BEFORE b x",
	"LINSERT list:1 AFTER nopivot x",
	"LINSERT list:nokey AFTER a x",
	"LSET list:1 0 w",
	"LREM list:1 0 nomatch",
	"LREM list:1 1 x",
	"LTRIM list:1 0 -1",
	"LTRIM list:1 1 4",
	"LTRIM list:nokey 0 1",
	"LPOP list:1",
	"RPOP list:1 0",
	"RPOP list:1 5",
	"LPOP list:nokey",
	"RPOP list:nokey 2",
	"RPUSH list:2 a",
	"LTRIM list:2 5 10",
	"RPUSH list:2 a b",
	"LREM list:2 0 a",
	"LREM list:2 0 b",
	"RPUSH list:3 a b",
	"LMOVE list:3 list:4 LEFT RIGHT",
	"RPOPLPUSH list:3 list:4",
	"LMOVE list:4 list:4 LEFT RIGHT",
	"RPOPLPUSH list:nokey list:4",
	"RPUSH list:5 x",
	"LMOVE list:5 list:5 RIGHT LEFT",
	"LMPOP 2 list:nokey list:4 LEFT COUNT 1",
	"LMPOP 2 list:nokey list:4 RIGHT COUNT 5",
	"LMPOP 1 list:nokey LEFT",
	"RPUSH list:big " + notifyHuge + " b c d",
	"LPUSH list:big " + notifyHuge,
	"LINSERT list:big AFTER c x",
	"LSET list:big -1 y",
	"LREM list:big 1 x",
	"LPOP list:big",
	"LTRIM list:big 0 1",
	"RPOP list:big 3",
	"RPUSH list:5 y",
	"SADD list:5 x",
	// elements moved through lists that may live on different shards
	"RPUSH list:c1 a b " + notifyHuge,
	"LMOVE list:c1 list:c2 LEFT RIGHT",
	"RPOPLPUSH list:c2 list:c3",
	"LMOVE list:c3 list:c4 RIGHT LEFT",
	"LMOVE list:c1 list:c4 RIGHT LEFT",
	"LMOVE list:c4 list:c5 LEFT LEFT",
	"LMOVE list:c1 list:c5 LEFT LEFT",
	"LMPOP 3 list:c1 list:c4 list:c5 RIGHT",
	"LMPOP 3 list:c1 list:c4 list:c5 LEFT COUNT 9",
	"DEL list:5",
	"LLEN list:nokey",
	"LINDEX list:nokey 0",
	"LRANGE list:nokey 0 -1",
	"LPOS list:nokey a",
	"LPOS list:nokey a RANK 0",
	"LLEN list:c5",
}

var zsetNotifySteps = []string{
	"ZADD zset:1 1 a 2 b 3 c",
	"ZADD zset:1 1 a",
	"ZADD zset:1 5 a",
	"ZADD zset:1 NX 9 a",
	"ZADD zset:1 XX 9 x",
	"ZADD zset:nokey XX 1 a",
	"ZADD zset:1 GT 1 a",
	"ZADD zset:1 LT CH 0 a 4 d",
	"ZADD zset:1 INCR 2 a",
	"ZADD zset:1 INCR NX 2 a",
	"ZADD zset:1 INCR 0 a",
	"ZINCRBY zset:1 1 b",
	"ZINCRBY zset:1 0 b",
	"ZINCRBY zset:2 1 b",
	"ZADD zset:1 INCR +inf a",
	"ZADD zset:1 INCR -inf a",
	"ZREM zset:1 nomember",
	"ZREM zset:1 a nomember",
	"ZREM zset:nokey a",
	"ZREM zset:2 b",
	"ZREMRANGEBYRANK zset:1 5 9",
	"ZREMRANGEBYRANK zset:1 0 0",
	"ZREMRANGEBYSCORE zset:1 100 200",
	"ZREMRANGEBYSCORE zset:1 -inf 3",
	"ZREMRANGEBYLEX zset:1 [x +",
	"ZREMRANGEBYLEX zset:1 - +",
	"ZREMRANGEBYRANK zset:nokey 0 -1",
	"ZREMRANGEBYSCORE zset:nokey 0 1",
	"ZREMRANGEBYLEX zset:nokey - +",
	"ZADD zset:p 1 a 2 b 3 c 4 d",
	"ZPOPMIN zset:p",
	"ZPOPMAX zset:p 0",
	"ZPOPMAX zset:p 2",
	"ZPOPMIN zset:p 5",
	"ZPOPMIN zset:nokey",
	"ZPOPMAX zset:nokey 2",
	"ZADD zset:p 1 a 2 b",
	"ZMPOP 2 zset:nokey zset:p MIN",
	"ZMPOP 1 zset:p MAX COUNT 5",
	"ZMPOP 1 zset:nokey MIN",
	"ZADD zset:big 1 a 2 " + notifyLong,
	"ZADD zset:big 3 b",
	"ZINCRBY zset:big 1 b",
	"ZREM zset:big b",
	"ZPOPMIN zset:big",
	"ZREMRANGEBYRANK zset:big 0 -1",
	"ZADD zset:3 1 a 2 b 3 c",
	"ZADD zset:4 1 b 5 d",
	"ZUNIONSTORE zset:d 2 zset:3 zset:4",
	"ZUNIONSTORE zset:d 2 zset:3 zset:4",
	"ZINTERSTORE zset:d 2 zset:3 zset:4",
	"ZDIFFSTORE zset:d 2 zset:3 zset:4",
	"ZDIFFSTORE zset:d 2 zset:3 zset:3",
	"ZINTERSTORE zset:d 2 zset:3 zset:nokey",
	"ZUNIONSTORE zset:e 1 zset:nokey",
	"SET zset:str x",
	"ZUNIONSTORE zset:str 2 zset:3 zset:4",
	"ZRANGESTORE zset:f zset:3 0 1",
	"ZRANGESTORE zset:f zset:3 0 -1",
	"ZRANGESTORE zset:f zset:3 5 9",
	"ZRANGESTORE zset:f zset:nokey 0 -1",
	"ZRANGESTORE zset:g zset:nokey 0 -1",
	"ZADD zset:big2 1 " + notifyLong,
	"ZUNIONSTORE zset:big3 2 zset:big2 zset:3",
	"ZINTERSTORE zset:big3 2 zset:big2 zset:3",
	"ZADD zset:5 1 x",
	"ZADD zset:5 1 y",
	"DEL zset:3 zset:4 zset:5 zset:big2 zset:big3 zset:str",
	// sorted sets on different shards, with 2 shards and with 4
	"ZADD zset:c1 1 a 2 b 3 " + notifyLong,
	"ZADD zset:a 1 b 5 d",
	"ZUNIONSTORE zset:c 2 zset:c1 zset:a",
	"ZUNIONSTORE zset:c 2 zset:c1 zset:a",
	"ZINTERSTORE zset:c2 2 zset:c1 zset:a WEIGHTS 2 3",
	"ZDIFFSTORE zset:c 2 zset:c2 zset:a",
	"ZINTERSTORE zset:c2 2 zset:c1 zset:nokey2",
	"ZRANGESTORE zset:c zset:c1 0 1",
	"ZRANGESTORE zset:c2 zset:c 0 -1 REV",
	"ZRANGESTORE zset:c zset:nokey2 0 -1",
	"ZMPOP 2 zset:nokey zset:c1 MAX COUNT 2",
	"ZMPOP 2 zset:a zset:c1 MIN COUNT 9",
	"ZUNION 2 zset:c1 zset:nokey2",
	"ZINTERCARD 2 zset:c1 zset:nokey2",
	"ZDIFF 2 zset:nokey2 zset:c1 WITHSCORES",
	"DEL zset:c1 zset:c zset:c2",
	// reads of missing keys: keymiss
	"ZCARD zset:nokey",
	"ZSCORE zset:nokey a",
	"ZMSCORE zset:nokey a b",
	"ZRANK zset:nokey a",
	"ZREVRANK zset:nokey a",
	"ZCOUNT zset:nokey 0 1",
	"ZLEXCOUNT zset:nokey - +",
	"ZRANGE zset:nokey 0 -1",
	"ZRANGE zset:nokey 0 1 BYSCORE",
	"ZREVRANGE zset:nokey 0 -1",
	"ZRANGEBYSCORE zset:nokey 0 1",
	"ZREVRANGEBYSCORE zset:nokey 1 0",
	"ZRANGEBYLEX zset:nokey - +",
	"ZREVRANGEBYLEX zset:nokey + -",
	"ZRANDMEMBER zset:nokey",
	"ZRANDMEMBER zset:nokey 2",
	"ZSCAN zset:nokey 0",
	"ZUNION 2 zset:nokey zset:nokey2",
	"ZINTER 2 zset:nokey zset:nokey2",
	"ZDIFF 2 zset:nokey zset:nokey2",
	"ZINTERCARD 2 zset:nokey zset:nokey2",
	"ZCARD zset:d",
}

// TestKeyspaceNotificationsCompat subscribes to every keyspace and keyevent
// channel and compares, for each write, the notifications corekv publishes
// with redis-server's: in Redis's order on one shard; on several, where the
// keys of one command may live on several shards, in its order for each
// key.
func TestKeyspaceNotificationsCompat(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	want := runNotifySteps(t, compatStartRedis(t, redisPath), nil)
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			got := runNotifySteps(t, srv.addr, want)
			for i := range want {
				w, g := want[i], got[i]
				if shards > 1 {
					w, g = notifyPerKey(w), notifyPerKey(g)
				}
				if strings.Join(g, " ") != strings.Join(w, " ") {
					t.Errorf("%s:\nredis:  %q\ncorekv: %q", notifySteps[i], w, g)
				}
			}
		})
	}
}

// notifyPerKey orders messages by their key, keeping each key's messages
// in the order they came.
func notifyPerKey(msgs []string) []string {
	// m is a channel and a payload, each a bulk string as sent.
	key := func(m string) string {
		ch, payload, _ := strings.Cut(m, "=")
		k, ok := strings.CutPrefix(ch[strings.Index(ch, "\n")+1:], "__keyspace@0__:")
		if !ok {
			k = payload[strings.Index(payload, "\n")+1:]
		}
		return strings.TrimSuffix(k, "\r\n")
	}
	out := slices.Clone(msgs)
	slices.SortStableFunc(out, func(a, b string) int { return strings.Compare(key(a), key(b)) })
	return out
}

// runNotifySteps runs notifySteps on addr and returns the messages each
// step published, in the order they came. Without want it reads until the messages stop;
// with it, as many as want has for the step (and checks none follow).
func runNotifySteps(t *testing.T, addr string, want [][]string) [][]string {
	t.Helper()
	sub, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.close()
	w, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer w.close()
	for _, cmd := range []string{"CONFIG SET notify-keyspace-events KEAnm", "SELECT 1", "DEL {r}c", "SELECT 0"} {
		if _, err := w.do(compatS(cmd)); err != nil {
			t.Fatal(err)
		}
	}
	if r, err := w.do(compatS("CONFIG GET notify-keyspace-events")); err != nil || !strings.Contains(string(r.raw), "AKE") {
		t.Fatalf("CONFIG GET notify-keyspace-events: %q %v", r.raw, err)
	}
	if r, err := sub.do(compatS("PSUBSCRIBE __key*__:*")); err != nil || r.kind != '*' {
		t.Fatalf("PSUBSCRIBE: %v", err)
	}
	readMsg := func(wait time.Duration) (string, bool) {
		_ = sub.c.SetReadDeadline(time.Now().Add(wait))
		r, err := compatReadReply(sub.r)
		if err != nil {
			return "", false
		}
		if len(r.elems) != 4 {
			t.Fatalf("not a pmessage: %q", r.raw)
		}
		return string(r.elems[2].raw) + "=" + string(r.elems[3].raw), true
	}
	out := make([][]string, len(notifySteps))
	for i, step := range notifySteps {
		if _, err := w.do(compatS(step)); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if strings.Contains(step, "PX 30") {
			// Let the key expire, then find it gone.
			time.Sleep(100 * time.Millisecond)
			w.do(compatS("GET gone"))
		}
		var msgs []string
		if want == nil {
			for {
				m, ok := readMsg(300 * time.Millisecond)
				if !ok {
					break
				}
				msgs = append(msgs, m)
			}
		} else {
			for range want[i] {
				m, ok := readMsg(3 * time.Second)
				if !ok {
					break
				}
				msgs = append(msgs, m)
			}
		}
		out[i] = msgs
	}
	if want != nil {
		if m, ok := readMsg(200 * time.Millisecond); ok {
			t.Errorf("a notification more than redis-server sent: %s", m)
		}
	}
	return out
}
