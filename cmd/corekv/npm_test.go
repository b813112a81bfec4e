package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNpmLibraries runs the npm libraries that put Lua on Redis, unchanged,
// against corekv on two shards (testdata/npm/libs.js): ioredis
// defineCommand over keys of both shards, redlock (acquire, exclusivity,
// extend, release, several resources), rate-limiter-flexible's
// RateLimiterRedis (consume to the limit, refused past it) and a bee-queue
// job flow. Their scripts declare keys without hash tags, so they run over
// several shards. .ci/run installs the packages (npm ci in testdata/npm).
func TestNpmLibraries(t *testing.T) {
	runNpmScript(t, "libs.js")
}

// TestBullMQ runs BullMQ, unchanged, against corekv on two shards
// (testdata/npm/bullmq.js): a Queue and a Worker with concurrency over
// plain, bulk, delayed, prioritized, retried and removed-on-completion
// jobs, with QueueEvents; every job runs once (the retried one as often as
// it is retried) and ends completed with its return value. It runs one
// queue whose keys spread over both shards and one under a hash tag.
func TestBullMQ(t *testing.T) {
	runNpmScript(t, "bullmq.js")
}

// runNpmScript runs testdata/npm/script with node against corekv on two
// shards; the script prints "ok" last when its checks passed.
func runNpmScript(t *testing.T, script string) {
	node := needTool(t, "node")
	dir, err := filepath.Abs(filepath.Join("testdata", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the npm packages are required under CI=true (npm ci in %s)", dir)
		}
		t.Skipf("npm packages not installed; run npm ci in %s", dir)
	}
	s := startServer(t, nil, "--shards", "2")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(s.port))
	out, err := cmd.CombinedOutput()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || lines[len(lines)-1] != "ok" {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	t.Logf("%s", out)
}
