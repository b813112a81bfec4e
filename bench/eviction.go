package main

// The --eviction mode: both servers at the same maxmemory. For every target (redis, corekv at each --shards value)
// and policy, on fresh servers:
//
//  1. SET at the cap: redis-benchmark SET -r 10000000 -d 100 (P=16) until INFO stats shows evicted_keys > 0,
//     then the timed cells at P=1 and P=16; error replies counted from INFO stats around each cell. The same
//     cells without maxmemory (after as many SETs as the capped fill took) give the at-cap/uncapped ratio.
//  2. Memory: INFO memory used_memory and VmRSS every evictMemPoll during the capped fill and cells.
//  3. Hit ratio, for the allkeys-* policies: redis-cli --lru-test, and a Zipf read-through cache workload of the
//     harness's own (GET; on a miss SET) with periodic scans of cold keys; each at the same maxmemory for both
//     servers, and at the maxmemory at which each server holds the same number of keys.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

const (
	evictSize       = 100        // value bytes of the SET cells and of the Zipf workload
	evictKeyspace   = 10_000_000 // -r of the SET cells
	evictTTL        = "1000000"  // seconds: the TTL of the volatile-* policies' SETs, longer than any run
	evictFillP      = 16         // pipeline of the redis-benchmark fill before the capped cells
	evictFillChunks = 60         // bound on the fill's redis-benchmark runs
	evictMemPoll    = 250 * time.Millisecond
	evictSettle     = 300 * time.Millisecond // after a start or a load, before RSS or used_memory is read
	evictUsedBound  = 1.02                   // target: max used_memory / maxmemory
	evictRSSFactor  = 1.15                   // target: max RSS <= this x maxmemory + the empty server's RSS
	evictLRUValue   = "xxxxx"                // redis-cli --lru-test writes values of 5 bytes
	evictLRUKeySize = 64                     // bytes a --lru-test key is taken to need, to size its universe
	evictHeldShare  = 4                      // equal key count: each server holds universe / this many keys
	evictZipfTheta  = 0.99
	evictConns      = 4   // connections of the Zipf workload
	evictDepth      = 16  // GETs in flight on each
	evictWarmup     = 0.2 // share of the Zipf requests not counted
	evictScans      = 5   // scan bursts over a Zipf run
	evictScanShare  = 5   // all bursts together read requests / this many cold keys
	evictLoadConns  = 4   // connections of the harness's fills
)

// evictSetEX names the SET of the volatile-* policies' cells: every key gets a TTL longer than the run, or a
// volatile policy finds nothing to evict and refuses the write. It is a point test, so that runBenchmark sends
// its command line in place of -t; the name holds a space, which --tests refuses, so no matrix cell can name it.
const evictSetEX = "set ex"

func init() {
	pointTests[evictSetEX] = pointTest{command: []string{"SET", "key:__rand_int__", strings.Repeat("x", evictSize),
		"EX", evictTTL}}
}

// evictPipelines are the pipeline depths of the timed SET cells.
var evictPipelines = []int{1, 16}

var evictPolicies = []string{"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu",
	"volatile-random", "volatile-ttl", "noeviction"}

// evictionConfig holds the --eviction flags.
type evictionConfig struct {
	MaxMemory int64         `json:"maxmemory"`
	Policies  []string      `json:"policies"`
	HitKeys   int           `json:"hit_keys"`      // the Zipf workload's universe
	Requests  int           `json:"requests"`      // GETs of a Zipf run, warm-up included, scans not
	LRUTest   time.Duration `json:"lru_test_ns"`   // how long redis-cli --lru-test runs; 0: not at all
	LRUKeys   int           `json:"lru_test_keys"` // its universe: about 3 x what fits in maxmemory
}

type evictionFlags struct {
	on                  *bool
	maxmemory, policies *string
	hitKeys, requests   *int
	lruTest             *time.Duration
}

func addEvictionFlags(fs *flag.FlagSet) *evictionFlags {
	return &evictionFlags{
		on: fs.Bool("eviction", false, "only measure eviction at maxmemory: SET at the cap per policy and uncapped, "+
			"used_memory and RSS during it, hit ratios of redis-cli --lru-test and a Zipf read-through cache "+
			"(redis and corekv, --shards 1,2)"),
		maxmemory: fs.String("eviction-maxmemory", "64mb", "the maxmemory of --eviction (Redis units: 64mb, 1gb, bytes)"),
		policies: fs.String("eviction-policies", "allkeys-lru,allkeys-lfu,allkeys-random", "maxmemory policies of "+
			"--eviction; volatile-* SET with a TTL, noeviction gets a fill and its refusal only; hit ratios for allkeys-* only"),
		hitKeys:  fs.Int("eviction-hit-keys", 1000000, "key universe of the --eviction Zipf workload (100-byte values)"),
		requests: fs.Int("eviction-requests", 300000, "GETs of one --eviction Zipf run, the warm-up fifth included"),
		lruTest:  fs.Duration("eviction-lru-test", 10*time.Second, "how long --eviction runs redis-cli --lru-test (0: not at all)"),
	}
}

// apply sets cfg.Eviction; --shards defaults to 1,2, --repeat to 1 and --requests to 100000 in this mode.
func (f *evictionFlags) apply(cfg *config, set map[string]bool) error {
	if !*f.on {
		return nil
	}
	if cfg.GC || cfg.Expiry || cfg.MemoryOnly || cfg.Scaling || cfg.Txn || cfg.FirstRun || cfg.PubSub || cfg.Blocking ||
		cfg.Snapshot != nil || cfg.AOF != nil {
		return errors.New("--eviction excludes the other modes")
	}
	e := &evictionConfig{HitKeys: *f.hitKeys, Requests: *f.requests, LRUTest: *f.lruTest}
	mm, policies := *f.maxmemory, *f.policies
	if cfg.Smoke {
		if !set["eviction-maxmemory"] {
			mm = "8mb"
		}
		if !set["eviction-policies"] {
			policies = "allkeys-lru"
		}
		if !set["eviction-hit-keys"] {
			e.HitKeys = 100000
		}
		if !set["eviction-requests"] {
			e.Requests = 20000
		}
		if !set["eviction-lru-test"] {
			e.LRUTest = 2 * time.Second
		}
		if !set["timeout"] {
			cfg.Timeout = 3 * time.Minute
		}
	}
	var err error
	if e.MaxMemory, err = parseMemory(mm); err != nil || e.MaxMemory < 1<<20 {
		return fmt.Errorf("--eviction-maxmemory: %q is not a size of 1mb or more", mm)
	}
	for _, p := range splitList(policies) {
		if !contains(evictPolicies, p) {
			return fmt.Errorf("--eviction-policies: %q is not one of %s", p, strings.Join(evictPolicies, ", "))
		}
		if !contains(e.Policies, p) {
			e.Policies = append(e.Policies, p)
		}
	}
	if len(e.Policies) == 0 || e.HitKeys < 1000 || e.Requests < 100 || e.LRUTest < 0 {
		return errors.New("--eviction-policies needs a policy, --eviction-hit-keys at least 1000, " +
			"--eviction-requests at least 100, --eviction-lru-test no less than 0")
	}
	e.LRUKeys = int(3 * e.MaxMemory / evictLRUKeySize)
	cfg.Eviction, cfg.Memory = e, false
	if !set["shards"] && !cfg.OnlyRedis {
		cfg.Shards = []int{1, 2}
	}
	if !set["repeat"] {
		cfg.Repeat = 1
	}
	if !set["requests"] {
		cfg.Requests = 100000
		if cfg.Smoke {
			cfg.Requests = 5000
		}
	}
	if !set["max-requests"] {
		cfg.MaxRequests = 10 * cfg.Requests
	}
	if !set["clients"] {
		cfg.Clients = 50
	}
	return nil
}

