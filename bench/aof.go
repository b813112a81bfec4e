package main

// The --aof mode: what the append-only file costs, per appendfsync mode. Every round starts each server afresh
// in each mode ("off", then appendonly yes with appendfsync no, everysec and always, each in a new directory) and
// runs redis-benchmark -t set with 50 clients at P=1 and P=16, and one client at P=1; then it stops the server and
// starts it again on its directory, and reads from its log how long the replay of what the cells wrote took. Before
// the rounds it times fdatasync on the work directory's disk: it bounds every "always" figure.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"
)

// aofFlags are the command-line flags of the --aof mode.
type aofFlags struct {
	on    *bool
	modes *string
}

func addAOFFlags(fs *flag.FlagSet) *aofFlags {
	return &aofFlags{
		on: fs.Bool("aof", false, "only measure the append-only file: SET with 50 clients at P=1 and 16 and one client at "+
			"P=1 in each appendfsync mode and without the file, and the replay at start (redis and corekv, --shards 1,2)"),
		modes: fs.String("aof-modes", "off,no,everysec,always", "the modes --aof runs: off (no file) and appendfsync values"),
	}
}

// aofConfig is the --aof mode's settings.
type aofConfig struct {
	Modes []string `json:"modes"`
}

// apply sets cfg.AOF; --shards defaults to 1,2 and --requests to 50000 in this mode.
func (f *aofFlags) apply(cfg *config, set map[string]bool) error {
	if !*f.on {
		return nil
	}
	if cfg.GC || cfg.Expiry || cfg.MemoryOnly || cfg.Scaling || cfg.Txn || cfg.FirstRun || cfg.PubSub || cfg.Blocking ||
		cfg.Snapshot != nil {
		return errors.New("--aof excludes the other modes")
	}
	a := &aofConfig{}
	for _, m := range strings.Split(*f.modes, ",") {
		switch m = strings.TrimSpace(m); m {
		case "off", "no", "everysec", "always":
			a.Modes = append(a.Modes, m)
		default:
			return fmt.Errorf("--aof-modes: %q is not off, no, everysec or always", m)
		}
	}
	cfg.AOF, cfg.Memory = a, false
	if !set["shards"] && !cfg.OnlyRedis {
		cfg.Shards = []int{1, 2}
	}
	if !set["requests"] {
		cfg.Requests = 50000
		if cfg.Smoke {
			cfg.Requests = 2000
		}
	}
	if !set["keyspaces"] {
		cfg.Keyspaces = []int{100000}
	}
	if !set["sizes"] {
		cfg.Sizes = []int{16}
	}
	return nil
}

// aofCells are the redis-benchmark runs of one server in one mode.
func aofCells(cfg *config) []cell {
	mk := func(p, clients, n int) cell {
		return cell{Test: "set", Pipeline: p, Clients: clients, Keyspace: cfg.Keyspaces[0], Size: cfg.Sizes[0],
			Requests: min(requestsFor(n, 10*n, p), cfg.MaxRequests)}
	}
	return []cell{mk(1, cfg.Clients, cfg.Requests), mk(16, cfg.Clients, cfg.Requests), mk(1, 1, max(cfg.Requests/5, 1))}
}

// aofRun is one server in one mode, one round.
type aofRun struct {
	Target  target   `json:"target"`
	Mode    string   `json:"mode"`
	Round   int      `json:"round"`
	Samples []sample `json:"samples"` // one per aofCells cell
	// ReplayS is the load at the restart, from the server's log; ReplayCmds the SETs it replayed.
	ReplayS    float64 `json:"replay_s"`
	ReplayCmds int     `json:"replay_cmds"`
	FileBytes  int64   `json:"file_bytes"`
	Error      string  `json:"error,omitempty"`
}

// aofReport is the --aof mode's output.
type aofReport struct {
	Config        *config   `json:"config"`
	Machine       machine   `json:"machine"`
	Command       string    `json:"command"`
	Started       time.Time `json:"started"`
	FdatasyncMs   []float64 `json:"fdatasync_ms"` // p50, p99, max of 200 appends of 128 bytes each synced
	Runs          []*aofRun `json:"runs"`
	FdatasyncPath string    `json:"fdatasync_path"`
}

