package main

// The --blocking measurement, corekv and redis-server side by side: clients
// blocked in BLPOP, each on a key of its own (the keys fall on every
// shard), and one producer pushing elements to the keys in turn, pipelined.
// Each element is its sequence number on its key, so the consumers check
// that every element arrives exactly once and in order. Then every client
// blocks again and the server's CPU time is read while they wait.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// blockingResult is one server's figures.
type blockingResult struct {
	Target    target  `json:"target"`
	Error     string  `json:"error,omitempty"`
	Clients   int     `json:"clients"`
	Elements  int     `json:"elements"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"elements_per_s"`
	CPUS      float64 `json:"server_cpu_s"`
	PerCPU    float64 `json:"elements_per_server_cpu_s"`
	IdleS     float64 `json:"idle_s"`
	IdleCPUS  float64 `json:"idle_server_cpu_s"`
	Blocked   string  `json:"blocked_clients"`
}

func runBlocking(ctx context.Context, cfg *config, tl *tools, work, root string, stdout io.Writer) error {
	var results []blockingResult
	for _, t := range pubsubTargets(cfg) {
		if err := ctx.Err(); err != nil {
			return err
		}
		r := measureBlocking(ctx, cfg, tl, t, work)
		if r.Error != "" {
			fmt.Fprintf(stdout, "blocking %-9s FAILED: %s\n", t.label(), firstLine(r.Error))
		} else {
			fmt.Fprintf(stdout, "blocking %-9s %d elements to %d clients: %.0f/s (%.0f per server CPU-s); idle %d blocked: %.3f CPU-s in %.1f s\n",
				t.label(), r.Elements, r.Clients, r.PerSecond, r.PerCPU, r.Clients, r.IdleCPUS, r.IdleS)
		}
		results = append(results, r)
	}
	return writeNamedReport(cfg, root, "blocking", blockingReport(cfg, results), stdout)
}

func measureBlocking(ctx context.Context, cfg *config, tl *tools, t target, work string) blockingResult {
	n, m := cfg.BlockClients, cfg.BlockElements-cfg.BlockElements%cfg.BlockClients
	r := blockingResult{Target: t, Clients: n, Elements: m}
	fail := func(err error) blockingResult { r.Error = err.Error(); return r }
	srv, err := startServer(ctx, tl, t, cfg.OnlyRedis, work, nil)
	if err != nil {
		return fail(err)
	}
	defer srv.stop()
	addr := srv.addr()
	conns := make([]net.Conn, n)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i := range conns {
		if conns[i], err = net.DialTimeout("tcp", addr, 5*time.Second); err != nil {
			return fail(err)
		}
	}
	per := m / n
	var wg sync.WaitGroup
	var bad atomic.Value
	var got atomic.Int64
	deadline := time.Now().Add(cfg.CellTimeout)
	for i, c := range conns {
		wg.Add(1)
		go func(i int, c net.Conn) {
			defer wg.Done()
			key := "bq:" + strconv.Itoa(i)
			br := bufio.NewReader(c)
			req := appendCommand(nil, "BLPOP", key, "0")
			c.SetDeadline(deadline)
			for want := 1; want <= per; want++ {
				if _, err := c.Write(req); err != nil {
					bad.Store(err.Error())
					return
				}
				k, v, err := readPair(br)
				if err != nil {
					bad.Store(err.Error())
					return
				}
				if k != key || v != strconv.Itoa(want) {
					bad.Store(fmt.Sprintf("client %d wanted %s %d, got %s %s", i, key, want, k, v))
					return
				}
				got.Add(1)
			}
		}(i, c)
	}
	if err := waitBlocked(addr, n); err != nil {
		return fail(err)
	}
	cpu0, _ := cpuSeconds(srv.pid())
	start := time.Now()
	if err := produce(addr, n, per, deadline); err != nil {
		return fail(err)
	}
	wg.Wait()
	r.Seconds = time.Since(start).Seconds()
	cpu1, _ := cpuSeconds(srv.pid())
	if e, ok := bad.Load().(string); ok {
		return fail(fmt.Errorf("%s", e))
	}
	if got.Load() != int64(m) {
		return fail(fmt.Errorf("%d of %d elements delivered", got.Load(), m))
	}
	r.PerSecond = float64(m) / r.Seconds
	r.CPUS = cpu1 - cpu0
	if r.CPUS > 0 {
		r.PerCPU = float64(m) / r.CPUS
	}
	// Every client blocks again; the server should sleep while they wait.
	for i, c := range conns {
		if _, err := c.Write(appendCommand(nil, "BLPOP", "bq:"+strconv.Itoa(i), "0")); err != nil {
			return fail(err)
		}
	}
	if err := waitBlocked(addr, n); err != nil {
		return fail(err)
	}
	info, _ := infoValues(addr, "clients")
	r.Blocked = info["blocked_clients"]
	cpu2, _ := cpuSeconds(srv.pid())
	t0 := time.Now()
	time.Sleep(cfg.BlockIdle)
	cpu3, _ := cpuSeconds(srv.pid())
	r.IdleS = time.Since(t0).Seconds()
	r.IdleCPUS = cpu3 - cpu2
	return r
}

