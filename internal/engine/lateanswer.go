package engine

import "time"

// A cut call's answer of finished work (issue 25, item 2). Progress read
// late may have been produced long before: a server's write queue, or a
// reader starved of CPU, holds it back, and only a fence tells (fence.go).
// An answer of finished work is different: the server writes it once the
// call's last step is done, so the call worked until then, and the time
// it is read bounds that from above. What the clock cannot tell is the
// time between the step's end and our read: the server's write, the pipe,
// our own read. Under the agreement benchmark's load (two CPUs busy with a
// Go server's steps) that was 0.3 ms at the median, 10 ms at p90 and at
// most 27 ms (go-sdk and mcp-go over stdio, 340 answered calls against the
// servers' logs; docs/decisions.md, "A cut call's answer, by the clock"),
// while a ping's answer, the fence, came 30–100 ms late: a run-on shorter
// than that showed nothing (two of the table's 480 runs, 16 and 19 ms
// past the grace, were false passes).
//
// So an answer of finished work read later than our cancel plus the work
// grace, with this process's own stalls taken off (beyond), is the call's
// leftover work by the clock alone, fence or not, with no give or take:
// the call ran to its end past the grace, unless the server's write lagged
// its work by more than the answer is late. The records mark it
// (results.Record.LeftoverByAnswer) and the verdict says so. An answer
// that says it was cancelled is the server's answer to the cancel
// (cancelanswer.go), an error or a task's handle is no finished work, and
// an answer within the work grace by the clock goes to the fences as
// before.

// noteLateResult weighs a result read after our cancel that is no answer
// to the cancel and no error; complete: it is the call's answer of
// finished work (not a task's handle; cs.mu held).
func (cs *callState) noteLateResult(at time.Time, complete bool) {
	switch {
	case complete && cs.beyond(at, cs.r.plan.workGrace()):
		if at.After(cs.answerSeen) {
			cs.answerSeen = at
		}
	case cs.beyondGrace(at):
		cs.noteLate(at, false)
	default:
		cs.noteLagged(at)
	}
}
