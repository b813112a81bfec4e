package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// report is everything one run measured; it is also the JSON written beside the Markdown.
type report struct {
	Machine        machine        `json:"machine"`
	Config         *config        `json:"config"`
	Started        time.Time      `json:"started"`
	Duration       string         `json:"duration"`
	Incomplete     string         `json:"incomplete,omitempty"` // why the run stopped early
	Targets        []target       `json:"targets"`
	ServerCommands []string       `json:"server_commands"`
	Results        []*result      `json:"results"`
	Comparisons    []comparison   `json:"comparisons"`
	Memory         []memResult    `json:"memory,omitempty"`
	GC             []gcResult     `json:"gc,omitempty"`
	Expiry         []expiryResult `json:"expiry,omitempty"`
	Hop            *hopResult     `json:"hop,omitempty"`
	Txn            []*result      `json:"txn,omitempty"`             // MULTI/EXEC runs of --txn; req/s are transactions/s
	TxnComparisons []comparison   `json:"txn_comparisons,omitempty"` // of those
}

type machine struct {
	Host           string `json:"host"`
	CPUModel       string `json:"cpu_model"`
	OnlineCPUs     int    `json:"online_cpus"`
	AllowedCPUs    string `json:"allowed_cpus"`
	Kernel         string `json:"kernel"`
	Go             string `json:"go"`
	RedisServer    string `json:"redis_server"`
	RedisBenchmark string `json:"redis_benchmark"`
	Corekv         string `json:"corekv"`
	LoadStart      string `json:"load_start"` // /proc/loadavg before the run
	LoadEnd        string `json:"load_end"`   // and after it
}

func describeMachine(ctx context.Context, tl *tools, root string, cfg *config) machine {
	m := machine{OnlineCPUs: runtime.NumCPU(), Go: runtime.Version()}
	m.Host, _ = os.Hostname()
	if cpus, err := allowedCPUs(); err == nil {
		m.AllowedCPUs = formatCPUList(cpus)
	}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(string(data))
	}
	if data, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(data))
	}
	m.LoadStart = loadAvg()
	m.RedisServer = firstOutputLine(ctx, tl.RedisServer, "--version")
	m.RedisBenchmark = firstOutputLine(ctx, tl.RedisBenchmark, "--version")
	commit := firstOutputLine(ctx, "git", "-C", root, "rev-parse", "--short", "HEAD")
	switch {
	case cfg.OnlyRedis:
		m.Corekv = "none: redis-server runs in its place (--only-redis)"
	case cfg.CorekvBin != "":
		m.Corekv = "binary " + cfg.CorekvBin + " (--corekv-bin)"
	default:
		m.Corekv = "built from ./cmd/corekv at commit " + commit
		// git diff exits 1 when tracked files differ from HEAD (results
		// written into the tree are untracked and do not count).
		if exec.CommandContext(ctx, "git", "-C", root, "diff", "--quiet", "HEAD").Run() != nil {
			m.Corekv += " with uncommitted changes"
		}
	}
	return m
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// loadAvg is the 1, 5 and 15 minute load averages of /proc/loadavg.
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// busyHost reports whether a load average line shows more runnable work than there are CPUs.
func busyHost(load string, cpus int) bool {
	f := strings.Fields(load)
	if len(f) == 0 {
		return false
	}
	one, err := strconv.ParseFloat(f[0], 64)
	return err == nil && one > float64(cpus)
}

func firstOutputLine(ctx context.Context, name string, args ...string) string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(firstLine(string(out)))
}

// reportBase is the file name, without extension, of rep's report:
// <date>-<host>, with -gc, -expiry, -txn, -memory or -scaling for the other modes, which
// write beside, not over, a full report of the same day.
func reportBase(rep *report) string {
	base := rep.Started.Format("2006-01-02") + "-" + fileSafe(rep.Machine.Host)
	switch {
	case rep.Config.GC && !rep.Config.Memory:
		base += "-gc"
	case rep.Config.Expiry:
		base += "-expiry"
	case rep.Config.FirstRun:
		base += "-first-run"
	case rep.Config.Txn:
		base += "-txn"
	case rep.Config.MemoryOnly:
		base += "-memory"
	case rep.Config.Scaling:
		// Its own name, so that a scaling run keeps the full matrix's
		// report of the same day.
		base += "-scaling"
	}
	return base
}

