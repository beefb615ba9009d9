package verdict

import (
	"fmt"
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// cancelReading is what the cancellation verdict reads off a summary
// before it judges: whether calls were stopped, whether work went on
// after, and the facts that say so, in report order.
type cancelReading struct {
	stopped   string // "N cancels, M disconnects"
	cuts      int    // N + M
	exercised bool   // a call was cancelled or disconnected
	leftover  bool   // some evidence shows work after a stop
	facts     []string
}

// cancelLimits are the bounds above which the cancellation's measures
// count as work left running.
type cancelLimits struct {
	allowance float64 // leaked call-seconds the grace and sampling noise allow
	cpu       float64 // leftover CPU-s of the final quiet window (cpuThreshold)
	noStop    bool    // no call was stopped: leaked call-seconds are not work after a stop
}

// cancellationVerdict: work that runs on after a cancel is a violation;
// after a plain disconnect it is one only from 2026-07-28 on.
func cancellationVerdict(s *summary.Summary, ev evidence) summary.Verdict {
	v := judgeCancellation(s, ev, readCancellation(s, ev))
	if errs := s.Cancellation.ProbeErrors; len(errs) > 0 {
		v.Evidence += "; probe errors: " + strings.Join(errs, "; ")
	}
	return v
}

// readCancellation gathers what the verdict weighs: the stops, whether
// any evidence shows work after them, and every fact worth naming.
func readCancellation(s *summary.Summary, ev evidence) cancelReading {
	c := s.Cancellation
	// Leaked call-seconds count work that ended before the probes' final
	// reading, too; a server may take up to the work grace (the longer of
	// progress.grace and orphans.grace) to stop each call, and sampling
	// adds a little noise, so only more than that is leaked.
	lim := cancelLimits{
		allowance: float64(c.Cancels+ev.disconnects)*max(s.Progress.GraceMs, c.WorkGraceMs)/1000 + leakedNoise,
		cpu:       cpuThreshold(c),
	}
	// An answer to a call we stopped, arriving after the late window, is
	// evidence against that call however late it comes: the server was
	// still working on it long after our cancel.
	staleAnswers := s.Protocol.Connection.StaleAnswers
	procFact := leftoverFact(c.ServerProcesses) // processes left running after the server exited
	exercised := c.Cancels > 0 || ev.disconnects > 0
	// Leaked call-seconds are work nobody waited for only once some call
	// was given up on; with none, the server's count above the client's
	// is the probes' error (a starved scrape), not work after a stop.
	leaked := exercised && c.LeakedCallSeconds > lim.allowance
	// Tasks still working after their tasks/cancel when the probes read
	// what was left after the load: those readings may be the tasks'.
	afterLoad := c.TasksRunningOn == 0
	leftover := afterLoad && (c.Orphaned > 0 || c.LeftoverCPUS > lim.cpu) || c.LeftoverCalls > 0 || leaked ||
		c.Windows.Above > 0 || summedAbove(c.Windows) || staleAnswers > 0 || (c.Log != nil && c.Log.Orphaned > 0) || procFact != "" ||
		projectedPast(c.Contention)
	lim.noStop = !exercised
	facts := leftoverWorkFacts(c, procFact, staleAnswers, lim)
	facts = append(facts, afterLoadFacts(c)...)
	facts = append(facts, wireNotes(c)...)
	return cancelReading{
		stopped:   fmt.Sprintf("%s, %s", summary.Plural(c.Cancels, "cancel"), summary.Plural(ev.disconnects, "disconnect")),
		cuts:      c.Cancels + ev.disconnects,
		exercised: exercised,
		leftover:  leftover,
		facts:     facts,
	}
}

// leftoverWorkFacts names each kind of evidence of work after a stop
// (and the leaked call-seconds within the grace), in report order.
func leftoverWorkFacts(c summary.Cancellation, procFact string, staleAnswers int64, lim cancelLimits) []string {
	var facts []string
	add := func(f string) {
		if f != "" {
			facts = append(facts, f)
		}
	}
	add(procFact)
	if c.TasksRunningOn > 0 {
		add(runOnFact(c, lim.cpu))
	} else {
		add(orphanedFact(c))
	}
	if c.LeftoverCalls > 0 {
		add(leftoverCallsFact(c))
	}
	add(logFact(c.Log))
	if staleAnswers > 0 {
		add(fmt.Sprintf("%s arrived after the late window for calls we had stopped: the server worked on them long after the cancel",
			summary.Plural(int(staleAnswers), "answer")))
	}
	if c.TasksRunningOn == 0 {
		add(leftoverCPUFact(c, lim.cpu))
	}
	if c.Windows.Above > 0 {
		add(windowsFact(c.Windows))
	} else if summedAbove(c.Windows) {
		add(summedFact(c.Windows))
	}
	add(leakedFact(c, lim))
	add(projectedFact(c.Contention))
	return facts
}

// orphanedFact says how many calls the probes saw still running after the
// quiet window, and which probes saw them; "" when none.
func orphanedFact(c summary.Cancellation) string {
	if !(c.Orphaned > 0) {
		return ""
	}
	f := summary.FormatNum(c.Orphaned) + " calls still running"
	if c.Orphaned == 1 {
		f = "1 call still running"
	}
	if c.QuietWindowMs > 0 {
		f += " " + summary.FormatMs(c.QuietWindowMs) + " after the load ended"
	}
	if p := probesAbove(withoutLog(c.ByProbe, c.Log)); p != "" {
		f += " (" + p + ")"
	}
	return f
}

// leftoverCPUFact says how much CPU the server used after the load, when
// that is over limit; "" otherwise.
func leftoverCPUFact(c summary.Cancellation, limit float64) string {
	if !(c.LeftoverCPUS > limit) {
		return ""
	}
	f := "leftover CPU " + summary.FormatMs(c.LeftoverCPUS*1000) + " after the load (threshold " + summary.FormatMs(limit*1000) + ")"
	if p := c.ProcessCPU; p != nil {
		f += " " + processName(*p)
	}
	return f
}

// leakedFact says how many call-seconds of server work nobody waited for,
// and whether that is more than the grace allows; "" when none. With no
// call stopped it says the call-seconds are not counted.
func leakedFact(c summary.Cancellation, lim cancelLimits) string {
	switch {
	case c.LeakedCallSeconds > 0 && lim.noStop:
		return summary.FormatNum(c.LeakedCallSeconds) + " call-seconds of server in-flight above the client's, not counted: no call was stopped"
	case c.LeakedCallSeconds > lim.allowance:
		return fmt.Sprintf("%s call-seconds of server work nobody waited for (more than the %s a grace per cancel allows)",
			summary.FormatNum(c.LeakedCallSeconds), summary.FormatNum(lim.allowance))
	case c.LeakedCallSeconds > 0:
		return summary.FormatNum(c.LeakedCallSeconds) + " call-seconds leaked (within the grace)"
	}
	return ""
}

// afterLoadFacts says how the probes drained after the load and what
// arrived late on the wire.
func afterLoadFacts(c summary.Cancellation) []string {
	var facts []string
	if c.DrainMs > 0 && c.Drained {
		facts = append(facts, "probes back to baseline after "+summary.FormatMs(c.DrainMs))
	} else if c.DrainMs > 0 {
		facts = append(facts, "probes still above baseline after "+summary.FormatMs(c.DrainMs))
	}
	if c.LateResponses > 0 {
		facts = append(facts, summary.Plural(c.LateResponses, "late response"))
	}
	if c.LateProgress > 0 {
		facts = append(facts, summary.Plural(c.LateProgress, "late progress notification"))
	}
	return facts
}

// judgeCancellation turns a reading into a status and its evidence: not
// exercised, not observable (unless the gateway's truth settles it), pass,
// expected legacy behaviour after plain disconnects of a 2025 era, or a
// violation.
func judgeCancellation(s *summary.Summary, ev evidence, r cancelReading) summary.Verdict {
	v := summary.Verdict{Area: summary.AreaCancellation}
	c := s.Cancellation
	why := unobservable(c)
	if why == "" {
		why = starved(c) // starved.go
	}
	if why == "" {
		why = runOnHides(s, ev) // runon.go
	}
	switch {
	case !r.exercised && !r.leftover:
		v.Status, v.Evidence = summary.StatusNotExercised, "no call was cancelled or disconnected"
		if c.LeakedCallSeconds > 0 {
			v.Evidence += "; " + leakedFact(c, cancelLimits{noStop: true})
		}
	case !r.leftover && why != "":
		v.Status = summary.StatusNotObservable
		v.Evidence = r.stopped + "; cannot tell whether work went on after a cancel: " + why + "; to observe it, add " + remedy
		v.Evidence += joinedFacts(r.facts)
		v = judgeByTruth(s, v, r.stopped, r.facts)
	case !r.leftover:
		v.Status = summary.StatusPass
		v.Evidence = r.stopped + "; no work seen after a cancel"
		if s.Tasks.Leftover > 0 {
			v.Evidence = r.stopped + "; no work of a call seen after its cancel"
		}
		if w := c.Windows; w.Count > 0 {
			v.Evidence += fmt.Sprintf(" (%s: %s CPU ±%s%s%s)", summary.Plural(w.Count, "quiet window"), summary.FormatMs(w.LeftoverCPUS*1000),
				summary.FormatMs(w.NoiseCPUS*1000), windowsReach(w, r.cuts), windowsSource(w))
			v.Evidence += burstsNote(w) + waitBurstsNote(w) + runOnWindowsNote(w)
		}
		v.Evidence += contentionNote(c.Contention) + fenceNote(c)
		v.Evidence += joinedFacts(r.facts)
	case vocab.IsLegacy(s.Era) && ev.disconnects > 0 && ev.leftoverNotDisconnected == 0 &&
		c.Orphaned <= float64(ev.disconnects):
		v.Status = summary.StatusLegacy
		v.Evidence = fmt.Sprintf("%s; in %s a disconnect is not a cancel: %s", r.stopped, s.Era, strings.Join(r.facts, "; "))
	default:
		v.Status = summary.StatusViolation
		v.Evidence = r.stopped + ": " + strings.Join(r.facts, "; ")
		if !vocab.IsLegacy(s.Era) && s.Calls.Disconnected > 0 {
			v.Evidence += " (from " + vocab.FirstModern + " a disconnect is a cancel)"
		}
	}
	if f := tasksCancelFact(s.Tasks); f != "" {
		v.Evidence += "; " + f
	}
	return v
}

// tasksCancelFact says what the tasks/cancel sent came to, apart from the
// calls: a task that runs on after it is information (the spec makes
// cancelling a task cooperative), never held against the server here, and
// the figures above, written for calls, do not say whether one did.
func tasksCancelFact(t summary.Tasks) string {
	switch {
	case t.CancelSent == 0:
		return ""
	case t.Leftover == 0:
		return fmt.Sprintf("%d tasks/cancel sent, every task ended cancelled within the grace", t.CancelSent)
	}
	ended := ""
	if r := t.RanOnMs; r.Count > 0 {
		ended = fmt.Sprintf("; %d of them ended %s after it at most (p50 %s)", r.Count, summary.FormatMs(r.Max), summary.FormatMs(r.P50))
	}
	return fmt.Sprintf("%d tasks/cancel sent: %s did not end cancelled within the grace (tasks.leftover: information, "+
		"cancelling a task is cooperative; check tasks.leftover == 0 to gate on it)%s", t.CancelSent, summary.Plural(t.Leftover, "task"), ended)
}

// joinedFacts is "; " and the facts joined by "; ", or "" without any.
func joinedFacts(facts []string) string {
	if len(facts) == 0 {
		return ""
	}
	return "; " + strings.Join(facts, "; ")
}
