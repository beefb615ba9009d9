package engine

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestJudgeSlices: leftover CPU over the threshold in slices under a
// third of the load's longest, from threads the kernel mostly did not
// preempt, is a slice burst; the figures of the windows of issue 25's
// ramp and table, December 7 (docs/decisions.md).
func TestJudgeSlices(t *testing.T) {
	for _, tc := range []struct {
		name              string
		w                 report.Window
		longest           float64 // the window's longest mean slice, ms
		slices, preempted int64
		load              float64 // the load's longest mean slice, ms
		want              bool
	}{
		{"node's collector in a window that cut nothing (stop, seed 5)", report.Window{LeftoverCPUS: 0.04, ThresholdS: 0.03}, 1.74, 52, 20, 7.02, true},
		{"node's collector of an earlier ramp (0.66 ms against 8.7)", report.Window{LeftoverCPUS: 0.074, ThresholdS: 0.03}, 0.66, 156, 60, 8.7, true},
		{"mcp-go leaking over HTTP in the ramp", report.Window{Cancelled: 6, LeftoverCPUS: 0.07, ThresholdS: 0.03}, 1.64, 47, 34, 2.0, false},
		{"go-sdk leaking at 0.46 of the load's slice", report.Window{Cancelled: 4, LeftoverCPUS: 1.99, ThresholdS: 0.03}, 4.13, 782, 623, 9.05, false},
		{"mcp-go leaking beside two busy loops", report.Window{Cancelled: 3, LeftoverCPUS: 0.99, ThresholdS: 0.03}, 2.17, 707, 549, 1.53, false},
		{"node leaking: one long slice", report.Window{Cancelled: 3, LeftoverCPUS: 1.01, ThresholdS: 0.03}, 250.8, 14, 4, 269.1, false},
		{"short slices, but preempted: computing", report.Window{LeftoverCPUS: 0.2, ThresholdS: 0.03}, 1.0, 100, 80, 9, false},
		{"preemption unknown", report.Window{LeftoverCPUS: 0.04, ThresholdS: 0.03}, 1.0, 50, -1, 9, false},
		{"the load's slices unknown", report.Window{LeftoverCPUS: 0.04, ThresholdS: 0.03}, 1.0, 50, 20, 0, false},
		{"under the threshold: nothing to judge", report.Window{LeftoverCPUS: 0.02, ThresholdS: 0.03}, 1.0, 50, 20, 9, false},
		{"a count probe saw a call", report.Window{LeftoverCPUS: 0.04, ThresholdS: 0.03, Orphaned: 1}, 1.0, 50, 20, 9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			w.CPUBound = &report.CPUBound{LongestSliceMs: tc.longest, AllSlices: tc.slices, AllPreempted: tc.preempted}
			judgeSlices(&w, tc.load)
			if w.SliceBurst != tc.want || w.Burst != tc.want {
				t.Errorf("slice burst %v, burst %v; want %v", w.SliceBurst, w.Burst, tc.want)
			}
			if w.Above() == tc.want && tc.w.LeftoverCPUS > tc.w.ThresholdS {
				t.Errorf("Above() = %v for a window over its threshold", w.Above())
			}
		})
	}
	// A window already a burst by its tail stays one, and is not called
	// a slice burst; one without its threads' slices is not judged.
	w := report.Window{LeftoverCPUS: 0.1, ThresholdS: 0.03, Burst: true, CPUBound: &report.CPUBound{LongestSliceMs: 0.5, AllSlices: 50, AllPreempted: 10}}
	judgeSlices(&w, 9)
	if !w.Burst || w.SliceBurst {
		t.Errorf("a tail burst: burst %v, slice burst %v; want true, false", w.Burst, w.SliceBurst)
	}
	w = report.Window{LeftoverCPUS: 0.1, ThresholdS: 0.03}
	judgeSlices(&w, 9)
	if w.Burst {
		t.Error("a window without schedstat taken for a burst")
	}
}

// TestSliceBurstCounted: a slice burst counts as a burst and as a slice
// burst, and is not above its threshold.
func TestSliceBurstCounted(t *testing.T) {
	pr := &probeRun{}
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.04, ThresholdS: 0.03, Burst: true, SliceBurst: true})
	pr.addWindow(report.Window{MeasuredMs: 1000, LeftoverCPUS: 0.13, ThresholdS: 0.03, Burst: true})
	if w := pr.windows; w.Bursts != 2 || w.SliceBursts != 1 || w.Above != 0 {
		t.Errorf("bursts %d, slice bursts %d, above %d; want 2, 1, 0", w.Bursts, w.SliceBursts, w.Above)
	}
}
