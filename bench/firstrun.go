package main

// The --first-run mode: what a user sees who starts corekv and redis-server with their defaults on the machine
// at hand and points redis-benchmark at them, nothing pinned. The matrix runs as usual (alternated rounds,
// medians) with unpinned servers and client; then the cost of one hop between shards is measured on its own:
//
//   - corekv with --shards 2 and two keys, one on each shard (asked of the server: hashes are seeded per process); one connection sends GETs of one key, then of the
//     other, one at a time (P=1) and in pipelines of hopPipeline. Whichever key lives on the other shard than
//     the connection's, as INFO's corekv_ring_commands_sent shows, makes every GET a hop;
//   - per GET: wall time at P=1 (the round trip), server CPU at P=1 and in pipelines, and the wake-ups sent.
//     Remote minus local is what a hop costs.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

const (
	hopShards   = 2
	hopPipeline = 64
	hopRounds   = 3
	hopSingles  = 20_000 // GETs of one block at P=1; pipelined blocks have hopPipeline/2 times as many
	hopSettle   = 250 * time.Millisecond
)

// firstRunTargets are redis and corekv with their defaults, unpinned, and corekv at each --shards given.
func firstRunTargets(cfg *config) []target {
	out := []target{{Server: "redis"}, {Server: "corekv"}}
	for _, k := range cfg.Shards {
		out = append(out, target{Server: "corekv", Shards: k})
	}
	return out
}

// hopBlock is one block of GETs of one key.
type hopBlock struct {
	Key        string  `json:"key"`
	Remote     bool    `json:"remote"`
	Pipeline   int     `json:"pipeline"`
	GETs       int     `json:"gets"`
	WallS      float64 `json:"wall_s"`
	CPUS       float64 `json:"cpu_s"`         // the server's, over the block
	Sent       int64   `json:"commands_sent"` // corekv_ring_commands_sent over the block
	Batches    int64   `json:"batches_sent"`
	WakeupsOut int64   `json:"wakeups_sent"`
}

// hopSide is the medians of the blocks of one kind (local or remote key).
type hopSide struct {
	RTTUs           float64 `json:"rtt_us"`            // wall µs per GET at P=1
	CPUUs           float64 `json:"cpu_us"`            // server CPU µs per GET at P=1
	PipedCPUNs      float64 `json:"piped_cpu_ns"`      // server CPU ns per GET in pipelines
	WakeupsPerGet   float64 `json:"wakeups_per_get"`   // at P=1
	CommandsPerHop  float64 `json:"commands_per_hop"`  // commands per batch sent, in pipelines
	PipedWakeupsPer float64 `json:"piped_wakeups_per"` // wake-ups per batch sent, in pipelines
}

type hopResult struct {
	Command string     `json:"command"`
	Blocks  []hopBlock `json:"blocks"`
	Local   hopSide    `json:"local"`
	Remote  hopSide    `json:"remote"`
	Error   string     `json:"error,omitempty"`
}

// runHop measures what a GET of a key on the other shard costs beside one on the connection's own.
func runHop(ctx context.Context, cfg *config, tl *tools, work string, stdout io.Writer) (*hopResult, error) {
	h := &hopResult{}
	srv, err := startServer(ctx, tl, target{Server: "corekv", Shards: hopShards}, false, work, nil)
	if err != nil {
		h.Error = err.Error()
		return h, nil
	}
	defer srv.stop()
	h.Command = shellJoin(srv.Argv)
	if err := h.measure(ctx, cfg, srv, stdout); err != nil {
		h.Error = err.Error()
		fmt.Fprintf(stdout, "hop FAILED: %s\n", firstLine(h.Error))
		return h, ctx.Err()
	}
	h.summarize()
	fmt.Fprintf(stdout, "hop: P=1 round trip %.1f µs local, %.1f µs remote; CPU per GET %.1f / %.1f µs; "+
		"pipelined CPU per GET %.0f / %.0f ns\n", h.Local.RTTUs, h.Remote.RTTUs, h.Local.CPUUs, h.Remote.CPUUs,
		h.Local.PipedCPUNs, h.Remote.PipedCPUNs)
	return h, nil
}

