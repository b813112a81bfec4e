package router

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/shardowner"
)

// as is the table's command name with handler run, keeping the command's
// ID, so that it is timed as that command is.
func as(name string, run shardowner.Handler) *Command {
	c := *LookupString(name)
	c.Run = run
	return &c
}

// sleeper replies +OK after d.
func sleeper(d time.Duration) shardowner.Handler {
	return func(c *shardowner.Ctx, _ [][]byte) {
		time.Sleep(d)
		c.W.OK()
	}
}

// slowRun is one slow log entry: its arguments joined with spaces, and its
// duration.
type slowRun struct {
	args string
	usec int64
}

// slowRuns reads the slow log of a one-shard testExec, newest first.
func slowRuns(t *testing.T, e *testExec) []slowRun {
	t.Helper()
	reply := e.do(0, "slowlog get -1")
	r := []byte(reply)
	n, h := arrayHeader(r)
	r = r[h:]
	var runs []slowRun
	for i := 0; i < n; i++ {
		_, l := slowEntry(r)
		lines := bytes.SplitN(r[:l], []byte("\r\n"), 5) // *6, ID, time, duration, arguments
		usec, err := strconv.ParseInt(string(lines[3][1:]), 10, 64)
		if err != nil {
			t.Fatalf("entry %d: duration %q", i, lines[3])
		}
		runs = append(runs, slowRun{usec: usec})
		r = r[l:]
	}
	for i, args := range slowlogArgs(t, reply) {
		runs[i].args = args
	}
	return runs
}

// execute runs cmds, each with its argument line, as one batch on the
// shard of a one-shard testExec.
func (e *testExec) execute(cmds []*Command, lines []string) {
	var b Batch
	for i, cmd := range cmds {
		b.Add(cmd, 0, 2, words(lines[i]), nil)
	}
	b.Execute(e.shards[0], &Locks{}, noLimit)
}

// TestGroupSharesTime: small commands run back to back share the time they
// took together, each by its weight, so commands of one size get one share
// even when one of them took all the time (as a thread that loses its CPU
// to another does), the shares add up to it, and no share is logged.
func TestGroupSharesTime(t *testing.T) {
	for _, slower := range []int64{-1, shareFloor, 10000} {
		e := newTestExec(1, false)
		e.slowlog.SlowerThan.Store(slower)
		get := LookupString("get")
		slow := as("get", sleeper(8*time.Millisecond))
		fast := as("get", func(c *shardowner.Ctx, _ [][]byte) { c.W.OK() })
		var cmds []*Command
		var lines []string
		for i := 0; i < 8; i++ {
			cmds, lines = append(cmds, fast), append(lines, "get k")
		}
		cmds[3] = slow
		t0 := time.Now()
		e.execute(cmds, lines)
		took := time.Since(t0)
		st := e.shards[0].CmdStat(get.ID)
		if st.Calls != 8 {
			t.Fatalf("slowlog-log-slower-than %d: %d calls, want 8", slower, st.Calls)
		}
		if st.Nanos < uint64(8*time.Millisecond) || st.Nanos > uint64(took) {
			t.Errorf("slowlog-log-slower-than %d: %d ns in all, want between the sleep and %d", slower, st.Nanos, took)
		}
		// Each share is an eighth of at least 8 ms.
		if low := st.Lat.Percentile(1); low < uint64(900*time.Microsecond) {
			t.Errorf("slowlog-log-slower-than %d: the smallest share is %d ns, want about 1 ms", slower, low)
		}
		if runs := slowRuns(t, e); len(runs) != 0 {
			t.Errorf("slowlog-log-slower-than %d: logged %v, want nothing", slower, runs)
		}
	}
}

// TestGroupTimesSlowCommandsAlone: with a slow log threshold from
// shareFloor, small commands share clock readings, but a command that may be
// slow for more than its bytes, one with large arguments and one with a
// large reply are each logged with their own time, and no command around
// them is.
func TestGroupTimesSlowCommandsAlone(t *testing.T) {
	e := newTestExec(1, false)
	e.slowlog.SlowerThan.Store(2000)
	const sleep = 5 * time.Millisecond
	big := strings.Repeat("x", bigBytes)
	e.do(0, "set k v")
	var cmds []*Command
	var lines []string
	add := func(cmd *Command, line string, n int) {
		for i := 0; i < n; i++ {
			cmds, lines = append(cmds, cmd), append(lines, line)
		}
	}
	get, set := LookupString("get"), LookupString("set")
	add(get, "get k", 10)
	add(as("append", sleeper(sleep)), "append k x", 1) // may move a whole value: never shares
	add(set, "set k v", 10)
	add(as("set", sleeper(sleep)), "set k "+big, 1) // large arguments: timed alone
	add(get, "get k", 10)
	add(as("get", func(c *shardowner.Ctx, _ [][]byte) {
		time.Sleep(sleep)
		c.W.Bulk([]byte(strings.Repeat("y", 1<<20)))
	}), "get big", 1)
	add(get, "get k", 10)
	e.execute(cmds, lines)
	runs := slowRuns(t, e)
	want := []string{"get big", "set k " + big, "append k x"}
	if len(runs) != len(want) {
		t.Fatalf("logged %d commands, want %d: %v", len(runs), len(want), runs)
	}
	for i, r := range runs {
		// The slow log clips the large argument.
		if r.args[:min(len(r.args), 20)] != want[i][:min(len(want[i]), 20)] {
			t.Errorf("entry %d is %.40q, want %.40q", i, r.args, want[i])
		}
		// The large reply takes nearly all of its group's time.
		if r.usec < 4800 {
			t.Errorf("%.20q logged with %d µs, want its own %d", r.args, r.usec, sleep.Microseconds())
		}
	}
}

