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
// A tail has a noise of its own: after a load node's threads ran at
// 0.8–1.0 % of a CPU in the tails of windows that went on to read 33–40
// ms over a second (the TypeScript server that stops every cut call,
// issue 25's ramp, December 6: a false violation, since a quarter of
// that rate is under 1 ms in 100 ms). So the tail must also run above a
// floor: the idle rate measured before the load plus the larger of
// tailNoise and the noise rate of the windows that cut nothing
// (windownoise.go), never more than the rate the window's threshold
// stands for: work a window can see at all runs at that rate when
// spread evenly (three ticks a second in a window of one).
//
// The price: a tool that sleeps through the grace after its cut and only
// then computes shows as a burst; a process probe cannot tell that from a
// runtime's own work in one window. And a runtime whose own work goes on
// at more than the floor through the tail (node's at 15 % of a CPU once,
// docs/decisions.md) is still taken for work.

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
	// tailNoise is the least rate, in CPU-s per second above idle, at
	// which a grace's tail counts as work going on.
	tailNoise = 0.02
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

// tailFloors are the rates, in CPU-s per second, under which a grace's
// tail is idle: cpu for its time on a CPU, want for that and its
// run-queue wait. Each is the idle rate before the load plus the larger
// of tailNoise and the windows' quiet noise, capped at the rate the
// window's own threshold stands for (a window longer than a second has a
// lower one, and work it sees must not be under the floor).
type tailFloors struct{ cpu, want float64 }

// tailFloors returns the floors of a window measured for el with the
// thresholds w holds (pr.mu not held).
func (pr *probeRun) tailFloors(w report.Window, el time.Duration) tailFloors {
	pr.mu.Lock()
	quiet := pr.quietRate
	pr.mu.Unlock()
	noise, s := max(tailNoise, quiet), el.Seconds() // el > 0: judgeBurst reads no floor otherwise
	return tailFloors{
		cpu:  pr.idleCPU + min(noise, w.ThresholdS/s),
		want: pr.idleCPU + pr.idleWait + min(noise, w.WaitThresholdS/s),
	}
}

// judgeBurst fills in the grace's tail from its sample to ps0 (the
// measurement's start) and whether the window's leftover CPU is a burst;
// el is the measurement's length, inMeasure what the threads did in it
// (known: both its readings had schedstat), floors the rates under which
// the tail is idle. The times are summed thread by thread, so a
// thread that ended in between (a replaced server's, a runtime's worker)
// does not make a busy tail read idle. A window whose count probes saw
// calls running is no burst. Without schedstat at all three readings it
// is unknown, and the leftover counts as before.
//
// It also judges a wait burst (issue 25): a starved window (starved.go)
// whose grace ended with the server wanting no CPU is not starved. A
// server held off the CPU with a cut call's work to do (reading the
// cancel, or going on) wanted the CPU, on it or waiting for it, through
// the grace's end too; one whose threads wanted under max(burstShare of
// the measurement's rate, the floor) there had nothing pending, and its
// wait afterwards is something new: node's collector after a load ran
// five threads on two CPUs for 24 ms of CPU and 36 ms of waiting in a
// second, after a tail of 1.2 ms (the stopping TypeScript server, issue
// 25's ramp, December 6: a not_observable). The window is then a wait
// burst, not counted as starved. The price: a server starved by another
// process while its cut calls slept through the grace reads as one.
func judgeBurst(w *report.Window, tail cutSample, ps0 probes.ProcessSample, inMeasure probes.ThreadsDelta, known bool, t0 time.Time, el time.Duration, floors tailFloors) {
	if tail.at.IsZero() || w.Orphaned > 0 {
		return
	}
	td := t0.Sub(tail.at)
	inTail, ok0 := probes.ThreadsBetween(tail.ps, ps0)
	if !ok0 || !known || td < minTail || el <= 0 {
		return
	}
	w.TailMs = ms(td)
	w.TailCPUS = inTail.OnCPU
	w.TailWaitS = inTail.Wait
	rate := inMeasure.OnCPU / el.Seconds()
	w.Burst = w.LeftoverCPUS > w.ThresholdS && w.TailCPUS < max(burstShare*rate, floors.cpu)*td.Seconds()
	want := (inMeasure.OnCPU + inMeasure.Wait) / el.Seconds()
	if w.Starved && inTail.OnCPU+inTail.Wait < max(burstShare*want, floors.want)*td.Seconds() {
		w.Starved, w.WaitBurst = false, true
	}
}

