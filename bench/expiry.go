package main

// The --expiry mode: do keys with a TTL leave memory as fast as they expire? Three scenarios per server, each on a
// fresh server:
//
//   - burst: --expiry-keys SETs `px:__rand_int__ v PX 1000` at full speed (-r 100000000), then DBSIZE 1 to 5 s
//     after the load, and the server's CPU time over those 5 s (nothing but expiry runs) per key expired;
//   - churn: --expiry-rounds rounds of `-n --expiry-churn -r 10000000 set ttl:__rand_int__ <100 bytes> EX 3`,
//     with DBSIZE and RSS sampled during the load and for --expiry-rest (15 s) after it;
//   - steady: the same SETs for --expiry-steady, at the highest rate the client reaches, sampled the same way.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	expiryPipeline  = 32
	expiryBurstTTL  = "1000" // ms
	expiryBurstKeys = 100_000_000
	expiryChurnKeys = 10_000_000
	expiryChurnTTL  = 3 // s
	expiryChurnSize = 100
	expiryAfter     = 5 // seconds of DBSIZE samples after the burst
	expiryPoll      = 500 * time.Millisecond
)

// expiryPoint is one sample of a server during or after a load.
type expiryPoint struct {
	AtS       float64 `json:"at_s"` // seconds since the load started (burst: since it ended)
	Keys      int64   `json:"keys"`
	RSS       int64   `json:"rss"`
	Expired   int64   `json:"expired_keys"`
	Commands  int64   `json:"commands"`   // total_commands_processed
	StalePerc float64 `json:"stale_perc"` // the server's own expired_stale_perc
	CPUS      float64 `json:"cpu_s"`      // server CPU seconds since it started
}

// expiryChurn is one churn scenario on one server.
type expiryChurn struct {
	Rounds []float64     `json:"round_s,omitempty"` // duration of each round
	Points []expiryPoint `json:"points"`            // from the start of the load
	LoadS  float64       `json:"load_s"`
	SETs   int64         `json:"sets"`
	// RestCPUNsPK is the server's CPU time per key expired over the --expiry-rest after the load.
	RestCPUNsPK float64 `json:"rest_cpu_ns_per_expired_key"`
}

// expiryResult is what one server did in every scenario.
type expiryResult struct {
	Target target `json:"target"`
	Error  string `json:"error,omitempty"`

	BurstKeys    int64         `json:"burst_keys"` // DBSIZE right after the load
	BurstLoadS   float64       `json:"burst_load_s"`
	BurstAfter   []expiryPoint `json:"burst_after"` // at 1 … expiryAfter s after the load
	BurstCPUNsPK float64       `json:"burst_cpu_ns_per_expired_key"`

	Churn  *expiryChurn `json:"churn,omitempty"`
	Steady *expiryChurn `json:"steady,omitempty"`
}

func expiryTargets(cfg *config) []target {
	return []target{{Server: "corekv", Shards: 1, CPUs: cfg.ServerCPUs}, {Server: "redis", CPUs: cfg.ServerCPUs}}
}

// runExpiry measures every target in every scenario.
func runExpiry(ctx context.Context, cfg *config, tl *tools, work string, stdout io.Writer) ([]expiryResult, error) {
	var out []expiryResult
	for _, t := range expiryTargets(cfg) {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		r := measureExpiry(ctx, cfg, tl, t, work, stdout)
		out = append(out, r)
		if r.Error != "" {
			fmt.Fprintf(stdout, "expiry %-9s FAILED: %s\n", t.label(), firstLine(r.Error))
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
		}
	}
	return out, nil
}

// expiryLoadCmd is redis-benchmark with a command of its own against srv.
func expiryLoadCmd(ctx context.Context, cfg *config, tl *tools, srv *server, n, keyspace int, args ...string) (*exec.Cmd, *bytes.Buffer) {
	argv := clientArgv(cfg, tl, srv, "-P", strconv.Itoa(expiryPipeline),
		"-c", strconv.Itoa(cfg.Clients), "-n", strconv.Itoa(n), "-r", strconv.Itoa(keyspace), "-q")
	argv = append(argv, args...)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var outBuf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &outBuf, &outBuf
	return cmd, &outBuf
}

