package engine

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// sliceCase is one window for judgeSlices: its leftover CPU (threshold
// 30 ms), the longest mean slice of its threads and the load's (ms), its
// slices and the kernel's preemptions of them.
type sliceCase struct {
	name              string
	leftover          float64
	longest, load     float64
	slices, preempted int64
	want              bool
}

// TestJudgeSlices: leftover CPU over the threshold in slices under a
// third of the load's longest, from threads the kernel mostly did not
// preempt, is a slice burst; the figures of the windows of issue 25's
// ramp and table, December 7 (docs/decisions.md).
func TestJudgeSlices(t *testing.T) {
	for _, tc := range []sliceCase{
		{"node's collector in a window that cut nothing (stop, seed 5)", 0.04, 1.74, 7.02, 52, 20, true},
		{"node's collector of an earlier ramp (0.66 ms against 8.7)", 0.074, 0.66, 8.7, 156, 60, true},
		{"mcp-go leaking over HTTP in the ramp", 0.07, 1.64, 2.0, 47, 34, false},
		{"go-sdk leaking at 0.46 of the load's slice", 1.99, 4.13, 9.05, 782, 623, false},
		{"mcp-go leaking beside two busy loops", 0.99, 2.17, 1.53, 707, 549, false},
		{"node leaking: one long slice", 1.01, 250.8, 269.1, 14, 4, false},
		{"short slices, but preempted: computing", 0.2, 1.0, 9, 100, 80, false},
		{"preemption unknown", 0.04, 1.0, 9, 50, -1, false},
		{"the load's slices unknown", 0.04, 1.0, 0, 50, 20, false},
		{"under the threshold: nothing to judge", 0.02, 1.0, 9, 50, 20, false},
		{"at a third of the load's slice", 0.04, 3, 9, 50, 20, false},
		{"just under a third", 0.04, 2.99, 9, 50, 20, true},
		{"at 55 % preempted", 0.04, 1.0, 9, 100, 55, false},
		{"just under 55 % preempted", 0.04, 1.0, 9, 100, 54, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.window()
			judgeSlices(&w, tc.leftover)
			if w.SliceBurst != tc.want || w.Burst != tc.want {
				t.Errorf("slice burst %v, burst %v; want %v", w.SliceBurst, w.Burst, tc.want)
			}
			if w.Above() == tc.want && tc.leftover > w.ThresholdS {
				t.Errorf("Above() = %v for a window over its threshold", w.Above())
			}
		})
	}
	collector := sliceCase{leftover: 0.04, longest: 1.74, load: 7.02, slices: 52, preempted: 20}
	for name, judge := range map[string]func(w *report.Window){
		// A leak in a thread that ended, or a child reaped, in the
		// measurement: its CPU is in the leftover, its slices are not.
		"CPU the live threads do not cover": func(w *report.Window) { w.LeftoverCPUS = 0.2; judgeSlices(w, 0.05) },
		"a count probe saw a call":          func(w *report.Window) { w.Orphaned = 1; judgeSlices(w, 0.04) },
		"no schedstat":                      func(w *report.Window) { w.CPUBound = nil; judgeSlices(w, 0.04) },
	} {
		w := collector.window()
		judge(&w)
		if w.Burst || w.SliceBurst {
			t.Errorf("%s: burst %v, slice burst %v; want a window counted", name, w.Burst, w.SliceBurst)
		}
	}
	// A window already a burst by its tail stays one, not a slice burst.
	w := collector.window()
	w.Burst = true
	judgeSlices(&w, 0.04)
	if !w.Burst || w.SliceBurst {
		t.Errorf("a tail burst: burst %v, slice burst %v; want true, false", w.Burst, w.SliceBurst)
	}
}

// window is the case's window before judgeSlices.
func (tc sliceCase) window() report.Window {
	return report.Window{LeftoverCPUS: tc.leftover, ThresholdS: 0.03, LoadSliceMs: tc.load,
		CPUBound: &report.CPUBound{LongestSliceMs: tc.longest, AllSlices: tc.slices, AllPreempted: tc.preempted}}
}

// TestSliceBurstCounted: a slice burst counts as a burst and as a slice
// burst, is not above its threshold, and stays out of the sums of the
// windows that cut calls.
func TestSliceBurstCounted(t *testing.T) {
	pr := &probeRun{}
	pr.addWindow(report.Window{Cancelled: 2, MeasuredMs: 1000, LeftoverCPUS: 0.04, ThresholdS: 0.03, Burst: true, SliceBurst: true})
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.13, ThresholdS: 0.03, Burst: true})
	if w := pr.windows; w.Bursts != 2 || w.SliceBursts != 1 || w.Above != 0 || w.CutCount != 0 || w.CutLeftoverCPUS != 0 {
		t.Errorf("bursts %d, slice bursts %d, above %d, cut %d with %v s; want 2, 1, 0, 0 with 0 s",
			w.Bursts, w.SliceBursts, w.Above, w.CutCount, w.CutLeftoverCPUS)
	}
}
