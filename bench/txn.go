package main

// The --txn mode: what atomicity across shards costs. Every round starts each server afresh (redis, then corekv
// at each --shards value, 1 and 2 by default, all on the server CPUs) and runs on it:
//
//   - redis-benchmark -t mset (10 random keys, so across shards whenever corekv has more than one) at P=1 and 16;
//   - MULTI; INCR a; INCR b; EXEC from the harness's own load client (redis-benchmark cannot send a block), with
//     two random keys and with two keys of one hash tag, 1 and 16 transactions in flight per connection;
//   - redis-benchmark -t set,get at P=1, 16 and 64, on redis and corekv with 1 shard: the single-shard path.
//
// The load client is this binary run again with txnClientArg, under taskset on the client CPUs, so that it
// stays off the server's CPUs; it prints one JSON line with its figures.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/tabwriter"
	"time"
)

const txnClientArg = "--txn-client" // first argument: run as the MULTI/EXEC load client

var (
	txnMSETPipelines   = []int{1, 16}
	txnDepths          = []int{1, 16} // transactions in flight per connection
	txnSingleTests     = []string{"set", "get"}
	txnSinglePipelines = []int{1, 16, 64}
	txnKeyKinds        = []string{"random", "tag"}
)

// txnTest is the cell test name of MULTI/EXEC runs with keys of kind.
func txnTest(kind string) string { return "exec-" + kind }

// txnFlags are the command-line flags of the --txn mode.
type txnFlags struct {
	on       *bool
	requests *int
}

func addTxnFlags(fs *flag.FlagSet) *txnFlags {
	return &txnFlags{
		on: fs.Bool("txn", false, "only measure transactions: MSET of 10 keys, MULTI/INCR/INCR/EXEC (random keys and "+
			"keys of one hash tag) and single-key SET/GET, on redis and corekv with 1 and 2 shards"),
		requests: fs.Int("txn-requests", 100000, "transactions per MULTI/EXEC run with 1 in flight per connection; "+
			"more in flight get more, like --requests"),
	}
}

// apply sets the --txn mode's presets on cfg: flags given on the command line keep their values.
func (f *txnFlags) apply(cfg *config, set map[string]bool) error {
	if !*f.on {
		return nil
	}
	if cfg.GC || cfg.Expiry || cfg.MemoryOnly || cfg.Scaling {
		return errors.New("--txn excludes --gc, --expiry, --memory and --scaling")
	}
	cfg.Txn, cfg.TxnRequests, cfg.Memory = true, *f.requests, false
	if !set["txn-requests"] {
		switch {
		case cfg.Smoke:
			cfg.TxnRequests = 2000
		case cfg.Quick:
			cfg.TxnRequests = 30000
		}
	}
	if !set["shards"] && !cfg.OnlyRedis {
		cfg.Shards = []int{1, 2}
	}
	if !set["keyspaces"] && !cfg.Smoke {
		cfg.Keyspaces = []int{100000}
	}
	if !set["sizes"] {
		cfg.Sizes = []int{16}
	}
	if cfg.TxnRequests < 1 {
		return errors.New("--txn-requests must be positive")
	}
	return nil
}

// txnCells are the cells target t runs in a --txn round: redis-benchmark cells, then MULTI/EXEC cells.
func txnCells(cfg *config, t target) (bench, txns []cell) {
	mk := func(test string, p, n int) cell {
		return cell{Test: test, Pipeline: p, Clients: cfg.Clients, Keyspace: cfg.Keyspaces[0], Size: cfg.Sizes[0],
			Requests: requestsFor(n, 10*n, p)}
	}
	for _, p := range txnMSETPipelines {
		bench = append(bench, mk("mset", p, cfg.Requests))
	}
	if t.Server == "redis" || t.Shards == 1 {
		for _, test := range txnSingleTests {
			for _, p := range txnSinglePipelines {
				bench = append(bench, mk(test, p, cfg.Requests))
			}
		}
	}
	for _, kind := range txnKeyKinds {
		for _, d := range txnDepths {
			c := mk(txnTest(kind), d, cfg.TxnRequests)
			c.Size = 0
			txns = append(txns, c)
		}
	}
	for i := range bench {
		bench[i].Requests = min(bench[i].Requests, cfg.MaxRequests)
	}
	return bench, txns
}

