package engine

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// timerfdWaker wakes the deadline driver from a timerfd: the kernel's
// high-resolution timer, read through the netpoller, so an idle process
// wakes when it expires instead of at the next whole millisecond of
// epoll_wait's timeout. A goroutine reads the fd and passes each expiry on.
type timerfdWaker struct {
	mu     sync.Mutex
	fd     int
	f      *os.File // owns fd; closing it ends the reader
	closed bool
	c      chan struct{}
}

// newWaker returns a timerfd waker, or nil when the kernel gives none
// (the runtime timer then wakes the driver alone).
func newWaker() waker {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	w := &timerfdWaker{fd: fd, f: os.NewFile(uintptr(fd), "timerfd"), c: make(chan struct{}, 1)}
	go w.read()
	return w
}

func (w *timerfdWaker) read() {
	var buf [8]byte // the count of expiries
	for {
		if _, err := w.f.Read(buf[:]); err != nil {
			return // closed
		}
		select {
		case w.c <- struct{}{}:
		default:
		}
	}
}

func (w *timerfdWaker) arm(d time.Duration) {
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(max(int64(d), 1))}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		_ = unix.TimerfdSettime(w.fd, 0, &spec, nil)
	}
}

func (w *timerfdWaker) C() <-chan struct{} { return w.c }

func (w *timerfdWaker) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.closed = true
		_ = w.f.Close()
	}
}
