package verdict

import (
	"fmt"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// lateCutPings says which cuts the server may not have seen in time, or
// "" when it answered every ping within the grace.
func lateCutPings(p *summary.CutPings) string {
	if p == nil || p.Late == 0 {
		return ""
	}
	return fmt.Sprintf("the server answered the ping sent right after %d of %s only after cut + grace "+
		"(the slowest in %s, grace %s): it may not have had the CPU to see those cuts in time",
		p.Late, summary.Plural(p.Cuts, "cut"), summary.FormatMs(p.WorstMs), summary.FormatMs(p.GraceMs))
}