// expiryLoad runs redis-benchmark with a command of its own against srv, bounded by --cell-timeout.
func expiryLoad(ctx context.Context, cfg *config, tl *tools, srv *server, n, keyspace int, args ...string) error {
	cctx, cancel := context.WithTimeout(ctx, cfg.CellTimeout)
	defer cancel()
	cmd, out := expiryLoadCmd(cctx, cfg, tl, srv, n, keyspace, args...)
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("redis-benchmark: %v: %s", err, tail(out.String()))
	}
	return nil
}

// expirySample reads DBSIZE, RSS, INFO stats and CPU time of srv.
func expirySample(srv *server, origin time.Time) (expiryPoint, error) {
	p := expiryPoint{AtS: time.Since(origin).Seconds()}
	var err error
	if p.Keys, err = dbSize(srv.addr()); err != nil {
		return p, err
	}
	if p.RSS, err = rssBytes(srv.pid()); err != nil {
		return p, err
	}
	st, err := infoValues(srv.addr(), "stats")
	if err != nil {
		return p, err
	}
	p.Expired, _ = strconv.ParseInt(st["expired_keys"], 10, 64)
	p.Commands, _ = strconv.ParseInt(st["total_commands_processed"], 10, 64)
	p.StalePerc, _ = strconv.ParseFloat(st["expired_stale_perc"], 64)
	p.CPUS, err = cpuSeconds(srv.pid())
	return p, err
}

func measureExpiry(ctx context.Context, cfg *config, tl *tools, t target, work string, stdout io.Writer) expiryResult {
	r := expiryResult{Target: t}
	var srv *server
	fail := func(err error) expiryResult {
		r.Error = err.Error()
		if srv != nil && !srv.alive() {
			r.Error += logTail(srv.logPath)
		}
		if srv != nil {
			srv.stop()
		}
		return r
	}
	start := func() error {
		var err error
		if srv, err = startServer(ctx, tl, t, cfg.OnlyRedis, work, nil); err == nil {
			time.Sleep(300 * time.Millisecond)
		}
		return err
	}

	// Burst.
	if err := start(); err != nil {
		return fail(err)
	}
	t0 := time.Now()
	if err := expiryLoad(ctx, cfg, tl, srv, cfg.ExpiryKeys, expiryBurstKeys,
		"set", "px:__rand_int__", "v", "PX", expiryBurstTTL); err != nil {
		return fail(err)
	}
	loaded := time.Now()
	r.BurstLoadS = loaded.Sub(t0).Seconds()
	first, err := expirySample(srv, loaded)
	if err != nil {
		return fail(err)
	}
	r.BurstKeys = first.Keys
	for i := 1; i <= expiryAfter; i++ {
		time.Sleep(time.Until(loaded.Add(time.Duration(i) * time.Second)))
		p, err := expirySample(srv, loaded)
		if err != nil {
			return fail(err)
		}
		r.BurstAfter = append(r.BurstAfter, p)
	}
	last := r.BurstAfter[len(r.BurstAfter)-1]
	if n := last.Expired - first.Expired; n > 0 {
		r.BurstCPUNsPK = (last.CPUS - first.CPUS) * 1e9 / float64(n)
	}
	fmt.Fprintf(stdout, "expiry %-9s burst: %s keys loaded in %.1fs; left after 1..%d s: %s; %.0f ns CPU per expired key\n",
		t.label(), count(r.BurstKeys), r.BurstLoadS, expiryAfter, burstLeft(r.BurstAfter), r.BurstCPUNsPK)
	srv.stop()

	for _, steady := range []bool{false, true} {
		if steady && cfg.ExpirySteady <= 0 {
			continue
		}
		if err := start(); err != nil {
			return fail(err)
		}
		c, err := runChurn(ctx, cfg, tl, srv, steady)
		if err != nil {
			return fail(err)
		}
		name := "churn"
		if steady {
			r.Steady, name = c, "steady"
		} else {
			r.Churn = c
		}
		peak, end, rest := c.peak(), c.at(0), c.at(cfg.ExpiryRest.Seconds())
		fmt.Fprintf(stdout, "expiry %-9s %s: %s SETs in %.1fs; at the end %s keys, RSS %.0f MiB; most keys %s, "+
			"most RSS %.0f MiB; stale %s; %d s after: %s keys, RSS %.0f MiB; %.0f ns CPU per expired key after the load\n",
			t.label(), name, count(c.SETs), c.LoadS, count(end.Keys), mib(end.RSS), count(peak.Keys), mib(peak.RSS),
			c.staleSummary(), int(cfg.ExpiryRest.Seconds()), count(rest.Keys), mib(rest.RSS), c.RestCPUNsPK)
		srv.stop()
	}
	return r
}

