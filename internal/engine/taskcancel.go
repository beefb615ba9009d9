package engine

import (
	"context"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
)

// A call stopped while its task is followed: tasks/cancel, then the task
// watched for orphans.grace to see whether its work ran on.

// cancelTask sends tasks/cancel for a call stopped while its task was
// followed, then watches the task for orphans.grace: a task that does not
// end cancelled in that time is leftover work. Its polls keep the task's
// interval, counted from the server's last answer (or refusal), as the
// follow's do; the last one comes at the grace's end even when that is
// sooner (the status then is what the verdict needs), and a server with a
// poll limit may refuse it: a refusal counts in poll_throttled, and the
// status is then the last one answered.
func (cs *callState) cancelTask(ctx context.Context, cl *client.Client) {
	cs.mu.Lock()
	id, tr := cs.task.id, cs.rec.Task
	cs.mu.Unlock()
	cs.r.inflight.taskCancelled(cs)    // ours until its end is seen (taskrunon.go)
	rctx, cancel := cs.requestCtx(ctx) // the end of the run stops calls, and still cancels their tasks
	reply := cl.CancelTask(rctx, id)
	cancel()
	cs.cutOut.Store(true) // a window's sweep waited for it (windows.go)
	now := time.Now()
	cs.mu.Lock()
	tr.CancelUs = cs.us(now)
	cs.cancelSent = now
	if err := reply.Err(); err != nil {
		cs.rec.Error = truncate("tasks/cancel: "+err.Error(), 300)
	}
	cs.mu.Unlock()
	deadline := now.Add(cs.r.plan.Orphans.Grace)
	lastFailed := false
	for time.Now().Before(deadline) {
		cs.mu.Lock()
		next := cs.task.polled.Add(cs.pollWaitPlain())
		cs.mu.Unlock()
		t := time.NewTimer(max(min(time.Until(next), time.Until(deadline)), 0))
		<-t.C
		terminal, gone := cs.pollAfterCancel(context.WithoutCancel(ctx), cl, id, tr)
		if lastFailed = gone; terminal || gone {
			break
		}
	}
	cs.mu.Lock()
	tr.Leftover = tr.Status != client.TaskCancelled
	// Still working (not a server that no longer knows the task: an
	// answer that never came is not the task's end): followed on to see
	// when its work ends.
	runOn := tr.Leftover && !client.TaskTerminal(tr.Status) && !lastFailed
	cs.mu.Unlock()
	if runOn {
		cs.runOnTask(cl, id, tr)
		return
	}
	cs.r.inflight.taskEnded(cs)
}

// pollWaitPlain is the task's interval, as asked, whatever a fault says
// (cs.mu held).
func (cs *callState) pollWaitPlain() time.Duration {
	if cs.task.interval >= 0 {
		return time.Duration(cs.task.interval) * time.Millisecond
	}
	return defaultPollInterval
}
