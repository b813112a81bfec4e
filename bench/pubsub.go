package main

// The --pubsub measurement: fan-out throughput, delivery latency and a
// subscriber that stops reading, corekv and redis-server side by side.
//
// Subscribers are connections of this process that read fixed-size frames
// (the channel and the 16-byte payload never change, so a message is a known
// number of bytes). The fan-out publisher is redis-benchmark's command mode
// (PUBLISH with a pipeline), pinned to the client CPUs; the latency
// publisher is this process, sending a timestamp as the payload at a fixed
// rate.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

const (
	psChannel     = "fanout"
	psPayloadSize = 16
	psSubscribers = 100
	psLatencyRate = 1000 // messages per second of the latency run
	psLatencyDur  = 3 * time.Second
	psSlowSize    = 1024 // payload of the slow-subscriber run, to reach the limit sooner
)

// psFrame is the size of one message frame in RESP2 for a payload of n bytes.
func psFrame(n int) int {
	return len(fmt.Sprintf("*3\r\n$7\r\nmessage\r\n$%d\r\n%s\r\n$%d\r\n", len(psChannel), psChannel, n)) + n + 2
}

// pubsubResult is one server's figures.
type pubsubResult struct {
	Target target `json:"target"`
	Error  string `json:"error,omitempty"`

	Published     int     `json:"published"`
	FanoutS       float64 `json:"fanout_s"`
	Delivered     float64 `json:"delivered_per_s"`
	ServerCPUS    float64 `json:"server_cpu_s"`
	DeliveredCPU  float64 `json:"delivered_per_server_cpu_s"`
	LatencyP50us  float64 `json:"latency_p50_us"`
	LatencyP99us  float64 `json:"latency_p99_us"`
	BaseRate      float64 `json:"publish_rate_without_slow"`
	SlowRate      float64 `json:"publish_rate_with_slow"`
	SlowCutOff    bool    `json:"slow_cut_off"`
	SlowCutAfterS float64 `json:"slow_cut_after_s"`
}

func pubsubTargets(cfg *config) []target {
	return []target{{Server: "corekv", Shards: len(cfg.serverCPUList), CPUs: cfg.ServerCPUs},
		{Server: "redis", CPUs: cfg.ServerCPUs}}
}

// runPubsub measures every target and writes the report.
func runPubsub(ctx context.Context, cfg *config, tl *tools, work, root string, stdout io.Writer) error {
	var results []pubsubResult
	for _, t := range pubsubTargets(cfg) {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := measurePubsub(ctx, cfg, tl, t, work)
		if r.Error != "" {
			fmt.Fprintf(stdout, "pubsub %-9s FAILED: %s\n", t.label(), firstLine(r.Error))
		} else {
			fmt.Fprintf(stdout, "pubsub %-9s delivered %.0f/s (%.0f per server CPU-s), p99 %.0f us, publish rate %.0f/s -> %.0f/s with a slow subscriber (cut off: %v)\n",
				t.label(), r.Delivered, r.DeliveredCPU, r.LatencyP99us, r.BaseRate, r.SlowRate, r.SlowCutOff)
		}
		results = append(results, r)
	}
	return writeNamedReport(cfg, root, "pubsub", pubsubReport(cfg, results), stdout)
}