// parseMemory reads a size as Redis's configuration does: a number of bytes, or with k, kb, m, mb, g, gb
// (k = 1000, kb = 1024), any case.
func parseMemory(s string) (int64, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	i := len(s)
	for i > 0 && (s[i-1] < '0' || s[i-1] > '9') {
		i--
	}
	mult, ok := map[string]int64{"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1000 * 1000, "mb": 1 << 20,
		"g": 1000 * 1000 * 1000, "gb": 1 << 30}[s[i:]]
	n, err := strconv.ParseInt(s[:i], 10, 64)
	if !ok || err != nil || n < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return n * mult, nil
}

func contains[T comparable](xs []T, x T) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// evicting reports whether policy frees memory for a write, so that no write may be refused under it.
func evicting(policy string) bool { return policy != "" && policy != "noeviction" }

// evictForm is the SET the cells of policy send: with a TTL for the volatile-* policies.
func evictForm(policy string) string {
	if strings.HasPrefix(policy, "volatile-") {
		return evictSetEX
	}
	return "set"
}

// evictMemPoint is one look at a server's memory during the capped load.
type evictMemPoint struct {
	AtS  float64 `json:"at_s"`
	Used int64   `json:"used_memory"`
	RSS  int64   `json:"rss"`
}

// evictSetRun is one target under one policy ("" uncapped), one round: the fill, the SET cells and the memory.
type evictSetRun struct {
	Target target `json:"target"`
	Round  int    `json:"round"`
	Policy string `json:"policy"` // "" for no maxmemory
	Form   string `json:"form"`   // the cells' test: set, or "set ex" (SET ... EX) for volatile-*
	Error  string `json:"error,omitempty"`

	EmptyRSS  int64    `json:"empty_rss_bytes"` // VmRSS evictSettle after the start
	EmptyUsed int64    `json:"empty_used_memory"`
	FillSETs  int      `json:"fill_sets"` // SETs sent before the cap showed: evicted_keys > 0, or a refusal
	FillS     float64  `json:"fill_s"`
	Samples   []sample `json:"samples"` // P=1, P=16
	// ErrorReplies and Evicted are the deltas of INFO stats total_error_replies and evicted_keys over each
	// cell; -1 where the server has no such field.
	ErrorReplies []int64         `json:"error_replies"`
	Evicted      []int64         `json:"evicted"`
	Keys         int64           `json:"keys"` // DBSIZE after the cells
	MaxUsed      int64           `json:"max_used_memory"`
	MaxRSS       int64           `json:"max_rss_bytes"`
	Memory       []evictMemPoint `json:"memory,omitempty"`    // capped runs only
	OOMReply     string          `json:"oom_reply,omitempty"` // noeviction: the reply to a SET at the cap
}

// evictHitRun is one hit-ratio measurement: one workload on a fresh target at one basis.
type evictHitRun struct {
	Target   target `json:"target"`
	Round    int    `json:"round"`
	Policy   string `json:"policy"`
	Workload string `json:"workload"` // "zipf" or "lru-test"
	Basis    string `json:"basis"`    // "memory": the same maxmemory; "keys": the maxmemory holding the same keys
	Error    string `json:"error,omitempty"`

	MaxMemory  int64    `json:"maxmemory"`
	FilledKeys int      `json:"filled_keys"` // keys the harness SET before the workload
	Keys       int64    `json:"keys"`        // DBSIZE after it
	Gets       int64    `json:"gets"`        // counted GETs: after the warm-up, scans left out
	Hits       int64    `json:"hits"`
	HitPct     float64  `json:"hit_pct"`
	ScanGets   int64    `json:"scan_gets,omitempty"`
	ScanHits   int64    `json:"scan_hits,omitempty"`
	Sets       int64    `json:"sets,omitempty"` // the read-through's SETs after misses
	Evicted    int64    `json:"evicted"`        // during the workload; -1: no such field
	Errors     int64    `json:"error_replies"`  // server's count during the workload; -1: no such field
	Seconds    float64  `json:"seconds"`
	LRULines   []string `json:"lru_test_lines,omitempty"` // what redis-cli printed, one line a second
}

// evictionReport is the JSON of an --eviction run.
type evictionReport struct {
	Machine machine        `json:"machine"`
	Config  *config        `json:"config"`
	Command string         `json:"command"`
	Started time.Time      `json:"started"`
	Set     []*evictSetRun `json:"set"`
	Hit     []*evictHitRun `json:"hit"`
}

// evictTools are the programs --lru-test needs besides the harness's.
type evictTools struct{ redisCLI, stdbuf string }

func runEviction(ctx context.Context, cfg *config, tl *tools, work, root string, stdout io.Writer) error {
	ec := cfg.Eviction
	var et evictTools
	if ec.LRUTest > 0 {
		var err1, err2 error
		et.redisCLI, err1 = exec.LookPath("redis-cli")
		et.stdbuf, err2 = exec.LookPath("stdbuf")
		if err := errors.Join(err1, err2); err != nil {
			return fmt.Errorf("--eviction-lru-test needs redis-cli and stdbuf (or --eviction-lru-test 0): %w", err)
		}
	}
	rep := &evictionReport{Config: cfg, Started: time.Now(), Machine: describeMachine(ctx, tl, root, cfg),
		Command: "go run ./bench " + shellJoin(os.Args[1:])}
	tgs := targets(cfg)
	fmt.Fprintf(stdout, "eviction at maxmemory %s (%d bytes); policies %s; server CPUs %s, client CPUs %s\n",
		humanBytes(ec.MaxMemory), ec.MaxMemory, strings.Join(ec.Policies, ","), cfg.ServerCPUs, cfg.ClientCPUs)
	forms := evictForms(ec)
	var runErr error
rounds:
	for round := range cfg.Repeat {
		// Capped runs first: the uncapped run of a form fills as many SETs as its first capped run did.
		fills := map[string]int{}
		for _, p := range ec.Policies {
			for _, t := range roundOrder(tgs, round) {
				if runErr = ctx.Err(); runErr != nil {
					break rounds
				}
				r := measureEvictSet(ctx, cfg, tl, t, p, 0, work)
				r.Round = round
				rep.Set = append(rep.Set, r)
				fmt.Fprintln(stdout, r.line(ec))
				if k := t.label() + "|" + r.Form; r.Error == "" && fills[k] == 0 {
					fills[k] = r.FillSETs
				}
			}
		}
		for _, f := range forms {
			for _, t := range roundOrder(tgs, round) {
				if runErr = ctx.Err(); runErr != nil {
					break rounds
				}
				n := fills[t.label()+"|"+f]
				if n == 0 {
					n = int(ec.MaxMemory / (evictSize + 60))
				}
				r := measureEvictSet(ctx, cfg, tl, t, "", n, work)
				r.Form, r.Round = f, round
				rep.Set = append(rep.Set, r)
				fmt.Fprintln(stdout, r.line(ec))
			}
		}
		for _, p := range ec.Policies {
			if !strings.HasPrefix(p, "allkeys-") {
				continue
			}
			for _, w := range []string{"zipf", "lru-test"} {
				if w == "lru-test" && ec.LRUTest == 0 {
					continue
				}
				for _, basis := range []string{"memory", "keys"} {
					for _, t := range roundOrder(tgs, round) {
						if runErr = ctx.Err(); runErr != nil {
							break rounds
						}
						r := measureEvictHit(ctx, cfg, tl, et, t, p, w, basis, work)
						r.Round = round
						rep.Hit = append(rep.Hit, r)
						fmt.Fprintln(stdout, r.line())
					}
				}
			}
		}
	}
	switch {
	case errors.Is(runErr, context.DeadlineExceeded):
		runErr = fmt.Errorf("stopped at --timeout %v", cfg.Timeout)
	case errors.Is(runErr, context.Canceled):
		runErr = errors.New("interrupted")
	}
	out := cfg.Out
	switch {
	case cfg.TempOut:
		var err error
		if out, err = os.MkdirTemp("", "corekv-bench-report-"); err != nil {
			return errors.Join(runErr, err)
		}
	case out == "":
		out = filepath.Join(root, "bench", "results")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return errors.Join(runErr, err)
	}
	base := filepath.Join(out, time.Now().UTC().Format("2006-01-02")+"-vm-eviction")
	js, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(base+".json", append(js, '\n'), 0o644)
	}
	tables := evictionTables(rep, tgs)
	errs := []error{err, os.WriteFile(base+".md", []byte(evictionMarkdown(rep, runErr)+tables), 0o644)}
	fmt.Fprintln(stdout)
	fmt.Fprint(stdout, tables)
	fmt.Fprintln(stdout, "wrote", base+".md")
	fmt.Fprintln(stdout, "wrote", base+".json")
	failed, all := 0, len(rep.Set)+len(rep.Hit)
	for _, r := range rep.Set {
		if r.Error != "" {
			failed++
		}
	}
	for _, r := range rep.Hit {
		if r.Error != "" {
			failed++
		}
	}
	if failed > 0 && runErr == nil {
		runErr = fmt.Errorf("%d of %d runs failed; see the report", failed, all)
	}
	return errors.Join(append(errs, runErr)...)
}

