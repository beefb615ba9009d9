package engine

import (
	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// record completes the call's Record once its late window has passed.
func (cs *callState) record() *results.Record {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.waitActing()
	rec := &cs.rec
	cs.apply(cs.classify())
	cs.skippedFaults()
	cs.answer(rec)
	cs.settleLate()
	// Work seen after the cancel plus the work grace is the call's
	// leftover work; anything sooner is the race the spec allows, or the
	// server still stopping within the grace it was given.
	if !cs.lastSeen.IsZero() && !cs.cancelAt.IsZero() && cs.lastSeen.Sub(cs.cancelAt) > cs.r.plan.workGrace() {
		rec.LeftoverUs = results.Us(cs.lastSeen.Sub(cs.cancelAt))
	}
	// A message is fenced only after the answer to a ping sent at
	// cancel + the work grace, so it is past the grace already.
	if rec.LeftoverUs == 0 && !cs.fencedSeen.IsZero() && !cs.cancelAt.IsZero() {
		rec.FencedUs = results.Us(cs.fencedSeen.Sub(cs.cancelAt))
	}
	rec.FenceLagUs = cs.fenceLag()
	end := cs.responseAt
	if end.IsZero() || (!cs.cancelAt.IsZero() && cs.cancelAt.Before(end)) {
		end = cs.cancelAt
	}
	if end.IsZero() {
		end = cs.endAt
	}
	if cs.spec.Progress && !cs.sent.IsZero() {
		if task := cs.task.created; !task.IsZero() && task.Before(end) {
			// No progress while a task is polled: the gap ends at the
			// task's creation, and its progress, if any came, was not the
			// work's whole (the task's answer is). The timeout policies
			// still replay the whole call's silence.
			rec.Progress = cs.prog.finish(task, false, cs.r.plan.Progress)
			cs.prog.maxGap = max(cs.prog.maxGap, end.Sub(cs.prog.prevAt))
		} else {
			rec.Progress = cs.prog.finish(end, rec.ResponseUs != 0, cs.r.plan.Progress)
		}
	}
	rec.Policies = cs.policies(rec.ResponseUs != 0, end)
	if cs.prog.count > 0 {
		rec.FirstProgUs = cs.us(cs.prog.firstAt)
	}
	cs.judgeBadRetry(true)
	cs.describeFaults()
	cs.recorded = true
	return rec
}

// answer writes what the call's answer was into rec: its times, status,
// code, message, result type and retry hints (cs.mu held).
func (cs *callState) answer(rec *results.Record) {
	rec.SentUs = cs.us(cs.sent)
	rec.HeadersUs = cs.us(cs.headersAt)
	rec.CancelUs = cs.us(cs.cancelAt)
	rec.CancelSentUs = cs.us(cs.cancelSent)
	rec.EndUs = cs.us(cs.endAt)
	if !cs.responseAt.IsZero() && (cs.cancelAt.IsZero() || cs.responseAt.Before(cs.cancelAt)) {
		rec.ResponseUs = cs.us(cs.responseAt)
	}
	rec.Status = cs.status
	if cs.hasCode {
		code := cs.code
		rec.Code = &code
	}
	rec.Message = cs.message
	if cs.retryAfter >= 0 && cs.status != 0 {
		ms := cs.retryAfter.Milliseconds()
		rec.RetryAfterMs = &ms
	}
	if cs.claim.Limit > 0 {
		rec.RateLimitLimit, rec.RateLimitWindowMs, rec.RateLimitFrom = cs.claim.Limit, cs.claim.Window.Milliseconds(), cs.claim.From
	}
	if cs.reset >= 0 && cs.status != 0 {
		ms := cs.reset.Milliseconds()
		rec.RateLimitResetMs = &ms
	}
	if cs.hintFrom != "" {
		ms := cs.hint.Milliseconds()
		rec.RetryHintMs, rec.RetryHintFrom = &ms, cs.hintFrom
	}
	if cs.final == finalResult {
		rec.ResultType = cs.result.Type.String()
	}
	if rec.ResultType == "" && cs.unsentAsk {
		// The server asked, and the call was stopped before it answered:
		// counted in mrtr.input_required as "the last answer, not retried".
		rec.ResultType = client.ResultInputRequired.String()
	}
}
