package probes

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// Run-queue wait (issue 25). /proc/PID/task/TID/schedstat holds three
// numbers per thread (Linux, CONFIG_SCHED_INFO): nanoseconds on a CPU,
// nanoseconds spent runnable but waiting in a run queue, and the number of
// time slices run. The wait tells a starved process (it wanted the CPU and
// did not get it) from a sleeping one (it did not want it): CPU time
// alone cannot, since both use little.

// schedTimes is the schedstat of some threads, summed.
type schedTimes struct {
	onCPU, wait int64 // nanoseconds
	slices      int64
}

// parseSchedstat parses one schedstat line: "ONCPU WAIT SLICES".
func parseSchedstat(b []byte) (schedTimes, error) {
	f := bytes.Fields(b)
	if len(f) < 3 {
		return schedTimes{}, fmt.Errorf("schedstat %q: want 3 numbers", clip(b))
	}
	var v [3]int64
	for i := range v {
		n, err := strconv.ParseInt(string(f[i]), 10, 64)
		if err != nil || n < 0 {
			return schedTimes{}, fmt.Errorf("schedstat %q: field %d is not a count", clip(b), i+1)
		}
		v[i] = n
	}
	return schedTimes{onCPU: v[0], wait: v[1], slices: v[2]}, nil
}

// errNoSchedstat: the kernel keeps no schedstat (no CONFIG_SCHED_INFO, or
// not Linux).
var errNoSchedstat = errors.New("no schedstat in /proc (the kernel keeps no run-queue times)")

// readSchedstat reads the schedstat of every thread of pid into byThread
// (threads.go) and returns their sum. A process or thread that ended
// while it was read counts for nothing; a kernel without schedstat files
// is errNoSchedstat.
func readSchedstat(proc string, pid int, byThread map[int]ThreadTimes) (schedTimes, error) {
	dir := filepath.Join(proc, strconv.Itoa(pid), "task")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(filepath.Join(proc, strconv.Itoa(pid))); serr == nil {
			return schedTimes{}, errNoSchedstat // a process without task/: not Linux's /proc
		}
		return schedTimes{}, nil // the process ended
	}
	if err != nil {
		return schedTimes{}, fmt.Errorf("read %s: %w", dir, err)
	}
	var sum schedTimes
	read := 0
	for _, e := range entries {
		t, preempted, ok, err := readThread(filepath.Join(dir, e.Name()))
		if err != nil {
			return schedTimes{}, err
		}
		if !ok {
			continue // the thread ended, or the kernel has no schedstat
		}
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			byThread[tid] = ThreadTimes{OnCPU: float64(t.onCPU) / 1e9, Wait: float64(t.wait) / 1e9, Slices: t.slices, Preempted: preempted}
		}
		sum.onCPU += t.onCPU
		sum.wait += t.wait
		sum.slices += t.slices
		read++
	}
	if read == 0 && len(entries) > 0 {
		if _, err := os.Stat(filepath.Join(dir, entries[0].Name())); err == nil {
			return schedTimes{}, errNoSchedstat
		}
	}
	return sum, nil
}

// RunWait is the part of a ProcessSample read from schedstat: the threads
// alive at the reading, summed (a thread that ended takes its times with
// it, so compare two readings with Above).
type RunWait struct {
	// Known is false when the kernel keeps no schedstat; Err then says
	// why.
	Known bool
	Err   string
	// OnCPUSeconds is the time on a CPU, in nanoseconds' precision (CPU
	// ticks are 10 ms); WaitSeconds the time runnable but waiting for a
	// CPU; Slices the times a thread was put on a CPU.
	OnCPUSeconds float64
	WaitSeconds  float64
	Slices       int64
	// ByThread holds each thread's times, by thread id (threads.go).
	ByThread map[int]ThreadTimes
}

// runWait reads the schedstat of the live processes pids.
func runWait(proc string, pids []int) RunWait {
	var sum schedTimes
	byThread := map[int]ThreadTimes{}
	for _, pid := range pids {
		t, err := readSchedstat(proc, pid, byThread)
		if err != nil {
			return RunWait{Err: err.Error()}
		}
		sum.onCPU += t.onCPU
		sum.wait += t.wait
		sum.slices += t.slices
	}
	return RunWait{Known: true, OnCPUSeconds: float64(sum.onCPU) / 1e9, WaitSeconds: float64(sum.wait) / 1e9, Slices: sum.slices, ByThread: byThread}
}

// WaitBetween returns the run-queue wait of the trees between two
// samples, and whether both were known.
func WaitBetween(before, after ProcessSample) (float64, bool) {
	if !before.Sched.Known || !after.Sched.Known {
		return 0, false
	}
	return Above(after.Sched.WaitSeconds, before.Sched.WaitSeconds), true
}

// ThreadsDelta is what the trees' threads did between two samples,
// thread by thread (a thread new since the first counts from zero, one
// that ended counts nothing): their time on a CPU and waiting for one,
// and the longest any one of them was runnable. A thread runnable the
// whole time is saturated: a server whose calls share one thread (an
// event loop) gives a call no more than that thread's time, whatever the
// machine's idle CPUs.
type ThreadsDelta struct {
	OnCPU, Wait, Busiest float64 // seconds
}

// ThreadsBetween returns the ThreadsDelta between two samples, and whether
// both were known.
func ThreadsBetween(before, after ProcessSample) (ThreadsDelta, bool) {
	if !before.Sched.Known || !after.Sched.Known {
		return ThreadsDelta{}, false
	}
	var d ThreadsDelta
	for tid, a := range after.Sched.ByThread {
		b := earlier(before, tid, a)
		on, wait := max(a.OnCPU-b.OnCPU, 0), max(a.Wait-b.Wait, 0)
		d.OnCPU += on
		d.Wait += wait
		d.Busiest = max(d.Busiest, on+wait)
	}
	return d, true
}