// evictForms are the SETs of the timed cells of the policies, each once: the uncapped runs.
func evictForms(ec *evictionConfig) []string {
	var forms []string
	for _, p := range ec.Policies {
		if f := evictForm(p); evicting(p) && !contains(forms, f) {
			forms = append(forms, f)
		}
	}
	return forms
}

// evictCells are the timed SET cells of form: -r 10000000 -d 100 at P=1 and P=16.
func evictCells(cfg *config, form string) []cell {
	var out []cell
	for _, p := range evictPipelines {
		out = append(out, cell{Test: form, Pipeline: p, Clients: cfg.Clients, Keyspace: evictKeyspace, Size: evictSize,
			Requests: requestsFor(cfg.Requests, cfg.MaxRequests, p)})
	}
	return out
}

// evictStart starts t afresh, waits evictSettle, and sets policy and maxmemory (0: none) with CONFIG SET.
func evictStart(ctx context.Context, cfg *config, tl *tools, t target, policy string, maxmemory int64,
	work string) (*server, error) {
	srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, nil)
	if err != nil {
		return nil, err
	}
	time.Sleep(evictSettle)
	if policy == "" {
		policy = "noeviction"
	}
	if err := setMaxmemory(srv.addr(), policy, maxmemory); err != nil {
		srv.stop()
		return nil, err
	}
	return srv, nil
}

// setMaxmemory sends CONFIG SET maxmemory-policy, then CONFIG SET maxmemory in bytes.
func setMaxmemory(addr, policy string, maxmemory int64) error {
	for _, kv := range [][2]string{{"maxmemory-policy", policy}, {"maxmemory", strconv.FormatInt(maxmemory, 10)}} {
		r, err := command(addr, 10*time.Second, "CONFIG", "SET", kv[0], kv[1])
		if err != nil {
			return fmt.Errorf("CONFIG SET %s %s: %s", kv[0], kv[1], strings.TrimPrefix(err.Error(), "CONFIG: "))
		}
		if r != "OK" {
			return fmt.Errorf("CONFIG SET %s %s answered %q", kv[0], kv[1], r)
		}
	}
	return nil
}

// evictStats reads total_error_replies and evicted_keys of INFO stats; -1 for a field the server lacks.
func evictStats(addr string) (errs, evicted int64, err error) {
	st, err := infoValues(addr, "stats")
	if err != nil {
		return 0, 0, err
	}
	field := func(name string) int64 {
		v, err := strconv.ParseInt(st[name], 10, 64)
		if err != nil {
			return -1
		}
		return v
	}
	return field("total_error_replies"), field("evicted_keys"), nil
}

// usedMemory is INFO memory used_memory.
func usedMemory(addr string) (int64, error) {
	m, err := infoValues(addr, "memory")
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseInt(m["used_memory"], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("INFO memory: used_memory %q", m["used_memory"])
	}
	return v, nil
}

// delta is b - a, or -1 when either is unknown.
func delta(a, b int64) int64 {
	if a < 0 || b < 0 {
		return -1
	}
	return b - a
}

// sampleEvictMemory reads used_memory and VmRSS of srv every evictMemPoll until stop is closed, and once more
// then: a short load may fall between two polls.
func sampleEvictMemory(srv *server, stop <-chan struct{}) []evictMemPoint {
	var out []evictMemPoint
	t0 := time.Now()
	look := func() {
		p := evictMemPoint{AtS: time.Since(t0).Seconds()}
		p.Used, _ = usedMemory(srv.addr())
		p.RSS, _ = rssBytes(srv.pid())
		out = append(out, p)
	}
	for {
		look()
		select {
		case <-stop:
			look()
			return out
		case <-time.After(evictMemPoll):
		}
	}
}

// measureEvictSet runs the SET cells on a fresh t under policy at the mode's maxmemory, after filling it to the
// cap; with policy "" it runs them without maxmemory after fill SETs.
func measureEvictSet(ctx context.Context, cfg *config, tl *tools, t target, policy string, fill int,
	work string) *evictSetRun {
	ec := cfg.Eviction
	r := &evictSetRun{Target: t, Policy: policy, Form: evictForm(policy)}
	var maxmemory int64
	if policy != "" {
		maxmemory = ec.MaxMemory
	}
	srv, err := evictStart(ctx, cfg, tl, t, policy, maxmemory, work)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer srv.stop()
	fail := func(err error) *evictSetRun {
		r.Error = err.Error()
		if !srv.alive() {
			r.Error += logTail(srv.logPath)
		}
		return r
	}
	if r.EmptyRSS, err = rssBytes(srv.pid()); err != nil {
		return fail(err)
	}
	if r.EmptyUsed, err = usedMemory(srv.addr()); err != nil {
		return fail(err)
	}
	var (
		stop = make(chan struct{})
		wg   sync.WaitGroup
	)
	if policy != "" {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.Memory = sampleEvictMemory(srv, stop)
		}()
	}
	err = evictFill(ctx, cfg, tl, srv, r, fill)
	if err == nil {
		err = evictRunCells(ctx, cfg, tl, srv, r)
	}
	close(stop)
	wg.Wait()
	for _, p := range r.Memory {
		r.MaxUsed, r.MaxRSS = max(r.MaxUsed, p.Used), max(r.MaxRSS, p.RSS)
	}
	if err != nil {
		return fail(err)
	}
	if r.Keys, err = dbSize(srv.addr()); err != nil {
		return fail(err)
	}
	return r
}

