package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/results"
)

// The bad_retry fault (faults/retry.go) breaks a call's first retry after
// input_required, or abandons the call there; the answer to the broken
// retry is judged when its round ends.

// badRetry is a bad_retry fault drawn for a call.
type badRetry struct {
	fault faults.RetryBreaker
	rec   int // its entry in rec.Faults
	round int // the round of the broken retry; -1 until it is sent
	done  bool
}

// breakRetry applies the fault to the call's first retry, and reports
// whether the call was abandoned instead (cs.mu held).
func (cs *callState) breakRetry(next *client.CallRequest) (abandoned bool) {
	b := cs.badRetry
	if b == nil || b.done || b.round >= 0 {
		return false
	}
	mode, abandon := b.fault.BreakRetry(next)
	now := time.Now()
	f := &cs.rec.Faults[b.rec]
	f.Mode, f.Skipped, f.Detail = mode, false, ""
	f.ScheduledUs, f.ActualUs = cs.us(now), cs.us(now)
	if !abandon {
		b.round = cs.round + 1
		return false
	}
	b.done = true
	f.Detail = "abandoned after input_required: no retry sent"
	cs.stopOutcome, cs.cancelAt, cs.cancelSent = results.Cancelled, now, now
	cs.stopped.Store(true)
	cs.rec.CancelReason = results.FaultStop(f.Kind)
	cs.final, cs.result, cs.responseAt = finalNone, client.Result{}, time.Time{}
	cs.stopTimers()
	return true
}

// judgeBadRetry judges the answer to the broken retry once its round has
// ended; at the call's end (last) a retry that got no answer is not
// judged (cs.mu held).
func (cs *callState) judgeBadRetry(last bool) {
	b := cs.badRetry
	if b == nil || b.done || b.round < 0 || b.round != cs.round {
		return
	}
	f := &cs.rec.Faults[b.rec]
	if cs.final == finalNone || cs.stopOutcome != "" && !cs.responseAt.Before(cs.cancelAt) {
		if last {
			b.done = true
			f.Detail = "not judged: the call was cut before an answer (" + cs.rec.Outcome + ")"
		}
		return
	}
	b.done = true
	done := cs.final == finalResult && cs.result.Type != client.ResultInputRequired && !cs.result.IsError
	answer := "an error"
	switch {
	case done:
		answer = "the work done"
	case cs.final == finalResult && cs.result.Type == client.ResultInputRequired:
		answer = "input_required again"
	case cs.final == finalResult:
		answer = "a tool error"
	}
	if b.fault.Expected(faults.RetryAnswer{Done: done}) {
		f.Detail = "expected answer: " + answer
	} else {
		f.Detail = "unexpected answer: " + answer
	}
}
