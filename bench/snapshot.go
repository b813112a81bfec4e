package main

// The --snapshot mode: what a background save costs, corekv (no fork: each shard walks its tables a slice per
// turn, copying a bucket before a write reaches it) against redis-server (fork, copy-on-write). Every round
// starts each target afresh with its own --dir and, on it:
//
//  1. loads --snapshot-keys keys (strings of --snapshot-size bytes, every --snapshot-hash-every-th key a hash of
//     10 fields of the same total size), pipelined, from the harness;
//  2. sends BGSAVE with nothing else running and times it (BGSAVE sent -> rdb_bgsave_in_progress:0);
//  3. starts the write load, a child process of this binary pinned to the client CPUs: --snapshot-conns
//     connections, each sending snapshotDepth random overwrites of existing keys and waiting for every reply,
//     recording send, first and last reply times of each batch; after --snapshot-warmup it sends BGSAVE again,
//     samples the memory every snapshotMemPoll and INFO persistence every snapshotPoll until the save is done,
//     and lets the load run --snapshot-after more;
//  4. stops the server and starts it again on the file, timing exec -> first +PONG.

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

const (
	snapshotClientArg = "--snapshot-client" // first argument: run as the --snapshot write load
	snapshotDepth     = 16                  // commands per batch of the write load
	snapshotFields    = 10                  // fields of each hash of the dataset
	snapshotPoll      = 10 * time.Millisecond
	snapshotMemPoll   = 20 * time.Millisecond
	snapshotBin       = 100 * time.Millisecond // throughput chart resolution
	snapshotSkip      = 500 * time.Millisecond // the load's ramp-up, left out of the "before" window
	snapshotSaveLimit = 10 * time.Minute       // bound on one BGSAVE
	snapshotLoadLimit = 5 * time.Minute        // bound on a start on the file
	snapshotMaxLoad   = 30 * time.Minute       // bound on the write load child
	snapshotRecord    = 24                     // bytes per batch record: send, first, last reply (unix ns)
)

// snapshotConfig holds the --snapshot flags.
type snapshotConfig struct {
	Keys      int           `json:"keys"`
	Size      int           `json:"value_size"`
	HashEvery int           `json:"hash_every"` // every n-th key is a hash; 0: none
	Conns     int           `json:"conns"`
	Warmup    time.Duration `json:"warmup_ns"`
	After     time.Duration `json:"after_ns"`
}

type snapshotFlags struct {
	on                 *bool
	keys, size, hashes *int
	conns              *int
	warmup, after      *time.Duration
}

func addSnapshotFlags(fs *flag.FlagSet) *snapshotFlags {
	return &snapshotFlags{
		on: fs.Bool("snapshot", false, "only measure BGSAVE: wall time at idle and under random overwrites, extra memory, "+
			"write throughput and latency during it, file size and load time at start (redis and corekv, --shards 1,2)"),
		keys:   fs.Int("snapshot-keys", 2000000, "keys loaded before the --snapshot saves"),
		size:   fs.Int("snapshot-size", 100, "bytes per value of the --snapshot dataset (a hash: all its fields)"),
		hashes: fs.Int("snapshot-hash-every", 10, "every n-th key of the --snapshot dataset is a hash of 10 fields (0: none)"),
		conns:  fs.Int("snapshot-conns", 4, "connections of the --snapshot write load, each with 16 writes in flight"),
		warmup: fs.Duration("snapshot-warmup", 3*time.Second, "write load before the --snapshot BGSAVE"),
		after:  fs.Duration("snapshot-after", 2*time.Second, "write load after the --snapshot BGSAVE is done"),
	}
}

// apply sets cfg.Snapshot; --repeat defaults to 1 and --shards to 1,2 in this mode.
func (f *snapshotFlags) apply(cfg *config, set map[string]bool) error {
	if !*f.on {
		return nil
	}
	if cfg.GC || cfg.Expiry || cfg.MemoryOnly || cfg.Scaling || cfg.Txn || cfg.FirstRun || cfg.PubSub || cfg.Blocking ||
		cfg.AOF != nil {
		return errors.New("--snapshot excludes the other modes")
	}
	s := &snapshotConfig{Keys: *f.keys, Size: *f.size, HashEvery: *f.hashes, Conns: *f.conns, Warmup: *f.warmup,
		After: *f.after}
	if cfg.Smoke && !set["snapshot-keys"] {
		s.Keys = 20000
	}
	if s.Keys < 1 || s.Size < snapshotFields || s.HashEvery < 0 || s.Conns < 1 || s.Warmup < time.Second || s.After < 0 {
		return errors.New("--snapshot-keys and --snapshot-conns must be positive, --snapshot-size at least 10, " +
			"--snapshot-warmup at least 1s")
	}
	cfg.Snapshot, cfg.Memory = s, false
	if !set["repeat"] {
		cfg.Repeat = 1
	}
	if !set["shards"] && !cfg.OnlyRedis {
		cfg.Shards = []int{1, 2}
	}
	return nil
}