// evictFill runs the SET load (P=16, the cells' key space and values) until the cap shows as evicted_keys > 0.
// Without maxmemory it sends fill SETs. Under noeviction the harness sends the SETs itself, until one is
// refused: redis-benchmark 7 exits at the first error reply.
func evictFill(ctx context.Context, cfg *config, tl *tools, srv *server, r *evictSetRun, fill int) error {
	ec := cfg.Eviction
	c := cell{Test: r.Form, Pipeline: evictFillP, Clients: cfg.Clients, Keyspace: evictKeyspace, Size: evictSize}
	t0 := time.Now()
	defer func() { r.FillS = time.Since(t0).Seconds() }()
	est := int(ec.MaxMemory / (evictSize + 60))
	switch r.Policy {
	case "":
		c.Requests = max(fill, 1)
		if s := runBenchmark(ctx, cfg, tl, srv, c); s.Error != "" {
			return fmt.Errorf("fill: %s", s.Error)
		}
		r.FillSETs = c.Requests
		return nil
	case "noeviction":
		value := strings.Repeat("x", evictSize)
		chunk := max(est/10, 1000)
		for off := 0; off < evictFillChunks*chunk; off += chunk {
			set := func(dst []byte, n int) []byte { return appendCommand(dst, "SET", benchKey(off+n), value) }
			err := preloadWith(ctx, srv.addr(), chunk, evictLoadConns, set, "+OK\r\n")
			if err != nil && strings.Contains(err.Error(), "OOM") {
				n, err := dbSize(srv.addr())
				r.FillSETs = int(n)
				return err
			}
			if err != nil {
				return fmt.Errorf("fill: %w", err)
			}
		}
		return fmt.Errorf("fill: no SET refused after %d", evictFillChunks*chunk)
	}
	// Half of what the cap might hold first, then a tenth of it at a time.
	c.Requests = max(est/2, 1000)
	for range evictFillChunks {
		if s := runBenchmark(ctx, cfg, tl, srv, c); s.Error != "" {
			return fmt.Errorf("fill: %s", s.Error)
		}
		r.FillSETs += c.Requests
		_, evicted, err := evictStats(srv.addr())
		if err != nil {
			return err
		}
		if evicted > 0 {
			return nil
		}
		if evicted < 0 {
			return errors.New("fill: INFO stats has no evicted_keys")
		}
		c.Requests = max(est/10, 1000)
	}
	return fmt.Errorf("fill: no key evicted after %d SETs", r.FillSETs)
}

// evictRunCells runs the timed cells on srv as the fill left it, counting error replies and evictions of each.
// Under noeviction it sends SETs of new keys one at a time instead, until one is refused (client buffers
// counted in used_memory may leave room for a few after the fill), and keeps that reply.
func evictRunCells(ctx context.Context, cfg *config, tl *tools, srv *server, r *evictSetRun) error {
	if r.Policy == "noeviction" {
		reply, err := oomProbe(ctx, srv.addr(), 100000)
		r.OOMReply = reply
		return err
	}
	for _, c := range evictCells(cfg, r.Form) {
		e0, v0, err := evictStats(srv.addr())
		if err != nil {
			return err
		}
		s := runBenchmark(ctx, cfg, tl, srv, c)
		r.Samples = append(r.Samples, s)
		if s.Error != "" {
			return fmt.Errorf("%s: %s", c, s.Error)
		}
		e1, v1, err := evictStats(srv.addr())
		if err != nil {
			return err
		}
		r.ErrorReplies = append(r.ErrorReplies, delta(e0, e1))
		r.Evicted = append(r.Evicted, delta(v0, v1))
	}
	return nil
}

// oomProbe SETs new keys of evictSize bytes on one connection, one at a time, until one is refused, at most
// limit of them, and returns the refusal without its '-'.
func oomProbe(ctx context.Context, addr string, limit int) (string, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	rd := bufio.NewReader(c)
	value := strings.Repeat("x", evictSize)
	for i := range limit {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		if _, err := c.Write(appendCommand(nil, "SET", "probe:"+strconv.Itoa(i), value)); err != nil {
			return "", err
		}
		line, err := rd.ReadString('\n')
		if err != nil {
			return "", err
		}
		if line = strings.TrimRight(line, "\r\n"); strings.HasPrefix(line, "-") {
			return line[1:], nil
		}
	}
	return fmt.Sprintf("(%d SETs accepted)", limit), nil
}

func (r *evictSetRun) name() string {
	p := r.Policy
	if p == "" {
		p = "uncapped"
		if r.Form != "set" {
			p += " (EX)"
		}
	}
	return p
}

func (r *evictSetRun) line(ec *evictionConfig) string {
	head := fmt.Sprintf("evict %-15s %-9s", r.name(), r.Target.label())
	if r.Error != "" {
		return head + " FAILED: " + firstLine(r.Error)
	}
	var parts []string
	parts = append(parts, fmt.Sprintf("fill %s SETs %.1fs", groupDigits(float64(r.FillSETs)), r.FillS))
	for i, s := range r.Samples {
		parts = append(parts, fmt.Sprintf("P=%d %.0f/s p99 %.2f ms errors %s evicted %s", evictPipelines[i], s.RPS,
			s.P99Ms, countOrDash(r.ErrorReplies[i]), countOrDash(r.Evicted[i])))
	}
	parts = append(parts, fmt.Sprintf("%s keys", groupDigits(float64(r.Keys))))
	if r.Policy != "" {
		parts = append(parts, fmt.Sprintf("used max %.3fx maxmemory, RSS max %.1f MiB (empty %.1f)",
			float64(r.MaxUsed)/float64(ec.MaxMemory), mib(r.MaxRSS), mib(r.EmptyRSS)))
	}
	if r.OOMReply != "" {
		parts = append(parts, "SET at the cap: "+r.OOMReply)
	}
	return head + " " + strings.Join(parts, "; ")
}

// countOrDash writes n, or - for an unknown count.
func countOrDash(n int64) string {
	if n < 0 {
		return "-"
	}
	return strconv.FormatInt(n, 10)
}

// stridePerm is a permutation of 0 … n-1 that spreads neighbours apart: i -> i × step mod n, step coprime to n.
type stridePerm struct{ n, step int }

func newStridePerm(n int) stridePerm {
	step := int(float64(n)*0.6180339887) | 1
	for gcd(step, n) != 1 {
		step++
	}
	return stridePerm{n, step}
}

func (p stridePerm) at(i int) int { return int(uint64(i) * uint64(p.step) % uint64(p.n)) }

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// hitShape is how a hit-ratio workload names and fills its keys.
type hitShape struct {
	universe int
	key      func(n int) string // n in 0 … universe-1
	value    string
}

func zipfShape(ec *evictionConfig) hitShape {
	return hitShape{ec.HitKeys, benchKey, strings.Repeat("x", evictSize)}
}

// lruShape is redis-cli --lru-test's keys: lru:1 … lru:N, values of 5 bytes.
func lruShape(ec *evictionConfig) hitShape {
	return hitShape{ec.LRUKeys, func(n int) string { return "lru:" + strconv.Itoa(n+1) }, evictLRUValue}
}

