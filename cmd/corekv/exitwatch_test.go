package main

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordingTB is the test a start helper sees: its errors and cleanups are
// kept, so that a test can look at what the helper would report.
type recordingTB struct {
	testing.TB
	errs     []string
	cleanups []func()
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recordingTB) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

// end runs the cleanups, last first, as the end of a test does.
func (r *recordingTB) end() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// TestServerExitFailsTest: a corekv that a start helper started and that
// exits before the test ends, killed or shut down by a command, fails the
// test with its exit status and the last lines of its output; one the test
// expects to exit does not.
func TestServerExitFailsTest(t *testing.T) {
	bin := corekvBinary(t)
	type started struct {
		watch *exitWatch
		pid   int
		addr  string
	}
	helpers := []struct {
		name  string
		start func(tb testing.TB) started
	}{
		{"startServer", func(tb testing.TB) started {
			s := startServer(tb, nil, "--shards", "2")
			return started{s.watch, s.cmd.Process.Pid, s.addr}
		}},
		{"compatStartCorekv", func(tb testing.TB) started {
			s := compatStartCorekv(tb, bin, 2)
			return started{s.watch, s.pid, s.addr}
		}},
	}
	cases := []struct {
		name   string
		expect bool   // the test says it expects the exit
		want   string // the exit status reported; "" for no report
	}{
		{"SIGKILL", false, "signal: killed"},
		{"SHUTDOWN", false, "exit status 0"},
		{"SHUTDOWN expected", true, ""},
	}
	for _, h := range helpers {
		for _, tc := range cases {
			rec := &recordingTB{TB: t}
			s := h.start(rec)
			if tc.expect {
				s.watch.expect()
			}
			if tc.name == "SIGKILL" {
				_ = syscall.Kill(s.pid, syscall.SIGKILL)
			} else {
				c, err := compatDial(s.addr)
				if err != nil {
					t.Fatal(err)
				}
				_ = c.send(compatEncode(nil, compatS("SHUTDOWN NOSAVE")))
				defer c.close()
			}
			select {
			case <-s.watch.done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s, %s: still running after 10 s", h.name, tc.name)
			}
			rec.end()
			switch {
			case tc.want == "" && len(rec.errs) != 0:
				t.Errorf("%s, %s: reported %q", h.name, tc.name, rec.errs)
			case tc.want != "" && (len(rec.errs) != 1 ||
				!strings.Contains(rec.errs[0], "exited before the test ended ("+tc.want+")") ||
				!strings.Contains(rec.errs[0], "corekv ready")):
				t.Errorf("%s, %s: reported %q, want one error naming %q with the server's last lines", h.name, tc.name, rec.errs, tc.want)
			}
		}
	}
}