// snapshotRun is what one round measured on one target.
type snapshotRun struct {
	Target target `json:"target"`
	Round  int    `json:"round"`
	Error  string `json:"error,omitempty"`

	Keys      int64   `json:"keys"` // DBSIZE after the load
	LoadedRSS int64   `json:"loaded_rss_bytes"`
	IdleSaveS float64 `json:"idle_save_s"`

	SaveS        float64 `json:"save_s"` // under load
	RSSBefore    int64   `json:"rss_before_bytes"`
	RSSPeak      int64   `json:"rss_peak_bytes"`
	ChildDirty   int64   `json:"child_private_dirty_peak_bytes"` // redis: the fork's Private_Dirty
	ExtraMem     int64   `json:"extra_memory_bytes"`             // corekv: RSS peak-before; redis: parent delta + child dirty
	MachineDelta int64   `json:"machine_used_delta_bytes"`       // /proc/meminfo used, peak during - before
	CowSize      int64   `json:"rdb_last_cow_size,omitempty"`    // redis's own figure

	OpsBefore   float64 `json:"ops_per_s_before"`
	OpsDuring   float64 `json:"ops_per_s_during"`
	P99BeforeMs float64 `json:"batch_p99_ms_before"`
	P99DuringMs float64 `json:"batch_p99_ms_during"`
	MaxBeforeMs float64 `json:"batch_max_ms_before"`
	MaxDuringMs float64 `json:"batch_max_ms_during"`
	StallBefore float64 `json:"stall_ms_before"` // longest time no reply came on any connection
	StallDuring float64 `json:"stall_ms_during"`
	Batches     int     `json:"batches"`

	FileBytes  int64   `json:"file_bytes"`
	StartLoadS float64 `json:"start_load_s"` // exec -> first +PONG on the file
	LoadedKeys int64   `json:"start_loaded_keys"`

	// Series is ops/s per snapshotBin, from the start of the load; SaveAtS and SaveEndS place the BGSAVE on it.
	Series   []float64 `json:"ops_per_s_series"`
	SaveAtS  float64   `json:"save_at_s"`
	SaveEndS float64   `json:"save_end_s"`
}

// snapshotMetric is one row of the report, read off a run.
type snapshotMetric struct {
	Name  string
	Ratio bool // a corekv ÷ redis column makes sense
	Get   func(r *snapshotRun) float64
	Fmt   string
}

var snapshotMetrics = []snapshotMetric{
	{"keys (DBSIZE after the load)", false, func(r *snapshotRun) float64 { return float64(r.Keys) }, "%.0f"},
	{"RSS after the load, MiB", true, func(r *snapshotRun) float64 { return mib(r.LoadedRSS) }, "%.0f"},
	{"**BGSAVE at idle, s**", true, func(r *snapshotRun) float64 { return r.IdleSaveS }, "%.2f"},
	{"BGSAVE under write load, s", true, func(r *snapshotRun) float64 { return r.SaveS }, "%.2f"},
	{"extra memory during the save, MiB", true, func(r *snapshotRun) float64 { return mib(r.ExtraMem) }, "%.1f"},
	{"… of which the fork's Private_Dirty, MiB", false, redisOnly(func(r *snapshotRun) float64 { return mib(r.ChildDirty) }), "%.1f"},
	{"… rdb_last_cow_size, MiB", false, redisOnly(func(r *snapshotRun) float64 { return mib(r.CowSize) }), "%.1f"},
	{"machine used memory delta, MiB", true, func(r *snapshotRun) float64 { return mib(r.MachineDelta) }, "%.1f"},
	{"writes/s before", true, func(r *snapshotRun) float64 { return r.OpsBefore }, "%.0f"},
	{"writes/s during", true, func(r *snapshotRun) float64 { return r.OpsDuring }, "%.0f"},
	{"writes/s during ÷ before", true, func(r *snapshotRun) float64 { return ratio(r.OpsDuring, r.OpsBefore) }, "%.2f"},
	{"batch p99 before, ms", true, func(r *snapshotRun) float64 { return r.P99BeforeMs }, "%.2f"},
	{"batch p99 during, ms", true, func(r *snapshotRun) float64 { return r.P99DuringMs }, "%.2f"},
	{"batch max before, ms", true, func(r *snapshotRun) float64 { return r.MaxBeforeMs }, "%.1f"},
	{"batch max during, ms", true, func(r *snapshotRun) float64 { return r.MaxDuringMs }, "%.1f"},
	{"longest stall before, ms", true, func(r *snapshotRun) float64 { return r.StallBefore }, "%.1f"},
	{"longest stall during, ms", true, func(r *snapshotRun) float64 { return r.StallDuring }, "%.1f"},
	{"dump.rdb, MiB", true, func(r *snapshotRun) float64 { return mib(r.FileBytes) }, "%.1f"},
	{"start on the file, s (exec → +PONG)", true, func(r *snapshotRun) float64 { return r.StartLoadS }, "%.2f"},
	{"keys loaded per s at start", true, func(r *snapshotRun) float64 {
		if r.StartLoadS <= 0 {
			return 0
		}
		return float64(r.LoadedKeys) / r.StartLoadS
	}, "%.0f"},
}

// redisOnly is a figure that only a forking server has; corekv's rows say "-".
func redisOnly(get func(r *snapshotRun) float64) func(r *snapshotRun) float64 {
	return func(r *snapshotRun) float64 {
		if r.Target.Server != "redis" {
			return math.NaN()
		}
		return get(r)
	}
}

// snapshotReport is the JSON of a --snapshot run.
type snapshotReport struct {
	Machine machine                       `json:"machine"`
	Config  *config                       `json:"config"`
	Command string                        `json:"command"`
	Started time.Time                     `json:"started"`
	Runs    []*snapshotRun                `json:"runs"`
	Medians map[string]map[string]float64 `json:"medians"` // target label -> metric -> median
}