// fillToCap SETs the shape's keys in stridePerm order until evicted_keys > 0 or every key is set.
func fillToCap(ctx context.Context, srv *server, sh hitShape, maxmemory int64) (int, error) {
	perm := newStridePerm(sh.universe)
	per := int(maxmemory / int64(len(sh.value)+60))
	chunk := max(1000, per/10)
	done := 0
	for done < sh.universe {
		n := min(chunk, sh.universe-done)
		off := done
		fill := func(dst []byte, i int) []byte { return appendCommand(dst, "SET", sh.key(perm.at(off+i)), sh.value) }
		if err := preloadWith(ctx, srv.addr(), n, evictLoadConns, fill, "+OK\r\n"); err != nil {
			return done, err
		}
		done += n
		_, evicted, err := evictStats(srv.addr())
		if err != nil {
			return done, err
		}
		if evicted > 0 {
			return done, nil
		}
		if evicted < 0 {
			// No eviction count: stop once used_memory reached the cap.
			if used, err := usedMemory(srv.addr()); err == nil && used >= maxmemory {
				return done, nil
			}
		}
	}
	return done, nil
}

// fillKeys SETs universe / evictHeldShare keys, every evictHeldShare-th of the shape's, with no maxmemory, and
// returns their count and used_memory after them.
func fillKeys(ctx context.Context, srv *server, sh hitShape) (int, int64, error) {
	n := sh.universe / evictHeldShare
	fill := func(dst []byte, i int) []byte { return appendCommand(dst, "SET", sh.key(i*evictHeldShare), sh.value) }
	if err := preloadWith(ctx, srv.addr(), n, evictLoadConns, fill, "+OK\r\n"); err != nil {
		return 0, 0, err
	}
	time.Sleep(evictSettle)
	used, err := usedMemory(srv.addr())
	return n, used, err
}

// measureEvictHit runs one hit-ratio workload on a fresh t under policy: basis "memory" at the mode's maxmemory
// after a fill to the cap, basis "keys" at the used_memory of universe / evictHeldShare keys.
func measureEvictHit(ctx context.Context, cfg *config, tl *tools, et evictTools, t target, policy, workload, basis,
	work string) *evictHitRun {
	ec := cfg.Eviction
	r := &evictHitRun{Target: t, Policy: policy, Workload: workload, Basis: basis}
	sh := zipfShape(ec)
	if workload == "lru-test" {
		sh = lruShape(ec)
	}
	maxmemory := ec.MaxMemory
	if basis == "keys" {
		maxmemory = 0
	}
	srv, err := evictStart(ctx, cfg, tl, t, policy, maxmemory, work)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer srv.stop()
	fail := func(err error) *evictHitRun {
		r.Error = err.Error()
		if !srv.alive() {
			r.Error += logTail(srv.logPath)
		}
		return r
	}
	if basis == "keys" {
		if r.FilledKeys, maxmemory, err = fillKeys(ctx, srv, sh); err != nil {
			return fail(err)
		}
		if err := setMaxmemory(srv.addr(), policy, maxmemory); err != nil {
			return fail(err)
		}
	} else if r.FilledKeys, err = fillToCap(ctx, srv, sh, maxmemory); err != nil {
		return fail(err)
	}
	r.MaxMemory = maxmemory
	e0, v0, err := evictStats(srv.addr())
	if err != nil {
		return fail(err)
	}
	t0 := time.Now()
	if workload == "zipf" {
		err = runZipf(ctx, cfg, srv, r)
	} else {
		err = runLRUTest(ctx, cfg, tl, et, srv, r)
	}
	r.Seconds = time.Since(t0).Seconds()
	if err != nil {
		return fail(err)
	}
	e1, v1, err := evictStats(srv.addr())
	if err != nil {
		return fail(err)
	}
	r.Errors, r.Evicted = delta(e0, e1), delta(v0, v1)
	if r.Keys, err = dbSize(srv.addr()); err != nil {
		return fail(err)
	}
	if r.Gets > 0 {
		r.HitPct = 100 * float64(r.Hits) / float64(r.Gets)
	}
	return r
}

func (r *evictHitRun) line() string {
	head := fmt.Sprintf("hit   %-15s %-9s %-8s %-6s", r.Policy, r.Target.label(), r.Workload, r.Basis)
	if r.Error != "" {
		return head + " FAILED: " + firstLine(r.Error)
	}
	s := fmt.Sprintf("%s %5.1f%% hits of %s GETs; maxmemory %.1f MiB, %s keys filled, %s held after; evicted %s, "+
		"error replies %s; %.1fs", head, r.HitPct, groupDigits(float64(r.Gets)), mib(r.MaxMemory),
		groupDigits(float64(r.FilledKeys)), groupDigits(float64(r.Keys)), countOrDash(r.Evicted), countOrDash(r.Errors),
		r.Seconds)
	if r.ScanGets > 0 {
		s += fmt.Sprintf("; scans %.1f%% hits of %s", 100*float64(r.ScanHits)/float64(r.ScanGets),
			groupDigits(float64(r.ScanGets)))
	}
	return s
}

// zipfGen draws ranks 0 … n-1 with P(k) proportional to 1/(k+1)^theta, theta < 1, by the inversion of Gray et
// al., "Quickly generating billion-record synthetic databases" (SIGMOD 1994): rank 0 is the most requested.
type zipfGen struct {
	n                         float64
	theta, alpha, zetan, eta  float64
	halfPowTheta, zeta2Thresh float64
}

func newZipfGen(n int, theta float64) *zipfGen {
	var zetan float64
	for i := 1; i <= n; i++ {
		zetan += 1 / math.Pow(float64(i), theta)
	}
	zeta2 := 1 + math.Pow(0.5, theta)
	return &zipfGen{n: float64(n), theta: theta, alpha: 1 / (1 - theta), zetan: zetan,
		eta:          (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta2/zetan),
		halfPowTheta: math.Pow(0.5, theta), zeta2Thresh: zeta2}
}

// rank maps u, uniform in [0, 1), to a rank.
func (z *zipfGen) rank(u float64) int {
	uz := u * z.zetan
	switch {
	case uz < 1:
		return 0
	case uz < z.zeta2Thresh:
		return 1
	}
	k := int(z.n * math.Pow(z.eta*u-z.eta+1, z.alpha))
	return min(max(k, 0), int(z.n)-1)
}

// zipfPlan is one connection's share of a Zipf run.
type zipfPlan struct {
	requests, warmup int // Zipf GETs, and the first of them not counted
	scanEvery        int // a scan burst after every this many Zipf GETs
	scanLen          int // keys of one burst
	scanStart        func(burst int) int
	seed             uint64
}

// zipfCounts is what a connection saw.
type zipfCounts struct{ gets, hits, scanGets, scanHits, sets int64 }

// runZipf runs the read-through cache workload against srv: evictConns connections, each with evictDepth GETs in
// flight, each miss followed by a SET of the key. Keys are the Zipf ranks (benchKey(rank)); evictScans times over
// the run every connection reads a run of cold keys (the upper half of the ranks), each once, through the same
// read-through. Hits are counted on the Zipf GETs after the first evictWarmup of each connection's.
func runZipf(ctx context.Context, cfg *config, srv *server, r *evictHitRun) error {
	ec := cfg.Eviction
	z := newZipfGen(ec.HitKeys, evictZipfTheta)
	per := ec.Requests / evictConns
	burst := evictBurst(ec)
	cold := ec.HitKeys / 2
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		total zipfCounts
		errs  []error
	)
	deadline := time.Now().Add(cfg.CellTimeout)
	for i := range evictConns {
		plan := zipfPlan{requests: per, warmup: int(float64(per) * evictWarmup), scanEvery: max(per/(evictScans+1), 1),
			scanLen: burst, seed: uint64(i + 1),
			scanStart: func(b int) int { return cold + ((b*evictConns+i)*burst)%max(ec.HitKeys-cold-burst, 1) }}
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := zipfConn(ctx, srv.addr(), z, plan, deadline)
			mu.Lock()
			defer mu.Unlock()
			total.gets, total.hits, total.sets = total.gets+c.gets, total.hits+c.hits, total.sets+c.sets
			total.scanGets, total.scanHits = total.scanGets+c.scanGets, total.scanHits+c.scanHits
			if err != nil {
				errs = append(errs, err)
			}
		}()
	}
	wg.Wait()
	r.Gets, r.Hits, r.ScanGets, r.ScanHits, r.Sets = total.gets, total.hits, total.scanGets, total.scanHits, total.sets
	return errors.Join(errs...)
}

