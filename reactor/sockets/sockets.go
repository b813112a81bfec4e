// Package sockets owns what a server asks of the kernel for its sockets:
// the SO_REUSEPORT listeners every core opens on the same address, the
// addresses' form in CLIENT LIST, an open file limit that holds the
// clients, and the raw reads, writes and epoll waits of the cores' loops.
package sockets

import (
	"fmt"
	"math"
	"net/netip"
	"unsafe"

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

// The sockets and the eventfd are non-blocking, so reading and writing them
// never waits in the kernel. Calling them as raw system calls skips the
// runtime's enter/exit bookkeeping (which exists to hand the P to another
// thread while a call blocks); on a one-request-per-turn workload that
// bookkeeping is a measurable share of the loop.
//
// epoll_wait with a timeout does block. Through the ordinary call, a shard
// that sleeps between requests gives its P away and must win it back on
// every wake-up, which at one request per client shows in the tail latency
// (bench/results/2026-12-01-design-measurements.md). So while a shard is
// busy it waits with the raw call too. The runtime can still stop it: the
// signal it sends to preempt a thread interrupts epoll_wait (EINTR, never
// restarted).
// The price is a wake-up every 10 ms when the runtime checks on a P that
// seems to run without a break, so a shard idle for a while (reactor's
// rawWaitWindow) goes back to the ordinary call and costs nothing while
// idle.

// Read is read(2) on a non-blocking descriptor, as a raw system call.
func Read(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// Write is write(2) on a non-blocking descriptor, as a raw system call.
func Write(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// EpollWait is unix.EpollWait, made raw when it cannot block (timeout 0) or
// when raw is set.
func EpollWait(epfd int, events []unix.EpollEvent, timeout int, raw bool) (int, error) {
	if timeout != 0 && !raw {
		return unix.EpollWait(epfd, events, timeout)
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), uintptr(timeout), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
