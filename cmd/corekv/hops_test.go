package main

import (
	"context"
	"github.com/redis/go-redis/v9"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// keysOnTwoShards sets a few keys on a 2-shard server and returns one that
// the first shard owns and one that the second does. Key hashes are seeded
// per process, so only the server can say: SCAN from cursor 0 walks the
// first shard until its cursor names the second (cursor % 2).
func keysOnTwoShards(t *testing.T, ctx context.Context, c *redis.Client) []string {
	t.Helper()
	const n = 16
	for i := range n {
		if err := c.Set(ctx, "hop:"+strconv.Itoa(i), "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	first := map[string]bool{}
	for cursor := uint64(0); ; {
		keys, next, err := c.Scan(ctx, cursor, "", 1000).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			first[k] = true
		}
		if next == 0 || next%2 != 0 {
			break
		}
		cursor = next
	}
	out := make([]string, 2)
	for i := range n {
		k := "hop:" + strconv.Itoa(i)
		if first[k] {
			out[0] = k
		} else {
			out[1] = k
		}
	}
	if out[0] == "" || out[1] == "" {
		t.Fatalf("hop:0 … hop:%d all on one shard", n-1)
	}
	return out
}

// hopFields are the INFO fields of commands that travel between shards.
var hopFields = []string{"ring_batches_sent", "ring_commands_sent", "ring_batches_received", "ring_commands_received",
	"wakeups_sent", "wakeups_received", "sleeps", "spin_polls", "spin_pauses"}

// shardSums adds up INFO corekv's per-shard fields over the shards, and
// counts the shards.
func shardSums(t *testing.T, ctx context.Context, c *redis.Client) (map[string]int64, int) {
	t.Helper()
	text, err := c.Info(ctx, "corekv").Result()
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]int64{}
	shards := 0
	for _, line := range strings.Split(text, "\r\n") {
		if !strings.HasPrefix(line, "shard") {
			continue
		}
		_, fields, _ := strings.Cut(line, ":")
		shards++
		for _, kv := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(kv, "=")
			x, _ := strconv.ParseInt(v, 10, 64)
			sums[k] += x
		}
	}
	return sums, shards
}

// hopsNow reads INFO's hop counters. INFO counts every hop of the commands
// answered before it, and not its own, so every command sent was received.
func hopsNow(t *testing.T, ctx context.Context, c *redis.Client) map[string]int64 {
	t.Helper()
	m := infoFields(t, ctx, c, "stats")
	if m["corekv_ring_commands_sent"] != m["corekv_ring_commands_received"] {
		t.Fatalf("INFO: %d ring commands sent, %d received", m["corekv_ring_commands_sent"], m["corekv_ring_commands_received"])
	}
	return m
}

