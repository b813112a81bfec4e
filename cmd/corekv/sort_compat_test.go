package main

import (
	"fmt"
	"testing"
)

// compatSortScripts are TestSortCompatWithRedis's scripts: SORT and SORT_RO
// with every option and error, over lists, sets and sorted sets of each
// encoding. Keys their patterns name share the sorted key's hash tag, so
// that every shard count answers as Redis; destinations without the tag
// are stored across shards.
func compatSortScripts() []compatScript {
	s, a, u, shape := compatS, compatA, compatUnord, compatShp
	ints := make([]string, 0, 600)
	for i := 600; i > 0; i-- {
		ints = append(ints, fmt.Sprint(i*7%601))
	}
	words := make([]string, 0, 200)
	for i := 0; i < 200; i++ {
		words = append(words, fmt.Sprintf("w%03d", i*37%200))
	}
	zbig := make([]string, 0, 400)
	for i := 0; i < 200; i++ {
		zbig = append(zbig, fmt.Sprint(i%13), fmt.Sprintf("m%03d", i))
	}
	return []compatScript{
		{name: "sort-list", cmds: []compatCmd{
			s("RPUSH {t}l 3 1 2 10 -5 1.5 0x10 1e2 +4 -0"), s("SORT {t}l"), s("SORT {t}l DESC"), s("SORT {t}l ASC"),
			s("SORT {t}l ALPHA"), s("SORT {t}l ALPHA DESC"), s("SORT_RO {t}l"), s("SORT_RO {t}l ALPHA DESC"),
			s("SORT {t}l LIMIT 0 3"), s("SORT {t}l LIMIT 2 3 DESC"), s("SORT {t}l LIMIT -5 2"), s("SORT {t}l LIMIT 9 5"),
			s("SORT {t}l LIMIT 10 5"), s("SORT {t}l LIMIT 100 5"), s("SORT {t}l LIMIT 0 0"), s("SORT {t}l LIMIT 3 -1"),
			s("SORT {t}l LIMIT -1 -1"), s("SORT {t}l LIMIT 1 9223372036854775807"), s("SORT {t}l LIMIT 2 9223372036854775807"),
			s("SORT {t}l LIMIT 9223372036854775807 1"), s("SORT {t}l LIMIT -9223372036854775808 2"),
			s("SORT {t}l LIMIT 0 1 LIMIT 2 2"), s("SORT {t}l ASC DESC"), s("SORT {t}l DESC ASC"), s("SORT {t}l ALPHA ALPHA"),
			s("SORT {t}l BY nosort"), s("SORT {t}l BY nosort DESC"), s("SORT {t}l BY nosort LIMIT 2 3"),
			s("SORT {t}l BY nosort DESC LIMIT 2 3"), s("SORT {t}l BY nosort LIMIT 8 5"), s("SORT {t}l BY nosort LIMIT 10 1"),
			s("SORT {t}l BY nosort DESC LIMIT 0 0"), s("SORT {t}l BY nosort ALPHA"), s("SORT {t}l BY {t}nokey*x BY nosort"),
			s("SORT {t}l BY nosort BY {t}w_*"),
			// Scores strtod reads whole, and those it does not.
			s("RPUSH {t}f 1 2.5 -inf inf +inf -1e3 .5 5. 0"), s("SORT {t}f"), s("SORT {t}f DESC LIMIT 1 3"),
			a("RPUSH", "{t}e", "", "1", " 2", "\t3"), s("SORT {t}e"), s("SORT {t}e DESC"),
			a("RPUSH", "{t}n0", "2", "1\x00junk", "0"), s("SORT {t}n0"),
			a("RPUSH", "{t}b1", "1", "2 "), s("SORT {t}b1"), s("SORT {t}b1 ALPHA"), s("SORT {t}b1 LIMIT 0 0"),
			// No score out of range here: Redis never clears errno before
			// SORT's strtod, so after one, later sorts of elements it must
			// parse fail until errno changes. The unit tests cover it.
			s("RPUSH {t}b2 1 nan"), s("SORT {t}b2"), s("RPUSH {t}b4 1 x"),
			s("SORT {t}b4"), s("SORT {t}b4 STORE {t}d"), s("EXISTS {t}d"), s("SORT {t}b4 ALPHA"),
			// Equal scores fall back to the elements' bytes.
			s("RPUSH {t}eq 1.0 1 01 1e0 b a"), s("SORT {t}eq ALPHA"),
			a("RPUSH", "{t}bin", "b", "a\x00c", "a\x00b", "\xff", "\xc3\xa9", "a", "A", "_", "ab"),
			s("SORT {t}bin ALPHA"), s("SORT {t}bin ALPHA DESC"), s("SORT {t}bin ALPHA STORE {t}bd"), s("LRANGE {t}bd 0 -1"),
			// Big lists.
			s("CONFIG SET list-max-listpack-size 4"), a(append([]string{"RPUSH", "{t}big"}, ints...)...),
			s("SORT {t}big LIMIT 100 20"), s("SORT {t}big DESC LIMIT 590 20"), s("SORT {t}big ALPHA LIMIT 0 30"),
			s("SORT {t}big BY nosort LIMIT 37 9"), s("SORT {t}big BY nosort DESC LIMIT 37 9"),
			s("SORT {t}big BY nosort DESC LIMIT 595 9"), s("SORT {t}big STORE {t}bs"), s("LLEN {t}bs"),
			s("LRANGE {t}bs 290 310"), s("SORT {t}big BY nosort DESC STORE {t}bs"), s("LRANGE {t}bs 0 9"),
			s("CONFIG SET list-max-listpack-size -2"),
			shape("HELLO 3"), s("SORT {t}l LIMIT 0 2"), s("SORT {t}nokey"), s("SORT_RO {t}l BY nosort LIMIT 0 1"),
			shape("HELLO 2"),
		}},
		{name: "sort-errors", cmds: []compatCmd{
			s("SORT"), s("SORT_RO"), s("RPUSH {t}l 2 1"), s("SORT {t}l foo"), s("SORT {t}l STORE"), s("SORT {t}l BY"),
			s("SORT {t}l GET"), s("SORT {t}l LIMIT"), s("SORT {t}l LIMIT 1"), s("SORT {t}l LIMIT x 1"),
			s("SORT {t}l LIMIT 1 x"), s("SORT {t}l LIMIT 1.5 1"), s("SORT {t}l LIMIT 99999999999999999999 1"),
			s("SORT {t}l LIMIT 0 1 foo"), s("SORT {t}l foo LIMIT x 1"), s("SORT {t}l LIMIT x 1 foo"),
			s("SORT_RO {t}l STORE {t}d"), s("SORT_RO {t}l store"), s("SORT {t}l ALPHA STORE {t}d STORE"),
			s("SET {t}str v"), s("SORT {t}str"), s("SORT_RO {t}str"), s("SORT {t}str foo"), s("SORT {t}str STORE {t}d"),
			s("HSET {t}h a 1"), s("SORT {t}h"), s("SORT {t}h BY nosort"), s("EXISTS {t}d"),
			s("SORT {t}nokey"), s("SORT {t}nokey ALPHA DESC LIMIT 0 1"), s("SORT {t}nokey STORE {t}d"),
			s("SORT {t}nokey BY {t}w_* GET # GET {t}h_*->f"), s("SORT {t}nokey foo"),
		}},
		{name: "sort-set", cmds: []compatCmd{
			s("SADD {t}i 5 3 -1 10 7"), s("OBJECT ENCODING {t}i"), s("SORT {t}i"), s("SORT {t}i DESC LIMIT 1 2"),
			s("SORT {t}i ALPHA"), u("SORT {t}i BY nosort"), s("SORT {t}i BY nosort STORE {t}d"), s("LRANGE {t}d 0 -1"),
			s("SADD {t}p c a b 1 10 2"), s("OBJECT ENCODING {t}p"), s("SORT {t}p ALPHA"), s("SORT {t}p"),
			s("SORT {t}p ALPHA DESC LIMIT 0 3"), s("SORT {t}p BY nosort DESC STORE {t}d"), s("LRANGE {t}d 0 -1"),
			s("SORT {t}p BY nosort LIMIT 0 2 STORE {t}d"), s("LRANGE {t}d 0 -1"),
			a(append([]string{"SADD", "{t}bi"}, ints...)...), s("OBJECT ENCODING {t}bi"), s("SORT {t}bi LIMIT 10 10"),
			s("SORT {t}bi DESC LIMIT 0 5"), s("SORT {t}bi ALPHA LIMIT 0 12"),
			a(append([]string{"SADD", "{t}bw"}, words...)...), s("OBJECT ENCODING {t}bw"), s("SORT {t}bw ALPHA LIMIT 50 10"),
			s("SORT {t}bw ALPHA DESC LIMIT 0 5"), s("SORT {t}bw BY nosort STORE {t}d"), s("LRANGE {t}d 0 4"), s("SORT {t}bw"),
		}},
		{name: "sort-zset", cmds: []compatCmd{
			s("ZADD {t}z 1 c 2 b 3 a 0 d -inf e inf f 2 bb"), s("SORT {t}z ALPHA"), s("SORT {t}z BY nosort"),
			s("SORT {t}z BY nosort DESC"), s("SORT {t}z BY nosort LIMIT 1 3"), s("SORT {t}z BY nosort DESC LIMIT 1 3"),
			s("SORT {t}z BY nosort LIMIT 6 5"), s("SORT {t}z BY nosort DESC LIMIT 7 5"), s("SORT {t}z BY nosort LIMIT -2 2"),
			s("SORT {t}z BY nosort STORE {t}d"), s("LRANGE {t}d 0 -1"), s("SORT {t}z"), s("SORT_RO {t}z ALPHA DESC"),
			s("ZADD {t}zn 3 1 1 3 2 2"), s("SORT {t}zn"), s("SORT {t}zn BY nosort"), s("SORT {t}zn BY nosort DESC"),
			a(append([]string{"ZADD", "{t}zb"}, zbig...)...), s("OBJECT ENCODING {t}zb"), s("SORT {t}zb ALPHA LIMIT 20 10"),
			s("SORT {t}zb BY nosort LIMIT 20 10"), s("SORT {t}zb BY nosort DESC LIMIT 20 10"),
			s("SORT {t}zb BY nosort DESC LIMIT 195 10"), s("SORT {t}zb BY nosort DESC"), s("SORT {t}zb BY nosort STORE {t}d"),
			s("LRANGE {t}d 100 110"),
			// SORT converts a small sorted set it reads; WATCH does not see it.
			s("ZADD {t}zs 1 a 2 b"), s("OBJECT ENCODING {t}zs"), s("WATCH {t}zs"), s("SORT_RO {t}zs BY nosort"),
			s("OBJECT ENCODING {t}zs"), s("MULTI"), s("PING"), s("EXEC"), s("ZADD zs2 1 a"), s("SORT zs2 ALPHA STORE {t}d"),
			s("OBJECT ENCODING zs2"), s("ZADD zs3 1 a"), s("SORT zs3 STORE zs3"), s("TYPE zs3"),
		}},
		{name: "sort-patterns", cmds: []compatCmd{
			s("RPUSH {t}l a b c d e"), s("MSET {t}w_a 3 {t}w_b 1 {t}w_c 2 {t}w_d 1"), s("SET {t}w_e x"),
			s("HSET {t}h_a f x g 10"), s("HSET {t}h_b f y g 5"), s("HSET {t}h_c g 7"), s("SADD {t}h_d f"),
			s("SORT {t}l BY {t}w_*"), s("SORT {t}l BY {t}w_* ALPHA"), s("SORT {t}l BY {t}w_* ALPHA DESC"),
			s("SORT {t}l BY {t}h_*->g"), s("SORT {t}l BY {t}h_*->g DESC"), s("SORT {t}l BY {t}h_*->f ALPHA"),
			s("SORT {t}l BY {t}h_*->f ALPHA DESC LIMIT 0 3"), s("SORT {t}l BY {t}h_*->nofield"),
			s("SORT {t}l BY {t}w_* GET # GET {t}w_* GET {t}h_*->f GET {t}h_*->g GET {t}h_*-> GET {t}nostar GET {t}h_*->f->x"),
			s("SORT {t}l BY {t}w_* LIMIT 1 2 GET # GET {t}h_*->f"), s("SORT {t}l BY nosort GET {t}w_*"),
			s("SORT {t}l ALPHA GET {t}w_* GET #"), s("SORT {t}l GET {t}w_*"), s("SORT {t}l BY {t}*_w"),
			s("SORT {t}l BY {t}w_*->"), s("SORT {t}l BY {t}h_*->g STORE {t}d GET {t}h_*->f GET #"), s("LRANGE {t}d 0 -1"),
			s("SORT {t}l BY {t}h_*->g STORE {t}d"), s("LRANGE {t}d 0 -1"), s("SORT_RO {t}l BY {t}h_*->g GET {t}h_*->f"),
			s("SET {t}w_e 4"), s("SORT {t}l BY {t}w_*"), s("SORT {t}l BY {t}w_* GET {t}h_*->g"),
			s("SORT {t}l BY {t}w_* DESC LIMIT 1 3 GET # STORE {t}d2"), s("LRANGE {t}d2 0 -1"),
			s("SORT {t}l BY {t}w_** GET {t}w_**"), s("SET {t}w_a* 9"), s("SORT {t}l BY {t}w_** GET {t}w_**"),
			s("ZADD {t}z 1 a 2 b 3 c"), s("SORT {t}z BY {t}w_* GET {t}h_*->f"), s("SADD {t}s a c e"),
			s("SORT {t}s BY {t}w_* DESC GET # GET {t}w_*"), s("SORT {t}s BY {t}h_*->g ALPHA"),
			// Integer values from the other keys.
			s("SET {t}w_a 100"), s("INCR {t}w_a"), s("SORT {t}l BY {t}w_* GET {t}w_* LIMIT 0 2"),
			shape("HELLO 3"), s("SORT {t}l BY {t}w_* GET {t}h_*->f GET #"), shape("HELLO 2"),
		}},
		{name: "sort-store", cmds: []compatCmd{
			s("RPUSH {t}l 3 1 2"), s("SET {t}d v EX 1000"), s("SORT {t}l STORE {t}d"), s("TYPE {t}d"), s("TTL {t}d"),
			s("LRANGE {t}d 0 -1"), s("OBJECT ENCODING {t}d"), s("SORT {t}l STORE {t}l"), s("LRANGE {t}l 0 -1"),
			s("SORT {t}l DESC STORE {t}d STORE {t}d2"), s("EXISTS {t}d2"), s("LRANGE {t}d2 0 -1"),
			s("SORT {t}l LIMIT 5 1 STORE {t}d2"), s("EXISTS {t}d2"), s("SORT {t}nokey STORE {t}d"), s("EXISTS {t}d"),
			s("SORT {t}nokey STORE {t}d"), s("SORT {t}l GET {t}x_* GET # STORE {t}d"), s("LRANGE {t}d 0 -1"),
			// Destinations on other shards.
			s("SORT {t}l STORE d"), s("LRANGE d 0 -1"), s("SORT {t}l DESC LIMIT 0 2 STORE d"), s("LRANGE d 0 -1"),
			s("SORT {t}l LIMIT 9 1 STORE d"), s("EXISTS d"), s("SORT {t}l BY nosort GET # GET {t}nostar STORE d"),
			s("LRANGE d 0 -1"), s("SET d2 x"), s("SORT {t}l ALPHA STORE d2"), s("LRANGE d2 0 -1"), s("SORT nokey STORE d2"),
			s("EXISTS d2"), s("SET {t}str x"), s("SORT {t}str STORE d2"), s("SADD {t}st b a"), s("SORT {t}st BY nosort STORE d3"),
			s("LRANGE d3 0 -1"), s("ZADD {t}z 2 a 1 b"), s("SORT {t}z BY nosort STORE d3"), s("LRANGE d3 0 -1"),
			s("SORT {t}l STORE"), s("SORT {t}l STORE d foo"),
			s("COMMAND GETKEYS SORT a"), s("COMMAND GETKEYS SORT a STORE b"), s("COMMAND GETKEYS SORT a STORE b STORE c"),
			s("COMMAND GETKEYS SORT a BY x STORE b"), s("COMMAND GETKEYS SORT a GET store b"),
			s("COMMAND GETKEYS SORT a LIMIT 0 store"), s("COMMAND GETKEYS SORT a STORE limit 1 2"),
			s("COMMAND GETKEYS SORT a STORE"), s("COMMAND GETKEYS SORT_RO a STORE b"), s("COMMAND GETKEYS SORT"),
			s("MULTI"), s("SORT {t}l STORE d4"), s("SORT_RO d4 DESC"), s("SORT {t}l BY {t}w_* GET #"), s("EXEC"),
		}},
	}
}

