package main

// TestRandomDiff is a seeded, randomized differential test: it generates a
// stream of commands (valid and invalid arguments, binary keys and values, a
// small key space so that commands collide, pipelines of random depth over
// several connections and databases), sends each command to a real
// redis-server and to corekv, and requires the same replies. It reuses the
// process, connection and reply helpers of compat_test.go.
//
// Environment:
//
//	COREKV_DIFF_OPS      commands per corekv shard count (default 2500)
//	COREKV_DIFF_SEED     the stream's seed (default: from the clock; always logged)
//	COREKV_DIFF_SHARDS   comma-separated shard counts (default "1,3")
//	COREKV_DIFF_REPORTS  mismatch classes reported before the run stops (default 10)
//
// A mismatch prints the seed and the commands of every connection since the
// last FLUSHALL (at most the last diffReplayMax), then both servers start
// over from FLUSHALL on fresh connections, so that one run can report
// several classes of mismatch.

import (
	"bytes"
	"fmt"
	"io"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/router"
)

// Comparison modes beyond compat_test.go's.
const (
	diffTol       compatMode = iota + 100 // integer replies within a tolerance (TTLs: the servers run a command at different instants)
	diffKind                              // only the reply's type byte; error texts compared (HELP, INFO, COMMAND INFO)
	diffShape                             // compatShapeOf, but error texts compared
	diffRandomKey                         // RANDOMKEY: nil or not alike; the key corekv names must exist
	diffScanPage                          // one SCAN call: both an array of two, or the same error
	diffStatus                            // a status or an error, either one (see diffGen.client)
	diffPairs                             // field/value pairs in any order (HGETALL of a big hash): sorted by pair
	diffHScanPage                         // one HSCAN call: both an array of two, or the same error
)

// diffReplayMax bounds the replay printed with a mismatch.
const diffReplayMax = 300

// diffStep is one generated command.
type diffStep struct {
	cmd     compatCmd
	tol     int64 // diffTol: the largest difference accepted
	scanAll bool  // iterate SCAN to cursor 0 and compare the key sets; sent on its own
	hscan   bool  // iterate HSCAN to cursor 0 and compare the pairs found; sent on its own
	quit    bool  // QUIT: the server closes the connection after it
	reply   bool  // Redis answers it (CLIENT REPLY OFF and SKIP silence replies)
	seq     int   // number in the run
}

// diffPair is one client connection to each server, and what the test knows
// of the connection's state.
type diffPair struct {
	id    int
	c     [2]*compatConn // redis, corekv
	db    int
	proto int
	off   bool // CLIENT REPLY OFF
	skip  bool // CLIENT REPLY SKIP: the next command gets no reply
}

// expects applies the command to the pair's reply mode and reports whether
// Redis sends a reply, by the rules of Redis 7.0: SKIP silences the next
// command whatever it is, OFF every command until ON, whose +OK is always
// sent; RESET turns replies on but is itself silenced by a pending SKIP.
func (p *diffPair) expects(args []string) bool {
	skipThis := p.skip
	p.skip = false
	if len(args) == 3 && strings.EqualFold(args[0], "client") && strings.EqualFold(args[1], "reply") {
		switch strings.ToLower(args[2]) {
		case "on":
			p.off = false
			return true
		case "off":
			p.off = true
			return false
		case "skip":
			if !p.off {
				p.skip = true
			}
			return false
		}
	}
	if len(args) == 1 && strings.EqualFold(args[0], "reset") {
		p.off = false
		return !skipThis
	}
	return !p.off && !skipThis
}

// diffEnvInt reads an integer knob from the environment.
func diffEnvInt(t *testing.T, name string, def int64) int64 {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

func TestRandomDiff(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	ops := int(diffEnvInt(t, "COREKV_DIFF_OPS", 2500))
	seed := diffEnvInt(t, "COREKV_DIFF_SEED", time.Now().UnixNano()%1_000_000_000)
	reports := int(diffEnvInt(t, "COREKV_DIFF_REPORTS", 10))
	shardList := os.Getenv("COREKV_DIFF_SHARDS")
	if shardList == "" {
		shardList = "1,3"
	}
	t.Logf("seed %d, %d commands per shard count; replay with COREKV_DIFF_SEED=%d COREKV_DIFF_OPS=%d", seed, ops, seed, ops)
	bin := corekvBinary(t)
	redisAddr := compatStartRedis(t, redisPath)
	for _, f := range strings.Split(shardList, ",") {
		shards, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || shards < 1 {
			t.Fatalf("COREKV_DIFF_SHARDS=%q: bad shard count %q", shardList, f)
		}
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			r := &diffRunner{t: t, bin: bin, shards: shards, seed: seed, ops: ops, maxReports: reports,
				redisAddr: redisAddr, classes: map[string]int{}}
			r.run()
		})
	}
}

// TestRandomDiffOOM is TestRandomDiff with both servers put out of memory
// and back every so often (maxmemory 1 under noeviction): which commands
// are refused, in and out of MULTI, must be the same.
func TestRandomDiffOOM(t *testing.T) {
	redisPath := needTool(t, "redis-server")
	ops := int(diffEnvInt(t, "COREKV_DIFF_OPS", 2000))
	seed := diffEnvInt(t, "COREKV_DIFF_SEED", time.Now().UnixNano()%1_000_000_000)
	t.Logf("seed %d, %d commands per shard count; replay with COREKV_DIFF_SEED=%d COREKV_DIFF_OPS=%d", seed, ops, seed, ops)
	bin := corekvBinary(t)
	redisAddr := compatStartRedis(t, redisPath)
	for _, shards := range []int{1, 3} {
		t.Run(fmt.Sprintf("shards=%d", shards), func(t *testing.T) {
			r := &diffRunner{t: t, bin: bin, shards: shards, seed: seed, ops: ops, maxReports: 10,
				redisAddr: redisAddr, classes: map[string]int{}, oom: true}
			r.run()
		})
	}
}

// diffRunner drives one stream against redis and one corekv process.
type diffRunner struct {
	t          *testing.T
	bin        string
	shards     int
	seed       int64
	ops        int
	maxReports int
	redisAddr  string
	srv        *compatCorekv
	pairs      []*diffPair
	log        []string // the commands since the last FLUSHALL, as the replay shows them
	logStart   string   // the connections' state when log began
	classes    map[string]int
	reported   int
	// oom turns maxmemory 1 on and off every oomEvery commands.
	oom    bool
	oomOn  bool
	oomSeq int
	admin  *diffPair
}

const oomEvery = 150

// keepNoEviction makes a CONFIG SET of maxmemory-policy in args set
// noeviction, which TestRandomDiffOOM runs under: at maxmemory 1 an
// evicting policy empties Redis's keyspace before each command, and
// corekv's shards, which evict each its own keys as they run, at moments
// of their own, so replies over keys of several shards would differ by
// timing (eviction has tests of its own: eviction_test.go).
func keepNoEviction(args []string) {
	if len(args) < 2 || !strings.EqualFold(args[0], "config") || !strings.EqualFold(args[1], "set") {
		return
	}
	for i := 2; i+1 < len(args); i += 2 {
		if strings.EqualFold(args[i], "maxmemory-policy") && args[i+1] != "" {
			args[i+1] = "noeviction"
		}
	}
}

func (r *diffRunner) run() {
	t := r.t
	start := time.Now()
	r.srv = compatStartCorekv(t, r.bin, r.shards, "--save", "")
	for i := 0; i < 3; i++ {
		r.pairs = append(r.pairs, &diffPair{id: i})
	}
	r.resync()
	g := &diffGen{r: rand.New(rand.NewSource(r.seed))}
	seq := 0
	for seq < r.ops && r.reported < r.maxReports {
		p := r.pairs[g.r.Intn(len(r.pairs))]
		var steps []*diffStep
		if g.r.Intn(50) == 0 && !p.off && !p.skip {
			st := g.scanAll()
			if g.chance(2) {
				st = g.hscanAll()
			}
			st.seq, st.reply = seq, p.expects(st.cmd.args)
			seq++
			steps = append(steps, st)
		} else {
			depth := 1
			if g.r.Intn(3) == 0 {
				depth = 2 + g.r.Intn(15)
				if g.r.Intn(20) == 0 {
					depth = 40 + g.r.Intn(40)
				}
			}
			for i := 0; i < depth && seq < r.ops; i++ {
				st := g.command()
				if r.oom {
					keepNoEviction(st.cmd.args)
				}
				for _, st := range []*diffStep{st, diffExpiredProbe(st)} {
					if st != nil {
						st.seq, st.reply = seq, p.expects(st.cmd.args)
						seq++
						steps = append(steps, st)
					}
				}
				if st.quit {
					break
				}
			}
			if last := steps[len(steps)-1]; !last.quit && (p.off || p.skip) {
				// Silenced commands give no sign that they have run, and
				// the next command may come on another connection: end with
				// a reply, which CLIENT REPLY ON always gets.
				st := &diffStep{cmd: compatA("CLIENT", "REPLY", "ON"), seq: seq}
				st.reply = p.expects(st.cmd.args)
				seq++
				steps = append(steps, st)
			}
		}
		if r.oom && seq-r.oomSeq >= oomEvery {
			// Between pipelines, on a connection of its own: every command
			// after it sees the new limit.
			r.oomSeq, r.oomOn = seq, !r.oomOn
			limit := "0"
			if r.oomOn {
				limit = "1"
			}
			st := &diffStep{cmd: compatA("CONFIG", "SET", "maxmemory", limit), seq: seq, reply: true}
			seq++
			if !r.exec(r.admin, []*diffStep{st}) {
				r.resync()
			}
		}
		if !r.exec(p, steps) {
			r.resync()
		}
	}
	// Every connection must be in step at the end: no reply left unread.
	for _, p := range r.pairs {
		steps := []*diffStep{{cmd: compatA("CLIENT", "REPLY", "ON"), seq: seq}, {cmd: compatA("PING", "end"), seq: seq + 1}}
		for _, st := range steps {
			st.reply = p.expects(st.cmd.args)
		}
		r.exec(p, steps)
	}
	total := 0
	for _, n := range r.classes {
		total += n
	}
	if total > 0 {
		var names []string
		for c, n := range r.classes {
			names = append(names, fmt.Sprintf("%6d  %s", n, c))
		}
		sort.Strings(names)
		t.Errorf("seed %d, corekv --shards %d: %d mismatches in %d classes:\n%s", r.seed, r.shards, total, len(r.classes), strings.Join(names, "\n"))
	}
	t.Logf("corekv --shards %d: %d commands in %v", r.shards, seq, time.Since(start).Round(time.Millisecond))
}

