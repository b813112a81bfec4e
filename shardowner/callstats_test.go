package shardowner

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/resp"
)

func TestHistogramBuckets(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v++ {
		i := histIndex(v)
		if i != prev && i != prev+1 {
			t.Fatalf("%d ns: bucket %d after %d", v, i, prev)
		}
		if v > histHigh(i) || (i > 0 && v <= histHigh(i-1)) {
			t.Fatalf("%d ns in bucket %d, which ends at %d", v, i, histHigh(i))
		}
		// A bucket is at most 1/16 of its values wide.
		if lo := histHigh(i-1) + 1; i > 0 && histHigh(i)-lo > lo/16 {
			t.Fatalf("bucket %d spans %d..%d", i, lo, histHigh(i))
		}
		prev = i
	}
	if i := histIndex(math.MaxUint64); i != histBuckets-1 {
		t.Errorf("the largest duration lands in bucket %d", i)
	}
	if i := histIndex(1 << (histMaxBits - 1)); i >= histBuckets {
		t.Errorf("2^%d ns: bucket %d of %d", histMaxBits-1, i, histBuckets)
	}
}

func TestHistogramPercentile(t *testing.T) {
	var h Histogram
	if p := h.Percentile(50); p != 0 {
		t.Errorf("empty: p50 %d", p)
	}
	for i := 0; i < 990; i++ {
		h.Add(1000)
	}
	for i := 0; i < 10; i++ {
		h.Add(1_000_000)
	}
	near := func(got, want uint64) bool { return got >= want && got <= want+want/16 }
	if p := h.Percentile(50); !near(p, 1000) {
		t.Errorf("p50 %d, want about 1000", p)
	}
	if p := h.Percentile(99); !near(p, 1000) {
		t.Errorf("p99 %d, want about 1000 (990 of 1000 runs)", p)
	}
	if p := h.Percentile(99.9); !near(p, 1_000_000) {
		t.Errorf("p99.9 %d, want about 1000000", p)
	}
	var m Histogram
	m.Merge(&h)
	m.Merge(&h)
	if m[histIndex(1000)] != 1980 {
		t.Errorf("merged: %d", m[histIndex(1000)])
	}
}

func newSlowShard() *Shard {
	s := NewShard(0, 1, 1)
	s.Slowlog = NewSlowlogConfig()
	return s
}

func slowGet(s *Shard, args ...string) string {
	w := resp.Writer{}
	argv := [][]byte{[]byte("slowlog")}
	for _, a := range args {
		argv = append(argv, []byte(a))
	}
	Slowlog(&Ctx{Shard: s, W: &w}, argv)
	return string(w.B)
}

func TestSlowLogRing(t *testing.T) {
	s := newSlowShard()
	ids := func() []int64 {
		var out []int64
		for i := 0; i < s.Slow.Len(); i++ {
			out = append(out, s.Slow.newest(i).ID)
		}
		return out
	}
	for i := 0; i < 5; i++ {
		s.LogSlow([][]byte{[]byte("get"), []byte(strconv.Itoa(i))}, int64(i), 0)
	}
	if got := ids(); len(got) != 5 || got[0] != 4 || got[4] != 0 {
		t.Fatalf("IDs newest first: %v", got)
	}
	s.Slowlog.MaxLen.Store(3)
	for i := 5; i < 9; i++ {
		s.LogSlow([][]byte{[]byte("get")}, 0, 0)
		if got := ids(); len(got) != 3 || got[0] != int64(i) || got[2] != int64(i-2) {
			t.Fatalf("after entry %d with max-len 3: %v", i, got)
		}
	}
	s.Slowlog.MaxLen.Store(5)
	s.LogSlow([][]byte{[]byte("get")}, 0, 0)
	if got := ids(); len(got) != 4 || got[0] != 9 || got[3] != 6 {
		t.Fatalf("after growing max-len: %v", got)
	}
	s.Slowlog.MaxLen.Store(2)
	s.LogSlow([][]byte{[]byte("get")}, 0, 0)
	if got := ids(); len(got) != 2 || got[0] != 10 || got[1] != 9 {
		t.Fatalf("after shrinking max-len: %v", got)
	}
	s.Slowlog.MaxLen.Store(0)
	s.LogSlow([][]byte{[]byte("get")}, 0, 0)
	if s.Slow.Len() != 0 {
		t.Fatalf("max-len 0 keeps %d", s.Slow.Len())
	}
}

