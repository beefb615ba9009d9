package engine

import (
	"context"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// A task that runs on after tasks/cancel is allowed to (cancelling a task
// is cooperative), so the tool reports it and does not hold it against the
// server. From its tasks/cancel until its end is seen, a task counts as
// ours (inflightSet.taskCancelled): a call in flight on the client's side
// for the counting probes (their leaked work is not the task's), though no
// stop waits for it, and a quiet window measured meanwhile, or the reading
// after the load, does not judge the server's CPU or counts
// (Window.TasksRunningOn, Orphans.TasksRunningOn). A task still working
// when its cancel's grace ends is followed on its own goroutine, at its
// poll interval (at least runOnSlow apart once timeouts.max has passed
// since the cancel), until its status is terminal, the server answers that
// it does not know it, or the run's wait for such tasks ends
// (runner.runOn): its record then says when its work ended (Task.EndUs),
// and tasks.ran_on_ms how long after the cancel. A poll that gets no
// answer (a timeout, a refused connection) is not the task's end. A task
// whose end is never seen counts as ours until the run's end.

// runOnSlow is the least wait between polls of a task followed for longer
// than timeouts.max after its cancel.
const runOnSlow = 5 * time.Second

// runOnTask follows a task whose cancel's grace ended with it still
// working; the call's record waits for it (acting).
func (cs *callState) runOnTask(cl *client.Client, id string, tr *results.Task) {
	cs.mu.Lock()
	cs.acting++
	slowFrom := cs.cancelSent.Add(cs.r.plan.Timeouts.Max)
	cs.mu.Unlock()
	cs.r.following.Add(1)
	go func() {
		defer func() {
			cs.r.following.Add(-1)
			cs.mu.Lock()
			cs.endActing()
			cs.mu.Unlock()
		}()
		for {
			cs.mu.Lock()
			wait := cs.pollWaitPlain()
			if cs.r.plan.Timeouts.Max > 0 && time.Now().After(slowFrom) {
				wait = max(wait, runOnSlow)
			}
			next := cs.task.polled.Add(wait)
			cs.mu.Unlock()
			t := time.NewTimer(max(time.Until(next), 0))
			select {
			case <-t.C:
			case <-cs.r.runOn.Done():
				t.Stop()
				return
			}
			if terminal, gone := cs.pollAfterCancel(cs.r.runOn, cl, id, tr); terminal || gone {
				cs.r.inflight.taskEnded(cs)
				return
			}
		}
	}()
}

// pollAfterCancel polls a task after its tasks/cancel once, bounded by
// the idle timeout and by ctx: terminal when its status is, gone when the
// server answered that it does not know it (a refusal as too soon, or an
// answer that never came, is neither). The next poll waits a full
// interval from now whatever the answer: never a burst of polls.
func (cs *callState) pollAfterCancel(ctx context.Context, cl *client.Client, id string, tr *results.Task) (terminal, gone bool) {
	rctx, cancel := context.WithTimeout(ctx, cs.r.plan.Timeouts.Idle)
	r := cl.GetTask(rctx, id)
	cancel()
	task, err := client.ParseTask(r.Raw)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	tr.Polls++
	cs.task.polled = time.Now()
	switch {
	case r.Throttled():
		tr.PollThrottled++
		return false, false
	case r.Err() == nil && err == nil:
		tr.Status = task.Status
		if client.TaskTerminal(task.Status) {
			tr.EndUs = cs.us(r.At)
			return true, false
		}
		return false, false
	}
	return false, taskGone(r)
}

// taskGone reports whether a tasks/get reply says the server no longer
// knows the task: a JSON-RPC error (-32602 for an unknown or expired id),
// not a reply that never came.
func taskGone(r client.TaskReply) bool { return r.RPCErr != nil }

// awaitRunOn waits until no task is followed after its cancel, until
// deadline or until ctx ends, then stops following the rest; it returns
// how many tasks were still working (their end unseen).
func (r *runner) awaitRunOn(ctx context.Context, deadline time.Time) int {
	for r.following.Load() > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		sleep(ctx, 20*time.Millisecond)
	}
	r.stopRunOn()
	n, _ := r.inflight.runningOn()
	return n
}
