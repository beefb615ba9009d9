package text

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/termsafe"
	"github.com/mcpchaos/mcpchaos/report/summary"
	"github.com/mcpchaos/mcpchaos/results"
)

// Text layout: a label column, then items separated by gaps, wrapped at
// lineWidth.
const (
	labelWidth = 14
	itemGap    = "   "
	lineWidth  = 100
)

// textOut builds the text summary.
type textOut struct {
	b bytes.Buffer
	// notes are the current block's footnotes; noteBase numbers them on
	// from the blocks before.
	notes    []string
	noteBase int
}

// line writes one labelled line; an empty label indents.
func (t *textOut) line(label, text string) {
	fmt.Fprintf(&t.b, "%-*s%s\n", labelWidth, label, text)
}

// items writes items after a label, wrapping onto indented lines.
func (t *textOut) items(label string, items ...string) {
	cur := ""
	for _, it := range items {
		if it == "" {
			continue
		}
		if cur != "" && labelWidth+len(cur)+len(itemGap)+len(it) > lineWidth {
			t.line(label, cur)
			label, cur = "", ""
		}
		if cur != "" {
			cur += itemGap
		}
		cur += it
	}
	if cur != "" {
		t.line(label, cur)
	}
}

// block writes lines of items, the first after the label, the rest
// indented under it.
func (t *textOut) block(label string, lines [][]string) {
	for i, items := range lines {
		if i > 0 {
			label = ""
		}
		t.items(label, items...)
	}
}

// view is the summary as the text reads it: its blocks are its methods.
type view struct{ *summary.Summary }

