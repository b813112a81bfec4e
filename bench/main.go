// Command bench runs redis-benchmark against corekv and redis-server side by side, on the same host and the
// same CPUs, and writes a Markdown report, the raw numbers as JSON and SVG charts.
//
//	go run ./bench            # full matrix, report in bench/results/
//	go run ./bench --quick    # small matrix, under two minutes
//	go run ./bench --smoke    # one cell per server, a few seconds (CI)
//	go run ./bench --gc       # GC mark time, bytes/key and GET p99.9 at 100k and 10M keys
//	go run ./bench --expiry   # keys with a TTL: how fast they leave, memory and CPU per expired key
//	go run ./bench --first-run # defaults on both sides, nothing pinned, as a new user tries it; a hop's cost
//	go run ./bench --txn      # MSET and MULTI/EXEC across shards and within one, per server core
//	go run ./bench --pubsub   # Pub/Sub fan-out to 100 subscribers, delivery latency, a slow subscriber
//	go run ./bench --blocking # 1,000 clients blocked in BLPOP, a producer pushing: exactly once, rate, idle CPU
//	go run ./bench --snapshot # BGSAVE at idle and under writes: time, extra memory, write stalls, file, load time
//	go run ./bench --aof      # SET per appendfsync mode and without the file, fdatasync's cost, replay at start
//	go run ./bench --eviction # SET at maxmemory per policy, used_memory and RSS at the cap, hit ratios
//
// See bench/README.md for the flags and for what limits the numbers.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// config is the parsed command line, after the --quick/--smoke presets were applied.
type config struct {
	ServerCPUs    string          `json:"server_cpus"`
	ClientCPUs    string          `json:"client_cpus"`
	Tests         []string        `json:"tests"`
	Pipelines     []int           `json:"pipelines"`
	Clients       int             `json:"clients"`
	ClientThreads int             `json:"client_threads"`
	ClientProcs   int             `json:"client_procs"`
	Keyspaces     []int           `json:"keyspaces"`
	Sizes         []int           `json:"sizes"`
	Shards        []int           `json:"shards"`
	Repeat        int             `json:"repeat"`
	Requests      int             `json:"requests"`
	MaxRequests   int             `json:"max_requests"`
	Preload       bool            `json:"preload"`
	CSV           bool            `json:"csv"`
	Quick         bool            `json:"quick"`
	Smoke         bool            `json:"smoke"`
	Scaling       bool            `json:"scaling"`
	Memory        bool            `json:"memory"`
	MemoryOnly    bool            `json:"memory_only"`
	MemoryKeys    int             `json:"memory_keys"`
	MemorySizes   []int           `json:"memory_sizes"`
	GC            bool            `json:"gc"`
	GCKeys        []int           `json:"gc_keys,omitempty"`
	GCRequests    int             `json:"gc_requests,omitempty"`
	Expiry        bool            `json:"expiry"`
	ExpiryKeys    int             `json:"expiry_keys,omitempty"`
	ExpiryChurn   int             `json:"expiry_churn,omitempty"`
	ExpiryRounds  int             `json:"expiry_rounds,omitempty"`
	ExpirySteady  time.Duration   `json:"expiry_steady_ns,omitempty"`
	ExpiryRest    time.Duration   `json:"expiry_rest_ns,omitempty"`
	FirstRun      bool            `json:"first_run"`
	HopGets       int             `json:"hop_gets,omitempty"`
	Txn           bool            `json:"txn"`
	TxnRequests   int             `json:"txn_requests,omitempty"`
	Out           string          `json:"-"`
	TempOut       bool            `json:"-"`
	Timeout       time.Duration   `json:"timeout_ns"`
	CellTimeout   time.Duration   `json:"cell_timeout_ns"`
	CorekvBin     string          `json:"corekv_bin,omitempty"`
	CorekvArgs    []string        `json:"corekv_args,omitempty"`
	OnlyRedis     bool            `json:"only_redis"`
	PubSub        bool            `json:"pubsub"`
	PubSubMsgs    int             `json:"pubsub_messages,omitempty"`
	Blocking      bool            `json:"blocking"`
	BlockClients  int             `json:"blocking_clients,omitempty"`
	BlockElements int             `json:"blocking_elements,omitempty"`
	BlockIdle     time.Duration   `json:"blocking_idle_ns,omitempty"`
	Snapshot      *snapshotConfig `json:"snapshot,omitempty"`
	AOF           *aofConfig      `json:"aof,omitempty"`
	Eviction      *evictionConfig `json:"eviction,omitempty"`

	serverCPUList []int
	clientCPUList []int
}

