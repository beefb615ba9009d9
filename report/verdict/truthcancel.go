package verdict

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// judgeByTruth settles a cancellation verdict that no probe could observe
// with the records of the built-in targets behind a gateway
// (gateway.truth), which say what became of each call we stopped: all
// stopped → pass; one ran on after a cancel → violation; ran on only
// after plain disconnects of a 2025 era → expected legacy behaviour; any
// unknown (no record, or one that never ended) leaves it not_observable,
// with what the records do show. v is the not_observable verdict built
// without them; without a gateway section it is returned as it is.
func judgeByTruth(s *summary.Summary, v summary.Verdict, stopped string, facts []string) summary.Verdict {
	g := s.Gateway
	if g == nil {
		return v
	}
	c, d := g.Stops.Cancelled, g.Stops.Disconnected
	if c.Total()+d.Total() == 0 {
		return v
	}
	records := fmt.Sprintf("the targets' records (gateway.truth) of the calls we stopped: cancelled %d stopped, %d ran on, %d unknown; "+
		"disconnected %d stopped, %d ran on, %d unknown", c.Stopped, c.RanOn, c.Unknown, d.Stopped, d.RanOn, d.Unknown)
	examples := func(keys ...string) string {
		var e []string
		for _, k := range keys {
			e = append(e, g.Evidence[k]...)
		}
		return strings.Join(e[:min(len(e), 3)], "; ")
	}
	tail := ""
	if len(facts) > 0 {
		tail = "; " + strings.Join(facts, "; ")
	}
	unknown := func() {
		v.Evidence += "; " + records + " (" + examples("stops.cancelled.unknown", "stops.disconnected.unknown") + ")"
	}
	legacy := vocab.IsLegacy(s.Era)
	// Work seen after a cancel is a violation whatever else is unknown; a
	// cancelled call whose fate is unknown keeps the verdict from anything
	// milder (a 2025 disconnect that ran on is expected, but says nothing
	// of the cancels).
	switch {
	case c.RanOn > 0:
		v.Status = summary.StatusViolation
		v.Evidence = fmt.Sprintf("%s: %s (%s)%s", stopped, records, examples("stops.cancelled.ran_on"), tail)
	case d.RanOn > 0 && !legacy:
		v.Status = summary.StatusViolation
		v.Evidence = fmt.Sprintf("%s: %s (%s) (from %s a disconnect is a cancel)%s", stopped, records, examples("stops.disconnected.ran_on"), vocab.FirstModern, tail)
	case c.Unknown > 0:
		unknown()
	case d.RanOn > 0:
		v.Status = summary.StatusLegacy
		v.Evidence = fmt.Sprintf("%s; in %s a disconnect is not a cancel: %s (%s)%s", stopped, s.Era, records, examples("stops.disconnected.ran_on"), tail)
	case d.Unknown > 0:
		unknown()
	default:
		v.Status = summary.StatusPass
		seen := "; no work seen after a cancel: "
		if s.Tasks.Leftover > 0 {
			seen = "; no work of a call seen after its cancel: "
		}
		v.Evidence = stopped + seen + records + tail
	}
	return v
}
