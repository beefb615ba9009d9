package engine

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// What becomes of the stdio servers at the end of a run, and of the
// processes they started. Close ends each server: stdin EOF, then SIGTERM
// and SIGKILL after the kill grace (client.DefaultExitTimeout each); each one
// that needed a signal is said. Then the processes the servers left
// running — children in their own process group or session, which the
// group kill does not reach, or detached orphans — are found (the process
// probe remembers every descendant it saw; a child subreaper also adopts
// the orphans), counted as leftover work and killed, unless
// Orphans.LeaveChildren.

// sampleServers reads the servers' trees when the process probe watches
// another process: the reading only feeds the memory of descendants.
func (pr *probeRun) sampleServers(ctx context.Context) {
	ctx, cancel := readContext(ctx, 5*time.Second)
	defer cancel()
	_, _ = pr.servers.SampleTree(ctx)
}

// endServers reports the stdio servers that had to be signalled and the
// processes they left running (killed unless LeaveChildren), once every
// server has been closed; nil for HTTP targets.
func (r *runner) endServers(pr *probeRun) *report.ServerProcesses {
	if pr.servers == nil {
		return nil
	}
	out := &report.ServerProcesses{LeftRunning: r.plan.Orphans.LeaveChildren}
	for _, c := range r.clients.all() {
		if st, ok := c.Stopped(); ok {
			out.Signalled++
			if st.Signal == "SIGKILL" {
				out.Killed++
			}
			out.Note("%s", st)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	left, err := pr.servers.Leftover(ctx)
	if err != nil {
		out.Note("%v", err)
		return out
	}
	out.Leftover = len(left)
	for _, l := range left {
		if r.plan.Orphans.LeaveChildren {
			out.Note("%s, started by a server, still running after the servers exited; left running", l)
			continue
		}
		if err := killLeftover(ctx, l); err != nil {
			out.Note("%s, started by a server, still running after the servers exited; could not kill it: %v", l, err)
			continue
		}
		out.Note("%s, started by a server, still running after the servers exited; killed", l)
	}
	return out
}

// killLeftover kills a leftover process and, when it is our own child (an
// orphan we adopted as a subreaper), reaps it.
func killLeftover(ctx context.Context, l probes.LeftoverProcess) error {
	if err := syscall.Kill(l.PID, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
		return err
	}
	if l.PPID != os.Getpid() {
		return nil // its parent (or init) reaps it
	}
	for ctx.Err() == nil {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(l.PID, &ws, syscall.WNOHANG, nil)
		if pid == l.PID || errors.Is(err, syscall.ECHILD) {
			return nil
		}
		sleep(ctx, 10*time.Millisecond)
	}
	return nil
}
