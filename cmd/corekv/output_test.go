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

	"github.com/corekv/corekv/router"
)

// keyOnShard returns a key with prefix that the server's hash places on
// shard, out of n.
func keyOnShard(t *testing.T, prefix string, shard, n int) string {
	t.Helper()
	for i := 0; i < 1000; i++ {
		k := prefix + strconv.Itoa(i)
		if router.ShardOf([]byte(k), n) == shard {
			return k
		}
	}
	t.Fatalf("no key %s* on shard %d of %d", prefix, shard, n)
	return ""
}

// TestLargeRemoteReplies pipelines GETs of values of several hundred KB
// stored on both shards, with INCRs between them, from several clients at
// once: whichever core a client is on, half its GETs run on the other
// shard, whose batches of replies pass the per-turn reply budget and run in
// several turns. Every reply must arrive whole and in request order.
func TestLargeRemoteReplies(t *testing.T) {
	const shards, size, rounds, clients = 2, 700 << 10, 24, 3
	srv := startServer(t, nil, "--shards", strconv.Itoa(shards))
	ctx := context.Background()
	c := srv.client(t, 2)
	var big, ctr [shards]string
	var val [shards]string
	for s := 0; s < shards; s++ {
		big[s] = keyOnShard(t, "big", s, shards)
		ctr[s] = keyOnShard(t, "ctr", s, shards)
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
