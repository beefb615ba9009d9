package engine

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Quiet windows (orphans.windows): leftover work measured during the load.
//
// Every Every of load, the pacer pauses (ticks that fall due are not
// offered: neither scheduled nor dropped, and the paused time is taken out
// of the load's duration, so rates count only the time the load ran),
// every call in flight is cancelled the era's way with the stop reason
// quiet_window, and once the grace has passed since the last cancel the
// probes measure for For. Nothing the client asked for is running then, so
// whatever the server still does — CPU above its idle rate, a count probe
// above its baseline — is leftover by construction. Waiting for live calls
// to finish instead would hide the leftover of calls cut just before.

// windowGate is the pause of the load during a quiet window.
type windowGate struct {
	paused  atomic.Bool
	skipped atomic.Int64 // ticks due while paused
	// pausedCuts: calls cut as they started during a pause (cancelIfPaused).
	pausedCuts atomic.Int64
	total      atomic.Int64 // nanoseconds paused, summed

	mu     sync.Mutex
	resume chan struct{} // closed when the pause ends; nil when running
}

func (g *windowGate) pause() {
	g.mu.Lock()
	g.resume = make(chan struct{})
	g.mu.Unlock()
	g.paused.Store(true)
}

func (g *windowGate) unpause(d time.Duration) {
	g.total.Add(int64(d))
	g.paused.Store(false)
	g.mu.Lock()
	if g.resume != nil {
		close(g.resume)
		g.resume = nil
	}
	g.mu.Unlock()
}

// wait blocks a closed-model worker while the load is paused; false when
// ctx ended.
func (g *windowGate) wait(ctx context.Context) bool {
	g.mu.Lock()
	ch := g.resume
	g.mu.Unlock()
	if ch == nil {
		return ctx.Err() == nil
	}
	select {
	case <-ch:
		return true
	case <-ctx.Done():
		return false
	}
}

// pausedFor returns the time the load was paused.
func (g *windowGate) pausedFor() time.Duration { return time.Duration(g.total.Load()) }

// quietWindows takes a window after every Every of load until the load's
// end, ctx's end or stop; at the load's end it may extend the load for one
// more window (extend.go), and when automatic windows took none and calls
// are in flight, it takes one at the load's end (lastWindow). It returns
// stop, which waits for a window in progress to end.
func (r *runner) quietWindows(ctx context.Context, pr *probeRun) (stop func()) {
	w := r.plan.Orphans.Windows
	if w == nil {
		return func() {}
	}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.windowLoop(ctx, pr, quit)
		r.endLoad()
		r.lastWindow(ctx, pr)
	}()
	return func() {
		close(quit)
		<-done
	}
}