// resync closes every connection, restarts corekv if it died, and opens
// fresh connections on two emptied servers with the settings the stream may
// change put back.
func (r *diffRunner) resync() {
	t := r.t
	r.oomOn = false
	pairs := r.pairs
	if r.admin != nil {
		pairs = append(pairs[:len(pairs):len(pairs)], r.admin)
	}
	for _, p := range pairs {
		for i, c := range p.c {
			if c != nil {
				diffDrain(c)
				c.close()
				p.c[i] = nil
			}
		}
	}
	if !diffAlive(r.srv.addr) {
		// Give a crashing process a moment to exit.
		for i := 0; i < 200 && !r.srv.exited(); i++ {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if r.srv.exited() {
		r.classes["corekv exited"]++
		t.Errorf("corekv --shards %d exited (seed %d); the command that stopped it is in the last pipeline of the replay above:\n%s",
			r.shards, r.seed, r.srv.logs.String())
		r.srv = compatStartCorekv(t, r.bin, r.shards, "--save", "")
	}
	pairs = r.pairs
	if r.oom {
		if r.admin == nil {
			r.admin = &diffPair{id: 9}
		}
		pairs = append(pairs[:len(pairs):len(pairs)], r.admin)
	}
	for _, p := range pairs {
		*p = diffPair{id: p.id, proto: 2}
		for i, addr := range []string{r.redisAddr, r.srv.addr} {
			c, err := compatDial(addr)
			if err != nil {
				t.Fatalf("dial %s: %v", addr, err)
			}
			p.c[i] = c
		}
	}
	for _, setup := range [][]string{
		{"FLUSHALL"},
		{"CONFIG", "SET", "maxclients", "10000"},
		{"CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "noeviction", "maxmemory-samples", "5",
			"maxmemory-eviction-tenacity", "10", "lfu-log-factor", "10", "lfu-decay-time", "1"},
		{"CONFIG", "SET", "loglevel", "notice"},
		{"CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0"},
		{"CONFIG", "SET", "hash-max-listpack-entries", "512", "hash-max-listpack-value", "64", "set-max-intset-entries", "512",
			"list-max-listpack-size", "-2",
			"zset-max-listpack-entries", "128", "zset-max-listpack-value", "64"},
	} {
		for i, c := range r.pairs[0].c {
			rep, err := c.do(compatA(setup...))
			if err != nil || string(rep.raw) != "+OK\r\n" {
				t.Fatalf("%s on server %d: %v %v", compatA(setup...), i, err, rep)
			}
		}
	}
	r.resetLog()
}

// diffDrain waits until the server has run every command sent on c: a
// command still queued behind a mismatch must not run after the next
// FLUSHALL. It reads whatever comes until the echo of a marker.
func diffDrain(c *compatConn) {
	const marker = "corekv-diff-drain"
	if c.send(compatEncode(compatEncode(nil, compatA("CLIENT", "REPLY", "ON")), compatA("ECHO", marker))) != nil {
		return
	}
	_ = c.c.SetReadDeadline(time.Now().Add(3 * time.Second))
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte(marker)) {
		n, err := c.r.Read(buf)
		if err != nil {
			return
		}
		seen = append(seen[max(0, len(seen)-len(marker)):], buf[:n]...)
	}
}

// diffAlive reports whether a server at addr answers PING.
func diffAlive(addr string) bool {
	c, err := compatDial(addr)
	if err != nil {
		return false
	}
	defer c.close()
	rep, err := c.do(compatS("PING"))
	return err == nil && string(rep.raw) == "+PONG\r\n"
}

func (r *diffRunner) resetLog() {
	r.log = r.log[:0]
	var b strings.Builder
	for i, p := range r.pairs {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "c%d db=%d resp=%d", p.id, p.db, p.proto)
		if p.off {
			b.WriteString(" reply=off")
		}
		if p.skip {
			b.WriteString(" reply=skip")
		}
	}
	r.logStart = b.String()
}

// exec sends steps as one pipeline on pair p, compares the replies and
// reports the first mismatch. It returns false when the servers are no
// longer known to be in the same state.
func (r *diffRunner) exec(p *diffPair, steps []*diffStep) bool {
	for i, st := range steps {
		mark := "  "
		if len(steps) > 1 {
			mark = "| "
			if i == 0 {
				mark = "/ "
			}
		}
		note := ""
		if !st.reply {
			note = "   (no reply expected)"
		}
		r.log = append(r.log, fmt.Sprintf("#%-6d c%d %s%s%s", st.seq, p.id, mark, st.cmd, note))
	}
	if len(r.log) > 2*diffReplayMax {
		r.log = append(r.log[:0], r.log[len(r.log)-diffReplayMax:]...)
	}

	outs := [2][]compatOutcome{make([]compatOutcome, len(steps)), make([]compatOutcome, len(steps))}
	reps := [2][]*compatReply{make([]*compatReply, len(steps)), make([]*compatReply, len(steps))}
	switch {
	case len(steps) == 1 && steps[0].scanAll:
		for i, c := range p.c {
			outs[i][0] = compatScanAll(c, steps[0].cmd)
		}
	case len(steps) == 1 && steps[0].hscan:
		for i, c := range p.c {
			outs[i][0] = diffHScanAll(c, steps[0].cmd)
		}
	default:
		var buf []byte
		for _, st := range steps {
			buf = compatEncode(buf, st.cmd)
		}
		for i, c := range p.c {
			if err := c.send(buf); err != nil {
				outs[i][0] = compatFromReply(steps[0].cmd, nil, err)
			}
		}
		for i, c := range p.c {
			failed := outs[i][0].err
			for k, st := range steps {
				switch {
				case failed != nil:
					outs[i][k] = compatOutcome{key: "<not read>", show: "<not read: the connection failed>", err: failed}
				case !st.reply:
					outs[i][k] = compatOutcome{key: "<no reply>", show: "<no reply>"}
				default:
					rep, err := c.read()
					reps[i][k] = rep
					outs[i][k] = diffOutcome(st, rep, err)
					failed = outs[i][k].err
				}
			}
		}
	}

	for k, st := range steps {
		a, b := outs[0][k], outs[1][k]
		if a.key != b.key && !diffWithin(st, reps[0][k], reps[1][k]) {
			if r.lexUnspecified(p, st) {
				return false // no telling what either server holds now: start over
			}
			r.mismatch(p, steps, k, a.show, b.show)
			return false
		}
		if a.err != nil {
			if st.quit && k == len(steps)-1 {
				break
			}
			r.mismatch(p, steps, k, a.show, b.show)
			return false
		}
		r.track(p, st, reps[0][k])
	}
	if !r.checkExtra(p, steps) {
		return false
	}
	last := steps[len(steps)-1]
	if last.quit {
		r.redial(p)
		return true
	}
	// The key RANDOMKEY names must exist; checked when nothing ran after it.
	if last.cmd.mode == diffRandomKey && last.reply && !p.off && !p.skip {
		if rep := reps[1][len(steps)-1]; rep != nil && rep.kind == '$' && !bytes.HasPrefix(rep.raw, []byte("$-1")) {
			key := string(compatBulk(rep))
			ex, err := p.c[0].do(compatA("EXISTS", key))
			if err != nil || string(ex.raw) != ":1\r\n" {
				r.mismatch(p, steps, len(steps)-1, "a key of the database", fmt.Sprintf("%q, which redis does not have (EXISTS: %v %v)", key, ex, err))
				return false
			}
		}
	}
	return true
}

