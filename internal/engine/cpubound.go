package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// CPU-bound threads, measured (issue 25; the verdict's side is
// report/cpubound.go). Over the load, what the server's threads that ran
// whole time slices wanted of the CPU (on it and waiting for it) per
// second of a live call tells a CPU-bound tool starved of CPU from a
// sleeping one, which the process's CPU alone cannot. In a quiet window
// their wait is recorded, not judged: it did not tell a server that
// stopped in time from one that ran on any better than the whole
// process's wait, and judged alone it let through runs that ran on
// (docs/decisions.md). Their slices and preemptions, and the longest
// mean slice of every thread there, judge a slice burst (burst.go), and
// with their time, wait and number a wait they made each other
// (selfwait.go).

// cpuBound is what the CPU-bound threads did between two readings; nil
// unless both read schedstat.
func cpuBound(from, to probes.ProcessSample, long time.Duration) *report.CPUBound {
	b := probes.BusyBetween(from, to, long)
	if !b.Known {
		return nil
	}
	return &report.CPUBound{OnCPUS: b.OnCPUS, WaitS: b.WaitS, Threads: b.Threads, Slices: b.Slices,
		Preempted: b.Preempted, MaxSliceMs: b.MaxSliceMs, LongestSliceMs: b.LongestSliceMs, AllSlices: b.AllSlices, AllPreempted: b.AllPreempted}
}

// loadCPUBound fills in what the CPU-bound threads did over the load, and
// what they wanted per second of a live call (live: the live
// call-seconds).
func loadCPUBound(cpu *report.ProcessCPU, from, to probes.ProcessSample, live float64) {
	b := cpuBound(from, to, probes.LoadSlice)
	if b == nil {
		return
	}
	if live > 0 {
		b.WantedPerCallS = (b.OnCPUS + b.WaitS) / live
	}
	cpu.CPUBound = *b
}
