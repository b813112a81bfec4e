package reactor

import (
	"bufio"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A request that comes in many reads is parsed where it stopped, and the
// room its thousands of arguments took is given back once it has run.
func TestHugeRequestInPieces(t *testing.T) {
	srv := startInProcess(t, 1)
	c := dial(t, srv)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	const keys = 5000
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(keys+1) + "\r\n$3\r\nDEL\r\n")
	for i := 0; i < keys; i++ {
		k := "k" + strconv.Itoa(i)
		b.WriteString("$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n")
	}
	req := b.String()
	for i := 0; i < len(req); i += 4000 {
		if _, err := c.Write([]byte(req[i:min(i+4000, len(req))])); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	c.Write([]byte("PING\r\n"))
	r := bufio.NewReader(c)
	for _, want := range []string{":0\r\n", "+PONG\r\n"} {
		if line, err := r.ReadString('\n'); err != nil || line != want {
			t.Fatalf("reply %q, %v; want %q", line, err, want)
		}
	}
	srv.Stop(5 * time.Second)
	core := srv.cores[0]
	for i := range core.ahead {
		if n := cap(core.ahead[i].argv); n > argvKeep {
			t.Errorf("read-ahead entry %d keeps room for %d arguments", i, n)
		}
	}
}

// An input buffer that grew for a large request is replaced by a small one
// once what is left of it fits, even while a request is still arriving.
func TestInputBufferShrinks(t *testing.T) {
	c := &Core{}
	cn := &Conn{authed: true}
	partial := "*2\r\n$3\r\nGET\r\n$3\r\nab"
	cn.in = append(make([]byte, 0, 4<<20), partial...)
	c.parse(cn)
	if string(cn.in) != partial || cap(cn.in) > inInitial {
		t.Fatalf("buffer of %d bytes holding %q", cap(cn.in), cn.in)
	}
}

// A stream of requests bigger than a connection's own input buffer, which
// grows it and gives it up again every few requests, leaves next to
// nothing for the collector: the grown buffers are used again.
func TestLargeRequestsReuseInputBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes pooled buffers allocate")
	}
	srv := startInProcess(t, 1)
	c := dial(t, srv)
	c.SetDeadline(time.Now().Add(20 * time.Second))
	var b strings.Builder
	b.WriteString("*1002\r\n$5\r\nRPUSH\r\n$1\r\nl\r\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "$16\r\n%016d\r\n", i)
	}
	req := []byte(b.String()) // 23 KB
	r := bufio.NewReader(c)
	run := func(n int) {
		errc := make(chan error, 1)
		go func() {
			for range n {
				if _, err := c.Write(req); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		for range n {
			if line, err := r.ReadSlice('\n'); err != nil || line[0] != ':' {
				t.Fatalf("reply %q, %v", line, err)
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	run(20) // the list and the connection grow first
	const n = 400
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run(n)
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 1024 {
		t.Errorf("%d bytes allocated per %d-byte request", per, len(req))
	}
}

func TestSamePassword(t *testing.T) {
	for _, tc := range []struct {
		pass, want string
		ok         bool
	}{
		{"s3cret", "s3cret", true},
		{"s3cre", "s3cret", false},
		{"s3crets", "s3cret", false},
		{"S3cret", "s3cret", false},
		{"", "s3cret", false},
		{"s3cret\x00", "s3cret", false},
	} {
		if got := samePassword([]byte(tc.pass), tc.want); got != tc.ok {
			t.Errorf("samePassword(%q, %q) = %v", tc.pass, tc.want, got)
		}
	}
}

// When back-pressure stops a connection before the requests it has read
// ahead, with the start of another request already buffered, parsing goes
// on from the first request not yet run, and the partial one completes.
func TestBackPressureWithPartialRequest(t *testing.T) {
	srv := startInProcess(t, 1)
	c := dial(t, srv)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	val := strings.Repeat("v", 600<<10)
	set := "*3\r\n$3\r\nSET\r\n$3\r\nbig\r\n$" + strconv.Itoa(len(val)) + "\r\n" + val + "\r\n"
	r := bufio.NewReader(c)
	c.Write([]byte(set))
	if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
		t.Fatalf("SET: %q, %v", line, err)
	}
	const gets = 8
	get := "*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n"
	c.Write([]byte(strings.Repeat(get, gets) + "*1\r\n$4\r\nPI"))
	// Let the server run into its output limit before anything is read.
	time.Sleep(50 * time.Millisecond)
	c.Write([]byte("NG\r\n"))
	want := "$" + strconv.Itoa(len(val)) + "\r\n"
	for i := 0; i < gets; i++ {
		line, err := r.ReadString('\n')
		if err != nil || line != want {
			t.Fatalf("reply %d: %.40q, %v", i, line, err)
		}
		if _, err := r.Discard(len(val) + 2); err != nil {
			t.Fatal(err)
		}
	}
	if line, err := r.ReadString('\n'); err != nil || line != "+PONG\r\n" {
		t.Fatalf("PING: %q, %v", line, err)
	}
}