// diffExpiredProbe returns an EXISTS of the key when the command is a SET
// or GETEX with an absolute expiry time. Redis keeps a key whose time is
// already past until something looks it up or its expiry cycle finds it, and
// until then DBSIZE counts it and SCAN TYPE none lists it; corekv drops it at
// once. The lookup makes Redis drop it too, so that the two keyspaces stay
// comparable.
func diffExpiredProbe(st *diffStep) *diffStep {
	args := st.cmd.args
	if len(args) < 3 || !(strings.EqualFold(args[0], "set") || strings.EqualFold(args[0], "getex")) {
		return nil
	}
	for _, a := range args[2:] {
		if strings.EqualFold(a, "exat") || strings.EqualFold(a, "pxat") {
			return diffS("EXISTS", args[1])
		}
	}
	return nil
}

// checkExtra reports a reply that a server sent beyond those Redis sends
// (a reply to a silenced command, or an error text that broke its line),
// which would otherwise surface as a mismatch of some later command.
func (r *diffRunner) checkExtra(p *diffPair, steps []*diffStep) bool {
	last, silenced := steps[len(steps)-1], -1
	for k, st := range steps {
		if !st.reply {
			silenced = k
		}
	}
	if last.quit {
		return true
	}
	var extra [2]string
	for i, c := range p.c {
		if silenced >= 0 {
			// A reply to a silenced command may still be on its way.
			_ = c.c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			_, _ = c.r.Peek(1)
		}
		if c.r.Buffered() > 0 {
			rep, err := c.read()
			extra[i] = compatFromReply(compatCmd{}, rep, err).show
		}
	}
	if extra[0] == "" && extra[1] == "" {
		return true
	}
	k := len(steps) - 1
	if silenced >= 0 {
		k = silenced
	}
	for i := range extra {
		if extra[i] == "" {
			extra[i] = "<nothing more>"
		}
		extra[i] = "a reply more: " + extra[i]
	}
	r.mismatch(p, steps, k, extra[0], extra[1])
	return false
}

// track follows the connection state a reply reveals, and starts the replay
// afresh after a FLUSHALL.
func (r *diffRunner) track(p *diffPair, st *diffStep, rep *compatReply) {
	args := st.cmd.args
	if rep == nil || len(args) == 0 {
		return
	}
	name := strings.ToLower(args[0])
	ok := rep.kind == '+'
	switch {
	case name == "select" && ok:
		p.db, _ = strconv.Atoi(args[1])
	case name == "reset" && ok:
		p.db, p.proto = 0, 2
	case name == "hello" && rep.kind == '%':
		p.proto = 3
	case name == "hello" && rep.kind == '*':
		p.proto = 2
	case name == "flushall" && ok:
		r.resetLog()
	}
}

// redial replaces a pair's connections after QUIT, once each server has
// closed its end: then every command sent before QUIT has run.
func (r *diffRunner) redial(p *diffPair) {
	for i, addr := range []string{r.redisAddr, r.srv.addr} {
		_ = p.c[i].c.SetReadDeadline(time.Now().Add(3 * time.Second))
		_, _ = io.Copy(io.Discard, p.c[i].r)
		p.c[i].close()
		c, err := compatDial(addr)
		if err != nil {
			r.t.Fatalf("dial %s: %v", addr, err)
		}
		p.c[i] = c
	}
	p.db, p.proto, p.off, p.skip = 0, 2, false, false
}

// mismatch reports a difference once per class, with the replay.
func (r *diffRunner) mismatch(p *diffPair, steps []*diffStep, k int, redis, corekv string) {
	st := steps[k]
	silenced := false
	for _, prev := range steps[:k] {
		silenced = silenced || !prev.reply
	}
	class := diffClass(st.cmd.args, silenced, redis, corekv)
	r.classes[class]++
	if r.classes[class] > 1 {
		return
	}
	r.reported++
	var b strings.Builder
	fmt.Fprintf(&b, "seed %d, corekv --shards %d, command #%d on c%d: %s\n\tredis:  %s\n\tcorekv: %s\n",
		r.seed, r.shards, st.seq, p.id, st.cmd, redis, corekv)
	fmt.Fprintf(&b, "replay: COREKV_DIFF_SEED=%d COREKV_DIFF_OPS=%d COREKV_DIFF_SHARDS=%d go test -run TestRandomDiff ./cmd/corekv/\n",
		r.seed, st.seq+1, r.shards)
	fmt.Fprintf(&b, "commands since the last FLUSHALL (cN: connection; / and | mark a pipeline), from %s:\n", r.logStart)
	log := r.log
	if len(log) > diffReplayMax {
		fmt.Fprintf(&b, "\t… %d earlier commands left out\n", len(log)-diffReplayMax)
		log = log[len(log)-diffReplayMax:]
	}
	for _, l := range log {
		b.WriteString("\t" + l + "\n")
	}
	r.t.Errorf("reply differs: %s", b.String())
}

// diffClass names a mismatch for counting: the command (and subcommand),
// and each reply's type, with an error's text up to its first quote and
// digits folded. A mismatch after a reply Redis did not send counts apart:
// it may be a reply out of step.
func diffClass(args []string, afterSilence bool, redis, corekv string) string {
	name := "<no name>"
	if len(args) > 0 {
		name = strings.ToUpper(args[0])
		switch {
		case router.LookupString(args[0]) == nil:
			name = "<unknown command>"
		case len(args) > 1 && (name == "CLIENT" || name == "CONFIG" || name == "OBJECT" || name == "MEMORY" ||
			name == "COMMAND" || name == "DEBUG"):
			name += " " + strings.ToUpper(args[1])
			if len(name) > 30 {
				name = name[:30] + "…"
			}
		}
	}
	if afterSilence {
		name = "after a silenced reply: " + name
	}
	return fmt.Sprintf("%q: redis %s | corekv %s", name, diffSig(redis), diffSig(corekv))
}

// diffSig sums up a reply as diffOutcome shows it.
func diffSig(show string) string {
	if !strings.HasPrefix(show, `"`) {
		// A described reply: "a SCAN page: …", "shape …: …", "N keys […]".
		if i := strings.Index(show, `: "`); i > 0 {
			return show[:i]
		}
		if i := strings.Index(show, " keys "); i > 0 {
			return "a set of keys"
		}
		return show
	}
	q, err := strconv.Unquote(show)
	if err != nil || q == "" {
		return show
	}
	switch q[0] {
	case '-', '!':
		if i := strings.IndexAny(q, "'\r\n"); i > 0 {
			q = q[:i]
		}
		if len(q) > 40 {
			q = q[:40]
		}
		return strconv.Quote(strings.Map(func(c rune) rune {
			if c >= '0' && c <= '9' {
				return '9'
			}
			return c
		}, q))
	case '$':
		if strings.HasPrefix(q, "$-1") {
			return "nil"
		}
		return "bulk"
	}
	return "type " + q[:1]
}

// diffOutcome is compatFromReply with this file's modes.
func diffOutcome(st *diffStep, rep *compatReply, err error) compatOutcome {
	if err != nil || st.cmd.mode < diffTol {
		return compatFromReply(st.cmd, rep, err)
	}
	show := strconv.Quote(string(rep.raw))
	if st.cmd.mode == diffStatus && (rep.kind == '+' || rep.kind == '-') {
		return compatOutcome{key: "a status or an error", show: show}
	}
	if rep.kind == '-' || rep.kind == '!' {
		return compatOutcome{key: string(rep.raw), show: show}
	}
	switch st.cmd.mode {
	case diffKind:
		return compatOutcome{key: string(rep.kind), show: "type " + string(rep.kind) + ": " + show}
	case diffShape:
		sh := compatShapeOf(rep)
		return compatOutcome{key: sh, show: "shape " + sh + ": " + show}
	case diffRandomKey:
		if rep.kind == '_' || bytes.HasPrefix(rep.raw, []byte("$-1")) {
			return compatOutcome{key: "nil", show: show}
		}
		if rep.kind == '$' {
			return compatOutcome{key: "a key", show: "a key: " + show}
		}
	case diffScanPage:
		if rep.kind == '*' && len(rep.elems) == 2 && rep.elems[1].kind == '*' {
			return compatOutcome{key: "a SCAN page", show: "a SCAN page: " + show}
		}
	case diffPairs:
		return compatOutcome{key: diffSortedPairs(rep), show: show}
	case diffHScanPage:
		if rep.kind == '*' && len(rep.elems) == 2 && rep.elems[1].kind == '*' {
			return compatOutcome{key: "an HSCAN page", show: "an HSCAN page: " + show}
		}
	}
	return compatOutcome{key: string(rep.raw), show: show}
}

// diffSortedPairs describes an aggregate of field/value pairs (a RESP2 flat
// array, a RESP3 map) whatever the order of the pairs.
func diffSortedPairs(r *compatReply) string {
	if (r.kind != '*' && r.kind != '%') || len(r.elems)%2 != 0 {
		return string(r.raw)
	}
	pairs := make([]string, 0, len(r.elems)/2)
	for i := 0; i+1 < len(r.elems); i += 2 {
		pairs = append(pairs, string(r.elems[i].raw)+string(r.elems[i+1].raw))
	}
	sort.Strings(pairs)
	return fmt.Sprintf("%c%d %s", r.kind, len(pairs), strings.Join(pairs, ""))
}