func (h *hopResult) measure(ctx context.Context, cfg *config, srv *server, stdout io.Writer) error {
	c, err := net.DialTimeout("tcp", srv.addr(), 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	r := bufio.NewReaderSize(c, 64<<10)
	keys, err := keysOnEachShard(c, r)
	if err != nil {
		return err
	}
	for round := 1; round <= hopRounds; round++ {
		for _, k := range keys {
			for _, p := range []int{1, hopPipeline} {
				if err := ctx.Err(); err != nil {
					return err
				}
				n := cfg.HopGets
				if p > 1 {
					n *= hopPipeline / 2
				}
				b, err := hopRun(srv, c, r, k, p, n)
				if err != nil {
					return err
				}
				h.Blocks = append(h.Blocks, b)
				fmt.Fprintf(stdout, "hop round %d %s P=%d remote=%v: %.2f µs/GET, CPU %.2f µs/GET\n", round, k, p,
					b.Remote, 1e6*b.WallS/float64(n), 1e6*b.CPUS/float64(n))
			}
		}
	}
	return nil
}

// keysOnEachShard sets hop:0 … hop:15 and returns one of them that the first shard owns and one it does not.
// Key hashes are seeded per process, so only the server can say: SCAN from cursor 0 walks the first shard
// until its cursor names the next one (cursor % shards).
func keysOnEachShard(c net.Conn, r *bufio.Reader) ([]string, error) {
	const candidates = 16
	var req []byte
	for i := range candidates {
		req = appendCommand(req, "SET", "hop:"+strconv.Itoa(i), "v")
	}
	if _, err := c.Write(req); err != nil {
		return nil, err
	}
	for range candidates {
		if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
			return nil, fmt.Errorf("SET: %q %v", line, err)
		}
	}
	first := map[string]bool{}
	for cursor := "0"; ; {
		if _, err := c.Write(appendCommand(nil, "SCAN", cursor, "COUNT", "1000")); err != nil {
			return nil, err
		}
		reply, err := readArray(r)
		if err != nil || len(reply) < 1 {
			return nil, fmt.Errorf("SCAN: %v", err)
		}
		for _, k := range reply[1:] {
			first[k] = true
		}
		next, err := strconv.ParseUint(reply[0], 10, 64)
		if err != nil || next == 0 || next%hopShards != 0 {
			break
		}
		cursor = reply[0]
	}
	keys := make([]string, 2)
	for i := range candidates {
		k := "hop:" + strconv.Itoa(i)
		if first[k] {
			keys[0] = k
		} else {
			keys[1] = k
		}
	}
	if keys[0] == "" || keys[1] == "" {
		return nil, fmt.Errorf("all of hop:0 … hop:%d on one shard", candidates-1)
	}
	return keys, nil
}

