package main

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/rueidis"
)

// trackStep is one step of a tracking scenario: conn sends line; its
// reply, and then whatever pushes every tracking connection received, go
// into the transcript.
type trackStep struct {
	conn int
	line string
}

// trackScenarios are run against redis-server and corekv alike.
// Connection 1 tracks in RESP3 (HELLO 3 first); connection 2 is a RESP2
// subscriber to __redis__:invalidate that others redirect to ($ID2);
// connection 0 writes. Keys carry no hash tags, so on several shards they
// part; writes go one key at a time where BCAST would batch keys of one
// shard's turn together.
func trackScenarios() [][]trackStep {
	s := func(conn int, line string) trackStep { return trackStep{conn, line} }
	setup := []trackStep{s(1, "HELLO 3"), s(2, "SUBSCRIBE __redis__:invalidate")}
	scenarios := [][]trackStep{
		{ // default mode: reads tracked, writes of any core invalidate once
			s(1, "CLIENT TRACKING ON"), s(1, "GET ta"), s(1, "MGET tb tc td"), s(1, "HGET th f"),
			s(0, "SET ta 1"), s(0, "SET ta 2"), s(0, "MSET tb 1 tc 1"), s(0, "DEL td"), s(0, "HSET th f v"),
			s(1, "GET ta"), s(0, "EXPIRE ta 100"), s(1, "GET ta"), s(1, "SET ta own"),
			s(1, "CLIENT TRACKINGINFO"), s(1, "CLIENT GETREDIR"), s(1, "CLIENT TRACKING OFF"), s(0, "SET tb 2"),
			s(1, "CLIENT TRACKINGINFO"), s(1, "CLIENT GETREDIR"),
		},
		{ // NOLOOP: its own writes are not sent back
			s(1, "CLIENT TRACKING ON NOLOOP"), s(1, "MGET na nb"), s(1, "SET na mine"), s(0, "SET nb theirs"),
			s(1, "CLIENT TRACKINGINFO"),
		},
		{ // OPTIN: only after CLIENT CACHING YES, for the next command only
			s(1, "CLIENT TRACKING ON OPTIN"), s(1, "GET oa"), s(0, "SET oa 1"),
			s(1, "CLIENT CACHING YES"), s(1, "CLIENT TRACKINGINFO"), s(1, "GET ob"), s(1, "GET oc"),
			s(0, "SET ob 1"), s(0, "SET oc 1"),
			s(1, "CLIENT CACHING YES"), s(1, "MULTI"), s(1, "GET od"), s(1, "GET oe"), s(1, "EXEC"),
			s(0, "SET od 1"), s(0, "SET oe 1"), s(1, "CLIENT CACHING NO"),
		},
		{ // OPTOUT: all but after CLIENT CACHING NO
			s(1, "CLIENT TRACKING ON OPTOUT"), s(1, "CLIENT CACHING NO"), s(1, "GET pa"), s(1, "GET pb"),
			s(0, "SET pa 1"), s(0, "SET pb 1"), s(1, "CLIENT CACHING YES"), s(1, "CLIENT TRACKINGINFO"),
		},
		{ // REDIRECT to a RESP2 subscriber, and to a RESP3 connection
			s(0, "CLIENT TRACKING ON REDIRECT $ID2"), s(0, "GET ra"), s(3, "SET ra 1"),
			s(0, "CLIENT GETREDIR"), s(0, "CLIENT TRACKING OFF"),
			s(0, "CLIENT TRACKING ON REDIRECT $ID1"), s(0, "GET rb"), s(3, "SET rb 1"), s(0, "CLIENT TRACKING OFF"),
		},
		{ // BCAST, with and without prefixes
			s(1, "CLIENT TRACKING ON BCAST PREFIX ba: PREFIX bb:"), s(0, "SET ba:1 x"), s(0, "SET bc:1 x"),
			s(0, "INCR bb:2"), s(1, "CLIENT TRACKINGINFO"), s(1, "CLIENT TRACKING ON BCAST PREFIX bd:"),
			s(0, "SET bd:x 1"), s(1, "CLIENT TRACKINGINFO"), s(1, "CLIENT TRACKING OFF"), s(0, "SET ba:1 y"),
			s(1, "CLIENT TRACKING ON BCAST NOLOOP"), s(1, "SET bz mine"), s(0, "SET bz theirs"),
			s(1, "CLIENT TRACKING OFF"),
		},
		{ // flushes: one null invalidation to every tracking client
			s(1, "CLIENT TRACKING ON"), s(1, "GET fa"), s(0, "FLUSHALL"), s(1, "GET fa"), s(0, "FLUSHDB"),
			s(0, "SET fa 1"), s(1, "CLIENT TRACKING OFF"),
		},
		{ // refusals
			s(1, "CLIENT TRACKING ON PREFIX x"), s(1, "CLIENT TRACKING ON BCAST OPTIN"),
			s(1, "CLIENT TRACKING ON OPTIN OPTOUT"), s(1, "CLIENT TRACKING MAYBE"), s(1, "CLIENT TRACKING ON FOO"),
			s(1, "CLIENT TRACKING ON REDIRECT 999999"), s(1, "CLIENT TRACKING ON REDIRECT x"),
			s(1, "CLIENT TRACKING ON REDIRECT $ID2 REDIRECT $ID2"), s(1, "CLIENT CACHING YES"),
			s(1, "CLIENT TRACKING ON"), s(1, "CLIENT CACHING YES"), s(1, "CLIENT CACHING MAYBE"),
			s(1, "CLIENT TRACKING ON BCAST"), s(1, "CLIENT TRACKING OFF"),
			s(1, "CLIENT TRACKING ON OPTIN"), s(1, "CLIENT TRACKING ON OPTOUT"), s(1, "CLIENT CACHING NO"),
			s(1, "CLIENT TRACKING OFF"), s(1, "CLIENT TRACKING ON BCAST PREFIX FOOBAR PREFIX FOO"),
			s(1, "CLIENT TRACKING ON BCAST PREFIX FOO PREFIX BAR"), s(1, "CLIENT TRACKING ON BCAST PREFIX FO"),
			s(1, "CLIENT TRACKING ON"), s(1, "CLIENT TRACKING OFF"), s(1, "CLIENT TRACKING"),
		},
	}
	for i, sc := range scenarios {
		scenarios[i] = append(append([]trackStep(nil), setup...), sc...)
	}
	return scenarios
}