func runAOF(ctx context.Context, cfg *config, tl *tools, work, root string, stdout io.Writer) error {
	rep := &aofReport{Config: cfg, Started: time.Now(), Machine: describeMachine(ctx, tl, root, cfg),
		Command: "go run ./bench " + shellJoin(os.Args[1:]), FdatasyncPath: work}
	var err error
	if rep.FdatasyncMs, err = timeFdatasync(work, 200); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "fdatasync of a 128-byte append in %s: p50 %.3f ms, p99 %.3f ms, max %.3f ms\n", work,
		rep.FdatasyncMs[0], rep.FdatasyncMs[1], rep.FdatasyncMs[2])
	tgs := targets(cfg)
	var runErr error
rounds:
	for round := range cfg.Repeat {
		for _, mode := range cfg.AOF.Modes {
			for _, t := range roundOrder(tgs, round) {
				if runErr = ctx.Err(); runErr != nil {
					break rounds
				}
				r := measureAOF(ctx, cfg, tl, t, mode, work)
				r.Round = round
				rep.Runs = append(rep.Runs, r)
				if r.Error != "" {
					fmt.Fprintf(stdout, "aof %-8s %-9s FAILED: %s\n", mode, t.label(), firstLine(r.Error))
					continue
				}
				var parts []string
				for i, c := range aofCells(cfg) {
					parts = append(parts, fmt.Sprintf("c=%d P=%d %.0f/s p99 %.2f ms", c.Clients, c.Pipeline,
						r.Samples[i].RPS, r.Samples[i].P99Ms))
				}
				fmt.Fprintf(stdout, "aof %-8s %-9s %s; replay %d SETs in %.2fs\n", mode, t.label(),
					strings.Join(parts, "; "), r.ReplayCmds, r.ReplayS)
			}
		}
	}
	out := cfg.Out
	if out == "" {
		out = filepath.Join(root, "bench", "results")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return errors.Join(runErr, err)
	}
	base := filepath.Join(out, time.Now().UTC().Format("2006-01-02")+"-vm-aof")
	js, err := json.MarshalIndent(rep, "", "  ")
	if err == nil {
		err = os.WriteFile(base+".json", append(js, '\n'), 0o644)
	}
	errs := []error{err, os.WriteFile(base+".md", []byte(aofMarkdown(rep, cfg, tgs, runErr)), 0o644)}
	fmt.Fprintln(stdout, "wrote", base+".md")
	return errors.Join(append(errs, runErr)...)
}

// timeFdatasync appends 128 bytes to a file in dir and syncs it, n times, and returns the p50, p99 and max in ms.
func timeFdatasync(dir string, n int) ([]float64, error) {
	f, err := os.CreateTemp(dir, "fdatasync-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 128)
	var ms []float64
	for range n {
		if _, err := f.Write(buf); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := unix.Fdatasync(int(f.Fd())); err != nil {
			return nil, err
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
	}
	sort.Float64s(ms)
	return []float64{ms[len(ms)/2], ms[len(ms)*99/100], ms[len(ms)-1]}, nil
}

// aofLoaded finds the replay's time in a server's log: corekv's "DB loaded from the append only file ...
// seconds=0.123", Redis's "DB loaded from append only file: 0.123 seconds".
var aofLoaded = regexp.MustCompile(`DB loaded from (?:the )?append only file(?:: ([0-9.]+) seconds|.* seconds=([0-9.]+))`)

// measureAOF runs the cells on t in mode, then restarts t on its directory and reads the replay's time.
func measureAOF(ctx context.Context, cfg *config, tl *tools, t target, mode, work string) *aofRun {
	r := &aofRun{Target: t, Mode: mode}
	dir, err := os.MkdirTemp(work, "aof-"+mode+"-")
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer os.RemoveAll(dir)
	var extra []string
	if mode != "off" {
		extra = []string{"--appendonly", "yes", "--appendfsync", mode, "--dir", dir}
	}
	srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, extra)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	for i, c := range aofCells(cfg) {
		// Only the first cell starts from an empty server: the replay then holds every cell's SETs.
		s := sample{}
		if i == 0 {
			s = runCell(ctx, cfg, tl, srv, c)
		} else {
			s = runBenchmark(ctx, cfg, tl, srv, c)
		}
		r.Samples = append(r.Samples, s)
		r.ReplayCmds += c.Requests
		if s.Error != "" {
			r.Error = s.Error
			srv.stop()
			return r
		}
	}
	srv.stop()
	if mode == "off" {
		return r
	}
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			r.FileBytes += fi.Size()
		}
		return nil
	})
	again, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, extra)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	again.stop()
	log, _ := os.ReadFile(again.logPath)
	m := aofLoaded.FindSubmatch(log)
	if m == nil {
		r.Error = "no replay time in the log" + logTail(again.logPath)
		return r
	}
	v := string(m[1]) + string(m[2])
	r.ReplayS, _ = strconv.ParseFloat(v, 64)
	return r
}