// hiddenFlags are development aids left out of -h.
var hiddenFlags = map[string]bool{"corekv-bin": true, "memory-keys": true, "max-requests": true, "csv": true}

func main() {
	if len(os.Args) > 1 && os.Args[1] == txnClientArg {
		os.Exit(txnClientMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == snapshotClientArg {
		os.Exit(snapshotClientMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := run(ctx, cfg, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// parseFlags reads args into a config. Presets of --quick and --smoke fill only the flags not given.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		serverCPUs   = fs.String("server-cpus", "", "CPUs for the servers, e.g. 1 or 2-5 (default: the allowed CPUs minus the client's)")
		clientCPUs   = fs.String("client-cpus", "", "CPUs for redis-benchmark (default: the first allowed CPU, 0 on most hosts)")
		tests        = fs.String("tests", "set,get,incr,mset", "redis-benchmark tests (-t), comma separated; \"default\": redis-benchmark's own list; hget, hmget, sismember: command lines on preloaded hashes and sets; evalsha1, evalsha10: EVALSHA of a script of one and of ten INCR calls; evalsha2shards: of one INCR on each of two keys of two shards; xadd, xaddmaxlen: XADD of two 8-byte fields, with MAXLEN ~ 1000 for the second; xrange10: XRANGE COUNT 10 of streams of ten")
		pipelines    = fs.String("pipelines", "1,16,64", "pipeline depths (-P)")
		clients      = fs.Int("clients", 50, "parallel connections (-c)")
		threads      = fs.Int("client-threads", 0, "redis-benchmark --threads (default: none; several client CPUs get one process each)")
		procs        = fs.Int("client-procs", 0, "redis-benchmark processes per cell, each pinned to one client CPU in turn (default: 1 per client CPU without --client-threads, else 1)")
		keyspaces    = fs.String("keyspaces", "100000,1000000", "key space sizes (-r)")
		sizes        = fs.String("sizes", "16,1024", "value sizes in bytes (-d)")
		shards       = fs.String("shards", "", "corekv shard counts (default: 1 and the number of server CPUs)")
		repeat       = fs.Int("repeat", 3, "runs per cell; the report keeps the median")
		requests     = fs.Int("requests", 200000, "requests per cell at P=1 (-n); deeper pipelines get more, see README")
		maxRequests  = fs.Int("max-requests", 0, "cap on requests per cell (default 10 x --requests)")
		preload      = fs.Bool("preload", true, "load every key of the key space before a get, hget, hmget or sismember cell, so lookups hit, and the key of a pop cell as redis-benchmark's tests before it leave it")
		csvMode      = fs.Bool("csv", false, "parse redis-benchmark --csv output (no p99.9)")
		quick        = fs.Bool("quick", false, "small matrix, under 2 minutes: set,get; P 1,64; r 100000; d 16; 1 run")
		smoke        = fs.Bool("smoke", false, "one short cell per server, a few seconds; for CI, no thresholds")
		scaling      = fs.Bool("scaling", false, "corekv at 1,2,4,... shards up to the server CPUs (redis stays at 1)")
		memory       = fs.Bool("memory", false, "only measure RSS per key after loading keys with -d 16 and -d 256 (the full run does it too)")
		memoryKeys   = fs.Int("memory-keys", 1000000, "keys loaded by the memory measurement")
		gc           = fs.Bool("gc", false, "only measure GC cycles, mark time, bytes/key and GET p99.9 of corekv (and redis) with --gc-keys keys loaded")
		gcKeys       = fs.String("gc-keys", "100000,10000000", "key counts of the --gc measurement")
		gcRequests   = fs.Int("gc-requests", 3000000, "requests (-n) of each GET run of the --gc measurement")
		expiry       = fs.Bool("expiry", false, "only measure expiry: keys left after a burst of PX 1000 keys, keys and RSS under TTL churn, CPU per expired key")
		expiryKeys   = fs.Int("expiry-keys", 1000000, "SETs (-n) of the --expiry burst")
		expiryChurn  = fs.Int("expiry-churn", 2000000, "SETs (-n) of each --expiry churn round")
		expiryRound  = fs.Int("expiry-rounds", 3, "churn rounds of the --expiry measurement")
		expirySteady = fs.Duration("expiry-steady", 30*time.Second, "length of the steady churn of the --expiry measurement (0: none)")
		expiryRest   = fs.Duration("expiry-rest", 15*time.Second, "how long the --expiry measurement watches a server after a churn")
		firstRun     = fs.Bool("first-run", false, "defaults on both sides, servers and client unpinned: get,set; P 1,16,64; r 100000; 5 runs; and the cost of a hop between shards")
		out          = fs.String("out", "", "report folder (default bench/results; a temp folder for --quick and --smoke)")
		timeout      = fs.Duration("timeout", 0, "bound on the whole run (default 90m; --quick 5m; --smoke 1m)")
		cellTimeout  = fs.Duration("cell-timeout", 2*time.Minute, "bound on one redis-benchmark run")
		corekvBin    = fs.String("corekv-bin", "", "use this binary as corekv instead of building ./cmd/corekv")
		corekvArgs   = fs.String("corekv-args", "", "options added to corekv's command line, e.g. \"--spin 0\"")
		onlyRedis    = fs.Bool("only-redis", false, "run redis-server in place of corekv too (tests the harness)")
		pubsub       = fs.Bool("pubsub", false, "only measure Pub/Sub: fan-out to 100 subscribers, delivery latency, a subscriber that stops reading")
		pubsubMsgs   = fs.Int("pubsub-messages", 100000, "messages published by the --pubsub fan-out run")
		blocking     = fs.Bool("blocking", false, "only measure blocking pops: clients blocked in BLPOP on keys over the shards, one producer; exactly once, elements/s, CPU while they sit blocked")
		blockClients = fs.Int("blocking-clients", 1000, "clients blocked in BLPOP by --blocking, each on a key of its own")
		blockElems   = fs.Int("blocking-elements", 1000000, "elements pushed by the --blocking producer")
		blockIdle    = fs.Duration("blocking-idle", 5*time.Second, "how long --blocking watches the server's CPU with every client blocked")
	)
	txn := addTxnFlags(fs)
	snap := addSnapshotFlags(fs)
	aofF := addAOFFlags(fs)
	evict := addEvictionFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: go run ./bench [flags]\n\n")
		fs.VisitAll(func(f *flag.Flag) {
			if hiddenFlags[f.Name] {
				return
			}
			name, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(stderr, "  --%s\n    \t%s", strings.TrimSpace(f.Name+" "+name), usage)
			if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && f.DefValue != "0s" {
				fmt.Fprintf(stderr, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(stderr)
		})
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	preset := func(name string, p *string, v string) {
		if !set[name] {
			*p = v
		}
	}
	presetInt := func(name string, p *int, v int) {
		if !set[name] {
			*p = v
		}
	}
	if *quick && *smoke {
		return nil, errors.New("--quick and --smoke exclude each other")
	}
	if *firstRun && (*quick || *scaling || *gc || *expiry || *memory) {
		return nil, errors.New("--first-run excludes the other modes but --smoke")
	}
	hopGets := hopSingles
	if *smoke {
		hopGets = 1000
	}
	switch {
	case *smoke:
		preset("tests", tests, "set")
		preset("pipelines", pipelines, "16")
		preset("keyspaces", keyspaces, "1000")
		preset("sizes", sizes, "16")
		presetInt("clients", clients, 10)
		presetInt("repeat", repeat, 1)
		presetInt("requests", requests, 20000)
		presetInt("max-requests", maxRequests, 20000)
		preset("gc-keys", gcKeys, "1000,2000")
		presetInt("gc-requests", gcRequests, 20000)
		presetInt("expiry-keys", expiryKeys, 20000)
		presetInt("expiry-churn", expiryChurn, 20000)
		presetInt("expiry-rounds", expiryRound, 1)
		if !set["expiry-steady"] {
			*expirySteady = time.Second
		}
		if !set["expiry-rest"] {
			*expiryRest = time.Second
		}
		if !set["timeout"] {
			*timeout = time.Minute
		}
		if !set["cell-timeout"] {
			*cellTimeout = 20 * time.Second
		}
	case *firstRun:
		// The scenario of a first try: redis-benchmark's own default value
		// size, one key space, and more runs, since nothing is pinned.
		preset("tests", tests, "get,set")
		preset("pipelines", pipelines, "1,16,64")
		preset("keyspaces", keyspaces, "100000")
		preset("sizes", sizes, "3")
		presetInt("repeat", repeat, 5)
	case *quick:
		preset("tests", tests, "set,get")
		preset("pipelines", pipelines, "1,64")
		preset("keyspaces", keyspaces, "100000")
		preset("sizes", sizes, "16")
		presetInt("repeat", repeat, 1)
		presetInt("requests", requests, 50000)
		preset("gc-keys", gcKeys, "100000,1000000")
		presetInt("gc-requests", gcRequests, 1000000)
		presetInt("expiry-churn", expiryChurn, 1000000)
		presetInt("expiry-rounds", expiryRound, 1)
		if !set["expiry-steady"] {
			*expirySteady = 10 * time.Second
		}
		if !set["timeout"] {
			*timeout = 5 * time.Minute
		}
		if !set["cell-timeout"] {
			*cellTimeout = 30 * time.Second
		}
	}
	if *timeout == 0 {
		*timeout = 90 * time.Minute
	}
	if *maxRequests == 0 {
		*maxRequests = 10 * *requests
	}

	cfg := &config{
		Clients: *clients, ClientThreads: *threads, ClientProcs: *procs, Repeat: *repeat,
		Requests: *requests, MaxRequests: *maxRequests, Preload: *preload, CSV: *csvMode,
		Quick: *quick, Smoke: *smoke, Scaling: *scaling, MemoryOnly: *memory,
		Memory: *memory || !(*quick || *smoke || *scaling || *gc || *expiry || *firstRun),
		GC:     *gc, GCRequests: *gcRequests,
		Expiry: *expiry, ExpiryKeys: *expiryKeys, ExpiryChurn: *expiryChurn, ExpiryRounds: *expiryRound,
		ExpirySteady: *expirySteady, ExpiryRest: *expiryRest, FirstRun: *firstRun,
		HopGets:    hopGets,
		MemoryKeys: *memoryKeys, MemorySizes: []int{16, 256}, Out: *out, Timeout: *timeout,
		CellTimeout: *cellTimeout, CorekvBin: *corekvBin, CorekvArgs: strings.Fields(*corekvArgs),
		OnlyRedis: *onlyRedis, PubSub: *pubsub, PubSubMsgs: *pubsubMsgs,
		Blocking: *blocking, BlockClients: *blockClients, BlockElements: *blockElems, BlockIdle: *blockIdle,
	}
	var allowed []int
	var err error
	if *clientCPUs == "" || *serverCPUs == "" {
		if allowed, err = allowedCPUs(); err != nil {
			return nil, err
		}
	}
	if *clientCPUs == "" {
		cfg.clientCPUList = allowed[:1]
	} else if cfg.clientCPUList, err = parseCPUList(*clientCPUs); err != nil {
		return nil, fmt.Errorf("--client-cpus: %w", err)
	}
	cfg.ClientCPUs = formatCPUList(cfg.clientCPUList)
	if *serverCPUs == "" {
		cfg.serverCPUList = without(allowed, cfg.clientCPUList)
		if len(cfg.serverCPUList) == 0 {
			cfg.serverCPUList = allowed
		}
	} else if cfg.serverCPUList, err = parseCPUList(*serverCPUs); err != nil {
		return nil, fmt.Errorf("--server-cpus: %w", err)
	}
	cfg.ServerCPUs = formatCPUList(cfg.serverCPUList)
	// Several single-threaded processes rather than one with --threads: redis-benchmark's threaded mode
	// notices the end of a run only at its 250 ms tick, which rounds every short cell's time up.
	switch {
	case cfg.ClientProcs < 0 || cfg.ClientThreads < 0:
		return nil, errors.New("--client-procs and --client-threads must not be negative")
	case cfg.ClientProcs == 0 && cfg.ClientThreads == 0:
		cfg.ClientProcs = len(cfg.clientCPUList)
	case cfg.ClientProcs == 0:
		cfg.ClientProcs = 1
	}

	cfg.Tests = splitList(*tests)
	if *tests == "default" {
		cfg.Tests = defaultTests
	}
	for _, t := range cfg.Tests {
		if strings.ContainsAny(t, " \t") {
			return nil, fmt.Errorf("--tests: bad test name %q", t)
		}
	}
	if cfg.Pipelines, err = parseInts(*pipelines); err != nil {
		return nil, fmt.Errorf("--pipelines: %w", err)
	}
	if cfg.Keyspaces, err = parseInts(*keyspaces); err != nil {
		return nil, fmt.Errorf("--keyspaces: %w", err)
	}
	if cfg.Sizes, err = parseInts(*sizes); err != nil {
		return nil, fmt.Errorf("--sizes: %w", err)
	}
	if cfg.GC {
		if cfg.GCKeys, err = parseInts(*gcKeys); err != nil {
			return nil, fmt.Errorf("--gc-keys: %w", err)
		}
		if len(cfg.GCKeys) == 0 {
			return nil, errors.New("--gc-keys needs at least one key count")
		}
		if cfg.CSV {
			return nil, errors.New("--gc reports p99.9, which --csv output lacks")
		}
	} else {
		cfg.GCRequests = 0
	}
	n := len(cfg.serverCPUList)
	switch {
	case cfg.OnlyRedis:
		cfg.Shards = []int{1}
	case *shards != "":
		if cfg.Shards, err = parseInts(*shards); err != nil {
			return nil, fmt.Errorf("--shards: %w", err)
		}
	case cfg.FirstRun:
		// corekv's own default; --shards adds targets beside it.
		cfg.Shards = nil
	case cfg.Scaling:
		cfg.Shards = scalingShards(n)
	case cfg.Smoke:
		cfg.Shards = []int{n}
	default:
		cfg.Shards = dedupInts([]int{1, n})
	}
	if len(cfg.Tests) == 0 || len(cfg.Pipelines) == 0 || len(cfg.Keyspaces) == 0 || len(cfg.Sizes) == 0 {
		return nil, errors.New("--tests, --pipelines, --keyspaces and --sizes need at least one value")
	}
	if cfg.Expiry && cfg.GC {
		return nil, errors.New("--expiry and --gc exclude each other")
	}
	if cfg.Expiry && (cfg.ExpiryKeys < 1 || cfg.ExpiryChurn < 1 || cfg.ExpiryRounds < 1) {
		return nil, errors.New("--expiry-keys, --expiry-churn and --expiry-rounds must be positive")
	}
	if cfg.Clients < 1 || cfg.Repeat < 1 || cfg.Requests < 1 || cfg.MemoryKeys < 1 || (cfg.GC && cfg.GCRequests < 1) {
		return nil, errors.New("--clients, --repeat, --requests, --memory-keys and --gc-requests must be positive")
	}
	if cfg.Out == "" && (cfg.Quick || cfg.Smoke) {
		cfg.TempOut = true
	}
	if err := txn.apply(cfg, set); err != nil {
		return nil, err
	}
	if err := aofF.apply(cfg, set); err != nil {
		return nil, err
	}
	if err := snap.apply(cfg, set); err != nil {
		return nil, err
	}
	if err := evict.apply(cfg, set); err != nil {
		return nil, err
	}
	return cfg, nil
}

// requestsFor is the -n of a cell: --requests at P=1, growing with the pipeline depth (deeper pipelines run
// faster, so a cell lasts about as long), never above --max-requests.
func requestsFor(base, maxN, pipeline int) int {
	n := base
	if pipeline > 4 {
		n = base * pipeline / 4
	}
	return min(n, maxN)
}

// scalingShards is 1, 2, 4, … up to n, and n itself.
func scalingShards(n int) []int {
	var out []int
	for k := 1; k < n; k *= 2 {
		out = append(out, k)
	}
	return append(out, max(n, 1))
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, strings.ToLower(f))
		}
	}
	return out
}

func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range splitList(s) {
		v, err := strconv.Atoi(f)
		if err != nil || v < 1 {
			return nil, fmt.Errorf("bad number %q", f)
		}
		out = append(out, v)
	}
	return dedupInts(out), nil
}

// dedupInts drops repeated values and keeps the first order.
func dedupInts(in []int) []int {
	seen := map[int]bool{}
	var out []int
	for _, v := range in {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// parseCPUList reads a Linux CPU list such as "0-3,6".
func parseCPUList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(strings.TrimSpace(s), ",") {
		if f == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(lo)
		if err != nil || a < 0 {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return nil, fmt.Errorf("bad CPU list %q", s)
			}
		}
		for c := a; c <= b; c++ {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty CPU list %q", s)
	}
	out = dedupInts(out)
	sort.Ints(out)
	return out, nil
}

// formatCPUList writes sorted CPUs in the form taskset reads, folding runs into ranges.
func formatCPUList(cpus []int) string {
	var b strings.Builder
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteString("-" + strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

func without(all, drop []int) []int {
	skip := map[int]bool{}
	for _, c := range drop {
		skip[c] = true
	}
	var out []int
	for _, c := range all {
		if !skip[c] {
			out = append(out, c)
		}
	}
	return out
}

// allowedCPUs is this process's affinity mask, from /proc/self/status.
func allowedCPUs() ([]int, error) {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return parseCPUList(v)
		}
	}
	return nil, errors.New("no Cpus_allowed_list in /proc/self/status")
}

// defaultTests is what redis-benchmark runs without -t, one test per cell.
var defaultTests = []string{"ping_inline", "ping_mbulk", "set", "get", "incr", "lpush", "rpush", "lpop", "rpop",
	"sadd", "hset", "spop", "zadd", "zpopmin", "lrange_100", "lrange_300", "lrange_500", "lrange_600", "mset"}
