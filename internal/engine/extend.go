package engine

import (
	"context"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
)

// More quiet windows when the evidence is weak (issue 25, item 4).
//
// The automatic windows of a short load are few: a load of 3 s takes one.
// On a machine short of CPU one clean window is weak evidence: a server
// starved of CPU burns a few ms past the grace in it, under the window's
// threshold, and the one batch of calls it cut may all have stopped. So
// when mcpchaos took the windows itself on an open-model load, and at the
// load's end no window has shown leftover work (alone or summed) while the
// machine was short of CPU so that the run would be not_observable (a
// starved window, or mcpchaos itself stalled for half the load), the load
// goes on, at the rate it ended with, until one more window is due, and
// the window is taken; up to maxExtensions times, and never longer in all
// than the load itself or maxExtensions windows' intervals. The windows'
// leftover is summed against their summed threshold (summedThreshold), so
// a few ms per window add up. The summary says so
// (cancellation.windows.extensions, extended_ms), and the load's duration
// and rates include the extension. Background faults keep to the load's
// planned end.

// maxExtensions bounds the windows added to a load.
const maxExtensions = 3

// extendStall is the share of the load mcpchaos must have stalled for the
// machine to count as short of CPU (report's clientStallShare).
const extendStall = 0.5

// loadExtension holds how far the load was extended, and how an extendable
// load is ended.
type loadExtension struct {
	mu    sync.Mutex
	on    bool               // extendable: automatic windows on an open-model load
	extra time.Duration      // the load's extension so far
	n     int                // extensions so far
	stop  context.CancelFunc // ends an extendable load (nil before it starts)
	why   string             // why the first extension was made
}

// extended returns the extension and how many there were.
func (e *loadExtension) extended() (time.Duration, int, string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.extra, e.n, e.why
}

// loadTotal is the load's planned length plus its extension.
func (r *runner) loadTotal() time.Duration {
	extra, _, _ := r.ext.extended()
	return r.plan.Load.Total() + extra
}

// extendable reports whether the load may be extended: windows taken by
// mcpchaos of its own accord, on an open-model load of one process (not a
// shard's: every shard must end together).
func extendable(p Plan, auto bool) bool {
	return auto && p.Load.Concurrency == 0 && p.Load.Script == nil && p.Shard.Count <= 1
}

// paceContext returns the context the open load's pacer runs under and the
// end it paces to: for an extendable load, the planned end plus every
// extension it may get, and a context that the windows end (endLoad);
// otherwise ctx and the planned end.
func (r *runner) paceContext(ctx context.Context) (context.Context, time.Duration, context.CancelFunc) {
	r.ext.mu.Lock()
	defer r.ext.mu.Unlock()
	total := r.plan.Load.Total()
	if !r.ext.on {
		return ctx, total, func() {}
	}
	lctx, cancel := context.WithCancel(ctx)
	r.ext.stop = cancel
	return lctx, total + min(maxExtensions*r.plan.Orphans.Windows.Every, total), cancel
}

// endLoad ends an extendable load (the windows' goroutine, when it takes
// no more windows).
func (r *runner) endLoad() {
	r.ext.mu.Lock()
	defer r.ext.mu.Unlock()
	if r.ext.stop != nil {
		r.ext.stop()
	}
}

// extendMargin is how long an extended load runs past the window it was
// extended for: the window is due before the load's end.
const extendMargin = 100 * time.Millisecond

// extendLoad extends the load to just past next, when the next window is
// due, and returns true when the load is extendable, within its bounds,
// and the evidence so far is weak on a machine short of CPU.
func (r *runner) extendLoad(ctx context.Context, pr *probeRun, next time.Time) bool {
	total := r.plan.Load.Total()
	extra := next.Add(extendMargin).Sub(r.began) - total
	r.ext.mu.Lock()
	ok := r.ext.on && r.ext.n < maxExtensions && extra <= min(maxExtensions*r.plan.Orphans.Windows.Every, total)
	r.ext.mu.Unlock()
	if !ok || ctx.Err() != nil {
		return false
	}
	if !pr.windowsClean() {
		return false
	}
	why := r.shortOfCPU(pr)
	if why == "" {
		return false
	}
	r.ext.mu.Lock()
	defer r.ext.mu.Unlock()
	r.ext.extra = max(r.ext.extra, extra)
	r.ext.n++
	if r.ext.why == "" {
		r.ext.why = why
	}
	return true
}

// windowsClean reports whether no window showed leftover work, alone or
// summed.
func (pr *probeRun) windowsClean() bool {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	w := pr.windows
	return w.Above == 0 && !(w.CutCount >= 2 && w.CutLeftoverCPUS > w.CutThresholdS)
}

// shortOfCPU says why the run would be not_observable for lack of CPU so
// far, or "" when it would not: a starved window, or mcpchaos itself
// stalled for half the load or more (report/starved.go). Only then is
// the load extended: the run is not_observable already, and more windows
// can only find the work that makes it a violation. (Extending every run
// whose server got less CPU than it wanted, nearly every run on a loaded
// machine, gave clean runs more windows to be starved in: 3 of 5 runs of
// a stopping server became not_observable, docs/decisions.md.)
func (r *runner) shortOfCPU(pr *probeRun) string {
	pr.mu.Lock()
	starved := pr.windows.Starved
	pr.mu.Unlock()
	if starved > 0 {
		return "a quiet window saw the server starved of CPU"
	}
	if st := r.clientStall(time.Now()); st != nil && st.Share >= extendStall {
		return "mcpchaos itself stalled for half the load or more"
	}
	return ""
}

// noteExtension says in the windows' summary how far the load was
// extended, and why.
func (r *runner) noteExtension(w *report.Windows) {
	extra, n, why := r.ext.extended()
	if n == 0 {
		return
	}
	w.Extensions, w.ExtendedMs, w.Extended = n, ms(extra), why
}
