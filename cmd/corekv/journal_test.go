package main

// TestJournalReplay proves the change journal: a seeded random command
// stream (every family, several databases, cross-shard MULTI/EXEC and
// multi-key commands, TTLs and expiry, blocking pops served by another
// client, FLUSHDB, SWAPDB, MOVE, COPY) runs against corekv with
// --journal-dir; the shards' journals are merged (journal.Merge) and
// replayed into an empty redis-server and an empty corekv, and all three
// must hold the same dataset: every key's type, value and expiry time.
// COREKV_JOURNAL_DIR keeps the journals there.

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/router"
	"github.com/corekv/corekv/shardowner/journal"
)

func TestJournalReplay(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	ops := int(diffEnvInt(t, "COREKV_JOURNAL_OPS", 3000))
	seed := diffEnvInt(t, "COREKV_JOURNAL_SEED", time.Now().UnixNano()%1_000_000_000)
	t.Logf("seed %d, %d commands per shard count; replay with COREKV_JOURNAL_SEED=%d COREKV_JOURNAL_OPS=%d", seed, ops, seed, ops)
	bin := corekvBinary(t)
	for _, shards := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			dir := t.TempDir()
			if keep := os.Getenv("COREKV_JOURNAL_DIR"); keep != "" {
				// Kept for a look after a failure.
				dir = filepath.Join(keep, fmt.Sprintf("shards-%d", shards))
			}
			srv := compatStartCorekv(t, bin, shards, "--journal-dir", dir)
			journalStream(t, srv.addr, seed, ops)
			// Let the short TTLs pass, so that what expires is gone
			// (and journaled) before the datasets are read.
			time.Sleep(300 * time.Millisecond)
			want, at := journalDataset(t, srv.addr)
			stop(t, srv)
			streams := make([][]byte, shards)
			for i := range streams {
				b, err := os.ReadFile(journal.FilePath(dir, i))
				if err != nil {
					t.Fatal(err)
				}
				streams[i] = b
			}
			cmds, err := journal.Merge(streams, router.RecordKeys)
			if err != nil {
				t.Fatalf("merging the journals: %v", err)
			}
			ttls := 0
			for _, k := range want {
				if k.expireAt >= 0 {
					ttls++
				}
			}
			t.Logf("%d keys (%d with a TTL), %d journaled commands", len(want), ttls, len(cmds))
			redisAddr := compatStartRedis(t, redisPath)
			replica := compatStartCorekv(t, bin, shards)
			for _, target := range []struct{ name, addr string }{{"redis-server", redisAddr}, {"corekv", replica.addr}} {
				journalReplay(t, target.addr, cmds)
				got, _ := journalDataset(t, target.addr)
				journalCompare(t, target.name, want, got, at, cmds)
			}
		})
	}
}

