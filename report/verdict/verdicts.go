package verdict

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

const (
	// leftoverCPUSeconds is the CPU after quiet that counts as leftover
	// work (below it: noise of an idle process).
	leftoverCPUSeconds = 0.05
	// leakedNoise is the leaked call-seconds that sampling alone can show.
	leakedNoise = 0.5
	// visibleCPURate is the least CPU per second above idle that the
	// process must use during the load for a process probe to see the
	// tools' work (also at least visibleNoiseK times its idle noise).
	visibleCPURate = 0.02
	visibleNoiseK  = 3
	visiblePerCall = 0.05 // CPU-s per live call-second (sleeping work: 0.027–0.08 under -race; see servingOnly)
	// remedy says what would make leftover work observable.
	remedy = "a log probe (completion lines by request id), a metric or tool probe that counts running calls, " +
		"or a process probe with orphans.windows on work that uses CPU"
)

// cpuThreshold is the leftover CPU the final quiet window had to exceed:
// the process's measured noise band, or the fixed floor without one.
func cpuThreshold(c summary.Cancellation) float64 {
	if c.ProcessCPU != nil && c.ProcessCPU.ThresholdS > 0 {
		return c.ProcessCPU.ThresholdS
	}
	return leftoverCPUSeconds
}

// unobservable says why no probe of the run could see the tools' work, or
// "" when one could.
func unobservable(c summary.Cancellation) string {
	if c.Counting > 0 || (c.Log != nil && c.Log.Matched > 0) {
		return "" // a count probe was read, or a log probe saw cancelled calls end
	}
	p := c.ProcessCPU
	if p == nil {
		return "no probe watched the server (wire evidence only: a server that ignores a cancel without a word is not seen)"
	}
	if p.LoadRate > max(visibleCPURate, visibleNoiseK*p.IdleNoise) && p.PerCallS >= visiblePerCall {
		if servingOnly(*p) {
			return servingOnlyWhy(*p) // cpubound.go
		}
		if why := toolsUnseen(c); why != "" {
			return why // toolcpu.go
		}
		if c.Windows.Count == 0 {
			// The CPU is measured once, after the load: the leftover work
			// of a call cut during the load has ended by then, hidden while
			// it ran by the work of live calls.
			return "the only probe is the process's CPU, measured after the load: leftover work of calls cut during the load " +
				"ends before that and is hidden by live calls' work while it runs (quiet windows measure it during the load)"
		}
		return ""
	}
	if starvedCPUBound(*p) {
		return starvedCPUBoundWhy(*p) // cpubound.go
	}
	return fmt.Sprintf("the only probe is the process's CPU, and during the load it used %s CPU-s/s above idle "+
		"(idle noise ±%s/s), %s CPU-s per second of a live call%s: the tools' work (sleeping or waiting) is not CPU it can see",
		summary.FormatNum(p.LoadRate), summary.FormatNum(p.IdleNoise), summary.FormatNum(p.PerCallS), starvedCPUBoundNote(*p))
}

// evidence is Evidence as the verdicts of each area read it.
type evidence struct {
	progressRequested       int // calls that asked for progress
	leftoverNotDisconnected int // leftover calls that did not end disconnected
	disconnects             int // calls that ended disconnected or had a disconnect fault
}

// Evidence is what the verdicts weigh beyond the Summary's own values:
// what only the Aggregator saw of the calls (report's Aggregator.Evidence).
type Evidence struct {
	// ProgressRequested counts the calls that asked for progress.
	ProgressRequested int
	// LeftoverNotDisconnected counts the calls with evidence of work after
	// their cancel that did not end disconnected.
	LeftoverNotDisconnected int
	// Disconnects counts the calls that ended disconnected or had a
	// disconnect fault.
	Disconnects int
}

// Score scores every area of s against its era, in report order, and the
// gateway when s has a gateway section (with the examples of its join,
// GatewaySummary.Evidence).
func Score(s *summary.Summary, e Evidence) []summary.Verdict {
	out := verdicts(s, evidence{progressRequested: e.ProgressRequested,
		leftoverNotDisconnected: e.LeftoverNotDisconnected, disconnects: e.Disconnects})
	if s.Gateway != nil {
		out = append(out, gatewayVerdict(s, s.Gateway.Evidence))
	}
	return out
}

