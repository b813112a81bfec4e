package reactor

import (
	"bytes"
	"testing"

	"github.com/corekv/corekv/router"
	"golang.org/x/sys/unix"
)

// testConn is a connection of a bare core, with no socket.
func testConn() *Conn {
	return &Conn{core: &Core{}, writable: true, replySize: replyGuess}
}

// TestBackloggedCountsBytesInFlight: replies still in flight count toward
// what a connection owes, so a pipeline stops after a bounded number of
// requests to other shards, fewer the larger their replies have been.
func TestBackloggedCountsBytesInFlight(t *testing.T) {
	c := testConn()
	n := 0
	for ; !c.backlogged() && n < slotLimit+1; n++ {
		c.reserve()
	}
	if max := outSoftLimit/replyGuess + 1; n > max {
		t.Fatalf("a new connection launched %d requests before back-pressure, want at most %d", n, max)
	}
	// Small replies arrive: the connection learns they are small and may
	// keep a deep pipeline in flight.
	for round := 0; round < 4; round++ {
		for _, s := range c.slots {
			s.Reply = append(s.Reply[:0], ":1\r\n"...)
			s.Filled = true
		}
		c.collect()
		c.out, c.outAt = c.out[:0], 0
		for !c.backlogged() && len(c.slots) <= slotLimit {
			c.reserve()
		}
	}
	if len(c.slots) <= slotLimit {
		t.Fatalf("after small replies the connection stops at %d in flight, want %d", len(c.slots), slotLimit+1)
	}
	// One large reply: back to few in flight.
	for i, s := range c.slots {
		s.Filled = true
		s.Reply = s.Reply[:0]
		if i == 0 {
			s.Reply = make([]byte, 4<<20)
		}
	}
	c.collect()
	c.out, c.outAt = c.out[:0], 0
	n = 0
	for ; !c.backlogged() && n < slotLimit; n++ {
		c.reserve()
	}
	if n > 1 {
		t.Fatalf("after a 4 MB reply the connection launched %d requests, want 1", n)
	}
}

// TestCollectBounded: filled slots move into the output buffer only while
// less than outSoftLimit waits there; the rest still count as owed.
func TestCollectBounded(t *testing.T) {
	c := testConn()
	const size = 4 << 20
	for i := 0; i < 3; i++ {
		s := c.core.NewSlot()
		s.Reply = bytes.Repeat([]byte{byte('a' + i)}, size)
		s.Filled = true
		c.slots = append(c.slots, s)
	}
	c.collect()
	if c.outPending() != size || len(c.slots) != 2 || c.out[0] != 'a' {
		t.Fatalf("collect moved %d bytes, left %d slots; want one reply moved", c.outPending(), len(c.slots))
	}
	if c.slotBytes != 2*size || !c.backlogged() {
		t.Fatalf("slots hold %d bytes (backlogged %v), want %d", c.slotBytes, c.backlogged(), 2*size)
	}
	c.out, c.outAt = c.out[:0], 0
	c.collect()
	if c.outPending() != size || c.out[0] != 'b' || len(c.slots) != 1 {
		t.Fatalf("second collect: %d bytes starting %q, %d slots left", c.outPending(), c.out[:1], len(c.slots))
	}
}

// TestFlushDropsLargeBuffer writes an 8 MB reply through a small socket
// buffer: the unwritten tail is moved only once it is small, and into a
// buffer of ordinary size, so the large one is not kept.
func TestFlushDropsLargeBuffer(t *testing.T) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 64<<10)
	const size = 8 << 20
	c := testConn()
	c.fd = fds[0]
	c.out = bytes.Repeat([]byte("x"), size)
	buf := make([]byte, 256<<10)
	read := 0
	for turn := 0; c.outPending() > 0; turn++ {
		if turn > 100000 {
			t.Fatal("output never drained")
		}
		c.writable = true
		if !c.flush(len(c.out)) {
			t.Fatal("flush failed")
		}
		switch p := c.outPending(); {
		case p > outKeep && c.outAt+p != size:
			t.Fatalf("%d bytes pending were moved within the buffer", p)
		case p > 0 && p <= outKeep && cap(c.out) > outKeep:
			t.Fatalf("%d bytes pending keep a buffer of %d", p, cap(c.out))
		}
		for {
			n, err := unix.Read(fds[1], buf)
			if n <= 0 || err != nil {
				break
			}
			read += n
		}
	}
	if read != size || cap(c.out) > outKeep {
		t.Fatalf("read %d of %d bytes; buffer keeps %d", read, size, cap(c.out))
	}
}

