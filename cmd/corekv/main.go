// Command corekv runs the corekv server: a Redis-compatible in-memory
// key-value store with one shard per CPU core.
//
// Start-up reads an optional redis.conf-style file (the first argument), then
// Redis-style flags (--port 6380 --bind 127.0.0.1 ::1), which override it;
// works out the shard count and which CPUs to pin them to, if any; and hands a
// reactor.Config to the reactor, which opens one listener per core and locks
// one thread per shard.
package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	_ "net/http/pprof" // served only with --pprof
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corekv/corekv/reactor"
	"github.com/corekv/corekv/reactor/settings"
	"go.uber.org/automaxprocs/maxprocs"
	"golang.org/x/sys/unix"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	opts, err := parseArgs(args)
	if err != nil {
		if le := (*settings.LoadError)(nil); errors.As(err, &le) {
			fmt.Fprintln(os.Stderr, err) // in Redis's form
		} else {
			fmt.Fprintln(os.Stderr, "corekv:", err)
		}
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
	level.Set(settings.SlogLevel(opts.cfg.LogLevel))
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))

	// The CPU quota (cgroups) caps how many shards are worth running; the
	// affinity mask (taskset, docker --cpuset-cpus) says which CPUs they may
	// use.
	maxprocs.Set(maxprocs.Logger(func(string, ...any) {}))
	quota := runtime.GOMAXPROCS(0)
	cpus, err := affinityCPUs()
	if err != nil {
		log.Error("cannot read the CPU affinity mask", "err", err)
		return 1
	}
	cfg := opts.cfg
	cfg.Shards, cfg.CPUs = placement(opts.shards, opts.pin, cpus, onlineCPUs(len(cpus)), quota)
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
	srv.SetLogLevel(level)
	// Catch the signals before saying ready: a supervisor (or a test) that
	// sends SIGTERM as soon as it reads the ready line must get a clean
	// shutdown, not the default action.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	srv.Start()
	// The snapshot file loads while the server answers -LOADING: ready
	// once it has, and a file that does not load stops the server.
	select {
	case err := <-srv.Loaded():
		if err != nil {
			log.Error("cannot start", "err", err)
			srv.Stop(5 * time.Second)
			return 1
		}
	case s := <-sig:
		log.Info("received signal while loading, shutting down", "signal", s.String())
		srv.Stop(5 * time.Second)
		return 0
	}
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

// smallMachine is the most CPUs a whole machine may have for corekv to run
// one shard there by default. On such a machine the client, and whatever
// else runs, shares the shards' CPUs: a command for another shard then waits
// for that shard's thread to be woken and scheduled beside them, which costs
// more than a second shard gains.
const smallMachine = 2

// placement decides the shard count and the CPUs the shards are pinned to
// (shard i on cpus[i]; none: the scheduler places the threads), from
// --shards and --pin (0 and "auto" when not given), the affinity mask, the
// number of CPUs online and the CPU quota.
//
// By default there is one shard per CPU of the mask, capped by the quota,
// but only one on a whole machine of smallMachine CPUs or fewer. The shards
// are pinned when the mask leaves out some CPUs: whoever set it (taskset,
// docker --cpuset-cpus) gave corekv those CPUs. On a whole machine they are
// not, since they share it with the client and everything else: a pinned
// thread cannot move off a CPU another process is busy on.
func placement(shards int, pin string, mask []int, online, quota int) (int, []int) {
	whole := len(mask) >= online && (quota <= 0 || quota >= len(mask))
	if shards <= 0 {
		shards = len(mask)
		if quota > 0 && quota < shards {
			shards = quota
		}
		if whole && shards <= smallMachine {
			shards = 1
		}
		shards = max(shards, 1)
	}
	// More shards than CPUs: pinning would stack threads.
	if shards > len(mask) || pin == "no" || pin == "auto" && len(mask) >= online {
		return shards, nil
	}
	return shards, mask[:shards]
}

// onlineCPUs is the number of CPUs the machine has online, or fallback when
// it cannot be read.
func onlineCPUs(fallback int) int {
	data, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return fallback
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(data)), ",") {
		lo, hi, isRange := strings.Cut(r, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || b < a {
			return fallback
		}
		n += b - a + 1
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
