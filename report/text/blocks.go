package text

import (
	"fmt"
	"math"
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
	items := []string{fmt.Sprintf("quiet windows %d (%d calls cancelled, %d ticks not offered%s)", w.Count, w.Cancelled, w.SkippedTicks, auto),
		"leftover CPU " + summary.FormatMs(w.LeftoverCPUS*1000) + " ± " + summary.FormatMs(w.NoiseCPUS*1000) + " in " + summary.FormatMs(w.MeasuredMs)}
	if w.TasksRunningOn > 0 {
		items = append(items, fmt.Sprintf("%d not judged: a task ran on after tasks/cancel", w.TasksRunningOn))
	}
	t.items("", items...)
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
func (s view) textGateway(t *textOut) { t.block("Gateway", s.Gateway.Lines()) }

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
		if c.CPUs > 0 {
			items = append(items, fmt.Sprintf("client CPU %.0f%% of its %d over the load", 100*c.CPUShare, c.CPUs))
		}
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
func (s view) textTasks(t *textOut) { t.block("Tasks", s.Tasks.Lines()) }

// textMRTR writes the Input block: only when a server asked for input.
func (s view) textMRTR(t *textOut) { t.block("Input", s.MRTR.Lines()) }
