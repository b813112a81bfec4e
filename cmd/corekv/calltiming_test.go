package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSlowlogInPipeline: with a slow log threshold at which small commands
// share clock readings, a slow command in a pipeline of fast ones, on both
// shards, is logged alone and with its own time, and INFO commandstats
// counts every command.
func TestSlowlogInPipeline(t *testing.T) {
	srv := startServer(t, nil, "--shards", "2", "--enable-debug-command", "yes")
	c := srv.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, args := range [][]any{
		{"config", "set", "slowlog-log-slower-than", "20000"},
		{"config", "resetstat"},
		{"slowlog", "reset"},
	} {
		if err := c.Do(ctx, args...).Err(); err != nil {
			t.Fatal(err)
		}
	}
	const n = 40
	pipe := c.Pipeline()
	for i := 0; i < n; i++ {
		pipe.Set(ctx, "k"+strconv.Itoa(i), "v", 0)
	}
	pipe.Do(ctx, "debug", "sleep", "0.05")
	for i := 0; i < n; i++ {
		pipe.Get(ctx, "k"+strconv.Itoa(i))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	logs, err := c.SlowLogGet(ctx, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 || strings.Join(logs[0].Args, " ") != "debug sleep 0.05" {
		t.Fatalf("slow log %+v, want DEBUG SLEEP alone", logs)
	}
	if d := logs[0].Duration; d < 50*time.Millisecond || d > time.Second {
		t.Errorf("DEBUG SLEEP 0.05 logged with %v", d)
	}
	info, err := c.Info(ctx, "commandstats").Result()
	if err != nil {
		t.Fatal(err)
	}
	set, get, debug := cmdStat(info, "set"), cmdStat(info, "get"), cmdStat(info, "debug")
	us, _ := strconv.Atoi(debug["usec"])
	if set["calls"] != strconv.Itoa(n) || get["calls"] != strconv.Itoa(n) || us < 50000 {
		t.Fatalf("INFO commandstats: set %v, get %v, debug %v", set, get, debug)
	}
}