// runTxn runs every target's cells, cfg.Repeat rounds, each round starting every server afresh.
func runTxn(ctx context.Context, cfg *config, tl *tools, tgs []target, work string,
	stdout io.Writer) (bench, txns []*result, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("the load client runs this program again: %w", err)
	}
	index := map[string]*result{}
	total := 0
	for _, t := range tgs {
		bc, tc := txnCells(cfg, t)
		for i, c := range append(bc, tc...) {
			r := &result{Target: t, Cell: c}
			index[t.label()+"|"+c.String()] = r
			if i < len(bc) {
				bench = append(bench, r)
			} else {
				txns = append(txns, r)
			}
			total += cfg.Repeat
		}
	}
	fmt.Fprintf(stdout, "%d runs on %d servers, %d rounds; server CPUs %s, client CPUs %s\n",
		total, len(tgs), cfg.Repeat, cfg.ServerCPUs, formatCPUList(cfg.clientCPUList))
	defer finish(bench)
	defer finish(txns)
	done := 0
	for round := 1; round <= cfg.Repeat; round++ {
		for _, t := range tgs {
			srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, nil)
			if err != nil {
				return bench, txns, err
			}
			bc, tc := txnCells(cfg, t)
			for i, c := range append(bc, tc...) {
				if err := ctx.Err(); err != nil {
					srv.stop()
					return bench, txns, err
				}
				done++
				var s sample
				if i < len(bc) {
					s = runCell(ctx, cfg, tl, srv, c)
				} else {
					s = runTxnCell(ctx, cfg, tl, exe, srv, c)
				}
				r := index[t.label()+"|"+c.String()]
				r.Samples = append(r.Samples, s)
				fmt.Fprintf(stdout, "[%d/%d] round %d %-9s %-26s %s\n", done, total, round, t.label(), c, s.line())
				if !srv.alive() {
					return bench, txns, fmt.Errorf("%s exited during %s%s", t.label(), c, logTail(srv.logPath))
				}
			}
			srv.stop()
		}
	}
	return bench, txns, nil
}

// txnClientArgv is the load client of c against srv, pinned to the client CPUs.
func txnClientArgv(cfg *config, tl *tools, exe string, srv *server, c cell) []string {
	return []string{tl.Taskset, "-c", formatCPUList(cfg.clientCPUList), exe, txnClientArg,
		"--addr", srv.addr(), "--keys", strings.TrimPrefix(c.Test, "exec-"), "--conns", strconv.Itoa(c.Clients),
		"--depth", strconv.Itoa(c.Pipeline), "--txns", strconv.Itoa(c.Requests), "--keyspace", strconv.Itoa(c.Keyspace),
		"--timeout", cfg.CellTimeout.String()}
}

// runTxnCell flushes srv and runs the load client once for c, reading the CPU time of both sides.
func runTxnCell(ctx context.Context, cfg *config, tl *tools, exe string, srv *server, c cell) sample {
	argv := txnClientArgv(cfg, tl, exe, srv, c)
	s := sample{Command: shellJoin(argv)}
	fail := func(err error) sample {
		s.Error = err.Error()
		return s
	}
	if err := flushAll(srv.addr()); err != nil {
		return fail(err)
	}
	// A second beyond the client's own bound, which it reports itself.
	cctx, cancel := context.WithTimeout(ctx, cfg.CellTimeout+time.Second)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var stdoutBuf, stderrBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdoutBuf, &stderrBuf
	cpu0, err := cpuSeconds(srv.pid())
	if err != nil {
		return fail(err)
	}
	t0 := time.Now()
	err = cmd.Run()
	s.WallS = time.Since(t0).Seconds()
	cpu1, cpuErr := cpuSeconds(srv.pid())
	if err != nil {
		return fail(fmt.Errorf("load client: %v: %s", err, tail(stderrBuf.String())))
	}
	if cpuErr != nil {
		return fail(cpuErr)
	}
	var o txnOutput
	if err := json.Unmarshal(stdoutBuf.Bytes(), &o); err != nil || o.Txns < 1 || o.Seconds <= 0 {
		return fail(fmt.Errorf("load client printed %q (%v)", tail(stdoutBuf.String()), err))
	}
	s.RPS, s.AvgMs, s.P50Ms, s.P95Ms, s.P99Ms, s.P999Ms, s.MaxMs = float64(o.Txns)/o.Seconds, o.AvgMs, o.P50Ms,
		o.P95Ms, o.P99Ms, o.P999Ms, o.MaxMs
	// As for redis-benchmark: CPU shares over the time the client measured, not its start.
	s.BenchS = min(o.Seconds, s.WallS)
	s.ServerCPU = (cpu1 - cpu0) / s.BenchS
	st := cmd.ProcessState
	s.ClientCPU = (st.UserTime() + st.SystemTime()).Seconds() / s.BenchS
	return s
}

