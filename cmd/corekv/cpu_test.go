package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestNoIdleSpin checks that a shard polls only right after busy turns: once
// a burst of pipelines is over, an idle server sleeps. With --spin 1000000 a
// shard would poll for a second after every pipelined turn; that setting
// must show as CPU burnt, or the measurement could not catch a shard that
// never stops polling. (--spin-contended yes: a busy test machine must not
// pause the polling.)
func TestNoIdleSpin(t *testing.T) {
	for _, tc := range []struct {
		spin    string
		maxIdle float64 // CPU share of the idle second after the burst
		minIdle float64
	}{
		{spin: "20", maxIdle: 0.2},
		{spin: "0", maxIdle: 0.2},
		{spin: "1000000", minIdle: 0.25},
	} {
		t.Run("spin="+tc.spin, func(t *testing.T) {
			s := startServer(t, nil, "--shards", "2", "--spin", tc.spin, "--spin-contended", "yes")
			c := s.client(t, 2)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p := c.Pipeline()
			for i := range 2000 {
				p.Set(ctx, "key:"+strconv.Itoa(i), "v", 0)
			}
			if _, err := p.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			// Let the last burst's window pass; the measured second starts then.
			time.Sleep(100 * time.Millisecond)
			pid := s.cmd.Process.Pid
			before, demandBefore, wall := cpuSeconds(t, pid), cpuDemand(t, pid), time.Now()
			time.Sleep(time.Second)
			secs := time.Since(wall).Seconds()
			share := (cpuSeconds(t, pid) - before) / secs
			demand := (cpuDemand(t, pid) - demandBefore) / secs
			if tc.maxIdle > 0 && share > tc.maxIdle {
				t.Fatalf("--spin %s: idle server used %.0f%% of a CPU", tc.spin, share*100)
			}
			// A polling thread that other processes keep off the CPU waits
			// on the run queue instead of running: count both, so a busy
			// test machine does not hide it.
			if demand < tc.minIdle {
				t.Fatalf("--spin %s: %.0f%% of a CPU run or waited for in the second after the burst; a polling shard needs more",
					tc.spin, demand*100)
			}
		})
	}
}

// TestNoSpinForRequestResponse checks that turns of one command never open
// the polling window: with a window of a whole second, a client that sends
// one PING a millisecond would otherwise keep a shard polling throughout.
func TestNoSpinForRequestResponse(t *testing.T) {
	s := startServer(t, nil, "--shards", "1", "--spin", "1000000")
	c := s.client(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	pid := s.cmd.Process.Pid
	before, wall := cpuSeconds(t, pid), time.Now()
	for range 500 {
		if err := c.Ping(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Millisecond)
	}
	share := (cpuSeconds(t, pid) - before) / time.Since(wall).Seconds()
	if share > 0.3 {
		t.Fatalf("one PING a millisecond used %.0f%% of a CPU: single-command turns start polling", share*100)
	}
}

// cpuSeconds is the user and system time of process pid, all threads.
func cpuSeconds(t *testing.T, pid int) float64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skip("no /proc:", err)
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// the closing one. utime and stime are fields 14 and 15 of the line.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 13 {
		t.Fatalf("short /proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseFloat(f[11], 64)
	stime, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("/proc/%d/stat: %q", pid, b)
	}
	return (utime + stime) / clockTicks
}

// cpuDemand is the time the threads of process pid have spent running or
// runnable, waiting for a CPU (/proc/PID/task/*/schedstat), in seconds.
func cpuDemand(t *testing.T, pid int) float64 {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Skip("no /proc:", err)
	}
	var ns float64
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, task.Name()))
		if err != nil {
			continue // the thread has exited
		}
		f := strings.Fields(string(b))
		if len(f) < 2 {
			t.Skip("no schedstat:", string(b))
		}
		run, err1 := strconv.ParseFloat(f[0], 64)
		wait, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("schedstat of thread %s: %q", task.Name(), b)
		}
		ns += run + wait
	}
	return ns / 1e9
}

// clockTicks is USER_HZ, the unit of /proc's CPU times: 100 on every Linux
// architecture Go supports.
const clockTicks = 100
