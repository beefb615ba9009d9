package report

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/results"
)

// Progress after a cancel the gateway lost. A call's progress that reached
// us later than our cancel plus the grace counts as after_cancel against
// the server: it went on after it could have seen the cancel. Through a
// gateway, the targets' records say whether it could: when no execution
// of the call ever learned of the cancel and one ran on past it (a lost
// cancel, lostCancel), the server was never told to stop, and its
// progress is the gateway's (gateway.progress_after_lost_cancel), not a
// progress violation of the server. When the records cannot say (no
// target recorded the call, or its record shows nothing past the cancel),
// the notifications are neither's for certain
// (gateway.progress_after_cancel_unknown), and the progress verdict is
// kept from a pass. A call an execution of which learned of the cancel is
// judged as without a gateway.

// judgeLateProgress sorts the after_cancel notifications of a call we
// cancelled by whether its executions (ex) learned of the cancel.
func (g *Gateway) judgeLateProgress(c *GatewayCall, ex []*results.TruthCall) {
	if c.AfterCancel == 0 || c.Cancelled.IsZero() || (!c.Response.IsZero() && c.Response.Before(c.Cancelled)) {
		return
	}
	for _, t := range ex {
		if !t.Cancelled.IsZero() || !t.StreamClosed.IsZero() {
			return // the target was told: the server's
		}
	}
	n := plural(c.AfterCancel, "notification")
	if len(ex) == 0 {
		g.ProgressAfterCancelUnknown += c.AfterCancel
		g.note("progress_after_cancel_unknown", "%s: %s after our cancel, and no target recorded the call", c.Marker, n)
		return
	}
	if why := lostCancel(ex, c.Cancelled, c.echoedAt()); why != "" {
		g.ProgressAfterLostCancel += c.AfterCancel
		g.note("progress_after_lost_cancel", "%s: %s after our cancel; the call %s, which never learned of the cancel", c.Marker, n, why)
		return
	}
	g.ProgressAfterCancelUnknown += c.AfterCancel
	g.note("progress_after_cancel_unknown", "%s: %s after our cancel; its records never learned of the cancel, "+
		"but show no work past it either (it ended within %s of it, or its record never ended)", c.Marker, n, msText(lostCancelMargin))
}

// lostCancelProgress judges the progress of a run through a gateway some of
// whose after_cancel notifications came on calls whose cancel the targets'
// records show never reached them (the gateway's), or cannot say: the
// server is judged without them, the evidence says so, and the unsure
// ones keep the verdict from a pass (not_observable). ok is false when
// that does not apply.
func lostCancelProgress(s *Summary, ev evidence) (v Verdict, ok bool) {
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
			"so they are the gateway's, not the server's", plural(lost, "notification"), g.ProgressAfterLostCancel,
			g.LostCancels, firstOf(g.evidence["progress_after_lost_cancel"]))
	}
	if unsure > 0 {
		if v.Status == StatusPass {
			v.Status = StatusNotObservable
		}
		v.Evidence += fmt.Sprintf("; %s after our cancel on calls whose records cannot say whether the cancel reached "+
			"the target (gateway.progress_after_cancel_unknown %d: %s): counted against neither",
			plural(unsure, "notification"), g.ProgressAfterCancelUnknown, firstOf(g.evidence["progress_after_cancel_unknown"]))
	}
	return v, true
}
