// Command corekv runs the corekv server: a Redis-compatible in-memory
// key-value store with one shard per CPU core.
//
// Start-up reads an optional redis.conf-style file (the first argument), then
// Redis-style flags (--port 6380 --bind 127.0.0.1 ::1), which override it;
// works out which CPUs it may use; and hands a reactor.Config to the reactor,
// which opens one listener per core and pins one thread per shard.
package main

import (
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // served only with --pprof
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"

	"github.com/corekv/corekv/reactor"
	"go.uber.org/automaxprocs/maxprocs"
	"golang.org/x/sys/unix"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	opts, err := parseArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "corekv:", err)
		return 2
	}
	if opts.help {
		fmt.Print(usage)
		return 0
	}
	if opts.version {
		fmt.Println("corekv", reactor.Version)
		return 0
	}
	level := new(slog.LevelVar)
	level.Set(reactor.SlogLevel(opts.cfg.LogLevel))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	// The CPU quota (cgroups) caps how many shards are worth running; the
	// affinity mask (taskset, docker --cpuset-cpus) says which CPUs to pin.
	maxprocs.Set(maxprocs.Logger(func(string, ...any) {}))
	quota := runtime.GOMAXPROCS(0)
	cpus, err := affinityCPUs()
	if err != nil {
		log.Error("cannot read the CPU affinity mask", "err", err)
		return 1
	}
	cfg := opts.cfg
	cfg.Shards = shardCount(opts.shards, len(cpus), quota)
	cfg.CPUs = cpus
	if cfg.Shards > len(cpus) {
		// More shards than CPUs: pinning would stack threads anyway.
		cfg.CPUs = nil
	}
	// The runtime (GC, timers, signal handling) needs a P besides the N
	// locked shard threads, or it waits behind busy loops.
	if runtime.GOMAXPROCS(0) < cfg.Shards+1 {
		runtime.GOMAXPROCS(cfg.Shards + 1)
	}

	srv, err := reactor.New(cfg, log)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	srv.LevelVar = level
	// Catch the signals before saying ready: a supervisor (or a test) that
	// sends SIGTERM as soon as it reads the ready line must get a clean
	// shutdown, not the default action.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	srv.Start()
	log.Info("corekv ready", "version", reactor.Version, "shards", cfg.Shards, "cpus", fmt.Sprint(cfg.CPUs),
		"bind", fmt.Sprint(cfg.Bind), "port", srv.Port(), "pid", os.Getpid())
	if opts.pprof != "" {
		go func() {
			log.Info("pprof listening", "addr", opts.pprof)
			if err := http.ListenAndServe(opts.pprof, nil); err != nil {
				log.Warn("pprof", "err", err)
			}
		}()
	}

	select {
	case s := <-sig:
		log.Info("received signal, shutting down", "signal", s.String())
	case <-srv.ShutdownRequested:
	}
	srv.Stop(5 * time.Second)
	log.Info("corekv stopped")
	return 0
}

// shardCount is --shards when given, else one shard per allowed CPU, capped
// by the CPU quota.
func shardCount(flag, cpus, quota int) int {
	if flag > 0 {
		return flag
	}
	n := cpus
	if quota > 0 && quota < n {
		n = quota
	}
	if n < 1 {
		n = 1
	}
	return n
}

// affinityCPUs lists the CPUs of the process's affinity mask in order.
func affinityCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return nil, err
	}
	var cpus []int
	for i := 0; i < len(set)*64; i++ {
		if set.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}