// TestHoldOutput: a connection's output waits for replies in flight from
// other shards only while they are due soon and the output is small.
func TestHoldOutput(t *testing.T) {
	c := testConn()
	c.out = append(c.out, "+OK\r\n"...)
	if c.holdOutput() {
		t.Fatal("held output with nothing in flight")
	}
	s := c.reserve()
	if !c.holdOutput() {
		t.Fatal("did not hold a small output while a reply is in flight")
	}
	c.block = &blockState{}
	if c.holdOutput() {
		t.Error("held output while a blocking command is in flight")
	}
	c.block = nil
	c.barrier = s
	if c.holdOutput() {
		t.Error("held output behind a barrier")
	}
	c.barrier = nil
	c.out = append(c.out, make([]byte, holdLimit)...)
	if c.holdOutput() {
		t.Error("held a large output")
	}
	c.out = c.out[:5]
	s.Filled = true
	c.collect()
	if c.holdOutput() {
		t.Error("held output once every reply arrived")
	}
}

// localReply writes reply as a command run on the connection's own core.
func localReply(c *Conn, reply string) {
	w := c.begin()
	w.B = append(w.B, reply...)
	c.end()
}

// TestRepliesFromShardsGoStraightOut: a run of replies written here behind
// a reply in flight shares one slot, and a reply from another shard for the
// first slot goes straight into the output, with the filled slots behind
// it, while one for a later slot waits in its slot; replies leave in
// request order either way.
func TestRepliesFromShardsGoStraightOut(t *testing.T) {
	c := testConn()
	a := c.reserve()
	localReply(c, "+1\r\n")
	localReply(c, "+2\r\n")
	b := c.reserve()
	localReply(c, "+3\r\n")
	d := c.reserve()
	if len(c.slots) != 5 {
		t.Fatalf("%d slots, want 5: replies written in a row share one", len(c.slots))
	}
	router.Fill(c.core, d, []byte(":4\r\n"))
	if !d.Filled || c.outPending() != 0 {
		t.Fatalf("a reply behind one in flight went out (%q)", c.out)
	}
	router.Fill(c.core, a, []byte(":0\r\n"))
	if got := string(c.out); got != ":0\r\n+1\r\n+2\r\n" {
		t.Fatalf("output %q after the first reply, want it and the replies behind it", got)
	}
	if c.slots[c.sent] != b {
		t.Fatalf("%d slots sent, want 2, up to the second reply in flight", c.sent)
	}
	router.Fill(c.core, b, []byte(":2\r\n"))
	if got := string(c.out); got != ":0\r\n+1\r\n+2\r\n:2\r\n+3\r\n:4\r\n" || c.sent != len(c.slots) {
		t.Fatalf("output %q with %d of %d slots sent", got, c.sent, len(c.slots))
	}
	c.collect()
	if got := string(c.out); got != ":0\r\n+1\r\n+2\r\n:2\r\n+3\r\n:4\r\n" || len(c.slots) != 0 {
		t.Fatalf("output %q with %d slots left after collect", got, len(c.slots))
	}
	if len(c.core.slots) != 5 {
		t.Fatalf("%d slots recycled, want 5", len(c.core.slots))
	}
}

// TestJoinedReplyDropped: CLIENT REPLY OFF, run behind a reply in flight,
// drops its own reply but not those written before it into the same slot.
func TestJoinedReplyDropped(t *testing.T) {
	c := testConn()
	a := c.reserve()
	localReply(c, "+1\r\n")
	w := c.begin()
	w.B = append(w.B, "+OK\r\n"...)
	c.replyMode = replyOff
	c.end()
	c.replyMode = replyOn
	localReply(c, "+3\r\n")
	router.Fill(c.core, a, []byte(":0\r\n"))
	c.collect()
	if got := string(c.out); got != ":0\r\n+1\r\n+3\r\n" {
		t.Fatalf("output %q, want the dropped reply left out", got)
	}
}

// TestReplyAfterSentSlotsGoesOut: once every pending slot has been sent, a
// reply written here goes straight into the output, after theirs.
func TestReplyAfterSentSlotsGoesOut(t *testing.T) {
	c := testConn()
	a := c.reserve()
	router.Fill(c.core, a, []byte(":0\r\n"))
	localReply(c, "+1\r\n")
	if got := string(c.out); got != ":0\r\n+1\r\n" || len(c.slots) != 1 {
		t.Fatalf("output %q with %d slots, want both replies out and the sent slot kept", got, len(c.slots))
	}
	c.collect()
	if len(c.slots) != 0 || c.sent != 0 {
		t.Fatalf("%d slots (%d sent) after collect", len(c.slots), c.sent)
	}
}