// TestGroupFollowsThreshold: once slowlog-log-slower-than drops below
// shareFloor, the next command in the same batch is timed alone. The
// command that lowers it is logged, as Redis logs CONFIG SET
// slowlog-log-slower-than 0.
func TestGroupFollowsThreshold(t *testing.T) {
	e := newTestExec(1, false)
	e.slowlog.SlowerThan.Store(10000)
	lower := as("append", func(c *shardowner.Ctx, _ [][]byte) {
		c.Shard.Slowlog.SlowerThan.Store(0)
		c.W.OK()
	})
	get := LookupString("get")
	e.execute([]*Command{get, lower, get, get}, []string{"get a", "append b x", "get c", "get d"})
	var got []string
	for _, r := range slowRuns(t, e) {
		got = append(got, r.args)
	}
	if strings.Join(got, "|") != "get d|get c|append b x" {
		t.Errorf("logged %q, want the commands from the one that lowered the threshold", got)
	}
}

// TestGroupBelowFloor: a slow log threshold under shareFloor times every
// command alone, so exactly the slow ones are logged.
func TestGroupBelowFloor(t *testing.T) {
	e := newTestExec(1, false)
	e.slowlog.SlowerThan.Store(500)
	fast := LookupString("get")
	slow := as("get", sleeper(time.Millisecond))
	e.execute([]*Command{fast, slow, fast, slow, fast}, []string{"get a", "get b", "get c", "get d", "get e"})
	runs := slowRuns(t, e)
	if len(runs) != 2 || runs[0].args != "get d" || runs[1].args != "get b" || runs[0].usec < 1000 || runs[1].usec < 1000 {
		t.Errorf("logged %v, want get d and get b, each 1000 µs or more", runs)
	}
}

// TestGroupAccountsEveryCommand: a batch longer than a group counts every
// command, once, with its time.
func TestGroupAccountsEveryCommand(t *testing.T) {
	for _, line := range []string{"get k", "rpush list x"} {
		e := newTestExec(1, false)
		cmd := LookupString(strings.Fields(line)[0])
		var cmds []*Command
		var lines []string
		for i := 0; i < 3*groupMax+5; i++ {
			cmds, lines = append(cmds, cmd), append(lines, line+strconv.Itoa(i))
		}
		e.execute(cmds, lines)
		st := e.shards[0].CmdStat(cmd.ID)
		var n uint64
		for _, c := range st.Lat {
			n += c
		}
		if st.Calls != uint64(len(cmds)) || n != uint64(len(cmds)) || st.Nanos == 0 {
			t.Errorf("%s: %d calls, %d in the histogram, %d ns; want %d, %d and some time", cmd.Name, st.Calls, n,
				st.Nanos, len(cmds), len(cmds))
		}
	}
}

// TestGroupPackedFollowsEncodings: a command on one member of a hash shares
// its group's clock readings while the packed encodings are small, so a
// slow one among it is not logged on its own; with a hash listpack allowed
// to grow huge it is timed alone, and logged.
func TestGroupPackedFollowsEncodings(t *testing.T) {
	for _, huge := range []bool{false, true} {
		e := newTestExec(1, false)
		e.slowlog.SlowerThan.Store(shareFloor)
		enc := shardowner.NewEncodingConfig()
		if huge {
			enc.HashMaxEntries.Store(1 << 20)
		}
		e.shards[0].Enc = enc
		fast := LookupString("hget")
		slow := as("hget", sleeper(3*time.Millisecond))
		var cmds []*Command
		var lines []string
		for i := 0; i < 20; i++ {
			cmd := fast
			if i == 10 {
				cmd = slow
			}
			cmds, lines = append(cmds, cmd), append(lines, "hget h f"+strconv.Itoa(i))
		}
		e.execute(cmds, lines)
		runs := slowRuns(t, e)
		if huge && (len(runs) != 1 || runs[0].args != "hget h f10" || runs[0].usec < 3000) {
			t.Errorf("huge listpacks: logged %v, want hget h f10 alone with 3000 µs or more", runs)
		}
		if !huge && len(runs) != 0 {
			t.Errorf("small listpacks: logged %v, want nothing (the group shares its time)", runs)
		}
	}
}