// TestSortCompatWithRedis runs the SORT scripts against redis-server and
// corekv with one and two shards, replies compared byte for byte.
func TestSortCompatWithRedis(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	bin := corekvBinary(t)
	redisAddr := compatStartRedis(t, redisPath)
	for _, shards := range []int{1, 2} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			for _, sc := range compatSortScripts() {
				t.Run(sc.name, func(t *testing.T) {
					compatRunScript(t, redisAddr, srv.addr, shards, sc)
				})
				if srv.exited() {
					t.Fatalf("corekv --shards %d exited during %q:\n%s", shards, sc.name, srv.logs.String())
				}
			}
		})
	}
}

// TestSortOtherShards: with two shards, a pattern that names keys of the
// other shard is refused with its documented error, before anything is
// stored; STORE to the other shard works without patterns and refuses
// them.
func TestSortOtherShards(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	do := func(args ...string) string {
		t.Helper()
		rep, err := c.do(compatA(args...))
		if err != nil {
			t.Fatal(err)
		}
		return string(rep.raw)
	}
	const (
		errBy  = "-ERR BY option of SORT reaches a key on another shard: give the pattern a hash tag the sorted key shares\r\n"
		errGet = "-ERR GET option of SORT reaches a key on another shard: give the pattern a hash tag the sorted key shares\r\n"
	)
	push := []string{"RPUSH", "{t}l"}
	for i := range 40 {
		push = append(push, fmt.Sprint(i))
	}
	do(push...)
	// Forty keys w_0…w_39 spread over both shards: some are elsewhere.
	for _, tc := range [][2]string{
		{do("SORT", "{t}l", "BY", "w_*"), errBy},
		{do("SORT_RO", "{t}l", "GET", "w_*"), errGet},
		{do("SORT", "{t}l", "BY", "nosort", "GET", "#", "GET", "w_*", "STORE", "{t}d"), errGet},
		{do("EXISTS", "{t}d"), ":0\r\n"},
		{do("SORT", "{t}l", "BY", "{t}w_*", "LIMIT", "0", "1", "GET", "{t}w_*->f"), "*1\r\n$-1\r\n"},
	} {
		if tc[0] != tc[1] {
			t.Errorf("got %q, want %q", tc[0], tc[1])
		}
	}
	elsewhere := 0
	for i := range 20 {
		d := fmt.Sprint("d", i)
		if got := do("SORT", "{t}l", "LIMIT", "0", "2", "STORE", d); got != ":2\r\n" {
			t.Fatalf("SORT STORE %s: %q", d, got)
		}
		switch got := do("SORT", "{t}l", "BY", "{t}w_*", "STORE", d); got {
		case ":40\r\n":
		case errBy:
			elsewhere++
			if n := do("LLEN", d); n != ":2\r\n" {
				t.Errorf("%s after a refused SORT: LLEN %q, want the 2 stored before", d, n)
			}
		default:
			t.Fatalf("SORT BY STORE %s: %q", d, got)
		}
	}
	if elsewhere == 0 {
		t.Error("no destination of twenty on the other shard")
	}
}
