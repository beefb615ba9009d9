package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// Cuts under contention (issue 25). A quiet window pauses the load: a
// server that goes on with a cut call ends it inside the grace there, and
// may run past it when the load's own calls stretch its work, which no
// window sees and, over Streamable HTTP, no message shows. The engine
// measures in the windows how much of what their cuts had left the server
// went on doing, and, for a server that goes on, gives each fault's cut
// what its call had left at the pace its entry's other calls kept beside
// it (internal/engine/projection.go). Measured against the step servers'
// logs (docs/decisions.md), that pace put no call past the grace in a run
// where none went, and found the ramp's run-ons that nothing else
// sees. So over Streamable HTTP in 2026-07-28, where a cut closes the
// call's stream and nothing can follow, a cut projected past the grace is
// work after it; on stdio, where the wire judges, it is a note.

// projectedPast reports whether a cut after which nothing on the wire can
// follow was projected to end past the grace.
func projectedPast(c *summary.Contention) bool { return c != nil && c.PastGraceBlind > 0 }

// projectedFact is the evidence of a projected run-on; "" without one.
func projectedFact(c *summary.Contention) string {
	if !projectedPast(c) {
		return ""
	}
	return fmt.Sprintf("%d of the faults' %s over Streamable HTTP ran on past the %s grace at the load's pace: the quiet windows saw the server "+
		"do %s of what their cuts had left, and %s (a projection from the load's own pace: a log or count probe would name the calls)",
		c.PastGraceBlind, summary.Plural(c.Blind, "cut"), summary.FormatMs(c.GraceMs), sharePct(c.DoneShare), worstCut(c))
}

// worstCut describes the cut projected to end the latest.
func worstCut(c *summary.Contention) string {
	end := "about " + summary.FormatMs(c.WorstEndMs)
	if c.WorstEndMs >= summary.ContentionHorizonGraces*c.GraceMs {
		end = "not done " + summary.FormatMs(c.WorstEndMs)
	}
	return fmt.Sprintf("the latest, cut %s into the load with %s of its progress left while its kind of call took %s a unit (%s at its quickest), ended %s after its cut",
		summary.FormatMs(c.WorstAtMs), summary.FormatNum(c.WorstLeft), summary.FormatMs(c.WorstPaceMs), summary.FormatMs(c.QuickPaceMs), end)
}

// sharePct formats a share as a whole percentage.
func sharePct(s float64) string { return fmt.Sprintf("%.0f%%", 100*s) }

// contentionNote says, in a pass, what the windows saw the server do after
// its cuts and what the projection of the faults' cuts found; "" when the
// windows could not tell.
func contentionNote(c *summary.Contention) string {
	switch {
	case c == nil || c.DoneShare < 0:
		return ""
	case c.DoneShare < summary.GoesOnShare:
		return fmt.Sprintf("; the quiet windows saw the server do %s of what their cuts had left, as a server that stops does: no cut projected", sharePct(c.DoneShare))
	case c.Cuts == 0:
		return fmt.Sprintf("; the server goes on with a cut call (the quiet windows saw it do %s of what their cuts had left), and none of the "+
			"faults' cuts could be projected (%d with no call of their kind answered around them, or not knowing what they had left)",
			sharePct(c.DoneShare), c.Unpaced)
	case c.PastGrace == 0:
		return fmt.Sprintf("; the server goes on with a cut call (the quiet windows saw it do %s of what their cuts had left), and at the load's pace "+
			"none of the faults' %s ran past the %s grace (%s)", sharePct(c.DoneShare), summary.Plural(c.Cuts, "cut"), summary.FormatMs(c.GraceMs), worstCut(c))
	}
	return fmt.Sprintf("; the server goes on with a cut call (the quiet windows saw it do %s of what their cuts had left), and at the load's pace "+
		"%d of the faults' %s would have run past the %s grace (%s): a projection, and where the wire can follow a cut it judges",
		sharePct(c.DoneShare), c.PastGrace, summary.Plural(c.Cuts, "cut"), summary.FormatMs(c.GraceMs), worstCut(c))
}