// txnLoadOpts is one run of the load client.
type txnLoadOpts struct {
	Addr     string
	Keys     string // "random": two random keys; "tag": two keys of one random hash tag
	Conns    int
	Depth    int // transactions written together on a connection before their replies are read
	Txns     int // transactions in all, rounded down to whole batches of every connection (at least one)
	Keyspace int
	Timeout  time.Duration
}

// txnOutput is what the load client prints, as one JSON line.
type txnOutput struct {
	Txns    int     `json:"txns"`
	Seconds float64 `json:"seconds"` // from the first batch written to the last reply read
	AvgMs   float64 `json:"avg_ms"`  // latencies: from writing a batch to reading its last reply
	P50Ms   float64 `json:"p50_ms"`
	P95Ms   float64 `json:"p95_ms"`
	P99Ms   float64 `json:"p99_ms"`
	P999Ms  float64 `json:"p999_ms"`
	MaxMs   float64 `json:"max_ms"`
}

// parseTxnClientArgs reads the load client's command line (what follows txnClientArg).
func parseTxnClientArgs(args []string) (txnLoadOpts, error) {
	var o txnLoadOpts
	fs := flag.NewFlagSet(txnClientArg, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.Addr, "addr", "", "server address")
	fs.StringVar(&o.Keys, "keys", "random", "random or tag")
	fs.IntVar(&o.Conns, "conns", 50, "connections")
	fs.IntVar(&o.Depth, "depth", 1, "transactions in flight per connection")
	fs.IntVar(&o.Txns, "txns", 10000, "transactions in all")
	fs.IntVar(&o.Keyspace, "keyspace", 100000, "random numbers in keys")
	fs.DurationVar(&o.Timeout, "timeout", time.Minute, "bound on the run")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.Addr == "":
		return o, errors.New("--addr is required")
	case o.Keys != "random" && o.Keys != "tag":
		return o, fmt.Errorf("--keys %q: want random or tag", o.Keys)
	case o.Conns < 1 || o.Depth < 1 || o.Txns < 1 || o.Keyspace < 2 || o.Timeout <= 0:
		return o, errors.New("--conns, --depth, --txns and --timeout must be positive, --keyspace at least 2")
	}
	return o, nil
}

// txnClientMain is the load client's main: it returns the exit status.
func txnClientMain(args []string, stdout, stderr io.Writer) int {
	o, err := parseTxnClientArgs(args)
	if err != nil {
		fmt.Fprintln(stderr, "txn client:", err)
		return 2
	}
	out, err := txnLoad(o)
	if err != nil {
		fmt.Fprintln(stderr, "txn client:", err)
		return 1
	}
	js, _ := json.Marshal(out)
	fmt.Fprintf(stdout, "%s\n", js)
	return 0
}