func runSnapshot(ctx context.Context, cfg *config, tl *tools, work, root string, stdout io.Writer) error {
	rep := &snapshotReport{Config: cfg, Started: time.Now(), Machine: describeMachine(ctx, tl, root, cfg),
		Command: "go run ./bench " + shellJoin(os.Args[1:])}
	tgs := targets(cfg)
	var runErr error
rounds:
	for round := range cfg.Repeat {
		for _, t := range roundOrder(tgs, round) {
			if runErr = ctx.Err(); runErr != nil {
				break rounds
			}
			r := measureSnapshot(ctx, cfg, tl, t, work)
			r.Round = round
			rep.Runs = append(rep.Runs, r)
			if r.Error != "" {
				fmt.Fprintf(stdout, "snapshot %-9s FAILED: %s\n", t.label(), firstLine(r.Error))
				continue
			}
			fmt.Fprintf(stdout, "snapshot %-9s %d keys; BGSAVE idle %.2fs, under load %.2fs; extra %.0f MiB; "+
				"writes/s %.0f -> %.0f; p99 %.2f -> %.2f ms; stall %.0f -> %.0f ms; file %.0f MiB; start %.2fs\n",
				t.label(), r.Keys, r.IdleSaveS, r.SaveS, mib(r.ExtraMem), r.OpsBefore, r.OpsDuring,
				r.P99BeforeMs, r.P99DuringMs, r.StallBefore, r.StallDuring, mib(r.FileBytes), r.StartLoadS)
		}
	}
	rep.Medians = map[string]map[string]float64{}
	for _, t := range tgs {
		m := map[string]float64{}
		for _, mt := range snapshotMetrics {
			if v, ok := snapshotMedian(rep.Runs, t, mt); ok {
				m[mt.Name] = v
			}
		}
		rep.Medians[t.label()] = m
	}
	out := cfg.Out
	if out == "" {
		out = filepath.Join(root, "bench", "results")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return errors.Join(runErr, err)
	}
	base := filepath.Join(out, time.Now().UTC().Format("2006-01-02")+"-vm-snapshot")
	var errs []error
	chart := base + "-throughput.svg"
	if err := snapshotChart(rep, tgs, chart); err != nil {
		errs, chart = append(errs, err), ""
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(base+".json", append(js, '\n'), 0o644)
	}
	errs = append(errs, err)
	errs = append(errs, os.WriteFile(base+".md", []byte(snapshotMarkdown(rep, tgs, runErr, filepath.Base(chart))), 0o644))
	for _, f := range []string{base + ".md", base + ".json", chart} {
		if f != "" {
			fmt.Fprintln(stdout, "wrote", f)
		}
	}
	failed := 0
	for _, r := range rep.Runs {
		if r.Error != "" {
			failed++
		}
	}
	if failed > 0 && runErr == nil {
		runErr = fmt.Errorf("%d of %d runs failed; see the report", failed, len(rep.Runs))
	}
	return errors.Join(append(errs, runErr)...)
}

// roundOrder is tgs in the order round runs them: reversed every other
// round, so that drift of a shared host falls on every server.
func roundOrder(tgs []target, round int) []target {
	order := append([]target(nil), tgs...)
	if round%2 == 1 {
		for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
			order[i], order[j] = order[j], order[i]
		}
	}
	return order
}

// snapshotMedian is the median of a metric over the good runs of t.
func snapshotMedian(runs []*snapshotRun, t target, mt snapshotMetric) (float64, bool) {
	var xs []float64
	for _, r := range runs {
		if r.Target == t && r.Error == "" {
			if v := mt.Get(r); !math.IsNaN(v) {
				xs = append(xs, v)
			}
		}
	}
	if len(xs) == 0 {
		return 0, false
	}
	return median(xs), true
}

func measureSnapshot(ctx context.Context, cfg *config, tl *tools, t target, work string) *snapshotRun {
	sc := cfg.Snapshot
	r := &snapshotRun{Target: t}
	var srv *server
	fail := func(err error) *snapshotRun {
		r.Error = err.Error()
		if srv != nil && !srv.alive() {
			r.Error += logTail(srv.logPath)
		}
		if srv != nil {
			srv.stop()
		}
		return r
	}
	dir, err := os.MkdirTemp(work, "snapshot-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(dir)
	extra := []string{"--dir", dir}
	if srv, err = startServer(ctx, tl, t, cfg.OnlyRedis, work, extra); err != nil {
		return fail(err)
	}
	addr := srv.addr()
	if err := preloadWith(ctx, addr, sc.Keys, 4, snapshotFill(sc), "+OK\r\n"); err != nil {
		return fail(err)
	}
	if r.Keys, err = dbSize(addr); err != nil {
		return fail(err)
	}
	if r.Keys != int64(sc.Keys) {
		return fail(fmt.Errorf("DBSIZE %d after loading %d keys", r.Keys, sc.Keys))
	}
	time.Sleep(time.Second) // let a GC cycle or a rehash settle
	r.LoadedRSS, _ = rssBytes(srv.pid())

	sent, done, err := bgsave(ctx, addr)
	if err != nil {
		return fail(fmt.Errorf("BGSAVE at idle: %w", err))
	}
	r.IdleSaveS = done.Sub(sent).Seconds()

	if err := snapshotUnderLoad(ctx, cfg, srv, r, filepath.Join(dir, "batches.bin")); err != nil {
		return fail(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "dump.rdb")); err == nil {
		r.FileBytes = st.Size()
	} else {
		return fail(err)
	}
	// --save "" on both: SIGTERM does not save again, so the file is the one measured.
	srv.stop()
	srv = nil
	r.StartLoadS, r.LoadedKeys, err = startOnFile(ctx, cfg, tl, t, work, extra)
	if err != nil {
		return fail(fmt.Errorf("start on the file: %w", err))
	}
	return r
}

// snapshotValues is incompressible filler: the values are slices of it, so that LZF in either file format does
// not shrink the dataset to nothing, as it would a value of one repeated byte.
var snapshotValues = func() string {
	rng := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 1<<16)
	for i := range b {
		b[i] = byte('!' + rng.IntN(94))
	}
	return string(b)
}()

