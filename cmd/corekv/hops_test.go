package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/router"
	"github.com/redis/go-redis/v9"
)

// keyOn returns a key that shard of n owns.
func keyOn(t *testing.T, shard, n int) string {
	t.Helper()
	for i := range 10000 {
		if k := "hop:" + strconv.Itoa(i); router.ShardOf([]byte(k), n) == shard {
			return k
		}
	}
	t.Fatalf("no key for shard %d of %d", shard, n)
	return ""
}

// TestHopCounters checks INFO's counters of commands that travel between
// shards. One connection sends n GETs of a key on each of two shards, one at
// a time: exactly n of them run on the other shard, each in a batch of its
// own, and the peer, idle until then, has to be woken at least once. A
// pipeline of remote commands then opens the spin window, which the server
// is started with long enough that the core surely polls in it.
func TestHopCounters(t *testing.T) {
	s := startServer(t, nil, "--shards", "2", "--spin", "200000")
	c := redis.NewClient(&redis.Options{Addr: s.addr, PoolSize: 1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	const n = 50
	keys := []string{keyOn(t, 0, 2), keyOn(t, 1, 2)}
	for _, k := range keys {
		for range n {
			if err := c.Get(ctx, k).Err(); err != redis.Nil {
				t.Fatalf("GET %s: %v", k, err)
			}
		}
	}
	// INFO's counters are published every 100 ms.
	var m map[string]int64
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m = infoFields(t, ctx, c, "stats"); m["corekv_ring_commands_received"] >= n {
			break
		}
	}
	for _, f := range []string{"ring_batches_sent", "ring_commands_sent", "ring_batches_received", "ring_commands_received"} {
		if got := m["corekv_"+f]; got != n {
			t.Errorf("corekv_%s = %d after %d GETs one at a time for the other shard", f, got, n)
		}
	}
	for _, f := range []string{"wakeups_sent", "wakeups_received", "sleeps"} {
		if m["corekv_"+f] < 1 {
			t.Errorf("corekv_%s = %d after waking an idle shard", f, m["corekv_"+f])
		}
	}
	if m["corekv_wakeups_sent"] > 2*n {
		t.Errorf("corekv_wakeups_sent = %d for %d hops: more than one each way", m["corekv_wakeups_sent"], n)
	}

	// The per-shard figures add up to the totals.
	text, err := c.Info(ctx, "corekv").Result()
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]int64{}
	lines := 0
	for _, line := range strings.Split(text, "\r\n") {
		_, fields, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(line, "shard") {
			continue
		}
		lines++
		for _, kv := range strings.Split(fields, ",") {
			k, v, _ := strings.Cut(kv, "=")
			x, _ := strconv.ParseInt(v, 10, 64)
			sums[k] += x
		}
	}
	if lines != 2 {
		t.Fatalf("INFO corekv has %d shard lines, want 2:\n%s", lines, text)
	}
	for _, f := range []string{"ring_batches_sent", "ring_commands_sent", "ring_batches_received", "ring_commands_received"} {
		if sums[f] != n {
			t.Errorf("shards' %s add up to %d, want %d:\n%s", f, sums[f], n, text)
		}
	}
	for _, f := range []string{"wakeups_sent", "wakeups_received", "sleeps", "spin_polls"} {
		if _, ok := sums[f]; !ok {
			t.Errorf("INFO corekv has no %s:\n%s", f, text)
		}
	}

	p := c.Pipeline()
	for range 100 {
		p.Get(ctx, keys[0])
		p.Get(ctx, keys[1])
	}
	p.Exec(ctx)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if m = infoFields(t, ctx, c, "stats"); m["corekv_spin_polls"] > 0 && m["corekv_ring_commands_sent"] >= n+100 {
			break
		}
	}
	if m["corekv_spin_polls"] == 0 || m["corekv_ring_commands_sent"] != n+100 {
		t.Errorf("after a pipeline of 200 GETs, 100 for the other shard: corekv_spin_polls %d, corekv_ring_commands_sent %d",
			m["corekv_spin_polls"], m["corekv_ring_commands_sent"])
	}

	if err := c.ConfigResetStat(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if m = infoFields(t, ctx, c, "stats"); m["corekv_ring_commands_sent"] != 0 {
		t.Errorf("corekv_ring_commands_sent = %d after CONFIG RESETSTAT", m["corekv_ring_commands_sent"])
	}
}