// verdicts scores every area.
func verdicts(s *summary.Summary, ev evidence) []summary.Verdict {
	return []summary.Verdict{
		cancellationVerdict(s, ev),
		progressVerdict(s, ev),
		throttlingVerdict(s),
		timeoutsVerdict(s),
		protocolVerdict(s),
	}
}

// logFact says what a log probe saw: the calls that logged their end
// later than their cancel plus the grace, by id.
func logFact(l *summary.LogOrphans) string {
	if l == nil || l.Orphaned == 0 {
		return ""
	}
	return fmt.Sprintf("%s: %s ended later than cancel + grace, up to %s after the cancel (ids %s)",
		l.Probe, summary.Plural(l.Orphaned, "call"), summary.FormatMs(l.MaxAfterCancelMs), joinIDs(l.OrphanedIDs, l.Orphaned))
}

// withoutLog leaves out the log probe, whose orphans are not calls still
// running (see logFact).
func withoutLog(byProbe map[string]float64, l *summary.LogOrphans) map[string]float64 {
	if l == nil {
		return byProbe
	}
	out := make(map[string]float64, len(byProbe))
	for k, v := range byProbe {
		if k != l.Probe {
			out[k] = v
		}
	}
	return out
}

// processName names the process a CPU reading measured.
func processName(p summary.ProcessCPU) string {
	if p.Command != "" {
		return fmt.Sprintf("(pid %d, %s)", p.PID, p.Command)
	}
	return fmt.Sprintf("(pid %d)", p.PID)
}