// TestHopCounters checks INFO's counters of commands that travel between
// shards. One connection sends n GETs of a key on each of two shards, one at
// a time: exactly n of them run on the other shard, each in a batch of its
// own, and the peer, idle until then, has to be woken at least once. A
// pipeline of remote commands then opens the spin window, which the server
// is started with long enough that the core surely polls in it.
func TestHopCounters(t *testing.T) {
	s := startServer(t, nil, "--shards", "2", "--spin", "200000", "--spin-contended", "yes")
	c := redis.NewClient(&redis.Options{Addr: s.addr, PoolSize: 1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	keys := keysOnTwoShards(t, ctx, c)
	before := hopsNow(t, ctx, c)
	shardsBefore, _ := shardSums(t, ctx, c)

	const n = 50
	for _, k := range keys {
		for range n {
			if err := c.Get(ctx, k).Err(); err != nil {
				t.Fatalf("GET %s: %v", k, err)
			}
		}
	}
	m := hopsNow(t, ctx, c)
	d := map[string]int64{}
	for _, f := range hopFields {
		d[f] = m["corekv_"+f] - before["corekv_"+f]
	}
	for _, f := range hopFields[:4] {
		if d[f] != n {
			t.Errorf("corekv_%s grew by %d with %d GETs one at a time for the other shard", f, d[f], n)
		}
	}
	for _, f := range []string{"wakeups_sent", "wakeups_received", "sleeps"} {
		if d[f] < 1 {
			t.Errorf("corekv_%s grew by %d: waking an idle shard was not counted", f, d[f])
		}
	}
	// The two INFOs' parts, which are not hops, may wake the peer and be
	// woken back too.
	if d["wakeups_sent"] > 2*n+4 {
		t.Errorf("corekv_wakeups_sent grew by %d for %d hops: more than one each way", d["wakeups_sent"], n)
	}

	sums, shards := shardSums(t, ctx, c)
	if shards != 2 {
		t.Fatalf("INFO corekv has %d shard lines, want 2", shards)
	}
	for _, f := range hopFields {
		if _, ok := sums[f]; !ok {
			t.Errorf("INFO corekv has no %s per shard", f)
		}
	}
	for _, f := range hopFields[:4] {
		if got := sums[f] - shardsBefore[f]; got != n {
			t.Errorf("the shards' %s grew by %d in all, want %d", f, got, n)
		}
	}

	p := c.Pipeline()
	for range 100 {
		p.Get(ctx, keys[0])
		p.Get(ctx, keys[1])
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// The peer polls in its spin window after the pipeline's turn, maybe
	// only after INFO has been answered.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m = hopsNow(t, ctx, c); m["corekv_spin_polls"] > before["corekv_spin_polls"] {
			break
		}
	}
	if m["corekv_spin_polls"] == before["corekv_spin_polls"] || m["corekv_ring_commands_sent"]-before["corekv_ring_commands_sent"] != n+100 {
		t.Errorf("after a pipeline of 200 GETs, 100 for the other shard: corekv_spin_polls %d (%d before), "+
			"corekv_ring_commands_sent grew by %d", m["corekv_spin_polls"], before["corekv_spin_polls"],
			m["corekv_ring_commands_sent"]-before["corekv_ring_commands_sent"])
	}

	hopsNow(t, ctx, c)
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if m = infoFields(t, ctx, c, "stats"); m["corekv_ring_commands_sent"] != 0 {
		t.Errorf("corekv_ring_commands_sent = %d after CONFIG RESETSTAT", m["corekv_ring_commands_sent"])
	}
}

// TestSpinPausesWhenPreempted checks that a shard stops polling after busy
// turns while its thread is preempted: pinned to one CPU beside a busy loop
// on the same CPU, a shard under pipelined load is preempted many times a
// second and must pause its polling; with --spin-contended yes it never
// does.
func TestSpinPausesWhenPreempted(t *testing.T) {
	taskset := needBinary(t, "taskset")
	cpus, err := affinityCPUs()
	if err != nil {
		t.Fatal(err)
	}
	cpu := strconv.Itoa(cpus[0])
	burner := exec.Command(taskset, "-c", cpu, "sh", "-c", "while :; do :; done")
	if err := burner.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		burner.Process.Kill()
		burner.Wait()
	}()
	for _, contended := range []string{"no", "yes"} {
		t.Run("spin-contended="+contended, func(t *testing.T) {
			s := startServer(t, []string{taskset, "-c", cpu}, "--shards", "1", "--spin", "1000", "--spin-contended", contended)
			c := s.client(t, 2)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var m map[string]int64
			deadline := time.Now().Add(10 * time.Second)
			for i := 0; i < 200 && time.Now().Before(deadline); i++ {
				p := c.Pipeline()
				for j := range 500 {
					p.Set(ctx, "spin:"+strconv.Itoa(j), "v", 0)
				}
				if _, err := p.Exec(ctx); err != nil {
					t.Fatal(err)
				}
				if m = infoFields(t, ctx, c, "stats"); m["corekv_spin_pauses"] > 0 || contended == "yes" && i >= 20 {
					break
				}
			}
			switch {
			case contended == "no" && m["corekv_spin_pauses"] == 0:
				t.Errorf("a shard sharing its CPU with a busy loop never paused its polling (spin polls %d)",
					m["corekv_spin_polls"])
			case contended == "yes" && m["corekv_spin_pauses"] != 0:
				t.Errorf("--spin-contended yes: polling paused %d times", m["corekv_spin_pauses"])
			}
		})
	}
}
