package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
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
		{name: "help", args: []string{"--help"}, check: func(o options) bool { return o.help }},
		{name: "version", args: []string{"-v"}, check: func(o options) bool { return o.version }},
		{name: "port range", args: []string{"--port", "70000"}, err: "port out of range"},
		{name: "not a number", args: []string{"--spin", "fast"}, err: `spin: "fast" is not a number`},
		{name: "negative spin", args: []string{"--spin", "-1"}, err: "spin must be 0 or more"},
		{name: "unknown option", args: []string{"--nosuch", "1"}, err: `unknown option "nosuch"`},
		{name: "stray argument", args: []string{"--port", "1", "2"}, err: "port takes one value"},
		{name: "databases range", args: []string{"--databases", "0"}, err: "databases must be between 1 and 256"},
		{name: "unbalanced quotes", args: []string{conf("requirepass \"abc\n")}, err: "unbalanced quotes"},
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