func snapshotValue(n, size int) string {
	off := (n * 7919) % (len(snapshotValues) - size)
	return snapshotValues[off : off+size]
}

// snapshotFill loads key n: a hash of snapshotFields fields for every HashEvery-th key, else a string.
func snapshotFill(sc *snapshotConfig) func(dst []byte, n int) []byte {
	fieldSize := sc.Size / snapshotFields
	return func(dst []byte, n int) []byte {
		if sc.HashEvery > 0 && n%sc.HashEvery == 0 {
			args := []string{"HMSET", benchKey(n)}
			for f := range snapshotFields {
				args = append(args, "f"+strconv.Itoa(f), snapshotValue(n+f, fieldSize))
			}
			return appendCommand(dst, args...)
		}
		return appendCommand(dst, "SET", benchKey(n), snapshotValue(n, sc.Size))
	}
}

// persistence reads the fields of INFO persistence that say where a save stands.
func persistence(addr string) (inProgress bool, saves int64, status string, err error) {
	f, err := infoValues(addr, "persistence")
	if err != nil {
		return false, 0, "", err
	}
	saves, _ = strconv.ParseInt(f["rdb_saves"], 10, 64)
	return f["rdb_bgsave_in_progress"] == "1", saves, f["rdb_last_bgsave_status"], nil
}

// bgsave sends BGSAVE and polls INFO persistence until the save is done; it returns when BGSAVE was sent and
// when the poll saw the save done.
func bgsave(ctx context.Context, addr string) (sent, done time.Time, err error) {
	_, before, _, err := persistence(addr)
	if err != nil {
		return sent, done, err
	}
	sent = time.Now()
	if _, err := command(addr, 10*time.Second, "BGSAVE"); err != nil {
		return sent, done, err
	}
	for time.Since(sent) < snapshotSaveLimit {
		busy, saves, status, err := persistence(addr)
		if err != nil {
			return sent, done, err
		}
		// rdb_saves counts finished saves, so a save that ended between two polls is not missed.
		if !busy && saves > before {
			if status != "ok" {
				return sent, done, fmt.Errorf("rdb_last_bgsave_status:%s", status)
			}
			return sent, time.Now(), nil
		}
		select {
		case <-ctx.Done():
			return sent, done, ctx.Err()
		case <-time.After(snapshotPoll):
		}
	}
	return sent, done, fmt.Errorf("BGSAVE not done after %v", snapshotSaveLimit)
}

// memSample is one look at the server's memory.
type memSample struct {
	at         time.Time
	rss, dirty int64 // dirty: the Private_Dirty of the server's child, if it has one
	used       int64 // the machine's, from /proc/meminfo
}

// sampleMemory samples pid every snapshotMemPoll until stop is closed.
func sampleMemory(pid int, stop <-chan struct{}) []memSample {
	var out []memSample
	child := 0
	for {
		s := memSample{at: time.Now()}
		s.rss, _ = rssBytes(pid)
		if child == 0 || !childOf(child, pid) {
			child = findChild(pid)
		}
		if child != 0 {
			if data, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", child)); err == nil {
				s.dirty, _ = parsePrivateDirty(string(data))
			}
		}
		if data, err := os.ReadFile("/proc/meminfo"); err == nil {
			s.used, _ = parseMemUsed(string(data))
		}
		out = append(out, s)
		select {
		case <-stop:
			return out
		case <-time.After(snapshotMemPoll):
		}
	}
}

// findChild is the first process whose parent is pid (Redis's save child), or 0.
func findChild(pid int) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range ents {
		c, err := strconv.Atoi(e.Name())
		if err == nil && c != pid && childOf(c, pid) {
			return c
		}
	}
	return 0
}

func childOf(c, pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c))
	if err != nil {
		return false
	}
	pp, err := parseStatusField(string(data), "PPid:")
	return err == nil && pp == int64(pid)
}

// parseStatusField reads an integer field of /proc/<pid>/status, e.g. "PPid:".
func parseStatusField(status, name string) (int64, error) {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, name); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc status", name)
}

// kbFields reads "Name:   123 kB" lines, as /proc/meminfo and smaps_rollup write them, into bytes.
func kbFields(text string) map[string]int64 {
	out := map[string]int64{}
	for _, line := range strings.Split(text, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 2 && f[1] == "kB" {
			if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
				out[strings.TrimSpace(k)] = n * 1024
			}
		}
	}
	return out
}