func measurePubsub(ctx context.Context, cfg *config, tl *tools, t target, work string) pubsubResult {
	r := pubsubResult{Target: t}
	fail := func(err error) pubsubResult { r.Error = err.Error(); return r }
	srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, nil)
	if err != nil {
		return fail(err)
	}
	defer srv.stop()

	// Fan-out: every subscriber must get every message.
	n := cfg.PubSubMsgs
	frame := psFrame(psPayloadSize)
	subs, err := psSubscribe(srv.addr(), psSubscribers)
	if err != nil {
		return fail(err)
	}
	var wg sync.WaitGroup
	var short atomic.Int64
	for _, c := range subs {
		wg.Add(1)
		go func(c net.Conn) {
			defer wg.Done()
			c.SetReadDeadline(time.Now().Add(cfg.CellTimeout))
			if _, err := io.CopyN(io.Discard, c, int64(n*frame)); err != nil {
				short.Add(1)
			}
		}(c)
	}
	cpu0, _ := cpuSeconds(srv.pid())
	start := time.Now()
	payload := strings.Repeat("x", psPayloadSize)
	if err := psPublish(ctx, cfg, tl, srv, n, payload); err != nil {
		psClose(subs)
		return fail(err)
	}
	wg.Wait()
	r.FanoutS = time.Since(start).Seconds()
	cpu1, _ := cpuSeconds(srv.pid())
	psClose(subs)
	if k := short.Load(); k > 0 {
		return fail(fmt.Errorf("%d subscribers did not get all %d messages", k, n))
	}
	r.Published = n
	r.Delivered = float64(n*psSubscribers) / r.FanoutS
	r.ServerCPUS = cpu1 - cpu0
	if r.ServerCPUS > 0 {
		r.DeliveredCPU = float64(n*psSubscribers) / r.ServerCPUS
	}

	// Latency at a moderate rate: the payload is the send time.
	if r.LatencyP50us, r.LatencyP99us, err = psLatency(srv.addr()); err != nil {
		return fail(err)
	}

	// A subscriber that stops reading, at Redis's default pubsub limit.
	if _, err := command(srv.addr(), 5*time.Second, "CONFIG", "SET", "client-output-buffer-limit", "pubsub 32mb 8mb 60"); err != nil {
		return fail(err)
	}
	big := strings.Repeat("y", psSlowSize)
	slowN := 64 << 20 / psSlowSize
	base, err := psTimedPublish(ctx, cfg, tl, srv, slowN, big)
	if err != nil {
		return fail(err)
	}
	r.BaseRate = base
	slow, err := psSubscribe(srv.addr(), 1)
	if err != nil {
		return fail(err)
	}
	defer psClose(slow)
	cut := make(chan time.Duration, 1)
	t0 := time.Now()
	go func() {
		for time.Since(t0) < cfg.CellTimeout {
			st, err := infoValues(srv.addr(), "stats")
			if err == nil && st["pubsub_channels"] == "0" {
				cut <- time.Since(t0)
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		close(cut)
	}()
	if r.SlowRate, err = psTimedPublish(ctx, cfg, tl, srv, slowN, big); err != nil {
		return fail(err)
	}
	if d, ok := <-cut; ok {
		r.SlowCutOff, r.SlowCutAfterS = true, d.Seconds()
	}
	return r
}

// psSubscribe opens n connections subscribed to psChannel and reads their
// confirmations.
func psSubscribe(addr string, n int) ([]net.Conn, error) {
	var conns []net.Conn
	confirm := fmt.Sprintf("*3\r\n$9\r\nsubscribe\r\n$%d\r\n%s\r\n:1\r\n", len(psChannel), psChannel)
	for i := 0; i < n; i++ {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			psClose(conns)
			return nil, err
		}
		conns = append(conns, c)
		c.Write(appendCommand(nil, "SUBSCRIBE", psChannel))
		buf := make([]byte, len(confirm))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != confirm {
			psClose(conns)
			return nil, fmt.Errorf("SUBSCRIBE answered %q: %v", buf, err)
		}
	}
	return conns, nil
}

func psClose(conns []net.Conn) {
	for _, c := range conns {
		c.Close()
	}
}

// psPublish publishes n messages with redis-benchmark (one connection,
// pipelined), bounded by --cell-timeout.
func psPublish(ctx context.Context, cfg *config, tl *tools, srv *server, n int, payload string) error {
	cctx, cancel := context.WithTimeout(ctx, cfg.CellTimeout)
	defer cancel()
	argv := clientArgv(cfg, tl, srv, "-c", "1", "-P", "16", "-n", strconv.Itoa(n), "-q", "PUBLISH", psChannel, payload)
	cmd := exec.CommandContext(cctx, argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("redis-benchmark: %v: %s", err, tail(string(out)))
	}
	return nil
}