func TestSlowLogClipsAsRedis(t *testing.T) {
	s := newSlowShard()
	s.Clock.Ms = 1_700_000_000_123
	s.Slowlog.Client = func(id int64) (string, string) { return "127.0.0.1:" + strconv.FormatInt(id, 10), "app" }
	long := bytes.Repeat([]byte("v"), 130)
	argv := [][]byte{[]byte("set"), []byte("k"), long}
	s.LogSlow(argv, 12, 4242)
	long[0] = 'X' // the entry holds a copy
	many := [][]byte{[]byte("del")}
	for i := 0; i < 40; i++ {
		many = append(many, []byte("k"+strconv.Itoa(i)))
	}
	s.LogSlow(many, 7, 1)

	want := "*2\r\n" +
		"*6\r\n:1\r\n:1700000000\r\n:7\r\n*32\r\n$3\r\ndel\r\n"
	for i := 0; i < 30; i++ {
		k := "k" + strconv.Itoa(i)
		want += "$" + strconv.Itoa(len(k)) + "\r\n" + k + "\r\n"
	}
	want += "$23\r\n... (10 more arguments)\r\n$11\r\n127.0.0.1:1\r\n$3\r\napp\r\n" +
		"*6\r\n:0\r\n:1700000000\r\n:12\r\n*3\r\n$3\r\nset\r\n$1\r\nk\r\n" +
		"$146\r\n" + strings.Repeat("v", 128) + "... (2 more bytes)\r\n$14\r\n127.0.0.1:4242\r\n$3\r\napp\r\n"
	if got := slowGet(s, "get"); got != want {
		t.Errorf("SLOWLOG GET:\n%q\nwant\n%q", got, want)
	}
	if got := slowGet(s, "get", "1"); !strings.HasPrefix(got, "*1\r\n*6\r\n:1\r\n") {
		t.Errorf("SLOWLOG GET 1: %q", got)
	}
	for _, c := range []struct{ args, want string }{
		{"len", ":2\r\n"},
		{"get 0", "*0\r\n"},
		{"get -2", "-ERR count should be greater than or equal to -1\r\n"},
		{"get 1 2", "-ERR unknown subcommand or wrong number of arguments for 'get'. Try SLOWLOG HELP.\r\n"},
		{"LEN x", "-ERR wrong number of arguments for 'slowlog|len' command\r\n"},
		{"Reset x", "-ERR wrong number of arguments for 'slowlog|reset' command\r\n"},
		{"foo", "-ERR unknown subcommand 'foo'. Try SLOWLOG HELP.\r\n"},
		{"reset", "+OK\r\n"},
		{"len", ":0\r\n"},
	} {
		if got := slowGet(s, strings.Fields(c.args)...); got != c.want {
			t.Errorf("SLOWLOG %s: %q, want %q", c.args, got, c.want)
		}
	}
	if got := slowGet(s, "help"); !strings.HasPrefix(got, "*12\r\n+SLOWLOG <subcommand>") {
		t.Errorf("SLOWLOG HELP: %q", got)
	}
}

// TestRecordN: n runs recorded at once count as n runs recorded one by one.
func TestRecordN(t *testing.T) {
	var a, b Shard
	for _, d := range []uint64{0, 7, 1000, 123456789} {
		a.RecordN(3, d, 5, true, false)
		a.RecordN(3, d, 2, false, true)
		for i := 0; i < 5; i++ {
			b.Record(3, d, true, false)
		}
		for i := 0; i < 2; i++ {
			b.Record(3, d, false, true)
		}
	}
	x, y := a.CmdStat(3), b.CmdStat(3)
	if x.Calls != y.Calls || x.Failed != y.Failed || x.Nanos != y.Nanos || *x.Lat != *y.Lat {
		t.Errorf("RecordN: %d calls, %d failed, %d ns; one by one: %d, %d, %d (or histograms differ)",
			x.Calls, x.Failed, x.Nanos, y.Calls, y.Failed, y.Nanos)
	}
}

// MoveStats moves every command's counters but the skipped one's, and
// leaves the source zeroed; to nil drops them.
func TestMoveStats(t *testing.T) {
	var scratch, own Shard
	scratch.Record(3, 100, true, false)
	scratch.Record(3, 100, true, true)
	scratch.Record(5, 50, false, false)
	own.Record(3, 10, true, false)
	scratch.MoveStats(&own, 5)
	if st := own.CmdStat(3); st.Calls != 3 || st.Failed != 1 || st.Nanos != 210 || st.Lat == nil {
		t.Errorf("moved: %+v", *st)
	}
	if st := own.CmdStat(5); st.Calls != 0 || st.Nanos != 0 {
		t.Errorf("skipped command moved: %+v", *st)
	}
	for id := range scratch.Cmds {
		if st := scratch.Cmds[id]; st.Calls|st.Nanos|st.Failed != 0 {
			t.Errorf("scratch %d left %+v", id, st)
		}
		if lat := scratch.Cmds[id].Lat; lat != nil && *lat != (Histogram{}) {
			t.Errorf("scratch %d latency left", id)
		}
	}
	scratch.Record(3, 1, true, false)
	scratch.MoveStats(nil, -1)
	if own.CmdStat(3).Calls != 3 || scratch.CmdStat(3).Calls != 0 {
		t.Errorf("dropped counters moved")
	}
}
