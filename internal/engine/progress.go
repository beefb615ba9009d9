package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// The progress rules are decided here and nowhere else (the report only
// counts what the records say):
//
//   - in order, each notification's value must increase (non_monotonic);
//   - none may come after the call's final response (after_response);
//   - none may come later than the progress grace after our cancel
//     (after_cancel; one read after a stalled read does not count, nor
//     any after a plain disconnect of a 2025 era, which is no cancel);
//   - more than progress.flood_hz notifications in any one second is a
//     flood, a gap longer than progress.stall while the call runs is a
//     stall, and a result while the last value is below the total is
//     incomplete (progressTracker.finish).
//
// Each in-order notification also resets the idle timeout and may be the
// moment of a fault (after_progress).

// onProgress applies the rules to one notification (cs.mu held).

func (cs *callState) onProgress(ev client.Event) {
	switch {
	case ev.Late || !cs.cancelAt.IsZero():
		cs.rec.LateProgress++
		if cs.beyondGrace(ev.At) && cs.drainedAfterAnswer(ev.At) {
			cs.rec.LateDrained++
		} else if cs.beyondGrace(ev.At) {
			// A plain disconnect of a 2025 era is no cancel: progress that
			// still comes (on the session's GET stream, or through a
			// gateway that kept the upstream request) breaks no rule.
			legacyCut := cs.stopOutcome == results.Disconnected && !cs.info.Era.Modern()
			cs.noteLate(ev.At, !legacyCut)
		}
	case ev.AfterFinal:
		cs.rec.Violations.Add("after_response", 1)
	default:
		if cs.prog.add(ev.At, ev.Progress, ev.Total, ev.HasTotal) {
			cs.rec.Violations.Add("non_monotonic", 1)
		}
		cs.lastAlive = ev.At
		cs.onProgressFaults(cs.prog.count, ev.At, ev.Burst)
	}
}

// beyondGrace reports whether a message received at `at` came later than
// the cancel plus the grace, so that the server must have sent it after it
// could have seen the cancel. The grace runs from when the cancel was
// delivered (the stream closed, the notification written), not from when
// it was decided: on a busy machine the two can be far apart, and until
// the cancel is out the server has every right to go on. A message read
// after a stalled read (the stall_read fault) may have been written long
// before it was read, so it does not count; nor does the time this
// process stalled in between (readlag.go): the message may have waited
// for us (cs.mu held).
func (cs *callState) beyondGrace(at time.Time) bool {
	return cs.beyond(at, cs.r.plan.Progress.Grace)
}

// beyond is beyondGrace for a grace of its own (cs.mu held).
func (cs *callState) beyond(at time.Time, grace time.Duration) bool {
	if cs.cancelSent.IsZero() || at.Sub(cs.cancelSent)-cs.r.lag.within(cs.cancelSent, at) <= grace {
		return false
	}
	if !cs.pausedAt.IsZero() && cs.pausedAt.Before(at) && (cs.resumedAt.IsZero() || !cs.resumedAt.Before(cs.cancelAt)) {
		return false
	}
	return !cs.r.stalls.overlaps(cs.rec.Process, cs.cancelAt, at)
}

// progressTracker follows one call's progress notifications: monotonicity,
// gaps, and the most notifications in any one-second window.
type progressTracker struct {
	count    int
	values   []float64
	last     float64
	total    float64
	hasTotal bool
	fresh    bool      // a new round's token: its first value starts again
	prevAt   time.Time // the send, then each notification
	firstAt  time.Time
	lastAt   time.Time // the last notification
	maxGap   time.Duration
	// window holds the receive times (ns) of the last second's
	// notifications, oldest first, from head on.
	window  []int64
	head    int
	maxRate int
}

// start sets the time gaps are measured from.
func (p *progressTracker) start(sent time.Time) { p.prevAt = sent }

// newRound starts the progress of a retry (rounds.go): a new token, whose
// values start again; gaps are measured from its send (the think time
// before it is ours, not a stall).
func (p *progressTracker) newRound(sent time.Time) {
	p.prevAt = sent
	p.fresh, p.total, p.hasTotal = true, 0, false
}

// add records one in-order notification and reports whether its value
// failed to increase.
func (p *progressTracker) add(at time.Time, v, total float64, hasTotal bool) (nonMonotonic bool) {
	nonMonotonic = p.count > 0 && !p.fresh && v <= p.last
	p.fresh = false
	if p.count == 0 {
		p.firstAt = at
	}
	p.count++
	if len(p.values) < results.MaxValues {
		p.values = append(p.values, v)
	}
	p.last = v
	if hasTotal {
		p.total, p.hasTotal = total, true
	}
	if gap := at.Sub(p.prevAt); gap > p.maxGap {
		p.maxGap = gap
	}
	p.prevAt, p.lastAt = at, at
	p.rate(at.UnixNano())
	return nonMonotonic
}

// rate slides the one-second window to ns and counts it in.
func (p *progressTracker) rate(ns int64) {
	for p.head < len(p.window) && p.window[p.head] <= ns-int64(time.Second) {
		p.head++
	}
	if p.head > 0 && p.head*2 >= len(p.window) {
		n := copy(p.window, p.window[p.head:])
		p.window = p.window[:n]
		p.head = 0
	}
	p.window = append(p.window, ns)
	if n := len(p.window) - p.head; n > p.maxRate {
		p.maxRate = n
	}
}

// finish closes the last gap at the call's end and returns the record.
func (p *progressTracker) finish(end time.Time, answered bool, rules ProgressRules) *results.Progress {
	if !end.IsZero() {
		if gap := end.Sub(p.prevAt); gap > p.maxGap {
			p.maxGap = gap
		}
	}
	out := &results.Progress{Count: p.count, Values: p.values, Last: p.last, MaxRateHz: p.maxRate}
	if p.hasTotal {
		out.Total = p.total
	}
	if p.maxGap > 0 {
		out.MaxGapUs = results.Us(p.maxGap)
	}
	out.Stalled = rules.Stall > 0 && p.maxGap > rules.Stall
	out.Flood = rules.FloodHz > 0 && float64(p.maxRate) > rules.FloodHz
	out.Incomplete = answered && p.hasTotal && p.count > 0 && p.last < p.total
	if answered && !p.lastAt.IsZero() && end.After(p.lastAt) {
		out.LeadUs = max(1, results.Us(end.Sub(p.lastAt)))
	}
	return out
}

// skipped reports integer progress values that skipped a step (how a
// server may cope with a stalled reader: it dropped notifications).
func (p *progressTracker) skipped() bool {
	v := p.values
	for i := 1; i < len(v); i++ {
		if v[i] == float64(int64(v[i])) && v[i-1] == float64(int64(v[i-1])) && v[i]-v[i-1] > 1 {
			return true
		}
	}
	return false
}
