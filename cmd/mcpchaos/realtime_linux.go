package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// `run --realtime`: every thread of this process at the lowest real-time
// priority (SCHED_FIFO 1), so a timer that falls due wakes it at once
// rather than after the server's threads on the same cores have had their
// turn, and the runtime on its default Ps (no one-P adapter), so that the
// woken goroutine finds one free: faults and timeouts then act within a
// millisecond of their moment, for more of our own CPU
// (docs/performance.md). Reset on fork: the stdio servers mcpchaos starts,
// and the threads the Go runtime starts later, begin at the normal policy;
// the threads are raised on the next look (every realtimeLook). A process
// at real-time priority takes the CPU from every normal one, the server
// under test included, so once this process uses more than realtimeBudget
// over a second (a whole CPU: a client at 1,000 calls/s uses a third to a
// half of one) it goes back to its normal policy for the rest of the run,
// and says so. Going back keeps the reset-on-fork flag, which an
// unprivileged process may not clear, and restores the nice value and
// time slice the threads had.

const (
	realtimeLook   = 250 * time.Millisecond
	realtimeSpan   = 4   // looks: the budget is weighed over a second
	realtimeBudget = 1.0 // CPU-seconds per second
)

// realtime raises the process's threads and keeps them raised until the
// returned stop, which lowers them, or until the budget is spent; ok is
// false when it changed nothing (a refusal, or a process already at a
// real-time policy), which it says on stderr.
func realtime(ctx context.Context, stderr io.Writer) (stop func(), ok bool) {
	base, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: --realtime: read this thread's scheduling policy: %v; running as started\n", err)
		return func() {}, false
	}
	if base.Policy != unix.SCHED_NORMAL {
		fmt.Fprintf(stderr, "mcpchaos run: --realtime: this process already runs at scheduling policy %d; left as it is\n", base.Policy)
		return func() {}, false
	}
	p := policy{base: *base}
	if err := p.set(true); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: --realtime: the kernel refused SCHED_FIFO (%v): run as root, give the binary "+
			"CAP_SYS_NICE (setcap cap_sys_nice+ep), or allow it with `ulimit -r 1`; running at normal priority\n", err)
		p.lower(stderr)
		return func() {}, false
	}
	// Only stop ends the watch: after a first interrupt the run still
	// drains and reads its probes, at real-time priority.
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { p.keep(ctx, stderr) })
	return func() {
		cancel()
		wg.Wait()
		p.lower(stderr)
	}, true
}

// policy raises and lowers the process's threads; base is the normal
// policy they had (its nice value and time slice).
type policy struct {
	base    unix.SchedAttr
	mu      sync.Mutex
	lowered bool
}

// keep raises new threads every realtimeLook, until ctx ends or the
// process uses more than its budget.
func (p *policy) keep(ctx context.Context, stderr io.Writer) {
	t := time.NewTicker(realtimeLook)
	defer t.Stop()
	last, at := ownCPU(), time.Now()
	for looks := 1; ; looks++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if looks%realtimeSpan == 0 {
			cpu, now := ownCPU(), time.Now()
			if rate := (cpu - last).Seconds() / now.Sub(at).Seconds(); overBudget(rate) {
				fmt.Fprintf(stderr, "mcpchaos run: --realtime: this process used %.2f CPU-s a second, more than %.1f: back to normal priority "+
					"for the rest of the run, so that it does not take the server's CPU\n", rate, realtimeBudget)
				p.lower(stderr)
				return
			}
			last, at = cpu, now
		}
		_ = p.set(true) // a thread that refuses now was raised before, or ended
	}
}

// overBudget reports whether a CPU rate (CPU-seconds per second) is more
// than real-time priority may take.
func overBudget(rate float64) bool { return rate > realtimeBudget }

// ownCPU is the CPU time this process has used.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru) // on an error it stays zero
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// lower puts every thread back at the normal policy (once), saying on
// stderr when the kernel refused.
func (p *policy) lower(stderr io.Writer) {
	if err := p.set(false); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: --realtime: back to normal priority: %v\n", err)
	}
}

// set puts every thread of the process at SCHED_FIFO 1, reset on fork
// (raise), or back at the base policy; the first refusal is the error,
// the other threads are still tried. Once lowered, it raises no more.
func (p *policy) set(raise bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lowered {
		return nil
	}
	p.lowered = !raise
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("list this process's threads: %w", err)
	}
	var first error
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil || raise == (attr.Policy == unix.SCHED_FIFO) {
			continue // the thread ended, or is as wanted
		}
		want := p.base
		want.Flags = unix.SCHED_FLAG_RESET_ON_FORK // only a privileged process may clear it
		if raise {
			want.Policy, want.Priority, want.Nice, want.Runtime = unix.SCHED_FIFO, 1, 0, 0
		}
		if err := unix.SchedSetAttr(tid, &want, 0); err != nil && first == nil && !errors.Is(err, unix.ESRCH) {
			first = fmt.Errorf("sched_setattr thread %d: %w", tid, err)
		}
	}
	return first
}
