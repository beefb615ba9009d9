package engine

import (
	"strconv"

	"github.com/mcpchaos/mcpchaos/faults"
	"github.com/mcpchaos/mcpchaos/results"
)

// record completes the call's Record once its late window has passed.
func (cs *callState) record() *results.Record {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	rec := &cs.rec
	cs.apply(cs.classify())
	cs.skippedFaults()
	rec.SentUs = cs.us(cs.sent)
	rec.HeadersUs = cs.us(cs.headersAt)
	rec.CancelUs = cs.us(cs.cancelAt)
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
	if cs.final == finalResult {
		rec.ResultType = cs.result.Type.String()
	}
	// Work seen after the cancel plus the grace is the call's leftover
	// work; anything sooner is the race the spec allows.
	if !cs.lastSeen.IsZero() && !cs.cancelAt.IsZero() && cs.lastSeen.Sub(cs.cancelAt) > cs.r.plan.Progress.Grace {
		rec.LeftoverUs = results.Us(cs.lastSeen.Sub(cs.cancelAt))
	}
	end := cs.responseAt
	if end.IsZero() || (!cs.cancelAt.IsZero() && cs.cancelAt.Before(end)) {
		end = cs.cancelAt
	}
	if end.IsZero() {
		end = cs.endAt
	}
	if cs.spec.Progress && !cs.sent.IsZero() {
		rec.Progress = cs.prog.finish(end, rec.ResponseUs != 0, cs.r.plan.Progress)
	}
	rec.Policies = cs.policies(rec.ResponseUs != 0, end)
	if cs.prog.count > 0 {
		rec.FirstProgUs = cs.us(cs.prog.firstAt)
	}
	cs.describeFaults()
	cs.recorded = true
	return rec
}

// describeFaults adds what only the end of the call tells: whether a
// malformed request got the answer a correct server gives, and how the
// server coped with a stalled reader.
func (cs *callState) describeFaults() {
	for i := range cs.rec.Faults {
		f := &cs.rec.Faults[i]
		switch {
		case f.Kind == "malformed":
			m := cs.malformed.(*faults.Malformed)
			f.ScheduledUs, f.ActualUs = cs.us(cs.sent), cs.us(cs.sent)
			answer := "HTTP " + strconv.Itoa(cs.status)
			if cs.status == 0 {
				answer = "no HTTP status"
			}
			if cs.hasCode {
				answer += ", error " + strconv.FormatInt(cs.code, 10)
			} else if cs.final == finalResult {
				answer += ", a result"
			}
			if m.Expected(cs.info.Era, cs.status, cs.codeOrZero(), cs.final != finalNone || cs.status != 0) {
				f.Detail = "expected answer: " + answer
			} else {
				f.Detail = "unexpected answer: " + answer
			}
		case f.Kind == "stall_read" && !f.Skipped:
			f.Detail += "; server " + cs.coping()
		}
	}
}

func (cs *callState) codeOrZero() int64 {
	if cs.hasCode {
		return cs.code
	}
	return 0
}

// coping classifies how the server fared with a stalled reader.
func (cs *callState) coping() string {
	switch {
	case cs.rec.Outcome == results.TransportError || cs.rec.Outcome == results.ProtocolError:
		return "errored"
	case cs.burst >= 2:
		return "buffered"
	case cs.droppedProgress():
		return "dropped"
	}
	return "blocked"
}

// droppedProgress reports integer progress values that skipped a step
// across the stall.
func (cs *callState) droppedProgress() bool {
	v := cs.prog.values
	for i := 1; i < len(v); i++ {
		if v[i] == float64(int64(v[i])) && v[i-1] == float64(int64(v[i-1])) && v[i]-v[i-1] > 1 {
			return true
		}
	}
	return false
}