// parsePrivateDirty is Private_Dirty of a /proc/<pid>/smaps_rollup, in bytes.
func parsePrivateDirty(smaps string) (int64, error) {
	v, ok := kbFields(smaps)["Private_Dirty"]
	if !ok {
		return 0, errors.New("no Private_Dirty in smaps_rollup")
	}
	return v, nil
}

// parseMemUsed is the machine's used memory as free(1) counts it: MemTotal - MemFree - Buffers - Cached -
// SReclaimable. The page cache the dump file fills is left out.
func parseMemUsed(meminfo string) (int64, error) {
	f := kbFields(meminfo)
	total, ok1 := f["MemTotal"]
	free, ok2 := f["MemFree"]
	if !ok1 || !ok2 {
		return 0, errors.New("no MemTotal or MemFree in /proc/meminfo")
	}
	return total - free - f["Buffers"] - f["Cached"] - f["SReclaimable"], nil
}

// batch is one pipeline batch of the write load, in unix nanoseconds.
type batch struct{ send, first, last int64 }

// snapshotUnderLoad runs the write load, sends BGSAVE after the warm-up and fills r's figures.
func snapshotUnderLoad(ctx context.Context, cfg *config, srv *server, r *snapshotRun, recPath string) error {
	sc := cfg.Snapshot
	self, err := os.Executable()
	if err != nil {
		return err
	}
	argv := []string{"taskset", "-c", cfg.ClientCPUs, self, snapshotClientArg, "--addr", srv.addr(),
		"--keys", strconv.Itoa(sc.Keys), "--size", strconv.Itoa(sc.Size), "--hash-every", strconv.Itoa(sc.HashEvery),
		"--conns", strconv.Itoa(sc.Conns), "--max", snapshotMaxLoad.String(), "--out", recPath}
	cctx, cancel := context.WithTimeout(ctx, snapshotMaxLoad+time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdoutPipe, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	clientDone := func() error {
		stdin.Close()
		rest, _ := io.ReadAll(stdoutPipe)
		if err := cmd.Wait(); err != nil {
			return fmt.Errorf("write load: %v: %s%s", err, tail(stderr.String()), rest)
		}
		return nil
	}
	ready, err := bufio.NewReader(stdoutPipe).ReadString('\n')
	if err != nil || ready != "ready\n" {
		return errors.Join(fmt.Errorf("write load did not start: %q", ready), clientDone())
	}
	loadStart := time.Now()
	stop := make(chan struct{})
	samples := make(chan []memSample, 1)
	go func() { samples <- sampleMemory(srv.pid(), stop) }()

	time.Sleep(sc.Warmup)
	saveAt, saveEnd, saveErr := bgsave(ctx, srv.addr())
	close(stop)
	mem := <-samples
	if saveErr == nil {
		time.Sleep(sc.After)
	}
	if err := errors.Join(saveErr, clientDone()); err != nil {
		return err
	}
	r.SaveS = saveEnd.Sub(saveAt).Seconds()
	if info, err := infoInts(srv.addr(), "persistence"); err == nil {
		r.CowSize = info["rdb_last_cow_size"]
	}

	// Memory: the last sample before the save against the peak during it.
	var before memSample
	for _, s := range mem {
		if s.at.Before(saveAt) {
			before = s
		}
	}
	var peakRSS, peakExtra, peakUsed int64
	for _, s := range mem {
		if s.at.Before(saveAt) {
			continue
		}
		peakRSS, r.ChildDirty = max(peakRSS, s.rss), max(r.ChildDirty, s.dirty)
		peakExtra = max(peakExtra, s.rss-before.rss+s.dirty)
		peakUsed = max(peakUsed, s.used)
	}
	r.RSSBefore, r.RSSPeak, r.ExtraMem, r.MachineDelta = before.rss, peakRSS, peakExtra, peakUsed-before.used

	bs, err := readBatches(recPath)
	if err != nil {
		return err
	}
	r.Batches = len(bs)
	beforeLo := loadStart.Add(snapshotSkip).UnixNano()
	st := windowStats(bs, beforeLo, saveAt.UnixNano())
	r.OpsBefore, r.P99BeforeMs, r.MaxBeforeMs, r.StallBefore = st.opsPerS, st.p99Ms, st.maxMs, st.stallMs
	st = windowStats(bs, saveAt.UnixNano(), saveEnd.UnixNano())
	r.OpsDuring, r.P99DuringMs, r.MaxDuringMs, r.StallDuring = st.opsPerS, st.p99Ms, st.maxMs, st.stallMs
	r.Series = opsSeries(bs, loadStart.UnixNano(), snapshotBin)
	r.SaveAtS, r.SaveEndS = saveAt.Sub(loadStart).Seconds(), saveEnd.Sub(loadStart).Seconds()
	return nil
}

// winStats are the figures of the batches in one window of time.
type winStats struct {
	opsPerS, p99Ms, maxMs, stallMs float64
}

// windowStats measures [lo, hi): throughput from the batches completed in it, latency of the batches sent in
// it, and the longest time no reply arrived on any connection (the gaps of the union of the batches'
// first-to-last reply intervals, clipped to the window).
func windowStats(bs []batch, lo, hi int64) winStats {
	var st winStats
	if hi <= lo {
		return st
	}
	var lat []float64
	done := 0
	var spans []batch
	for _, b := range bs {
		if b.last >= lo && b.last < hi {
			done++
		}
		if b.send >= lo && b.send < hi {
			lat = append(lat, float64(b.last-b.send)/1e6)
		}
		if b.last >= lo && b.first < hi {
			spans = append(spans, b)
		}
	}
	st.opsPerS = float64(done*snapshotDepth) / (float64(hi-lo) / 1e9)
	sort.Float64s(lat)
	st.p99Ms = percentile(lat, 99)
	if len(lat) > 0 {
		st.maxMs = lat[len(lat)-1]
	}
	st.stallMs = float64(longestGap(spans, lo, hi)) / 1e6
	return st
}

// longestGap is the longest stretch of [lo, hi) that no [first, last] interval of bs covers.
func longestGap(bs []batch, lo, hi int64) int64 {
	sort.Slice(bs, func(i, j int) bool { return bs[i].first < bs[j].first })
	end, gap := lo, int64(0)
	for _, b := range bs {
		if b.first > end {
			gap = max(gap, min(b.first, hi)-end)
		}
		end = max(end, b.last)
		if end >= hi {
			return gap
		}
	}
	return max(gap, hi-end)
}

// percentile is the nearest-rank p-th percentile of sorted xs; 0 when xs is empty.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	k := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(k, 0), len(sorted)-1)]
}

