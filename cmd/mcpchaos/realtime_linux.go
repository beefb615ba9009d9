package main

import (
	"context"
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
// (docs/performance.md). Reset on fork: the stdio servers mcpchaos starts
// keep the normal policy. Threads the Go runtime starts later are raised
// on the next look (every realtimeLook). A process at real-time priority
// takes the CPU from every normal one, the server under test included, so
// once this process uses more than realtimeBudget over a second (a whole
// CPU: a client at 1,000 calls/s uses a third to a half of one) it goes
// back to the normal policy for the rest of the run, and says so.

const (
	realtimeLook   = 250 * time.Millisecond
	realtimeSpan   = 4   // looks: the budget is weighed over a second
	realtimeBudget = 1.0 // CPU-seconds per second
)

// realtime raises the process's threads and keeps them raised until the
// returned stop, which lowers them; on a refusal it says so on stderr and
// returns a stop that does nothing.
func realtime(ctx context.Context, stderr io.Writer) (stop func()) {
	if err := setPolicy(true); err != nil {
		fmt.Fprintf(stderr, "mcpchaos run: --realtime: the kernel refused SCHED_FIFO (%v): run as root, give the binary "+
			"CAP_SYS_NICE (setcap cap_sys_nice+ep), or allow it with `ulimit -r 1`; running at normal priority\n", err)
		_ = setPolicy(false)
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { keepRealtime(ctx, stderr) })
	return func() {
		cancel()
		wg.Wait()
		_ = setPolicy(false)
	}
}

// keepRealtime raises new threads every realtimeLook, until ctx ends or
// the process uses more than its budget.
func keepRealtime(ctx context.Context, stderr io.Writer) {
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
				_ = setPolicy(false)
				fmt.Fprintf(stderr, "mcpchaos run: --realtime: this process used %.2f CPU-s a second, more than %.1f: back to normal priority "+
					"for the rest of the run, so that it does not take the server's CPU\n", rate, realtimeBudget)
				return
			}
			last, at = cpu, now
		}
		_ = setPolicy(true)
	}
}

// overBudget reports whether a CPU rate (CPU-seconds per second) is more
// than real-time priority may take.
func overBudget(rate float64) bool { return rate > realtimeBudget }

// ownCPU is the CPU time this process has used.
func ownCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// setPolicy puts every thread of the process at SCHED_FIFO 1, reset on
// fork (raise), or back at the normal policy; the first refusal is the
// error, the other threads are still tried.
func setPolicy(raise bool) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	var first error
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		attr, err := unix.SchedGetAttr(tid, 0)
		if err != nil {
			continue // the thread ended
		}
		if raise == (attr.Policy == unix.SCHED_FIFO) {
			continue
		}
		attr.Policy, attr.Priority, attr.Flags = unix.SCHED_NORMAL, 0, 0
		if raise {
			attr.Policy, attr.Priority, attr.Flags = unix.SCHED_FIFO, 1, unix.SCHED_FLAG_RESET_ON_FORK
		}
		if err := unix.SchedSetAttr(tid, attr, 0); err != nil && first == nil && err != unix.ESRCH {
			first = err
		}
	}
	return first
}