// stop ends a corekv with SHUTDOWN and waits for it, so its journal is
// complete.
func stop(t *testing.T, srv *compatCorekv) {
	t.Helper()
	c, err := compatDial(srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	srv.watch.expect()
	_ = c.send(compatEncode(nil, compatS("SHUTDOWN NOSAVE")))
	c.close()
	select {
	case <-srv.watch.done:
	case <-time.After(10 * time.Second):
		t.Fatal("corekv did not stop on SHUTDOWN")
	}
}

// journalSkipped are the commands the stream leaves out: those that change
// the connection rather than the data (the test keeps one connection in a
// known state), and FLUSHALL and FLUSHDB, which it sends itself, rarely
// and early, so that the dataset at the end is not empty.
var journalSkipped = map[string]bool{
	"client": true, "hello": true, "auth": true, "reset": true, "quit": true, "select": true, "debug": true,
	"config": true, "shutdown": true, "multi": true, "exec": true, "discard": true, "watch": true, "unwatch": true,
	"subscribe": true, "psubscribe": true, "ssubscribe": true, "monitor": true, "flushall": true, "flushdb": true,
}

// journalStream sends ops random commands to addr from two connections:
// one runs the stream, the other blocks in pops that the first serves.
func journalStream(t *testing.T, addr string, seed int64, ops int) {
	t.Helper()
	g := &diffGen{r: rand.New(rand.NewSource(seed))}
	main, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer main.close()
	side, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer side.close()
	do := func(c *compatConn, args ...string) *compatReply {
		rep, err := c.do(compatA(args...))
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		return rep
	}
	random := func() []string {
		for {
			st := g.command()
			if len(st.cmd.args) > 0 && st.cmd.inline == "" && !journalSkipped[strings.ToLower(st.cmd.args[0])] {
				return st.cmd.args
			}
		}
	}
	db := "0" // main's database
	deadline := time.Now().Add(2 * time.Minute)
	for i := 0; i < ops && time.Now().Before(deadline); i++ {
		switch n := g.r.Intn(100); {
		case n < 4:
			db = g.pick("0", "1", "2", "9")
			do(main, "SELECT", db)
		case n < 10:
			// A transaction, over whichever shards its keys are on.
			do(main, "MULTI")
			k := 1 + g.r.Intn(6)
			for range k {
				do(main, random()...)
			}
			do(main, "EXEC")
		case n < 14:
			// A pop that blocks, then is served by a push.
			// Keys of their own, so that no other command gives them
			// another type and the push always serves the pop.
			key, zkey := g.pick("bl:1", "bl:2"), g.pick("bz:1", "bz:2")
			pop := [][]string{{"BLPOP", key, "1"}, {"BRPOP", key, "bl:3", "1"}, {"BLMOVE", key, "bl:3", "LEFT", "RIGHT", "1"},
				{"BLMPOP", "1", "1", key, "RIGHT", "COUNT", "2"}, {"BZPOPMIN", zkey, "1"}, {"BZMPOP", "1", "1", zkey, "MAX"}}[g.r.Intn(6)]
			do(side, "SELECT", db)
			if err := side.send(compatEncode(nil, compatA(pop...))); err != nil {
				t.Fatal(err)
			}
			time.Sleep(5 * time.Millisecond)
			if pop[0][1] == 'Z' {
				do(main, "ZADD", zkey, strconv.Itoa(g.r.Intn(100)), g.member(), strconv.Itoa(g.r.Intn(100)), g.member())
			} else {
				do(main, "RPUSH", key, g.val(), g.val())
			}
			if _, err := side.read(); err != nil {
				t.Fatalf("%q: %v", pop, err)
			}
		case n < 16:
			do(main, "SWAPDB", g.pick("0", "1"), g.pick("1", "2"))
		case n < 18:
			do(main, "MOVE", g.key(), g.pick("1", "2"))
		case n < 20:
			args := []string{"COPY", g.key(), g.key(), "DB", g.pick("0", "1", "2")}
			if g.chance(2) {
				args = append(args, "REPLACE")
			}
			do(main, args...)
		case n < 30:
			// The commands that replay differently than they ran,
			// on keys of their own so that their effects last.
			// Their TTLs end long after the replay: a key that expired
			// between the run and the replay would not be there for the
			// commands that extend it (Redis expires nothing while it
			// loads its AOF; a client's replay cannot ask that).
			key := "t:" + strconv.Itoa(g.r.Intn(8))
			ttl := strconv.Itoa(300 + g.r.Intn(100000))
			ms := strconv.Itoa(300_000 + g.r.Intn(100_000_000))
			switch g.r.Intn(10) {
			case 0:
				if g.chance(2) {
					do(main, "SET", key, g.val(), "EX", ttl)
				} else {
					do(main, "SET", key, g.val(), "PX", ms)
				}
			case 1:
				if g.chance(2) {
					do(main, "EXPIRE", key, ttl, g.pick("NX", "XX", "GT", "LT"))
				} else {
					do(main, "PEXPIRE", key, ms, g.pick("NX", "XX", "GT", "LT"))
				}
			case 9:
				// Keys that expire during the run, by active or
				// lazy expiry, and are only ever SET again.
				do(main, "SET", "x:"+strconv.Itoa(g.r.Intn(4)), g.val(), "PX", strconv.Itoa(1+g.r.Intn(50)))
			case 2:
				do(main, "SETEX", key, ttl, g.val())
			case 3:
				switch g.r.Intn(3) {
				case 0:
					do(main, "GETEX", key, "EX", ttl)
				case 1:
					do(main, "GETEX", key, "PX", ms)
				default:
					do(main, "GETEX", key, "PERSIST")
				}
			case 4:
				do(main, "INCRBYFLOAT", key, g.pick("0.1", "1.5", "-3.3e2", "1e-3"))
			case 5:
				do(main, "HINCRBYFLOAT", "th:"+key, g.pick("a", "b"), g.pick("0.1", "1.5", "-3.3e2"))
			case 6:
				do(main, "SADD", "ts:"+key, g.member(), g.member(), g.member(), g.member(), g.member(), g.member())
				do(main, "SPOP", "ts:"+key, g.pick("1", "2", "3"))
			case 7:
				do(main, "SPOP", "ts:"+key)
			default:
				do(main, "EXPIRE", "ts:"+key, ttl)
			}
		case n == 30 && i < ops/2 && g.chance(3):
			do(main, "FLUSHDB")
		case n == 31 && i < ops/2 && g.chance(10):
			do(main, "FLUSHALL")
		default:
			do(main, random()...)
		}
	}
}

// journalDataset reads every key of every database of addr: its type,
// expiry and value, written as one line a key. It returns them by
// "db/key" with the server's clock when it began.
func journalDataset(t *testing.T, addr string) (map[string]journalKey, int64) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	do := func(args ...string) *compatReply {
		rep, err := c.do(compatA(args...))
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		if rep.kind == '-' {
			t.Fatalf("%q: %s", args, rep.raw)
		}
		return rep
	}
	now, _ := strconv.ParseInt(string(compatBulk(do("TIME").elems[0])), 10, 64)
	out := map[string]journalKey{}
	for db := 0; db < 16; db++ {
		do("SELECT", strconv.Itoa(db))
		for _, k := range do("KEYS", "*").elems {
			key := string(compatBulk(k))
			typ := string(do("TYPE", key).raw)
			exp, _ := strconv.ParseInt(strings.TrimSpace(string(do("PEXPIRETIME", key).raw[1:])), 10, 64)
			var val []string
			switch typ {
			case "+string\r\n":
				val = []string{string(compatBulk(do("GET", key)))}
			case "+list\r\n":
				val = journalBulks(do("LRANGE", key, "0", "-1"))
			case "+set\r\n":
				val = journalBulks(do("SMEMBERS", key))
				sort.Strings(val)
			case "+hash\r\n":
				all := journalBulks(do("HGETALL", key))
				for i := 0; i+1 < len(all); i += 2 {
					val = append(val, all[i]+"="+all[i+1])
				}
				sort.Strings(val)
			case "+zset\r\n":
				val = journalBulks(do("ZRANGE", key, "0", "-1", "WITHSCORES"))
			case "+stream\r\n":
				// The entries, and XINFO STREAM's figures but the radix
				// tree's, which are Redis's own.
				val = []string{string(do("XRANGE", key, "-", "+").raw)}
				info := do("XINFO", "STREAM", key).elems
				for i := 0; i+1 < len(info); i += 2 {
					if f := string(compatBulk(info[i])); !strings.HasPrefix(f, "radix-tree") {
						val = append(val, f+"="+string(info[i+1].raw))
					}
				}
				full := do("XINFO", "STREAM", key, "FULL", "COUNT", "0").elems
				for i := 0; i+1 < len(full); i += 2 {
					if string(compatBulk(full[i])) == "groups" {
						val = append(val, journalGroups(full[i+1])...)
					}
				}
			default:
				val = []string{"?"}
			}
			out[fmt.Sprintf("%d/%q", db, key)] = journalKey{typ: strings.TrimSpace(typ[1:]), expireAt: exp, val: fmt.Sprintf("%q", val)}
		}
	}
	return out, now * 1000
}

