package client

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawTCP is a TCP connection whose reads and writes are raw syscalls
// on the non-blocking socket, waited for through the netpoller as usual
// (deadlines and Close work as on the *net.TCPConn it wraps).
//
// Why (issue 28, CPU per call): a read or write through net.Conn enters
// the Go runtime's syscall path, and when the process had gone idle that
// path wakes the runtime's monitor thread (sysmon), which then polls every
// 20 µs for a millisecond or more. At a few hundred calls a second that
// was a fifth to a third of the client's CPU, in thread switches. A read
// or write of a non-blocking socket never blocks, so it needs none of it.
type rawTCP struct {
	*net.TCPConn
	rc syscall.RawConn
}

// rawSockets wraps a plain TCP connection in rawTCP; anything else, or a
// connection whose raw form is unavailable, is returned as it is.
func rawSockets(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	return &rawTCP{TCPConn: tc, rc: rc}
}

// tcpOf returns the *net.TCPConn under nc, if there is one.
func tcpOf(nc net.Conn) *net.TCPConn {
	switch c := nc.(type) {
	case *rawTCP:
		return c.TCPConn
	case *net.TCPConn:
		return c
	}
	return nil
}

func (c *rawTCP) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			r, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // wait for the socket to be readable
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, c.opError("read", err)
	case errno != 0:
		return 0, c.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (c *rawTCP) Write(p []byte) (int, error) {
	written := 0
	var errno syscall.Errno
	for written < len(p) && errno == 0 {
		err := c.rc.Write(func(fd uintptr) bool {
			for {
				rest := p[written:]
				r, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&rest[0])), uintptr(len(rest)))
				switch e {
				case syscall.EINTR:
					continue
				case syscall.EAGAIN:
					return false // wait for room in the socket's buffer
				case 0:
					written += int(r)
				default:
					errno = e
				}
				return true
			}
		})
		if err != nil {
			return written, c.opError("write", err)
		}
	}
	if errno != 0 {
		return written, c.opError("write", os.NewSyscallError("write", errno))
	}
	return written, nil
}

// opError wraps err as net's own connections do, so callers' checks
// (timeouts, resets, a closed connection) read it the same way.
func (c *rawTCP) opError(op string, err error) error {
	return &net.OpError{Op: op, Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: err}
}

// peekIn returns up to len(buf) of the bytes waiting unread in tc's
// receive queue, leaving them there (MSG_PEEK, without waiting); none when
// tc is nil or nothing waits.
func peekIn(tc *net.TCPConn, buf []byte) []byte {
	if tc == nil || len(buf) == 0 {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	n := 0
	_ = rc.Control(func(fd uintptr) {
		if got, _, err := syscall.Recvfrom(int(fd), buf, syscall.MSG_PEEK|syscall.MSG_DONTWAIT); err == nil {
			n = got
		}
	})
	return buf[:n]
}