// windowLoop takes the windows as they fall due until the load's end (as
// extended), ctx's end or quit.
func (r *runner) windowLoop(ctx context.Context, pr *probeRun, quit <-chan struct{}) {
	w := r.plan.Orphans.Windows
	next := time.Now().Add(w.Every)
	t := time.NewTimer(r.untilWindow(next))
	defer t.Stop()
	for {
		select {
		case <-quit:
			return
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// At the load's end (before the next window, or with it), the
		// load goes on only if extended for that window.
		if now := time.Now(); now.Before(next) || !now.Before(r.loadEnd()) {
			if !r.extendLoad(ctx, pr, later(next, now)) {
				return
			}
		}
		if !time.Now().Before(next) {
			begin, cut := true, false
			if w.AfterCut {
				begin, cut = r.awaitCut(ctx, quit, w.Every)
			}
			if !begin {
				t.Reset(r.untilWindow(next))
				continue
			}
			r.window(ctx, pr, quit, cut)
			next = time.Now().Add(w.Every)
		}
		t.Reset(r.untilWindow(next))
	}
}

// untilWindow is how long until the next window is due, or the load
// ends if that is sooner.
func (r *runner) untilWindow(next time.Time) time.Duration {
	return max(min(time.Until(next), time.Until(r.loadEnd())), 0)
}

// window pauses the load, cancels every call in flight, waits the grace
// and has the probes measure; followed: it begins at a fault's cut.
func (r *runner) window(ctx context.Context, pr *probeRun, quit <-chan struct{}, followed bool) {
	w, o := r.plan.Orphans.Windows, r.plan.Orphans
	from := time.Now()
	// Last: what the sweep cut, if the window ended early, and what came
	// after its take (projection.go).
	defer r.cutTimes.clear()
	r.win.pause()
	pr.paused.Store(true)
	defer func() {
		pr.paused.Store(false)
		r.win.unpause(time.Since(from))
	}()
	// Cancel what is in flight, several at a time, again every 20 ms for
	// calls that were being sent or busy, until every call in flight has
	// its cut out (sweeps start for 2 s at most).
	cancelled, ok := r.sweepForWindow(ctx, from)
	if !ok {
		return
	}
	cut := pr.sampleCut(ctx)
	tail, ok := pr.awaitGrace(ctx, quit, r.lastStop().Add(o.Grace), o.Grace) // burst.go
	if !ok {
		return
	}
	// A task's watch after its tasks/cancel ends with its last look, at
	// its cancel's grace: wait for it, so that a task that stopped is not
	// taken for one that runs on (taskrunon.go).
	for until := time.Now().Add(o.Grace); r.inflight.watching() > 0 && time.Now().Before(until); {
		if !sleep(ctx, 10*time.Millisecond) {
			return
		}
	}
	runOn, begun := r.inflight.runningOn()
	res := pr.measureWindow(ctx, w.For, cut, tail)
	_, begunAfter := r.inflight.runningOn()
	res.TasksRunningOn = runOn + begunAfter - begun
	res.StartMs = float64(from.Sub(r.began)) / float64(time.Millisecond)
	res.Cancelled, res.FollowedCut = cancelled, followed
	pr.addWindow(res)
	pr.keepWindowCuts(r.cutTimes.take(followed, from))
}

// sweepForWindow cancels every call in flight, again every 20 ms for calls
// that were being sent or busy, until every call in flight has its cut
// out and none is starting: a call whose tick was handed out just before
// the pause is not in flight yet, and is cut when it starts
// (cancelIfPaused); the window's grace must run from that cut too, or the
// window measures the cut call's own work inside its grace as leftover. A
// call whose cut is out is not waited for (inflightSet.uncut): it may stay
// in flight for what the server still sends it (before 2026-07-28 over
// HTTP), and a grace read from its end would miss the work a server that
// goes on does in it. Sweeps start for 2 s at most. It returns the calls
// cut, false when ctx ended.
func (r *runner) sweepForWindow(ctx context.Context, from time.Time) (int, bool) {
	cancelled := 0
	pausedCuts := r.win.pausedCuts.Load()
	for deadline := from.Add(2 * time.Second); time.Now().Before(deadline); {
		if r.inflight.uncut() == 0 && r.starting.Load() <= 0 {
			break
		}
		cancelled += r.stopAll(results.StopQuietWindow)
		if !sleep(ctx, 20*time.Millisecond) {
			return cancelled, false
		}
	}
	return cancelled + int(r.win.pausedCuts.Load()-pausedCuts), true
}

// cancelIfPaused cancels a call that started while the load was paused
// (its tick was handed out just before the pause).
func (cs *callState) cancelIfPaused() {
	if cs.r.win.paused.Load() && cs.stop(results.Cancelled, results.StopQuietWindow, time.Time{}) {
		cs.r.win.pausedCuts.Add(1)
	}
}

// addWindow adds one window's measurement to the run's sum.
func (pr *probeRun) addWindow(w report.Window) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	s := &pr.windows
	s.Count++
	s.Cancelled += w.Cancelled
	if w.FollowedCut {
		s.Followed++
	}
	if w.TasksRunningOn > 0 {
		// Its CPU and counts may be a task's work after tasks/cancel,
		// which the spec allows: not judged, not summed.
		s.TasksRunningOn++
		if len(s.List) < 1000 {
			s.List = append(s.List, w)
		}
		return
	}
	s.LeftoverCPUS += w.LeftoverCPUS
	s.NoiseCPUS += pr.idleNoise * w.MeasuredMs / 1000
	s.MeasuredMs += w.MeasuredMs
	s.OrphanedMax = max(s.OrphanedMax, w.Orphaned)
	if w.Above() {
		s.Above++
	}
	if w.Burst {
		s.Bursts++
	}
	if w.SliceBurst {
		s.SliceBursts++
	}
	if w.Starved {
		s.Starved++
	}
	if w.WaitBurst {
		s.WaitBursts++
	}
	if w.Cancelled > 0 && w.MeasuredMs > 0 && !w.Burst {
		pr.cutMeasured += w.MeasuredMs / 1000
		s.CutCount++
		s.CutLeftoverCPUS += w.LeftoverCPUS
	}
	if rate, ok := quietNoise(w); ok {
		s.Quiet++
		pr.quietRate = max(pr.quietRate, rate)
		s.QuietNoiseRate = pr.quietRate
	}
	s.CutThresholdS = summedThreshold(s.CutCount, pr.cutMeasured, pr.idleNoise, pr.quietRate)
	if len(s.List) < 1000 {
		s.List = append(s.List, w)
	}
}

// command returns the first word of pid's command line, "" when unknown.
func command(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil || len(b) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(string(b), "\x00")
	return first
}