// opsSeries is the commands answered per second in each bin from origin on.
func opsSeries(bs []batch, origin int64, bin time.Duration) []float64 {
	var out []float64
	for _, b := range bs {
		i := int((b.last - origin) / int64(bin))
		if i < 0 {
			continue
		}
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i] += snapshotDepth / bin.Seconds()
	}
	// The last bin is cut short by the stop.
	if len(out) > 0 {
		out = out[:len(out)-1]
	}
	return out
}

func readBatches(path string) ([]batch, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data)%snapshotRecord != 0 {
		return nil, fmt.Errorf("%s: %d bytes, not a whole number of records", path, len(data))
	}
	out := make([]batch, 0, len(data)/snapshotRecord)
	for i := 0; i < len(data); i += snapshotRecord {
		le := binary.LittleEndian
		out = append(out, batch{int64(le.Uint64(data[i:])), int64(le.Uint64(data[i+8:])), int64(le.Uint64(data[i+16:]))})
	}
	return out, nil
}

// startOnFile starts t on the dump.rdb in its --dir and times exec -> first +PONG (Redis answers -LOADING
// meanwhile; corekv listens only after the load); it returns that and DBSIZE then.
func startOnFile(ctx context.Context, cfg *config, tl *tools, t target, work string, extra []string) (float64, int64, error) {
	port, err := freePort()
	if err != nil {
		return 0, 0, err
	}
	argv := append(serverArgv(tl, t, port, cfg.OnlyRedis), extra...)
	s := &server{target: t, Port: port, Argv: argv, done: make(chan struct{})}
	s.logPath = filepath.Join(work, fmt.Sprintf("%s-%d-load.log", strings.ReplaceAll(t.label(), "/", "-"), port))
	logf, err := os.Create(s.logPath)
	if err != nil {
		return 0, 0, err
	}
	s.cmd = exec.Command(argv[0], argv[1:]...)
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	t0 := time.Now()
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return 0, 0, err
	}
	go func() {
		s.cmd.Wait()
		logf.Close()
		close(s.done)
	}()
	defer s.stop()
	deadline := t0.Add(snapshotLoadLimit)
	for {
		if pingUntil(s.addr(), deadline) == nil {
			break
		}
		if !s.alive() {
			return 0, 0, errors.New("exited while loading" + logTail(s.logPath))
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return 0, 0, errors.Join(ctx.Err(), fmt.Errorf("no +PONG within %v", snapshotLoadLimit))
		}
		time.Sleep(2 * time.Millisecond)
	}
	took := time.Since(t0).Seconds()
	n, err := dbSize(s.addr())
	return took, n, err
}

// pingUntil sends PING and waits for its reply until deadline: a server that has not accepted yet leaves the
// connection in the backlog, and the reply comes when it does.
func pingUntil(addr string, deadline time.Time) error {
	c, err := net.DialTimeout("tcp", addr, time.Until(deadline))
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(deadline)
	if _, err := c.Write([]byte("PING\r\n")); err != nil {
		return err
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	if line != "+PONG\r\n" {
		return fmt.Errorf("PING answered %q", strings.TrimSpace(line))
	}
	return nil
}

// snapshotClientMain is the write load, run as a child of the harness on the client CPUs: it prints "ready"
// once connected, then writes until its stdin closes or --max passes, and writes the batch records to --out.
func snapshotClientMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(snapshotClientArg, flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "", "server address")
	keys := fs.Int("keys", 0, "keys of the dataset")
	size := fs.Int("size", 100, "value size")
	hashEvery := fs.Int("hash-every", 0, "every n-th key is a hash")
	conns := fs.Int("conns", 4, "connections")
	maxD := fs.Duration("max", time.Minute, "bound on the load")
	out := fs.String("out", "", "record file")
	if err := fs.Parse(args); err != nil || *keys < 1 || *out == "" {
		fmt.Fprintln(stderr, "snapshot client: bad arguments", err)
		return 2
	}
	cs := make([]net.Conn, *conns)
	for i := range cs {
		var err error
		if cs[i], err = net.DialTimeout("tcp", *addr, 5*time.Second); err != nil {
			fmt.Fprintln(stderr, "snapshot client:", err)
			return 1
		}
		defer cs[i].Close()
	}
	stop := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.Stdin)
		close(stop)
	}()
	fmt.Fprintln(stdout, "ready")
	end := time.Now().Add(*maxD)
	recs := make([][]batch, len(cs))
	errs := make([]error, len(cs))
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs[i], errs[i] = writeLoad(c, uint64(i), *keys, *size, *hashEvery, end, stop)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(stderr, "snapshot client:", err)
		return 1
	}
	buf := make([]byte, 0, 1<<20)
	le := binary.LittleEndian
	for _, rs := range recs {
		for _, b := range rs {
			buf = le.AppendUint64(buf, uint64(b.send))
			buf = le.AppendUint64(buf, uint64(b.first))
			buf = le.AppendUint64(buf, uint64(b.last))
		}
	}
	if err := os.WriteFile(*out, buf, 0o644); err != nil {
		fmt.Fprintln(stderr, "snapshot client:", err)
		return 1
	}
	return 0
}

