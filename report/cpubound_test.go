package report

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestStarvedCPUBound: a CPU-bound tool starved of CPU gets less than
// 0.05 CPU-s per second of a live call, as a sleeping one does; what its
// threads that ran whole time slices wanted (on a CPU and waiting for one)
// tells them apart. Neither makes "no work seen" a pass: the starved tool
// is not_observable for lack of CPU (a stopping server that had not read
// its cancel burns next to nothing), the sleeping one for the kind of its
// work; work seen in a window is a violation either way.
func TestStarvedCPUBound(t *testing.T) {
	starved := func(b CPUBound) *ProcessCPU { return &ProcessCPU{LoadRate: 0.1, PerCallS: 0.03, CPUBound: b} }
	computing := CPUBound{OnCPUS: 0.09, WaitS: 2.1, Threads: 2, Slices: 45, Preempted: 40, MaxSliceMs: 2, WantedPerCallS: 0.6}
	windows := Windows{Count: 1, CutCount: 1, MeasuredMs: 1000}
	tests := []struct {
		name    string
		cpu     *ProcessCPU
		windows Windows
		want    string
		has     []string
	}{
		{"a CPU-bound tool starved of CPU", starved(computing), windows, StatusNotObservable,
			[]string{"the machine was short of CPU: the tools' work is CPU-bound (threads that ran whole time slices, 40 of 45 slices ended by the kernel, wanted 0.6 CPU-s per second of a live call", "but the process got 0.03"}},
		{"a CPU-bound tool starved of CPU, work seen", starved(computing), Windows{Count: 1, CutCount: 1, MeasuredMs: 1000, Above: 1, LeftoverCPUS: 0.1}, StatusViolation,
			[]string{"1 of 1 quiet window showed leftover work"}},
		{"a sleeping tool: no thread ran whole slices", starved(CPUBound{MaxSliceMs: 0.03}), windows, StatusNotObservable,
			[]string{"0.03 CPU-s per second of a live call; none of its threads ran whole time slices"}},
		{"long slices that ended of their own accord", starved(CPUBound{OnCPUS: 0.09, WaitS: 2.1, Threads: 1, Slices: 45, Preempted: 3, WantedPerCallS: 0.6}),
			windows, StatusNotObservable, []string{"preempted at the end of 3 of 45: they ran out of work"}},
		{"CPU-bound threads that wanted little", starved(CPUBound{OnCPUS: 0.01, WaitS: 0.02, Threads: 1, Slices: 10, Preempted: 10, WantedPerCallS: 0.01}),
			windows, StatusNotObservable, []string{"wanted 0.01 CPU-s per second of a live call"}},
		{"no schedstat", &ProcessCPU{LoadRate: 0.1, PerCallS: 0.03, RunWait: "run-queue wait unknown: no schedstat in /proc"},
			windows, StatusNotObservable, []string{"run-queue wait unknown: no schedstat in /proc, so a CPU-bound tool starved of CPU cannot be told"}},
		{"no CPU above idle at all", &ProcessCPU{LoadRate: 0.001, PerCallS: 0.001, CPUBound: computing}, windows, StatusNotObservable,
			[]string{"the machine was short of CPU", "but the process got 0.001"}},
		{"a CPU-bound tool given the CPU", &ProcessCPU{LoadRate: 1, PerCallS: 0.4, CPUBound: computing}, windows, StatusPass, []string{"no work seen"}},
		{"serving CPU in short slices only", &ProcessCPU{LoadRate: 0.08, PerCallS: 0.08, CPUBound: CPUBound{MaxSliceMs: 0.08, AllSlices: 2721, AllPreempted: 258}},
			windows, StatusNotObservable, []string{"0.08 CPU-s per second of a live call in short time slices only", "the longest 0.08 ms"}},
		{"serving CPU, schedstat unknown", &ProcessCPU{LoadRate: 0.08, PerCallS: 0.08}, windows, StatusPass, []string{"no work seen"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAggregator(Rules{ProgressGrace: 300 * time.Millisecond})
			a.Add(call(0, results.Cancelled, cancelAt(100), fault("cancel", 10)))
			a.SetOrphans(Orphans{CPU: tt.cpu, Windows: tt.windows})
			v := verdictOf(t, a.Summary(testMeta("2026-07-28")), AreaCancellation)
			if v.Status != tt.want {
				t.Errorf("status = %q, want %q (evidence %q)", v.Status, tt.want, v.Evidence)
			}
			for _, h := range tt.has {
				if !strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q lacks %q", v.Evidence, h)
				}
			}
		})
	}
}