// diffHScanAll iterates HSCAN (or SSCAN) from cursor 0 until the server
// returns cursor 0 and describes the pairs (members) seen, each once. An
// error reply is compared as is.
func diffHScanAll(c *compatConn, cmd compatCmd) compatOutcome {
	args := append([]string(nil), cmd.args...)
	seen := map[string]bool{}
	for round := 0; ; round++ {
		if round > 10000 {
			return compatOutcome{key: "<hscan did not end>", show: "<hscan did not reach cursor 0 in 10000 calls>"}
		}
		rep, err := c.do(compatCmd{args: args})
		if err != nil || rep.kind == '-' {
			return compatFromReply(cmd, rep, err)
		}
		if rep.kind != '*' || len(rep.elems) != 2 || rep.elems[1].kind != '*' {
			return compatOutcome{key: "<bad hscan reply>", show: "<bad hscan reply " + strconv.Quote(string(rep.raw)) + ">"}
		}
		el := rep.elems[1].elems
		if strings.EqualFold(args[0], "sscan") {
			for _, e := range el {
				seen[strconv.Quote(string(compatBulk(e)))] = true
			}
		} else {
			for i := 0; i < len(el); i += 2 {
				seen[strconv.Quote(string(compatBulk(el[i])))+"="+strconv.Quote(string(compatBulk(el[i+1])))] = true
			}
		}
		cursor := string(compatBulk(rep.elems[0]))
		if cursor == "0" {
			break
		}
		args[2] = cursor
	}
	pairs := make([]string, 0, len(seen))
	for p := range seen {
		pairs = append(pairs, p)
	}
	sort.Strings(pairs)
	show := fmt.Sprintf("%d pairs %s", len(pairs), strings.Join(pairs, " "))
	return compatOutcome{key: show, show: show}
}

// lexUnspecified reports whether st is a lexicographic range command
// (ZLEXCOUNT, ZRANGEBYLEX, ZRANGE … BYLEX, ZREMRANGEBYLEX …) over a sorted
// set whose scores differ, which Redis keeps as a skiplist: Redis documents
// such a range as unspecified, and its skiplist's answer depends on the
// random levels of its nodes (a small sorted set becomes a skiplist after
// SORT). It looks at the set as it is after st's pipeline.
func (r *diffRunner) lexUnspecified(p *diffPair, st *diffStep) bool {
	args := st.cmd.args
	if len(args) < 3 {
		return false
	}
	name := strings.ToUpper(args[0])
	key := args[1]
	switch name {
	case "ZLEXCOUNT", "ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZREMRANGEBYLEX":
	case "ZRANGE", "ZRANGESTORE":
		bylex := false
		for _, a := range args[3:] {
			bylex = bylex || strings.EqualFold(a, "BYLEX")
		}
		if !bylex {
			return false
		}
		if name == "ZRANGESTORE" {
			key = args[2]
		}
	default:
		return false
	}
	c, err := compatDial(r.redisAddr)
	if err != nil {
		return false
	}
	defer c.close()
	if _, err := c.do(compatA("SELECT", strconv.Itoa(p.db))); err != nil {
		return false
	}
	enc, err := c.do(compatA("OBJECT", "ENCODING", key))
	if err != nil || string(compatBulk(enc)) != "skiplist" {
		return false
	}
	rep, err := c.do(compatA("ZRANGE", key, "0", "-1", "WITHSCORES"))
	if err != nil {
		return false
	}
	scores := map[string]bool{}
	for i := 1; i < len(rep.elems); i += 2 {
		scores[string(compatBulk(rep.elems[i]))] = true
	}
	return len(scores) > 1
}

// diffWithin reports whether two integer replies of a diffTol step are
// close enough. Negative replies (no key, no TTL) must be equal.
func diffWithin(st *diffStep, a, b *compatReply) bool {
	if st.cmd.mode != diffTol || a == nil || b == nil || a.kind != ':' || b.kind != ':' {
		return false
	}
	x, err1 := strconv.ParseInt(string(a.raw[1:len(a.raw)-2]), 10, 64)
	y, err2 := strconv.ParseInt(string(b.raw[1:len(b.raw)-2]), 10, 64)
	if err1 != nil || err2 != nil || x < 0 || y < 0 {
		return false
	}
	d := x - y
	if d < 0 {
		d = -d
	}
	return d <= st.tol
}

// diffGen makes the command stream. Everything it draws comes from r, so a
// seed gives the same stream.
type diffGen struct{ r *rand.Rand }

func (g *diffGen) pick(xs ...string) string { return xs[g.r.Intn(len(xs))] }
func (g *diffGen) chance(n int) bool        { return g.r.Intn(n) == 0 }

// The key space is small so that commands meet the same keys; some keys are
// binary, and with several shards they spread over all of them.
var diffKeys = []string{"a", "b", "c", "k1", "k2", "k3", "n", "f", "{t}1", "{t}2", "\x00", "a\r\nb", "\xff\xfe\x80",
	"sp ace", "", "x*y", "[k]"}

func (g *diffGen) key() string {
	if g.chance(15) {
		return "r" + strconv.Itoa(g.r.Intn(40))
	}
	return diffKeys[g.r.Intn(len(diffKeys))]
}

func (g *diffGen) keys(min, max int) []string {
	n := min + g.r.Intn(max-min+1)
	out := make([]string, n)
	for i := range out {
		out[i] = g.key()
	}
	return out
}

// diffNums are numbers at and beyond the edges of what the commands parse.
var diffNums = []string{"0", "-0", "+0", "1", "-1", "+1", "01", " 1", "1 ", "0x10", "1e3", "1.5", "-1.5", "inf", "-inf",
	"nan", "", "abc", "9223372036854775807", "-9223372036854775807", "9223372036854775808", "-9223372036854775808",
	"-9223372036854775809", "18446744073709551615", "18446744073709551616", "99999999999999999999", "1e400", "-1e400",
	"2147483647", "-2147483648", "4294967296", "536870911", "536870912", "536870913", "-536870912", "12345678901234567890",
	"100", "-100", "9223372036854775806", "4611686018427387904", "\x00", "1\x00"}

// num is an integer argument: mostly small, often an edge case.
func (g *diffGen) num() string {
	if g.chance(2) {
		return strconv.Itoa(g.r.Intn(41) - 20)
	}
	return diffNums[g.r.Intn(len(diffNums))]
}

func (g *diffGen) float() string {
	if g.chance(2) {
		return g.pick("0.1", "0.2", "1.5", "-2.5", "3", "-3", "10", "0.25", "1e2", "-1e2", "2.5e-3", "0", "100.75")
	}
	return g.pick("1e400", "-1e400", "inf", "-inf", "+inf", "nan", "", "abc", "0x10", "1.7976931348623157e308",
		"-1.7976931348623157e308", "5e-324", "1e308", "3.0e2", "-0", "1.5.1", " 1", "1 ", "9223372036854775807",
		"1e-400", "00.5", ".5", "5.", "1\x00")
}

// val is a value: short strings, integers and floats (so INCR and friends
// find numbers), binary bytes, and lengths around the encodings' limits.
func (g *diffGen) val() string {
	switch g.r.Intn(12) {
	case 0, 1:
		return g.num()
	case 2:
		return g.float()
	case 3:
		return g.pick("\x00", "a\r\nb", "\xff\xfe", "\r\n", "v\x00v", "-ERR x", "+OK", "$5", "*1")
	case 4:
		return strings.Repeat(g.pick("x", "y", "\x00", "é"), g.pick44())
	case 5:
		if g.chance(20) {
			return strings.Repeat("z", 4096+g.r.Intn(100))
		}
		return strings.Repeat("w", g.r.Intn(200))
	}
	return g.pick("v", "hello", "world", "", "foo bar", "V", "12abc", "7")
}

func (g *diffGen) pick44() int { return []int{1, 20, 39, 43, 44, 45, 46, 64, 100}[g.r.Intn(9)] }

// ttl is a relative time in seconds: far enough ahead that no key it is set
// on expires during the run, and spread so that two TTLs set by relative
// commands never tie (GT and LT compare them); or an invalid or
// already-past value, whose effect does not depend on timing.
func (g *diffGen) ttl() string {
	if g.chance(4) {
		return g.pick("0", "-1", "-100", "abc", "1.5", "", "9223372036854775807", "9223372036854775808",
			"-9223372036854775808", "9223372036854776", "9223372036854775", "99999999999999999999", "+100000", "1e9", "0x100000")
	}
	return strconv.Itoa(10000 + g.r.Intn(100_000_000))
}

func (g *diffGen) pttl() string {
	if g.chance(4) {
		return g.pick("0", "-1", "-100", "abc", "1.5", "", "9223372036854775807", "9223372036854775808",
			"-9223372036854775808", "9223372036854775", "9223372036854774807", "99999999999999999999")
	}
	return strconv.FormatInt(10_000_000+g.r.Int63n(100_000_000_000), 10)
}

// at is an absolute time in seconds: in the far future or in the past.
func (g *diffGen) at() string {
	switch g.r.Intn(5) {
	case 0:
		return strconv.Itoa(1 + g.r.Intn(1_600_000_000))
	case 1:
		return g.pick("0", "-1", "abc", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
			"9223372036854776", "9223372036854775", "1e10", "")
	}
	return strconv.FormatInt(diffFutureSec+g.r.Int63n(1_000_000), 10)
}