type journalKey struct {
	typ      string
	expireAt int64 // PEXPIRETIME: -1 without a TTL
	val      string
}

func journalBulks(r *compatReply) []string {
	out := make([]string, len(r.elems))
	for i, e := range r.elems {
		out[i] = string(compatBulk(e))
	}
	return out
}

// journalReplay sends the merged journal to addr, with the SELECTs its
// databases call for, and fails on any error reply.
func journalReplay(t *testing.T, addr string, cmds []journal.Command) {
	t.Helper()
	c, err := compatDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	db := 0
	for _, cmd := range cmds {
		name := strings.ToUpper(string(cmd.Argv[0]))
		if cmd.DB != db && name != "MULTI" && name != "EXEC" {
			if rep, err := c.do(compatA("SELECT", strconv.Itoa(cmd.DB))); err != nil || rep.kind == '-' {
				t.Fatalf("SELECT %d: %v %v", cmd.DB, rep, err)
			}
			db = cmd.DB
		}
		args := make([]string, len(cmd.Argv))
		for i, a := range cmd.Argv {
			args[i] = string(a)
		}
		rep, err := c.do(compatA(args...))
		if err != nil {
			t.Fatalf("replaying %q: %v", args, err)
		}
		failed := rep.kind == '-'
		for _, e := range rep.elems {
			failed = failed || (name == "EXEC" && e.kind == '-')
		}
		if failed {
			t.Errorf("replaying %q: %q", args, rep.raw)
		}
	}
}

