package script

import (
	"strings"
	"testing"
	"time"

	"github.com/corekv/corekv/resp"
)

// TestWatchKill runs scripts that never end on one goroutine and stops
// them from another through the watch, as SCRIPT KILL does: a plain loop,
// a loop that keeps calling pcall (which must not catch the kill), and a
// loop inside a coroutine resumed from a loop. Each ends with Redis's SCRIPT KILL error, the
// watch shows no script after, and the next script runs as usual.
func TestWatchKill(t *testing.T) {
	w := NewWatch()
	e := New(Options{Watch: w})
	for _, body := range []string{
		"local i = 0 while true do i = i + 1 end",
		"while true do pcall(function() local x = 1 + 1 end) end",
		// The kill stops the coroutine (resume answers false), then the
		// script around it.
		"local co = coroutine.create(function() while true do end end) while true do coroutine.resume(co) end",
	} {
		done := make(chan string)
		go func() {
			out := resp.Writer{Proto: 2}
			w.Begin(time.Now().UnixMilli())
			e.Eval([]byte(body), nil, nil, &incrHost{}, &out)
			w.End()
			done <- string(out.B)
		}()
		var run uint64
		deadline := time.Now().Add(5 * time.Second)
		for run == 0 && time.Now().Before(deadline) {
			var ms int64
			ms, _, run = w.Running(time.Now().UnixMilli())
			if ms == 0 {
				run = 0
				time.Sleep(time.Millisecond)
			}
		}
		if run == 0 {
			t.Fatalf("%s: never seen running", body)
		}
		w.Kill(run)
		select {
		case got := <-done:
			if !strings.HasPrefix(got, "-"+errKilled) {
				t.Fatalf("%s: killed script answered %q", body, got)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: still running 5 s after Kill", body)
		}
		if ms, _, _ := w.Running(time.Now().UnixMilli()); ms != 0 {
			t.Fatalf("%s: the watch still shows a script", body)
		}
	}
	out := resp.Writer{Proto: 2}
	e.Eval([]byte("return redis.call('incr', 'k')"), nil, nil, &incrHost{}, &out)
	if string(out.B) != ":1\r\n" {
		t.Fatalf("the script after the kills: %q", out.B)
	}
	// A kill of an ended run does not stop the next.
	w.Kill(w.ctx.run & runMask)
	out.B = out.B[:0]
	w.Begin(time.Now().UnixMilli())
	defer w.End()
	e.Eval([]byte("local n = 0 for i = 1, 100000 do n = n + 1 end return n"), nil, nil, &incrHost{}, &out)
	if string(out.B) != ":100000\r\n" {
		t.Fatalf("a run after a stale kill: %q", out.B)
	}
}
