package report

import (
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// How much of the truth a gateway join rests on, and what the targets'
// records say of the calls we stopped. A verdict built on part of the
// truth is never a pass: a call the targets never recorded, or a record
// that never ended, is unknown, not "nothing went wrong".

// ranOnAfter: an execution still working (sending progress, or ending)
// more than this after we stopped its call ran on; one that ran to its
// end later than our stop plus lostCancelMargin did too.
const ranOnAfter = time.Second

// fate is what became of one stopped call at the targets.
type fate int

const (
	fateStopped fate = iota
	fateRanOn
	fateUnknown
)

// stopFate judges a call we stopped at `at` by its executions; why says
// what the records show (for a call that ran on or is unknown).
func stopFate(ex []*results.TruthCall, at time.Time) (f fate, why string) {
	if len(ex) == 0 {
		return fateUnknown, "no target recorded it"
	}
	f = fateStopped
	for _, t := range ex {
		switch last := lastWork(t); {
		case !t.Completed.IsZero() && t.Completed.After(at.Add(lostCancelMargin)):
			return fateRanOn, "ran to its end at the target " + msText(t.Completed.Sub(at)) + " after we stopped it"
		case last.After(at.Add(ranOnAfter)) && t.Ended.IsZero():
			return fateRanOn, "was still working at the target " + msText(last.Sub(at)) + " after we stopped it (its record never ended)"
		case last.After(at.Add(ranOnAfter)):
			return fateRanOn, "stopped at the target only " + msText(last.Sub(at)) + " after we stopped it"
		case t.Ended.IsZero():
			f, why = fateUnknown, "its record never ended"
		}
	}
	return f, why
}

// lastWork is the last sign of work in a record: its end, or its last
// progress when it never ended.
func lastWork(t *results.TruthCall) time.Time {
	last := t.Ended
	if len(t.Progress) > 0 && t.Progress[len(t.Progress)-1].At.After(last) {
		last = t.Progress[len(t.Progress)-1].At
	}
	return last
}

// unended reports whether one of the executions never ended.
func unended(ex []*results.TruthCall) bool {
	for _, t := range ex {
		if t.Ended.IsZero() {
			return true
		}
	}
	return false
}

// judgeStop sorts a call we stopped (a cancel, or a 2025 disconnect) by
// its records. A call whose answer came before our stop was not stopped,
// and a task is not judged: cancelling a task is cooperative, the spec
// lets its work run on (tasks.leftover reports it).
func (g *Gateway) judgeStop(c *GatewayCall, ex []*results.TruthCall) {
	if c.Task {
		return
	}
	at, counts, key := c.Cancelled, &g.Stops.Cancelled, "stops.cancelled"
	if at.IsZero() {
		at, counts, key = c.Disconnected, &g.Stops.Disconnected, "stops.disconnected"
	}
	if at.IsZero() || (!c.Response.IsZero() && c.Response.Before(at)) {
		return
	}
	f, why := stopFate(ex, at)
	if echo := c.echoedAt(); f != fateRanOn && echo.After(at.Add(lostCancelMargin)) {
		f, why = fateRanOn, "ran to its end: its answer, echoing its marker, reached us "+msText(echo.Sub(at))+" after we stopped it"
	}
	switch f {
	case fateStopped:
		counts.Stopped++
	case fateRanOn:
		counts.RanOn++
		g.note(key+".ran_on", "%s %s", c.Marker, why)
	case fateUnknown:
		counts.Unknown++
		g.note(key+".unknown", "%s: %s", c.Marker, why)
	}
}

// echoedAt is when an answer echoing the call's marker reached us (within
// the late window, or after it), or zero.
func (c *GatewayCall) echoedAt() time.Time {
	if !c.LateEcho.IsZero() {
		return c.LateEcho
	}
	if c.Echoed {
		return c.Response
	}
	return time.Time{}
}

// judgeUnrecorded counts a call no target recorded: an execution the
// truth misses when a result reached us (a target echoed its marker, or
// something answered it), else a call the gateway never delivered.
func (g *Gateway) judgeUnrecorded(c *GatewayCall) {
	switch {
	case c.Echoed:
		g.Unrecorded++
		g.note("unrecorded", "%s: its answer echoed its marker, so a target ran it, but no target recorded it", c.Marker)
	case c.Answered:
		g.Unrecorded++
		g.note("unrecorded", "%s: answered with a result, but no target recorded it", c.Marker)
	default:
		g.NotSeen++
	}
}

// judgeEcho holds an answer echoing the call's marker against the
// records: a late echo (after the call's late window) that the records
// contradict, as every recorded execution ended without running to its
// end, came from an execution the truth misses (unrecorded); an echo that
// reached us after the last read of the truth had begun may have too
// (echoes_after_truth).
func (g *Gateway) judgeEcho(c *GatewayCall, ex []*results.TruthCall) {
	if !c.LateEcho.IsZero() && len(ex) > 0 && !unended(ex) && !slices.ContainsFunc(ex, func(t *results.TruthCall) bool { return !t.Completed.IsZero() }) {
		g.Unrecorded++
		g.note("unrecorded", "%s: its answer echoed its marker after its late window, but every recorded execution of it ended without running to its end", c.Marker)
	}
	if c.EchoAfterTruth {
		g.EchoesAfterTruth++
		g.note("echoes_after_truth", "%s: its answer, echoing its marker, reached us after the last read of the truth began", c.Marker)
	}
}
