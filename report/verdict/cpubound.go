package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

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

// starvedCPUBound reports whether the tools' work is CPU-bound work the
// machine starved: the process got less than visiblePerCall per second of
// a live call, its CPU-bound threads wanted at least that.
func starvedCPUBound(p summary.ProcessCPU) bool {
	b := p.CPUBound
	return b.Wanted() && b.WantedPerCallS >= visiblePerCall
}

// starvedCPUBoundWhy is the not_observable reason of a starved CPU-bound
// tool: what its threads wanted against what the process got.
func starvedCPUBoundWhy(p summary.ProcessCPU) string {
	return fmt.Sprintf("the machine was short of CPU: the tools' work is CPU-bound (threads that ran whole time slices, "+
		"%d of %d slices ended by the kernel, wanted %s CPU-s per second of a live call, on a CPU and waiting for one) "+
		"but the process got %s, so a server written to stop may not have had the CPU to read a cancel in time, "+
		"and burns next to nothing going on (run where the server gets the CPU it asks for)",
		p.CPUBound.Preempted, p.CPUBound.Slices, summary.FormatNum(p.CPUBound.WantedPerCallS), summary.FormatNum(p.PerCallS))
}

// starvedCPUBoundNote says, for a not_observable verdict of a tool that is
// not starvedCPUBound, what the CPU-bound threads wanted, or why that is
// unknown.
func starvedCPUBoundNote(p summary.ProcessCPU) string {
	b := p.CPUBound
	switch {
	case p.RunWait != "":
		return "; " + p.RunWait + ", so a CPU-bound tool starved of CPU cannot be told from a sleeping one"
	case b.Threads == 0:
		return "; none of its threads ran whole time slices, as a CPU-bound tool starved of CPU would"
	case !b.Wanted():
		return fmt.Sprintf("; its threads that ran whole time slices were preempted at the end of %d of %d: they ran out of work, not out of CPU",
			b.Preempted, b.Slices)
	}
	return fmt.Sprintf("; its threads that ran whole time slices wanted %s CPU-s per second of a live call (on a CPU and waiting for one), under the %s that shows CPU-bound work starved of CPU",
		summary.FormatNum(b.WantedPerCallS), summary.FormatNum(visiblePerCall))
}

// servingOnly reports whether the process's CPU over the load, however
// much per call, came in short time slices only: no thread's mean slice
// reached probes.LoadSlice. Sleeping tools' threads stay under it (their
// CPU is serving requests: parsing, writing, waking sleepers, which a call
// that runs on after its cancel without computing does not repeat), and so
// do CPU-bound tools' threads on a machine that starves them (0.16–0.37 ms
// measured, docs/decisions.md) and tools that compute in child processes
// that have exited (their CPU is counted, their threads are gone). None of
// them makes "no work seen" a pass: it is not_observable. A race-built
// target of sleeping steps spent 0.04–0.08 CPU-s per live call-second so,
// over the 0.05 that otherwise reads as visible work, and passed a leak.
// Unknown without schedstat (AllSlices 0): the per-call CPU alone decides.
func servingOnly(p summary.ProcessCPU) bool {
	b := p.CPUBound
	return b.AllSlices > 0 && b.Threads == 0
}

// servingOnlyWhy is the not_observable reason of servingOnly.
func servingOnlyWhy(p summary.ProcessCPU) string {
	return fmt.Sprintf("the only probe is the process's CPU, and during the load it used %s CPU-s per second of a live call "+
		"in short time slices only (no thread's mean slice reached 0.3 ms; the longest %s ms), as serving requests does "+
		"(or a CPU-bound tool starved of CPU, or work in child processes that ended): work that runs on after a cancel "+
		"may not be CPU it can see",
		summary.FormatNum(p.PerCallS), summary.FormatNum(p.CPUBound.MaxSliceMs))
}
