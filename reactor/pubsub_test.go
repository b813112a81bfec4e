package reactor

import (
	"testing"
)

// newHubCore is a core with only what delivering messages needs.
func newHubCore() *Core {
	c := &Core{}
	c.ps.init(c)
	return c
}

func hubConn(c *Core, proto int) *Conn {
	return &Conn{core: c, proto: proto, out: make([]byte, 0, 4096), writable: true}
}

// TestHubPublishCounts checks a core's delivery: each channel subscriber
// and each matching pattern subscription counts once, and the messages are
// Redis's in RESP2 and RESP3.
func TestHubPublishCounts(t *testing.T) {
	c := newHubCore()
	a, b := hubConn(c, 2), hubConn(c, 3)
	c.ps.add(subChannel, "news", a)
	c.ps.add(subPattern, "n*", a)
	c.ps.add(subPattern, "*s", b)
	c.ps.add(subShard, "news", b)
	if n := c.ps.Publish([]byte("news"), []byte("hi"), false); n != 3 {
		t.Fatalf("Publish counted %d, want 3", n)
	}
	wantA := "*3\r\n$7\r\nmessage\r\n$4\r\nnews\r\n$2\r\nhi\r\n*4\r\n$8\r\npmessage\r\n$2\r\nn*\r\n$4\r\nnews\r\n$2\r\nhi\r\n"
	if string(a.out) != wantA {
		t.Errorf("RESP2 subscriber got %q, want %q", a.out, wantA)
	}
	wantB := ">4\r\n$8\r\npmessage\r\n$2\r\n*s\r\n$4\r\nnews\r\n$2\r\nhi\r\n"
	if string(b.out) != wantB {
		t.Errorf("RESP3 subscriber got %q, want %q", b.out, wantB)
	}
	b.out = b.out[:0]
	if n := c.ps.Publish([]byte("news"), []byte("s"), true); n != 1 || string(b.out) != ">3\r\n$8\r\nsmessage\r\n$4\r\nnews\r\n$1\r\ns\r\n" {
		t.Errorf("SPUBLISH counted %d and wrote %q", n, b.out)
	}
	c.ps.remove(subPattern, "n*", a)
	c.ps.remove(subPattern, "*s", b)
	if len(c.ps.patList) != 0 || len(c.ps.patterns) != 0 || c.ps.any.Load() != 1 {
		t.Errorf("patterns left after removal: %d %d, any=%d", len(c.ps.patList), len(c.ps.patterns), c.ps.any.Load())
	}
}

// TestHubPublishAllocs: delivering to subscribers allocates nothing once
// their output buffers have room.
func TestHubPublishAllocs(t *testing.T) {
	c := newHubCore()
	var conns []*Conn
	for i := 0; i < 8; i++ {
		cn := hubConn(c, 2+i%2)
		conns = append(conns, cn)
		c.ps.add(subChannel, "chan", cn)
		c.ps.add(subPattern, "ch*", cn)
	}
	ch, msg := []byte("chan"), []byte("0123456789abcdef")
	allocs := testing.AllocsPerRun(1000, func() {
		c.ps.Publish(ch, msg, false)
		for _, cn := range conns {
			cn.out = cn.out[:0]
			cn.dirty = false
		}
		c.dirty = c.dirty[:0]
	})
	if allocs != 0 {
		t.Errorf("Publish allocates %.1f times per run", allocs)
	}
}

func BenchmarkHubPublish(b *testing.B) {
	c := newHubCore()
	var conns []*Conn
	for i := 0; i < 25; i++ {
		cn := hubConn(c, 2)
		conns = append(conns, cn)
		c.ps.add(subChannel, "chan", cn)
	}
	ch, msg := []byte("chan"), []byte("0123456789abcdef")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c.ps.Publish(ch, msg, false)
		for _, cn := range conns {
			cn.out = cn.out[:0]
			cn.dirty = false
		}
		c.dirty = c.dirty[:0]
	}
}

// TestHubPublishBehindPendingReply: messages to a subscriber whose reply is
// still coming wait behind it, in one slot, in order.
func TestHubPublishBehindPendingReply(t *testing.T) {
	c := newHubCore()
	cn := hubConn(c, 3)
	c.ps.add(subChannel, "ch", cn)
	pending := cn.reserve()
	for i := 0; i < 1000; i++ {
		c.ps.Publish([]byte("ch"), []byte{byte('0' + i%10)}, false)
	}
	if len(cn.slots) != 2 || cn.slots[0] != pending {
		t.Fatalf("%d slots after 1000 messages behind a pending reply, want 2", len(cn.slots))
	}
	msgs := cn.slots[1].Reply
	if want := 1000 * len(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\n0\r\n"); len(msgs) != want || cn.slotBytes != want {
		t.Fatalf("messages slot holds %d bytes (slotBytes %d), want %d", len(msgs), cn.slotBytes, want)
	}
	if len(cn.out) != 0 {
		t.Fatalf("a message overtook the pending reply: %q", cn.out)
	}
}
