package engine

import (
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// onCPU is a process sample whose one thread ran s seconds on a CPU
// (schedstat known), and whose others ran others[i].
func onCPU(s float64, others ...float64) probes.ProcessSample {
	threads := [][2]float64{{s, 0}}
	for _, v := range others {
		threads = append(threads, [2]float64{v, 0})
	}
	return waiting(threads...)
}

// waiting is a process sample whose threads ran and waited the seconds
// each pair gives ({on a CPU, waiting}), schedstat known.
func waiting(threads ...[2]float64) probes.ProcessSample {
	var ps probes.ProcessSample
	ps.Sched.Known = true
	ps.Sched.ByThread = map[int]probes.ThreadTimes{}
	for i, v := range threads {
		ps.Sched.ByThread[100+i] = probes.ThreadTimes{OnCPU: v[0], Wait: v[1], Slices: int64(v[0] * 1e4)}
		ps.Sched.OnCPUSeconds += v[0]
		ps.Sched.WaitSeconds += v[1]
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
		judgeBurstOver(&w, cutSample{ps: idle, at: at}, idle, onCPU(10.13), t0, time.Second, tailFloors{tailNoise, tailNoise})
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
		floor         float64 // the tail's idle rate; tailNoise when 0
	}{
		{"node's collection after an idle grace", 0.0004, 0.124, 0.13, false, true, 0},
		{"a leak that runs through the grace", 0.1, 1.0, 1.0, false, false, 0},
		{"a small steady leak", 0.005, 0.05, 0.05, false, false, 0},
		{"a leak winding down in the measurement", 0.2, 0.3, 0.3, false, false, 0},
		{"under the threshold: nothing to judge", 0, 0.02, 0.02, false, false, 0},
		{"just under a quarter of the rate", 0.0029, 0.124, 0.13, false, true, 0},
		{"just over a quarter of the rate", 0.0032, 0.124, 0.13, false, false, 0},
		{"no schedstat: counted as before", 0, 0.13, 0.13, true, false, 0},
		// The stopping TypeScript server of December 6: its threads ran
		// at 1 % of a CPU in the tail, over a quarter of the window's
		// rate (0.8 ms), under the floor.
		{"node's threads at 1 % of a CPU in the tail", 0.00098, 0.0332, 0.04, false, true, 0},
		{"a slow leak at 3 % of a CPU", 0.003, 0.035, 0.04, false, false, 0},
		{"the same leak under a measured floor of 4 %", 0.003, 0.035, 0.04, false, true, 0.04},
	} {
		if tc.floor == 0 {
			tc.floor = tailNoise
		}
		t.Run(tc.name, func(t *testing.T) {
			tail, ps0, ps1 := onCPU(10, 30), onCPU(10+tc.tail), onCPU(10+tc.tail+tc.measure)
			if tc.noSched {
				tail.Sched.Known = false
			}
			w := report.Window{LeftoverCPUS: tc.leftover, ThresholdS: 0.03}
			judgeBurstOver(&w, cutSample{ps: tail, at: tailAt}, ps0, ps1, t0, time.Second, tailFloors{tc.floor, tc.floor}) // a thread of 30 s ended in the tail
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

// TestTailFloors: the tail's floors are the idle rate (and idle wait,
// for what the threads wanted) plus the larger of tailNoise and the
// noise rate the windows that cut nothing measured, capped at the rate a
// window's threshold stands for.
func TestTailFloors(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		idle, idleWait, quiet    float64
		el                       time.Duration
		threshold, waitThreshold float64
		wantCPU, wantWant        float64
	}{
		{"no noise measured", 0, 0, 0, time.Second, 0.03, 0.03, tailNoise, tailNoise},
		{"an idle rate and wait before the load", 0.01, 0.004, 0, time.Second, 0.03, 0.03, 0.01 + tailNoise, 0.014 + tailNoise},
		{"a quiet window's noise over tailNoise", 0.01, 0, 0.025, time.Second, 0.036, 0.03, 0.035, 0.035},
		{"a quiet window's noise under tailNoise", 0, 0, 0.005, time.Second, 0.03, 0.03, tailNoise, tailNoise},
		{"a 5 s window: capped at its threshold's rate", 0, 0, 0, 5 * time.Second, 0.03, 0.05, 0.006, 0.01},
	} {
		pr := &probeRun{idleCPU: tc.idle, idleWait: tc.idleWait, quietRate: tc.quiet}
		got := pr.tailFloors(report.Window{ThresholdS: tc.threshold, WaitThresholdS: tc.waitThreshold}, tc.el)
		if math.Abs(got.cpu-tc.wantCPU) > 1e-12 || math.Abs(got.want-tc.wantWant) > 1e-12 {
			t.Errorf("%s: tailFloors = %+v, want {cpu:%v want:%v}", tc.name, got, tc.wantCPU, tc.wantWant)
		}
	}
}

// TestJudgeWaitBurst: a starved window whose grace's tail wanted no CPU
// (on it or waiting) is a wait burst, not starved; the figures of the
// stopping TypeScript server's window of December 6 (24 ms on a CPU, 36
// ms waiting, after a tail of 1.2 ms) beside a server held off the CPU
// through its grace.
func TestJudgeWaitBurst(t *testing.T) {
	t0 := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	tailAt := t0.Add(-100 * time.Millisecond)
	for _, tc := range []struct {
		name                 string
		tailCPU, tailWait    float64 // seconds in the tail (100 ms)
		measureCPU, measWait float64 // seconds in the measurement (1 s)
		starved              bool    // as judgeWait left it
		wantStarved, wantWB  bool
		endsInTail           bool // a thread that had waited 30 s ends in the tail
	}{
		{"node's collector after an idle grace", 0.0012, 0, 0.0236, 0.0363, true, false, true, false},
		{"held off the CPU through the grace", 0.002, 0.08, 0.02, 0.5, true, true, false, false},
		{"held off, while a thread that had waited 30 s ended", 0.002, 0.08, 0.02, 0.5, true, true, false, true},
		{"running through the grace, then waiting", 0.05, 0.01, 0.02, 0.2, true, true, false, false},
		{"waiting under a quarter of the rate, over the floor", 0.001, 0.003, 0.02, 0.3, true, false, true, false},
		{"not starved: nothing to judge", 0.0001, 0, 0.01, 0.01, false, false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tail := waiting([2]float64{10, 5})
			ps0 := waiting([2]float64{10 + tc.tailCPU, 5 + tc.tailWait})
			ps1 := waiting([2]float64{10 + tc.tailCPU + tc.measureCPU, 5 + tc.tailWait + tc.measWait})
			if tc.endsInTail {
				tail = waiting([2]float64{10, 5}, [2]float64{1, 30})
			}
			w := report.Window{LeftoverCPUS: tc.measureCPU, ThresholdS: 0.03, RunWaitS: tc.measWait, WaitThresholdS: 0.03, Starved: tc.starved}
			judgeBurstOver(&w, cutSample{ps: tail, at: tailAt}, ps0, ps1, t0, time.Second, tailFloors{tailNoise, tailNoise})
			if w.Starved != tc.wantStarved || w.WaitBurst != tc.wantWB {
				t.Errorf("starved %v, wait burst %v; want %v, %v", w.Starved, w.WaitBurst, tc.wantStarved, tc.wantWB)
			}
			if math.Abs(w.TailWaitS-tc.tailWait) > 1e-9 {
				t.Errorf("tail_wait_s = %v, want %v", w.TailWaitS, tc.tailWait)
			}
		})
	}
	pr := &probeRun{}
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.02, ThresholdS: 0.03, WaitBurst: true})
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.02, ThresholdS: 0.03, Starved: true})
	if pr.windows.WaitBursts != 1 || pr.windows.Starved != 1 {
		t.Errorf("windows: wait bursts %d, starved %d; want 1, 1", pr.windows.WaitBursts, pr.windows.Starved)
	}
}

// judgeBurstOver is judgeBurst over a measurement from ps0 to ps1.
func judgeBurstOver(w *report.Window, tail cutSample, ps0, ps1 probes.ProcessSample, t0 time.Time, el time.Duration, floors tailFloors) {
	inMeasure, known := probes.ThreadsBetween(ps0, ps1)
	judgeBurst(w, tail, ps0, inMeasure, known, t0, el, floors)
}
