package probes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// Threads that wanted the CPU (issue 25). The run-queue wait of a whole
// process does not tell a CPU-bound tool starved of CPU from a sleeping
// one: on a loaded machine every wake-up of a sleeping server waits for a
// CPU too, and a sleeping server wakes often. What differs is how each
// thread ran. A thread that computes runs until the kernel takes the CPU
// away: whole time slices (the kernel's slice is 0.75–3 ms, its tick
// 1–10 ms), each ended by a preemption (nonvoluntary_ctxt_switches in
// /proc/PID/task/TID/status). A thread that wakes to handle a message runs
// for microseconds and blocks of its own accord. So the schedstat of each
// thread is kept apart, and the threads whose mean time slice between two
// readings is long are the process's CPU-bound work: their time on a CPU
// and their run-queue wait are what the tools wanted, whatever they got.

// ThreadTimes is one thread's schedstat and its preemptions.
type ThreadTimes struct {
	OnCPU, Wait float64 // seconds
	Slices      int64
	// Preempted counts the times the kernel took the CPU from the thread
	// while it could still run (nonvoluntary context switches); -1 when
	// its status could not be read.
	Preempted int64
}

// switchesKey starts the line of /proc/PID/task/TID/status that counts a
// thread's preemptions.
var switchesKey = []byte("nonvoluntary_ctxt_switches:")

// parsePreempted returns the count of a status file's
// nonvoluntary_ctxt_switches line.
func parsePreempted(b []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), switchesKey)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("status: %s %q is not a count", switchesKey, clip(bytes.TrimSpace(rest)))
		}
		return n, nil
	}
	return 0, fmt.Errorf("status: no %s line", switchesKey)
}

// readPreempted reads one thread's preemptions, -1 when unknown.
func readPreempted(dir string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return -1
	}
	n, err := parsePreempted(b)
	if err != nil {
		return -1
	}
	return n
}

// readThread reads one thread's schedstat and its preemptions (-1 when
// its status could not be read); ok is false when the thread ended (or
// has no schedstat file).
func readThread(dir string) (t schedTimes, preempted int64, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, "schedstat"))
	if errors.Is(err, fs.ErrNotExist) {
		return schedTimes{}, 0, false, nil
	}
	if err != nil {
		return schedTimes{}, 0, false, fmt.Errorf("read %s/schedstat: %w", dir, err)
	}
	t, err = parseSchedstat(b)
	if err != nil {
		return schedTimes{}, 0, false, fmt.Errorf("%s: %w", dir, err)
	}
	return t, readPreempted(dir), true, nil
}

// A thread's mean time on a CPU per slice, between two readings, above
// which its work counts as CPU-bound: LoadSlice over a load, WindowSlice
// over a quiet window. Measured on this 2-core machine shared with other
// builds (docs/decisions.md): threads of CPU-bound tools ran 0.16–0.88 ms
// per slice over a load, those of sleeping tools 0.05–0.15 ms, and up to
// 0.19 ms at load average 30 with the server niced (a starved server has
// a backlog of messages to handle at each wake-up). LoadSlice keeps well
// above what sleeping tools reached. WindowSlice is for a quiet window,
// where an idle server's threads ran at most 0.11 ms per slice; what it
// finds there is recorded, not judged.
const (
	LoadSlice   = 300 * time.Microsecond
	WindowSlice = 200 * time.Microsecond
)

