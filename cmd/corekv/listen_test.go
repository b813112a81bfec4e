package main

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A second corekv on the port of a running one is refused, as redis-server
// is, rather than joining its SO_REUSEPORT group and taking half of its
// connections.
func TestBusyPortRefused(t *testing.T) {
	port := compatFreePort(t)
	startServerArgs(t, nil, []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--shards", "2"})
	cmd := exec.Command(corekvBinary(t), "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--shards", "2")
	cmd.Dir = t.TempDir()
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("a second corekv started on busy port %d:\n%s", port, out)
	}
	if err == nil || !strings.Contains(string(out), "address already in use") {
		t.Fatalf("second corekv on port %d: %v\n%s", port, err, out)
	}
}
