package main

import (
	"bufio"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestListMemory loads one list of 1M 16-byte elements with RPUSHes of
// 1,000, as the memory benchmark does, and checks how much the server's RSS
// grew: the list's nodes take 17 bytes per element and Redis 7.0.15 grows
// by 18.6. Garbage the load leaves (request buffers, arena pages) or memory
// faulted in far ahead of use shows here as bytes past that.
func TestListMemory(t *testing.T) {
	if raceBuild {
		t.Skip("the race detector keeps shadow memory for what the server touches")
	}
	const batches, per = 1000, 1000
	const maxPerElement = 19.0
	s := startServer(t, nil, "--shards", "1")
	c := s.raw(t)
	c.SetDeadline(time.Now().Add(60 * time.Second))
	reqs := make([][]byte, batches)
	for i := range reqs {
		var b strings.Builder
		fmt.Fprintf(&b, "*%d\r\n$5\r\nRPUSH\r\n$4\r\nlist\r\n", per+2)
		for j := range per {
			fmt.Fprintf(&b, "$16\r\n%016d\r\n", i*per+j)
		}
		reqs[i] = []byte(b.String())
	}
	time.Sleep(300 * time.Millisecond)
	before := rssOf(t, s.cmd.Process.Pid)
	errc := make(chan error, 1)
	go func() {
		for _, r := range reqs {
			if _, err := c.Write(r); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	r := bufio.NewReader(c)
	for i := range batches {
		line, err := r.ReadString('\n')
		if want := fmt.Sprintf(":%d\r\n", (i+1)*per); err != nil || line != want {
			t.Fatalf("RPUSH %d answered %q, %v; want %q", i, line, err, want)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	grew := float64(rssOf(t, s.cmd.Process.Pid)-before) / (batches * per)
	t.Logf("RSS grew by %.1f bytes per element", grew)
	if grew > maxPerElement {
		t.Errorf("RSS grew by %.1f bytes per element of a 1M-element list, want at most %.1f", grew, maxPerElement)
	}
	s.mustServe(t)
}