// Busy is what the threads whose mean slice between two readings was at
// least a given length did: the process's CPU-bound work.
type Busy struct {
	// Known is false unless both readings read schedstat.
	Known bool
	// OnCPUS and WaitS are those threads' time on a CPU and in a run
	// queue, Slices their time slices and Preempted the slices the kernel
	// ended (-1 when some thread's were unknown); Threads how many there
	// were. A thread that computes is preempted at the end of most slices.
	OnCPUS, WaitS float64
	Slices        int64
	Preempted     int64
	Threads       int
	// MaxSliceMs is the longest mean slice of any thread that ran twice or
	// more (informative: how the most CPU-bound thread ran).
	MaxSliceMs float64
	// LongestSliceMs is the longest mean slice of any thread, counting a
	// thread that ran once, or that was on a CPU from before the first
	// reading to the second (no slice begun between them), as one slice:
	// a thread that computed through a quiet window on a CPU to itself
	// ran one slice of all of it.
	LongestSliceMs float64
	// AllSlices and AllPreempted are the slices and preemptions of every
	// thread (AllPreempted -1 when some thread's were unknown).
	AllSlices, AllPreempted int64
}

// BusyBetween returns what the CPU-bound threads, those whose mean slice
// was at least long, did between two readings. A thread new in after
// counts from zero (it began between them); a thread gone from after
// counts for nothing.
func BusyBetween(before, after ProcessSample, long time.Duration) Busy {
	if !before.Sched.Known || !after.Sched.Known {
		return Busy{}
	}
	out := Busy{Known: true}
	for tid, a := range after.Sched.ByThread {
		b := earlier(before, tid, a) // zero for a new thread
		on, slices := max(a.OnCPU-b.OnCPU, 0), a.Slices-b.Slices
		preempted := int64(-1)
		if a.Preempted >= 0 && b.Preempted >= 0 {
			preempted = max(a.Preempted-b.Preempted, 0)
		}
		out.AllPreempted = addKnown(out.AllPreempted, preempted)
		out.LongestSliceMs = max(out.LongestSliceMs, on/float64(max(slices, 1))*1000)
		if slices <= 0 {
			continue
		}
		out.AllSlices += slices
		mean := on / float64(slices)
		if slices >= 2 {
			out.MaxSliceMs = max(out.MaxSliceMs, mean*1000)
		}
		if mean >= long.Seconds() {
			out.OnCPUS += on
			out.WaitS += max(a.Wait-b.Wait, 0)
			out.Slices += slices
			out.Preempted = addKnown(out.Preempted, preempted)
			out.Threads++
		}
	}
	return out
}

// addKnown adds a count to a sum, either -1 when unknown.
func addKnown(sum, n int64) int64 {
	if sum < 0 || n < 0 {
		return -1
	}
	return sum + n
}

// earlier returns thread tid's times in the reading before, whose times
// now are a: zero for a thread new since, or for a thread id reused by
// another thread (a count gone back: its preemptions too, when both
// readings know them).
func earlier(before ProcessSample, tid int, a ThreadTimes) ThreadTimes {
	b := before.Sched.ByThread[tid]
	if wentBack(b, a) {
		return ThreadTimes{}
	}
	return b
}

// Thresholds of LeadSliceMs: a thread that leads ran at least
// leadSlices slices and leadShare of the threads' CPU.
const (
	leadSlices = 10
	leadShare  = 0.1
)

// LeadSliceMs returns the longest mean slice, in ms, of a thread that
// ran leadSlices slices or more and leadShare or more of the process's
// threads' CPU between two readings: the slices its computing threads
// ran in (over a load, its tools'), not those of a helper thread that
// ran twice, long, once. 0 when unknown or when no thread led.
func LeadSliceMs(before, after ProcessSample) float64 {
	if !before.Sched.Known || !after.Sched.Known {
		return 0
	}
	total := 0.0
	for tid, a := range after.Sched.ByThread {
		total += max(a.OnCPU-earlier(before, tid, a).OnCPU, 0)
	}
	lead := 0.0
	for tid, a := range after.Sched.ByThread {
		b := earlier(before, tid, a)
		on, slices := max(a.OnCPU-b.OnCPU, 0), a.Slices-b.Slices
		if slices >= leadSlices && on > 0 && on >= leadShare*total {
			lead = max(lead, on/float64(slices)*1000)
		}
	}
	return lead
}
