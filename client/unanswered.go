package client

import "time"

// unansweredCalls remembers the calls a shared-stream transport (stdio,
// HTTP+SSE) forgot at the end of their late window without a final
// response, each with when it was stopped: an answer read for one later
// is a stale answer of ours, whose marker still names the call
// (staleecho.go). One per call; at most maxUnanswered. Its transport's
// mutex guards it.
type unansweredCalls map[int64]time.Time

// maxUnanswered bounds the calls remembered.
const maxUnanswered = 1 << 16

// note remembers call, stopped at stopped, unless its final response came.
func (u *unansweredCalls) note(call *Call, stopped time.Time) {
	if call.state.Load()&stFinal != 0 || len(*u) >= maxUnanswered {
		return
	}
	if *u == nil {
		*u = make(unansweredCalls)
	}
	(*u)[call.id] = stopped
}

// take reports whether id was remembered, and when it was stopped, and
// forgets it.
func (u unansweredCalls) take(id int64) (time.Time, bool) {
	stopped, ok := u[id]
	delete(u, id)
	return stopped, ok
}
