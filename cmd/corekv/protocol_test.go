package main

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

// respFrame encodes a multibulk request.
func respFrame(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

// exchange writes send on a fresh connection and checks that the replies
// start with want, and, if closed, that the server then closes it.
func exchange(t *testing.T, srv *server, send, want string, closed bool) {
	t.Helper()
	c := srv.raw(t)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte(send)); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(want))
	if _, err := readFull(c, got); err != nil || string(got) != want {
		t.Fatalf("reply = %q, %v; want %q", got, err, want)
	}
	if closed {
		if rest, err := io.ReadAll(c); err != nil || len(rest) != 0 {
			t.Fatalf("after the error: %q, %v; want the connection closed", rest, err)
		}
	}
}

// TestUnauthenticatedLimits checks Redis's limits for a client that has not
// authenticated yet: at most 10 arguments of at most 16 KB each, and the
// ordinary limits once AUTH has run, even within the same write.
func TestUnauthenticatedLimits(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--requirepass", "s3cret")
	big := strings.Repeat("x", 20000)
	auth := respFrame("AUTH", "s3cret")
	cases := []struct {
		name, send, want string
		closed           bool
	}{
		{"eleven arguments", "*11\r\n", "-ERR Protocol error: unauthenticated multibulk length\r\n", true},
		{"ten arguments", respFrame("DEL", "1", "2", "3", "4", "5", "6", "7", "8", "9"), "-NOAUTH Authentication required.\r\n", false},
		{"large bulk", "*1\r\n$16385\r\n", "-ERR Protocol error: unauthenticated bulk length\r\n", true},
		{"16 KB bulk", respFrame("GET", strings.Repeat("k", 16384)), "-NOAUTH Authentication required.\r\n", false},
		{"beyond INT_MAX", "*2147483648\r\n", "-ERR Protocol error: invalid multibulk length\r\n", true},
		{"negative bulk", "*1\r\n$-1\r\n", "-ERR Protocol error: invalid bulk length\r\n", true},
		{"after a wrong password", respFrame("AUTH", "nope") + "*11\r\n",
			"-WRONGPASS invalid username-password pair or user is disabled.\r\n-ERR Protocol error: unauthenticated multibulk length\r\n", true},
		{"after AUTH in the same write", auth + respFrame("SET", "k", big) + "*11\r\n" + strings.Repeat("$1\r\nx\r\n", 11),
			"+OK\r\n+OK\r\n-ERR unknown command 'x', with args beginning with: 'x' 'x' 'x' 'x' 'x' 'x' 'x' 'x' 'x' 'x' \r\n", false},
		{"after HELLO AUTH", respFrame("HELLO", "2", "AUTH", "default", "s3cret") + "*11\r\n",
			"*14\r\n", false},
		{"after RESET", auth + respFrame("RESET") + "*11\r\n",
			"+OK\r\n+RESET\r\n-ERR Protocol error: unauthenticated multibulk length\r\n", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exchange(t, srv, tc.send, tc.want, tc.closed)
		})
	}
	exchange(t, srv, auth+respFrame("PING"), "+OK\r\n+PONG\r\n", false)
}

// TestErrorRepliesCannotBeForged checks that client bytes quoted in an
// error reply cannot end it early, and that the unknown-command error is
// clipped as Redis 7 clips it.
func TestErrorRepliesCannotBeForged(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	a := strings.Repeat("a", 200)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"CRLF in the name", []string{"x\r\n+OK\r\nz"}, "-ERR unknown command 'x  +OK  z', with args beginning with: \r\n"},
		{"CRLF in an argument", []string{"foo", "x\ny\rz"}, "-ERR unknown command 'foo', with args beginning with: 'x y z' \r\n"},
		{"long name and argument", []string{strings.Repeat("n", 200), a},
			"-ERR unknown command '" + strings.Repeat("n", 128) + "', with args beginning with: '" + a[:128] + "' \r\n"},
		{"arguments up to 128 bytes", []string{"foo", a[:100], strings.Repeat("b", 100), "c"},
			"-ERR unknown command 'foo', with args beginning with: '" + a[:100] + "' '" + strings.Repeat("b", 25) + "' \r\n"},
		{"NUL ends a string", []string{"fo\x00o", "a\x00b", "\x00c", "d"},
			"-ERR unknown command 'fo', with args beginning with: 'a' '' 'd' \r\n"},
		{"CRLF in a HELLO option", []string{"HELLO", "2", "x\r\n+OK"}, "-ERR Syntax error in HELLO option 'x  +OK'\r\n"},
		{"CRLF in a subcommand", []string{"CLIENT", "x\r\n+OK"}, "-ERR unknown subcommand 'x  +OK'. Try CLIENT HELP.\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			exchange(t, srv, respFrame(tc.args...)+respFrame("PING"), tc.want+"+PONG\r\n", false)
		})
	}
	t.Run("CR where a bulk header belongs", func(t *testing.T) {
		exchange(t, srv, "*1\r\n\r\n", "-ERR Protocol error: expected '$', got ' '\r\n", true)
	})
}