// trackRun runs steps on the server at addr and returns the transcript.
func trackRun(t *testing.T, addr string, steps []trackStep) []string {
	t.Helper()
	conns := map[int]*compatConn{}
	ids := map[int]string{}
	for i := range 4 {
		c, err := compatDial(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		rep, err := c.do(compatS("CLIENT ID"))
		if err != nil {
			t.Fatal(err)
		}
		conns[i], ids[i] = c, strings.TrimSpace(string(rep.raw[1:]))
	}
	// Pushes that came, read until each connection is quiet for a while.
	drain := func(out []string) []string {
		for i := 1; i <= 2; i++ {
			c := conns[i]
			for {
				_ = c.c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				rep, err := compatReadReply(c.r)
				if err != nil {
					break
				}
				out = append(out, fmt.Sprintf("  %d< %q", i, rep.raw))
			}
		}
		return out
	}
	var out []string
	// Connection IDs differ between servers: replies name them as $ID.
	masked := strings.NewReplacer(":"+ids[1]+`\r\n`, ":$ID1"+`\r\n`, ":"+ids[2]+`\r\n`, ":$ID2"+`\r\n`)
	for _, st := range steps {
		line := strings.NewReplacer("$ID1", ids[1], "$ID2", ids[2]).Replace(st.line)
		rep, err := conns[st.conn].do(compatS(line))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		if strings.HasPrefix(st.line, "HELLO") {
			continue // it names the connection's ID
		}
		out = append(out, masked.Replace(fmt.Sprintf("%d> %s: %q", st.conn, st.line, rep.raw)))
		n := len(out)
		out = drain(out)
		for i := n; i < len(out); i++ {
			out[i] = masked.Replace(out[i])
		}
		// Keys of different shards are invalidated in no set order.
		sort.Strings(out[n:])
	}
	conns[0].do(compatS("FLUSHALL"))
	drain(nil)
	return out
}

// TestTrackingWithRedis runs the tracking scenarios against redis-server
// and against corekv on 1, 2 and 4 shards and compares every reply and
// push each connection receives, byte for byte.
func TestTrackingWithRedis(t *testing.T) {
	redisAddr := compatStartRedis(t, needTool(t, "redis-server"))
	bin := corekvBinary(t)
	scenarios := trackScenarios()
	want := make([][]string, len(scenarios))
	for i, sc := range scenarios {
		want[i] = trackRun(t, redisAddr, sc)
	}
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			srv := compatStartCorekv(t, bin, shards)
			for i, sc := range scenarios {
				got := trackRun(t, srv.addr, sc)
				if strings.Join(got, "\n") == strings.Join(want[i], "\n") {
					continue
				}
				at := 0
				for at < len(got) && at < len(want[i]) && got[at] == want[i][at] {
					at++
				}
				from := max(at-3, 0)
				t.Errorf("scenario %d differs from redis-server's at line %d\nredis:\n%s\ncorekv:\n%s", i, at,
					strings.Join(want[i][from:min(at+4, len(want[i]))], "\n"), strings.Join(got[from:min(at+4, len(got))], "\n"))
			}
		})
	}
}

