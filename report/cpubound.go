package report

import "fmt"

// CPU-bound work, starved (issue 25). A process probe sees leftover work
// only when the tools' work is CPU. The CPU the process used per second
// of a live call (ProcessCPU.PerCallS) says so when the server gets the
// CPU it asks for; on a machine short of CPU a CPU-bound tool gets a few
// percent of it and reads like a sleeping one. What its threads wanted
// tells them apart: the threads that ran whole time slices and lost the
// CPU at the end of most of them were computing, and their time on a CPU
// plus their time waiting for one is what they asked for, whatever they
// got (engine/cpubound.go, probes/threads.go).
//
// That does not make "no work seen" a pass. A CPU-bound server that gets
// under visiblePerCall of what it wants has not had the CPU to read a
// cancel in time either: it goes on past the grace and burns next to
// nothing doing so. Judged observable, 11 such runs of stopping servers
// that saw no work passed, 8 of them falsely (load average 22–35,
// docs/decisions.md).
// So a starved CPU-bound tool stays not_observable, for the reason it is:
// the machine, not the kind of work; evidence of work is a violation as
// for any other run.

// CPUBound is what the server's CPU-bound threads did: those whose mean
// time slice was at least 0.3 ms over the load (ProcessCPU,
// probes.LoadSlice) or 0.2 ms over a quiet window's measurement (Window,
// probes.WindowSlice).
type CPUBound struct {
	// OnCPUS is their time on a CPU and WaitS their time runnable but
	// waiting for one (schedstat); Threads how many there were.
	OnCPUS  float64 `json:"on_cpu_s"`
	WaitS   float64 `json:"wait_s"`
	Threads int     `json:"threads"`
	// Slices are their time slices and Preempted the slices the kernel
	// ended while they could still run (-1: unknown).
	Slices    int64 `json:"slices"`
	Preempted int64 `json:"preempted"`
	// MaxSliceMs is the longest mean slice of any thread of the process
	// that ran twice or more (informative).
	MaxSliceMs float64 `json:"max_slice_ms"`
	// AllSlices and AllPreempted are the same counts for every thread of
	// the process (informative).
	AllSlices    int64 `json:"all_slices"`
	AllPreempted int64 `json:"all_preempted"`
	// WantedPerCallS (over the load only) is OnCPUS + WaitS per second of
	// a live call: what the tools asked of the CPU, the CPU-bound
	// counterpart of ProcessCPU.PerCallS.
	WantedPerCallS float64 `json:"wanted_per_call_s"`
}

// preemptedShare is the least share of the CPU-bound threads' slices the
// kernel must have ended for their wait to count as wanting the CPU: a
// thread that computes is preempted at the end of most of its slices.
const preemptedShare = 0.5

// wanted reports whether the CPU-bound threads preempted at the end of
// most of their slices waited for the CPU: then their time waiting is work
// they asked for (with Preempted unknown, the slices' length alone says
// it).
func (b CPUBound) wanted() bool {
	if b.Threads == 0 || b.Slices <= 0 {
		return false
	}
	return b.Preempted < 0 || float64(b.Preempted) >= preemptedShare*float64(b.Slices)
}

// starvedCPUBound reports whether the tools' work is CPU-bound work the
// machine starved: the process got less than visiblePerCall per second of
// a live call, its CPU-bound threads wanted at least that.
func starvedCPUBound(p ProcessCPU) bool {
	b := p.CPUBound
	return b.wanted() && b.WantedPerCallS >= visiblePerCall
}

// starvedCPUBoundWhy is the not_observable reason of a starved CPU-bound
// tool: what its threads wanted against what the process got.
func starvedCPUBoundWhy(p ProcessCPU) string {
	return fmt.Sprintf("the machine was short of CPU: the tools' work is CPU-bound (threads that ran whole time slices, "+
		"%d of %d slices ended by the kernel, wanted %s CPU-s per second of a live call, on a CPU and waiting for one) "+
		"but the process got %s, so a server written to stop may not have had the CPU to read a cancel in time, "+
		"and burns next to nothing going on (run where the server gets the CPU it asks for)",
		p.CPUBound.Preempted, p.CPUBound.Slices, fmtNum(p.CPUBound.WantedPerCallS), fmtNum(p.PerCallS))
}

// starvedCPUBoundNote says, for a not_observable verdict of a tool that is
// not starvedCPUBound, what the CPU-bound threads wanted, or why that is
// unknown.
func starvedCPUBoundNote(p ProcessCPU) string {
	b := p.CPUBound
	switch {
	case p.RunWait != "":
		return "; " + p.RunWait + ", so a CPU-bound tool starved of CPU cannot be told from a sleeping one"
	case b.Threads == 0:
		return "; none of its threads ran whole time slices, as a CPU-bound tool starved of CPU would"
	case !b.wanted():
		return fmt.Sprintf("; its threads that ran whole time slices were preempted at the end of %d of %d: they ran out of work, not out of CPU",
			b.Preempted, b.Slices)
	}
	return fmt.Sprintf("; its threads that ran whole time slices wanted %s CPU-s per second of a live call (on a CPU and waiting for one), under the %s that shows CPU-bound work starved of CPU",
		fmtNum(b.WantedPerCallS), fmtNum(visiblePerCall))
}

// extensionNote says that the load was extended for more windows, and
// why; "" when it was not.
func extensionNote(w Windows) string {
	if w.Extensions == 0 {
		return ""
	}
	return fmt.Sprintf("; the load extended by %s for %s more, the evidence being weak: %s",
		fmtMs(w.ExtendedMs), plural(w.Extensions, "window"), w.Extended)
}

// mergeExtension keeps the longest extension of merged runs' loads.
func mergeExtension(w *Windows, x Windows) {
	if x.ExtendedMs > w.ExtendedMs {
		w.Extensions, w.ExtendedMs, w.Extended = x.Extensions, x.ExtendedMs, x.Extended
	}
}