// psTimedPublish is psPublish's rate in messages per second.
func psTimedPublish(ctx context.Context, cfg *config, tl *tools, srv *server, n int, payload string) (float64, error) {
	start := time.Now()
	if err := psPublish(ctx, cfg, tl, srv, n, payload); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// psLatency publishes psLatencyRate messages a second for psLatencyDur to
// the subscribers, each message carrying its send time, and returns the p50
// and p99 of publish-to-receive in microseconds over all subscribers.
func psLatency(addr string) (p50, p99 float64, err error) {
	subs, err := psSubscribe(addr, psSubscribers)
	if err != nil {
		return 0, 0, err
	}
	defer psClose(subs)
	origin := time.Now()
	total := int(psLatencyRate * psLatencyDur / time.Second)
	frame := psFrame(psPayloadSize)
	lat := make([][]float64, len(subs))
	var wg sync.WaitGroup
	for i, c := range subs {
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			r := bufio.NewReaderSize(c, 64<<10)
			buf := make([]byte, frame)
			c.SetReadDeadline(time.Now().Add(psLatencyDur + 10*time.Second))
			for k := 0; k < total; k++ {
				if _, err := io.ReadFull(r, buf); err != nil {
					return
				}
				sent, _ := strconv.ParseInt(string(buf[frame-2-psPayloadSize:frame-2]), 10, 64)
				lat[i] = append(lat[i], float64(time.Since(origin).Nanoseconds()-sent)/1e3)
			}
		}(i, c)
	}
	pub, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, 0, err
	}
	defer pub.Close()
	go io.Copy(io.Discard, pub)
	tick := time.NewTicker(time.Second / psLatencyRate)
	for k := 0; k < total; k++ {
		<-tick.C
		ts := fmt.Sprintf("%0*d", psPayloadSize, time.Since(origin).Nanoseconds())
		if _, err := pub.Write(appendCommand(nil, "PUBLISH", psChannel, ts)); err != nil {
			tick.Stop()
			return 0, 0, err
		}
	}
	tick.Stop()
	wg.Wait()
	var all []float64
	for _, l := range lat {
		all = append(all, l...)
	}
	if len(all) < total*len(subs) {
		return 0, 0, fmt.Errorf("latency run: %d of %d messages received", len(all), total*len(subs))
	}
	sort.Float64s(all)
	return all[len(all)/2], all[len(all)*99/100], nil
}

func pubsubReport(cfg *config, rs []pubsubResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Pub/Sub fan-out, corekv vs redis-server\n\n")
	fmt.Fprintf(&b, "`go run ./bench --pubsub`, %s UTC. Server CPUs %s, client CPUs %s (redis-benchmark; the\n",
		time.Now().UTC().Format("2006-01-02 15:04"), cfg.ServerCPUs, cfg.ClientCPUs)
	fmt.Fprintf(&b, "subscribers are goroutines of the harness, not pinned). %d subscribers of one channel, %d-byte\n",
		psSubscribers, psPayloadSize)
	fmt.Fprintf(&b, "messages, %d published by one redis-benchmark connection with -P 16.\n\n", cfg.PubSubMsgs)
	b.WriteString("| server | delivered/s | delivered per server CPU-s | server CPU s | p50 us | p99 us | publish/s, 1 KB | with a non-reading subscriber | cut off | after s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(&b, "| %s | failed: %s |\n", r.Target.label(), firstLine(r.Error))
			continue
		}
		fmt.Fprintf(&b, "| %s | %.0f | %.0f | %.2f | %.0f | %.0f | %.0f | %.0f | %v | %.2f |\n", r.Target.label(),
			r.Delivered, r.DeliveredCPU, r.ServerCPUS, r.LatencyP50us, r.LatencyP99us, r.BaseRate, r.SlowRate,
			r.SlowCutOff, r.SlowCutAfterS)
	}
	fmt.Fprintf(&b, "\nLatency: one publisher at %d messages/s for %v, the send time in the payload, every\n", psLatencyRate, psLatencyDur)
	b.WriteString("subscriber's receive time; percentiles over all deliveries. Slow subscriber: client-output-buffer-limit\n")
	b.WriteString("`pubsub 32mb 8mb 60`; 64 MB of 1 KB messages published without it, then again with one subscriber\n")
	b.WriteString("that never reads; `cut off` says whether the server closed it (INFO pubsub_channels fell to 0) and when.\n")
	return b.String()
}

// writeNamedReport writes a mode's report, text, as <date>-vm-<name>.md in
// the report folder (cfg.Out, else bench/results under root).
func writeNamedReport(cfg *config, root, name, text string, stdout io.Writer) error {
	out := cfg.Out
	if out == "" {
		out = filepath.Join(root, "bench", "results")
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path := filepath.Join(out, time.Now().UTC().Format("2006-01-02")+"-vm-"+name+".md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "wrote", path)
	return nil
}
