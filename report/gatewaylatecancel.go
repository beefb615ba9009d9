package report

import (
	"github.com/mcpchaos/mcpchaos/report/summary"
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
	n := summary.Plural(c.AfterCancel, "notification")
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
