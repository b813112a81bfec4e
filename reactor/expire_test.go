package reactor

import (
	"io"
	"log/slog"
	"strconv"
	"testing"
	"time"
)

// newIdleCore returns the first core of a server that is never started, for
// calling the core's expiry steps directly.
func newIdleCore(t *testing.T) *Core {
	t.Helper()
	cfg := Defaults()
	cfg.Port = 0
	cfg.Bind = []string{"127.0.0.1"}
	cfg.Dir = t.TempDir() // its snapshots, and none loaded
	cfg.Shards = 1
	srv, err := New(cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		srv.closeListeners()
		srv.cores[0].closeAll()
	})
	return srv.cores[0]
}

// TestExpireRunBounds loads 400k keys that expire together into two
// databases and checks the core's expiry runs: each stays near its bound,
// turns take from both databases, the share of CPU grows while keys stay
// due and falls back once they are gone, and a run with no credit does
// nothing.
func TestExpireRunBounds(t *testing.T) {
	c := newIdleCore(t)
	sh := c.shard
	sh.Clock.Ms = time.Now().UnixMilli()
	for _, db := range []int{2, 9} {
		for i := range 200_000 {
			sh.DBs[db].SetString([]byte("k:"+strconv.Itoa(i)), []byte("v"), sh.Clock.Ms+1)
		}
	}
	sh.Clock.Ms += 100
	base := c.srv.expireBaseShare()
	left := func(db int) int { return sh.DBs[db].Len() }

	now := time.Now().UnixNano()
	c.expire(now, now) // first run: no credit earned yet
	if left(2)+left(9) != 400_000 || !c.exp.backlog {
		t.Fatalf("a run without credit deleted keys or left no backlog: %d, %d", left(2), left(9))
	}
	c.exp.credit = int64(time.Second)
	var longest time.Duration
	for run := 0; run < 20; run++ {
		now = time.Now().UnixNano()
		c.expire(now, now)
		longest = max(longest, time.Duration(time.Now().UnixNano()-now))
	}
	t.Logf("20 runs: longest %v, left %d and %d, capped %d", longest, left(2), left(9), c.stats.expireCapped)
	if left(2) == 200_000 || left(9) == 200_000 || left(2)+left(9) == 0 {
		t.Fatalf("20 runs of at most %v left %d and %d keys of 200k each", time.Duration(expireTurnNs), left(2), left(9))
	}
	if longest > 20*time.Millisecond {
		t.Fatalf("a run of a %v bound took %v", time.Duration(expireTurnNs), longest)
	}
	if c.stats.expireCapped < 20 || c.stats.expireNs == 0 {
		t.Fatalf("capped %d, time %d after 20 runs stopped with keys due", c.stats.expireCapped, c.stats.expireNs)
	}

	for range 10 {
		c.adaptExpire()
		c.exp.behind = true
	}
	if c.exp.share != expireShareMax {
		t.Fatalf("share %d after 10 ticks behind, want %d", c.exp.share, expireShareMax)
	}
	for c.expireDue() {
		c.exp.credit = int64(time.Second)
		now = time.Now().UnixNano()
		c.expire(now, now)
	}
	if left(2)+left(9) != 0 {
		t.Fatalf("keys left with nothing due: %d, %d", left(2), left(9))
	}
	c.adaptExpire() // the tick that saw the last run behind
	c.adaptExpire()
	if c.exp.share != base {
		t.Fatalf("share %d once caught up, want %d", c.exp.share, base)
	}
}
