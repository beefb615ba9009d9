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
// poll interval, until its status is terminal, timeouts.max after the
// cancel, or the end of the run's wait for such tasks (runner.runOn): its
// record then says when its work ended (Task.EndUs), and tasks.ran_on_ms
// how long after the cancel. A task whose end is never seen counts as
// ours until the run's end.

// runOnTask follows a task whose cancel's grace ended with it still
// working; the call's record waits for it (acting).
func (cs *callState) runOnTask(cl *client.Client, id string, tr *results.Task) {
	cs.mu.Lock()
	cs.acting++
	cancelAt := cs.cancelSent
	cs.mu.Unlock()
	go func() {
		defer func() {
			cs.mu.Lock()
			cs.endActing()
			cs.mu.Unlock()
		}()
		var capped <-chan time.Time // timeouts.max after the cancel; none without a cap
		if m := cs.r.plan.Timeouts.Max; m > 0 {
			deadline := time.NewTimer(max(time.Until(cancelAt.Add(m)), 0))
			defer deadline.Stop()
			capped = deadline.C
		}
		for {
			cs.mu.Lock()
			next := cs.task.polled.Add(cs.pollWaitPlain())
			cs.mu.Unlock()
			t := time.NewTimer(max(time.Until(next), 0))
			select {
			case <-t.C:
			case <-capped:
				t.Stop()
				return
			case <-cs.r.runOn.Done():
				t.Stop()
				return
			}
			if !cs.pollRunOn(cl, id, tr) {
				cs.r.inflight.taskEnded(cs)
				return
			}
		}
	}()
}

// pollRunOn polls a task followed after its cancel once; false when it is
// over (terminal, or the server no longer knows it). The poll ends when
// the run stops following such tasks.
func (cs *callState) pollRunOn(cl *client.Client, id string, tr *results.Task) bool {
	rctx, cancel := context.WithTimeout(cs.r.runOn, cs.r.plan.Timeouts.Idle)
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
		return true
	case cs.r.runOn.Err() != nil:
		return true // stopped following: the end was not seen
	case r.Err() != nil || err != nil:
		return false
	}
	tr.Status = task.Status
	if client.TaskTerminal(task.Status) {
		tr.EndUs = cs.us(r.At)
		return false
	}
	return true
}

// awaitRunOn waits until no task is between its tasks/cancel and its end,
// until deadline or until ctx ends, then stops following the rest; it
// returns how many were still working.
func (r *runner) awaitRunOn(ctx context.Context, deadline time.Time) int {
	for {
		n, _ := r.inflight.runningOn()
		if n == 0 || !time.Now().Before(deadline) || ctx.Err() != nil {
			r.stopRunOn()
			return n
		}
		sleep(ctx, 20*time.Millisecond)
	}
}
