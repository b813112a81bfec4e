package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParsePrivateDirty(t *testing.T) {
	smaps := "55d0c0a00000-7ffd3b1f3000 ---p 00000000 00:00 0                          [rollup]\n" +
		"Rss:              812344 kB\nPss:              410000 kB\nShared_Dirty:     800000 kB\n" +
		"Private_Clean:         12 kB\nPrivate_Dirty:     12288 kB\nSwap:                  0 kB\n"
	if got, err := parsePrivateDirty(smaps); err != nil || got != 12288*1024 {
		t.Errorf("got %d, %v; want %d", got, err, 12288*1024)
	}
	if _, err := parsePrivateDirty("Rss: 1 kB\n"); err == nil {
		t.Error("no Private_Dirty: want an error")
	}
}

func TestParseMemUsed(t *testing.T) {
	meminfo := "MemTotal:       24684108 kB\nMemFree:        21342156 kB\nMemAvailable:   23680000 kB\n" +
		"Buffers:          100000 kB\nCached:          2000000 kB\nSwapCached:            0 kB\n" +
		"SReclaimable:     200000 kB\nSUnreclaim:        50000 kB\n"
	want := int64(24684108-21342156-100000-2000000-200000) * 1024
	if got, err := parseMemUsed(meminfo); err != nil || got != want {
		t.Errorf("got %d, %v; want %d", got, err, want)
	}
	if _, err := parseMemUsed("Cached: 1 kB\n"); err == nil {
		t.Error("no MemTotal: want an error")
	}
}

func TestParseStatusField(t *testing.T) {
	status := "Name:\tredis-server\nState:\tS (sleeping)\nTgid:\t4242\nPid:\t4242\nPPid:\t4100\n"
	if got, err := parseStatusField(status, "PPid:"); err != nil || got != 4100 {
		t.Errorf("got %d, %v; want 4100", got, err)
	}
	if _, err := parseStatusField(status, "VmRSS:"); err == nil {
		t.Error("missing field: want an error")
	}
}

func TestPercentile(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	for _, c := range []struct{ p, want float64 }{{50, 50}, {99, 99}, {100, 100}, {0, 1}, {99.9, 100}} {
		if got := percentile(xs, c.p); got != c.want {
			t.Errorf("p%v = %v, want %v", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("empty: %v", got)
	}
	if got := percentile([]float64{7}, 99); got != 7 {
		t.Errorf("one value: %v", got)
	}
}

func TestLongestGap(t *testing.T) {
	bs := []batch{{0, 10, 20}, {0, 15, 30}, {0, 70, 80}, {0, 82, 95}}
	// Covered: 10-30, 70-80, 82-95 within [0, 100): gaps 10, 40, 2, 5.
	if got := longestGap(bs, 0, 100); got != 40 {
		t.Errorf("got %d, want 40", got)
	}
	// Clipped to [25, 75): 30-70 uncovered.
	if got := longestGap(bs, 25, 75); got != 40 {
		t.Errorf("clipped: got %d, want 40", got)
	}
	if got := longestGap(nil, 5, 9); got != 4 {
		t.Errorf("nothing: got %d, want 4", got)
	}
}

func TestWindowStats(t *testing.T) {
	ms := int64(time.Millisecond)
	var bs []batch
	// One batch a millisecond for a second, each 1 ms long, then a batch that waits 200 ms.
	for i := int64(0); i < 1000; i++ {
		bs = append(bs, batch{i * ms, i*ms + ms/2, i*ms + ms})
	}
	bs = append(bs, batch{1000 * ms, 1200 * ms, 1200 * ms})
	st := windowStats(bs, 0, 1000*ms)
	if want := 999.0 * snapshotDepth; st.opsPerS != want { // the batch ending at 1000 ms is outside
		t.Errorf("ops/s %v, want %v", st.opsPerS, want)
	}
	if st.p99Ms != 1 || st.maxMs != 1 {
		t.Errorf("p99 %v max %v, want 1 and 1", st.p99Ms, st.maxMs)
	}
	st = windowStats(bs, 900*ms, 1300*ms)
	if st.maxMs != 200 || st.stallMs != 200 {
		t.Errorf("max %v stall %v, want 200 and 200", st.maxMs, st.stallMs)
	}
	if st := windowStats(bs, 5, 5); st != (winStats{}) {
		t.Errorf("empty window: %+v", st)
	}
}

func TestOpsSeries(t *testing.T) {
	bin := 100 * time.Millisecond
	bs := []batch{{last: 10}, {last: int64(50 * time.Millisecond)}, {last: int64(250 * time.Millisecond)},
		{last: int64(310 * time.Millisecond)}}
	got := opsSeries(bs, 0, bin)
	want := []float64{2 * snapshotDepth * 10, 0, snapshotDepth * 10} // the last bin, cut short, is dropped
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

func TestSnapshotFill(t *testing.T) {
	sc := &snapshotConfig{Size: 100, HashEvery: 10}
	fill := snapshotFill(sc)
	h := string(fill(nil, 20))
	if !strings.HasPrefix(h, "*22\r\n$5\r\nHMSET\r\n$16\r\nkey:000000000020\r\n$2\r\nf0\r\n$10\r\n") {
		t.Errorf("hash: %q", h[:min(len(h), 80)])
	}
	s := string(fill(nil, 21))
	if !strings.HasPrefix(s, "*3\r\n$3\r\nSET\r\n$16\r\nkey:000000000021\r\n$100\r\n") {
		t.Errorf("string: %q", s[:min(len(s), 80)])
	}
}

func TestSnapshotFlags(t *testing.T) {
	cfg, err := parseFlags([]string{"--snapshot", "--snapshot-keys", "1000", "--server-cpus", "1", "--client-cpus", "0"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Snapshot == nil || cfg.Snapshot.Keys != 1000 || cfg.Repeat != 1 || len(cfg.Shards) != 2 || cfg.Memory {
		t.Errorf("config %+v, snapshot %+v", cfg, cfg.Snapshot)
	}
	if _, err := parseFlags([]string{"--snapshot", "--txn"}, io.Discard); err == nil {
		t.Error("--snapshot --txn: want an error")
	}
}
