package client

import (
	"fmt"
	"syscall"
	"time"
)

// DefaultExitTimeout is how long Close waits at each step of stopping a
// stdio server when StdioConfig.ExitTimeout is zero: after closing its
// stdin, and again after SIGTERM, before SIGKILL. A server that ignores
// both is killed after twice this.
const DefaultExitTimeout = 2 * time.Second

// StdioStop says how Close ended a stdio server that did not exit when its
// stdin closed.
type StdioStop struct {
	PID int
	// Signal is the signal that ended it: "SIGTERM", or "SIGKILL" when it
	// ignored SIGTERM too (or Close's context ended first).
	Signal string
	// After is the time from closing its stdin to its exit.
	After time.Duration
}

// String says it in a sentence, e.g. "server process 1234 ignored EOF and
// SIGTERM; killed after 4s".
func (s StdioStop) String() string {
	after := s.After.Round(100 * time.Millisecond)
	if s.Signal == "SIGKILL" {
		return fmt.Sprintf("server process %d ignored EOF and SIGTERM; killed after %s", s.PID, after)
	}
	return fmt.Sprintf("server process %d ignored EOF; stopped by %s after %s", s.PID, s.Signal, after)
}

// Stopped reports whether Close had to signal the stdio server (it did not
// exit on stdin EOF), and how it ended; false for HTTP, for a server that
// exited on EOF or by itself, and before Close has ended it.
func (c *Client) Stopped() (StdioStop, bool) {
	t, ok := c.tr.(*stdioTransport)
	if !ok {
		return StdioStop{}, false
	}
	select {
	case <-t.exited:
	default:
		return StdioStop{}, false
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	if t.stopSignal == "" || t.eofAt.IsZero() {
		return StdioStop{}, false
	}
	return StdioStop{PID: t.cmd.Process.Pid, Signal: t.stopSignal, After: t.exitAt.Sub(t.eofAt)}, true
}

// noteSignal records a signal Close sends to stop the server, unless it
// has exited already (the signal then stopped nothing).
func (t *stdioTransport) noteSignal(sig syscall.Signal) {
	select {
	case <-t.exited:
		return
	default:
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.stopSignal = map[syscall.Signal]string{syscall.SIGTERM: "SIGTERM", syscall.SIGKILL: "SIGKILL"}[sig]
}
