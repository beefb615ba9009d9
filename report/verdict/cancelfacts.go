package verdict

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// The cancellation verdict's facts from the quiet windows and from the
// processes a stdio server left behind.

// leftoverFact is the cancellation verdict's evidence of leftover
// processes, or "".
func leftoverFact(p *summary.ServerProcesses) string {
	if p == nil || p.Leftover == 0 {
		return ""
	}
	what := "killed at the end"
	if p.LeftRunning {
		what = "left running"
	}
	n := fmt.Sprintf("%d processes", p.Leftover)
	if p.Leftover == 1 {
		n = "1 process"
	}
	return fmt.Sprintf("%s the server started still running after it exited (%s)", n, what)
}

// windowsFact says what the quiet windows saw, the one with the most
// leftover CPU named so it can be held against the server's own log: when
// it started, the calls it cut, the CPU above idle it measured and its
// threshold.
func windowsFact(w summary.Windows) string {
	f := fmt.Sprintf("%d of %s showed leftover work after cancelling every call: %s CPU (±%s idle noise) in %s of measurement",
		w.Above, summary.Plural(w.Count, "quiet window"), summary.FormatMs(w.LeftoverCPUS*1000), summary.FormatMs(w.NoiseCPUS*1000), summary.FormatMs(w.MeasuredMs))
	if w.OrphanedMax > 0 {
		f += fmt.Sprintf(", up to %s calls still running", summary.FormatNum(w.OrphanedMax))
	}
	f += windowsSource(w) + burstsNote(w)
	if worst := worstWindow(w); worst != "" {
		f += "; " + worst
	}
	return f
}

// worstWindow names the window with the most leftover CPU, bursts left
// out.
func worstWindow(w summary.Windows) string {
	var best *summary.Window
	for i, x := range w.List {
		if !x.Burst && (best == nil || x.LeftoverCPUS-x.ThresholdS > best.LeftoverCPUS-best.ThresholdS) {
			best = &w.List[i]
		}
	}
	if best == nil {
		return ""
	}
	return fmt.Sprintf("the window at %s into the load cut %s, then %s of CPU above idle (threshold %s) over %s",
		summary.FormatMs(best.StartMs), summary.Plural(best.Cancelled, "call"), summary.FormatMs(best.LeftoverCPUS*1000), summary.FormatMs(best.ThresholdS*1000), summary.FormatMs(best.MeasuredMs))
}

// summedAbove: two or more windows cut calls and their leftover CPU,
// summed, exceeds the summed threshold, though no window alone did.
func summedAbove(w summary.Windows) bool {
	return w.Above == 0 && w.CutCount >= 2 && w.CutLeftoverCPUS > w.CutThresholdS
}

// summedFact says what the windows that cut calls showed together.
func summedFact(w summary.Windows) string {
	return fmt.Sprintf("the %d quiet windows that cut calls showed %s of CPU above idle together, over their summed threshold %s "+
		"(none alone over its own)%s", w.CutCount, summary.FormatMs(w.CutLeftoverCPUS*1000), summary.FormatMs(w.CutThresholdS*1000), windowsSource(w))
}

// windowsReach says which cuts the quiet windows weighed: the calls they
// cut and the fault cut each began at. The others had the wire's evidence
// and the reading after the load only: a leftover that ended before the
// next window is seen by neither (issue 25, item 6).
func windowsReach(w summary.Windows, cuts int) string {
	weighed := min(w.Cancelled+w.Followed, cuts)
	s := fmt.Sprintf("; they weighed %d of the %d cuts", weighed, cuts)
	if w.Followed > 0 {
		var parts []string
		if w.Cancelled > 0 {
			parts = append(parts, fmt.Sprintf("the %d they made", w.Cancelled))
		}
		parts = append(parts, summary.Plural(w.Followed, "fault cut")+" they began at")
		s += " (" + strings.Join(parts, " and ") + ")"
	}
	if rest := cuts - weighed; rest > 0 {
		s += fmt.Sprintf(", the other %d the wire and the reading after the load only", rest)
	}
	return s
}

// burstsNote says which windows' leftover CPU was a burst, not counted
// (summary.Window.Burst): after an idle grace, or in short time slices
// (SliceBurst); "" when none was.
func burstsNote(w summary.Windows) string {
	s := ""
	if n := w.Bursts - w.SliceBursts; n > 0 {
		s += "; " + burstsWhat(w, n, false) + " began after a grace that ended with the server idle: a burst of its own " +
			"(a runtime collecting garbage once the load stops, a timer), not a cut call's work, not counted"
	}
	if w.SliceBursts > 0 {
		s += "; " + burstsWhat(w, w.SliceBursts, true) + " came in time slices under half of those the server's " +
			"threads ran the load in" + sliceFigures(w) + ", the kernel ending under 60% of its computing threads' slices: the runtime's own work " +
			"(a collector on its threads), where a cut call going on computes in slices about as long as the load's, not counted"
	}
	return s
}

// counted reports whether a window of the list was counted in the sums
// (not one beside a task running on after its tasks/cancel).
func counted(x summary.Window) bool { return x.TasksRunningOn == 0 }

// burstsWhat names n bursts of one kind (slice bursts or the others), with
// their CPU when the list holds every one: it may be one shard's of a
// shared server, or cut at 1000.
func burstsWhat(w summary.Windows, n int, slice bool) string {
	k, cpu := 0, 0.0
	for _, x := range w.List {
		if counted(x) && x.Burst && x.SliceBurst == slice {
			k++
			cpu += x.LeftoverCPUS
		}
	}
	if k != n {
		return "the CPU of " + summary.Plural(n, "window")
	}
	return summary.FormatMs(cpu*1000) + " of CPU in " + summary.Plural(n, "window")
}

// sliceFigures gives the longest slice of the slice burst nearest to the
// load's (the largest share of it) against the load's, "" when the list
// holds none.
func sliceFigures(w summary.Windows) string {
	var near *summary.Window
	for i, x := range w.List {
		if counted(x) && x.SliceBurst && x.CPUBound != nil && x.LoadSliceMs > 0 &&
			(near == nil || x.CPUBound.LongestSliceMs/x.LoadSliceMs > near.CPUBound.LongestSliceMs/near.LoadSliceMs) {
			near = &w.List[i]
		}
	}
	if near == nil {
		return ""
	}
	of := ""
	if w.SliceBursts > 1 {
		of = ", the nearest of them"
	}
	return " (" + summary.FormatMs(near.CPUBound.LongestSliceMs) + " a slice at the longest against " +
		summary.FormatMs(near.LoadSliceMs) + of + ")"
}

// waitBurstsNote says how many windows' run-queue wait was a burst, not
// counted as starved (summary.Window.WaitBurst); "" when none was.
func waitBurstsNote(w summary.Windows) string {
	if w.WaitBursts == 0 {
		return ""
	}
	return "; in " + summary.Plural(w.WaitBursts, "window") + " the server's threads waited for a CPU only after a grace " +
		"that ended with them wanting none, or only for each other: a burst of its own (a runtime's collector on more threads than CPUs), not a starved cut call, not counted"
}

// windowsSource says who asked for the windows, when mcpchaos did.
func windowsSource(w summary.Windows) string {
	if !w.Auto {
		return ""
	}
	return " (windows taken by mcpchaos: the process probe was the only server-side evidence" + summary.ExtensionNote(w) + ")"
}
