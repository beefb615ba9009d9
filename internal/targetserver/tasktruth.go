package targetserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// A task's work in the truth records (GET /calls, truth.go) and the call
// log (log_calls, calllog.go), recorded as an ordinary call's is: the
// tools/call that made the task gets its record when the task is made
// (its work starts then); tasks/cancel is the call's cancel (Cancelled:
// when the target learned of it, whether or not the work then stopped);
// and the record ends when the work ends: Completed and Ended when the
// task completed (a declined confirmation included: a tool error is still
// a completed task), Ended alone when the work stopped short (tasks/cancel,
// the task's ttl, the server closing). The call log's line is written at
// the same moment, under the tools/call's request id: done or cancelled.
// So a gateway join and a log probe read a task call as any other: a task
// that ignores its cancel (task_ignore_cancel) is work that ran on after
// it.

// taskCall is what a task keeps of the tools/call that made it.
type taskCall struct {
	rec   *truthRec // nil when the call carried no marker
	logID string    // its request id for log_calls; "" when the knob is off
}

// beginTaskCall starts the records of the tools/call req, served as a
// task.
func (s *Server) beginTaskCall(req mcp.Request) taskCall {
	creq, _ := req.(*mcp.CallToolRequest)
	c := taskCall{rec: s.beginCall(creq)}
	if s.calls != nil && creq != nil && creq.Params != nil {
		c.logID = logID(creq.Params.Meta)
	}
	return c
}

// cancelled notes the task's first tasks/cancel.
func (c taskCall) cancelled() { c.rec.cancelled() }

// endTaskCall ends the records of t's call when its work ends: done when
// the task completed.
func (s *Server) endTaskCall(t *task) {
	t.mu.Lock()
	done, c := t.truth.Status == taskCompleted, t.call
	t.mu.Unlock()
	if c.logID != "" {
		s.calls.endedID(c.logID, done)
	}
	c.rec.ended(done)
}
