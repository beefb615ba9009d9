package engine

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// newPacer returns the open-model pacer of the plan's load.
func (r *runner) newPacer() pacer {
	if len(r.plan.Load.Stages) > 0 {
		from := 0.0 // stages without a rate start from zero
		if l := r.plan.Load.Rate; l.Freq > 0 && l.Per > 0 {
			from = l.Rate(0)
		}
		return newStages(from, r.plan.Load.Stages)
	}
	return constant{r.plan.Load.Rate}
}

// openLoad paces ticks and hands each to an idle worker, growing the pool
// only when every worker is busy, up to MaxInFlight; a tick that finds no
// room is dropped, never delayed. r.pace is set before the load starts.
func (r *runner) openLoad(ctx context.Context) {
	r.ticks = make(chan tick)
	first := r.missTicks(r.pace, r.late)
	pctx, end, stop := r.paceContext(ctx) // extend.go
	defer stop()
	pacedFrom(pctx, r.pace, r.began, end, first, r.plan.Shard.step(), func(n uint64, at time.Duration) {
		// Counted as starting before the pause is looked at: either this
		// sees the pause or the window's sweep sees the tick (windows.go).
		r.starting.Add(1)
		if r.win.paused.Load() {
			r.starting.Add(-1)
			r.win.skipped.Add(1) // a quiet window: not offered
			return
		}
		if at >= r.loadTotal() {
			r.starting.Add(-1)
			return // past the end of a load that may be extended, and was not (yet)
		}
		scheduled := r.began.Add(at)
		r.behind.tick(at, time.Since(scheduled))
		r.dispatch(ctx, tick{seq: n, scheduled: scheduled})
	})
	close(r.ticks)
}

// dispatch hands t, counted as starting until its call is in flight
// (firstCall, startCall), to a worker, or drops it.
func (r *runner) dispatch(ctx context.Context, t tick) {
	r.scheduled.Add(1)
	select {
	case r.ticks <- t:
		return
	default:
	}
	if r.nworkers.Load() < int64(r.plan.Load.MaxInFlight) {
		r.nworkers.Add(1)
		r.workers.Add(1)
		go r.worker(ctx, t)
		return
	}
	r.starting.Add(-1)
	r.dropped.Add(1)
	cs := r.newCall(t)
	cs.rec.Outcome = results.Dropped
	r.emit(&cs.rec)
}

// worker runs ticks until the load ends; while the client's memory is
// short (memlimit.go) it ends after its tick, and the pool gives back its
// stacks: a worker kept idle holds its grown stack, and a pool grown to
// thousands of calls would hold the memory shut.
func (r *runner) worker(ctx context.Context, first tick) {
	defer r.workers.Done()
	r.do(ctx, first)
	for {
		if r.mem.isShort() {
			r.nworkers.Add(-1)
			return
		}
		t, ok := <-r.ticks
		if !ok {
			return
		}
		r.do(ctx, t)
	}
}

// closedLoad runs Concurrency workers, each calling back to back.
func (r *runner) closedLoad(ctx context.Context) {
	var seq atomic.Uint64
	deadline := r.began.Add(r.plan.Load.Total())
	for i := 0; i < r.plan.Load.Concurrency && ctx.Err() == nil && time.Now().Before(deadline); i++ {
		r.workers.Add(1)
		go func() {
			defer r.workers.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				if !r.win.wait(ctx) {
					return
				}
				// Starting until in flight (firstCall, startCall); counted
				// before the pause is looked at again, as in openLoad.
				r.starting.Add(1)
				if r.win.paused.Load() {
					r.starting.Add(-1)
					continue
				}
				r.scheduled.Add(1)
				// Numbered k·N + I: distinct across the shards of a run.
				n := (seq.Add(1)-1)*r.plan.Shard.step() + r.plan.Shard.first()
				r.do(ctx, tick{seq: n, scheduled: time.Now()})
				r.mem.await(ctx, deadline) // a refused call is back at once
			}
		}()
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(deadline)):
	}
}

// do runs one call, then its re-issues (after a fault cut it) and its
// retries (after it was throttled), each as a new request with a new id.
// Its goroutine waits in cs.run for every call in flight: what comes
// before and after is kept off its frame (firstCall, afterCall), as in
// run.
func (r *runner) do(ctx context.Context, t tick) {
	cs, cl, process := r.firstCall(ctx, t)
	if cs == nil {
		return
	}
	cs.run(context.Background(), cl, process, true)
	r.afterCall(ctx, t, cs)
}