// txnLoad connects o.Conns connections, then has each write batches of o.Depth transactions and check every
// reply, until all o.Txns are answered. The first error, or o.Timeout, ends the run.
func txnLoad(o txnLoadOpts) (txnOutput, error) {
	batches := max(1, o.Txns/(o.Conns*o.Depth))
	deadline := time.Now().Add(o.Timeout)
	conns := make([]net.Conn, 0, o.Conns)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range o.Conns {
		c, err := net.DialTimeout("tcp", o.Addr, time.Until(deadline))
		if err != nil {
			return txnOutput{}, err
		}
		c.SetDeadline(deadline)
		conns = append(conns, c)
	}
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
		start    = make(chan struct{})
		lat      = make([][]time.Duration, len(conns))
	)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			lat[i], err = txnConnLoad(c, start, o, batches, uint64(i))
			if err != nil {
				once.Do(func() {
					firstErr = err
					// The others stop at their next read or write.
					for _, c := range conns {
						c.SetDeadline(time.Now())
					}
				})
			}
		}()
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	if firstErr != nil {
		if time.Now().After(deadline) {
			return txnOutput{}, fmt.Errorf("not done within %v: %w", o.Timeout, firstErr)
		}
		return txnOutput{}, firstErr
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	out := latencySummary(all)
	out.Txns, out.Seconds = batches*o.Conns*o.Depth, elapsed.Seconds()
	return out, nil
}

