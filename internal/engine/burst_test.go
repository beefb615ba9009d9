package engine

import (
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// onCPU is a process sample whose one thread ran s seconds on a CPU
// (schedstat known), and whose others ran others[i].
func onCPU(s float64, others ...float64) probes.ProcessSample {
	var ps probes.ProcessSample
	ps.Sched.Known = true
	ps.Sched.ByThread = map[int]probes.ThreadTimes{}
	for i, v := range append([]float64{s}, others...) {
		ps.Sched.ByThread[100+i] = probes.ThreadTimes{OnCPU: v, Slices: int64(v * 1e4)}
		ps.Sched.OnCPUSeconds += v
	}
	return ps
}

// TestJudgeBurst: leftover CPU over the threshold is a burst when the
// grace's last 100 ms ran under a quarter of the measurement's rate;
// the figures of the false violations under issue 25's ramp (node's
// collection after the load: 94–130 ms in a second, none in the grace)
// beside leaks that run through the grace.
func TestJudgeBurst(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	tailAt := t0.Add(-100 * time.Millisecond)
	// A tail of one sample's length, or a window whose count probe saw a
	// call running, is not judged.
	idle := onCPU(10)
	for name, w := range map[string]report.Window{
		"too short a tail": {LeftoverCPUS: 0.13, ThresholdS: 0.03},
		"a call running":   {LeftoverCPUS: 0.13, ThresholdS: 0.03, Orphaned: 1},
	} {
		at := tailAt
		if w.Orphaned == 0 {
			at = t0.Add(-5 * time.Millisecond)
		}
		judgeBurst(&w, cutSample{ps: idle, at: at}, idle, onCPU(10.13), t0, time.Second)
		if w.Burst || !w.Above() {
			t.Errorf("%s: burst %v, above %v; want a window counted as before", name, w.Burst, w.Above())
		}
	}
	for _, tc := range []struct {
		name          string
		tail, measure float64 // on-CPU seconds in the tail (100 ms) and the measurement (1 s)
		leftover      float64
		noSched       bool
		want          bool
	}{
		{"node's collection after an idle grace", 0.0004, 0.124, 0.13, false, true},
		{"a leak that runs through the grace", 0.1, 1.0, 1.0, false, false},
		{"a small steady leak", 0.005, 0.05, 0.05, false, false},
		{"a leak winding down in the measurement", 0.2, 0.3, 0.3, false, false},
		{"under the threshold: nothing to judge", 0, 0.02, 0.02, false, false},
		{"just under a quarter of the rate", 0.0029, 0.124, 0.13, false, true},
		{"just over a quarter of the rate", 0.0032, 0.124, 0.13, false, false},
		{"no schedstat: counted as before", 0, 0.13, 0.13, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tail, ps0, ps1 := onCPU(10, 30), onCPU(10+tc.tail), onCPU(10+tc.tail+tc.measure)
			if tc.noSched {
				tail.Sched.Known = false
			}
			w := report.Window{LeftoverCPUS: tc.leftover, ThresholdS: 0.03}
			judgeBurst(&w, cutSample{ps: tail, at: tailAt}, ps0, ps1, t0, time.Second) // a thread of 30 s ended in the tail
			if w.Burst != tc.want {
				t.Errorf("burst = %v (tail %v s in %v ms), want %v", w.Burst, w.TailCPUS, w.TailMs, tc.want)
			}
			if w.Above() == tc.want && tc.leftover > w.ThresholdS {
				t.Errorf("Above() = %v for a window over its threshold, burst %v", w.Above(), w.Burst)
			}
			if !tc.noSched && w.TailMs != 100 {
				t.Errorf("tail_ms = %v, want 100", w.TailMs)
			}
		})
	}
}

// TestBurstNotCounted: a burst is neither a window above its threshold
// nor part of the summed leftover of the windows that cut calls, and the
// run counts it.
func TestBurstNotCounted(t *testing.T) {
	pr := &probeRun{}
	pr.addWindow(report.Window{Cancelled: 2, MeasuredMs: 1000, LeftoverCPUS: 0.13, ThresholdS: 0.03, Burst: true})
	pr.addWindow(report.Window{Cancelled: 2, MeasuredMs: 1000, LeftoverCPUS: 0.02, ThresholdS: 0.03})
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.1, ThresholdS: 0.03, Burst: true})
	w := pr.windows
	if w.Above != 0 || w.Bursts != 2 || w.CutCount != 1 || w.CutLeftoverCPUS != 0.02 || w.Quiet != 0 {
		t.Errorf("windows: above %d, bursts %d, cut %d with %v s, quiet %d; want 0, 2, 1 with 0.02 s, 0",
			w.Above, w.Bursts, w.CutCount, w.CutLeftoverCPUS, w.Quiet)
	}
	pr.addWindow(report.Window{Cancelled: 1, MeasuredMs: 1000, LeftoverCPUS: 0.5, ThresholdS: 0.03})
	if pr.windows.Above != 1 {
		t.Errorf("a leak after the bursts: above %d, want 1", pr.windows.Above)
	}
}

func TestTailOf(t *testing.T) {
	for _, tc := range []struct{ g, want time.Duration }{
		{300 * time.Millisecond, 100 * time.Millisecond},
		{2 * time.Second, 100 * time.Millisecond},
		{150 * time.Millisecond, 50 * time.Millisecond},
	} {
		if got := tailOf(tc.g); got != tc.want {
			t.Errorf("tailOf(%v) = %v, want %v", tc.g, got, tc.want)
		}
	}
}
