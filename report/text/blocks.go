package text

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
	"github.com/mcpchaos/mcpchaos/results"
)

// The blocks of the areas that print only when they happened (tasks,
// input, the gateway, the client's own limits) and the lines under the
// cancellation block; and the column format the tables share.

// durColumn formats a column of durations given in milliseconds in one
// unit, chosen from the column's largest value: µs below 1 ms, ms below
// 10 s, s from there. The decimals show the largest value to three
// significant figures, and more (up to three) when the smallest non-zero
// value would otherwise print as 0: [0.85 120] gives 1ms, 120ms;
// [1.2 6200] gives 1ms, 6200ms; [0.2 45] gives 0.2ms, 45.0ms; [260 12000]
// gives 0.3s, 12.0s.
func durColumn(ms []float64) []string {
	largest, smallest := 0.0, math.Inf(1)
	for _, v := range ms {
		largest = max(largest, math.Abs(v))
		if v != 0 {
			smallest = min(smallest, math.Abs(v))
		}
	}
	unit, scale := "ms", 1.0
	switch {
	case largest < 1:
		unit, scale = "µs", 1000
	case largest >= 10_000:
		unit, scale = "s", 0.001
	}
	decimals := 0 // µs are whole: the histograms count microseconds
	if l := largest * scale; l > 0 && unit != "µs" {
		decimals = max(0, 2-int(math.Floor(math.Log10(l))))
	}
	if unit != "µs" {
		for decimals < 3 && smallest*scale < 0.5*math.Pow(10, -float64(decimals)) {
			decimals++
		}
	}
	out := make([]string, len(ms))
	for i, v := range ms {
		if v == 0 {
			out[i] = "0" + unit
			continue
		}
		out[i] = strconv.FormatFloat(v*scale, 'f', decimals, 64) + unit
	}
	return out
}

// textWindows prints the quiet windows' sum, when there were any.
func textWindows(t *textOut, c summary.Cancellation) {
	w := c.Windows
	if w.Count == 0 {
		return
	}
	auto := ""
	if w.Auto {
		auto = ", taken by mcpchaos: the process probe was the only server-side evidence" + summary.ExtensionNote(w)
	}
	t.items("", fmt.Sprintf("quiet windows %d (%d calls cancelled, %d ticks not offered%s)", w.Count, w.Cancelled, w.SkippedTicks, auto),
		"leftover CPU "+summary.FormatMs(w.LeftoverCPUS*1000)+" ± "+summary.FormatMs(w.NoiseCPUS*1000)+" in "+summary.FormatMs(w.MeasuredMs))
}

// textServerProcesses writes the notes, one per line.
func textServerProcesses(t *textOut, p *summary.ServerProcesses) {
	if p == nil {
		return
	}
	for _, n := range p.Notes {
		t.line("", strings.TrimSpace(n))
	}
}

// textGateway writes the gateway block (only with a gateway section).
func (s view) textGateway(t *textOut) {
	g := s.Gateway
	if g == nil {
		return
	}
	eras := "eras none"
	if len(g.EraSeen) > 0 {
		var parts []string
		for _, e := range slices.Sorted(maps.Keys(g.EraSeen)) {
			parts = append(parts, fmt.Sprintf("%s %d", e, g.EraSeen[e]))
		}
		eras = "eras " + strings.Join(parts, ", ")
	}
	t.items("Gateway", fmt.Sprintf("%s, %d executions on %s", summary.Plural(g.Calls, "call"), g.Executions, summary.Plural(len(g.Truth), "target")),
		fmt.Sprintf("not seen %d", g.NotSeen), eras)
	var counts []string
	for _, k := range g.Misbehaviours() {
		counts = append(counts, fmt.Sprintf("%s %d", strings.ReplaceAll(k.Key, "_", " "), k.N))
	}
	t.items("", counts...)
	if g.Unrecorded+g.Unended+g.TruthUnread+g.EchoesAfterTruth > 0 {
		items := []string{fmt.Sprintf("incomplete truth: unrecorded %d", g.Unrecorded), fmt.Sprintf("unended %d", g.Unended),
			fmt.Sprintf("truth unread %d", g.TruthUnread)}
		if g.EchoesAfterTruth > 0 {
			items = append(items, fmt.Sprintf("echoes after the truth %d", g.EchoesAfterTruth))
		}
		t.items("", items...)
	}
	for _, st := range []struct {
		what string
		n    summary.StopCounts
	}{{"cancelled", g.Stops.Cancelled}, {"disconnected", g.Stops.Disconnected}} {
		if st.n.Total() > 0 {
			t.items("", fmt.Sprintf("%s calls at the targets: %d stopped, %d ran on, %d unknown", st.what, st.n.Stopped, st.n.RanOn, st.n.Unknown))
		}
	}
	if g.LagMs.Count > 0 {
		t.items("", fmt.Sprintf("progress lag p50 %s   p99 %s   max %s (%d notifications)",
			summary.FormatMs(g.LagMs.P50), summary.FormatMs(g.LagMs.P99), summary.FormatMs(g.LagMs.Max), g.LagMs.Count))
	}
	for _, e := range g.Errors {
		t.items("", "truth: "+e)
	}
}

