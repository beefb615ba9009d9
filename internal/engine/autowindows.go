package engine

import (
	"context"
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
)

// Automatic quiet windows: the default black-box setup.
//
// A process probe is the only server-side evidence of most servers a user
// did not write (a stdio server we started, or an HTTP server named by
// pid). Its CPU read once after the load misses the leftover of calls cut
// during the load, which has ended by then and was hidden by live calls
// while it ran. So when the process probe is the only probe that reads the
// server and the faults cut calls (cancel, disconnect), the run takes
// quiet windows of its own (windows.go), and the summary says so
// (cancellation.windows.auto). A scenario that sets orphans.windows, or
// adds a counting or log probe, gets none.

// Automatic windows' timing: a window after every autoEvery of load (half
// the load when that is shorter, never under autoMinEvery), measuring for
// autoFor. A load shorter than autoMinLoad (2 s) gets none.
const (
	autoEvery    = 3 * time.Second
	autoMinEvery = 500 * time.Millisecond
	autoFor      = time.Second
	autoMinLoad  = 2 * time.Second
)

// autoWindows returns the quiet windows the run takes of its own accord,
// or nil: only when the scenario set none, the process probe is the only
// probe reading the server, and some fault cuts calls.
func autoWindows(p Plan, counting, logs, process bool) *Windows {
	if p.Orphans.Windows != nil || counting || logs || !process || p.SharesServer() || p.Gateway != nil {
		return nil
	}
	if !slices.ContainsFunc(p.Faults, func(f faults.Fault) bool { return faults.CutsCalls(f.Kind()) }) {
		return nil
	}
	total := p.Load.Total()
	if total < autoMinLoad {
		return nil
	}
	every := min(autoEvery, max(total/2, autoMinEvery))
	return &Windows{Every: every, For: autoFor, AfterCut: true}
}

// An automatic window begins right after a fault cuts a call. A window at
// a fixed moment judges the calls it cuts itself and the work still
// running when it measures; the calls the scenario's faults cut during
// the load it sees only if their leftover outlasts the window's own
// grace. At a low rate a fixed window often finds nothing in flight, and a
// call a fault cut 2 s earlier that ran 450 ms on, past its 300 ms grace,
// has ended by then: every run of the TypeScript SDK's leaking HTTP server
// with 20 steps of 25 ms at 0.8 calls/s was a false pass so (issue 25). So
// a window that falls due waits for the next fault cut (Every at most)
// and begins at once: its sweep cuts the rest, its grace runs from the
// last cut, and its measurement sees a cut call still working past the
// grace.

// cutSignal tells an automatic window waiting for a fault cut that one
// happened (non-blocking; none waits without automatic windows).
func (r *runner) cutSignal() {
	if r.cuts == nil {
		return
	}
	select {
	case r.cuts <- struct{}{}:
	default:
	}
}

// awaitCut waits for the next fault cut, at most limit and never past the
// load's end; it reports whether the window should begin (a cut came, or
// limit passed first; not when the load ended or quit or ctx did), and
// whether it begins at a cut.
func (r *runner) awaitCut(ctx context.Context, quit <-chan struct{}, limit time.Duration) (begin, cut bool) {
	select { // a cut from before the window fell due does not count
	case <-r.cuts:
	default:
	}
	end := time.Until(r.loadEnd())
	t := time.NewTimer(min(limit, end))
	defer t.Stop()
	select {
	case <-r.cuts:
		return true, true
	case <-t.C:
		return limit < end, false
	case <-quit:
	case <-ctx.Done():
	}
	return false, false
}

// A load's last automatic window. A short load's one window waits for a
// fault cut until the load's end, and in a slow, sparse load none may
// come: the TypeScript SDK's server with 500 ms steps at 1 call/s for 3 s
// had its one call cut 13 ms after the load's end, and the run measured
// its leftover only after the drain, which the live calls' work had
// hidden (not_observable, 7 runs of 120, docs/decisions.md). So when the
// load ends without an automatic window and calls are in flight, one
// window is taken at the load's end: its sweep cuts those calls (instead
// of the drain's graceful stop) and it measures past their grace.

//
// The same window is taken when windows were taken but a fault cut a call
// after the last of them: the built-in target leaking 3 in 10 cut calls
// (TestBlackBoxMatrix, burn/leak-0.3) had its one window follow a cut that
// stopped, and the two calls that ran on were cut after it, 0.8 and 0.2 s
// before the load's end; live calls hid their work until they ended, and
// the reading after the drain came too late (a false pass, every run).

// lastWindow takes that window when lastWindowDue.
func (r *runner) lastWindow(ctx context.Context, pr *probeRun) {
	if r.lastWindowDue(ctx, pr) {
		r.window(ctx, pr, nil, false)
	}
}

// lastWindowDue: automatic windows that follow cuts, the load at its end
// (not interrupted), and either none taken with calls in flight or
// starting, or a fault cut since the last one (its signal still waiting:
// awaitCut takes them as it waits).
func (r *runner) lastWindowDue(ctx context.Context, pr *probeRun) bool {
	w := r.plan.Orphans.Windows
	if w == nil || !w.AfterCut || ctx.Err() != nil || time.Now().Before(r.loadEnd()) {
		return false
	}
	cutSince := false
	select {
	case <-r.cuts:
		cutSince = true
	default:
	}
	pr.mu.Lock()
	taken := pr.windows.Count
	pr.mu.Unlock()
	if taken > 0 {
		return cutSince
	}
	return r.inflight.len() > 0 || r.starting.Load() > 0
}