// aofMedian is the median of f over the good runs of t in mode.
func aofMedian(runs []*aofRun, t target, mode string, f func(*aofRun) float64) float64 {
	var xs []float64
	for _, r := range runs {
		if r.Target == t && r.Mode == mode && r.Error == "" {
			xs = append(xs, f(r))
		}
	}
	return median(xs)
}

func aofMarkdown(rep *aofReport, cfg *config, tgs []target, runErr error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The append-only file, per appendfsync mode\n\n`%s`, %s; %d round(s), medians; server CPUs %s, "+
		"client CPUs %s; SET -r %d -d %d.\n\n", rep.Command, rep.Started.UTC().Format(time.RFC3339), cfg.Repeat,
		cfg.ServerCPUs, formatCPUList(cfg.clientCPUList), cfg.Keyspaces[0], cfg.Sizes[0])
	fmt.Fprintf(&b, "fdatasync of a 128-byte append on this disk: p50 %.3f ms, p99 %.3f ms, max %.3f ms; one sync "+
		"at a time bounds `always` at about %.0f syncs per second per file.\n\n", rep.FdatasyncMs[0], rep.FdatasyncMs[1],
		rep.FdatasyncMs[2], 1000/max(rep.FdatasyncMs[0], 0.001))
	if runErr != nil {
		fmt.Fprintf(&b, "**The run stopped early:** %v\n\n", runErr)
	}
	cs := aofCells(cfg)
	tw := tabwriter.NewWriter(&b, 0, 0, 1, ' ', tabwriter.Debug)
	fmt.Fprint(tw, "| mode\t server\t")
	for _, c := range cs {
		fmt.Fprintf(tw, " c=%d P=%d req/s\t p99 ms\t vs redis\t", c.Clients, c.Pipeline)
	}
	fmt.Fprint(tw, " replay s\t SETs/s\t files MiB\t\n|")
	for range 3 + 3*len(cs) {
		fmt.Fprint(tw, "---\t")
	}
	fmt.Fprint(tw, "\n")
	var redis target
	for _, t := range tgs {
		if t.Server == "redis" {
			redis = t
		}
	}
	for _, mode := range cfg.AOF.Modes {
		for _, t := range tgs {
			fmt.Fprintf(tw, "| %s\t %s\t", mode, t.label())
			for i := range cs {
				rps := func(r *aofRun) float64 { return r.Samples[i].RPS }
				v := aofMedian(rep.Runs, t, mode, rps)
				p99 := aofMedian(rep.Runs, t, mode, func(r *aofRun) float64 { return r.Samples[i].P99Ms })
				ratio := "-"
				if rv := aofMedian(rep.Runs, redis, mode, rps); rv > 0 && t != redis {
					ratio = fmt.Sprintf("%.2fx", v/rv)
				}
				fmt.Fprintf(tw, " %.0f\t %.3f\t %s\t", v, p99, ratio)
			}
			if mode == "off" {
				fmt.Fprint(tw, " -\t -\t -\t\n")
				continue
			}
			rs := aofMedian(rep.Runs, t, mode, func(r *aofRun) float64 { return r.ReplayS })
			n := aofMedian(rep.Runs, t, mode, func(r *aofRun) float64 { return float64(r.ReplayCmds) })
			fb := aofMedian(rep.Runs, t, mode, func(r *aofRun) float64 { return float64(r.FileBytes) })
			rate := "-"
			if rs > 0 {
				rate = fmt.Sprintf("%.0f", n/rs)
			}
			fmt.Fprintf(tw, " %.3f\t %s\t %.1f\t\n", rs, rate, fb/(1<<20))
		}
	}
	tw.Flush()
	b.WriteString("\nA replay under 10 ms is below the logs' resolution of the load; SETs/s then means little.\n")
	return b.String()
}
