package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// reorderedProgress judges the progress of a run through a gateway whose
// only progress violations are notifications after the final response
// that the targets' records show they sent before it
// (gateway.progress_reordered): the hop between us and the target
// reordered them (the Inspector's proxy relays a 2025 session's progress
// on its GET stream, which can overtake the POST's answer), so the
// server is judged as if they had come in order, and the gateway verdict
// counts them. ok is false when that does not apply.
func reorderedProgress(s *summary.Summary, ev evidence) (v summary.Verdict, ok bool) {
	g, p := s.Gateway, s.Progress.Violations
	if g == nil || p.AfterResponse == 0 || p.Total != p.AfterResponse || p.AfterResponse > g.ProgressReordered {
		return v, false
	}
	inOrder := *s
	inOrder.Progress.Violations = summary.ProgressViolations{}
	v = progressVerdict(&inOrder, ev)
	v.Evidence += fmt.Sprintf("; %s after the final response, each sent by the target before its result "+
		"(gateway.progress_reordered %d): reordered by the gateway, not the server", summary.Plural(p.AfterResponse, "notification"), g.ProgressReordered)
	return v, true
}
