package engine

import (
	"os"
	"runtime"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestJudgeSelfWait: a starved window whose wait the server's own threads
// could have made each other, in a slice burst's slices, is a wait burst
// (the three TypeScript windows of issue 25's ramp at 163d7e8, from their
// summaries); a server held off the CPU by another process stays
// starved.
func TestJudgeSelfWait(t *testing.T) {
	for _, tc := range []struct {
		name        string
		wait        float64 // the window's run-queue wait above idle, s
		b           summary.CPUBound
		loadSliceMs float64
		cpus        int
		starved     bool // before
		wantStarved bool
	}{
		{"node's collector, stdio leak seed 4", 0.0300, summary.CPUBound{OnCPUS: 0.0364, WaitS: 0.0300, Threads: 5, Slices: 27, Preempted: 8, LongestSliceMs: 3.73}, 14.56, 2, true, false},
		{"node's collector, stdio stop seed 1", 0.0440, summary.CPUBound{OnCPUS: 0.0332, WaitS: 0.0440, Threads: 5, Slices: 69, Preempted: 29, LongestSliceMs: 0.64}, 4.09, 2, true, false},
		{"node's collector, HTTP leak seed 5", 0.0384, summary.CPUBound{OnCPUS: 0.0366, WaitS: 0.0384, Threads: 5, Slices: 57, Preempted: 26, LongestSliceMs: 0.93}, 14.29, 2, true, false},
		{"one reader held off by another process", 0.0400, summary.CPUBound{OnCPUS: 0.001, WaitS: 0.04, Threads: 1, Slices: 4, Preempted: 0, LongestSliceMs: 0.3}, 10, 2, true, true},
		{"more wait than its threads could make", 0.0400, summary.CPUBound{OnCPUS: 0.02, WaitS: 0.04, Threads: 3, Slices: 40, Preempted: 5, LongestSliceMs: 0.5}, 10, 2, true, true},
		{"a Go server's threads preempted", 0.0400, summary.CPUBound{OnCPUS: 0.03, WaitS: 0.04, Threads: 5, Slices: 40, Preempted: 36, LongestSliceMs: 0.5}, 10, 2, true, true},
		{"slices as long as the load's", 0.0400, summary.CPUBound{OnCPUS: 0.03, WaitS: 0.04, Threads: 5, Slices: 10, Preempted: 2, LongestSliceMs: 6}, 10, 2, true, true},
		{"the server's CPUs unknown", 0.0300, summary.CPUBound{OnCPUS: 0.0364, WaitS: 0.0300, Threads: 5, Slices: 27, Preempted: 8, LongestSliceMs: 3.73}, 14.56, 0, true, true},
		{"not starved: nothing to judge", 0.0300, summary.CPUBound{OnCPUS: 0.0364, WaitS: 0.0300, Threads: 5, Slices: 27, Preempted: 8, LongestSliceMs: 3.73}, 14.56, 2, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.b
			w := report.Window{Starved: tc.starved, RunWaitS: tc.wait, WaitThresholdS: 0.03, LoadSliceMs: tc.loadSliceMs, CPUBound: &b}
			judgeSelfWait(&w, tc.cpus)
			if w.Starved != tc.wantStarved || w.WaitBurst != (tc.starved && !tc.wantStarved) {
				t.Errorf("starved %v, wait burst %v; want %v, %v", w.Starved, w.WaitBurst, tc.wantStarved, tc.starved && !tc.wantStarved)
			}
		})
	}
}

// TestCPUsOf: this process's CPUs are read on Linux (where schedstat
// starves windows at all); a process that does not exist has none known.
func TestCPUsOf(t *testing.T) {
	n := cpusOf(os.Getpid())
	if runtime.GOOS == "linux" && n < 1 {
		t.Errorf("cpusOf(self) = %d, want 1 or more on Linux", n)
	}
	if got := cpusOf(0); got != 0 {
		t.Errorf("cpusOf(0) = %d, want 0", got)
	}
}