// probesAbove names the probes that read above their baseline.
func probesAbove(byProbe map[string]float64) string {
	var names []string
	for name, x := range byProbe {
		if x > 0 {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	switch len(names) {
	case 0:
		return ""
	case 1:
		return "probe " + names[0]
	}
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = n + " " + summary.FormatNum(byProbe[n])
	}
	return "probes " + strings.Join(parts, ", ")
}

// progressVerdict: a broken progress rule is a violation; floods, stalls
// and progress that stopped short of its total are warnings.
func progressVerdict(s *summary.Summary, ev evidence) summary.Verdict {
	if v, ok := lostCancelProgress(s, ev); ok {
		return v
	}
	if v, ok := reorderedProgress(s, ev); ok {
		return v
	}
	v := summary.Verdict{Area: summary.AreaProgress}
	p := s.Progress
	seen := fmt.Sprintf("%s on %s", summary.Plural(p.Notifications, "notification"), summary.Plural(p.Calls, "call"))
	var warn []string
	if p.Floods > 0 {
		warn = append(warn, fmt.Sprintf("%s (> %s Hz)", summary.Plural(p.Floods, "flood"), summary.FormatNum(p.FloodHz)))
	}
	if p.Stalls > 0 {
		warn = append(warn, fmt.Sprintf("%s (gap > %s)", summary.Plural(p.Stalls, "stall"), summary.FormatMs(p.StallMs)))
	}
	if p.Incomplete > 0 {
		warn = append(warn, fmt.Sprintf("%s (result before progress reached its total)", summary.Plural(p.Incomplete, "incomplete call")))
	}
	switch {
	case p.Violations.Total > 0:
		v.Status = summary.StatusViolation
		v.Evidence = fmt.Sprintf("%s: %s (%s)", summary.Plural(p.Violations.Total, "violation"), summary.NonZero(p.Violations), seen)
	case ev.progressRequested == 0 && p.Notifications == 0 && p.Calls == 0:
		v.Status, v.Evidence = summary.StatusNotExercised, "no call asked for or received progress"
	case len(warn) > 0:
		v.Status = summary.StatusWarning
		v.Evidence = strings.Join(warn, ", ") + "; " + seen
	case p.Notifications == 0:
		// The server may send no progress at all: nothing broke a rule,
		// and nothing of the rules was seen either.
		v.Status = summary.StatusPass
		v.Evidence = fmt.Sprintf("%s asked for progress and the server sent none (it may: progress is optional), so no rule of it was put to the test",
			summary.Plural(ev.progressRequested, "call"))
	default:
		v.Status = summary.StatusPass
		v.Evidence = fmt.Sprintf("%s, all increasing, none late or unknown; max %d Hz", seen, p.MaxRateHz)
	}
	return v
}

// throttlingVerdict: the spec defines no throttling signal, so pushing
// back is information, not a violation; an undefined code in the reserved
// range is one.
func throttlingVerdict(s *summary.Summary) summary.Verdict {
	v := summary.Verdict{Area: summary.AreaThrottling}
	t := s.Throttling
	switch {
	case s.Protocol.Violations.ReservedCode > 0:
		v.Status = summary.StatusViolation
		v.Evidence = fmt.Sprintf("%s used an undefined code in the reserved range -32020..-32099",
			summary.Plural(s.Protocol.Violations.ReservedCode, "response"))
		if t.Total > 0 {
			v.Evidence += "; " + throttleFacts(t)
		}
	case t.Total > 0:
		v.Status, v.Evidence = summary.StatusThrottled, throttleFacts(t)
	default:
		v.Status = summary.StatusPass
		v.Evidence = "no throttling at " + summary.FormatRate(s.Rate.Offered) + " offered"
	}
	return v
}

func throttleFacts(t summary.Throttling) string {
	f := fmt.Sprintf("%d throttled (%s)", t.Total, summary.KindCounts(t.ByKind))
	if t.OnsetRate > 0 {
		f += "; onset at " + summary.FormatRate(t.OnsetRate) + " offered"
	}
	f += "; best " + summary.FormatNum(t.BestOKRate) + " ok/s"
	if t.RetryAfterS.Max > 0 {
		f += "; Retry-After p50 " + summary.FormatMs(t.RetryAfterS.P50*1000) + ", max " + summary.FormatMs(t.RetryAfterS.Max*1000)
	}
	return f
}

// timeoutsVerdict: timeouts are the client's job, so they pass; a cap
// reached while progress still flowed is a warning for clients that only
// reset on progress.
func timeoutsVerdict(s *summary.Summary) summary.Verdict {
	v := summary.Verdict{Area: summary.AreaTimeouts, Status: summary.StatusPass}
	t := s.Timeouts
	f := fmt.Sprintf("idle %d, cap %d, cap with progress %d", t.Idle, t.Cap, t.CapWithProgress)
	if e := s.Latency.TimeoutError; e.Count > 0 {
		f += "; enforcement error p99 " + summary.FormatMs(e.P99)
	}
	names := make([]string, 0, len(t.Policies))
	for n, pc := range t.Policies {
		if pc.WaitedForever > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		f += fmt.Sprintf("; policy %s would have waited for ever on %s", n, summary.Plural(t.Policies[n].WaitedForever, "call"))
	}
	if t.CapWithProgress > 0 {
		v.Status = summary.StatusWarning
		f = "the server kept sending progress past the cap: a client that only resets on progress would wait for ever; " + f
	} else if t.Idle+t.Cap == 0 {
		f = "no timeout fired; " + f
	}
	v.Evidence = f
	return v
}

// protocolVerdict: any broken wire rule is a violation, but for a stream
// left open past the late window while the client was short of CPU (its
// pacer fell behind): a client too starved to read a stream's end in time
// looks the same as a server that leaves the stream open, so those are
// not held against the server (issue 28: a client limit never blames it).
func protocolVerdict(s *summary.Summary) summary.Verdict {
	v := summary.Verdict{Area: summary.AreaProtocol}
	p := s.Protocol.Violations
	starved := 0
	if s.ClientLimits.CPU {
		starved = p.StreamNotClosed
	}
	aside := ""
	if starved > 0 {
		aside = summary.Plural(starved, "stream") + " still open past the late window after the answer, " +
			"seen while the client was short of CPU (its pacer fell behind): a client too starved to read a stream's end " +
			"in time looks the same as a server that leaves it open, so not held against the server"
	}
	switch {
	case p.Total > starved:
		v.Status = summary.StatusViolation
		v.Evidence = summary.Plural(p.Total, "violation") + ": " + summary.NonZero(p)
		if aside != "" {
			v.Evidence += "; of them, " + aside
		}
		return v
	case starved > 0:
		v.Status = summary.StatusNotObservable
		v.Evidence = aside + " (a run within the client's means tells)"
		return v
	}
	v.Status = summary.StatusPass
	v.Evidence = "no protocol violation in " + summary.Plural(s.Calls.Total, "call")
	return v
}
