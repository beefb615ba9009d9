package engine

import "strconv"

// Progress that comes in a burst. A gateway that buffers a call's stream
// (nginx's default) releases the progress it held together with the
// result, in one piece. The N-th notification of such a burst is not
// "progress N came" while the call runs: the call is already answered, in
// bytes we have received but not yet read. So an after_progress fault
// whose notification was read with more of the stream already behind it
// (client.Event.Burst, HTTP) waits for the rest of that piece:
//
//   - when a notification not in a burst follows (the stream goes on, one
//     read at a time), the fault acts then, scheduled at its own
//     notification;
//   - when the final response follows, the call ended first: the fault is
//     skipped, and its record says why;
//   - meanwhile its time fallback (progressfallback.go) still runs, so a
//     call whose progress is held back meets the fault at the fallback, as
//     documented, before any burst.

// releaseHeld fires the faults whose notification came in a burst that
// has now ended with the call still running (cs.mu held).
func (cs *callState) releaseHeld() {
	for _, a := range cs.armed {
		if !a.held || a.done {
			continue
		}
		a.done = true
		if a.timer != nil {
			a.timer.Stop()
		}
		cs.due = append(cs.due, dueFault{a, a.heldAt})
	}
}

// heldDetail says in a skipped fault's record that its notification came
// only with the answer.
func heldDetail(a *armed) string {
	return "the call ended first: progress " + strconv.Itoa(a.when.Progress) +
		" came in one piece with the answer (a buffered stream), not while the call ran"
}
