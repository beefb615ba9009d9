package engine

import (
	"context"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// A burst is not a run-on (issue 25). Work a cut call goes on with past
// its grace runs through the end of the grace too: a call still
// computing when the measurement begins was computing just before, and in
// a quiet window nothing else keeps it from the CPU. CPU that begins
// after a grace whose end found the server idle is something new: a
// runtime collecting garbage once the load stops (node's, 94–130 ms in a
// second, on five threads, in windows that cut nothing: three false
// violations under issue 25's ramp, docs/decisions.md), a timer. So the
// window reads the server's threads once more graceTail before the
// measurement, and leftover CPU over the threshold counts only when the
// tail ran at least burstShare of the measurement's rate.
//
// The price: a tool that sleeps through the grace after its cut and only
// then computes shows as a burst; a process probe cannot tell that from a
// runtime's own work in one window.

const (
	// graceTail is the end of the grace read apart (a third of a shorter
	// grace).
	graceTail = 100 * time.Millisecond
	// burstShare is the least share of the measurement's CPU rate the
	// grace's tail must run at for leftover CPU to be work going on.
	burstShare = 0.25
)

// tailOf is how much of a grace of g is its tail.
func tailOf(g time.Duration) time.Duration {
	return min(graceTail, g/3)
}

// awaitGrace waits until end, reading the process graceTail before it
// (the tail's sample, zero without a process probe); false when quit
// closed or ctx ended first.
func (pr *probeRun) awaitGrace(ctx context.Context, quit <-chan struct{}, end time.Time, g time.Duration) (cutSample, bool) {
	var tail cutSample
	if pr.proc != nil {
		if !sleepUntil(ctx, time.Until(end.Add(-tailOf(g))), quit) {
			return tail, false
		}
		tail = pr.sampleCut(ctx)
	}
	return tail, sleepUntil(ctx, time.Until(end), quit)
}

// judgeBurst fills in the grace's tail from its sample to ps0 (the
// measurement's start) and whether the window's leftover CPU is a burst;
// el is the measurement's length, ps1 its end. Without schedstat at all
// three readings it is unknown, and the leftover counts as before.
func judgeBurst(w *report.Window, tail cutSample, ps0, ps1 probes.ProcessSample, t0 time.Time, el time.Duration) {
	if tail.at.IsZero() || !tail.ps.Sched.Known || !ps0.Sched.Known || !ps1.Sched.Known {
		return
	}
	td := t0.Sub(tail.at)
	if td <= 0 || el <= 0 {
		return
	}
	w.TailMs = float64(td) / float64(time.Millisecond)
	w.TailCPUS = probes.Above(ps0.Sched.OnCPUSeconds, tail.ps.Sched.OnCPUSeconds)
	rate := probes.Above(ps1.Sched.OnCPUSeconds, ps0.Sched.OnCPUSeconds) / el.Seconds()
	w.Burst = w.LeftoverCPUS > w.ThresholdS && w.TailCPUS < burstShare*rate*td.Seconds()
}