// runChurn runs the churn's SETs against srv, in rounds or steady for --expiry-steady, sampling it during the
// load and for --expiry-rest after.
func runChurn(ctx context.Context, cfg *config, tl *tools, srv *server, steady bool) (*expiryChurn, error) {
	c := &expiryChurn{}
	value := strings.Repeat("x", expiryChurnSize)
	args := []string{"set", "ttl:__rand_int__", value, "EX", strconv.Itoa(expiryChurnTTL)}
	t0 := time.Now()
	done := make(chan error, 1)
	go func() {
		if steady {
			// More SETs than the client can send in the time; it is stopped.
			cctx, cancel := context.WithTimeout(ctx, cfg.ExpirySteady)
			defer cancel()
			cmd, out := expiryLoadCmd(cctx, cfg, tl, srv, 2_000_000_000, expiryChurnKeys, args...)
			if err := cmd.Run(); err != nil && cctx.Err() == nil {
				done <- fmt.Errorf("redis-benchmark: %v: %s", err, tail(out.String()))
				return
			}
			done <- ctx.Err()
			return
		}
		for range cfg.ExpiryRounds {
			rs := time.Now()
			if err := expiryLoad(ctx, cfg, tl, srv, cfg.ExpiryChurn, expiryChurnKeys, args...); err != nil {
				done <- err
				return
			}
			c.Rounds = append(c.Rounds, time.Since(rs).Seconds())
		}
		done <- nil
	}()
	var loadErr error
poll:
	for {
		select {
		case loadErr = <-done:
			break poll
		case <-time.After(expiryPoll):
		}
		p, err := expirySample(srv, t0)
		if err != nil {
			<-done
			return nil, err
		}
		c.Points = append(c.Points, p)
	}
	if loadErr != nil {
		return nil, loadErr
	}
	loaded := time.Now()
	c.LoadS = loaded.Sub(t0).Seconds()
	end, err := expirySample(srv, t0)
	if err != nil {
		return nil, err
	}
	c.Points = append(c.Points, end)
	for i := 1; time.Duration(i)*expiryPoll <= cfg.ExpiryRest; i++ {
		time.Sleep(time.Until(loaded.Add(time.Duration(i) * expiryPoll)))
		p, err := expirySample(srv, t0)
		if err != nil {
			return nil, err
		}
		c.Points = append(c.Points, p)
	}
	rest := c.Points[len(c.Points)-1]
	if n := rest.Expired - end.Expired; n > 0 {
		c.RestCPUNsPK = (rest.CPUS - end.CPUS) * 1e9 / float64(n)
	}
	c.SETs = end.Commands
	return c, nil
}

// peak is the most keys and the most RSS seen during and after the load, each at its own moment.
func (c *expiryChurn) peak() expiryPoint {
	var p expiryPoint
	for _, q := range c.Points {
		p.Keys, p.RSS = max(p.Keys, q.Keys), max(p.RSS, q.RSS)
	}
	return p
}

