package text

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// The text summary's second half: faults, cancellation, protocol, the
// verdicts and the checks.

// textFaults is a table: per kind, how many acted, how many were skipped,
// and the timing error (when it acted − when it was meant to).
func (s view) textFaults(t *textOut) {
	if len(s.Faults) == 0 {
		t.line("Faults", "none")
		return
	}
	kinds := slices.Sorted(maps.Keys(s.Faults))
	width := labelWidth + 2
	var p50, p99, mx []float64
	for _, k := range kinds {
		width = max(width, len(k)+3)
		e := s.Faults[k].TimingErrorMs
		p50, p99, mx = append(p50, e.P50), append(p99, e.P99), append(mx, e.Max)
	}
	p50s, p99s, maxs := durColumn(p50), durColumn(p99), durColumn(mx)
	skippedNote := ""
	for _, k := range kinds {
		if s.Faults[k].Skipped > 0 {
			skippedNote = t.note(noteSkipped)
		}
	}
	const row = "%-*s%9s%10s%12s%9s%9s   %s\n"
	head := fmt.Sprintf(row, width, "Faults", "injected", "skipped", "timing p50", "p99", "max", "")
	t.b.WriteString(strings.TrimRight(head, " \n") + "\n")
	for i, k := range kinds {
		f := s.Faults[k]
		skipped := fmt.Sprint(f.Skipped)
		if f.Skipped > 0 {
			skipped += skippedNote
		}
		var extra []string
		if f.Unexpected > 0 {
			extra = append(extra, fmt.Sprintf("unexpected answers %d", f.Unexpected))
		}
		if f.Refused > 0 {
			extra = append(extra, fmt.Sprintf("refused %d", f.Refused))
		}
		for _, name := range slices.Sorted(maps.Keys(f.Server)) {
			extra = append(extra, fmt.Sprintf("server %s %d", name, f.Server[name]))
		}
		line := fmt.Sprintf(row, width, "  "+k, fmt.Sprint(f.Injected), skipped, p50s[i], p99s[i], maxs[i],
			strings.Join(extra, itemGap))
		t.b.WriteString(strings.TrimRight(line, " \n") + "\n")
	}
}

// textCancellation prints the wire evidence, then each measurement only
// when a probe that can measure it was read: orphaned, drain and leaked
// work from counting probes (metric, tool), leftover CPU from the process
// probe.
func (s view) textCancellation(t *textOut) {
	c := s.Cancellation
	count := func(n int, label, note string) string {
		item := fmt.Sprintf("%s %d", label, n)
		if n > 0 {
			item += t.note(note)
		}
		return item
	}
	first := []string{summary.Plural(c.Cancels, "cancel")}
	if c.WorkGraceMs > 0 { // the time a cut call had to stop (absent in old files)
		first = append(first, "work grace "+summary.FormatMs(c.WorkGraceMs))
	}
	t.items("Cancellation", append(first, count(c.LateResponses, "late responses", noteLateResponses),
		count(c.LateProgress, "late progress", noteLateProgress), count(c.LeftoverCalls, "leftover calls", noteLeftoverCalls))...)
	if c.LateQueued > 0 || c.CancelAnswers > 0 {
		t.items("", count(c.LateQueued, "late but queued", noteLateQueued), count(c.CancelAnswers, "answers to the cancel", noteCancelAnswers))
	}
	// The process probe's entry counts child processes, a log probe's
	// orphans by id (both said on their own lines): the rest count calls.
	var procProbe, logProbe string
	if c.ProcessCPU != nil {
		procProbe = c.ProcessCPU.Probe
	}
	if c.Log != nil {
		logProbe = c.Log.Probe
	}
	var counted []string
	for _, name := range slices.Sorted(maps.Keys(c.ByProbe)) {
		if name != procProbe && name != logProbe {
			counted = append(counted, name+" "+summary.FormatNum(c.ByProbe[name]))
		}
	}
	var items []string
	if len(counted) > 0 {
		drain := "drained in " + summary.FormatMs(c.DrainMs)
		if !c.Drained {
			drain = "not drained after " + summary.FormatMs(c.DrainMs)
		}
		items = append(items, "orphaned "+summary.FormatNum(c.Orphaned)+" ("+strings.Join(counted, ", ")+")", drain,
			"leaked "+summary.FormatNum(c.LeakedCallSeconds)+" call-s")
	}
	if c.QuietWindowMs > 0 {
		cpu := "leftover CPU " + summary.FormatMs(c.LeftoverCPUS*1000) + " in a " + summary.FormatMs(c.QuietWindowMs) + " quiet window"
		if n, ok := c.ByProbe[procProbe]; ok && procProbe != "" {
			cpu += fmt.Sprintf(", child processes %s", summary.FormatNum(n))
		}
		items = append(items, cpu)
	}
	if len(items) == 0 {
		items = append(items, "server side not measured: no orphan probe was read")
	}
	t.items("", items...)
	if len(c.ProbeErrors) > 0 {
		t.line("", "probe errors"+t.note(noteProbeErrors)+": "+strings.Join(c.ProbeErrors, "; "))
	}
	textServerProcesses(t, c.ServerProcesses)
	textWindows(t, c)
}

func (s view) textProtocol(t *textOut) {
	p := s.Protocol
	if p.Violations.Total == 0 {
		t.line("Protocol", "violations none")
	} else {
		t.line("Protocol", fmt.Sprintf("violations %d: %s", p.Violations.Total, summary.NonZero(p.Violations)))
	}
	if c := summary.NonZero(p.Connection); c != "" {
		t.line("", "connection"+t.note(noteConnection)+": "+c)
	}
}

func (s view) textVerdicts(t *textOut) {
	t.b.WriteString("\nVerdicts\n")
	status := 0
	for _, v := range s.Verdicts {
		status = max(status, len(v.Status)+2)
	}
	indent := 2 + labelWidth + status
	for _, v := range s.Verdicts {
		fmt.Fprintf(&t.b, "  %-*s%-*s", labelWidth, v.Area, status, v.Status)
		for i, l := range wrap(v.Evidence, lineWidth-indent) {
			if i > 0 {
				t.b.WriteString(strings.Repeat(" ", indent))
			}
			t.b.WriteString(l + "\n")
		}
	}
}

// wrap breaks text into lines of at most width bytes at spaces (a longer
// word gets a line of its own).
func wrap(text string, width int) []string {
	var lines []string
	cur := ""
	for _, w := range strings.Fields(text) {
		if cur != "" && len(cur)+1+len(w) > width {
			lines = append(lines, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(lines, cur)
}

func (s view) textChecks(t *textOut) {
	if len(s.Checks) > 0 {
		t.b.WriteString("\nChecks\n")
		width := 0
		for _, c := range s.Checks {
			width = max(width, len(c.Check))
		}
		for _, c := range s.Checks {
			mark, value := "PASS", summary.FormatCheckValue(c)
			if !c.Pass {
				mark = "FAIL"
			}
			if c.Reason != "" {
				value = "(" + c.Reason + ")"
			}
			fmt.Fprintf(&t.b, "  %s  %-*s  %s\n", mark, width, c.Check, value)
		}
	}
	t.b.WriteString("\n")
	t.line("Result", s.Result())
}