// writeReport writes <date>-<host>.md, .json and the charts into dir and returns their paths.
func writeReport(rep *report, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	base := reportBase(rep)
	var files []string

	charts, chartErr := writeCharts(rep, dir, base)
	files = append(files, charts...)

	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return files, err
	}
	jsonPath := filepath.Join(dir, base+".json")
	if err := os.WriteFile(jsonPath, append(js, '\n'), 0o644); err != nil {
		return files, err
	}
	mdPath := filepath.Join(dir, base+".md")
	var md strings.Builder
	writeMarkdown(&md, rep, charts)
	if err := os.WriteFile(mdPath, []byte(md.String()), 0o644); err != nil {
		return files, err
	}
	return append([]string{mdPath, jsonPath}, files...), chartErr
}

func fileSafe(s string) string {
	if s == "" {
		return "unknown-host"
	}
	return strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, s)
}

func writeMarkdown(w io.Writer, rep *report, charts []string) {
	cfg, m := rep.Config, rep.Machine
	fmt.Fprintf(w, "# corekv vs redis-server: %s on %s\n\n", rep.Started.Format("2006-01-02"), m.Host)
	if rep.Incomplete != "" {
		fmt.Fprintf(w, "> **Incomplete run**: %s\n\n", firstLine(rep.Incomplete))
	}
	if cfg.OnlyRedis {
		fmt.Fprint(w, "> The corekv side of this run is redis-server itself (`--only-redis`): it tests the harness, "+
			"and its ratios show the noise of this host, not corekv.\n\n")
	}

	fmt.Fprint(w, "## Machine\n\n| | |\n|---|---|\n")
	fmt.Fprintf(w, "| CPU | %s |\n| CPUs | %d online, allowed %s |\n| Kernel | %s |\n| Go | %s |\n",
		m.CPUModel, m.OnlineCPUs, m.AllowedCPUs, m.Kernel, m.Go)
	fmt.Fprintf(w, "| redis-server | %s |\n| redis-benchmark | %s |\n| corekv | %s |\n",
		m.RedisServer, m.RedisBenchmark, m.Corekv)
	fmt.Fprintf(w, "| Date | %s |\n| Duration | %s |\n", rep.Started.Format(time.RFC3339), rep.Duration)
	fmt.Fprintf(w, "| Load average (1, 5, 15 min) | %s at start, %s at end |\n\n", m.LoadStart, m.LoadEnd)
	if busyHost(m.LoadStart, m.OnlineCPUs) || busyHost(m.LoadEnd, m.OnlineCPUs) {
		fmt.Fprint(w, "> **Busy host**: other work was running (load average above the CPU count); every "+
			"number below is lower and noisier than on a quiet machine.\n\n")
	}

	writeSetup(w, rep)

	if len(rep.Comparisons) > 0 {
		fmt.Fprint(w, "## corekv / redis\n\nAbove 1 corekv serves more requests per second (ratio) and per "+
			"second of server CPU (per core: each server's req/s per core, as in the table below, over "+
			"redis's); the p99 ratio is better below 1.\n\n")
		fmt.Fprint(w, "| test | P | keys | value | shards | corekv req/s | redis req/s | ratio | per core | corekv p99 ms | redis p99 ms | p99 ratio |\n")
		fmt.Fprint(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, c := range rep.Comparisons {
			fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %s | **%s** | %s | %s | %s | %s |\n", c.Cell.Test,
				c.Cell.Pipeline, shortCount(c.Cell.Keyspace), c.Cell.Size, shardsText(c.Shards), groupDigits(c.CorekvRPS),
				groupDigits(c.RedisRPS), fmtRatio(c.RPSRatio), fmtRatio(c.PerCoreRatio), fmtMs(c.CorekvP99),
				fmtMs(c.RedisP99), fmtRatio(c.P99Ratio))
		}
		fmt.Fprintln(w)
	}

	if len(rep.Results) > 0 {
		clientCap := 0.9 * float64(max(1, cfg.ClientThreads)*max(1, cfg.ClientProcs))
		marked := false
		fmt.Fprint(w, "## All cells\n\n")
		fmt.Fprint(w, "| test | P | keys | value | server | req/s | p50 ms | p99 ms | p99.9 ms | server CPU | req/s per core | client CPU | runs |\n")
		fmt.Fprint(w, "|---|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|\n")
		for _, r := range rep.Results {
			md := r.Median
			client := fmt.Sprintf("%.0f%%", 100*md.ClientCPU)
			if md.ClientCPU >= clientCap {
				client += " †"
				marked = true
			}
			fmt.Fprintf(w, "| %s | %d | %s | %d | %s | %s | %s | %s | %s | %.0f%% | %s | %s | %d/%d |\n",
				r.Cell.Test, r.Cell.Pipeline, shortCount(r.Cell.Keyspace), r.Cell.Size, r.Target.label(),
				groupDigits(md.RPS), fmtMs(md.P50Ms), fmtMs(md.P99Ms), fmtMs(md.P999Ms), 100*md.ServerCPU,
				groupDigits(md.RPSPerCore), client, md.Runs, len(r.Samples))
		}
		if marked {
			fmt.Fprint(w, "\n† redis-benchmark kept its CPU busy: the client, not the server, may have set the pace "+
				"of this cell.\n")
		}
		fmt.Fprintln(w)
		writeFailures(w, rep.Results)
	}

	if cfg.Scaling && len(rep.Results) > 0 {
		writeScaling(w, rep)
	}

	if len(rep.Memory) > 0 {
		fmt.Fprintf(w, "## Memory\n\nEach server started afresh per value size; %d keys (`key:000000000000` …, "+
			"16 bytes) loaded with pipelined SETs; "+
			"bytes per key = (VmRSS after loading - VmRSS at start) / DBSIZE.\n\n", cfg.MemoryKeys)
		fmt.Fprint(w, "| server | value bytes | keys | RSS at start MiB | RSS loaded MiB | bytes/key |\n")
		fmt.Fprint(w, "|---|--:|--:|--:|--:|--:|\n")
		for _, m := range rep.Memory {
			if m.Error != "" {
				fmt.Fprintf(w, "| %s | %d | failed: %s | | | |\n", m.Target.label(), m.Size, mdEscape(firstLine(m.Error)))
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %d | %.1f | %.1f | %.1f |\n", m.Target.label(), m.Size, m.Keys,
				float64(m.RSSStart)/(1<<20), float64(m.RSSLoaded)/(1<<20), m.BytesPerKey)
		}
		fmt.Fprintln(w)
	}

	if len(rep.GC) > 0 {
		writeGC(w, rep)
	}

	if len(rep.Expiry) > 0 {
		writeExpiry(w, rep)
	}

	if rep.Hop != nil {
		writeHop(w, rep)
	}
	if cfg.Txn {
		writeTxn(w, rep)
	}

	if len(charts) > 0 {
		fmt.Fprint(w, "## Charts\n\n")
		for _, c := range charts {
			name := filepath.Base(c)
			fmt.Fprintf(w, "![%s](%s)\n\n", strings.TrimSuffix(name, ".svg"), name)
		}
	}

	fmt.Fprint(w, "## Limits\n\nClient and servers share one host: redis-benchmark takes CPU the servers could use, "+
		"and a busy client flattens every server to the same number. Runs on a shared or virtual machine drift; "+
		"compare ratios from one report rather than absolute numbers across reports. See bench/README.md.\n")
}

