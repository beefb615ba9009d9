package report

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

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
type textOut struct{ b bytes.Buffer }

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

// Text writes the human summary `mcpchaos run` prints: the run, calls,
// rates, latencies, each area, the verdicts, the checks and the result.
func (s *Summary) Text(w io.Writer) error {
	var t textOut
	s.textHeader(&t)
	s.textCalls(&t)
	s.textLatency(&t)
	s.textProgress(&t)
	s.textThrottling(&t)
	s.textTimeouts(&t)
	s.textFaults(&t)
	s.textCancellation(&t)
	s.textProtocol(&t)
	s.textVerdicts(&t)
	s.textChecks(&t)
	if _, err := w.Write(t.b.Bytes()); err != nil {
		return fmt.Errorf("write summary: %w", err)
	}
	return nil
}

func (s *Summary) textHeader(t *textOut) {
	t.items("Scenario", s.Scenario, fmt.Sprintf("seed %d", s.Seed))
	t.items("Target", s.Transport, s.Target)
	if s.Server != "" {
		t.line("Server", s.Server)
	}
	t.line("Era", s.Era)
	run := []string{"duration " + fmtMs(s.DurationS*1000)}
	if !s.Started.IsZero() {
		run = append([]string{"started " + s.Started.Format(time.RFC3339)}, run...)
	}
	if s.Interrupted {
		run = append(run, "INTERRUPTED")
	}
	t.items("Run", run...)
	t.b.WriteString("\n")
}

func (s *Summary) textCalls(t *textOut) {
	items := []string{fmt.Sprintf("total %d", s.Calls.Total)}
	for _, o := range results.Outcomes {
		if n := *s.Calls.ByOutcome(o); n > 0 || o == results.OK {
			items = append(items, fmt.Sprintf("%s %d", o, n))
		}
	}
	if s.Calls.Reissued > 0 {
		items = append(items, fmt.Sprintf("reissued %d", s.Calls.Reissued))
	}
	if s.Calls.Retried > 0 {
		items = append(items, fmt.Sprintf("retried %d", s.Calls.Retried))
	}
	t.items("Calls", items...)
	t.items("Rate", "offered "+fmtRate(s.Rate.Offered), "achieved "+fmtRate(s.Rate.Achieved), "ok "+fmtRate(s.Rate.OK))
}

func (s *Summary) textLatency(t *textOut) {
	const row = "%-*s%7s%9s%9s%9s%9s%9s%9s\n"
	var rows bytes.Buffer
	for _, name := range histNames {
		l := s.Latency.ByName(name)
		if l.Count == 0 {
			continue
		}
		fmt.Fprintf(&rows, row, labelWidth+2, "  "+name, fmt.Sprint(l.Count), fmtMs(l.P50), fmtMs(l.P90),
			fmtMs(l.P99), fmtMs(l.P999), fmtMs(l.Max), fmtMs(l.Mean))
	}
	if rows.Len() == 0 {
		t.line("Latency", "no responses")
		return
	}
	fmt.Fprintf(&t.b, row, labelWidth+2, "Latency", "count", "p50", "p90", "p99", "p99.9", "max", "mean")
	t.b.Write(rows.Bytes())
}

func (s *Summary) textProgress(t *textOut) {
	p := s.Progress
	if p.Notifications == 0 && p.Calls == 0 && p.Violations.Total == 0 {
		t.line("Progress", "none")
		return
	}
	t.items("Progress", fmt.Sprintf("%s on %s", plural(p.Notifications, "notification"), plural(p.Calls, "call")),
		fmt.Sprintf("max %d Hz", p.MaxRateHz))
	t.items("", fmt.Sprintf("floods %d (> %s Hz)", p.Floods, fmtNum(p.FloodHz)),
		fmt.Sprintf("stalls %d (> %s)", p.Stalls, fmtMs(p.StallMs)),
		fmt.Sprintf("incomplete %d", p.Incomplete), "grace "+fmtMs(p.GraceMs))
	if p.Violations.Total == 0 {
		t.line("", "violations none")
	} else {
		t.line("", fmt.Sprintf("violations %d: %s", p.Violations.Total, nonzero(p.Violations)))
	}
}

func (s *Summary) textThrottling(t *textOut) {
	th := s.Throttling
	if th.Total == 0 {
		best := ""
		if th.BestOKRate > 0 {
			best = fmt.Sprintf("best %s ok/s", fmtNum(th.BestOKRate))
		}
		t.items("Throttling", "none", best)
		return
	}
	kinds := make([]string, 0, len(th.ByKind))
	for k := range th.ByKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for i, k := range kinds {
		kinds[i] = fmt.Sprintf("%s %d", k, th.ByKind[k])
	}
	t.line("Throttling", fmt.Sprintf("%d throttled: %s", th.Total, strings.Join(kinds, ", ")))
	onset := "onset never reached 1%"
	if th.OnsetRate > 0 {
		onset = "onset at " + fmtRate(th.OnsetRate) + " offered"
	}
	t.items("", onset, fmt.Sprintf("best %s ok/s", fmtNum(th.BestOKRate)), fmt.Sprintf("retries %d", th.Retries))
	if th.RetryAfterS.Max > 0 {
		t.items("", "Retry-After p50 "+fmtMs(th.RetryAfterS.P50*1000), "max "+fmtMs(th.RetryAfterS.Max*1000))
	}
}

