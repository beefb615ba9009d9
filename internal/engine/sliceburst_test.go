package engine

import (
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

// sliceCase is one window for judgeSlices: its leftover CPU (threshold
// 30 ms, measured over a second), the longest mean slice of its threads
// and the load's (ms), its computing threads' slices and the kernel's
// preemptions of them.
type sliceCase struct {
	name              string
	leftover          float64
	longest, load     float64
	slices, preempted int64
	want              bool
}

// TestJudgeSlices: leftover CPU over the threshold, at most a quarter of
// a CPU, in slices under half of the load's longest, from computing
// threads the kernel mostly did not preempt, is a slice burst; the
// figures of the windows of issue 25's ramp and table, December 7
// (docs/decisions.md).
func TestJudgeSlices(t *testing.T) {
	for _, tc := range []sliceCase{
		{"node's collector in a window that cut nothing (stop, seed 5)", 0.04, 1.74, 7.02, 52, 20, true},
		{"node's collector of an earlier ramp (0.66 ms against 8.7)", 0.074, 0.66, 8.7, 156, 60, true},
		{"mcp-go leaking over HTTP in the ramp", 0.07, 1.64, 2.0, 47, 34, false},
		{"go-sdk leaking at 0.46 of the load's slice", 1.99, 4.13, 9.05, 782, 623, false},
		// The first rule's misfire (the table, December 7): a whole CPU
		// in slices at 0.16 of the load's; its computing threads were
		// preempted at the end of 81 % of them (54 % of every thread's).
		{"mcp-go's stopping server still in its 500 ms step", 1.01, 3.92, 23.8, 286, 231, false},
		{"go-sdk leaking at 0.08 of the load's slice", 0.2, 1.0, 12.5, 300, 299, false},
		{"mcp-go leaking beside two busy loops", 0.99, 2.17, 1.53, 707, 549, false},
		{"node leaking: one long slice", 1.01, 250.8, 269.1, 14, 4, false},
		{"short slices from threads preempted at 60 %", 0.2, 1.0, 9, 100, 60, false},
		{"just under 60 %", 0.2, 1.0, 9, 100, 59, true},
		{"at a quarter of a CPU", 0.25, 1.0, 9, 100, 40, true},
		{"over a quarter of a CPU", 0.26, 1.0, 9, 100, 40, false},
		{"preemption unknown", 0.04, 1.0, 9, 50, -1, false},
		{"the load's slices unknown", 0.04, 1.0, 0, 50, 20, false},
		{"under the threshold: nothing to judge", 0.02, 1.0, 9, 50, 20, false},
		// The ramp's one collector window over a third (December 7):
		// a third was the rule before; half of it leaves it out.
		{"node's collector at 0.39 of the load's slice", 0.06, 2.73, 7.0, 60, 25, true},
		{"at half the load's slice", 0.04, 4.5, 9, 50, 20, false},
		{"just under half", 0.04, 4.49, 9, 50, 20, true},
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
		"just over two ticks not covered":   func(w *report.Window) { w.LeftoverCPUS = 0.0701; judgeSlices(w, 0.05) },
		"no schedstat":                      func(w *report.Window) { w.CPUBound = nil; judgeSlices(w, 0.04) },
	} {
		w := collector.window()
		judge(&w)
		if w.Burst || w.SliceBurst {
			t.Errorf("%s: burst %v, slice burst %v; want a window counted", name, w.Burst, w.SliceBurst)
		}
	}
	// Two ticks not covered are the leftover's resolution: judged.
	w := collector.window()
	w.LeftoverCPUS = 0.07
	if judgeSlices(&w, 0.05); !w.SliceBurst {
		t.Error("a leftover two ticks over the live threads' CPU: not judged")
	}
	// A window already a burst by its tail stays one, not a slice burst.
	w = collector.window()
	w.Burst = true
	judgeSlices(&w, 0.04)
	if !w.Burst || w.SliceBurst {
		t.Errorf("a tail burst: burst %v, slice burst %v; want true, false", w.Burst, w.SliceBurst)
	}
}

// window is the case's window before judgeSlices.
func (tc sliceCase) window() report.Window {
	return report.Window{LeftoverCPUS: tc.leftover, ThresholdS: 0.03, MeasuredMs: 1000, LoadSliceMs: tc.load,
		CPUBound: &report.CPUBound{LongestSliceMs: tc.longest, Slices: tc.slices, Preempted: tc.preempted}}
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

// TestJudgeWindowSlices: a window during the load is judged against the
// slice of the thread that led the load (from its start to the window's
// cut), not against a helper thread's two long slices, which would have
// made a computing window's short slices a runtime's; a window after the
// load (no cut) is not judged.
func TestJudgeWindowSlices(t *testing.T) {
	start := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1, Slices: 100}})
	// The load: its loop ran 300 ms in 100 slices of 3 ms; a helper new
	// since ran two slices of 50 ms.
	cut := cutSample{at: time.Unix(100, 0), ps: threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.3, Slices: 200}, 2: {OnCPU: 0.1, Slices: 2}})}
	// The window: 45 ms of CPU over a second on one thread, in 20 slices
	// of 2.25 ms, none preempted.
	ps0 := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.3, Slices: 200}})
	ps1 := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.345, Slices: 220}})
	judgeOver := func(cut cutSample, ps0, ps1 probes.ProcessSample, idle float64) report.Window {
		pr := &probeRun{loadFrom: start, idleCPU: idle}
		w := report.Window{LeftoverCPUS: 0.045, ThresholdS: 0.03, MeasuredMs: 1000, CPUBound: cpuBound(ps0, ps1, probes.WindowSlice)}
		live, _ := probes.ThreadsBetween(ps0, ps1)
		pr.judgeWindowSlices(&w, cut, live)
		return w
	}
	judge := func(cut cutSample) report.Window { return judgeOver(cut, ps0, ps1, 0) }
	if w := judge(cut); math.Abs(w.LoadSliceMs-3) > 1e-9 || w.SliceBurst {
		t.Errorf("load slice %v ms, slice burst %v; want 3 ms (the loop's) and none (2.25 ms is three quarters of it)", w.LoadSliceMs, w.SliceBurst)
	}
	if w := judge(cutSample{}); w.LoadSliceMs != 0 || w.Burst {
		t.Errorf("no cut: load slice %v ms, burst %v; want not judged", w.LoadSliceMs, w.Burst)
	}
	// A collector's window: the same 45 ms in 40 slices of 1.1 ms, under
	// half the loop's 3 ms.
	short := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.345, Slices: 240}})
	if w := judgeOver(cut, ps0, short, 0); !w.SliceBurst || !w.Burst {
		t.Errorf("slices of 1.1 ms against the load's 3: slice burst %v, burst %v; want both", w.SliceBurst, w.Burst)
	}
	// The same, but 40 ms of the leftover's 45 came from a thread that
	// ended in the measurement: the live threads' 5 ms do not cover it.
	ended := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.3, Slices: 200}, 5: {OnCPU: 0.2, Slices: 10}})
	few := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.305, Slices: 210}})
	if w := judgeOver(cut, ended, few, 0); w.Burst {
		t.Errorf("a leftover the live threads do not cover: burst %v; want not judged", w.Burst)
	}
	// The live threads' CPU is taken above the idle rate, as the leftover
	// is: 45 ms live, 40 ms of it idle, do not cover 45 ms above idle.
	if w := judgeOver(cut, ps0, short, 0.04); w.Burst {
		t.Errorf("live threads' CPU mostly idle: burst %v; want not judged", w.Burst)
	}
}

// threadSample is a process sample whose schedstat was read for these
// threads.
func threadSample(threads map[int]probes.ThreadTimes) probes.ProcessSample {
	var ps probes.ProcessSample
	ps.Sched.Known, ps.Sched.ByThread = true, threads
	return ps
}
