package report

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestStarvedCPUBoundVisible: a CPU-bound tool starved of CPU gets less
// than 0.05 CPU-s per second of a live call, as a sleeping one does; what
// its threads that ran whole time slices wanted (on a CPU and waiting for
// one) tells them apart. Sleeping work stays not_observable however long
// its wake-ups waited.
func TestStarvedCPUBoundVisible(t *testing.T) {
	starved := func(b CPUBound) *ProcessCPU { return &ProcessCPU{LoadRate: 0.1, PerCallS: 0.03, CPUBound: b} }
	computing := CPUBound{OnCPUS: 0.09, WaitS: 2.1, Threads: 2, Slices: 45, Preempted: 40, MaxSliceMs: 2, WantedPerCallS: 0.6}
	windows := Windows{Count: 1, CutCount: 1, MeasuredMs: 1000}
	tests := []struct {
		name string
		cpu  *ProcessCPU
		want string
		has  []string
	}{
		{"a CPU-bound tool starved of CPU: observable", starved(computing), StatusPass, []string{"no work seen"}},
		{"a sleeping tool: no thread ran whole slices", starved(CPUBound{MaxSliceMs: 0.03}), StatusNotObservable,
			[]string{"0.03 CPU-s per second of a live call; none of its threads ran whole time slices"}},
		{"long slices that ended of their own accord", starved(CPUBound{OnCPUS: 0.09, WaitS: 2.1, Threads: 1, Slices: 45, Preempted: 3, WantedPerCallS: 0.6}),
			StatusNotObservable, []string{"preempted at the end of 3 of 45: they ran out of work"}},
		{"CPU-bound threads that wanted little", starved(CPUBound{OnCPUS: 0.01, WaitS: 0.02, Threads: 1, Slices: 10, Preempted: 10, WantedPerCallS: 0.01}),
			StatusNotObservable, []string{"wanted 0.01 CPU-s per second of a live call"}},
		{"no schedstat", &ProcessCPU{LoadRate: 0.1, PerCallS: 0.03, RunWait: "run-queue wait unknown: no schedstat in /proc"},
			StatusNotObservable, []string{"run-queue wait unknown: no schedstat in /proc, so a CPU-bound tool starved of CPU cannot be told"}},
		{"no CPU above idle at all", &ProcessCPU{LoadRate: 0.001, PerCallS: 0.001, CPUBound: computing}, StatusNotObservable,
			[]string{"wanted 0.6 CPU-s per second of a live call (on a CPU and waiting for one), but what they got is within the idle noise"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAggregator(Rules{ProgressGrace: 300 * time.Millisecond})
			a.Add(call(0, results.Cancelled, cancelAt(100), fault("cancel", 10)))
			a.SetOrphans(Orphans{CPU: tt.cpu, Windows: windows})
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
