package reactor

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// The sockets and the eventfd are non-blocking, so reading and writing them
// never waits in the kernel. Calling them as raw system calls skips the
// runtime's enter/exit bookkeeping (which exists to hand the P to another
// thread while a call blocks); on a one-request-per-turn workload that
// bookkeeping is a measurable share of the loop. epoll_wait with a timeout
// does block, and keeps the ordinary call.

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

// epollWait is unix.EpollWait, made raw when it cannot block (timeout 0).
func epollWait(epfd int, events []unix.EpollEvent, timeout int) (int, error) {
	if timeout != 0 {
		return unix.EpollWait(epfd, events, timeout)
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])),
		uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