// cellTemplates are redis-benchmark's options of the cells of tests: -t TEST for redis-benchmark's own
// tests, and the command line of each point test.
func cellTemplates(tests []string, clients, requests string) []string {
	var out []string
	own := false
	for _, t := range tests {
		p, ok := pointTests[t]
		if !ok {
			own = true
			continue
		}
		out = append(out, fmt.Sprintf("-P P -c %s -r KEYS -n %s %s", clients, requests, strings.Join(p.command, " ")))
	}
	if own {
		out = append([]string{fmt.Sprintf("-t TEST -P P -c %s -r KEYS -d SIZE -n %s", clients, requests)}, out...)
	}
	return out
}

// writeSetup says how the numbers were taken: pinning, runs, flushing, and the exact commands.
func writeSetup(w io.Writer, rep *report) {
	cfg := rep.Config
	fmt.Fprint(w, "## Setup\n\n")
	pin := "taskset -c " + formatCPUList(cfg.clientCPUList) + " "
	if cfg.FirstRun {
		pin = ""
		fmt.Fprint(w, "- Servers and redis-benchmark unpinned, each with its own defaults (corekv picks its shard "+
			"count and pinning itself), as a user trying corekv beside redis on this machine would run them.\n")
	} else {
		fmt.Fprintf(w, "- Servers pinned to CPUs `%s`, redis-benchmark to CPUs `%s` (taskset).\n",
			cfg.ServerCPUs, formatCPUList(cfg.clientCPUList))
	}
	if cfg.MemoryOnly || cfg.GC || cfg.Expiry {
		fmt.Fprint(w, "\nServers:\n\n```\n"+strings.Join(rep.ServerCommands, "\n")+"\n```\n\n")
		return
	}
	fmt.Fprintf(w, "- %d clients; %d run(s) per cell, each figure is the median of the runs; every round "+
		"starts each server afresh.\n", cfg.Clients, cfg.Repeat)
	fmt.Fprintf(w, "- Requests per cell: %d at P=1, x P/4 for deeper pipelines, at most %d.\n",
		cfg.Requests, cfg.MaxRequests)
	fmt.Fprint(w, "- Before each cell: `FLUSHALL`.")
	if cfg.Preload {
		fmt.Fprint(w, " Before a `get` cell every key of the key space (`key:000000000000` …) is set to a value "+
			"of the cell's size, so every GET hits. Before an `lpop`, `rpop`, `spop` or `zpopmin` cell, "+
			"redis-benchmark runs untimed with the cell's options the tests that fill its key in its default "+
			"order (`lpush,rpush`, `rpush`, `sadd`, `zadd`), so the cell pops from what they leave. Before an "+
			"`hget` or `hmget` cell every key of the key space (`h:000000000000` …) is a hash of fields `f0` … "+
			"`f9` with values of the cell's size, before a `sismember` cell (`s:000000000000` …) a set of members "+
			"`m0` … `m9`, so every lookup finds its key.")
	}
	fmt.Fprint(w, "\n- Server CPU: utime+stime of the server process (all threads) from `/proc/<pid>/stat`, "+
		"before and after redis-benchmark, over the time redis-benchmark measured (requests / req/s); 100% = one "+
		"core busy. Client CPU is redis-benchmark's own, over the same time. \"req/s per core\" is req/s "+
		"divided by the server CPU share.\n")
	if cfg.CSV {
		fmt.Fprint(w, "- Latencies from `redis-benchmark --csv`; p99.9 is not available in that output.\n")
	} else {
		fmt.Fprint(w, "- Latencies from redis-benchmark's summary (HDR histogram). p99.9 is read from its "+
			"\"Latency by percentile distribution\" table: the first row whose cumulative count reaches 99.9% of "+
			"the requests. That is an upper bound, at most one table row (about 0.1 percentile) above the true "+
			"p99.9.\n")
	}
	fmt.Fprint(w, "\nServers:\n\n```\n")
	for _, c := range rep.ServerCommands {
		fmt.Fprintln(w, c)
	}
	fmt.Fprint(w, "```\n\nEach cell (the exact command of every run is in the JSON, `results[].samples[].command`):\n\n```\n")
	threads := ""
	if cfg.ClientThreads > 1 {
		threads = " --threads " + strconv.Itoa(cfg.ClientThreads)
	}
	clients, requests := strconv.Itoa(cfg.Clients), "N"
	if cfg.ClientProcs > 1 {
		clients += "/" + strconv.Itoa(cfg.ClientProcs)
		requests += "/" + strconv.Itoa(cfg.ClientProcs)
		if !cfg.FirstRun {
			pin = "taskset -c CPU "
		}
	}
	for _, opts := range cellTemplates(cfg.Tests, clients, requests) {
		fmt.Fprintf(w, "%sredis-benchmark -h 127.0.0.1 -p PORT%s %s\n", pin, threads, opts)
	}
	fmt.Fprint(w, "```\n\n")
	if cfg.ClientProcs <= 1 {
		return
	}
	fmt.Fprintf(w, "%d such processes at once, the connections and requests split evenly, each pinned to one "+
		"client CPU in turn. req/s is all requests over the slowest process's time; each latency percentile is "+
		"the highest of the processes' (an upper bound); client CPU is theirs together.\n\n", cfg.ClientProcs)
}