// at is the sample nearest to s seconds after the load ended.
func (c *expiryChurn) at(s float64) expiryPoint {
	var best expiryPoint
	for i, q := range c.Points {
		if i == 0 || math.Abs(q.AtS-c.LoadS-s) < math.Abs(best.AtS-c.LoadS-s) {
			best = q
		}
	}
	return best
}

// commandsAt is total_commands_processed at s seconds after the load started, interpolated between samples.
func (c *expiryChurn) commandsAt(s float64) float64 {
	prev := expiryPoint{}
	for _, q := range c.Points {
		if q.AtS >= s {
			if q.AtS == prev.AtS {
				return float64(q.Commands)
			}
			f := (s - prev.AtS) / (q.AtS - prev.AtS)
			return float64(prev.Commands) + f*float64(q.Commands-prev.Commands)
		}
		prev = q
	}
	return float64(prev.Commands)
}

// stale estimates, for each sample taken during the load at least a TTL after its start, the keys held past
// their expiry as a percentage of the live ones. Live keys are the distinct ones among the SETs of the last
// TTL (commands counted by the server), K(1-exp(-w/K)) of w SETs over a key space of K; held keys are DBSIZE.
// It is an estimate: a server that publishes its command count late (corekv every 100 ms) shifts it by a few
// percent either way.
func (c *expiryChurn) stale() []float64 {
	var out []float64
	const k = float64(expiryChurnKeys)
	for _, q := range c.Points {
		if q.AtS < expiryChurnTTL+2*expiryPoll.Seconds() || q.AtS > c.LoadS {
			continue
		}
		w := c.commandsAt(q.AtS) - c.commandsAt(q.AtS-expiryChurnTTL)
		live := k * (1 - math.Exp(-w/k))
		if live > 0 {
			out = append(out, 100*(float64(q.Keys)-live)/live)
		}
	}
	return out
}

// staleSummary is the median and the highest of stale(), and the highest expired_stale_perc the server
// reported during the load.
func (c *expiryChurn) staleSummary() string {
	st := c.stale()
	own := 0.0
	for _, q := range c.Points {
		if q.AtS <= c.LoadS {
			own = max(own, q.StalePerc)
		}
	}
	if len(st) == 0 {
		return fmt.Sprintf("- (own figure at most %.2f%%)", own)
	}
	sort.Float64s(st)
	return fmt.Sprintf("est. %.1f%% median, %.1f%% most (own figure at most %.2f%%)", st[len(st)/2], st[len(st)-1], own)
}

func count(n int64) string {
	if n == 0 {
		return "0"
	}
	return groupDigits(float64(n))
}

