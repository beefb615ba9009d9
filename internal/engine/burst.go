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
// grace's end, and leftover CPU over the threshold counts only when they
// ran, from then to the measurement, at least burstShare of the
// measurement's rate.
//
// The price: a tool that sleeps through the grace after its cut and only
// then computes shows as a burst; a process probe cannot tell that from a
// runtime's own work in one window.

const (
	// graceTail is the end of the grace read apart (a third of a shorter
	// grace).
	graceTail = 100 * time.Millisecond
	// minTail is the shortest tail judged: over less, a thread that goes
	// on computing may simply not have been on a CPU (a grace under 30 ms
	// has no bursts).
	minTail = 10 * time.Millisecond
	// burstShare is the least share of the measurement's CPU rate the
	// grace's tail must run at for leftover CPU to be work going on.
	burstShare = 0.25
)

// tailOf is how much of a grace of g is its tail.
func tailOf(g time.Duration) time.Duration {
	return min(graceTail, g/3)
}

// awaitGrace waits until end, reading the process tailOf(g) before it
// (the tail's sample, zero without a process probe); when end came first,
// it waits the tail's length after that reading, so a tail is never a
// single sample's length. False when quit closed or ctx ended first.
func (pr *probeRun) awaitGrace(ctx context.Context, quit <-chan struct{}, end time.Time, g time.Duration) (cutSample, bool) {
	var tail cutSample
	if pr.proc != nil && tailOf(g) >= minTail {
		if !sleepUntil(ctx, time.Until(end.Add(-tailOf(g))), quit) {
			return tail, false
		}
		tail = pr.sampleCut(ctx)
		if !tail.at.IsZero() {
			end = later(end, tail.at.Add(tailOf(g)))
		}
	}
	return tail, sleepUntil(ctx, time.Until(end), quit)
}

// judgeBurst fills in the grace's tail from its sample to ps0 (the
// measurement's start) and whether the window's leftover CPU is a burst;
// el is the measurement's length, ps1 its end. The times on a CPU are
// summed thread by thread, so a thread that ended in between (a replaced
// server's, a runtime's worker) does not make a busy tail read idle. A
// window whose count probes saw calls running is no burst. Without
// schedstat at all three readings it is unknown, and the leftover counts
// as before.
func judgeBurst(w *report.Window, tail cutSample, ps0, ps1 probes.ProcessSample, t0 time.Time, el time.Duration) {
	if tail.at.IsZero() || w.Orphaned > 0 {
		return
	}
	td := t0.Sub(tail.at)
	inTail, ok0 := probes.OnCPUBetween(tail.ps, ps0)
	inMeasure, ok1 := probes.OnCPUBetween(ps0, ps1)
	if !ok0 || !ok1 || td < minTail || el <= 0 {
		return
	}
	w.TailMs = ms(td)
	w.TailCPUS = inTail
	rate := inMeasure / el.Seconds()
	w.Burst = w.LeftoverCPUS > w.ThresholdS && w.TailCPUS < burstShare*rate*td.Seconds()
}