func writeFailures(w io.Writer, results []*result) {
	var lines []string
	for _, r := range results {
		for i, s := range r.Samples {
			if s.Error != "" {
				lines = append(lines, fmt.Sprintf("%s %s run %d: %s", r.Target.label(), r.Cell, i+1, mdEscape(firstLine(s.Error))))
			}
		}
	}
	writeList(w, "Failed runs", lines)
}

// writeList writes a heading and a bullet list of lines; nothing when there
// are no lines.
func writeList(w io.Writer, heading string, lines []string) {
	if len(lines) == 0 {
		return
	}
	fmt.Fprintf(w, "%s:\n\n", heading)
	for _, l := range lines {
		fmt.Fprintf(w, "- %s\n", l)
	}
	fmt.Fprintln(w)
}

// writeScaling tabulates req/s per cell against the shard count, with redis beside.
func writeScaling(w io.Writer, rep *report) {
	fmt.Fprint(w, "## Scaling\n\ncorekv with k shards runs on the first k server CPUs; redis on all of them.\n\n| cell | redis |")
	var shards []int
	for _, t := range rep.Targets {
		if t.Server == "corekv" {
			shards = append(shards, t.Shards)
			fmt.Fprintf(w, " %d shard(s) |", t.Shards)
		}
	}
	fmt.Fprint(w, "\n|---|--:|"+strings.Repeat("--:|", len(shards))+"\n")
	byCell := map[cell]map[string]float64{}
	var order []cell
	for _, r := range rep.Results {
		if byCell[r.Cell] == nil {
			byCell[r.Cell] = map[string]float64{}
			order = append(order, r.Cell)
		}
		byCell[r.Cell][r.Target.label()] = r.Median.RPS
	}
	for _, c := range order {
		fmt.Fprintf(w, "| %s | %s |", c, groupDigits(byCell[c]["redis"]))
		for _, k := range shards {
			fmt.Fprintf(w, " %s |", groupDigits(byCell[c][target{Server: "corekv", Shards: k}.label()]))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
}

// printSummary writes the ratio table (or the memory table of a --memory run) to w.
func printSummary(w io.Writer, rep *report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(rep.Comparisons) > 0 {
		if rep.Config.OnlyRedis {
			fmt.Fprintln(w, "(--only-redis: \"corekv\" below is redis-server)")
		}
		fmt.Fprintln(tw, "test\tP\tkeys\tvalue\tshards\tcorekv req/s\tredis req/s\tratio\tper core\tcorekv p99\tredis p99\tp99 ratio\t")
		for _, c := range rep.Comparisons {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", c.Cell.Test, c.Cell.Pipeline,
				shortCount(c.Cell.Keyspace), c.Cell.Size, shardsText(c.Shards), groupDigits(c.CorekvRPS), groupDigits(c.RedisRPS),
				fmtRatio(c.RPSRatio), fmtRatio(c.PerCoreRatio), fmtMs(c.CorekvP99), fmtMs(c.RedisP99), fmtRatio(c.P99Ratio))
		}
		tw.Flush()
	}
	if len(rep.Memory) > 0 {
		fmt.Fprintln(tw, "server\tvalue\tkeys\tbytes/key\t")
		for _, m := range rep.Memory {
			if m.Error != "" {
				fmt.Fprintf(tw, "%s\t%d\tfailed\t\t\n", m.Target.label(), m.Size)
				continue
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t\n", m.Target.label(), m.Size, m.Keys, m.BytesPerKey)
		}
		tw.Flush()
	}
	if rep.Config.Txn {
		printTxn(w, rep)
	}
	if len(rep.GC) > 0 {
		fmt.Fprint(tw, "keys\tserver\tbytes/key\tload turn ms\tGC load\tmark clock ms\tmark cpu ms\theap MB\tGC get\tslow turns\tlongest ms\tGET req/s\tGET p99.9 ms\tlight req/s\tlight p99.9 ms\t\n")
		for _, g := range rep.GC {
			if g.Error != "" {
				fmt.Fprintf(tw, "%s\t%s\tfailed\t\t\t\t\t\t\t\t\t\t\t\t\n", shortCount(g.Keys), g.Target.label())
				continue
			}
			c := gcRow(g)
			fmt.Fprintln(tw, strings.Join(c, "\t")+"\t")
		}
		tw.Flush()
		for _, s := range gcTrends(rep.GC) {
			fmt.Fprintln(w, s)
		}
	}
	if busyHost(rep.Machine.LoadStart, rep.Machine.OnlineCPUs) || busyHost(rep.Machine.LoadEnd, rep.Machine.OnlineCPUs) {
		fmt.Fprintf(w, "WARNING: busy host (load average %s at start, %s at end, %d CPUs): numbers are noisy\n",
			rep.Machine.LoadStart, rep.Machine.LoadEnd, rep.Machine.OnlineCPUs)
	}
	if rep.Incomplete != "" {
		fmt.Fprintln(w, "INCOMPLETE:", firstLine(rep.Incomplete))
	}
}

// shardsText is a comparison's shard count: "default" for corekv's own.
func shardsText(n int) string {
	if n == 0 {
		return "default"
	}
	return strconv.Itoa(n)
}

func fmtRatio(r float64) string {
	if r == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", r)
}

func fmtMs(ms float64) string {
	if ms == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", ms)
}

// groupDigits writes 1234567.8 as "1,234,568"; 0 as "-".
func groupDigits(v float64) string {
	if v <= 0 {
		return "-"
	}
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func mdEscape(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// gcRow is one row of the GC table: keys, server, bytes/key, corekv's longest loop turn and the GC cycles
// during the load, mark clock and CPU and live heap of the forced full cycles (medians), GC cycles during the
// GET runs, slow and longest loop turns during the saturated ones (corekv), and GET req/s and p99.9 (medians)
// of the saturated and of the light runs.
func gcRow(g gcResult) []string {
	cycles := func(cs []gcCycle) string {
		if !g.Traced {
			return "-"
		}
		return strconv.Itoa(len(cs))
	}
	slow, longest, loadLongest := "-", "-", "-"
	if g.Traced {
		slow, longest = strconv.FormatInt(g.SlowTurns, 10), turnMs(g.LongestTurnMs)
		loadLongest = turnMs(g.LoadLongestTurnMs)
	}
	return []string{shortCount(g.Keys), g.Target.label(), fmt.Sprintf("%.1f", g.BytesPerKey), loadLongest, cycles(g.LoadCycles),
		g.markClock(), g.markCPU(), g.heapMB(), cycles(g.GetCycles), slow, longest, groupDigits(g.GetRPS), fmtMs(g.GetP999Ms),
		groupDigits(g.LightGetRPS), fmtMs(g.LightGetP999Ms)}
}

// turnMs shows a longest loop turn from INFO, which counts only turns of
// 1 ms or more: 0 means that none was.
func turnMs(ms float64) string {
	if ms == 0 {
		return "< 1"
	}
	return fmtMs(ms)
}

// writeGC is the "GC and size" section of a --gc run.
func writeGC(w io.Writer, rep *report) {
	cfg := rep.Config
	fmt.Fprint(w, "## GC and size\n\n")
	fmt.Fprintf(w, "For each key count each server starts afresh (corekv with 1 shard and `GODEBUG=gctrace=1` added "+
		"to its environment). One pipelined connection from the harness SETs exactly N keys `key:000000000000` … "+
		"with %d-byte values and checks every reply; bytes/key = (VmRSS after the load − VmRSS before) / N. "+
		"Then %d runs of\n\n```\ntaskset -c %s redis-benchmark -h 127.0.0.1 -p PORT -t get -P %d -c %d -r N -n %d\n```\n\n",
		gcValueSize, gcGetRuns, formatCPUList(cfg.clientCPUList), gcPipeline, cfg.Clients, cfg.GCRequests)
	fmt.Fprintf(w, "GET req/s and p99.9 are the medians of these runs (each run is in the JSON, `gc[].get_runs`). "+
		"With %[2]d clients both redis-benchmark and the server are saturated, so latency is mostly waiting in "+
		"queues that grow with the cost of every request (a GET at 10M keys misses cache). %[1]d *light* runs "+
		"with `-c %[3]d -P 1` and a sixth of the requests leave the server idle part of the time, so their tail "+
		"shows pauses rather than queues (`gc[].light_get_runs`). "+
		"*Longest turn during load* is corekv's longest loop turn from its start to the end of the load (INFO "+
		"stats): the table grows through every size on the way. *GC load* counts the gctrace lines corekv wrote while the keys loaded. Once they are loaded the harness "+
		"forces %d full GC cycles (corekv runs with `--pprof`; `GET /debug/pprof/heap?gc=1` runs one): *mark "+
		"clock* (wall time of the concurrent mark), *mark CPU* (assist + background + idle mark workers) and "+
		"*heap* (live heap after the mark) are the medians of those. *GC get* counts the cycles during the GET "+
		"runs; *slow turns* and *longest turn* are corekv's own INFO figures over the GET runs (after a CONFIG "+
		"RESETSTAT): loop turns of a shard that took 1 ms or more, and the longest. Every cycle is in the JSON (`gc[].load_gc_cycles`, `gc[].forced_gc_cycles`, `gc[].get_gc_cycles`). "+
		"redis has no GC: its columns are empty.\n\n", gcGetRuns, cfg.Clients, gcLightClients, gcForced)
	fmt.Fprint(w, "| keys | server | bytes/key | longest turn during load ms | GC cycles during load | full GC mark clock ms | full GC mark CPU ms | heap MB | GC cycles during GET | slow turns | longest turn ms | GET req/s | GET p99.9 ms | light GET req/s | light GET p99.9 ms |\n")
	fmt.Fprint(w, "|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, g := range rep.GC {
		if g.Error != "" {
			fmt.Fprintf(w, "| %s | %s | failed: %s | | | | | | | | | | | | |\n", shortCount(g.Keys), g.Target.label(),
				mdEscape(firstLine(g.Error)))
			continue
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(gcRow(g), " | "))
	}
	fmt.Fprintln(w)
	if trends := gcTrends(rep.GC); len(trends) > 0 {
		fmt.Fprintln(w, strings.Join(trends, " "))
		fmt.Fprintln(w)
	}
	var failed []string
	for _, g := range rep.GC {
		for _, runs := range []struct {
			clients int
			runs    []sample
		}{{g.Clients, g.Runs}, {gcLightClients, g.LightRuns}} {
			for i, s := range runs.runs {
				if s.Error != "" {
					failed = append(failed, fmt.Sprintf("%s %s keys c=%d run %d: %s", g.Target.label(), shortCount(g.Keys),
						runs.clients, i+1, mdEscape(firstLine(s.Error))))
				}
			}
		}
	}
	writeList(w, "Failed GET runs", failed)
}