// journalCompare reports the keys on which got differs from want. Keys
// that expire within a minute of when want was read are left out: they
// may be gone from one dataset and not yet from the other.
func journalCompare(t *testing.T, name string, want, got map[string]journalKey, at int64, cmds []journal.Command) {
	t.Helper()
	soon := func(k journalKey) bool { return k.expireAt >= 0 && k.expireAt < at+60_000 }
	var diffs []string
	for k, w := range want {
		if soon(w) {
			continue
		}
		g, ok := got[k]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: missing (want %s %d %s)", k, w.typ, w.expireAt, w.val))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s: %s %d %s, want %s %d %s", k, g.typ, g.expireAt, g.val, w.typ, w.expireAt, w.val))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok && !soon(g) {
			diffs = append(diffs, fmt.Sprintf("%s: not in the original (%s %d %s)", k, g.typ, g.expireAt, g.val))
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 0 {
		if len(diffs) > 30 {
			diffs = append(diffs[:30], fmt.Sprintf("… %d more", len(diffs)-30))
		}
		t.Errorf("%s after replaying the journal differs from the original in %d keys:\n%s", name, len(diffs), strings.Join(diffs, "\n"))
		for _, d := range diffs[:min(3, len(diffs))] {
			t.Logf("the journal's records that name %s", journalHistory(d, cmds))
		}
	}
}

// journalHistory lists the merged journal's last records that name the key
// of diff ("db/"key"…").
func journalHistory(diff string, cmds []journal.Command) string {
	slash := strings.IndexByte(diff, '/')
	end := strings.Index(diff, ": ")
	key, err := strconv.Unquote(diff[slash+1 : end])
	if err != nil {
		return err.Error()
	}
	var lines []string
	for _, c := range cmds {
		for _, a := range c.Argv[1:] {
			if string(a) == key {
				lines = append(lines, fmt.Sprintf("db %d: %q", c.DB, c.Argv))
				break
			}
		}
	}
	return fmt.Sprintf("%q:\n%s", key, strings.Join(lines[max(0, len(lines)-15):], "\n"))
}

// journalGroups describes XINFO STREAM FULL's groups but for what a replay
// of the append-only file does not keep as it was: consumers' seen times
// (an XCLAIM replayed sees its consumer then) and the groups' entries read
// and lag (XCLAIM's LASTID moves the last ID alone, in Redis as here).
func journalGroups(groups *compatReply) []string {
	var out []string
	for _, g := range groups.elems {
		for i := 0; i+1 < len(g.elems); i += 2 {
			switch f := string(compatBulk(g.elems[i])); f {
			case "entries-read", "lag":
			case "consumers":
				for _, c := range g.elems[i+1].elems {
					for j := 0; j+1 < len(c.elems); j += 2 {
						if cf := string(compatBulk(c.elems[j])); cf != "seen-time" {
							out = append(out, "consumer "+cf+"="+string(c.elems[j+1].raw))
						}
					}
				}
			default:
				out = append(out, "group "+f+"="+string(g.elems[i+1].raw))
			}
		}
	}
	return out
}