func (g *diffGen) pat() string {
	switch g.r.Intn(5) {
	case 0:
		return strconv.FormatInt(1+g.r.Int63n(1_600_000_000_000), 10)
	case 1:
		return g.pick("0", "-1", "abc", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "")
	}
	return strconv.FormatInt(diffFutureSec*1000+g.r.Int63n(1_000_000_000), 10)
}

const diffFutureSec = 4102444800

// db is a database number, mostly one of the first four.
func (g *diffGen) db() string {
	if g.chance(5) {
		return g.pick("15", "16", "-1", "01", "abc", "", "9223372036854775808", "4294967296", "1.0", " 1")
	}
	return strconv.Itoa(g.r.Intn(4))
}

func (g *diffGen) pattern() string {
	return g.pick("*", "*", "a*", "k?", "k[1-2]", "[^a]*", "*\x00*", `\*`, "[", "[a-", "a[b", "**", "", "{t}*", "r1*",
		"*b", "?", "[!k]*", `x\*y`, "[k]", `\[k\]`, "*\r\n*", "[z-a]*", "\xff*")
}

// token is a random argument for mutations: option words, edge numbers,
// binary bytes.
func (g *diffGen) token() string {
	if g.chance(3) {
		v := diffNums[g.r.Intn(len(diffNums))]
		if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 && n < 100_000_000 {
			// In the place of a TTL this would expire during the run, at
			// instants that differ between the servers.
			return "0"
		}
		return v
	}
	return g.pick("NX", "XX", "GT", "LT", "EX", "PX", "EXAT", "PXAT", "KEEPTTL", "GET", "PERSIST", "REPLACE", "DB",
		"MATCH", "COUNT", "TYPE", "SAMPLES", "nx", "ex", "", "\x00", "a\r\nb", "\xff", "foo", "string", "0")
}

// casing spells a command name in upper, lower or mixed case.
func (g *diffGen) casing(name string) string {
	switch g.r.Intn(6) {
	case 0:
		return strings.ToLower(name)
	case 1:
		b := []byte(strings.ToLower(name))
		for i := range b {
			if g.chance(2) && b[i] >= 'a' && b[i] <= 'z' {
				b[i] -= 'a' - 'A'
			}
		}
		return string(b)
	}
	return name
}

// opts returns a random selection of the groups, each one or more
// arguments, sometimes repeated.
func (g *diffGen) opts(groups ...[]string) []string {
	var out []string
	n := g.r.Intn(3)
	if g.chance(8) {
		n += 2
	}
	for i := 0; i < n; i++ {
		out = append(out, groups[g.r.Intn(len(groups))]...)
	}
	return out
}

func (g *diffGen) expireOpt() []string {
	if g.chance(2) {
		return nil
	}
	o := []string{g.pick("NX", "XX", "GT", "LT", "nx", "gt", "FOO")}
	if g.chance(6) {
		o = append(o, g.pick("NX", "XX", "GT", "LT"))
	}
	return o
}

func (g *diffGen) ttlOpt() []string {
	switch g.r.Intn(5) {
	case 0:
		return []string{"EX", g.ttl()}
	case 1:
		return []string{"PX", g.pttl()}
	case 2:
		return []string{"EXAT", g.at()}
	case 3:
		return []string{"PXAT", g.pat()}
	}
	return []string{g.pick("KEEPTTL", "PERSIST")}
}

// diffCommand is one entry of the generator's table.
type diffCommand struct {
	weight int
	gen    func(g *diffGen) *diffStep
	fixed  bool // never mutated: the generator already covers its bad forms, and random ones could stop the server or kill clients
}

func diffS(args ...string) *diffStep { return &diffStep{cmd: compatCmd{args: args}} }
func diffM(m compatMode, args ...string) *diffStep {
	return &diffStep{cmd: compatCmd{args: args, mode: m}}
}
func diffJ(head []string, rest ...[]string) []string { return compatJoin(head, rest...) }

func diffT(tol int64, args ...string) *diffStep {
	return &diffStep{cmd: compatCmd{args: args, mode: diffTol}, tol: tol}
}

// diffPayloads are RESTORE's payloads: redis-server 7.0.15's DUMPs of a
// string, an LZF string, a list, an intset, a listpack hash and a listpack
// sorted set; then an unknown type and an empty list under good footers,
// a bad checksum, and no payload.
var diffPayloads = []string{
	"\x00\x05hello\n\x00cr\xdfve4 \n",
	"\x00\xc3\t@d\x01aa\xe0W\x00\x01aa\n\x00\xe8\xa3\xb5\a\xb0m\xf2q",
	"\x12\x01\x02\x1c\x1c\x00\x00\x00\a\x00\x81a\x02\x81b\x02\x81c\x02\x01\x01\x02\x01\xc1,\x02\xf2\x90\xee\xfe\x04\xff\n\x00\x06\x88\xb5\xd5\xfa}_\x8e",
	"\x0b\x0e\x02\x00\x00\x00\x03\x00\x00\x00\x01\x00\x02\x00\x03\x00\n\x00\xa5\x02\\\xe2mnM\x1b",
	"\x10\x15\x15\x00\x00\x00\x04\x00\x82f1\x03\x82v1\x03\x82f2\x03\x16\x01\xff\n\x00yN\xe6.\x9cH\xa9\x0c",
	"\x11\x1d\x1d\x00\x00\x00\x06\x00\x81c\x02\x84-inf\x05\x81a\x02\x01\x01\x81b\x02\x832.5\x04\xff\n\x009\x923\x9b\xe1\x1f2=",
	"\x07\x01a\n\x00\xe5\xed\x9fY=\x8ec?",
	"\x01\x00\n\x00[\xf8%\xccl\x17CV",
	"\x00\x05hello\n\x00cr\xdfve4 \x00",
	"",
}

// diffCommands is the generator's table, set in init: COMMAND GETKEYS draws
// from the table itself.
var (
	diffCommands  []diffCommand
	diffWeightSum int
)

func init() {
	diffCommands = append(append(diffCommandTable(), diffListCommands()...), diffZSetCommands()...)
	diffCommands = append(append(diffCommands, diffSortCommands()...), diffBlockingCommands()...)
	diffCommands = append(diffCommands, diffBitmapCommands()...)
	diffCommands = append(diffCommands, diffHLLCommands()...)
	diffCommands = append(diffCommands, diffGeoCommands()...)
	diffCommands = append(diffCommands, diffStreamCommands()...)
	diffCommands = append(diffCommands, diffStreamGroupCommands()...)
	for _, c := range diffCommands {
		diffWeightSum += c.weight
	}
}

