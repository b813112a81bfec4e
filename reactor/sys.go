package reactor

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

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
// seems to run without a break, so a shard idle for rawWaitWindow goes back
// to the ordinary call and costs nothing while idle.

func rawRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

func rawWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return -1, e
	}
	return int(n), nil
}

// rawWaitWindow is how long after its last busy turn a shard keeps waiting
// with the raw epoll_wait.
const rawWaitWindow = 1000 // ms

// epollWait is unix.EpollWait, made raw when it cannot block (timeout 0) or
// when raw is set.
func epollWait(epfd int, events []unix.EpollEvent, timeout int, raw bool) (int, error) {
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
