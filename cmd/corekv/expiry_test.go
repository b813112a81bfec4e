package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestActiveExpiryKeepsUp loads keys with a short TTL into several databases
// of a two-shard server, fast, and checks that active expiry removes nearly
// all of them within a few seconds of their TTL, with no client reading them.
func TestActiveExpiryKeepsUp(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dbs := []int{0, 5, 15}
	perDB := 300_000
	if raceBuild {
		perDB = 20_000
	}
	const ttl = 1500 * time.Millisecond
	clients := map[int]*redis.Client{}
	for _, db := range dbs {
		c := redis.NewClient(&redis.Options{Addr: s.addr, DB: db})
		t.Cleanup(func() { c.Close() })
		clients[db] = c
	}
	start := time.Now()
	for _, db := range dbs {
		c := clients[db]
		for from := 0; from < perDB; from += 10_000 {
			p := c.Pipeline()
			for i := from; i < from+10_000; i++ {
				p.Set(ctx, "px:"+strconv.Itoa(i), "v", ttl)
			}
			if _, err := p.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	loaded := time.Now()
	t.Logf("loaded %d keys in each of %d databases in %v", perDB, len(dbs), loaded.Sub(start).Round(time.Millisecond))

	// Every key has expired once the last one's TTL is past. From then on
	// the server has 2 s to delete them: expiry that keeps up needs a few
	// milliseconds, sampling that spreads a fixed budget over every
	// database took several seconds. Keys are only counted, never read.
	time.Sleep(time.Until(loaded.Add(ttl)))
	deadline := time.Now().Add(2 * time.Second)
	for {
		left := map[int]int64{}
		total := int64(0)
		for _, db := range dbs {
			n, err := clients[db].DBSize(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			left[db] = n
			total += n
		}
		over := false
		for _, n := range left {
			over = over || n > int64(perDB/100)
		}
		if !over {
			t.Logf("%v after the last TTL: keys left per database %v", time.Since(loaded.Add(ttl)).Round(time.Millisecond), left)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 s after the last TTL, keys left per database: %v (of %d each)", left, perDB)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Every key deleted is counted as expired, and the keyspace agrees.
	var st map[string]int64
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if st = infoFields(t, ctx, clients[0], "stats"); st["expired_keys"] >= int64(len(dbs)*perDB*99/100) {
			break
		}
	}
	if st["expired_keys"] < int64(len(dbs)*perDB*99/100) {
		t.Fatalf("expired_keys %d after %d keys expired", st["expired_keys"], len(dbs)*perDB)
	}
}

// TestExpiryInfoAndConfig checks the INFO fields of expiry and the CONFIG
// parameters that tune it, against what Redis 7 answers.
func TestExpiryInfoAndConfig(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	c := s.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct{ set, want string }{
		{"1000", "500"}, {"0", "1"}, {"20", "20"},
	} {
		if err := c.ConfigSet(ctx, "hz", tc.set).Err(); err != nil {
			t.Fatalf("CONFIG SET hz %s: %v", tc.set, err)
		}
		if got := c.ConfigGet(ctx, "hz").Val()["hz"]; got != tc.want {
			t.Fatalf("CONFIG SET hz %s: CONFIG GET hz = %q, want %q", tc.set, got, tc.want)
		}
	}
	if got := infoFields(t, ctx, c, "server")["hz"]; got != 20 {
		t.Fatalf("INFO hz = %d after CONFIG SET hz 20", got)
	}
	for _, bad := range []string{"0", "11", "x"} {
		if err := c.ConfigSet(ctx, "active-expire-effort", bad).Err(); err == nil ||
			!strings.HasPrefix(err.Error(), "ERR CONFIG SET failed (possibly related to argument 'active-expire-effort')") {
			t.Fatalf("CONFIG SET active-expire-effort %s: %v", bad, err)
		}
	}
	if err := c.ConfigSet(ctx, "active-expire-effort", "5").Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.ConfigGet(ctx, "active-expire-effort").Val()["active-expire-effort"]; got != "5" {
		t.Fatalf("active-expire-effort = %q", got)
	}

	// avg_ttl is the mean TTL left, in ms, over the keys with one.
	p := c.Pipeline()
	for i := range 1000 {
		p.Set(ctx, "ttl:"+strconv.Itoa(i), "v", time.Duration(100+i%2*100)*time.Second)
		p.Set(ctx, "plain:"+strconv.Itoa(i), "v", 0)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	var line string
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		line = infoLine(t, ctx, c, "keyspace", "db0")
		if strings.HasPrefix(line, "keys=2000,expires=1000,") {
			break
		}
	}
	var keys, expires, avg int64
	if _, err := fmt.Sscanf(line, "keys=%d,expires=%d,avg_ttl=%d", &keys, &expires, &avg); err != nil ||
		keys != 2000 || expires != 1000 || avg < 140_000 || avg > 150_000 {
		t.Fatalf("INFO keyspace db0:%s, want 2000 keys, 1000 with a TTL, avg_ttl about 150000", line)
	}

	st := infoFields(t, ctx, c, "stats")
	for _, f := range []string{"expired_keys", "expired_time_cap_reached_count", "expire_cycle_cpu_milliseconds"} {
		if _, ok := st[f]; !ok {
			t.Errorf("INFO stats has no %s", f)
		}
	}
	if perc := infoLine(t, ctx, c, "stats", "expired_stale_perc"); perc != "0.00" {
		t.Errorf("expired_stale_perc:%s with nothing expired", perc)
	}
	// Lazy expiry counts as expiry too.
	c.Set(ctx, "short", "v", 10*time.Millisecond)
	time.Sleep(50 * time.Millisecond)
	c.Get(ctx, "short")
	for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if st = infoFields(t, ctx, c, "stats"); st["expired_keys"] == 1 {
			return
		}
	}
	t.Fatalf("expired_keys %d after one key expired", st["expired_keys"])
}

// infoLine returns the value of field in INFO section.
func infoLine(t *testing.T, ctx context.Context, c *redis.Client, section, field string) string {
	t.Helper()
	text, err := c.Info(ctx, section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// TestIdleWithTTLsSleeps checks that keys with a TTL far off cost an idle
// server no CPU: the loop sleeps until a bucket of the TTL wheel is due,
// where a due time left in the past would keep it turning.
func TestIdleWithTTLsSleeps(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	c := s.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := c.Pipeline()
	for i := range 20_000 {
		p.Set(ctx, "ttl:"+strconv.Itoa(i), "v", time.Hour+time.Duration(i)*time.Millisecond)
	}
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	// Past the window in which a shard polls after a busy turn.
	time.Sleep(1500 * time.Millisecond)
	pid := s.cmd.Process.Pid
	before, wall := cpuSeconds(t, pid), time.Now()
	time.Sleep(time.Second)
	if share := (cpuSeconds(t, pid) - before) / time.Since(wall).Seconds(); share > 0.1 {
		t.Fatalf("idle server holding 20k keys with a TTL used %.0f%% of a CPU", share*100)
	}
}

// TestActiveExpiryUnderLoad writes keys with a 300 ms TTL into two databases
// of a two-shard server, as fast as two pipelining clients go, for 6 s, and
// checks while they write that the server never holds more keys than were
// written in the last TTL and two seconds: expiry keeps pace with writes
// instead of falling behind them. (It keeps within a few hundred ms of them;
// the margin is for a loaded host that stops a shard's thread now and then.)
func TestActiveExpiryUnderLoad(t *testing.T) {
	s := startServer(t, nil, "--shards", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const ttl = 300 * time.Millisecond
	const window = ttl + 2*time.Second
	type mark struct {
		at time.Time
		n  int
	}
	var mu sync.Mutex
	marks := map[int][]mark{}
	dbs := []int{1, 7}
	stop := time.Now().Add(6 * time.Second)
	errs := make(chan error, len(dbs))
	for _, db := range dbs {
		c := redis.NewClient(&redis.Options{Addr: s.addr, DB: db})
		t.Cleanup(func() { c.Close() })
		go func() {
			n := 0
			for time.Now().Before(stop) {
				p := c.Pipeline()
				for range 1000 {
					p.Set(ctx, "load:"+strconv.Itoa(n), "v", ttl)
					n++
				}
				if _, err := p.Exec(ctx); err != nil {
					errs <- err
					return
				}
				mu.Lock()
				marks[db] = append(marks[db], mark{time.Now(), n})
				mu.Unlock()
			}
			errs <- nil
		}()
	}
	// written is how many keys db got from since to now.
	written := func(db int, since time.Time) int {
		ms := marks[db]
		if len(ms) == 0 {
			return 0
		}
		before := 0
		for _, m := range ms {
			if m.at.Before(since) {
				before = m.n
			}
		}
		return ms[len(ms)-1].n - before
	}
	counters := map[int]*redis.Client{}
	for _, db := range dbs {
		c := redis.NewClient(&redis.Options{Addr: s.addr, DB: db})
		t.Cleanup(func() { c.Close() })
		counters[db] = c
	}
	worst, samples := 0.0, 0
	began := time.Now()
	for time.Now().Before(stop) {
		time.Sleep(250 * time.Millisecond)
		for _, db := range dbs {
			held, err := counters[db].DBSize(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			recent, total := written(db, time.Now().Add(-window)), written(db, time.Time{})
			mu.Unlock()
			if time.Since(began) < window+time.Second || total < 20_000 {
				continue // too early to tell
			}
			samples++
			worst = max(worst, float64(held)/float64(recent+1000))
			if held > int64(recent+1000) {
				t.Fatalf("db %d holds %d keys; %d were written in the last %v, %d in all", db, held, recent, window, total)
			}
		}
	}
	for range dbs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	mu.Lock()
	t.Logf("%d samples; most keys held against keys written in the last %v: %.2f; written: db1 %d, db7 %d",
		samples, window, worst, written(1, time.Time{}), written(7, time.Time{}))
	mu.Unlock()
	if samples == 0 {
		t.Fatal("the clients wrote too few keys to tell")
	}
}
