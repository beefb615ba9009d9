package engine

import (
	"context"
	"math"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// The noise floor of quiet windows during the load (issue 25).
//
// A window's leftover CPU counts above a threshold of three parts, each
// measured or derived, the largest winning:
//
//   - windowFloor, three clock ticks: a reading is the difference of two
//     tick counters (one tick off at each end), and an idle Go server still
//     wakes now and then (its runtime, a timer). Stopping servers measured
//     0–10 ms in a window of 1 s, leaking ones 40–440 ms
//     (BenchmarkBlackBoxAgreement, docs/decisions.md); the 50 ms floor of
//     the final quiet window (cpuFloor) let a leak of 40 ms through;
//   - the idle noise measured before the load (noiseK·idleNoise·d plus a
//     tick), as for the final window;
//   - the most CPU above idle per second that a window which cut nothing
//     measured (and which stayed under its own threshold), times d plus a
//     tick: with nothing cut and nothing in flight, whatever the server
//     burns then is its own noise under this run's conditions (a runtime
//     that collects garbage after a load, a timer the idle samples before
//     the load missed).
//
// The final quiet window keeps cpuFloor: it comes right after the load's
// end, when a server is still settling (and tests of the built-in target
// rely on it).

// windowFloor is the least leftover CPU a window during the load must
// exceed, in seconds: three clock ticks.
const windowFloor = 3 * cpuTick

// windowThreshold is the leftover CPU a window's measurement of d must
// exceed (pr.mu not held).
func (pr *probeRun) windowThreshold(d time.Duration) float64 {
	pr.mu.Lock()
	quiet := pr.quietRate
	pr.mu.Unlock()
	return windowThreshold(d, pr.idleNoise, quiet)
}

// windowThreshold: max(windowFloor, noiseK·idleNoise·d + cpuTick,
// quietRate·d + cpuTick), idleNoise and quietRate in CPU-s per second.
func windowThreshold(d time.Duration, idleNoise, quietRate float64) float64 {
	s := d.Seconds()
	th := max(windowFloor, noiseK*idleNoise*s+cpuTick)
	if quietRate > 0 {
		th = max(th, quietRate*s+cpuTick)
	}
	return th
}

// quietNoise returns the rate of leftover CPU a window shows with nothing
// cut, when it is evidence of noise: a window that cut no call, measured
// for some time and stayed under its threshold; ok is false otherwise.
func quietNoise(w report.Window) (rate float64, ok bool) {
	if w.Cancelled > 0 || w.MeasuredMs <= 0 || w.Orphaned > 0 || (w.ThresholdS > 0 && w.LeftoverCPUS > w.ThresholdS) {
		return 0, false
	}
	return w.LeftoverCPUS / (w.MeasuredMs / 1000), true
}

// cutSample is the process read once a window's cancels are out.
type cutSample struct {
	ps probes.ProcessSample
	at time.Time
}

// sampleCut reads the process as a window's cancels are out; zero when
// there is no process probe or the read failed.
func (pr *probeRun) sampleCut(ctx context.Context) cutSample {
	if pr.proc == nil {
		return cutSample{}
	}
	ps, err := pr.sampleProc(ctx, 5*time.Second)
	if err != nil {
		return cutSample{}
	}
	return cutSample{ps: ps, at: time.Now()}
}

// summedThreshold is the threshold of the leftover CPU of n windows that
// cut calls, measured for sum seconds together (issue 25): many weak
// windows together are evidence when none alone is. Each reading is off
// by up to a tick at each end, at random, so the ticks add up as √n; the
// idle noise and a quiet window's noise are rates that may be biased, so
// they add up with the time measured:
// max(windowFloor·√n, noiseK·idleNoise·sum + cpuTick·√n,
// quietRate·sum + cpuTick·√n). 0 for fewer than two windows.
func summedThreshold(n int, sum, idleNoise, quietRate float64) float64 {
	if n < 2 {
		return 0
	}
	r := math.Sqrt(float64(n))
	return max(windowFloor*r, noiseK*idleNoise*sum+cpuTick*r, quietRate*sum+cpuTick*r)
}
