package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// lostCancelProgress judges the progress of a run through a gateway some of
// whose after_cancel notifications came on calls whose cancel the targets'
// records show never reached them (the gateway's), or cannot say: the
// server is judged without them, the evidence says so, and the unsure
// ones keep the verdict from a pass (not_observable). ok is false when
// that does not apply.
func lostCancelProgress(s *summary.Summary, ev evidence) (v summary.Verdict, ok bool) {
	g, p := s.Gateway, s.Progress.Violations
	if g == nil || p.AfterCancel == 0 || g.ProgressAfterLostCancel+g.ProgressAfterCancelUnknown == 0 {
		return v, false
	}
	lost := min(p.AfterCancel, g.ProgressAfterLostCancel)
	unsure := min(p.AfterCancel-lost, g.ProgressAfterCancelUnknown)
	judged, gw := *s, *g
	gw.ProgressAfterLostCancel, gw.ProgressAfterCancelUnknown = 0, 0
	judged.Gateway = &gw
	judged.Progress.Violations.AfterCancel -= lost + unsure
	judged.Progress.Violations.Total -= lost + unsure
	v = progressVerdict(&judged, ev)
	if lost > 0 {
		v.Evidence += fmt.Sprintf("; %s after our cancel on calls whose cancel the target never learned of "+
			"(gateway.progress_after_lost_cancel %d, with gateway.lost_cancels %d: %s): the gateway lost the cancel, "+
			"so they are the gateway's, not the server's", summary.Plural(lost, "notification"), g.ProgressAfterLostCancel,
			g.LostCancels, firstOf(g.Evidence["progress_after_lost_cancel"]))
	}
	if unsure > 0 {
		if v.Status == summary.StatusPass {
			v.Status = summary.StatusNotObservable
		}
		v.Evidence += fmt.Sprintf("; %s after our cancel on calls whose records cannot say whether the cancel reached "+
			"the target (gateway.progress_after_cancel_unknown %d: %s): counted against neither",
			summary.Plural(unsure, "notification"), g.ProgressAfterCancelUnknown, firstOf(g.Evidence["progress_after_cancel_unknown"]))
	}
	return v, true
}