// firstCall makes the tick's call and finds its client; nil when there is
// none (a stdio server that could not be started: the call's record says
// so).
func (r *runner) firstCall(ctx context.Context, t tick) (*callState, *client.Client, int) {
	cs := r.newCall(t)
	cs.starting = true
	cl, process := r.clients.get(ctx, t.seq)
	if cl == nil {
		r.starting.Add(-1)
		cs.rec.Outcome = results.TransportError
		cs.rec.Error = r.clients.notStarted(process)
		r.emit(&cs.rec)
		return nil, nil, 0
	}
	return cs, cl, process
}

// afterCall settles a call that ended, then runs its re-issues and
// retries.
func (r *runner) afterCall(ctx context.Context, t tick, cs *callState) {
	reissues := cs.reissues
	reissued, retried := 0, 0
	for {
		v := cs.outcomeNow()
		reason, wait := cs.retryHint()
		r.completed.Add(1)
		r.learn(cs)
		r.finalize(cs)
		var kind string
		switch {
		case reissued < reissues && stoppedByFault(reason):
			reissued++
			kind, wait = "reissue", 0
		case v.outcome == results.Throttled && retried < r.plan.Throttle.Retries:
			if !r.plan.Throttle.HonorRetryAfter {
				wait = 0
			}
			wait = min(wait, maxRetryWait)
			if !time.Now().Add(wait).Before(r.loadEnd()) {
				r.retriesNotMade.Add(1) // it would start after the load's end
				return
			}
			retried++
			kind = "throttled"
		default:
			return
		}
		if kind == "throttled" && r.opts.retryWaitStarts != nil {
			r.opts.retryWaitStarts(wait)
		}
		if !r.sleepInLoad(ctx, wait) {
			if kind == "throttled" {
				r.retriesNotMade.Add(1) // the load ended (or was interrupted) during its wait
			}
			return
		}
		next := r.newCall(tick{seq: t.seq, scheduled: time.Now()})
		next.spec = cs.spec
		next.rec.Tool, next.rec.Of, next.rec.Retry = cs.spec.Tool, t.seq, kind
		next.rec.Attempt = reissued + retried
		cl, process := r.clients.get(ctx, t.seq)
		if cl == nil {
			return
		}
		next.run(context.Background(), cl, process, false)
		cs = next
	}
}

// stoppedByFault reports whether a fault stopped the call.
func stoppedByFault(r results.StopReason) bool {
	_, ok := r.Fault()
	return ok
}

// retryHint returns why the call was stopped and the Retry-After it got.
func (cs *callState) retryHint() (results.StopReason, time.Duration) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.rec.CancelReason, max(cs.retryAfter, 0)
}

// maxRetryWait bounds the wait before a retry, whatever Retry-After says.
const maxRetryWait = time.Minute

// loadEnd is when the load ends (its extension for more quiet windows
// included, extend.go): no call is retried past it.
func (r *runner) loadEnd() time.Time { return r.began.Add(r.loadTotal()) }

// sleepInLoad waits d unless ctx or the load ends first; false when either
// ended.
func (r *runner) sleepInLoad(ctx context.Context, d time.Duration) bool {
	return sleepUntil(ctx, d, r.loadOver)
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool { return sleepUntil(ctx, d, nil) }

// sleepUntil waits d unless ctx ends or stop is closed first (nil: no
// stop); false when either came first.
func sleepUntil(ctx context.Context, d time.Duration, stop <-chan struct{}) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-stop:
		return false
	case <-t.C:
		return true
	}
}

// finalize hands the call's record to the collector after the late window
// (latequeue.go).
func (r *runner) finalize(cs *callState) {
	if r.lateQ != nil {
		r.lateQ.add(cs)
		return
	}
	r.pending.Add(1)
	time.AfterFunc(r.plan.LateWindow, func() { r.handOver(cs) })
}

// emit hands a record to the collector now.
func (r *runner) emit(rec *results.Record) {
	r.pending.Add(1)
	r.records <- rec
	r.pending.Done()
}
