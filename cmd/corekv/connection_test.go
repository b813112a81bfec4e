package main

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

// TestHelloOptionsInOrder checks that HELLO applies AUTH and SETNAME as it
// reads them, as Redis 7.0 does: what came before a failing option holds.
// The expected bytes are redis-server 7.0.15's with requirepass pw.
func TestHelloOptionsInOrder(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--requirepass", "pw")
	const (
		noAuthHello = "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> " +
			"option can be used to authenticate the client and select the RESP protocol version at the same time\r\n"
		wrongPass = "-WRONGPASS invalid username-password pair or user is disabled.\r\n"
	)
	for _, tc := range []struct {
		reqs []string
		want string
	}{
		// SETNAME before the refusal for want of a password.
		{[]string{"HELLO 2 SETNAME x", "AUTH pw", "CLIENT GETNAME"}, noAuthHello + "+OK\r\n$1\r\nx\r\n"},
		// AUTH before a bad option.
		{[]string{"HELLO 2 AUTH default pw FOO", "PING"}, "-ERR Syntax error in HELLO option 'FOO'\r\n+PONG\r\n"},
		// A failed AUTH stops HELLO before the SETNAME after it.
		{[]string{"HELLO 2 AUTH default wrong SETNAME n1", "AUTH pw", "CLIENT GETNAME"}, wrongPass + "+OK\r\n$-1\r\n"},
		// A good AUTH holds though a later one fails.
		{[]string{"HELLO 3 AUTH default pw AUTH default wrong", "PING"}, wrongPass + "+PONG\r\n"},
		{[]string{"HELLO 3 AUTH default pw SETNAME n2 FOO", "CLIENT GETNAME", "GET missing"},
			"-ERR Syntax error in HELLO option 'FOO'\r\n$2\r\nn2\r\n$-1\r\n"},
	} {
		c := srv.raw(t)
		if got := rawReplies(t, c, tc.reqs, false, len(tc.want)); got != tc.want {
			t.Errorf("%q:\ngot  %q\nwant %q", tc.reqs, got, tc.want)
		}
		c.Close()
	}
}

// TestClientListIDs checks that CLIENT LIST ID lists the clients in the
// order asked, as often as asked, and skips IDs of no client, as Redis does.
func TestClientListIDs(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	c := srv.raw(t)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(c)
	c.Write([]byte("CLIENT ID\r\n"))
	line, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(line, ":") {
		t.Fatalf("CLIENT ID: %q, %v", line, err)
	}
	id := strings.TrimSpace(line[1:])
	c.Write([]byte("CLIENT LIST ID " + id + " 0 -1 987654321 " + id + "\r\n"))
	hdr, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(hdr, "$") {
		t.Fatalf("CLIENT LIST: %q, %v", hdr, err)
	}
	var body strings.Builder
	for !strings.HasSuffix(body.String(), "\n\r\n") {
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("CLIENT LIST: %q, %v", body.String(), err)
		}
		body.WriteString(l)
	}
	lines := strings.Split(strings.TrimSuffix(body.String(), "\n\r\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "id="+id+" ") || !strings.HasPrefix(lines[1], "id="+id+" ") {
		t.Fatalf("CLIENT LIST ID %s 0 -1 987654321 %s: want this client twice, got %q", id, id, lines)
	}
}

// TestDebugSleepStrtod checks that DEBUG SLEEP reads its time as Redis does,
// with strtod: the leading number counts, text without one sleeps 0, and so
// does a time whose microseconds do not fit in a long long (Redis on x86-64).
func TestDebugSleepStrtod(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--enable-debug-command", "yes")
	c := srv.raw(t)
	for _, tc := range []struct {
		arg      string
		min, max time.Duration
	}{
		{"0.3xyz", 300 * time.Millisecond, 3 * time.Second},
		{"abc", 0, 200 * time.Millisecond},
		{"0x1p-2s", 250 * time.Millisecond, 3 * time.Second},
		{"1e13", 0, 200 * time.Millisecond},
		{"nan", 0, 200 * time.Millisecond},
	} {
		start := time.Now()
		got := rawReplies(t, c, []string{"DEBUG SLEEP " + tc.arg}, true, len("+OK\r\n"))
		// rawReplies waits for quiet after the reply; the reply's own
		// arrival is what is bounded, so only the lower bound is exact.
		d := time.Since(start) - 200*time.Millisecond
		if got != "+OK\r\n" || d < tc.min-50*time.Millisecond || d > tc.max {
			t.Errorf("DEBUG SLEEP %s: %q after about %v, want +OK after %v to %v", tc.arg, got, d, tc.min, tc.max)
		}
	}
}
