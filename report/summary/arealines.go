package summary

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The lines of the areas that are shown only when they happened: the
// input servers asked for (MRTR), the tasks they made and the gateway.
// Each line is a list of items, worded as the text summary prints them
// after the area's label; the HTML report shows the same lines. nil: the
// area did not happen, and no rendering shows it.

// Lines returns the Input block: only when a server asked for input.
func (m MRTR) Lines() [][]string {
	if !m.Asked() {
		return nil
	}
	lines := [][]string{{fmt.Sprintf("%d input_required", m.InputRequired), fmt.Sprintf("%d load shed", m.LoadShed),
		fmt.Sprintf("%d rounds on %d calls", m.Rounds, m.Calls),
		fmt.Sprintf("elicitation %d", m.Elicitation), fmt.Sprintf("sampling %d", m.Sampling), fmt.Sprintf("roots %d", m.Roots)}}
	if m.ThinkMs.Count > 0 {
		lines = append(lines, []string{"think p50 " + fmtMs(m.ThinkMs.P50), "p99 " + fmtMs(m.ThinkMs.P99),
			"server p50 " + fmtMs(m.ServerMs.P50), "p99 " + fmtMs(m.ServerMs.P99)})
	}
	return lines
}

// Lines returns the Tasks block: only when a server made tasks.
func (k Tasks) Lines() [][]string {
	if k.Created == 0 { // no task: nothing of this block happened
		return nil
	}
	lines := [][]string{{fmt.Sprintf("%d created", k.Created), fmt.Sprintf("%d completed", k.Completed),
		fmt.Sprintf("%d failed", k.Failed), fmt.Sprintf("%d cancelled", k.Cancelled),
		fmt.Sprintf("%d polls (%d throttled)", k.Polls, k.PollThrottled), fmt.Sprintf("%d updates", k.Updates)}}
	if k.Listened > 0 {
		lines = append(lines, []string{fmt.Sprintf("%d listened", k.Listened), fmt.Sprintf("%d notifications/tasks", k.Pushed)})
	}
	if k.CancelSent > 0 {
		line := []string{fmt.Sprintf("%d tasks/cancel sent", k.CancelSent), fmt.Sprintf("%d leftover (ran on: information)", k.Leftover)}
		if r := k.RanOnMs; r.Count > 0 {
			line = append(line, fmt.Sprintf("%d ended p50 %s", r.Count, fmtMs(r.P50)), "max "+fmtMs(r.Max)+" after tasks/cancel")
		}
		lines = append(lines, line)
	}
	if k.LatencyMs.Count > 0 {
		lines = append(lines, []string{"creation to end p50 " + fmtMs(k.LatencyMs.P50), "p99 " + fmtMs(k.LatencyMs.P99)})
	}
	return lines
}

// Lines returns the Gateway block: only with a gateway section (g not
// nil). The misbehaviours are named by their keys, with spaces.
func (g *GatewaySummary) Lines() [][]string {
	if g == nil {
		return nil
	}
	eras := "eras none"
	if len(g.EraSeen) > 0 {
		var parts []string
		for _, e := range slices.Sorted(maps.Keys(g.EraSeen)) {
			parts = append(parts, fmt.Sprintf("%s %d", e, g.EraSeen[e]))
		}
		eras = "eras " + strings.Join(parts, ", ")
	}
	lines := [][]string{{fmt.Sprintf("%s, %d executions on %s", plural(g.Calls, "call"), g.Executions, plural(len(g.Truth), "target")),
		fmt.Sprintf("not seen %d", g.NotSeen), eras}}
	var counts []string
	for _, k := range g.Misbehaviours() {
		counts = append(counts, fmt.Sprintf("%s %d", strings.ReplaceAll(k.Key, "_", " "), k.N))
	}
	lines = append(lines, counts)
	if g.Unrecorded+g.Unended+g.TruthUnread+g.EchoesAfterTruth > 0 {
		items := []string{fmt.Sprintf("incomplete truth: unrecorded %d", g.Unrecorded), fmt.Sprintf("unended %d", g.Unended),
			fmt.Sprintf("truth unread %d", g.TruthUnread)}
		if g.EchoesAfterTruth > 0 {
			items = append(items, fmt.Sprintf("echoes after the truth %d", g.EchoesAfterTruth))
		}
		lines = append(lines, items)
	}
	for _, st := range []struct {
		what string
		n    StopCounts
	}{{"cancelled", g.Stops.Cancelled}, {"disconnected", g.Stops.Disconnected}} {
		if st.n.Total() > 0 {
			lines = append(lines, []string{fmt.Sprintf("%s calls at the targets: %d stopped, %d ran on, %d unknown", st.what, st.n.Stopped, st.n.RanOn, st.n.Unknown)})
		}
	}
	if g.LagMs.Count > 0 {
		lines = append(lines, []string{fmt.Sprintf("progress lag p50 %s   p99 %s   max %s (%d notifications)",
			fmtMs(g.LagMs.P50), fmtMs(g.LagMs.P99), fmtMs(g.LagMs.Max), g.LagMs.Count)})
	}
	for _, e := range g.Errors {
		lines = append(lines, []string{"truth: " + e})
	}
	return lines
}
