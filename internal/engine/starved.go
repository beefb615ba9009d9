package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// Starvation, measured (issue 25; the verdict's side is report/verdict/starved.go).
// A process probe also reads the run-queue wait of the server's threads
// (schedstat): time they wanted a CPU and did not get it. A quiet window
// whose leftover CPU stays under its threshold while the server's wait
// exceeds it saw a server that wanted to work and could not: a server that
// has not had the CPU to read a cancel goes on past the grace and burns
// next to nothing. Such a window is marked starved: evidence of neither.
// The wait over the load (per second, and per time a thread got a CPU)
// and our own stalls over the load go in the summary for the verdict.

// idleWait returns the run-queue wait per second between two idle
// samples dt seconds apart; false unless both read schedstat.
func idleWait(ps0, ps1 probes.ProcessSample, dt float64) (float64, bool) {
	w, ok := probes.WaitBetween(ps0, ps1)
	if !ok || dt <= 0 {
		return 0, false
	}
	return w / dt, true
}

// judgeWait fills in a window's run-queue wait above idle over el, its
// threshold and whether the server was starved in it, from the
// measurement's two readings; nothing when schedstat was not read.
func (pr *probeRun) judgeWait(w *report.Window, ps0, ps1 probes.ProcessSample, el time.Duration) {
	wait, ok := probes.WaitBetween(ps0, ps1)
	if !ok {
		return
	}
	s := el.Seconds()
	w.OnCPUS = max(ps1.Sched.OnCPUSeconds-ps0.Sched.OnCPUSeconds, 0)
	w.Slices = max(ps1.Sched.Slices-ps0.Sched.Slices, 0)
	w.RunWaitS = max(wait-pr.idleWait*s, 0)
	w.WaitThresholdS = max(windowFloor, noiseK*pr.idleWaitNoise*s)
	w.CPUBound = cpuBound(ps0, ps1, probes.WindowSlice) // its wait informative (cpubound.go), its slices judged (burst.go)
	w.Starved = w.Orphaned == 0 && w.LeftoverCPUS <= w.ThresholdS && w.RunWaitS > w.WaitThresholdS
}

// loadWait fills in the server's run-queue wait over the load: per second
// of load (dt, quiet windows not counted) above idle, and per time a
// thread got a CPU; or why it is unknown.
func (pr *probeRun) loadWait(cpu *report.ProcessCPU, from, to probes.ProcessSample, dt float64) {
	wait, ok := probes.WaitBetween(from, to)
	if !ok {
		cpu.RunWait = "run-queue wait unknown: " + firstNonEmpty(to.Sched.Err, from.Sched.Err, "schedstat not read")
		return
	}
	if dt > 0 {
		cpu.RunWaitRate = max(wait/dt-pr.idleWait, 0)
	}
	if n := to.Sched.Slices - from.Sched.Slices; n > 0 {
		cpu.WaitPerSliceMs = wait * 1000 / float64(n)
	}
}

// clientStall is how long this process stalled from the load's start to
// at (readlag.go).
func (r *runner) clientStall(at time.Time) *report.ClientStall {
	load := at.Sub(r.began)
	if load <= 0 || r.began.IsZero() {
		return nil
	}
	st := r.lag.total()
	return &report.ClientStall{StalledMs: ms(st), LoadMs: ms(load), Share: float64(st) / float64(load)}
}

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// firstNonEmpty returns the first of ss that is not "".
func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}