// readArray reads a SCAN reply: a two-element array of the cursor and an array of keys, flattened.
func readArray(r *bufio.Reader) ([]string, error) {
	var out []string
	line := func(prefix byte) (int, error) {
		s, err := r.ReadString('\n')
		if err != nil {
			return 0, err
		}
		if len(s) < 3 || s[0] != prefix {
			return 0, fmt.Errorf("unexpected reply line %q", strings.TrimSpace(s))
		}
		return strconv.Atoi(s[1 : len(s)-2])
	}
	bulk := func() error {
		n, err := line('$')
		if err != nil {
			return err
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return err
		}
		out = append(out, string(b[:n]))
		return nil
	}
	if n, err := line('*'); err != nil || n != 2 {
		return nil, fmt.Errorf("not a SCAN reply: %v", err)
	}
	if err := bulk(); err != nil {
		return nil, err
	}
	n, err := line('*')
	if err != nil {
		return nil, err
	}
	for range n {
		if err := bulk(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// hopRun sends n GETs of key on c, p at a time, and reads the server's CPU time and hop counters around them.
func hopRun(srv *server, c net.Conn, r *bufio.Reader, key string, p, n int) (hopBlock, error) {
	b := hopBlock{Key: key, Pipeline: p, GETs: n}
	time.Sleep(hopSettle) // INFO's counters are published every 100 ms
	before, err := infoInts(srv.addr(), "stats")
	if err != nil {
		return b, err
	}
	var req []byte
	for range p {
		req = appendCommand(req, "GET", key)
	}
	cpu0, err := cpuSeconds(srv.pid())
	if err != nil {
		return b, err
	}
	t0 := time.Now()
	c.SetDeadline(t0.Add(2 * time.Minute))
	for done := 0; done < n; done += p {
		if _, err := c.Write(req); err != nil {
			return b, err
		}
		for range p {
			// "$1\r\nv\r\n": the length line, then the value.
			head, err := r.ReadSlice('\n')
			if err != nil {
				return b, err
			}
			if string(head) != "$1\r\n" {
				return b, fmt.Errorf("GET %s answered %q", key, strings.TrimSpace(string(head)))
			}
			if _, err := r.Discard(3); err != nil {
				return b, err
			}
		}
	}
	b.WallS = time.Since(t0).Seconds()
	cpu1, err := cpuSeconds(srv.pid())
	if err != nil {
		return b, err
	}
	b.CPUS = cpu1 - cpu0
	time.Sleep(hopSettle)
	after, err := infoInts(srv.addr(), "stats")
	if err != nil {
		return b, err
	}
	b.Sent = after["corekv_ring_commands_sent"] - before["corekv_ring_commands_sent"]
	b.Batches = after["corekv_ring_batches_sent"] - before["corekv_ring_batches_sent"]
	b.WakeupsOut = after["corekv_wakeups_sent"] - before["corekv_wakeups_sent"]
	b.Remote = b.Sent >= int64(n/2)
	return b, nil
}

// summarize takes the medians of the blocks of each kind.
func (h *hopResult) summarize() {
	side := func(remote bool) hopSide {
		var rtt, cpu, piped, wake, perHop, pipedWake []float64
		for _, b := range h.Blocks {
			if b.Remote != remote {
				continue
			}
			n := float64(b.GETs)
			if b.Pipeline == 1 {
				rtt = append(rtt, 1e6*b.WallS/n)
				cpu = append(cpu, 1e6*b.CPUS/n)
				wake = append(wake, float64(b.WakeupsOut)/n)
				continue
			}
			piped = append(piped, 1e9*b.CPUS/n)
			if b.Batches > 0 {
				perHop = append(perHop, float64(b.Sent)/float64(b.Batches))
				pipedWake = append(pipedWake, float64(b.WakeupsOut)/float64(b.Batches))
			}
		}
		return hopSide{RTTUs: median(rtt), CPUUs: median(cpu), PipedCPUNs: median(piped), WakeupsPerGet: median(wake),
			CommandsPerHop: median(perHop), PipedWakeupsPer: median(pipedWake)}
	}
	h.Local, h.Remote = side(false), side(true)
}

// writeHop is the "cost of a hop" section of a --first-run report.
func writeHop(w io.Writer, rep *report) {
	h := rep.Hop
	fmt.Fprint(w, "## Cost of a hop\n\n")
	if h.Error != "" {
		fmt.Fprintf(w, "Failed: %s\n\n", mdEscape(firstLine(h.Error)))
		return
	}
	fmt.Fprintf(w, "`%s`, unpinned like the rest, with two keys, one on each shard. One connection sends "+
		"%d GETs of one key one at a time (P=1), then %d in pipelines of %d, then the same for the other key; %d "+
		"rounds. The key on the other shard than the connection's (INFO's `corekv_ring_commands_sent` counts its "+
		"GETs) costs a hop each; the figures are medians over the rounds. CPU is the server process's (both shards), "+
		"from `/proc/<pid>/stat`.\n\n", h.Command, rep.Config.HopGets, rep.Config.HopGets*hopPipeline/2, hopPipeline, hopRounds)
	fmt.Fprint(w, "| per GET | local key | remote key | hop costs |\n|---|--:|--:|--:|\n")
	row := func(name, unit string, l, r float64) {
		fmt.Fprintf(w, "| %s | %.2f %s | %.2f %s | %+.2f %s |\n", name, l, unit, r, unit, r-l, unit)
	}
	row("round trip at P=1", "µs", h.Local.RTTUs, h.Remote.RTTUs)
	row("server CPU at P=1", "µs", h.Local.CPUUs, h.Remote.CPUUs)
	row("wake-ups sent at P=1", "", h.Local.WakeupsPerGet, h.Remote.WakeupsPerGet)
	row(fmt.Sprintf("server CPU at P=%d", hopPipeline), "ns", h.Local.PipedCPUNs, h.Remote.PipedCPUNs)
	fmt.Fprintf(w, "\nIn pipelines of %d a hop carried %.1f commands per batch and sent %.2f wake-ups per batch.\n\n",
		hopPipeline, h.Remote.CommandsPerHop, h.Remote.PipedWakeupsPer)
}