// A slice burst is not a run-on either (issue 25, December 7). A
// runtime's collector can begin inside the grace's tail, and then the
// tail is busy and the window is no burst by it: node's, in the stopping
// TypeScript server's windows of issue 25's ramp that cut nothing, ran
// 30–100 ms in a second on five threads, in time slices of 0.7–1.7 ms at
// the longest (a thread's mean, probes.Busy.LongestSliceMs), 0.06–0.25
// times the load's before (its event loop's, 4–13 ms; one window 0.39),
// and the kernel ended only 31–49 % of those threads' slices: they
// mostly gave the CPU up themselves. A cut call's work in a window is
// unlike it in one way or another: a Go server's computing threads
// (window.CPUBound: those of 0.2 ms slices or more) were preempted at
// the end of 81–100 % of their slices in every leaking window measured,
// though their slices were often short against the load's (down to 0.08
// of it: a goroutine hops between threads); a node server's computing
// thread, sometimes rarely preempted (17 %), ran slices of 0.31–20 times
// the load's, and every node window that went on with a cut call burned
// two thirds of a CPU or more (a Go one under half the load's slice and
// at a fifth of a CPU was kept counted by its preemptions alone). So
// leftover CPU over the threshold that came only in slices under
// sliceShare of the load's, with the kernel ending under
// slicePreemptedPct % of the computing threads' slices, and at most
// sliceCPU of a CPU over the measurement (a collector's burst is small:
// 0.03–0.13 of a CPU), is the runtime's own work, not counted. The
// load's slice is that of a thread that led it (ten slices or more, a
// tenth of the CPU or more: probes.LeadSliceMs), not a helper's that ran
// twice, long, once. The price: a tool that goes on in short bursts
// between waits, at under a quarter of a CPU, on a server whose other
// tools compute in long slices, is taken for its runtime; and with a
// slice burst, the projection (projection.go) does not take the window
// for a stop.
const (
	sliceShare        = 0.5
	slicePreemptedPct = 60
	sliceCPU          = 0.25
)

// judgeWindowSlices judges w, measured after its cut (cut; zero: not a
// window during the load, not judged), for a slice burst: the load's
// slice from its start to the cut, and live, what the live threads did
// over the measurement (judgeSlices); and a starved w for a wait its own
// threads made each other (selfwait.go).
func (pr *probeRun) judgeWindowSlices(w *report.Window, cut cutSample, live probes.ThreadsDelta) {
	if cut.at.IsZero() {
		return
	}
	w.LoadSliceMs = probes.LeadSliceMs(pr.threadsTo(cut.ps))
	// The leftover is above the idle rate; so are the live threads' CPU.
	judgeSlices(w, live.OnCPU-pr.idleCPU*w.MeasuredMs/1000)
	if w.Starved {
		judgeSelfWait(w, pr.serverCPUs())
	}
}

// serverCPUs is how many CPUs the probed server may run on (its first
// root process's), 0 when unknown (selfwait.go).
func (pr *probeRun) serverCPUs() int {
	if pr.procPIDs == nil {
		return 0
	}
	if pids := pr.procPIDs(); len(pids) > 0 {
		return cpusOf(pids[0])
	}
	return 0
}

// judgeSlices marks w a slice burst (and a burst: not counted) when its
// leftover CPU over the threshold, at most sliceCPU of a CPU over its
// measurement, came only in time slices under sliceShare of
// w.LoadSliceMs, the longest mean slice of a thread that led the load
// before it (probes.LeadSliceMs; 0: unknown, and nothing is judged), and
// the kernel ended under slicePreemptedPct % of its computing threads'
// slices (w.CPUBound). The slices are those of the threads alive at the
// measurement's end: CPU of a thread that ended in it, or of a child
// reaped, is in the leftover and not in them, so the window is judged
// only when the live threads' CPU (liveOn, seconds) covers its leftover,
// give or take two clock ticks (the leftover's resolution). A window
// whose count probes saw calls running, or without its threads' slices
// and preemptions, is not judged.
func judgeSlices(w *report.Window, liveOn float64) {
	b := w.CPUBound
	if w.Burst || w.Orphaned > 0 || b == nil || w.LoadSliceMs <= 0 || w.LeftoverCPUS <= w.ThresholdS ||
		w.LeftoverCPUS > liveOn+2*cpuTick || w.LeftoverCPUS > sliceCPU*w.MeasuredMs/1000 || b.Preempted < 0 || b.Slices <= 0 {
		return
	}
	if 100*b.Preempted < slicePreemptedPct*b.Slices && b.LongestSliceMs < sliceShare*w.LoadSliceMs {
		w.Burst, w.SliceBurst = true, true
	}
}
