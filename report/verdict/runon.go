package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// Tasks that run on after tasks/cancel: the spec allows it (cancelling a
// task is cooperative), so their work is reported (tasks.leftover,
// tasks.ran_on_ms), never held against the server. The engine follows
// such a task until its work ends; a quiet window measured while one ran
// on, and the reading after the load while one still did, are not judged
// (summary.Window.TasksRunningOn, Cancellation.TasksRunningOn): what they
// saw may be the task's.

// runOnFact says that the reading after the load was not judged, and what
// it was; "" when no task ran on then.
func runOnFact(c summary.Cancellation, cpuLimit float64) string {
	if c.TasksRunningOn == 0 {
		return ""
	}
	f := fmt.Sprintf("%s still working after tasks/cancel when the probes were read after the load: not judged",
		summary.Plural(c.TasksRunningOn, "task"))
	switch {
	case c.Orphaned > 0 && c.LeftoverCPUS > cpuLimit:
		f += fmt.Sprintf(" (%s running, leftover CPU %s)", summary.FormatNum(c.Orphaned), summary.FormatMs(c.LeftoverCPUS*1000))
	case c.Orphaned > 0:
		f += fmt.Sprintf(" (%s running)", summary.FormatNum(c.Orphaned))
	case c.LeftoverCPUS > cpuLimit:
		f += fmt.Sprintf(" (leftover CPU %s)", summary.FormatMs(c.LeftoverCPUS*1000))
	}
	return f
}

// runOnHides says why the probes cannot judge the calls cut in a run whose
// tasks ran on after tasks/cancel while the probes measured; "" when no
// task did, when every cut was a task's (the tasks are reported on their
// own), or when a probe judges every call whatever the tasks do: a
// counting probe (its leaked work leaves the tasks out) or a log probe
// (it leaves task calls out). A quiet window measured beside no task
// judges only the calls it cut, so one clean window is not enough: the
// calls cut elsewhere may be the ones that ran on.
func runOnHides(s *summary.Summary, ev evidence) string {
	c := s.Cancellation
	if c.TasksRunningOn == 0 && c.Windows.TasksRunningOn == 0 {
		return ""
	}
	calls := c.Cancels + ev.disconnects - s.Tasks.CancelSent
	if calls <= 0 || c.Counting > 0 || (c.Log != nil && c.Log.Matched > 0) {
		return ""
	}
	what := summary.Plural(c.Windows.TasksRunningOn, "quiet window")
	if c.TasksRunningOn > 0 {
		what = "the reading after the load"
		if c.Windows.TasksRunningOn > 0 {
			what = summary.Plural(c.Windows.TasksRunningOn, "quiet window") + " and the reading after the load"
		}
	}
	return fmt.Sprintf("tasks ran on after tasks/cancel (allowed) while the probes measured (%s), so the work they saw after the %s cut may be the tasks'",
		what, summary.Plural(calls, "call"))
}

// runOnWindowsNote says how many quiet windows were not judged because a
// task ran on after its tasks/cancel while they measured; "" when none.
func runOnWindowsNote(w summary.Windows) string {
	if w.TasksRunningOn == 0 {
		return ""
	}
	return fmt.Sprintf("; %s not judged: a task ran on after tasks/cancel while it measured", summary.Plural(w.TasksRunningOn, "quiet window"))
}