// txnConnLoad runs batches of o.Depth transactions on c once start is closed and returns the latency of each.
func txnConnLoad(c net.Conn, start <-chan struct{}, o txnLoadOpts, batches int, seed uint64) ([]time.Duration, error) {
	rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	r := bufio.NewReaderSize(c, 16<<10)
	lat := make([]time.Duration, 0, batches)
	var buf []byte
	<-start
	for range batches {
		buf = buf[:0]
		for range o.Depth {
			buf = appendTxn(buf, o.Keys == "tag", rng.IntN(o.Keyspace), rng.IntN(o.Keyspace-1))
		}
		t0 := time.Now()
		if _, err := c.Write(buf); err != nil {
			return lat, err
		}
		if err := checkTxnReplies(r, o.Depth); err != nil {
			return lat, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// appendTxn appends MULTI; INCR k1; INCR k2; EXEC. Random keys are txn:a and txn:b, b drawn from one number
// fewer so that the two differ; tagged keys are {ta}a and {ta}b, one shard's.
func appendTxn(dst []byte, tag bool, a, b int) []byte {
	var k1, k2 [32]byte
	var key1, key2 []byte
	if tag {
		key1 = append(strconv.AppendInt(append(k1[:0], "{t"...), int64(a), 10), "}a"...)
		key2 = append(strconv.AppendInt(append(k2[:0], "{t"...), int64(a), 10), "}b"...)
	} else {
		if b >= a {
			b++
		}
		key1 = strconv.AppendInt(append(k1[:0], "txn:"...), int64(a), 10)
		key2 = strconv.AppendInt(append(k2[:0], "txn:"...), int64(b), 10)
	}
	dst = append(dst, "*1\r\n$5\r\nMULTI\r\n"...)
	for _, k := range [][]byte{key1, key2} {
		dst = append(dst, "*2\r\n$4\r\nINCR\r\n$"...)
		dst = strconv.AppendInt(dst, int64(len(k)), 10)
		dst = append(dst, "\r\n"...)
		dst = append(dst, k...)
		dst = append(dst, "\r\n"...)
	}
	return append(dst, "*1\r\n$4\r\nEXEC\r\n"...)
}

// checkTxnReplies reads the replies to n transactions of appendTxn: +OK, +QUEUED, +QUEUED and an array of
// exactly two integers. Anything else is an error that names it.
func checkTxnReplies(r *bufio.Reader, n int) error {
	for i := range n {
		for _, want := range []string{"+OK", "+QUEUED", "+QUEUED"} {
			line, err := replyLine(r)
			if err != nil {
				return err
			}
			if string(line) != want {
				return fmt.Errorf("transaction %d: %q where %s was due", i, line, want)
			}
		}
		line, err := replyLine(r)
		if err != nil {
			return err
		}
		if string(line) != "*2" {
			return fmt.Errorf("transaction %d: EXEC answered %q, not an array of 2", i, line)
		}
		for range 2 {
			line, err := replyLine(r)
			if err != nil {
				return err
			}
			if len(line) < 2 || line[0] != ':' {
				return fmt.Errorf("transaction %d: EXEC element %q is not an integer", i, line)
			}
			if _, err := strconv.ParseInt(string(line[1:]), 10, 64); err != nil {
				return fmt.Errorf("transaction %d: EXEC element %q is not an integer", i, line)
			}
		}
	}
	return nil
}

// replyLine is the next CRLF-terminated line of r, without the CRLF; a line longer than r's buffer is an error.
func replyLine(r *bufio.Reader) ([]byte, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("reply line longer than %d bytes", r.Size())
		}
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if len(line) < 2 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("reply line %q does not end in CRLF", line)
	}
	return line[:len(line)-2], nil
}

// latencySummary is the average, percentiles and maximum of lat, in ms; each percentile is the smallest latency
// that at least that share of lat does not exceed.
func latencySummary(lat []time.Duration) txnOutput {
	var o txnOutput
	if len(lat) == 0 {
		return o
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	// Integer arithmetic, so that 99.9% of 1000 is exactly the 999th.
	pct := func(perMille int) float64 {
		k := (len(lat)*perMille + 999) / 1000
		return ms(lat[max(k, 1)-1])
	}
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	o.AvgMs = ms(sum / time.Duration(len(lat)))
	o.P50Ms, o.P95Ms, o.P99Ms, o.P999Ms, o.MaxMs = pct(500), pct(950), pct(990), pct(999), ms(lat[len(lat)-1])
	return o
}

// acrossShards is the expected share of transactions of test whose keys live on different shards of t. Key to
// shard hashing is seeded per process and not visible from outside, so it is the expectation of a uniform
// hash: 1 - 1/shards for two random keys (and MSET's ten keys almost always), none for one hash tag.
func acrossShards(t target, test string) string {
	switch {
	case t.Server != "corekv":
		return "-"
	case t.Shards < 2 || test == txnTest("tag") || test == "set" || test == "get":
		return "0%"
	case test == "mset":
		// Ten keys on one shard out of k: k × (1/k)^10.
		p := 1.0
		for range 9 {
			p /= float64(t.Shards)
		}
		return fmt.Sprintf("%.1f%%", 100*(1-p))
	}
	return fmt.Sprintf("about %.0f%%", 100*(1-1/float64(t.Shards)))
}

// txnRows gathers the medians of every cell of a --txn run by cell, in the order they ran.
func txnRows(rep *report) ([]cell, map[cell]map[target]summary) {
	var order []cell
	by := map[cell]map[target]summary{}
	for _, rs := range [][]*result{rep.Results, rep.Txn} {
		for _, r := range rs {
			if by[r.Cell] == nil {
				by[r.Cell] = map[target]summary{}
				order = append(order, r.Cell)
			}
			by[r.Cell][r.Target] = r.Median
		}
	}
	return order, by
}

// txnCellName names a cell of the --txn report.
func txnCellName(c cell) string {
	switch c.Test {
	case txnTest("random"):
		return fmt.Sprintf("MULTI/EXEC random keys, %d in flight", c.Pipeline)
	case txnTest("tag"):
		return fmt.Sprintf("MULTI/EXEC one hash tag, %d in flight", c.Pipeline)
	}
	return fmt.Sprintf("%s P=%d", strings.ToUpper(c.Test), c.Pipeline)
}

// writeTxn is the "Transactions" section of a --txn run.
func writeTxn(w io.Writer, rep *report) {
	cfg := rep.Config
	fmt.Fprint(w, "## Transactions\n\n")
	fmt.Fprintf(w, "Every round starts each server afresh and runs, one after the other: `redis-benchmark -t mset` "+
		"(10 keys `key:__rand_int__` per MSET) at P=%s; `-t set,get` at P=%s on redis and corekv with 1 shard "+
		"(preloaded for GET); and MULTI/EXEC blocks from the harness's load client:\n\n```\ntaskset -c %s bench "+
		"%s --addr 127.0.0.1:PORT --keys random|tag --conns %d --depth 1|16 --txns N --keyspace %d\n```\n\n",
		joinInts(txnMSETPipelines), joinInts(txnSinglePipelines), formatCPUList(cfg.clientCPUList), txnClientArg,
		cfg.Clients, cfg.Keyspaces[0])
	fmt.Fprintf(w, "Each connection writes a batch of `depth` transactions `MULTI; INCR k1; INCR k2; EXEC` and "+
		"reads their replies, checking every one (+OK, +QUEUED, +QUEUED, an array of two integers); N = %d at "+
		"depth 1, %d at depth 16. *random*: `txn:<a>` and `txn:<b>`, two different numbers below %d; *tag*: "+
		"`{t<a>}a` and `{t<a>}b`, always one shard, but the connection's own only 1 time in k of k shards (the others "+
		"lock their keys there). Latency is a batch's, from its write to its last reply. "+
		"*across shards* is the expected share of requests whose keys live on different shards: the key to shard "+
		"hash is seeded per process and corekv does not show it, so the share is that of a uniform hash (two random "+
		"keys on 2 shards: half; ten: all but 1/512). Per-core figures are req/s (MULTI/EXEC: transactions/s) "+
		"÷ the server's CPU share; ratios are corekv / redis of the same cell in the same run.\n\n",
		requestsFor(cfg.TxnRequests, 10*cfg.TxnRequests, 1), requestsFor(cfg.TxnRequests, 10*cfg.TxnRequests, 16),
		cfg.Keyspaces[0])

	order, by := txnRows(rep)
	var redis target
	var kvs []target
	for _, t := range rep.Targets {
		if t.Server == "redis" {
			redis = t
		} else {
			kvs = append(kvs, t)
		}
	}
	fmt.Fprint(w, "| cell | redis /s |")
	for _, t := range kvs {
		fmt.Fprintf(w, " %s /s |", t.label())
	}
	fmt.Fprint(w, " redis per core |")
	for _, t := range kvs {
		fmt.Fprintf(w, " %s per core | per core / redis | across shards |", t.label())
	}
	fmt.Fprint(w, "\n|---|--:|"+strings.Repeat("--:|", len(kvs))+"--:|"+strings.Repeat("--:|--:|--:|", len(kvs))+"\n")
	for _, c := range order {
		row := by[c]
		fmt.Fprintf(w, "| %s | %s |", txnCellName(c), groupDigits(row[redis].RPS))
		for _, t := range kvs {
			fmt.Fprintf(w, " %s |", groupDigits(row[t].RPS))
		}
		fmt.Fprintf(w, " %s |", groupDigits(row[redis].RPSPerCore))
		for _, t := range kvs {
			m, ok := row[t]
			if !ok {
				fmt.Fprint(w, " | | |")
				continue
			}
			fmt.Fprintf(w, " %s | **%s** | %s |", groupDigits(m.RPSPerCore), fmtRatio(ratio(m.RPSPerCore,
				row[redis].RPSPerCore)), acrossShards(t, c.Test))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)

	fmt.Fprint(w, "MULTI/EXEC, all figures (medians; every run is in the JSON, `txn[].samples`):\n\n")
	fmt.Fprint(w, "| keys | in flight | server | tx/s | p50 ms | p99 ms | p99.9 ms | server CPU | tx/s per core | client CPU | runs |\n")
	fmt.Fprint(w, "|---|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rep.Txn {
		md := r.Median
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %.0f%% | %s | %.0f%% | %d/%d |\n",
			strings.TrimPrefix(r.Cell.Test, "exec-"), r.Cell.Pipeline, r.Target.label(), groupDigits(md.RPS),
			fmtMs(md.P50Ms), fmtMs(md.P99Ms), fmtMs(md.P999Ms), 100*md.ServerCPU, groupDigits(md.RPSPerCore),
			100*md.ClientCPU, md.Runs, len(r.Samples))
	}
	fmt.Fprintln(w)
	writeFailures(w, rep.Txn)
}

// printTxn writes the per-core table of a --txn run to w.
func printTxn(w io.Writer, rep *report) {
	order, by := txnRows(rep)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "cell\t")
	for _, t := range rep.Targets {
		fmt.Fprintf(tw, "%s /s\tper core\t", t.label())
	}
	fmt.Fprintln(tw)
	for _, c := range order {
		fmt.Fprintf(tw, "%s\t", txnCellName(c))
		for _, t := range rep.Targets {
			m := by[c][t]
			fmt.Fprintf(tw, "%s\t%s\t", groupDigits(m.RPS), groupDigits(m.RPSPerCore))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
