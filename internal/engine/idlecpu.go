package engine

import (
	"context"
	"math"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// The probe run's start (the baselines, and the process tree's idle CPU
// rate and its noise) and what is measured against them: the leftover CPU
// thresholds and a quiet window's measurement.

// Idle CPU: idleSamples readings idleSample apart before the load give
// the process's idle CPU rate (their mean) and its noise (their standard
// deviation).
const (
	idleSamples = 5
	idleSample  = 120 * time.Millisecond
)

// start takes the baselines (and the process tree's idle CPU rate and its
// noise) and starts sampling every SampleEvery, writing each sample to the
// results.
func (pr *probeRun) start() {
	first, ps0 := pr.sampleAll(context.Background(), pr.r.plan.Orphans.readTimeout())
	if pr.proc != nil {
		t0 := time.Now()
		var rates, waits []float64
		for range idleSamples {
			sleep(context.Background(), idleSample)
			ps1, err := pr.sampleProc(context.Background(), pr.r.plan.Orphans.readTimeout())
			now := time.Now()
			if err == nil {
				if dt := now.Sub(t0).Seconds(); dt > 0 {
					rates = append(rates, max(ps1.CPUSeconds-ps0.CPUSeconds, 0)/dt)
				}
				if w, ok := idleWait(ps0, ps1, now.Sub(t0).Seconds()); ok {
					waits = append(waits, w)
				}
				ps0 = ps1
			}
			t0 = now
		}
		pr.idleCPU, pr.idleNoise = meanSD(rates)
		pr.idleNoise = withoutTicks(pr.idleNoise, idleSample)
		pr.idleWait, pr.idleWaitNoise = meanSD(waits)
		pr.loadFrom, pr.loadAt = ps0, time.Now()
		pr.startThreads(ps0)
	}
	for name, v := range first {
		pr.baseline[name] = v
	}
	pr.r.logs.start(pr.r.plan.Orphans.SampleEvery)
}

// meanSD returns the mean and the sample standard deviation of xs.
func meanSD(xs []float64) (mean, sd float64) {
	if len(xs) == 0 {
		return 0, 0
	}
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	if len(xs) < 2 {
		return mean, 0
	}
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// CPU thresholds: leftover CPU in a measurement of d counts only above
// max(cpuFloor, noiseK·idleNoise·d + cpuTick). The noise of the idle rate
// is measured over idleSample, shorter than a window, so for longer
// windows the band is generous: averaging shrinks real noise.
const (
	cpuFloor = 0.05 // seconds
	noiseK   = 3
	cpuTick  = 0.01 // one clock tick (1/CLK_TCK, 100 Hz on Linux)
)

// withoutTicks takes out of the standard deviation sd of CPU rates read
// over dt the part that the clock ticks alone give: the CPU time of each
// reading is a difference of two counters in whole ticks, off by up to a
// tick (variance tick²/6, over dt²). A threshold adds one tick of its own
// for its measurement's ends (cpuThreshold); counted in the noise too, a
// 120 ms sample's 34 ms/s of tick noise would be multiplied by the length
// of every window.
func withoutTicks(sd float64, dt time.Duration) float64 {
	q := cpuTick * cpuTick / (6 * dt.Seconds() * dt.Seconds())
	return math.Sqrt(max(sd*sd-q, 0))
}

// cpuThreshold is the leftover CPU a measurement of d must exceed.
func (pr *probeRun) cpuThreshold(d time.Duration) float64 {
	return max(cpuFloor, noiseK*pr.idleNoise*d.Seconds()+cpuTick)
}

// measureWindow reads the count probes once (above their baseline: calls
// still running with none in flight uncut), then the process's CPU over d
// above its idle rate. The count probes are read before the CPU
// measurement starts, since a tool probe costs the server CPU. cut is the
// process read when the window's cancels were out (zero when it could not
// be read): the CPU from then to the measurement is the grace's; tail the
// process read near the grace's end, which tells a burst (burst.go).
func (pr *probeRun) measureWindow(ctx context.Context, d time.Duration, cut, tail cutSample) report.Window {
	var w report.Window
	if len(pr.counts) > 0 {
		vals, _ := pr.sampleCounts(ctx, 5*time.Second)
		for _, p := range pr.counts {
			if v := vals[p.Name()]; !math.IsNaN(v) {
				w.Orphaned += probes.Above(v, pr.baseline[p.Name()])
			}
		}
	}
	if pr.proc == nil {
		return w
	}
	ps0, err := pr.sampleProc(ctx, 5*time.Second)
	t0 := time.Now()
	if err != nil {
		return w
	}
	sleep(ctx, d)
	ps1, err := pr.sampleProc(ctx, 5*time.Second)
	if err != nil {
		return w
	}
	el := time.Since(t0)
	if !cut.at.IsZero() {
		g := t0.Sub(cut.at)
		w.GraceMs = float64(g) / float64(time.Millisecond)
		w.GraceCPUS = max(probes.LeftoverCPU(cut.ps, ps0)-pr.idleCPU*g.Seconds(), 0)
	}
	w.MeasuredFrom = t0
	w.MeasuredMs = float64(el) / float64(time.Millisecond)
	w.LeftoverCPUS = max(probes.LeftoverCPU(ps0, ps1)-pr.idleCPU*el.Seconds(), 0)
	w.ThresholdS = pr.windowThreshold(el)
	pr.judgeWait(&w, ps0, ps1, el)
	// What the live threads did in the measurement, thread by thread:
	// read once for both judges (burst.go).
	inMeasure, known := probes.ThreadsBetween(ps0, ps1)
	judgeBurst(&w, tail, ps0, inMeasure, known, t0, el, pr.tailFloors(w, el))
	pr.judgeWindowSlices(&w, cut, inMeasure)
	return w
}