// evictBurst is the keys one connection reads in one scan burst: all bursts of all connections read
// requests / evictScanShare keys, at most the cold half of the universe.
func evictBurst(ec *evictionConfig) int {
	return max(min(ec.Requests/evictScanShare, ec.HitKeys/2)/evictScans/evictConns, 1)
}

// zipfConn is one connection of runZipf. Each batch sends up to evictDepth GETs, reads their replies, then sends a
// SET for every miss and reads those replies.
func zipfConn(ctx context.Context, addr string, z *zipfGen, plan zipfPlan, deadline time.Time) (zipfCounts, error) {
	var c zipfCounts
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return c, err
	}
	defer conn.Close()
	conn.SetDeadline(deadline)
	rd := bufio.NewReaderSize(conn, 64<<10)
	rng := rand.New(rand.NewPCG(0x5eed, plan.seed))
	value := strings.Repeat("x", evictSize)
	type req struct {
		key     int
		scan    bool
		counted bool
	}
	var (
		batch       []req
		buf         []byte
		misses      []int
		sent, burst int
		scanLeft    int
		scanNext    int
	)
	for sent < plan.requests || scanLeft > 0 {
		if err := ctx.Err(); err != nil {
			return c, err
		}
		if time.Now().After(deadline) {
			return c, fmt.Errorf("zipf: not done within --cell-timeout after %d GETs", sent)
		}
		batch, buf = batch[:0], buf[:0]
		for len(batch) < evictDepth && (sent < plan.requests || scanLeft > 0) {
			if scanLeft > 0 {
				batch = append(batch, req{key: scanNext, scan: true})
				scanNext++
				scanLeft--
				continue
			}
			sent++
			batch = append(batch, req{key: z.rank(rng.Float64()), counted: sent > plan.warmup})
			if sent%plan.scanEvery == 0 && burst < evictScans {
				scanLeft, scanNext = plan.scanLen, plan.scanStart(burst)
				burst++
			}
		}
		for _, q := range batch {
			buf = appendCommand(buf, "GET", benchKey(q.key))
		}
		if _, err := conn.Write(buf); err != nil {
			return c, fmt.Errorf("zipf: %w", err)
		}
		misses = misses[:0]
		for _, q := range batch {
			hit, err := readGetReply(rd)
			if err != nil {
				return c, fmt.Errorf("zipf: GET: %w", err)
			}
			switch {
			case q.scan:
				c.scanGets++
				if hit {
					c.scanHits++
				}
			case q.counted:
				c.gets++
				if hit {
					c.hits++
				}
			}
			if !hit {
				misses = append(misses, q.key)
			}
		}
		if len(misses) == 0 {
			continue
		}
		buf = buf[:0]
		for _, k := range misses {
			buf = appendCommand(buf, "SET", benchKey(k), value)
		}
		if _, err := conn.Write(buf); err != nil {
			return c, fmt.Errorf("zipf: %w", err)
		}
		for range misses {
			line, err := rd.ReadString('\n')
			if err != nil {
				return c, fmt.Errorf("zipf: SET: %w", err)
			}
			if line != "+OK\r\n" {
				return c, fmt.Errorf("zipf: SET answered %q", strings.TrimSpace(line))
			}
			c.sets++
		}
	}
	return c, nil
}

// readGetReply reads a GET's reply: a bulk string is a hit, a null bulk string a miss; anything else is an error.
func readGetReply(rd *bufio.Reader) (bool, error) {
	head, err := rd.ReadString('\n')
	if err != nil {
		return false, err
	}
	head = strings.TrimRight(head, "\r\n")
	if head == "$-1" || head == "_" {
		return false, nil
	}
	if !strings.HasPrefix(head, "$") {
		return false, fmt.Errorf("reply %q", head)
	}
	n, err := strconv.Atoi(head[1:])
	if err != nil || n < 0 {
		return false, fmt.Errorf("reply %q", head)
	}
	if _, err := rd.Discard(n + 2); err != nil {
		return false, err
	}
	return true, nil
}

// lruLine is one line of redis-cli --lru-test: "211750 Gets/sec | Hits: 70279 (33.19%) | Misses: 141471 (66.81%)".
var lruLine = regexp.MustCompile(`^(\d+) Gets/sec \| Hits: (\d+) \([0-9.]+%\) \| Misses: (\d+) \([0-9.]+%\)$`)

// parseLRUTest reads redis-cli --lru-test's output and sums GETs and hits over the second half of its lines (at
// least the last one): the first ones fall while the cache still settles.
func parseLRUTest(out string) (lines []string, gets, hits int64, err error) {
	type point struct{ gets, hits int64 }
	var ps []point
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimSpace(l)
		m := lruLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		g, _ := strconv.ParseInt(m[1], 10, 64)
		h, _ := strconv.ParseInt(m[2], 10, 64)
		ps = append(ps, point{g, h})
		lines = append(lines, l)
	}
	if len(ps) == 0 {
		return nil, 0, 0, fmt.Errorf("no line of redis-cli --lru-test in its output: %s", tail(out))
	}
	for _, p := range ps[len(ps)/2:] {
		gets, hits = gets+p.gets, hits+p.hits
	}
	return lines, gets, hits, nil
}