// TestRueidisClientSideCache: rueidis with nothing but its address (client
// side caching on, as by default) connects to corekv on two shards; DoCache
// is a local hit on the second read, and another client's write, from
// another connection and core, reaches the cache as an invalidation.
func TestRueidisClientSideCache(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	addr := "127.0.0.1:" + strconv.Itoa(s.port)
	cl, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{addr}})
	if err != nil {
		t.Fatalf("rueidis with its defaults: %v", err)
	}
	defer cl.Close()
	writer := s.client(t, 0)
	ctx := context.Background()
	for _, key := range []string{"cache:a", "cache:b", "cache:c", "cache:d"} {
		if err := writer.Set(ctx, key, "v1", 0).Err(); err != nil {
			t.Fatal(err)
		}
		get := func() rueidis.RedisResult { return cl.DoCache(ctx, cl.B().Get().Key(key).Cache(), time.Minute) }
		first := get()
		if v, _ := first.ToString(); v != "v1" || first.IsCacheHit() {
			t.Fatalf("%s first read: %q hit=%v", key, v, first.IsCacheHit())
		}
		if second := get(); !second.IsCacheHit() {
			t.Fatalf("%s second read was not a cache hit", key)
		}
		if err := writer.Set(ctx, key, "v2", 0).Err(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(2 * time.Second)
		for {
			r := get()
			if v, _ := r.ToString(); v == "v2" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the cache still serves the old value after another client's write", key)
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// TestTrackingNoStaleReads: readers on four shards keep a cache fed by
// their GETs and emptied by the invalidations that come, while writers on
// other connections keep changing the keys. No reply is older than a
// version a writer had been answered for before the read, and once the
// writers have stopped and the invalidations in flight have come, every
// value still cached is the key's value: no change went unannounced. A
// reply that differs from the cached value before that key's invalidation
// came is counted, not refused: the read raced the write, and the
// invalidation follows every reply in flight when it comes (README,
// "Client-side caching"). Bounded by time and count.
func TestTrackingNoStaleReads(t *testing.T) {
	addr := os.Getenv("COREKV_STALE_ADDR")
	if addr == "" {
		s := startServer(t, nil, "--shards", "4")
		addr = "127.0.0.1:" + strconv.Itoa(s.port)
	}
	const keys, readers, writers = 200, 4, 4
	acked := make([]atomic.Int64, keys)
	stop := time.Now().Add(3 * time.Second)
	var writing, reading sync.WaitGroup
	var reads, hits, raced, stale atomic.Int64
	errs := make(chan error, readers+writers)
	for w := range writers {
		writing.Add(1)
		go func() {
			defer writing.Done()
			c, err := compatDial(addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.close()
			for i := 0; time.Now().Before(stop) && i < 100000; i++ {
				k := (i*writers + w) % keys // one writer per key: versions rise
				v := acked[k].Load() + 1
				if _, err := c.do(compatA("SET", "sv:"+strconv.Itoa(k), strconv.FormatInt(v, 10))); err != nil {
					errs <- err
					return
				}
				acked[k].Store(v)
				time.Sleep(2 * time.Millisecond)
			}
		}()
	}
	writersDone := make(chan struct{})
	for r := range readers {
		reading.Add(1)
		go func() {
			defer reading.Done()
			c, err := compatDial(addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.close()
			for _, line := range []string{"HELLO 3", "CLIENT TRACKING ON"} {
				if _, err := c.do(compatS(line)); err != nil {
					errs <- err
					return
				}
			}
			cache := map[string]string{}
			invalidated := func(rep *compatReply) {
				if len(rep.elems) != 2 {
					return
				}
				if rep.elems[1].kind != '*' {
					clear(cache) // a flush
				}
				for _, e := range rep.elems[1].elems {
					delete(cache, string(compatBulk(e)))
				}
			}
			// get reads key from the server, taking the pushes before
			// its reply.
			get := func(key string) (string, bool) {
				if err := c.send(compatEncode(nil, compatA("GET", key))); err != nil {
					errs <- err
					return "", false
				}
				for {
					rep, err := c.read()
					if err != nil {
						errs <- err
						return "", false
					}
					if rep.kind != '>' {
						return string(compatBulk(rep)), true
					}
					invalidated(rep)
				}
			}
			for i := 0; time.Now().Before(stop) && i < 200000; i++ {
				k := (i*7 + r) % keys
				key := "sv:" + strconv.Itoa(k)
				cached, had := cache[key]
				floor := acked[k].Load()
				v, ok := get(key)
				if !ok {
					return
				}
				reads.Add(1)
				if _, still := cache[key]; had && still {
					if v == cached {
						hits.Add(1)
					} else {
						raced.Add(1)
					}
				}
				if n, _ := strconv.ParseInt(v, 10, 64); n < floor {
					stale.Add(1)
				}
				cache[key] = v
			}
			<-writersDone
			// The invalidations still in flight come: then what is
			// cached must be what the server holds.
			time.Sleep(200 * time.Millisecond)
			for {
				_ = c.c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
				rep, err := compatReadReply(c.r)
				if err != nil {
					break
				}
				invalidated(rep)
			}
			held := make(map[string]string, len(cache))
			for k, v := range cache {
				held[k] = v
			}
			for k, v := range held {
				if now, ok := get(k); ok && now != v {
					stale.Add(1)
				}
			}
		}()
	}
	writing.Wait()
	close(writersDone)
	reading.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("%d reads, %d a cache would have served rightly, %d raced a write, %d stale",
		reads.Load(), hits.Load(), raced.Load(), stale.Load())
	if stale.Load() != 0 {
		t.Fatalf("%d values were stale: older than an answered write, or cached after a change no invalidation announced", stale.Load())
	}
	if hits.Load() == 0 {
		t.Fatal("no key stayed cached between two reads: the test proves nothing")
	}
}

// BenchmarkTrackedGet measures pipelined GETs (16 per round trip, 8
// connections, 1000 keys read again and again, on two shards) with no
// connection tracking and with half of them tracking in RESP3; the
// issue's target is 0.9x at most between them. Run with -bench
// TrackedGet; compare the cmds/s of the two.
func BenchmarkTrackedGet(b *testing.B) {
	for _, tracking := range []int{0, 4} {
		b.Run(fmt.Sprintf("tracking=%d", tracking), func(b *testing.B) {
			srv := compatStartCorekv(b, corekvBinary(b), 2)
			const conns, depth, keys = 8, 16, 1000
			cs := make([]*compatConn, conns)
			for i := range cs {
				c, err := compatDial(srv.addr)
				if err != nil {
					b.Fatal(err)
				}
				defer c.close()
				if i < tracking {
					for _, line := range []string{"HELLO 3", "CLIENT TRACKING ON"} {
						if _, err := c.do(compatS(line)); err != nil {
							b.Fatal(err)
						}
					}
				}
				cs[i] = c
			}
			b.ResetTimer()
			start := time.Now()
			var wg sync.WaitGroup
			per := b.N/conns + 1
			for i, c := range cs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var buf []byte
					for n := 0; n < per; n += depth {
						buf = buf[:0]
						for j := range depth {
							buf = compatEncode(buf, compatA("GET", "tk:"+strconv.Itoa((n+j+i*131)%keys)))
						}
						if err := c.send(buf); err != nil {
							b.Error(err)
							return
						}
						for range depth {
							if _, err := c.read(); err != nil {
								b.Error(err)
								return
							}
						}
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(per*conns)/time.Since(start).Seconds(), "cmds/s")
		})
	}
}