func burstLeft(ps []expiryPoint) string {
	var s []string
	for _, p := range ps {
		s = append(s, count(p.Keys))
	}
	return strings.Join(s, ", ")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// writeExpiry is the report section of an --expiry run.
func writeExpiry(w io.Writer, rep *report) {
	cfg := rep.Config
	client := "taskset -c " + formatCPUList(cfg.clientCPUList) + " redis-benchmark -h 127.0.0.1 -p PORT -P " +
		strconv.Itoa(expiryPipeline) + " -c " + strconv.Itoa(cfg.Clients) + " -q"
	fmt.Fprint(w, "## Expiry\n\n")
	fmt.Fprintf(w, "Each scenario starts each server afresh (corekv with 1 shard).\n\n"+
		"**Burst**: `%s -n %d -r %d set px:__rand_int__ v PX %s`, then DBSIZE 1 to %d s after the load ended. "+
		"CPU per expired key = the server's CPU time (utime+stime, `/proc`) over those %d s, when nothing but "+
		"expiry runs, ÷ the growth of `expired_keys` over them.\n\n",
		client, cfg.ExpiryKeys, expiryBurstKeys, expiryBurstTTL, expiryAfter, expiryAfter)
	fmt.Fprint(w, "| server | load s | keys after load |")
	for i := 1; i <= expiryAfter; i++ {
		fmt.Fprintf(w, " +%d s |", i)
	}
	fmt.Fprint(w, " CPU ns per expired key |\n|---|--:|--:|"+strings.Repeat("--:|", expiryAfter)+"--:|\n")
	for _, r := range rep.Expiry {
		if len(r.BurstAfter) < expiryAfter {
			fmt.Fprintf(w, "| %s | failed: %s |%s\n", r.Target.label(), mdEscape(firstLine(r.Error)),
				strings.Repeat(" |", expiryAfter+2))
			continue
		}
		fmt.Fprintf(w, "| %s | %.1f | %s |", r.Target.label(), r.BurstLoadS, count(r.BurstKeys))
		for _, p := range r.BurstAfter {
			fmt.Fprintf(w, " %s |", count(p.Keys))
		}
		fmt.Fprintf(w, " %.0f |\n", r.BurstCPUNsPK)
	}
	sets := fmt.Sprintf("set ttl:__rand_int__ <%d bytes> EX %d", expiryChurnSize, expiryChurnTTL)
	fmt.Fprintf(w, "\n**Churn**: %d rounds of `%s -n %d -r %d %s`, one after the other. **Steady**: the same SETs "+
		"for %v, at the rate the client reaches. DBSIZE, VmRSS and INFO stats are sampled every %v during the "+
		"load and for %v after it; CPU per expired key is taken over that time. *Stale* estimates the keys held "+
		"past their expiry, as a share of the live ones, at each sample a TTL into the load: live keys are the "+
		"distinct ones among the SETs of the last %d s (from `total_commands_processed`), K(1-e^(-w/K)) of w SETs "+
		"over K = %d keys; a few percent either way is noise of the estimate (corekv publishes its command count "+
		"every 100 ms). *Own* is the highest `expired_stale_perc` the server reported during the load (Redis: "+
		"from its samples; corekv: keys due and not deleted yet).\n\n",
		cfg.ExpiryRounds, client, cfg.ExpiryChurn, expiryChurnKeys, sets, cfg.ExpirySteady, expiryPoll,
		cfg.ExpiryRest, expiryChurnTTL, expiryChurnKeys)
	rest := cfg.ExpiryRest.Seconds()
	fmt.Fprintf(w, "| scenario | server | SETs | load s | most keys | most RSS MiB | keys at end | RSS MiB at end | "+
		"stale (median, most) | own | keys +5 s | keys +%[1]v s | RSS MiB +%[1]v s | CPU ns per expired key |\n"+
		"|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", rest)
	for _, sc := range []string{"churn", "steady"} {
		for _, r := range rep.Expiry {
			c := r.Churn
			if sc == "steady" {
				c = r.Steady
			}
			if c == nil {
				continue
			}
			peak, end := c.peak(), c.at(0)
			p5, p15 := c.at(5), c.at(rest)
			stale, own := "-", 0.0
			if st := c.stale(); len(st) > 0 {
				sort.Float64s(st)
				stale = fmt.Sprintf("%.1f%%, %.1f%%", st[len(st)/2], st[len(st)-1])
			}
			for _, q := range c.Points {
				if q.AtS <= c.LoadS {
					own = max(own, q.StalePerc)
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s | %.1f | %s | %.0f | %s | %.0f | %s | %.2f%% | %s | %s | %.0f | %.0f |\n", sc,
				r.Target.label(), count(c.SETs), c.LoadS, count(peak.Keys), mib(peak.RSS), count(end.Keys), mib(end.RSS),
				stale, own, count(p5.Keys), count(p15.Keys), mib(p15.RSS), c.RestCPUNsPK)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "Every sample is in the JSON (`expiry[].burst_after`, `expiry[].churn.points`, `expiry[].steady.points`).\n\n")
}
