package sockets

import (
	"strconv"
	"testing"

	"golang.org/x/sys/unix"
)

// TestListen: two cores' listeners share a port; a second server's first
// listener on it is refused, as Redis's bind would be.
func TestListen(t *testing.T) {
	fd, port, err := Listen("127.0.0.1", 0, true)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	fd2, port2, err := Listen("127.0.0.1", port, false)
	if err != nil || port2 != port {
		t.Fatalf("a second core's listener: port %d, %v; want %d", port2, err, port)
	}
	defer unix.Close(fd2)
	if fd3, _, err := Listen("127.0.0.1", port, true); err == nil {
		unix.Close(fd3)
		t.Fatal("a second server's listener on a port in use opened")
	}
	sa, err := unix.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := AddrString(sa), "127.0.0.1:"+strconv.Itoa(port); got != want {
		t.Fatalf("AddrString %q, want %q", got, want)
	}
	if got := AddrString(&unix.SockaddrInet6{Port: 7, Addr: [16]byte{15: 1}}); got != "::1:7" {
		t.Fatalf("AddrString of ::1 port 7: %q", got)
	}
}
