package engine

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fdSleeper sleeps the load's pacer on a timerfd read through the
// netpoller (issue 28, CPU per call). A runtime timer wakes an idle
// process through epoll_wait, whose timeout is in whole milliseconds and
// rounded down: a tick 2.4 ms away costs a wake-up at 2 ms, when nothing
// is due yet, and another about a millisecond later, late. The timerfd
// expires at its moment: one wake-up a tick, on time, and the runtime
// hands the pacer the CPU straight from the poller. Both syscalls are raw
// (a non-blocking read, the arming), so neither wakes the runtime's
// monitor thread (as in client/rawconn_linux.go).
type fdSleeper struct {
	rc       syscall.RawConn
	mu       sync.Mutex // guards fd against its close
	fd       int
	f        *os.File
	closed   bool
	stopWake func() bool
}

// newTickSleeper returns a timerfd sleeper whose sleeps end when ctx
// does, or a runtime timer where the kernel gives no timerfd.
func newTickSleeper(ctx context.Context) sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return newTimerSleeper()
	}
	s := &fdSleeper{fd: fd, f: os.NewFile(uintptr(fd), "pacer timerfd")}
	if s.rc, err = s.f.SyscallConn(); err != nil {
		s.f.Close()
		return newTimerSleeper()
	}
	s.stopWake = context.AfterFunc(ctx, func() { s.arm(time.Nanosecond) })
	return s
}

// arm sets the timer to expire d from now (d > 0), replacing its setting.
func (s *fdSleeper) arm(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		_, _, _ = unix.RawSyscall6(unix.SYS_TIMERFD_SETTIME, uintptr(s.fd), 0, uintptr(unsafe.Pointer(&spec)), 0, 0, 0)
	}
}

func (s *fdSleeper) sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 || ctx.Err() != nil {
		return ctx.Err() == nil
	}
	s.arm(d)
	if ctx.Err() != nil {
		return false // ended before the arming: its wake-up may have been replaced
	}
	var buf [8]byte // the count of expiries
	err := s.rc.Read(func(fd uintptr) bool {
		for {
			_, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)))
			if e != unix.EINTR {
				return e != unix.EAGAIN // EAGAIN: not expired yet, wait for it
			}
		}
	})
	return err == nil && ctx.Err() == nil
}

func (s *fdSleeper) stop() {
	s.stopWake()
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		_ = s.f.Close()
	}
}