func diffCommandTable() []diffCommand {
	return []diffCommand{
		// strings
		{60, func(g *diffGen) *diffStep { return diffS("GET", g.key()) }, false},
		{80, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"SET", g.key(), g.val()}, g.opts([]string{"NX"}, []string{"XX"}, []string{"GET"},
				g.ttlOpt(), g.ttlOpt(), []string{g.pick("nx", "xx", "get", "keepttl", "FOO")}))...)
		}, false},
		{15, func(g *diffGen) *diffStep { return diffS("SETNX", g.key(), g.val()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("SETEX", g.key(), g.ttl(), g.val()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("PSETEX", g.key(), g.pttl(), g.val()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("GETSET", g.key(), g.val()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("GETDEL", g.key()) }, false},
		{25, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"GETEX", g.key()}, g.opts(g.ttlOpt(), []string{"PERSIST"}))...)
		}, false},
		{25, func(g *diffGen) *diffStep { return diffS(diffJ([]string{"MGET"}, g.keys(1, 8))...) }, false},
		{25, func(g *diffGen) *diffStep {
			args := []string{g.pick("MSET", "MSETNX")}
			for n := 1 + g.r.Intn(5); n > 0; n-- {
				args = append(args, g.key(), g.val())
			}
			if g.chance(8) {
				args = args[:len(args)-1] // an odd argument count
			}
			return diffS(args...)
		}, false},
		{25, func(g *diffGen) *diffStep { return diffS("APPEND", g.key(), g.val()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("STRLEN", g.key()) }, false},
		{25, func(g *diffGen) *diffStep { return diffS(g.pick("INCR", "DECR"), g.key()) }, false},
		{25, func(g *diffGen) *diffStep { return diffS(g.pick("INCRBY", "DECRBY"), g.key(), g.num()) }, false},
		{20, func(g *diffGen) *diffStep { return diffS("INCRBYFLOAT", g.key(), g.float()) }, false},
		{25, func(g *diffGen) *diffStep { return diffS(g.pick("GETRANGE", "SUBSTR"), g.key(), g.num(), g.num()) }, false},
		{25, func(g *diffGen) *diffStep {
			off, v := g.num(), g.val()
			if g.chance(2) {
				off = strconv.Itoa(g.r.Intn(300))
			}
			// An offset near 512 MB with a value that fits would make both
			// servers allocate half a gigabyte: keep those values empty.
			if n, err := strconv.ParseInt(off, 10, 64); err == nil && n >= 100_000 && n+int64(len(v)) <= 512<<20 {
				v = ""
			}
			return diffS("SETRANGE", g.key(), off, v)
		}, false},
		{20, func(g *diffGen) *diffStep {
			args := []string{"LCS", g.key(), g.key()}
			args = append(args, g.opts([]string{"LEN"}, []string{"IDX"}, []string{"idx"}, []string{"WITHMATCHLEN"},
				[]string{"MINMATCHLEN", g.num()}, []string{"minmatchlen", strconv.Itoa(g.r.Intn(5))})...)
			return diffS(args...)
		}, false},

		// hashes
		{40, func(g *diffGen) *diffStep {
			args := []string{g.pick("HSET", "HSET", "HMSET"), g.key()}
			for n := 1 + g.r.Intn(4); n > 0; n-- {
				args = append(args, g.field(), g.val())
			}
			if g.chance(10) {
				args = args[:len(args)-1] // an odd argument count
			}
			return diffS(args...)
		}, false},
		{10, func(g *diffGen) *diffStep { return diffS("HSETNX", g.key(), g.field(), g.val()) }, false},
		{25, func(g *diffGen) *diffStep { return diffS("HGET", g.key(), g.field()) }, false},
		{10, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"HMGET", g.key()}, g.fields(1, 4))...)
		}, false},
		{10, func(g *diffGen) *diffStep { return diffS(g.pick("HEXISTS", "HSTRLEN"), g.key(), g.field()) }, false},
		{10, func(g *diffGen) *diffStep { return diffS("HLEN", g.key()) }, false},
		{15, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"HDEL", g.key()}, g.fields(1, 3))...)
		}, false},
		{15, func(g *diffGen) *diffStep {
			// The order of a big hash's fields is its own; a packed hash's is
			// the order the fields came, as in Redis.
			if g.chance(2) {
				return diffM(diffPairs, "HGETALL", g.key())
			}
			return diffM(compatUnordered, g.pick("HKEYS", "HVALS"), g.key())
		}, false},
		{15, func(g *diffGen) *diffStep { return diffS("HINCRBY", g.key(), g.field(), g.num()) }, false},
		{10, func(g *diffGen) *diffStep { return diffS("HINCRBYFLOAT", g.key(), g.field(), g.float()) }, false},
		{10, func(g *diffGen) *diffStep {
			// Fixed: a huge negative count without WITHVALUES makes Redis
			// build a reply it can never finish (corekv refuses counts below
			// -2^20, README).
			args := []string{"HRANDFIELD", g.key()}
			if g.chance(4) {
				return diffM(diffShape, args...)
			}
			count := g.pick("0", "1", "2", "3", "10", "-1", "-3", "-10", "abc", "", "4611686018427387904", "9223372036854775807")
			if g.chance(6) {
				return diffS(append(args, g.pick("-9223372036854775808", "-9223372036854775807", "-4611686018427387904"), "WITHVALUES")...)
			}
			args = append(args, count)
			args = append(args, g.opts([]string{g.pick("WITHVALUES", "withvalues", "FOO")}, []string{"x"})...)
			return diffM(diffShape, args...)
		}, true},
		{5, func(g *diffGen) *diffStep {
			// Whole iterations are sent on their own (hscanAll); here the
			// cursors that are errors, and single pages where both servers
			// answer the whole hash or an error.
			if g.chance(2) {
				cursor := g.pick("abc", "1.5", "18446744073709551616", " 1")
				return diffS(diffJ([]string{"HSCAN", g.key(), cursor}, g.hscanOpts())...)
			}
			return diffM(diffHScanPage, diffJ([]string{"HSCAN", g.key(), "0"}, g.hscanOpts())...)
		}, true},

		// sets: commands over several sets take keys of one hash tag, which
		// corekv keeps on one shard, or any keys, which it gathers from
		// their shards
		{35, func(g *diffGen) *diffStep { return diffS(diffJ([]string{"SADD", g.setKey()}, g.members(1, 5))...) }, false},
		{15, func(g *diffGen) *diffStep { return diffS(diffJ([]string{"SREM", g.setKey()}, g.members(1, 3))...) }, false},
		{10, func(g *diffGen) *diffStep { return diffS("SCARD", g.setKey()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("SISMEMBER", g.setKey(), g.member()) }, false},
		{8, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"SMISMEMBER", g.setKey()}, g.members(1, 4))...)
		}, false},
		{10, func(g *diffGen) *diffStep { return diffM(compatUnordered, "SMEMBERS", g.setKey()) }, false},
		{8, func(g *diffGen) *diffStep {
			// Fixed, as HRANDFIELD: no huge negative count.
			args := []string{"SRANDMEMBER", g.setKey()}
			if !g.chance(4) {
				args = append(args, g.pick("0", "1", "2", "10", "-1", "-3", "abc", "", "9223372036854775807", "-9223372036854775808"))
				args = append(args, g.opts([]string{"x"})...)
			}
			return diffM(diffShape, args...)
		}, true},
		{8, func(g *diffGen) *diffStep {
			// Only the SPOPs whose outcome is not random: all of the set, or
			// none, or an error (fixed: a mutation could drop the count).
			return diffM(compatUnordered, diffJ([]string{"SPOP", g.setKey(), g.pick("0", "1000", "-1", "abc", "")}, g.opts([]string{"x"}))...)
		}, true},
		{10, func(g *diffGen) *diffStep { return diffS("SMOVE", g.tagKey(), g.tagKey(), g.member()) }, true},
		{5, func(g *diffGen) *diffStep { return diffS("SMOVE", g.setKey(), g.setKey(), g.member()) }, true},
		{6, func(g *diffGen) *diffStep {
			keys := make([]string, 1+g.r.Intn(3))
			for i := range keys {
				keys[i] = g.setKey()
			}
			args := diffJ([]string{"SINTERCARD", strconv.Itoa(len(keys))}, keys)
			if g.chance(2) {
				args = append(args, "LIMIT", g.pick("0", "1", "2", "-1", "x"))
			}
			return diffS(args...)
		}, true},
		{15, func(g *diffGen) *diffStep {
			keys := make([]string, 1+g.r.Intn(3))
			key := g.tagKey
			if g.chance(2) {
				key = g.setKey
			}
			for i := range keys {
				keys[i] = key()
			}
			name := g.pick("SINTER", "SUNION", "SDIFF", "SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE")
			if strings.HasSuffix(name, "STORE") {
				return diffS(diffJ([]string{name, key()}, keys)...)
			}
			return diffM(compatUnordered, diffJ([]string{name}, keys)...)
		}, true},
		{4, func(g *diffGen) *diffStep {
			cursor := g.pick("abc", "1.5", "18446744073709551616", " 1")
			return diffS(diffJ([]string{"SSCAN", g.setKey(), cursor}, g.hscanOpts())...)
		}, true},

		// keys
		{25, func(g *diffGen) *diffStep { return diffS(diffJ([]string{g.pick("DEL", "UNLINK")}, g.keys(1, 5))...) }, false},
		{25, func(g *diffGen) *diffStep { return diffS(diffJ([]string{g.pick("EXISTS", "TOUCH")}, g.keys(1, 6))...) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("TYPE", g.key()) }, false},
		{25, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"EXPIRE", g.key(), g.ttl()}, g.expireOpt())...)
		}, false},
		{20, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"PEXPIRE", g.key(), g.pttl()}, g.expireOpt())...)
		}, false},
		{20, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"EXPIREAT", g.key(), g.at()}, g.expireOpt())...)
		}, false},
		{20, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"PEXPIREAT", g.key(), g.pat()}, g.expireOpt())...)
		}, false},
		{20, func(g *diffGen) *diffStep { return diffT(2, "TTL", g.key()) }, false},
		{15, func(g *diffGen) *diffStep { return diffT(2000, "PTTL", g.key()) }, false},
		{15, func(g *diffGen) *diffStep { return diffT(2, "EXPIRETIME", g.key()) }, false},
		{15, func(g *diffGen) *diffStep { return diffT(2000, "PEXPIRETIME", g.key()) }, false},
		{15, func(g *diffGen) *diffStep { return diffS("PERSIST", g.key()) }, false},
		{20, func(g *diffGen) *diffStep { return diffS(g.pick("RENAME", "RENAMENX"), g.key(), g.key()) }, false},
		{20, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"COPY", g.key(), g.key()}, g.opts([]string{"DB", g.db()}, []string{"REPLACE"}))...)
		}, false},
		{15, func(g *diffGen) *diffStep { return diffS("MOVE", g.key(), g.db()) }, false},
		{10, func(g *diffGen) *diffStep { return diffM(diffShape, "DUMP", g.key()) }, false},
		{15, func(g *diffGen) *diffStep {
			ttl := "0"
			var opts []string
			switch g.r.Intn(4) {
			case 0:
				ttl = g.pttl()
			case 1:
				ttl, opts = g.pat(), []string{"ABSTTL"}
			}
			opts = append(opts, g.opts([]string{"REPLACE"}, []string{"IDLETIME", g.pick("0", "10", "-1", "x")},
				[]string{"FREQ", g.pick("0", "255", "256", "x")}, []string{g.pick("ABSTTL", "BOGUS")})...)
			return diffS(diffJ([]string{"RESTORE", g.key(), ttl, g.pick(diffPayloads...)}, opts)...)
		}, false},
		{8, func(g *diffGen) *diffStep { return diffM(compatUnordered, "KEYS", g.pattern()) }, false},
		{10, func(g *diffGen) *diffStep {
			cursor := "0"
			if g.chance(3) {
				cursor = g.pick("1", "17", "-1", "abc", "", "18446744073709551615", "18446744073709551616", "9223372036854775808", "0x1")
			}
			return diffM(diffScanPage, diffJ([]string{"SCAN", cursor}, g.scanOpts())...)
		}, false},
		{8, func(g *diffGen) *diffStep { return diffM(diffRandomKey, "RANDOMKEY") }, false},
		{8, func(g *diffGen) *diffStep { return diffS("DBSIZE") }, false},
		{3, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"FLUSHDB"}, g.opts([]string{g.pick("ASYNC", "SYNC", "async", "FOO")}))...)
		}, false},
		{2, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"FLUSHALL"}, g.opts([]string{g.pick("ASYNC", "SYNC", "sync", "FOO")}))...)
		}, false},
		{20, func(g *diffGen) *diffStep {
			switch g.r.Intn(8) {
			case 0:
				return diffM(diffShape, "OBJECT", "IDLETIME", g.key())
			case 1:
				return diffS("OBJECT", g.pick("FREQ", "REFCOUNT"), g.key())
			case 2:
				return diffM(diffKind, "OBJECT", "HELP")
			case 3:
				return diffS(diffJ([]string{"OBJECT"}, g.opts([]string{g.pick("FOO", "ENCODING", "encoding", "HELP")}, []string{g.key()}))...)
			}
			return diffS("OBJECT", g.pick("ENCODING", "encoding"), g.key())
		}, false},

		// connection and server
		{8, func(g *diffGen) *diffStep { return diffS(diffJ([]string{"PING"}, g.opts([]string{g.val()}))...) }, false},
		{8, func(g *diffGen) *diffStep { return diffS(diffJ([]string{"ECHO"}, g.opts([]string{g.val()}))...) }, false},
		{20, func(g *diffGen) *diffStep { return diffS("SELECT", g.db()) }, false},
		{15, func(g *diffGen) *diffStep { return g.client() }, true},
		{4, func(g *diffGen) *diffStep {
			args := []string{"HELLO"}
			if !g.chance(4) {
				args = append(args, g.pick("2", "3", "3", "4", "1", "abc", "", "-3"))
				args = append(args, g.opts([]string{"AUTH", "default", g.pick("", "pw")}, []string{"SETNAME", g.pick("n", "a b", "")},
					[]string{g.pick("AUTH", "SETNAME", "FOO")})...)
			}
			return diffM(diffShape, args...)
		}, true},
		{4, func(g *diffGen) *diffStep {
			return diffS(diffJ([]string{"AUTH"}, g.opts([]string{g.pick("default", "nobody", "")}, []string{g.pick("pw", "", "x y")}))...)
		}, true},
		{2, func(g *diffGen) *diffStep { return diffS(diffJ([]string{"RESET"}, g.opts([]string{"x"}))...) }, true},
		{1, func(g *diffGen) *diffStep {
			st := diffS(diffJ([]string{"QUIT"}, g.opts([]string{"x"}))...)
			st.quit = true
			return st
		}, true},
		{4, func(g *diffGen) *diffStep {
			switch g.r.Intn(6) {
			case 0:
				return diffM(diffKind, "COMMAND", g.pick("COUNT", "LIST", "HELP", "count"))
			case 1:
				return diffM(diffKind, "COMMAND", g.pick("INFO", "DOCS"), g.pick("get", "set", "foo", "GET"))
			case 2:
				return diffS("COMMAND", g.pick("FOO", "GETKEYS", "COUNT"), g.pick("x", "get"))
			}
			// GETKEYS of a generated command.
			inner := g.command()
			for inner.quit || inner.scanAll || inner.hscan {
				inner = g.command()
			}
			st := diffS(diffJ([]string{"COMMAND", "GETKEYS"}, inner.cmd.args)...)
			if inner.cmd.mode == diffStatus {
				st.cmd.mode = diffStatus // a Redis 7.2 subcommand, unknown to 7.0
			}
			return st
		}, true},
		{8, func(g *diffGen) *diffStep { return g.config() }, true},
		{4, func(g *diffGen) *diffStep { return g.slowlog() }, true},
		{2, func(g *diffGen) *diffStep {
			return diffM(diffKind, diffJ([]string{"INFO"}, g.opts([]string{g.pick("keyspace", "server", "all", "foo", "default")}))...)
		}, true},
		{2, func(g *diffGen) *diffStep {
			return diffM(diffShape, diffJ([]string{g.pick("TIME", "LASTSAVE")}, g.opts([]string{"x"}))...)
		}, true},
		{8, func(g *diffGen) *diffStep {
			switch g.r.Intn(4) {
			case 0:
				return diffM(diffKind, "MEMORY", "HELP")
			case 1:
				return diffS(diffJ([]string{"MEMORY"}, g.opts([]string{g.pick("FOO", "USAGE", "usage")}, []string{g.key()}))...)
			}
			return diffM(diffShape, diffJ([]string{"MEMORY", "USAGE", g.key()}, g.opts([]string{"SAMPLES", g.num()}))...)
		}, true},
		{2, func(g *diffGen) *diffStep {
			switch g.r.Intn(4) {
			case 0:
				return diffM(diffKind, "DEBUG", "HELP")
			case 1:
				return diffS("DEBUG")
			}
			return diffS("DEBUG", "SLEEP", g.pick("0", "0.0", "abc", "-1", ""))
		}, true},
		{10, func(g *diffGen) *diffStep {
			// Unknown commands: the error quotes the name and the first
			// arguments, which may be long or hold CR and LF.
			name := g.pick("FOO", "xyz", "", "GET\r\nPING", "\x00", "\xff\xfe", strings.Repeat("a", 30), strings.Repeat("b", 300),
				"corekv.dump", "corekv.take", "corekv.restore", "get ", "nosuch")
			args := []string{name}
			for n := g.r.Intn(4); n > 0; n-- {
				args = append(args, g.pick("x", "a\r\nb", "", strings.Repeat("c", 200), "\x00", g.key()))
			}
			return diffS(args...)
		}, true},
	}
}

