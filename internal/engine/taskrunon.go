package engine

import (
	"context"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// A task that runs on after tasks/cancel is allowed to (cancelling a task
// is cooperative), so the tool reports it and does not hold it against the
// server. A task still working when its cancel's grace ends is followed on
// its own goroutine, at its poll interval, until its status is terminal,
// timeouts.max after the cancel, or the end of the run's wait for such
// tasks (runOnQuit): its record then says when its work ended (Task.EndUs)
// and tasks.ran_on_ms how long after the cancel. While followed it is a
// call in flight on the client's side for the counting probes (their
// leaked work is not the task's), but no stop waits for it, and a quiet
// window or the reading after the load that it overlaps does not judge the
// server's CPU (Window.TasksRunningOn, Orphans.TasksRunningOn).

// runOnTask follows a task whose cancel's grace ended with it still
// working; the call's record waits for it (acting).
func (cs *callState) runOnTask(cl *client.Client, id string, tr *results.Task) {
	cs.mu.Lock()
	cs.acting++
	cancelAt := cs.cancelSent
	cs.mu.Unlock()
	cs.r.inflight.beginRunOn()
	go func() {
		defer func() {
			cs.r.inflight.endRunOn()
			cs.mu.Lock()
			cs.endActing()
			cs.mu.Unlock()
		}()
		deadline := time.NewTimer(max(time.Until(cancelAt.Add(cs.r.plan.Timeouts.Max)), 0))
		defer deadline.Stop()
		for {
			cs.mu.Lock()
			next := cs.task.polled.Add(cs.pollWaitPlain())
			cs.mu.Unlock()
			t := time.NewTimer(max(time.Until(next), 0))
			select {
			case <-t.C:
			case <-deadline.C:
				t.Stop()
				return
			case <-cs.r.runOnQuit:
				t.Stop()
				return
			}
			if !cs.pollRunOn(cl, id, tr) {
				return
			}
		}
	}()
}

// pollRunOn polls a task followed after its cancel once; false when it is
// over (terminal, or the server no longer knows it).
func (cs *callState) pollRunOn(cl *client.Client, id string, tr *results.Task) bool {
	rctx, cancel := cs.requestCtx(context.Background())
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

// stopRunOn ends the following of tasks after their cancel (once).
func (r *runner) stopRunOn() {
	r.runOnOnce.Do(func() { close(r.runOnQuit) })
}

// awaitRunOn waits until no task is followed after its cancel, until
// deadline or until ctx ends, then stops following the rest; it returns
// how many were still working.
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