// readPair reads BLPOP's reply: the key and the element.
func readPair(br *bufio.Reader) (string, string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", "", err
	}
	if line != "*2\r\n" {
		return "", "", fmt.Errorf("BLPOP answered %q", line)
	}
	var out [2]string
	for j := range out {
		hdr, err := br.ReadString('\n')
		if err != nil {
			return "", "", err
		}
		l, err := strconv.Atoi(strings.TrimSpace(hdr[1:]))
		if err != nil || hdr[0] != '$' {
			return "", "", fmt.Errorf("bad bulk header %q", hdr)
		}
		buf := make([]byte, l+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return "", "", err
		}
		out[j] = string(buf[:l])
	}
	return out[0], out[1], nil
}

// waitBlocked waits until the server counts n blocked clients.
func waitBlocked(addr string, n int) error {
	want := strconv.Itoa(n)
	var last string
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		info, err := infoValues(addr, "clients")
		if err != nil {
			return err
		}
		if last = info["blocked_clients"]; last == want {
			return nil
		}
	}
	return fmt.Errorf("%s of %d clients blocked after 30s", last, n)
}

// produce pushes per elements to each of the n keys, in turns over the keys,
// on one pipelined connection, and reads the replies as they come.
func produce(addr string, n, per int, deadline time.Time) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(deadline)
	done := make(chan error, 1)
	go func() {
		br := bufio.NewReader(c)
		for i := 0; i < n*per; i++ {
			line, err := br.ReadString('\n')
			if err != nil {
				done <- err
				return
			}
			if line[0] != ':' {
				done <- fmt.Errorf("RPUSH answered %q", line)
				return
			}
		}
		done <- nil
	}()
	var buf []byte
	for seq := 1; seq <= per; seq++ {
		v := strconv.Itoa(seq)
		for k := 0; k < n; k++ {
			buf = appendCommand(buf, "RPUSH", "bq:"+strconv.Itoa(k), v)
			if len(buf) >= 64<<10 {
				if _, err := c.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
	}
	if _, err := c.Write(buf); err != nil {
		return err
	}
	return <-done
}

func blockingReport(cfg *config, rs []blockingResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Blocking pops, corekv vs redis-server\n\n")
	fmt.Fprintf(&b, "`go run ./bench --blocking --blocking-clients %d --blocking-elements %d --blocking-idle %v`, %s UTC.\n",
		cfg.BlockClients, cfg.BlockElements, cfg.BlockIdle, time.Now().UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "Server CPUs %s, corekv with a shard per server CPU; the clients are goroutines of the harness, not\n", cfg.ServerCPUs)
	b.WriteString("pinned. Each client loops on `BLPOP bq:<i> 0`, a key of its own (with several shards the keys fall\n")
	b.WriteString("on all of them); one producer connection pushes the elements to the keys in turn,\n")
	b.WriteString("pipelined, each element its sequence number on its key, and every client checks it gets each of\n")
	b.WriteString("its elements once and in order. Then every client blocks again and the server's CPU time (user +\n")
	b.WriteString("system, /proc) is read over the idle window.\n\n")
	b.WriteString("| server | clients | elements | exactly once, in order | elements/s | per server CPU-s | server CPU s | blocked clients (INFO) | idle window s | CPU s while blocked |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		if r.Error != "" {
			fmt.Fprintf(&b, "| %s | failed: %s |\n", r.Target.label(), firstLine(r.Error))
			continue
		}
		fmt.Fprintf(&b, "| %s | %d | %d | yes | %.0f | %.0f | %.2f | %s | %.1f | %.3f |\n", r.Target.label(), r.Clients,
			r.Elements, r.PerSecond, r.PerCPU, r.CPUS, r.Blocked, r.IdleS, r.IdleCPUS)
	}
	return b.String()
}
