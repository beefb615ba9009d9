package verdict

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// Starved runs (issue 25). With a process probe as the only server-side
// evidence, "no work seen after a cancel" means something only if the
// server could have shown work: had the CPU to go on with a cut call (its
// CPU would show), or to read the cancel in time (it would stop). A
// server starved of CPU does neither in time, and shows neither: a server
// written to stop that has not yet read the cancel goes on past the grace
// and burns next to nothing doing so. Nor can mcpchaos see late messages in
// time when it is itself starved. The run-queue wait of the server's
// threads (schedstat) and our own stalls (the engine's read lag) say when
// that was so, and the verdict is then not_observable, not pass.

// clientStallShare: mcpchaos stalled for at least this share of the load.
const clientStallShare = 0.5

// starved says why "no work seen" proves nothing for lack of CPU, or ""
// when it does: only when the process probe is the server-side evidence
// (a count or log probe sees calls run whatever the CPU).
func starved(c summary.Cancellation) string {
	if c.Counting > 0 || (c.Log != nil && c.Log.Matched > 0) || c.ProcessCPU == nil {
		return ""
	}
	var why []string
	if w := c.Windows; w.Starved > 0 {
		why = append(why, fmt.Sprintf("in %d of %s the server's threads waited for a CPU longer than any leftover work "+
			"could be told from noise (%s)", w.Starved, summary.Plural(w.Count, "quiet window"), starvedWindow(w)))
	}
	if n := c.LateQueued - c.LateQueuedPrompt; n > 0 {
		why = append(why, fmt.Sprintf("%s later than cancel + grace came before a slow answer (or none) to a ping sent then: "+
			"the server had not read its input by cancel + grace, so whether it wrote them before or after is unknown",
			summary.Plural(n, "message")))
	}
	if p := lateCutPings(c.CutPings); p != "" {
		why = append(why, p)
	}
	if cl := c.Client; cl != nil && cl.Share >= clientStallShare {
		why = append(why, fmt.Sprintf("mcpchaos itself stalled for %s of the load's %s (%.0f%%): late messages were read late",
			summary.FormatMs(cl.StalledMs), summary.FormatMs(cl.LoadMs), 100*cl.Share))
	}
	if len(why) == 0 {
		return ""
	}
	return "the machine was short of CPU: " + strings.Join(why, "; ") +
		" (a server that has not had the CPU to read a cancel goes on past the grace and burns next to nothing: run where the server and mcpchaos get the CPU they ask for)"
}

// starvedWindow names the starved window with the most run-queue wait.
func starvedWindow(w summary.Windows) string {
	var best *summary.Window
	for i := range w.List {
		if x := &w.List[i]; x.Starved && (best == nil || x.RunWaitS > best.RunWaitS) {
			best = x
		}
	}
	if best == nil {
		return "windows not listed"
	}
	return fmt.Sprintf("the window at %s into the load: %s of CPU above idle, %s waiting for a CPU (threshold %s)",
		summary.FormatMs(best.StartMs), summary.FormatMs(best.LeftoverCPUS*1000), summary.FormatMs(best.RunWaitS*1000), summary.FormatMs(best.WaitThresholdS*1000))
}
