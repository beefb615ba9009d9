package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// A tool the faults cut that only sleeps, in a load of several (issue
// 25). The process's CPU per second of a live call mixes the tools: a
// tool that computes, cut or not, lifts the figure over visiblePerCall
// while the cut tool's own work is invisible to CPU, and every quiet
// window then "sees it stop". Tried as a user would: a server leaking 8
// of 19 cut sleeping calls beside an uncut CPU-bound tool passed, 0.12
// CPU-s per live call-second. The engine measures each tool alone
// (ProcessCPU.Tools: the sampling intervals in which only its calls were
// in flight), and a cut tool whose calls, alone, cost the process less
// than visiblePerCall and less than half the load's figure, by more than
// the reading's noise, makes "no work seen" prove nothing for it. A tool
// whose calls never ran alone (or too little) is judged by the load's
// figure, as before: that can still pass a sleeping tool that is never
// alone, and says so nowhere; a log probe is the way to be sure.

// minToolLiveS is the live call-seconds of a tool's calls alone below
// which its own figure is not used.
const minToolLiveS = 1.0

// toolsUnseen says which tools the faults cut have work the process probe
// cannot see, measured alone, or "" when none.
func toolsUnseen(c summary.Cancellation) string {
	p := c.ProcessCPU
	if p == nil || len(p.Tools) == 0 || len(c.CutTools) == 0 {
		return ""
	}
	var unseen []string
	for _, t := range p.Tools {
		if c.CutTools[t.Tool] == 0 || t.LiveS < minToolLiveS {
			continue
		}
		// Under visiblePerCall, noise and all, and under half the whole
		// load's figure: the CPU that made the load visible was other
		// tools'. A tool near the load's figure is the load (one that
		// dominates it, starved or not): the load's figure judges it.
		if alone := (t.CPUS + t.NoiseS) / t.LiveS; alone >= visiblePerCall || alone >= p.PerCallS/2 {
			continue
		}
		unseen = append(unseen, fmt.Sprintf("%s (%s cut; its calls alone: %s CPU-s above idle ±%s over %s call-seconds, %s per second of a call)",
			t.Tool, summary.Plural(c.CutTools[t.Tool], "call"), summary.FormatNum(t.CPUS), summary.FormatNum(t.NoiseS),
			summary.FormatNum(t.LiveS), summary.FormatNum(t.PerCallS)))
	}
	if len(unseen) == 0 {
		return ""
	}
	slices.Sort(unseen)
	return fmt.Sprintf("the only probe is the process's CPU, and the work of %s the faults cut is not CPU it can see: %s; "+
		"the %s CPU-s per second of a live call over the whole load came from other tools' calls",
		summary.Plural(len(unseen), "tool"), strings.Join(unseen, "; "), summary.FormatNum(p.PerCallS))
}
