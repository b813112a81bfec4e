package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/corekv/corekv/reactor"
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
  --loglevel LEVEL               debug, verbose, notice, warning or nothing (default notice)
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
// file's lines, so they win.
func parseArgs(args []string) (options, error) {
	o := options{cfg: reactor.Defaults(), pin: "auto"}
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		o.help = true
		return o, nil
	}
	if len(args) > 0 && (args[0] == "-v" || args[0] == "--version") {
		o.version = true
		return o, nil
	}
	var lines [][]string
	if len(args) > 0 && !strings.HasPrefix(args[0], "--") {
		fileLines, err := readConfigFile(args[0])
		if err != nil {
			return o, err
		}
		lines = append(lines, fileLines...)
		args = args[1:]
	}
	for i := 0; i < len(args); {
		if !strings.HasPrefix(args[i], "--") {
			return o, fmt.Errorf("unexpected argument %q", args[i])
		}
		line := []string{strings.TrimPrefix(args[i], "--")}
		i++
		for i < len(args) && !strings.HasPrefix(args[i], "--") {
			line = append(line, args[i])
			i++
		}
		lines = append(lines, line)
	}
	for _, l := range lines {
		if err := o.apply(l[0], l[1:]); err != nil {
			return o, err
		}
	}
	return o, nil
}

func readConfigFile(path string) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields, err := splitConfigLine(text)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		out = append(out, fields)
	}
	return out, sc.Err()
}

// splitConfigLine splits a config line on spaces, honouring double and
// single quotes as redis.conf does.
func splitConfigLine(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in := byte(0)
	started := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case in != 0 && ch == in:
			in = 0
		case in != 0:
			cur.WriteByte(ch)
		case ch == '"' || ch == '\'':
			in, started = ch, true
		case ch == ' ' || ch == '\t':
			if started {
				out = append(out, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteByte(ch)
			started = true
		}
	}
	if in != 0 {
		return nil, fmt.Errorf("unbalanced quotes")
	}
	if started {
		out = append(out, cur.String())
	}
	return out, nil
}

func (o *options) apply(name string, vals []string) error {
	name = strings.ToLower(name)
	one := func() (string, error) {
		if len(vals) != 1 {
			return "", fmt.Errorf("%s takes one value", name)
		}
		return vals[0], nil
	}
	num := func() (int, error) {
		v, err := one()
		if err != nil {
			return 0, err
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %q is not a number", name, v)
		}
		return n, nil
	}
	var err error
	switch name {
	case "port":
		o.cfg.Port, err = num()
		if err == nil && (o.cfg.Port < 0 || o.cfg.Port > 65535) {
			err = fmt.Errorf("port out of range: %d", o.cfg.Port)
		}
	case "bind":
		if len(vals) == 0 {
			return fmt.Errorf("bind needs an address")
		}
		o.cfg.Bind = nil
		for _, v := range vals {
			o.cfg.Bind = append(o.cfg.Bind, strings.Fields(v)...)
		}
	case "requirepass":
		o.cfg.RequirePass, err = one()
	case "maxclients":
		o.cfg.MaxClients, err = num()
	case "databases":
		o.cfg.Databases, err = num()
		if err == nil && (o.cfg.Databases < 1 || o.cfg.Databases > 256) {
			err = fmt.Errorf("databases must be between 1 and 256")
		}
	case "shards":
		o.shards, err = num()
	case "pin":
		var v string
		if v, err = one(); err == nil {
			switch v = strings.ToLower(v); v {
			case "auto", "yes", "no":
				o.pin = v
			default:
				err = fmt.Errorf("pin: argument must be one of the following: auto, yes, no")
			}
		}
	case "loglevel":
		o.cfg.LogLevel, err = one()
	case "hz":
		o.cfg.Hz, err = num()
	case "active-expire-effort":
		o.cfg.ActiveExpireEffort, err = num()
		if err == nil && (o.cfg.ActiveExpireEffort < 1 || o.cfg.ActiveExpireEffort > 10) {
			err = fmt.Errorf("active-expire-effort must be between 1 and 10")
		}
	case "spin":
		o.cfg.SpinMicros, err = num()
		if err == nil && o.cfg.SpinMicros < 0 {
			err = fmt.Errorf("spin must be 0 or more microseconds")
		}
	case "spin-contended":
		var v string
		if v, err = one(); err == nil {
			switch v = strings.ToLower(v); v {
			case "yes", "no":
				o.cfg.SpinContended = v == "yes"
			default:
				err = fmt.Errorf("spin-contended: argument must be 'yes' or 'no'")
			}
		}
	case "slowlog-log-slower-than", "slowlog-max-len":
		var v string
		if v, err = one(); err == nil {
			var n int64
			if n, err = strconv.ParseInt(v, 10, 64); err != nil {
				err = fmt.Errorf("%s: %q is not a number", name, v)
			} else if name == "slowlog-max-len" && n < 0 {
				err = fmt.Errorf("slowlog-max-len must be 0 or more")
			} else if n < reactor.SlowlogSlowerThanMin {
				err = fmt.Errorf("slowlog-log-slower-than must be -1 or more")
			} else if name == "slowlog-max-len" {
				o.cfg.SlowlogMaxLen = n
			} else {
				o.cfg.SlowlogSlowerThan = n
			}
		}
	case "pprof":
		o.pprof, err = one()
	case "journal-dir":
		o.cfg.JournalDir, err = one()
	case "enable-debug-command":
		var v string
		if v, err = one(); err == nil {
			switch v = strings.ToLower(v); v {
			case "no", "yes", "local":
				o.cfg.EnableDebug = v
			default:
				err = fmt.Errorf("enable-debug-command: argument(s) must be one of the following: no, yes, local")
			}
		}
	case "output-safety-cap":
		var v string
		if v, err = one(); err == nil {
			o.cfg.OutputSafetyCap, err = reactor.ParseMemory(v)
		}
	case "client-output-buffer-limit":
		f := strings.Fields(strings.Join(vals, " "))
		if len(f) != 4 || !strings.EqualFold(f[0], "normal") {
			// Only the normal class applies; others are accepted and ignored.
			if len(f) == 4 {
				return nil
			}
			return fmt.Errorf("client-output-buffer-limit takes <class> <hard> <soft> <seconds>")
		}
		o.cfg.OutputHardLimit, err = reactor.ParseMemory(f[1])
	case "save", "appendonly", "protected-mode", "daemonize", "dir", "dbfilename", "logfile", "timeout", "tcp-keepalive":
		// Persistence and daemon settings of redis.conf that corekv does
		// not have; accepted so an existing config file loads.
	case "help", "h":
		o.help = true
	case "version", "v":
		o.version = true
	default:
		return fmt.Errorf("unknown option %q", name)
	}
	return err
}
