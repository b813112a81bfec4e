package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/corekv/corekv/reactor/settings"
)

// TestParseArgs drives parseArgs with flags and config files: defaults, what
// each option sets, flags winning over the file, and the errors bad input
// gets.
func TestParseArgs(t *testing.T) {
	dir := t.TempDir()
	files := 0
	conf := func(text string) string {
		files++
		path := filepath.Join(dir, fmt.Sprintf("%d.conf", files))
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, tc := range []struct {
		name  string
		args  []string
		check func(o options) bool
		err   string // a substring of the error; "" for none
	}{
		{name: "defaults", check: func(o options) bool {
			return o.cfg.Port == 6379 && o.cfg.SpinMicros == 20 && o.cfg.Hz == 10 && o.cfg.Databases == 16 &&
				reflect.DeepEqual(o.cfg.Bind, []string{"127.0.0.1", "::1"}) && o.shards == 0 && !o.help
		}},
		{name: "flags", args: []string{"--port", "7000", "--spin", "0", "--shards", "4", "--bind", "127.0.0.1"},
			check: func(o options) bool {
				return o.cfg.Port == 7000 && o.cfg.SpinMicros == 0 && o.shards == 4 &&
					reflect.DeepEqual(o.cfg.Bind, []string{"127.0.0.1"})
			}},
		{name: "bind takes several addresses", args: []string{"--bind", "127.0.0.1", "::1"},
			check: func(o options) bool { return reflect.DeepEqual(o.cfg.Bind, []string{"127.0.0.1", "::1"}) }},
		{name: "file then flags", args: []string{conf("port 7001\nspin 5\n# comment\nrequirepass \"a b\"\n"), "--port", "7002"},
			check: func(o options) bool {
				return o.cfg.Port == 7002 && o.cfg.SpinMicros == 5 && o.cfg.RequirePass == "a b"
			}},
		{name: "redis.conf settings without effect", args: []string{conf("save \"\"\nappendonly no\ndaemonize no\n")},
			check: func(o options) bool { return o.cfg.Port == 6379 }},
		{name: "output limit", args: []string{"--client-output-buffer-limit", "normal 10mb 0 0"},
			check: func(o options) bool { return o.cfg.OutputHardLimit == 10<<20 }},
		{name: "settings CONFIG SET takes", args: []string{conf("hash-max-listpack-entries 7\nnotify-keyspace-events KEA\n" +
			"latency-tracking no\nlist-max-listpack-size -3\n"), "--hash-max-ziplist-value", "1kb"},
			check: func(o options) bool {
				return o.cfg.Encoding[settings.HashMaxEntries] == 7 && o.cfg.Encoding[settings.HashMaxValue] == 1024 &&
					o.cfg.NotifyClasses != 0 && o.cfg.NoLatencyTracking && o.cfg.Encoding[settings.ListMaxListpack] == -3
			}},
		{name: "file line numbers", args: []string{conf("port 1\n\n# x\nhz fast\n")},
			err: "at line 4\n>>> 'hz fast'\nargument couldn't be parsed into an integer"},
		{name: "flags after the file", args: []string{conf("port 1\n"), "--port", "2", "--hz", "x"},
			err: "at line 4\n>>> 'hz \"x\"'"},
		{name: "loglevel", args: []string{"--loglevel", "chatty"},
			err: "argument(s) must be one of the following: debug, verbose, notice, warning"},
		{name: "help", args: []string{"--help"}, check: func(o options) bool { return o.help }},
		{name: "version", args: []string{"-v"}, check: func(o options) bool { return o.version }},
		{name: "port range", args: []string{"--port", "70000"}, err: "argument must be between 0 and 65535 inclusive"},
		{name: "not a number", args: []string{"--spin", "fast"}, err: ">>> 'spin \"fast\"'\nargument couldn't be parsed into an integer"},
		{name: "negative spin", args: []string{"--spin", "-1"}, err: "argument must be between 0 and 2147483647 inclusive"},
		{name: "unknown option", args: []string{"--nosuch", "1"}, err: ">>> 'nosuch \"1\"'\nBad directive or wrong number of arguments"},
		{name: "stray argument", args: []string{"--port", "1", "2"}, err: "wrong number of arguments"},
		{name: "databases range", args: []string{"--databases", "0"}, err: "argument must be between 1 and 256 inclusive"},
		{name: "unbalanced quotes", args: []string{conf("requirepass \"abc\n")}, err: "at line 1\n>>> 'requirepass \"abc'\nUnbalanced quotes in configuration line"},
		{name: "missing file", args: []string{filepath.Join(dir, "none.conf")}, err: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseArgs(tc.args)
			switch {
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("parseArgs(%q): error %v, want one with %q", tc.args, err, tc.err)
			case tc.err == "" && err != nil:
				t.Fatalf("parseArgs(%q): %v", tc.args, err)
			case tc.err == "" && !tc.check(o):
				t.Fatalf("parseArgs(%q): unexpected options %+v", tc.args, o)
			}
		})
	}
}
