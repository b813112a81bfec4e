package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/corekv/corekv/reactor"
	"github.com/corekv/corekv/reactor/settings"
)

const usage = `Usage: corekv [/path/to/corekv.conf] [--name value ...]

Options (also accepted as "name value" lines in the config file):
  --port N                       TCP port (default 6379; 0 picks a free one)
  --bind ADDR [ADDR ...]         addresses to listen on (default 127.0.0.1 ::1)
  --requirepass PASSWORD         require AUTH with this password
  --maxclients N                 most connected clients (default 10000)
  --databases N                  number of databases (default 16)
  --shards N                     shard threads (default: CPUs in the affinity mask, capped by the CPU quota;
                                 1 on a whole machine of 2 CPUs or fewer)
  --pin auto|yes|no              pin shard i to the i-th CPU of the affinity mask (default auto: when the
                                 mask leaves out some of the machine's CPUs)
  --loglevel LEVEL               debug, verbose, notice or warning (default notice)
  --client-output-buffer-limit "normal HARD SOFT SECONDS"
                                 close a client whose unread output passes HARD (0: no limit)
  --output-safety-cap BYTES      hard cap on any client's unread output (default 1gb)
  --hz N                         timer runs per second per shard (default 10; 1 to 500)
  --active-expire-effort N       1 to 10: CPU active expiry may use while expired keys pile up (default 1)
  --spin USEC                    how long a shard polls after a turn of 16+ commands (default 20; 0: never)
  --spin-contended no|yes        poll also while the shard's thread is being preempted (default no)
  --enable-debug-command no|yes|local
                                 allow DEBUG (default no; local: from 127.0.0.1 and ::1 only)
  --slowlog-log-slower-than USEC
                                 log commands that run this long or longer (default 10000; -1: none)
  --slowlog-max-len N            slow log entries kept per shard (default 128)
  --pprof ADDR                   serve net/http/pprof on ADDR (off by default)
  --journal-dir DIR              write each shard's change journal to DIR/journal-<shard>.resp, for
                                 inspection and tests (not durable: that is the AOF's job)

Every setting CONFIG SET takes is accepted here too, checked the same way: notify-keyspace-events,
latency-tracking, latency-tracking-info-percentiles, hash-max-listpack-entries and the other encoding
thresholds (CONFIG GET * lists them all).

  --version, -v                  print the version
  --help, -h                     print this help
`

type options struct {
	cfg     reactor.Config
	shards  int
	pin     string
	pprof   string
	help    bool
	version bool
}

// parseArgs reads the command line the way Redis does: an optional config
// file first, then "--name value..." groups that are applied after the
// file's lines, so they win. Both name settings of the one table CONFIG
// GET and SET read (reactor/settings), checked the same way.
func parseArgs(args []string) (options, error) {
	o := options{cfg: reactor.Defaults()}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		o.help = true
		return o, nil
	}
	if len(args) > 0 && (args[0] == "-v" || args[0] == "--version") {
		o.version = true
		return o, nil
	}
	var lines []settings.Line
	var fileText string
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		data, err := os.ReadFile(args[0])
		if err != nil {
			return o, err
		}
		fileText = string(data)
		if o.cfg.ConfigFile, err = filepath.Abs(args[0]); err != nil {
			return o, err
		}
		if lines, err = settings.FileLines(fileText); err != nil {
			return o, err
		}
		args = args[1:]
	}
	var groups [][]string
	for i := 0; i < len(args); {
		if !strings.HasPrefix(args[i], "--") {
			return o, fmt.Errorf("unexpected argument %q", args[i])
		}
		name := strings.ToLower(strings.TrimPrefix(args[i], "--"))
		if name == "help" || name == "h" {
			o.help = true
		}
		if name == "version" || name == "v" {
			o.version = true
		}
		group := []string{name}
		i++
		for i < len(args) && !strings.HasPrefix(args[i], "--") {
			group = append(group, args[i])
			i++
		}
		if !o.help && !o.version {
			groups = append(groups, group)
		}
	}
	if o.help || o.version {
		return o, nil
	}
	lines = append(lines, settings.FlagLines(groups, fileText)...)
	if err := settings.Apply(&o.cfg, lines); err != nil {
		return o, err
	}
	o.shards, o.pin, o.pprof = o.cfg.Shards, o.cfg.Pin, o.cfg.Pprof
	o.cfg.ShardsGiven = o.cfg.Shards
	return o, nil
}
