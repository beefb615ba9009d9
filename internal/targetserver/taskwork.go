package targetserver

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/results"
)

// A task's work: slow_task's steps on a goroutine of its own, which ends
// the task completed, cancelled (tasks/cancel, unless task_ignore_cancel)
// or leaves it failed by its TTL. No progress is sent: the extension does
// not support progress on tasks. The work counts in the inflight gauge
// while it runs, so the metric probe sees work that runs on after a
// cancel; its end ends the call's truth record and logs its log_calls
// line (tasktruth.go).

// runTask does t's steps, asking for confirmation after the first with
// task_input.
func (s *Server) runTask(t *task, a stepArgs) {
	s.metrics.inflight.Add(1)
	defer s.metrics.inflight.Add(-1)
	defer s.endTaskCall(t)
	for i := range a.Steps {
		if i == 1 && s.cfg.TaskInput {
			ok, goOn := s.askTask(t)
			if !goOn {
				return
			}
			if !ok {
				s.completeTask(t, "task not done: the confirmation was not given", true, i)
				return
			}
		}
		if !s.taskStep(t, time.Duration(a.StepMs)*time.Millisecond) {
			return
		}
	}
	s.completeTask(t, "done: "+strconv.Itoa(a.Steps)+" steps", false, a.Steps)
}

// stopChan is the channel that stops t's work: tasks/cancel, unless the
// task ignores it (nil: never).
func (s *Server) stopChan(t *task) <-chan struct{} {
	if s.cfg.TaskIgnoreCancel {
		return nil
	}
	return t.stop
}

// taskStep waits one step; false when the task is to stop (cancelled,
// expired, or the server closing).
func (s *Server) taskStep(t *task, d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-s.stopChan(t):
		s.cancelTask(t)
		return false
	case <-s.closing:
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if terminal(t.truth.Status) {
		return false // expired meanwhile
	}
	if t.cancelled() {
		t.truth.StepsAfterCancel++
		s.metrics.taskStepsAfterCancel.Add(1)
	}
	return true
}

// askTask puts t in input_required and waits for the answer: ok is the
// confirmation; goOn false when the task ended meanwhile.
func (s *Server) askTask(t *task) (ok, goOn bool) {
	t.mu.Lock()
	t.truth.Asked++
	t.askKey = "confirm-" + strconv.Itoa(t.truth.Asked) // unique over the task's life
	t.setStatus(taskInputRequired, "waiting for confirmation", time.Now())
	t.mu.Unlock()
	s.metrics.taskInputAsked.Add(1)
	// The expiry makes the status terminal; poll for it at the interval so
	// a task nobody answers ends with its TTL.
	tick := time.NewTicker(t.interval)
	defer tick.Stop()
	for {
		select {
		case ok = <-t.answer:
			t.mu.Lock()
			defer t.mu.Unlock()
			return ok, t.setStatus(taskWorking, "", time.Now())
		case <-s.stopChan(t):
			s.cancelTask(t)
			return false, false
		case <-s.closing:
			return false, false
		case <-tick.C:
			t.mu.Lock()
			over := terminal(t.truth.Status)
			t.mu.Unlock()
			if over {
				return false, false
			}
		}
	}
}

// cancelTask ends t cancelled.
func (s *Server) cancelTask(t *task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.setStatus(taskCancelled, "cancelled by tasks/cancel", time.Now()) {
		s.metrics.tasksCancelled.Add(1)
	}
}

// completeTask ends t completed with a tool result (isError: a tool error,
// still completed, as the spec says).
func (s *Server) completeTask(t *task, text string, isError bool, steps int) {
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}, "isError": isError,
		"structuredContent": map[string]any{"steps": steps}}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.truth.Marker != "" {
		res["_meta"] = map[string]any{results.MarkerMeta: t.truth.Marker}
	}
	b, _ := json.Marshal(res)
	t.result = b
	if t.setStatus(taskCompleted, "", time.Now()) {
		s.metrics.tasksCompleted.Add(1)
	}
}

// expireTask runs at the task's TTL: a task still running fails; one TTL
// later it is deleted.
func (s *Server) expireTask(t *task) {
	t.mu.Lock()
	defer t.mu.Unlock()
	select {
	case <-s.closing:
		return
	default:
	}
	msg := "task expired: its ttl of " + t.ttl.String() + " passed before it finished"
	t.errObj, _ = json.Marshal(rpcmsg.Error{Code: rpcmsg.CodeInternalError, Message: msg})
	if t.setStatus(taskFailed, msg, time.Now()) {
		s.metrics.tasksFailed.Add(1)
	} else {
		t.errObj = nil
	}
	t.expiry = time.AfterFunc(t.ttl, func() { s.tasks.remove(t.id) })
}
