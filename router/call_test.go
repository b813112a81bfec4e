package router

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/corekv/corekv/shardowner"
)

// call runs line on shard as a client's own command would run there.
func (e *testExec) call(shard int, o Origin, line string) string {
	argv := words(line)
	e.w.B, e.w.Proto = e.w.B[:0], 2
	e.ctx = shardowner.Ctx{Shard: e.shards[shard], W: &e.w}
	Call(&e.ctx, Lookup(argv[0]), argv, o, Now())
	return string(e.w.B)
}

func TestCallCounts(t *testing.T) {
	e := newTestExec(1, false)
	sh := e.shards[0]
	get, incr := LookupString("get"), LookupString("incr")
	e.call(0, Origin{}, "set k v")
	e.call(0, Origin{}, "get k")
	e.call(0, Origin{}, "get k")
	if r := e.call(0, Origin{}, "incr k"); !strings.HasPrefix(r, "-") {
		t.Fatalf("INCR of a string: %q", r)
	}
	e.call(0, Origin{Part: true}, "get k")
	e.call(0, Origin{Part: true}, "incr k")
	if st := sh.CmdStat(get.ID); st.Calls != 2 || st.Failed != 0 || st.Lat == nil {
		t.Errorf("get: %+v, want 2 calls (the part counts its time only)", *st)
	}
	if st := sh.CmdStat(incr.ID); st.Calls != 1 || st.Failed != 1 {
		t.Errorf("incr: calls %d failed %d, want 1 and 1 (a part's error counts with its plan)", st.Calls, st.Failed)
	}
	var n uint64
	for _, c := range sh.CmdStat(get.ID).Lat {
		n += c
	}
	if n != 3 {
		t.Errorf("get's histogram holds %d runs, want 3 (parts included)", n)
	}
}

// TestCallInternal: a transaction's lock requests are not client commands:
// no calls, and no slow log entry however slow.
func TestCallInternal(t *testing.T) {
	e := newTestExec(1, false)
	sh := e.shards[0]
	e.slowlog.SlowerThan.Store(0)
	e.call(0, Origin{Client: 7}, "corekv.lock 7 0 k")
	e.call(0, Origin{Client: 7}, "corekv.unlock 7")
	for _, name := range []string{"corekv.lock", "corekv.unlock"} {
		if st := sh.CmdStat(LookupString(name).ID); st.Calls != 0 || st.Failed != 0 {
			t.Errorf("%s: %d calls, %d failed; want none", name, st.Calls, st.Failed)
		}
	}
	if n := sh.Slow.Len(); n != 0 {
		t.Errorf("%d slow log entries for lock requests, want none", n)
	}
}

func TestBatchExecuteCounts(t *testing.T) {
	e := newTestExec(1, false)
	var b Batch
	b.Add(LookupString("set"), 0, 2, words("set k v"), nil)
	b.Add(LookupString("get"), 0, 2, words("get k"), nil)
	b.Add(LookupString("incr"), 0, 2, words("incr k"), nil)
	b.Execute(e.shards[0], &Locks{}, noLimit)
	for _, c := range []struct {
		name           string
		calls, failure uint64
	}{{"set", 1, 0}, {"get", 1, 0}, {"incr", 1, 1}} {
		st := e.shards[0].CmdStat(LookupString(c.name).ID)
		if st.Calls != c.calls || st.Failed != c.failure {
			t.Errorf("%s: calls %d failed %d, want %d and %d", c.name, st.Calls, st.Failed, c.calls, c.failure)
		}
	}
}

// slowlogArgs reads the argument arrays of a SLOWLOG GET reply, newest first,
// each joined with spaces.
func slowlogArgs(t *testing.T, reply string) []string {
	t.Helper()
	var out []string
	for _, args := range slowlogEntries(t, reply) {
		out = append(out, strings.Join(args, " "))
	}
	return out
}

// slowlogEntries reads the argument arrays of a SLOWLOG GET reply, checking
// that the IDs decrease and that nothing follows the entries.
func slowlogEntries(t *testing.T, reply string) [][]string {
	t.Helper()
	r := []byte(reply)
	n, h := arrayHeader(r)
	r = r[h:]
	var out [][]string
	last := int64(-1)
	for i := 0; i < n; i++ {
		id, l := slowEntry(r)
		if last >= 0 && id >= last {
			t.Fatalf("entry %d has ID %d after %d: not newest first", i, id, last)
		}
		last = id
		e := r[:l]
		for j := 0; j < 4; j++ { // *6, ID, time, duration
			e = e[bytes.IndexByte(e, '\n')+1:]
		}
		k, h := arrayHeader(e)
		e = e[h:]
		args := []string{}
		for j := 0; j < k; j++ {
			m := elemLen(e)
			args = append(args, string(bulkBody(e[:m])))
			e = e[m:]
		}
		out = append(out, args)
		r = r[l:]
	}
	if len(r) != 0 {
		t.Fatalf("%d bytes after the entries", len(r))
	}
	return out
}

