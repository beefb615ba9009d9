package engine

import (
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestJudgeWait: a quiet window whose CPU stays under its threshold while
// the server's threads waited for a CPU longer than that saw a starved
// server, not a stopped one; a window that saw work, a count probe that
// saw calls, an idle process's usual wait and an unknown wait are not
// starved.
func TestJudgeWait(t *testing.T) {
	sample := func(wait float64) probes.ProcessSample {
		return probes.ProcessSample{Sched: probes.RunWait{Known: true, WaitSeconds: wait, OnCPUSeconds: 10 * wait, Slices: int64(wait * 1000)}}
	}
	for _, tc := range []struct {
		name           string
		w              report.Window
		before, after  probes.ProcessSample
		idle, idleSD   float64
		wantWait       float64
		wantStarved    bool
		wantThresholdS float64
	}{
		{"waited, did not work: starved", report.Window{LeftoverCPUS: 0.01, ThresholdS: 0.03}, sample(1), sample(1.2), 0, 0, 0.2, true, 0.03},
		{"did not wait: stopped", report.Window{LeftoverCPUS: 0.01, ThresholdS: 0.03}, sample(1), sample(1.01), 0, 0, 0.01, false, 0.03},
		{"worked: leftover, not starved", report.Window{LeftoverCPUS: 0.1, ThresholdS: 0.03}, sample(1), sample(1.5), 0, 0, 0.5, false, 0.03},
		{"a count probe saw calls", report.Window{Orphaned: 2, ThresholdS: 0.03}, sample(1), sample(1.5), 0, 0, 0.5, false, 0.03},
		{"the idle process waits as much", report.Window{ThresholdS: 0.03}, sample(1), sample(1.2), 0.19, 0, 0.01, false, 0.03},
		{"a noisy idle wait raises the threshold", report.Window{ThresholdS: 0.03}, sample(1), sample(1.2), 0, 0.1, 0.2, false, 0.3},
		{"unknown wait", report.Window{ThresholdS: 0.03}, probes.ProcessSample{}, sample(5), 0, 0, 0, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := &probeRun{idleWait: tc.idle, idleWaitNoise: tc.idleSD}
			w := tc.w
			pr.judgeWait(&w, tc.before, tc.after, time.Second)
			if tc.before.Sched.Known && (math.Abs(w.OnCPUS-10*(tc.after.Sched.WaitSeconds-tc.before.Sched.WaitSeconds)) > 1e-9 ||
				w.Slices != tc.after.Sched.Slices-tc.before.Sched.Slices) {
				t.Errorf("judgeWait: on CPU %v s in %d slices, want the difference of the readings", w.OnCPUS, w.Slices)
			}
			if w.Starved != tc.wantStarved || math.Abs(w.RunWaitS-tc.wantWait) > 1e-9 || math.Abs(w.WaitThresholdS-tc.wantThresholdS) > 1e-9 {
				t.Errorf("judgeWait = starved %v, wait %v, threshold %v; want %v, %v, %v",
					w.Starved, w.RunWaitS, w.WaitThresholdS, tc.wantStarved, tc.wantWait, tc.wantThresholdS)
			}
		})
	}
}

// TestLoadWait: the load's run-queue wait per second above idle and per
// time a thread got a CPU; an unknown wait is said.
func TestLoadWait(t *testing.T) {
	pr := &probeRun{idleWait: 0.1}
	from := probes.ProcessSample{Sched: probes.RunWait{Known: true, WaitSeconds: 1, Slices: 100}}
	to := probes.ProcessSample{Sched: probes.RunWait{Known: true, WaitSeconds: 3, Slices: 140}}
	var cpu report.ProcessCPU
	pr.loadWait(&cpu, from, to, 4)
	if math.Abs(cpu.RunWaitRate-0.4) > 1e-9 || math.Abs(cpu.WaitPerSliceMs-50) > 1e-9 || cpu.RunWait != "" {
		t.Errorf("loadWait = %+v, want 0.4 s/s, 50 ms a slice", cpu)
	}
	cpu = report.ProcessCPU{}
	pr.loadWait(&cpu, from, probes.ProcessSample{Sched: probes.RunWait{Err: "no schedstat in /proc"}}, 4)
	if cpu.RunWait != "run-queue wait unknown: no schedstat in /proc" || cpu.WaitPerSliceMs != 0 {
		t.Errorf("loadWait without schedstat = %+v", cpu)
	}
}

// TestClientStall: the stalls of this process from the load's start, over
// the load's time; every stall counts, also those the kept list dropped.
func TestClientStall(t *testing.T) {
	t0 := time.Now()
	r := &runner{began: t0}
	for i := range maxLagStalls + 10 {
		from := t0.Add(time.Duration(i) * 10 * time.Millisecond)
		r.lag.note(from, from.Add(time.Millisecond))
	}
	got := r.clientStall(t0.Add(time.Duration(maxLagStalls+10) * 10 * time.Millisecond * 2))
	want := float64(maxLagStalls + 10)
	if got == nil || math.Abs(got.StalledMs-want) > 1e-6 || math.Abs(got.Share-0.05) > 1e-9 {
		t.Errorf("clientStall = %+v, want %v ms stalled, share 0.05", got, want)
	}
	if (&runner{}).clientStall(t0) != nil {
		t.Error("clientStall before the load began: want nil")
	}
}

func TestSummedThreshold(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		n                     int
		sum, idleNoise, quiet float64
		want                  float64
	}{
		{"one window: none", 1, 1, 0, 0, 0},
		{"four silent windows: the floor twice", 4, 4, 0, 0, 0.06},
		{"idle noise adds up with the time", 4, 4, 0.01, 0, 0.14},
		{"a quiet window's rate adds up with the time", 4, 4, 0, 0.02, 0.1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summedThreshold(tc.n, tc.sum, tc.idleNoise, tc.quiet); math.Abs(got-tc.want) > 1e-9 {
				t.Errorf("summedThreshold(%d, %v, %v, %v) = %v, want %v", tc.n, tc.sum, tc.idleNoise, tc.quiet, got, tc.want)
			}
		})
	}
}

// TestWindowsSummed: windows that cut calls each under their threshold
// add up; a leak of 20 ms a window over three windows is over the summed
// threshold, a stopping server's tick of 10 ms a window is not, and a
// window that cut nothing is not summed.
func TestWindowsSummed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		leftover  []float64
		cancelled int
		above     bool
	}{
		{"a weak leak in every window", []float64{0.02, 0.02, 0.02}, 5, true},
		{"a tick now and then", []float64{0.01, 0, 0.01}, 5, false},
		{"windows that cut nothing", []float64{0.02, 0.02, 0.02}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := &probeRun{}
			for _, l := range tc.leftover {
				pr.addWindow(report.Window{Cancelled: tc.cancelled, MeasuredMs: 1000, LeftoverCPUS: l, ThresholdS: 0.03})
			}
			w := pr.windows
			if w.Above != 0 {
				t.Fatalf("windows above their own threshold: %d", w.Above)
			}
			if got := w.CutCount >= 2 && w.CutLeftoverCPUS > w.CutThresholdS; got != tc.above {
				t.Errorf("summed %v over %v (%d windows): above = %v, want %v", w.CutLeftoverCPUS, w.CutThresholdS, w.CutCount, got, tc.above)
			}
		})
	}
}
