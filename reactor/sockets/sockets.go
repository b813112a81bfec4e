// Package sockets owns what a server asks of the kernel for its sockets:
// the SO_REUSEPORT listeners every core opens on the same address, the
// addresses' form in CLIENT LIST, and an open file limit that holds the
// clients.
package sockets

import (
	"fmt"
	"math"
	"net/netip"

	"golang.org/x/sys/unix"
)

// Listen opens a non-blocking listening socket on addr:port with
// SO_REUSEPORT, so that every core can open its own on the same address and
// the kernel spreads incoming connections over them. first is the first
// core's socket on addr: SO_REUSEPORT would let it join the sockets of
// another process that listens there too (another corekv), and the two
// would share the connections unnoticed, so the port must be free of any
// listener first, as Redis's bind would find it ("address already in
// use").
func Listen(addr string, port int, first bool) (fd int, boundPort int, err error) {
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return -1, 0, fmt.Errorf("bind address %q: %w", addr, err)
	}
	family := unix.AF_INET
	if ip.Is6() && !ip.Is4In6() {
		family = unix.AF_INET6
	}
	fd, err = unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, 0, err
	}
	fail := func(e error) (int, int, error) {
		unix.Close(fd)
		return -1, 0, fmt.Errorf("listen on %s port %d: %w", addr, port, e)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return fail(err)
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEPORT, 1); err != nil {
		return fail(err)
	}
	var sa unix.Sockaddr
	if family == unix.AF_INET6 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return fail(err)
		}
		sa = &unix.SockaddrInet6{Port: port, Addr: ip.As16()}
	} else {
		sa = &unix.SockaddrInet4{Port: port, Addr: ip.Unmap().As4()}
	}
	if first && port != 0 {
		if err := portFree(family, sa); err != nil {
			return fail(err)
		}
	}
	if err := unix.Bind(fd, sa); err != nil {
		return fail(err)
	}
	if err := unix.Listen(fd, 511); err != nil {
		return fail(err)
	}
	got, err := unix.Getsockname(fd)
	if err != nil {
		return fail(err)
	}
	switch a := got.(type) {
	case *unix.SockaddrInet4:
		boundPort = a.Port
	case *unix.SockaddrInet6:
		boundPort = a.Port
	}
	return fd, boundPort, nil
}

// portFree binds a socket without SO_REUSEPORT to sa and lets it go: the
// bind fails while any socket listens there.
func portFree(family int, sa unix.Sockaddr) error {
	fd, err := unix.Socket(family, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		return err
	}
	if family == unix.AF_INET6 {
		if err := unix.SetsockoptInt(fd, unix.IPPROTO_IPV6, unix.IPV6_V6ONLY, 1); err != nil {
			return err
		}
	}
	return unix.Bind(fd, sa)
}

// AddrString formats a socket address as Redis prints it in CLIENT LIST:
// ip:port, with IPv6 addresses unbracketed.
func AddrString(sa unix.Sockaddr) string {
	switch a := sa.(type) {
	case *unix.SockaddrInet4:
		return netip.AddrPortFrom(netip.AddrFrom4(a.Addr), uint16(a.Port)).String()
	case *unix.SockaddrInet6:
		return netip.AddrFrom16(a.Addr).String() + ":" + fmt.Sprint(a.Port)
	}
	return "?"
}

// FitFDLimit raises the soft RLIMIT_NOFILE toward the clients+reserved
// descriptors that clients need, up to the hard limit (or past it, with the
// privilege), and returns how many clients the resulting limit holds (at
// most clients) and that limit.
func FitFDLimit(clients, reserved int64) (fit, limit int64) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return clients, -1
	}
	need := uint64(clients + reserved)
	if lim.Cur < need {
		raised := unix.Rlimit{Cur: need, Max: max(need, lim.Max)}
		if unix.Setrlimit(unix.RLIMIT_NOFILE, &raised) != nil {
			raised = unix.Rlimit{Cur: lim.Max, Max: lim.Max}
			if unix.Setrlimit(unix.RLIMIT_NOFILE, &raised) != nil {
				raised = lim
			}
		}
		lim = raised
	}
	limit = int64(min(lim.Cur, math.MaxInt64))
	return min(clients, limit-reserved), limit
}
