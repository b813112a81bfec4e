package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// keysByShard returns, for each of the server's n shards, a key it owns.
// Shard placement is seeded per process, so it asks the server: SCAN runs
// on the shard its cursor names, and cursor 0 names shard 0.
func keysByShard(t *testing.T, c *redis.Client, prefix string, n int) []string {
	t.Helper()
	ctx := context.Background()
	const candidates = 32
	for i := 0; i < candidates; i++ {
		if err := c.Set(ctx, prefix+strconv.Itoa(i), "x", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	keys := make([]string, n)
	var cursor uint64
	for turn := 0; turn < 10*n; turn++ {
		got, next, err := c.Scan(ctx, cursor, prefix+"*", 1000).Result()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) > 0 {
			keys[cursor%uint64(n)] = got[0]
		}
		if cursor = next; cursor == 0 {
			break
		}
	}
	for i := 0; i < candidates; i++ {
		c.Del(ctx, prefix+strconv.Itoa(i))
	}
	for s, k := range keys {
		if k == "" {
			t.Fatalf("none of %d keys landed on shard %d of %d", candidates, s, n)
		}
	}
	return keys
}

// TestLargeRemoteReplies pipelines GETs of values of several hundred KB
// stored on both shards, with INCRs between them, from several clients at
// once: whichever core a client is on, half its GETs run on the other
// shard, whose batches of replies pass the per-turn reply budget and run in
// several turns. Every reply must arrive whole and in request order.
func TestLargeRemoteReplies(t *testing.T) {
	const shards, size, rounds, clients = 2, 300 << 10, 32, 6
	srv := startServer(t, nil, "--shards", strconv.Itoa(shards))
	ctx := context.Background()
	c := srv.client(t, 2)
	big := keysByShard(t, c, "big", shards)
	ctr := keysByShard(t, c, "ctr", shards)
	var val [shards]string
	for s := 0; s < shards; s++ {
		val[s] = strings.Repeat(string(rune('a'+s)), size-1) + strconv.Itoa(s)
		if err := c.Set(ctx, big[s], val[s], 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for k := 0; k < clients; k++ {
		conn := srv.raw(t)
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		var req bytes.Buffer
		for i := 0; i < rounds; i++ {
			s := i % shards
			fmt.Fprintf(&req, "GET %s\r\nINCR %s:%d\r\n", big[s], ctr[s], k)
		}
		wg.Add(2)
		go func() {
			defer wg.Done()
			if _, err := conn.Write(req.Bytes()); err != nil {
				errs <- err
			}
		}()
		go func() {
			defer wg.Done()
			r := bufio.NewReader(conn)
			var n [shards]int
			for i := 0; i < rounds; i++ {
				s := i % shards
				n[s]++
				want := "$" + strconv.Itoa(size) + "\r\n" + val[s] + "\r\n:" + strconv.Itoa(n[s]) + "\r\n"
				got := make([]byte, len(want))
				if _, err := io.ReadFull(r, got); err != nil {
					errs <- fmt.Errorf("client %d, round %d: %v", k, i, err)
					return
				}
				if string(got) != want {
					errs <- fmt.Errorf("client %d, round %d: got %.40q…, want %.40q…", k, i, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	srv.mustServe(t)
}

// TestSlowReaderLargeValues pipelines GETs of a 4 MB value without reading
// the replies. What the server holds for such a client is bounded by bytes,
// replies in flight included, so its memory stays near the value itself,
// and other clients' requests are answered promptly meanwhile.
func TestSlowReaderLargeValues(t *testing.T) {
	for _, shards := range []int{1, 2} {
		t.Run("shards="+strconv.Itoa(shards), func(t *testing.T) {
			srv := startServer(t, nil, "--shards", strconv.Itoa(shards))
			ctx := context.Background()
			c := srv.client(t, 2)
			const size = 4 << 20
			keys := keysByShard(t, c, "big", shards)
			for _, k := range keys {
				if err := c.Set(ctx, k, strings.Repeat("v", size), 0).Err(); err != nil {
					t.Fatal(err)
				}
			}
			// Other clients, on every core, ping before the slow ones start.
			var pingers []*bufio.ReadWriter
			for i := 0; i < 4*shards; i++ {
				conn := srv.raw(t)
				conn.SetDeadline(time.Now().Add(30 * time.Second))
				pingers = append(pingers, bufio.NewReadWriter(bufio.NewReader(conn), bufio.NewWriter(conn)))
			}
			ping := func() time.Duration {
				slowest := time.Duration(0)
				for _, p := range pingers {
					start := time.Now()
					p.WriteString("PING\r\n")
					p.Flush()
					line, err := p.ReadString('\n')
					if err != nil || line != "+PONG\r\n" {
						t.Fatalf("PING: %q, %v", line, err)
					}
					slowest = max(slowest, time.Since(start))
				}
				return slowest
			}
			ping()
			before := rssOf(t, srv.cmd.Process.Pid)

			// One slow client per shard, each asking for the values in turn
			// from a different one first: whichever cores they land on, one
			// of them starts with a request for another shard, whose reply
			// is in flight when the next ones are read.
			done := make(chan struct{}, shards)
			for j := 0; j < shards; j++ {
				slow := srv.raw(t)
				var req bytes.Buffer
				for i := 0; i < 1000; i++ {
					fmt.Fprintf(&req, "GET %s\r\n", keys[(i+j)%shards])
				}
				go func() {
					defer func() { done <- struct{}{} }()
					// 4,000 requests would be 16 GB of replies; the writes
					// block once the server stops reading, and the deadline
					// ends them.
					slow.SetWriteDeadline(time.Now().Add(3 * time.Second))
					for i := 0; i < 4; i++ {
						if _, err := slow.Write(req.Bytes()); err != nil {
							return
						}
					}
				}()
			}
			slowest := time.Duration(0)
			for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
				slowest = max(slowest, ping())
				time.Sleep(10 * time.Millisecond)
			}
			grown := rssOf(t, srv.cmd.Process.Pid) - before
			t.Logf("RSS grew by %d MB; slowest PING %v", grown>>20, slowest)
			// The race detector multiplies every allocation's footprint and
			// slows every copy.
			limit, wait := int64(shards*64<<20), 200*time.Millisecond
			if raceBuild {
				limit, wait = 4*limit, 4*wait
			}
			if grown > limit {
				t.Errorf("server RSS grew by %d MB for %d clients that do not read %d MB replies (limit %d MB)",
					grown>>20, shards, size>>20, limit>>20)
			}
			if slowest > wait {
				t.Errorf("a PING took %v while clients did not read their large replies", slowest)
			}
			for j := 0; j < shards; j++ {
				<-done
			}
			srv.mustServe(t)
		})
	}
}

// shardClients reads, from INFO corekv, how many clients each shard's core
// holds.
func shardClients(t *testing.T, ctl *compatConn, n int) []int {
	t.Helper()
	r, err := ctl.do(compatS("INFO corekv"))
	if err != nil {
		t.Fatal(err)
	}
	counts := make([]int, n)
	for _, line := range strings.Split(string(r.raw), "\r\n") {
		var shard int
		if _, err := fmt.Sscanf(line, "shard%d:", &shard); err != nil || shard >= n {
			continue
		}
		_, v, _ := strings.Cut(line, ",connected_clients=")
		v, _, _ = strings.Cut(v, ",")
		counts[shard], _ = strconv.Atoi(v)
	}
	return counts
}

// TestOwedRepliesCountTowardOutputLimit: a client that first reads many
// small replies, so that replies in flight are expected to be small, then
// pipelines GETs of large values on another shard and reads nothing, has
// many large replies in flight at once. Those that arrive wait in its reply
// slots; they are owed to the client as much as its unwritten output, so
// past its output limit the client is closed, as it would be with the
// output written.
func TestOwedRepliesCountTowardOutputLimit(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--client-output-buffer-limit", "normal 16mb 0 0")
	ctx := context.Background()
	c := srv.client(t, 2)
	big := keysByShard(t, c, "big", 2)
	small := keysByShard(t, c, "small", 2)
	for _, k := range big {
		if err := c.Set(ctx, k, strings.Repeat("v", 1<<20), 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range small {
		if err := c.Set(ctx, k, "s", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	ctl, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer ctl.close()

	before := shardClients(t, ctl, 2)
	slow := srv.raw(t)
	slow.SetDeadline(time.Now().Add(20 * time.Second))
	r := bufio.NewReader(slow)
	fmt.Fprintf(slow, "CLIENT ID\r\n")
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("CLIENT ID: %q, %v", line, err)
	}
	id := strings.TrimSpace(line[1:])
	after := shardClients(t, ctl, 2)
	home := 0
	if after[1] > before[1] {
		home = 1
	}
	remote := big[1-home]

	var req bytes.Buffer
	for i := 0; i < 400; i++ {
		fmt.Fprintf(&req, "GET %s\r\n", small[1-home])
	}
	slow.Write(req.Bytes())
	for i := 0; i < 400; i++ {
		if line, err := r.ReadString('\n'); err != nil || line != "$1\r\n" {
			t.Fatalf("small GET %d: %q, %v", i, line, err)
		}
		r.ReadString('\n')
	}
	req.Reset()
	for i := 0; i < 120; i++ {
		fmt.Fprintf(&req, "GET %s\r\n", remote)
	}
	slow.Write(req.Bytes())

	for deadline := time.Now().Add(5 * time.Second); ; {
		list, err := c.ClientList(ctx).Result()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(list, "id="+id+" ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("client %s pipelined 120 GETs of 1 MB on another shard without reading and is still connected, past a 16 MB output limit", id)
		}
		time.Sleep(50 * time.Millisecond)
	}
	srv.mustServe(t)
}
