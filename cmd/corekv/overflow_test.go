package main

import (
	"testing"
	"time"
)

// TestHugeOffsets sends offsets and ranges at the ends of the 64-bit range
// to the real binary, over both shards: each gets Redis's reply and the
// server keeps serving.
func TestHugeOffsets(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2")
	c := srv.raw(t)
	cmds := []struct{ send, reply string }{
		{"SETRANGE k 9223372036854775807 x\r\n", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"},
		{"SET k hello\r\n", "+OK\r\n"},
		{"SETRANGE k 9223372036854775806 xy\r\n", "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n"},
		{"SETRANGE k -9223372036854775808 x\r\n", "-ERR offset is out of range\r\n"},
		{"GETRANGE k -9223372036854775808 9223372036854775807\r\n", "$5\r\nhello\r\n"},
		{"COPY k k2 DB 9223372036854775807\r\n", "-ERR value is out of range, value must between -2147483648 and 2147483647\r\n"},
	}
	for _, cmd := range cmds {
		c.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := c.Write([]byte(cmd.send)); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, len(cmd.reply))
		if _, err := readFull(c, got); err != nil || string(got) != cmd.reply {
			t.Fatalf("%q: reply %q, %v; want %q\n%s", cmd.send, got, err, cmd.reply, srv.log.String())
		}
	}
	srv.mustServe(t)
}
