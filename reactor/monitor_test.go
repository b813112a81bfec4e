package reactor

import (
	"testing"
	"time"

	"github.com/corekv/corekv/reactor/monitorline"
)

// TestDeliverInTimeOrder: the lines a core holds in a turn, its own and
// its peers', reach its monitors oldest first; lines of the same
// microsecond keep the order they came in. Those newer than the turn's
// drain wait for the next turn, and then go whatever their time.
func TestDeliverInTimeOrder(t *testing.T) {
	c := &Core{}
	c.ps.core = c
	mon := &Conn{monitor: true}
	c.mon.conns = []*Conn{mon}
	line := func(sec, us int64, cmd string) []byte {
		return monitorline.Append(nil, time.Unix(sec, us*1000), 0, "a:1", [][]byte{[]byte(cmd)})
	}
	for _, l := range [][]byte{line(10, 5, "c"), line(10, 1, "a"), line(9, 999999, "first"), line(10, 5, "d"), line(10, 2, "b")} {
		c.ps.Monitor(l)
	}
	c.mon.drainAt = 10*1e6 + 3
	c.deliverMonitorLines()
	want := string(line(9, 999999, "first")) + string(line(10, 1, "a")) + string(line(10, 2, "b"))
	if string(mon.out) != want {
		t.Fatalf("monitor got\n%s\nwant\n%s", mon.out, want)
	}
	if len(c.mon.ends) != 2 || c.mon.carried != 2 {
		t.Fatalf("%d lines held for the next turn, %d carried; want 2", len(c.mon.ends), c.mon.carried)
	}
	mon.out = nil
	c.ps.Monitor(line(10, 4, "e"))
	c.ps.Monitor(line(10, 9, "late"))
	c.deliverMonitorLines()
	want = string(line(10, 4, "e")) + string(line(10, 5, "c")) + string(line(10, 5, "d"))
	if string(mon.out) != want {
		t.Fatalf("next turn: monitor got\n%s\nwant\n%s", mon.out, want)
	}
	c.mon.drainAt = 11 * 1e6
	mon.out = nil
	c.deliverMonitorLines()
	if want := string(line(10, 9, "late")); string(mon.out) != want || len(c.mon.ends) != 0 {
		t.Fatalf("last turn: monitor got %q, want %q; %d held", mon.out, want, len(c.mon.ends))
	}
}
