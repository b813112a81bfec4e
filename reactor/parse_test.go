package reactor

import (
	"bufio"
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