// field is a hash field: a few names often, so that commands meet the same
// fields, sometimes any value (long ones convert the hash).
func (g *diffGen) field() string {
	if g.chance(8) {
		return g.val()
	}
	return g.pick("f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "", "\x00", "a\r\nb", "7")
}

func (g *diffGen) fields(min, max int) []string {
	out := make([]string, min+g.r.Intn(max-min+1))
	for i := range out {
		out[i] = g.field()
	}
	return out
}

func (g *diffGen) hscanOpts() []string {
	return g.opts([]string{"MATCH", g.pick("f*", "*", "f[1-3]", "x", "")}, []string{"COUNT", g.pick("1", "2", "10", "0", "-1", "abc")},
		[]string{g.pick("TYPE", "FOO", "match")})
}

// hscanAll is an HSCAN or SSCAN from cursor 0, iterated to the end.
func (g *diffGen) hscanAll() *diffStep {
	if g.chance(2) {
		return &diffStep{cmd: compatCmd{args: diffJ([]string{"SSCAN", g.setKey(), "0"}, g.hscanOpts())}, hscan: true}
	}
	return &diffStep{cmd: compatCmd{args: diffJ([]string{"HSCAN", g.key(), "0"}, g.hscanOpts())}, hscan: true}
}

// setKey is a key for a set command: often one of a hash tag's keys, so
// that the set commands over several keys find sets there.
func (g *diffGen) setKey() string {
	if g.chance(2) {
		return g.tagKey()
	}
	return g.key()
}

// tagKey is a key of the {t} hash tag, which lives on one shard.
func (g *diffGen) tagKey() string { return g.pick("{t}1", "{t}2", "{t}3", "{t}4") }

// member is a set member: integers often (intsets), a few strings, and
// sometimes any value (long ones convert the set).
func (g *diffGen) member() string {
	switch g.r.Intn(8) {
	case 0:
		return g.val()
	case 1, 2, 3:
		return g.pick("1", "2", "3", "-5", "100", "70000", "5000000000", "9223372036854775807", "-9223372036854775808", "007")
	}
	return g.pick("a", "b", "c", "", "\x00", "1.5")
}

func (g *diffGen) members(min, max int) []string {
	out := make([]string, min+g.r.Intn(max-min+1))
	for i := range out {
		out[i] = g.member()
	}
	return out
}

func (g *diffGen) scanOpts() []string {
	return g.opts([]string{"MATCH", g.pattern()}, []string{"COUNT", g.pick("1", "5", "10", "1000", "0", "-1", "abc", "9223372036854775807")},
		[]string{"TYPE", g.pick("string", "STRING", "list", "hash", "none", "foo")}, []string{g.pick("FOO", "match", "count")})
}

// scanAll is a SCAN from cursor 0 with valid options, iterated to the end.
func (g *diffGen) scanAll() *diffStep {
	args := []string{"SCAN", "0"}
	if g.chance(2) {
		args = append(args, "MATCH", g.pattern())
	}
	if g.chance(2) {
		args = append(args, "COUNT", strconv.Itoa(1+g.r.Intn(20)))
	}
	if g.chance(3) {
		args = append(args, "TYPE", g.pick("string", "STRING", "list", "none"))
	}
	return &diffStep{cmd: compatCmd{args: args, mode: compatScan}, scanAll: true}
}

func (g *diffGen) client() *diffStep {
	switch g.r.Intn(14) {
	case 0:
		return diffS("CLIENT", "SETNAME", g.pick("n1", "n2", "", "a b", "a\nb", "\xff", "x-y"))
	case 1:
		return diffS("CLIENT", "GETNAME")
	case 2:
		return diffM(diffShape, "CLIENT", "ID")
	case 3:
		return diffM(diffKind, diffJ([]string{"CLIENT", g.pick("INFO", "LIST")}, g.opts([]string{"TYPE", g.pick("normal", "pubsub", "foo")},
			[]string{"ID", g.pick("1", "0", "abc", "987654321")}))...)
	case 4:
		// Filters are ANDed: one that matches none of the test's clients
		// (or is refused) keeps them all alive, whatever the others say.
		// MAXAGE is left out: it came with Redis 7.4.
		safe := [][]string{{"ID", g.pick("987654321", "0", "-1", "abc", "99999999999999999999")}, {"ADDR", "192.0.2.1:5"},
			{"LADDR", "192.0.2.1:6"}, {"TYPE", g.pick("pubsub", "master", "replica", "slave", "foo")}, {"USER", "nobody"}}
		args := g.opts(append(safe, []string{"SKIPME", g.pick("yes", "no", "maybe")}, []string{"192.0.2.1:7"})...)
		at := 2 * g.r.Intn(len(args)/2+1)
		args = diffJ(args[:at], safe[g.r.Intn(len(safe))], args[at:])
		return diffS(diffJ([]string{"CLIENT", "KILL"}, args)...)
	case 5:
		return diffS("CLIENT", "KILL", g.pick("192.0.2.1:7", "nonsense", ""))
	case 6:
		// SETINFO and NO-TOUCH come from Redis 7.2 (clients send SETINFO on
		// connect); 7.0 does not know them, so only the reply's form is
		// compared.
		return diffM(diffStatus, "CLIENT", "SETINFO", g.pick("lib-name", "LIB-VER", "foo"), g.pick("go", "a b", "1.0", "", "x\ny"))
	case 7:
		if g.chance(2) {
			return diffM(diffStatus, "CLIENT", "NO-TOUCH", g.pick("on", "OFF", "maybe"))
		}
		return diffS("CLIENT", "NO-EVICT", g.pick("on", "OFF", "maybe"))
	case 8, 9:
		args := []string{"CLIENT", "REPLY", g.pick("ON", "on", "ON", "OFF", "SKIP", "skip", "FOO")}
		if g.chance(10) {
			args = args[:2+g.r.Intn(1)]
		}
		return diffS(args...)
	case 10:
		return diffM(diffKind, "CLIENT", "HELP")
	case 11:
		return diffS(diffJ([]string{"CLIENT"}, g.opts([]string{g.pick("FOO", "SETNAME", "GETNAME", "ID", "a\r\nb")}, []string{"x"}))...)
	}
	return diffS("CLIENT", "REPLY", "ON")
}

// config reads the parameters both servers have, and sets the ones whose
// change does not disturb the test, valid and invalid, one or several at a
// time (a CONFIG SET with one bad value must change nothing).
// slowlog draws a SLOWLOG command. What the log holds depends on how long
// commands took on each server, so GET and LEN are compared by reply type;
// RESET, HELP and the errors exactly.
func (g *diffGen) slowlog() *diffStep {
	switch g.r.Intn(3) {
	case 0:
		return diffS("SLOWLOG", g.pick("RESET", "HELP", "reset", "Help"))
	case 1:
		return diffM(diffKind, diffJ([]string{"SLOWLOG", g.pick("GET", "LEN", "get")}, g.opts([]string{g.pick("0", "1", "-1", "10")}))...)
	}
	bad := [][]string{{"GET", "x"}, {"GET", "-2"}, {"GET", "1", "2"}, {"get", "9223372036854775808"}, {"LEN", "x"},
		{"RESET", "x"}, {"HELP", "x"}, {"NOPE"}, {""}, {}}
	return diffS(diffJ([]string{"SLOWLOG"}, bad[g.r.Intn(len(bad))])...)
}

func (g *diffGen) config() *diffStep {
	switch g.r.Intn(6) {
	case 0, 1:
		args := []string{"CONFIG", "GET"}
		for n := 1 + g.r.Intn(3); n > 0; n-- {
			args = append(args, g.pick("maxclients", "loglevel", "databases", "timeout", "appendonly", "maxmemory",
				"maxmemory-policy", "proto-max-bulk-len", "client-query-buffer-limit", "hz", "save", "client-output-buffer-limit",
				"MAXCLIENTS", "nosuchparam", "hash-max-listpack-entries", "hash-max-ziplist-value", "set-max-intset-entries",
				"list-max-listpack-size", "list-compress-depth", "maxmemory-samples", "maxmemory-eviction-tenacity",
				"lfu-log-factor", "lfu-decay-time", "maxmemory*"))
		}
		return diffM(compatUnordered, args...)
	case 2, 3:
		args := []string{"CONFIG", "SET"}
		for n := 1 + g.r.Intn(3); n > 0; n-- {
			switch g.r.Intn(6) {
			case 5:
				// The eviction's settings; no LFU policy, whose counters
				// grow by chance (OBJECT FREQ is compared exactly).
				switch g.r.Intn(3) {
				case 0:
					args = append(args, "maxmemory-policy", g.pick("noeviction", "allkeys-lru", "VOLATILE-LRU",
						"allkeys-random", "volatile-ttl", "volatile-random", "lru", ""))
				case 1:
					args = append(args, "maxmemory", g.pick("0", "1gb", "64MB", "-1", "abc", "1.5gb", ""))
				default:
					args = append(args, g.pick("maxmemory-samples", "maxmemory-eviction-tenacity", "lfu-log-factor",
						"lfu-decay-time"), g.pick("0", "1", "5", "10", "100", "101", "-1", "x", "2147483648"))
				}
			case 4:
				args = append(args, g.pick("hash-max-listpack-entries", "hash-max-ziplist-entries", "hash-max-listpack-value",
					"hash-max-ziplist-value", "set-max-intset-entries", "list-max-listpack-size", "list-max-ziplist-size"),
					g.pick("0", "1", "2", "4", "16", "64", "512", "-1", "abc", ""))
			case 0:
				args = append(args, "maxclients", g.pick("1000", "5000", "10000", "abc", "0", "-1", "", "1e3"))
			case 1:
				args = append(args, g.pick("loglevel", "LOGLEVEL"), g.pick("notice", "warning", "WARNING", "foo", ""))
			case 2:
				args = append(args, "client-output-buffer-limit", g.pick("normal 0 0 0", "normal 1gb 512mb 60",
					"normal x 0 0", "normal 0 0", "foo 0 0 0", "", "NORMAL 0 0 0"))
			default:
				args = append(args, g.pick("databases", "nosuchparam", "appendonly"), g.pick("1", "0", "no"))
			}
		}
		if g.chance(10) {
			args = args[:len(args)-1]
		}
		return diffS(args...)
	case 4:
		return diffS(diffJ([]string{"CONFIG", g.pick("RESETSTAT", "FOO", "GET", "SET")}, g.opts([]string{"x"}))...)
	}
	return diffM(diffKind, "CONFIG", "HELP")
}

// command draws one command from the table and sometimes spoils its
// arguments: one dropped, one added, one replaced.
func (g *diffGen) command() *diffStep {
	n := g.r.Intn(diffWeightSum)
	var c diffCommand
	for _, c = range diffCommands {
		if n < c.weight {
			break
		}
		n -= c.weight
	}
	st := c.gen(g)
	args := st.cmd.args
	if !c.fixed && g.chance(8) {
		switch g.r.Intn(3) {
		case 0:
			if len(args) > 1 {
				j := 1 + g.r.Intn(len(args)-1)
				args = append(args[:j], args[j+1:]...)
			}
		case 1:
			j := 1 + g.r.Intn(len(args))
			args = append(args[:j], append([]string{g.token()}, args[j:]...)...)
		default:
			if len(args) > 1 {
				args[1+g.r.Intn(len(args)-1)] = g.token()
			}
		}
	}
	if len(args) > 0 {
		args[0] = g.casing(args[0])
	}
	st.cmd.args = args
	diffLoosen(st)
	return st
}

// diffLoosen compares loosely the replies that cannot be equal, whichever
// way the generator or a mutation arrived at the command: help texts, which
// list what each server supports; memory figures; client IDs and lists.
func diffLoosen(st *diffStep) {
	args := st.cmd.args
	if len(args) < 2 || st.cmd.mode != compatExact {
		return
	}
	name, sub := strings.ToLower(args[0]), strings.ToLower(args[1])
	switch {
	case sub == "help" && len(args) == 2:
		st.cmd.mode = diffKind
	case name == "memory" && sub == "usage":
		st.cmd.mode = diffShape
	case name == "client" && sub == "id":
		st.cmd.mode = diffShape
	case name == "client" && (sub == "list" || sub == "info"):
		st.cmd.mode = diffKind
	case name == "object" && sub == "idletime":
		st.cmd.mode = diffShape
	}
}