// writeLoad sends batches of snapshotDepth overwrites of random existing keys on c, each after the replies of
// the one before, until stop is closed or end passes.
func writeLoad(c net.Conn, seed uint64, keys, size, hashEvery int, end time.Time, stop <-chan struct{}) ([]batch, error) {
	rng := rand.New(rand.NewPCG(seed, 99))
	br := bufio.NewReaderSize(c, 64<<10)
	fieldSize := size / snapshotFields
	var out []batch
	var buf []byte
	for len(out) < 50_000_000 {
		select {
		case <-stop:
			return out, nil
		default:
		}
		now := time.Now()
		if now.After(end) {
			return out, nil
		}
		buf = buf[:0]
		for range snapshotDepth {
			n := rng.IntN(keys)
			if hashEvery > 0 && n%hashEvery == 0 {
				f := rng.IntN(snapshotFields)
				buf = appendCommand(buf, "HSET", benchKey(n), "f"+strconv.Itoa(f), snapshotValue(rng.IntN(1<<15), fieldSize))
			} else {
				buf = appendCommand(buf, "SET", benchKey(n), snapshotValue(rng.IntN(1<<15), size))
			}
		}
		c.SetDeadline(now.Add(time.Minute))
		b := batch{send: now.UnixNano()}
		if _, err := c.Write(buf); err != nil {
			return out, err
		}
		for k := range snapshotDepth {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return out, err
			}
			if line[0] == '-' {
				return out, fmt.Errorf("write answered %q", strings.TrimSpace(string(line)))
			}
			if k == 0 {
				b.first = time.Now().UnixNano()
			}
		}
		b.last = time.Now().UnixNano()
		out = append(out, b)
	}
	return out, nil
}

// snapshotChart draws each target's write throughput (first round) against the time since its BGSAVE, with
// the end of each save marked by a dashed line of the target's colour.
func snapshotChart(rep *snapshotReport, tgs []target, path string) error {
	p := plot.New()
	p.Title.Text = "Write throughput around BGSAVE (t = 0: BGSAVE sent; dashed: save done)"
	p.X.Label.Text = "seconds since BGSAVE"
	p.Y.Label.Text = fmt.Sprintf("writes per second (%v bins)", snapshotBin)
	p.Legend.Top = true
	p.Y.Min = 0
	top, drawn := 0.0, 0
	for i, t := range tgs {
		var r *snapshotRun
		for _, x := range rep.Runs {
			if x.Target == t && x.Error == "" {
				r = x
				break
			}
		}
		if r == nil || len(r.Series) == 0 {
			continue
		}
		pts := make(plotter.XYs, len(r.Series))
		for j, v := range r.Series {
			pts[j] = plotter.XY{X: (float64(j)+0.5)*snapshotBin.Seconds() - r.SaveAtS, Y: v}
			top = max(top, v)
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return fmt.Errorf("chart %s: %w", path, err)
		}
		col := plotutil.Color(i)
		l.Color = col
		p.Add(l)
		p.Legend.Add(t.label(), l)
		drawn++
	}
	if drawn == 0 {
		return errors.New("chart: no run to draw")
	}
	p.Y.Max = top * 1.25
	mark := func(x float64, c int, dashed bool) error {
		l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: p.Y.Max}})
		if err != nil {
			return err
		}
		l.Color = color.Black // the BGSAVE itself, common to all
		if c >= 0 {
			l.Color = withAlpha(plotutil.Color(c), 0xc0)
		}
		if dashed {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(l)
		return nil
	}
	if err := mark(0, -1, false); err != nil {
		return err
	}
	for i, t := range tgs {
		for _, x := range rep.Runs {
			if x.Target == t && x.Error == "" {
				end := x.SaveEndS - x.SaveAtS
				if err := mark(end, i, true); err != nil {
					return err
				}
				break
			}
		}
	}
	p.Y.Tick.Marker = shortTicks{}
	return p.Save(18*vg.Centimeter, 11*vg.Centimeter, path)
}

