package main

import (
	"bufio"
	"strings"
	"testing"
	"time"
)

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