// textClientLimits writes the Client block: only when a limit was hit.
func (s view) textClientLimits(t *textOut) {
	c := s.ClientLimits
	if !c.Hit {
		return
	}
	var items []string
	for _, x := range []struct {
		n    int
		name string
	}{{c.FDs, results.LimitFDs}, {c.Ports, results.LimitPorts}, {c.Memory, results.LimitMemory}} {
		if x.n > 0 {
			items = append(items, fmt.Sprintf("%d calls not made: %s", x.n, x.name))
		}
	}
	if c.CPU {
		items = append(items, fmt.Sprintf("pacer late %d ticks (> %s behind; max %s; %s of the schedule; %s behind at the end)", c.PacerLate,
			summary.FormatMs(c.PacerBoundMs), summary.FormatMs(c.PacerMaxLagMs), summary.FormatMs(c.PacerLateSpanMs), summary.FormatMs(c.PacerEndLagMs)))
	}
	t.items("Client limit", items...)
	var more []string
	more = append(more, c.Advice...)
	for _, l := range []string{results.LimitFDs, results.LimitPorts, results.LimitMemory} {
		if e := c.Example[l]; e != "" {
			more = append(more, "e.g. "+e)
		}
	}
	for _, m := range more {
		for _, l := range wrap(m, lineWidth-labelWidth) {
			t.line("", l)
		}
	}
}

// textTasks writes the Tasks block: only when a server made tasks.
func (s view) textTasks(t *textOut) {
	k := s.Tasks
	if k.Created == 0 {
		return
	}
	t.items("Tasks", fmt.Sprintf("%d created", k.Created), fmt.Sprintf("%d completed", k.Completed),
		fmt.Sprintf("%d failed", k.Failed), fmt.Sprintf("%d cancelled", k.Cancelled),
		fmt.Sprintf("%d polls (%d throttled)", k.Polls, k.PollThrottled), fmt.Sprintf("%d updates", k.Updates))
	if k.Listened > 0 {
		t.items("", fmt.Sprintf("%d listened", k.Listened), fmt.Sprintf("%d notifications/tasks", k.Pushed))
	}
	if k.CancelSent > 0 {
		t.items("", fmt.Sprintf("%d tasks/cancel sent", k.CancelSent), fmt.Sprintf("%d leftover (ran on: information)", k.Leftover))
	}
	if k.LatencyMs.Count > 0 {
		t.items("", "creation to end p50 "+summary.FormatMs(k.LatencyMs.P50), "p99 "+summary.FormatMs(k.LatencyMs.P99))
	}
}

// textMRTR writes the Input block: only when a server asked for input.
func (s view) textMRTR(t *textOut) {
	m := s.MRTR
	asked := m.Elicitation + m.Sampling + m.Roots
	if m.InputRequired+m.LoadShed+asked == 0 {
		return
	}
	t.items("Input", fmt.Sprintf("%d input_required", m.InputRequired), fmt.Sprintf("%d load shed", m.LoadShed),
		fmt.Sprintf("%d rounds on %d calls", m.Rounds, m.Calls),
		fmt.Sprintf("elicitation %d", m.Elicitation), fmt.Sprintf("sampling %d", m.Sampling), fmt.Sprintf("roots %d", m.Roots))
	if m.ThinkMs.Count > 0 {
		t.items("", "think p50 "+summary.FormatMs(m.ThinkMs.P50), "p99 "+summary.FormatMs(m.ThinkMs.P99),
			"server p50 "+summary.FormatMs(m.ServerMs.P50), "p99 "+summary.FormatMs(m.ServerMs.P99))
	}
}