func snapshotMarkdown(rep *snapshotReport, tgs []target, runErr error, chart string) string {
	cfg, sc, m := rep.Config, rep.Config.Snapshot, rep.Machine
	var b strings.Builder
	fmt.Fprintf(&b, "# BGSAVE, corekv vs redis-server: %s on %s\n\n", rep.Started.UTC().Format("2006-01-02 15:04 UTC"), m.Host)
	if runErr != nil {
		fmt.Fprintf(&b, "> **Incomplete run**: %s\n\n", firstLine(runErr.Error()))
	}
	fmt.Fprintf(&b, "```\n%s\n```\n\n", rep.Command)
	fmt.Fprintf(&b, "- Machine: %s, %d CPUs online (allowed %s), kernel %s, %s; %s; corekv %s. Load average %s.\n",
		m.CPUModel, m.OnlineCPUs, m.AllowedCPUs, m.Kernel, m.Go, m.RedisServer, m.Corekv, m.LoadStart)
	fmt.Fprintf(&b, "- Servers pinned to CPUs `%s`, the write load (a child of the harness) to CPUs `%s`; the dataset "+
		"load, INFO polling and memory sampling run in the harness, unpinned. Every server gets `--save \"\" --dir "+
		"<tmpdir>`; corekv with `--shards` %v.\n", cfg.ServerCPUs, cfg.ClientCPUs, cfg.Shards)
	hashes := "no hashes"
	if sc.HashEvery > 0 {
		hashes = fmt.Sprintf("every %d-th key a hash of %d fields of %d bytes", sc.HashEvery, snapshotFields, sc.Size/snapshotFields)
	}
	fmt.Fprintf(&b, "- Dataset: %s keys, strings of %d incompressible bytes, %s; loaded pipelined (1,000 a batch, "+
		"4 connections).\n", groupDigits(float64(sc.Keys)), sc.Size, hashes)
	fmt.Fprintf(&b, "- Write load: %d connections, each a batch of %d SET/HSET of random existing keys, then all "+
		"replies, then the next (closed loop); batch latency = send -> last reply. BGSAVE after %v of it; it runs "+
		"%v more once the save is done. *Before* = from %v into the load to BGSAVE; *during* = BGSAVE sent -> "+
		"`rdb_bgsave_in_progress:0` (INFO polled every %v). *Stall* = the longest time no reply arrived on any "+
		"connection.\n", sc.Conns, snapshotDepth, sc.Warmup, sc.After, snapshotSkip, snapshotPoll)
	fmt.Fprintf(&b, "- Memory, sampled every %v: corekv = VmRSS peak during - VmRSS before; Redis = parent VmRSS "+
		"delta + the fork's `Private_Dirty` (`/proc/<child>/smaps_rollup`, the child found by its PPid). Machine = "+
		"`/proc/meminfo` MemTotal - MemFree - Buffers - Cached - SReclaimable, peak during - before (other tenants "+
		"move it too).\n", snapshotMemPoll)
	b.WriteString("- Start on the file: the server stopped (SIGTERM, no save with `--save \"\"`) and started again " +
		"on its `dump.rdb`, timed from exec to the first PING answered `+PONG` (Redis answers `-LOADING` until " +
		"loaded; corekv listens only after loading).\n")
	if cfg.Repeat > 1 {
		fmt.Fprintf(&b, "- %d rounds, servers in alternating order; figures are medians.\n", cfg.Repeat)
	}
	b.WriteString("\n> **Caveat**: 2 shared CPUs. Redis's fork child and corekv's writer goroutine and walk run on " +
		"the server CPU beside the server; the write load has the other CPU, which the harness shares. corekv " +
		"with 2 shards has two shard threads on one CPU here, so its 2-shard figures show the cost of the split, " +
		"not parallel walks. Absolute figures are this VM's; the ratios are the point.\n\n")

	var labels []string
	var redis *target
	for i, t := range tgs {
		labels = append(labels, t.label())
		if t.Server == "redis" {
			redis = &tgs[i]
		}
	}
	b.WriteString("| metric | " + strings.Join(labels, " | ") + " |")
	var ratioCols []target
	if redis != nil {
		for _, t := range tgs {
			if t.Server != "redis" {
				ratioCols = append(ratioCols, t)
				fmt.Fprintf(&b, " %s ÷ redis |", t.label())
			}
		}
	}
	b.WriteString("\n|---|" + strings.Repeat("--:|", len(tgs)+len(ratioCols)) + "\n")
	for _, mt := range snapshotMetrics {
		b.WriteString("| " + mt.Name + " |")
		for _, t := range tgs {
			if v, ok := snapshotMedian(rep.Runs, t, mt); ok {
				fmt.Fprintf(&b, " "+mt.Fmt+" |", v)
			} else {
				b.WriteString(" - |")
			}
		}
		for _, t := range ratioCols {
			v, ok1 := snapshotMedian(rep.Runs, t, mt)
			rv, ok2 := snapshotMedian(rep.Runs, *redis, mt)
			if mt.Ratio && ok1 && ok2 && rv != 0 {
				fmt.Fprintf(&b, " %.2f |", v/rv)
			} else {
				b.WriteString(" |")
			}
		}
		b.WriteString("\n")
	}
	for _, r := range rep.Runs {
		if r.Error != "" {
			fmt.Fprintf(&b, "\nRound %d, %s failed: %s\n", r.Round+1, r.Target.label(), mdEscape(firstLine(r.Error)))
		}
	}
	if chart != "" {
		fmt.Fprintf(&b, "\n![write throughput around BGSAVE](%s)\n", chart)
	}
	b.WriteString("\nEvery run's figures and throughput series are in the JSON beside this file.\n")
	return b.String()
}