// runLRUTest runs redis-cli --lru-test against srv for the mode's --eviction-lru-test, pinned to the client CPUs,
// its output line-buffered (it is a pipe, not a terminal, and the process is killed at the end).
func runLRUTest(ctx context.Context, cfg *config, tl *tools, et evictTools, srv *server, r *evictHitRun) error {
	ec := cfg.Eviction
	argv := []string{tl.Taskset, "-c", cfg.ClientCPUs, et.stdbuf, "-oL", et.redisCLI, "-h", "127.0.0.1", "-p",
		strconv.Itoa(srv.Port), "--lru-test", strconv.Itoa(ec.LRUKeys)}
	// Each line covers a second; half a second more lets the last one out.
	cctx, cancel := context.WithTimeout(ctx, ec.LRUTest+500*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if cctx.Err() == nil {
		// It ends only when killed, or on an error reply.
		return fmt.Errorf("redis-cli --lru-test ended by itself (%v): %s", err, tail(out.String()))
	}
	lines, gets, hits, err := parseLRUTest(out.String())
	if err != nil {
		return err
	}
	r.LRULines, r.Gets, r.Hits = lines, gets, hits
	return nil
}

func humanBytes(b int64) string {
	switch {
	case b >= 1<<30 && b%(1<<30) == 0:
		return strconv.FormatInt(b>>30, 10) + "gb"
	case b >= 1<<20 && b%(1<<20) == 0:
		return strconv.FormatInt(b>>20, 10) + "mb"
	}
	return strconv.FormatInt(b, 10) + "b"
}

// evictMedian is the median of get over the good runs that keep selects; ok is false when there is none.
func evictMedian[R any](runs []R, keep func(R) bool, get func(R) float64) (float64, bool) {
	var xs []float64
	for _, r := range runs {
		if keep(r) {
			xs = append(xs, get(r))
		}
	}
	return median(xs), len(xs) > 0
}

// setRuns selects the good SET runs of t under policy ("" uncapped) with form.
func setRuns(t target, policy, form string) func(*evictSetRun) bool {
	return func(r *evictSetRun) bool {
		return r.Error == "" && r.Target == t && r.Policy == policy && r.Form == form
	}
}

func hitRuns(t target, policy, workload, basis string) func(*evictHitRun) bool {
	return func(r *evictHitRun) bool {
		return r.Error == "" && r.Target == t && r.Policy == policy && r.Workload == workload && r.Basis == basis
	}
}

// evictionMarkdown is the report's head: the command, the machine and what was measured how.
func evictionMarkdown(rep *evictionReport, runErr error) string {
	cfg, ec, m := rep.Config, rep.Config.Eviction, rep.Machine
	var b strings.Builder
	fmt.Fprintf(&b, "# Eviction at maxmemory, corekv vs redis-server: %s on %s\n\n",
		rep.Started.UTC().Format("2006-01-02 15:04 UTC"), m.Host)
	if runErr != nil {
		fmt.Fprintf(&b, "> **Incomplete run**: %s\n\n", firstLine(runErr.Error()))
	}
	fmt.Fprintf(&b, "```\n%s\n```\n\n", rep.Command)
	fmt.Fprintf(&b, "- Machine: %s, %d CPUs online (allowed %s), kernel %s, %s; %s; corekv %s. Load average %s "+
		"at the start.\n", m.CPUModel, m.OnlineCPUs, m.AllowedCPUs, m.Kernel, m.Go, m.RedisServer, m.Corekv, m.LoadStart)
	fmt.Fprintf(&b, "- Servers pinned to CPUs `%s`, redis-benchmark and redis-cli to CPUs `%s`; the harness's fills, "+
		"INFO polling and the Zipf client run unpinned. corekv with `--shards` %v. Every run starts a fresh server "+
		"and sets `maxmemory-policy`, then `maxmemory`, with CONFIG SET. %d round(s), servers in alternating "+
		"order; figures are medians.\n", cfg.ServerCPUs, cfg.ClientCPUs, cfg.Shards, cfg.Repeat)
	fmt.Fprintf(&b, "- **SET at the cap**, maxmemory %s (%s bytes): `redis-benchmark -P %d -c %d -r %d -d %d -t set` "+
		"until INFO stats shows `evicted_keys` > 0 (noeviction: a refused write), then the timed cells `-P 1` "+
		"(`-n %d`) and `-P 16` (`-n %d`) with `-c %d`. volatile-* policies send `SET key:__rand_int__ <%d bytes> EX %s` "+
		"instead, so that every key can be evicted. *Uncapped*: the same cells on a server without maxmemory after "+
		"as many SETs as the capped fill of that server took. Error replies: the delta of `total_error_replies` "+
		"over the cells (0 is the target under an evicting policy). Per core: req/s ÷ the server's CPU share; the "+
		"ratio to redis is of those.\n", humanBytes(ec.MaxMemory), groupDigits(float64(ec.MaxMemory)), evictFillP,
		cfg.Clients, evictKeyspace, evictSize, requestsFor(cfg.Requests, cfg.MaxRequests, 1),
		requestsFor(cfg.Requests, cfg.MaxRequests, 16), cfg.Clients, evictSize, evictTTL)
	fmt.Fprintf(&b, "- **Memory**: `used_memory` (INFO memory) and VmRSS every %v from the start of the capped fill "+
		"to the end of its cells. Targets: most used_memory ≤ %.2f × maxmemory; most RSS ≤ %.2f × maxmemory + the "+
		"RSS of the empty server (read %v after its start).\n", evictMemPoll, evictUsedBound, evictRSSFactor, evictSettle)
	fmt.Fprintf(&b, "- **Hit ratio**, allkeys-* policies. *zipf*: %s keys `key:<rank>` of %d bytes, Zipf(%.2f) "+
		"ranks; %d connections with %d GETs in flight each, every miss followed by a SET of the key (a read-through "+
		"cache); %s GETs in all, the first %.0f%% of each connection's not counted; %d times over the run each "+
		"connection reads %s cold keys (ranks in the upper half, each read once) through the same read-through, "+
		"left out of the hit ratio. *lru-test*: `redis-cli --lru-test %s` (its own power-law keys, half SETs of "+
		"5 bytes) for %v; the hit ratio of the second half of its one-second lines.\n", groupDigits(float64(ec.HitKeys)),
		evictSize, evictZipfTheta, evictConns, evictDepth, groupDigits(float64(ec.Requests)), 100*evictWarmup,
		evictScans, groupDigits(float64(evictBurst(ec))),
		groupDigits(float64(ec.LRUKeys)), ec.LRUTest)
	fmt.Fprintf(&b, "- Hit-ratio bases. *memory*: maxmemory %s on both servers, filled to the cap before the "+
		"workload (keys in a strided order until `evicted_keys` > 0). *keys*: every %d-th key of the universe SET "+
		"without maxmemory, then maxmemory set to the `used_memory` this left: each server holds about the same "+
		"keys, so the policies' choices are compared apart from the bytes a key costs.\n\n",
		humanBytes(ec.MaxMemory), evictHeldShare)
	b.WriteString("> **Caveat**: on 2 shared CPUs the client has one and the server the other; the Zipf client and " +
		"the INFO polling share them unpinned. corekv with 2 shards has two shard threads on one CPU. Hit ratios " +
		"count replies and do not depend on speed; req/s and p99 are this VM's.\n\n")
	return b.String()
}

// evictionTables is the report's tables, also printed at the end of the run.
func evictionTables(rep *evictionReport, tgs []target) string {
	ec := rep.Config.Eviction
	var redis *target
	for i, t := range tgs {
		if t.Server == "redis" {
			redis = &tgs[i]
		}
	}
	f2 := func(v float64, ok bool, format string) string {
		if !ok || v == 0 {
			return "-"
		}
		return fmt.Sprintf(format, v)
	}
	var b strings.Builder
	b.WriteString("## SET at the cap\n\n| policy | server | keys held |")
	for _, p := range evictPipelines {
		fmt.Fprintf(&b, " P=%d req/s | p99 ms | per core | ÷ redis, per core | at cap ÷ uncapped |", p)
	}
	b.WriteString(" error replies | evicted |\n|---|---|--:|" + strings.Repeat("--:|", 5*len(evictPipelines)+2) + "\n")
	type row struct{ policy, form string }
	var rows []row
	for _, p := range ec.Policies {
		rows = append(rows, row{p, evictForm(p)})
	}
	for _, f := range evictForms(ec) {
		rows = append(rows, row{"", f})
	}
	for _, rw := range rows {
		for _, t := range tgs {
			sel := setRuns(t, rw.policy, rw.form)
			name := (&evictSetRun{Policy: rw.policy, Form: rw.form}).name()
			keys, ok := evictMedian(rep.Set, sel, func(r *evictSetRun) float64 { return float64(r.Keys) })
			if !ok {
				fmt.Fprintf(&b, "| %s | %s | failed |%s\n", name, t.label(), strings.Repeat(" |", 5*len(evictPipelines)+2))
				continue
			}
			fmt.Fprintf(&b, "| %s | %s | %s |", name, t.label(), groupDigits(keys))
			if !evicting(rw.policy) && rw.policy != "" {
				// noeviction has no timed cells: redis-benchmark stops at the first refusal.
				fmt.Fprintf(&b, "%s\n", strings.Repeat(" - |", 5*len(evictPipelines)+2))
				continue
			}
			for i := range evictPipelines {
				rps := func(r *evictSetRun) float64 { return r.Samples[i].RPS }
				perCore := func(r *evictSetRun) float64 { return perCoreRate(r.Samples[i].RPS, r.Samples[i].ServerCPU) }
				v, _ := evictMedian(rep.Set, sel, rps)
				p99, _ := evictMedian(rep.Set, sel, func(r *evictSetRun) float64 { return r.Samples[i].P99Ms })
				pc, _ := evictMedian(rep.Set, sel, perCore)
				vsRedis := "-"
				if redis != nil && t != *redis {
					rpc, ok := evictMedian(rep.Set, setRuns(*redis, rw.policy, rw.form), perCore)
					vsRedis = f2(ratio(pc, rpc), ok, "%.2f")
				}
				vsUncapped := "-"
				if rw.policy != "" {
					u, ok := evictMedian(rep.Set, setRuns(t, "", rw.form), rps)
					vsUncapped = f2(ratio(v, u), ok, "%.2f")
				}
				fmt.Fprintf(&b, " %.0f | %.3f | %s | %s | %s |", v, p99, f2(pc, true, "%.0f"), vsRedis, vsUncapped)
			}
			// Any error reply of any round counts: the most of the runs.
			errs, evicted := int64(-1), int64(-1)
			for _, r := range rep.Set {
				if sel(r) {
					errs = max(errs, sumKnown(r.ErrorReplies))
					evicted = max(evicted, sumKnown(r.Evicted))
				}
			}
			mark := ""
			if evicting(rw.policy) && errs > 0 {
				mark = " ✗"
			}
			fmt.Fprintf(&b, " %s%s | %s |\n", countOrDash(errs), mark, countOrDash(evicted))
		}
	}
	for _, r := range rep.Set {
		if r.OOMReply != "" {
			fmt.Fprintf(&b, "\nnoeviction, %s, round %d: a SET at the cap answered `%s`.\n", r.Target.label(), r.Round+1,
				mdEscape(r.OOMReply))
		}
	}

	fmt.Fprintf(&b, "\n## Memory during the capped SET load\n\nmaxmemory %s = %.1f MiB.\n\n", humanBytes(ec.MaxMemory),
		mib(ec.MaxMemory))
	fmt.Fprintf(&b, "| policy | server | RSS empty MiB | used_memory most MiB | ÷ maxmemory | ≤ %.2f | RSS most MiB | "+
		"bound MiB | RSS within |\n|---|---|--:|--:|--:|:-:|--:|--:|:-:|\n", evictUsedBound)
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "**no**"
	}
	for _, p := range ec.Policies {
		for _, t := range tgs {
			sel := setRuns(t, p, evictForm(p))
			empty, ok := evictMedian(rep.Set, sel, func(r *evictSetRun) float64 { return float64(r.EmptyRSS) })
			if !ok {
				fmt.Fprintf(&b, "| %s | %s | failed | | | | | | |\n", p, t.label())
				continue
			}
			// The worst run is the one to show.
			var used, rss int64
			for _, r := range rep.Set {
				if sel(r) {
					used, rss = max(used, r.MaxUsed), max(rss, r.MaxRSS)
				}
			}
			bound := evictRSSFactor*float64(ec.MaxMemory) + empty
			share := float64(used) / float64(ec.MaxMemory)
			fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %.3f | %s | %.1f | %.1f | %s |\n", p, t.label(), empty/(1<<20),
				mib(used), share, yes(share <= evictUsedBound), mib(rss), bound/(1<<20), yes(float64(rss) <= bound))
		}
	}

	var hitPolicies []string
	for _, p := range ec.Policies {
		if strings.HasPrefix(p, "allkeys-") {
			hitPolicies = append(hitPolicies, p)
		}
	}
	if len(hitPolicies) == 0 {
		return b.String()
	}
	b.WriteString("\n## Hit ratio\n\n*memory*: the same maxmemory for both; *keys*: the maxmemory at which each " +
		"holds the same keys. Δ is corekv's hit ratio minus redis's, in points.\n\n" +
		"| workload | basis | policy | server | maxmemory MiB | keys held | hit % | Δ vs redis, points | evicted | " +
		"error replies |\n|---|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, w := range []string{"zipf", "lru-test"} {
		if w == "lru-test" && ec.LRUTest == 0 {
			continue
		}
		for _, basis := range []string{"memory", "keys"} {
			for _, p := range hitPolicies {
				for _, t := range tgs {
					sel := hitRuns(t, p, w, basis)
					hit, ok := evictMedian(rep.Hit, sel, func(r *evictHitRun) float64 { return r.HitPct })
					if !ok {
						fmt.Fprintf(&b, "| %s | %s | %s | %s | failed | | | | | |\n", w, basis, p, t.label())
						continue
					}
					mm, _ := evictMedian(rep.Hit, sel, func(r *evictHitRun) float64 { return mib(r.MaxMemory) })
					keys, _ := evictMedian(rep.Hit, sel, func(r *evictHitRun) float64 { return float64(r.Keys) })
					ev, _ := evictMedian(rep.Hit, sel, func(r *evictHitRun) float64 { return float64(r.Evicted) })
					errs := int64(-1)
					for _, r := range rep.Hit {
						if sel(r) {
							errs = max(errs, r.Errors)
						}
					}
					d := "-"
					if redis != nil && t != *redis {
						if rh, ok := evictMedian(rep.Hit, hitRuns(*redis, p, w, basis),
							func(r *evictHitRun) float64 { return r.HitPct }); ok {
							v := math.Round((hit-rh)*10) / 10
							if v == 0 {
								v = 0 // not -0, which prints as -0.0
							}
							d = fmt.Sprintf("%+.1f", v)
						}
					}
					fmt.Fprintf(&b, "| %s | %s | %s | %s | %.1f | %s | %.1f | %s | %s | %s |\n", w, basis, p, t.label(),
						mm, groupDigits(keys), hit, d, countOrDash(int64(ev)), countOrDash(errs))
				}
			}
		}
	}
	var failed []string
	for _, r := range rep.Set {
		if r.Error != "" {
			failed = append(failed, fmt.Sprintf("SET %s, %s, round %d: %s", r.name(), r.Target.label(), r.Round+1,
				mdEscape(firstLine(r.Error))))
		}
	}
	for _, r := range rep.Hit {
		if r.Error != "" {
			failed = append(failed, fmt.Sprintf("hit %s %s %s, %s, round %d: %s", r.Workload, r.Basis, r.Policy,
				r.Target.label(), r.Round+1, mdEscape(firstLine(r.Error))))
		}
	}
	b.WriteString("\n")
	writeList(&b, "Failed runs", failed)
	return b.String()
}

// sumKnown adds the known counts of xs; -1 when none is known.
func sumKnown(xs []int64) int64 {
	sum, known := int64(0), false
	for _, x := range xs {
		if x >= 0 {
			sum, known = sum+x, true
		}
	}
	if !known {
		return -1
	}
	return sum
}