func TestSlowlogAcrossShards(t *testing.T) {
	e := newTestExec(2, false)
	e.slowlog.SlowerThan.Store(0)
	a, b := keyOn("a", 0, 2), keyOn("b", 1, 2)
	e.call(0, Origin{}, "set "+a+" 1")
	e.call(1, Origin{}, "set "+b+" 2")
	e.call(1, Origin{Part: true}, "get "+b) // a plan's part: not logged
	e.call(0, Origin{}, "get "+a)
	e.call(1, Origin{}, "get "+b)
	got := slowlogArgs(t, e.split(t, 0, 2, "slowlog get -1"))
	want := []string{"get " + b, "get " + a, "set " + b + " 2", "set " + a + " 1"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("SLOWLOG GET -1: %q, want %q", got, want)
	}
	// SLOWLOG GET logged itself once, on one shard.
	if r := e.split(t, 0, 2, "slowlog len"); r != ":5\r\n" {
		t.Errorf("SLOWLOG LEN: %q, want :5", r)
	}
	if got := slowlogArgs(t, e.split(t, 0, 2, "slowlog get 2")); len(got) != 2 || got[0] != "slowlog len" || got[1] != "slowlog get -1" {
		t.Errorf("SLOWLOG GET 2: %q", got)
	}
	// Each shard keeps max-len entries; the log is the newest max-len of
	// them all.
	e.slowlog.MaxLen.Store(3)
	if r := e.split(t, 0, 2, "slowlog len"); r != ":3\r\n" {
		t.Errorf("SLOWLOG LEN with max-len 3: %q", r)
	}
	if got := slowlogArgs(t, e.split(t, 0, 2, "slowlog get")); len(got) != 3 || got[0] != "slowlog len" {
		t.Errorf("SLOWLOG GET with max-len 3: %q", got)
	}
	if r := e.split(t, 0, 2, "slowlog reset"); r != "+OK\r\n" {
		t.Errorf("SLOWLOG RESET: %q", r)
	}
	if r := e.split(t, 0, 2, "slowlog len"); r != ":1\r\n" {
		t.Errorf("SLOWLOG LEN after RESET: %q, want :1 (the RESET)", r)
	}
	if r := e.split(t, 0, 2, "slowlog get x"); r != "-ERR count should be greater than or equal to -1\r\n" {
		t.Errorf("SLOWLOG GET x: %q", r)
	}
	if e.failed != 1 {
		t.Errorf("%d plans counted failed, want 1", e.failed)
	}
	e.slowlog.SlowerThan.Store(-1)
	e.split(t, 0, 2, "slowlog reset")
	e.call(0, Origin{}, "get "+a)
	if r := e.split(t, 0, 2, "slowlog len"); r != ":0\r\n" {
		t.Errorf("SLOWLOG LEN with slowlog-log-slower-than -1: %q", r)
	}
}

// FuzzSlowlogMerge logs fuzzed commands (NUL-separated arguments, one per
// line) on the shards of three, alternately, then reads the merged SLOWLOG
// GET: it must hold min(entries, max-len, count) well-formed entries, newest
// first, each with at most 32 arguments clipped as Redis clips them.
func FuzzSlowlogMerge(f *testing.F) {
	f.Add([]byte("get\x00k\nset\x00k\x00v\nmget\x00a\x00b\x00c"), uint8(5), int8(-1))
	f.Add([]byte(strings.Repeat("x\x00", 50)+"\n"+strings.Repeat("y", 300)), uint8(1), int8(2))
	f.Fuzz(func(t *testing.T, data []byte, maxLen uint8, count int8) {
		e := newTestExec(3, false)
		e.slowlog.SlowerThan.Store(0)
		e.slowlog.MaxLen.Store(int64(maxLen % 20))
		lines := strings.Split(string(data), "\n")
		if len(lines) > 40 {
			lines = lines[:40]
		}
		for i, l := range lines {
			var argv [][]byte
			for _, a := range strings.Split(l, "\x00") {
				argv = append(argv, []byte(a))
			}
			e.shards[i%3].LogSlow(argv, int64(i), int64(i))
		}
		c := int(count)
		if c < -1 {
			c = -1
		}
		r := e.split(t, 0, 2, "slowlog get "+strconv.Itoa(c))
		want := min(len(lines), int(maxLen%20))
		if c >= 0 {
			want = min(want, c)
		}
		entries := slowlogEntries(t, r)
		if len(entries) != want {
			t.Fatalf("%d entries, want %d: %q", len(entries), want, r)
		}
		for i, args := range entries {
			if len(args) > 32 {
				t.Fatalf("entry %d has %d arguments", i, len(args))
			}
		}
	})
}