func (s *Summary) textTimeouts(t *textOut) {
	to := s.Timeouts
	if to.Idle+to.Cap == 0 && len(to.Policies) == 0 {
		t.line("Timeouts", "none")
		return
	}
	items := []string{fmt.Sprintf("idle %d", to.Idle), fmt.Sprintf("cap %d", to.Cap),
		fmt.Sprintf("cap with progress %d", to.CapWithProgress)}
	if e := s.Latency.TimeoutError; e.Count > 0 {
		items = append(items, "enforcement error p99 "+fmtMs(e.P99))
	}
	t.items("Timeouts", items...)
	quiet := 0
	for _, name := range sortedKeys(to.Policies) {
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

func (s *Summary) textFaults(t *textOut) {
	if len(s.Faults) == 0 {
		t.line("Faults", "none")
		return
	}
	kinds := sortedKeys(s.Faults)
	width := 0
	for _, k := range kinds {
		width = max(width, len(k))
	}
	label := "Faults"
	for _, k := range kinds {
		f := s.Faults[k]
		e := f.TimingErrorMs
		line := fmt.Sprintf("%-*s%sinjected %d%stiming error p50 %s, p99 %s, max %s",
			width, k, itemGap, f.Injected, itemGap, fmtMs(e.P50), fmtMs(e.P99), fmtMs(e.Max))
		if f.Skipped > 0 {
			line += fmt.Sprintf("%sskipped %d (call ended first)", itemGap, f.Skipped)
		}
		t.line(label, line)
		label = ""
		var extra []string
		if f.Unexpected > 0 {
			extra = append(extra, fmt.Sprintf("unexpected answers %d", f.Unexpected))
		}
		for _, name := range sortedKeys(f.Server) {
			extra = append(extra, fmt.Sprintf("server %s %d", name, f.Server[name]))
		}
		if len(extra) > 0 {
			t.line("", fmt.Sprintf("%-*s%s%s", width, "", itemGap, strings.Join(extra, itemGap)))
		}
	}
}

func (s *Summary) textCancellation(t *textOut) {
	c := s.Cancellation
	t.items("Cancellation", plural(c.Cancels, "cancel"), fmt.Sprintf("late responses %d", c.LateResponses),
		fmt.Sprintf("late progress %d", c.LateProgress), fmt.Sprintf("leftover calls %d", c.LeftoverCalls))
	if len(c.ByProbe) > 0 || c.Orphaned != 0 || c.LeftoverCPUS != 0 || c.DrainMs != 0 || c.LeakedCallSeconds != 0 {
		orphaned := "orphaned " + fmtNum(c.Orphaned)
		if len(c.ByProbe) > 0 {
			var parts []string
			for _, name := range sortedKeys(c.ByProbe) {
				parts = append(parts, name+" "+fmtNum(c.ByProbe[name]))
			}
			orphaned += " (" + strings.Join(parts, ", ") + ")"
		}
		drain := "drained in " + fmtMs(c.DrainMs)
		if !c.Drained {
			drain = "not drained after " + fmtMs(c.DrainMs)
		}
		items := []string{orphaned, drain, "leaked " + fmtNum(c.LeakedCallSeconds) + " call-s"}
		if c.QuietWindowMs > 0 {
			items = append(items, "leftover CPU "+fmtMs(c.LeftoverCPUS*1000)+" in a "+fmtMs(c.QuietWindowMs)+" quiet window")
		}
		t.items("", items...)
	}
	if len(c.ProbeErrors) > 0 {
		t.line("", "probe errors: "+strings.Join(c.ProbeErrors, "; "))
	}
	textWindows(t, c)
}

func (s *Summary) textProtocol(t *textOut) {
	p := s.Protocol
	if p.Violations.Total == 0 {
		t.line("Protocol", "violations none")
	} else {
		t.line("Protocol", fmt.Sprintf("violations %d: %s", p.Violations.Total, nonzero(p.Violations)))
	}
	if c := nonzero(p.Connection); c != "" {
		t.line("", "connection: "+c)
	}
}

func (s *Summary) textVerdicts(t *textOut) {
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

func (s *Summary) textChecks(t *textOut) {
	if len(s.Checks) > 0 {
		t.b.WriteString("\nChecks\n")
		width := 0
		for _, c := range s.Checks {
			width = max(width, len(c.Check))
		}
		for _, c := range s.Checks {
			mark, value := "PASS", formatValue(c.Value, checkUnit(c.Check))
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
	failed := 0
	for _, c := range s.Checks {
		if !c.Pass {
			failed++
		}
	}
	switch {
	case len(s.Checks) == 0:
		t.line("Result", "PASS (no checks)")
	case s.Pass:
		t.line("Result", fmt.Sprintf("PASS (%s)", plural(len(s.Checks), "check")))
	default:
		t.line("Result", fmt.Sprintf("FAIL (%d of %s failed)", failed, plural(len(s.Checks), "check")))
	}
}

// sortedKeys returns a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
