package engine

import "time"

// Late messages that an ordering explains (issue 25, item 2). Two facts
// about how servers write, each sounder than our clock on a loaded machine:
//
//   - A tool call's progress is produced by its handler before the
//     handler returns, and its answer is written after it returns. So a
//     progress notification read after the call's own answer, when that
//     answer came within cancel + grace, was produced within cancel +
//     grace too: it waited in a write queue of its own (mcp-go queues
//     notifications on a channel apart from its answers, on stdio and over
//     HTTP, and a starved server drains that queue hundreds of ms late).
//     It is counted as drained (late_drained), not as work. This holds on
//     every transport; over HTTP it is the one ordering there is.
//   - On stdio an answer is written by the SDK's answer path, the one that
//     also answers the fence's ping: a result read after the fence's
//     answer was written after the server read the ping, sent at cancel +
//     grace or later, whatever our own read lag. So a late result on a
//     fenced connection is weighed against the fence alone (fence.go), not
//     first thinned by our read lag (readlag.go), which is a proxy for
//     what the fence measures. Progress keeps the read lag: a server may
//     write notifications from a queue of their own, behind a fence's
//     answer.

// drainedAfterAnswer reports whether a late progress notification read at
// at comes after the call's own answer, itself read within cancel + grace:
// produced before that answer, so no work after the cancel (cs.mu held).
// A server that goes on in the background after answering, sending
// progress, is not caught by this rule.
func (cs *callState) drainedAfterAnswer(at time.Time) bool {
	return !cs.responseAt.IsZero() && cs.responseAt.Before(at) && !cs.beyondGrace(cs.responseAt)
}

// noteLagged keeps a result read later than the cancel plus the work
// grace by the clock, though not once our own stalls are taken off
// (beyondGrace), to be weighed against a stdio fence: read after the work
// fence's answer, it was written after the server read that ping,
// whatever our read lag (work when past the fence's give or take as well,
// Plan.workProof; fenced otherwise, settleLate). Without a fence, or
// within the work grace by the clock, it is nothing (a result breaks no
// progress rule; cs.mu held).
func (cs *callState) noteLagged(at time.Time) {
	if cs.fence == nil || cs.cancelSent.IsZero() || at.Sub(cs.cancelSent) <= cs.r.plan.workGrace() {
		return
	}
	cs.keepLate(lateMsg{at: at, lagged: true, work: at.Sub(cs.cancelSent) > cs.r.plan.workProof()})
}