// Write writes the human summary `mcpchaos run` prints: the run, calls,
// rates, latencies, each area, the verdicts, the checks and the result.
// Every string of sum is printed escaped (termsafe.Copy).
func Write(w io.Writer, sum *summary.Summary) error {
	s := view{termsafe.Copy(sum)}
	var t textOut
	if s.Limits != nil {
		if err := s.Limits.LimitCard(&t.b); err != nil {
			return err
		}
		t.b.WriteString("\n")
	}
	s.textHeader(&t)
	for _, block := range []func(*textOut){s.textCalls, s.textErrors, s.textLatency, s.textTools,
		s.textProgress, s.textThrottling, s.textMRTR, s.textTasks, s.textTimeouts, s.textFaults, s.textCancellation, s.textProtocol, s.textGateway, s.textClientLimits} {
		block(&t)
		t.flushNotes()
	}
	s.textVerdicts(&t)
	s.textChecks(&t)
	if _, err := io.WriteString(w, termsafe.Lines(t.b.String())); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

func (s view) textHeader(t *textOut) {
	t.items("Scenario", s.Scenario, fmt.Sprintf("seed %d", s.Seed))
	transport := s.Transport
	if s.HTTPVersion != "" {
		transport += " (" + s.HTTPVersion + ")"
	}
	t.items("Target", transport, s.Target)
	if s.Server != "" {
		t.line("Server", s.Server)
	}
	t.line("Era", s.Era)
	run := []string{"duration " + summary.FormatMs(s.DurationS*1000)}
	if !s.Started.IsZero() {
		run = append([]string{"started " + s.Started.Format(time.RFC3339)}, run...)
	}
	if s.Interrupted {
		run = append(run, "INTERRUPTED")
	}
	t.items("Run", run...)
	t.b.WriteString("\n")
}

func (s view) textCalls(t *textOut) {
	items := []string{fmt.Sprintf("total %d", s.Calls.Total)}
	for _, o := range results.Outcomes {
		n := *s.Calls.ByOutcome(o)
		switch {
		case o == results.OK:
			items = append(items, fmt.Sprintf("%s %d", o, n))
		case n > 0:
			items = append(items, fmt.Sprintf("%s %d", o, n)+t.note(o+": "+outcomeMeanings[o]))
		}
	}
	if s.Calls.Reissued > 0 {
		items = append(items, fmt.Sprintf("reissued %d", s.Calls.Reissued))
	}
	if s.Calls.Retried > 0 {
		items = append(items, fmt.Sprintf("retried %d", s.Calls.Retried))
	}
	t.items("Calls", items...)
	t.items("Rate", "offered "+summary.FormatRate(s.Rate.Offered), "achieved "+summary.FormatRate(s.Rate.Achieved), "ok "+summary.FormatRate(s.Rate.OK))
}

func (s view) textLatency(t *textOut) {
	var names []string
	var cols [6][]float64 // p50, p90, p99, p99.9, max, mean
	for _, name := range summary.HistogramNames() {
		l := s.Latency.ByName(name)
		if l.Count == 0 {
			continue
		}
		names = append(names, name)
		for i, v := range []float64{l.P50, l.P90, l.P99, l.P999, l.Max, l.Mean} {
			cols[i] = append(cols[i], v)
		}
	}
	if len(names) == 0 {
		t.line("Latency", "no responses")
		return
	}
	const row = "%-*s%7s%9s%9s%9s%9s%9s%9s\n"
	fmt.Fprintf(&t.b, row, labelWidth+2, "Latency", "count", "p50", "p90", "p99", "p99.9", "max", "mean")
	var text [6][]string
	for i := range cols {
		text[i] = durColumn(cols[i])
	}
	for r, name := range names {
		fmt.Fprintf(&t.b, row, labelWidth+2, "  "+name, fmt.Sprint(s.Latency.ByName(name).Count),
			text[0][r], text[1][r], text[2][r], text[3][r], text[4][r], text[5][r])
	}
}

// textErrors lists the most frequent messages of failed calls.
func (s view) textErrors(t *textOut) {
	e := s.Errors
	if e.Total == 0 {
		t.line("Errors", "none")
		return
	}
	t.line("Errors", summary.Plural(e.Total, "failed call")+" (outcomes other than ok, cancelled, disconnected), by message:")
	width := len(fmt.Sprint(e.Total))
	for _, m := range e.Top {
		t.line("", fmt.Sprintf("%*d  %s", width, m.Count, m.Message))
	}
	if e.Other > 0 {
		t.line("", fmt.Sprintf("%*d  other messages", width, e.Other))
	}
}

// textTools is the per-tool breakdown: calls, ok, call latency, and the
// other outcomes.
func (s view) textTools(t *textOut) {
	if len(s.Tools) < 2 {
		return // one tool: the Calls and Latency lines already say it all
	}
	names := slices.Sorted(maps.Keys(s.Tools))
	width := labelWidth + 2
	var p50, p99 []float64
	for _, n := range names {
		width = max(width, len(n)+3)
		p50 = append(p50, s.Tools[n].LatencyMs.P50)
		p99 = append(p99, s.Tools[n].LatencyMs.P99)
	}
	p50s, p99s := durColumn(p50), durColumn(p99)
	const row = "%-*s%7s%9s%9s%9s   %s\n"
	fmt.Fprintf(&t.b, row, width, "Tools", "calls", "ok", "p50", "p99", "other outcomes")
	for i, n := range names {
		ts := s.Tools[n]
		other := ts.OtherOutcomes()
		if ts.LatencyMs == (summary.ToolLatency{}) {
			p50s[i], p99s[i] = "-", "-"
		}
		head := fmt.Sprintf(row, width, "  "+n, fmt.Sprint(ts.Calls), fmt.Sprint(ts.ByOutcome[results.OK]),
			p50s[i], p99s[i], "")
		head = strings.TrimSuffix(head, "\n")
		for j, l := range wrap(strings.Join(other, ", "), lineWidth-len(head)) {
			if j > 0 {
				head = strings.Repeat(" ", len(head))
			}
			t.b.WriteString(strings.TrimRight(head+l, " ") + "\n")
		}
	}
}

func (s view) textProgress(t *textOut) {
	p := s.Progress
	if p.Notifications == 0 && p.Calls == 0 && p.Violations.Total == 0 {
		t.line("Progress", "none")
		return
	}
	t.items("Progress", fmt.Sprintf("%s on %s", summary.Plural(p.Notifications, "notification"), summary.Plural(p.Calls, "call")),
		fmt.Sprintf("max %d Hz", p.MaxRateHz))
	t.items("", fmt.Sprintf("floods %d (> %s Hz)", p.Floods, summary.FormatNum(p.FloodHz)),
		fmt.Sprintf("stalls %d (> %s)", p.Stalls, summary.FormatMs(p.StallMs)),
		fmt.Sprintf("incomplete %d", p.Incomplete), "grace "+summary.FormatMs(p.GraceMs))
	if p.Violations.Total == 0 {
		t.line("", "violations none")
	} else {
		t.line("", fmt.Sprintf("violations %d: %s", p.Violations.Total, summary.NonZero(p.Violations)))
	}
}

func (s view) textThrottling(t *textOut) {
	th := s.Throttling
	if th.Total == 0 {
		best := ""
		if th.BestOKRate > 0 {
			best = fmt.Sprintf("best %s ok/s", summary.FormatNum(th.BestOKRate))
		}
		t.items("Throttling", "none", best)
		return
	}
	t.line("Throttling", fmt.Sprintf("%d throttled: %s", th.Total, summary.KindCounts(th.ByKind)))
	onset := "onset never reached 1%"
	if th.OnsetRate > 0 {
		onset = "onset at " + summary.FormatRate(th.OnsetRate) + " offered"
	}
	retries := fmt.Sprintf("retries %d", th.Retries)
	if th.RetriesNotMade > 0 {
		retries += fmt.Sprintf(" (%d not made: the load ended first)", th.RetriesNotMade)
	}
	t.items("", onset, fmt.Sprintf("best %s ok/s", summary.FormatNum(th.BestOKRate)), retries)
	if th.RetryAfterS.Max > 0 {
		t.items("", "Retry-After p50 "+summary.FormatMs(th.RetryAfterS.P50*1000), "max "+summary.FormatMs(th.RetryAfterS.Max*1000))
	}
}

func (s view) textTimeouts(t *textOut) {
	to := s.Timeouts
	if to.Idle+to.Cap == 0 && len(to.Policies) == 0 {
		t.line("Timeouts", "none")
		return
	}
	capProgress := fmt.Sprintf("cap with progress %d", to.CapWithProgress)
	if to.CapWithProgress > 0 {
		capProgress += t.note(noteCapProgress)
	}
	items := []string{fmt.Sprintf("idle %d", to.Idle), fmt.Sprintf("cap %d", to.Cap), capProgress}
	if e := s.Latency.TimeoutError; e.Count > 0 {
		items = append(items, "enforcement error p99 "+summary.FormatMs(e.P99))
	}
	t.items("Timeouts", items...)
	quiet := 0
	for _, name := range slices.Sorted(maps.Keys(to.Policies)) {
		pc := to.Policies[name]
		if pc.Killed+pc.WaitedForever == 0 {
			quiet++
			continue
		}
		t.line("", fmt.Sprintf("policy %s: killed %d, waited for ever %d", name, pc.Killed, pc.WaitedForever))
	}
	if quiet > 0 {
		noun := "client policies"
		if quiet == 1 {
			noun = "client policy"
		}
		t.line("", fmt.Sprintf("%d %s replayed: none would have killed a call or waited for ever", quiet, noun))
	}
}
