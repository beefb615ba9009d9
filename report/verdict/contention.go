package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// Cuts under contention (issue 25). A quiet window pauses the load: a
// server that goes on with a cut call ends it inside the grace there, and
// may run past it when the load's own calls share the CPUs with it, which
// no window sees and, over Streamable HTTP, no message shows. The engine
// projects each fault's cut through the load's intervals at the share of
// a CPU a call then got, with the work the windows measured a cut call
// costs after its cut (internal/engine/projection.go). The projection is
// information, never a verdict: measured against the step servers' logs
// it found every run-on of the ramp, and it also put past the
// grace the cut calls of loads whose leaked work ended inside it (a share
// of a CPU is known to a factor of two at best: docs/decisions.md). A
// pass says what it projected, so that a user can add the count or log
// probe that tells, or gate on cancellation.contention.past_grace.

// contentionNote says, in a pass, what the projection of the cuts made
// under contention found; "" when no cut met contention.
func contentionNote(c *summary.Contention) string {
	switch {
	case c == nil || c.PastGrace == 0 && c.Contended == 0:
		return ""
	case c.PastGrace == 0:
		return fmt.Sprintf("; %d of the faults' %s met the load's contention, and at %s of CPU a cut (the windows' figure) none would have run past the grace",
			c.Contended, summary.Plural(c.Cuts, "cut"), summary.FormatMs(c.WorkPerCutS*1000))
	}
	end := "about " + summary.FormatMs(c.WorstEndMs)
	if c.WorstEndMs >= summary.ContentionHorizonGraces*c.GraceMs {
		end = "not done " + summary.FormatMs(c.WorstEndMs)
	}
	return fmt.Sprintf("; the server goes on with a cut call for a while: the quiet windows measured %s of CPU a cut call costs it after its cut, with the load paused, "+
		"and projected through the load's contention %d of the %s the faults made during the load may have ended past the %s grace "+
		"(the latest, cut %s into the load with %.1f calls in flight beside it, at %.2f of a CPU: %s after its cut); "+
		"a projection, not a verdict: a count or log probe would tell",
		summary.FormatMs(c.WorkPerCutS*1000), c.PastGrace, summary.Plural(c.Cuts, "cut"), summary.FormatMs(c.GraceMs),
		summary.FormatMs(c.WorstAtMs), c.WorstLive, c.WorstShare, end)
}
