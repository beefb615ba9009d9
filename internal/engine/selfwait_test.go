package engine

import (
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
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
		{"another thread waited past the threshold", 0.0700, summary.CPUBound{OnCPUS: 0.0364, WaitS: 0.0300, Threads: 5, Slices: 27, Preempted: 8, LongestSliceMs: 3.73}, 14.56, 2, true, true},
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
// starves windows at all), as the probe's first root's (serverCPUs);
// no pid, no CPUs known.
func TestCPUsOf(t *testing.T) {
	n := cpusOf(os.Getpid())
	if runtime.GOOS == "linux" && n < 1 {
		t.Errorf("cpusOf(self) = %d, want 1 or more on Linux", n)
	}
	pr := &probeRun{procPIDs: func() []int { return []int{os.Getpid()} }}
	if got := pr.serverCPUs(); got != n {
		t.Errorf("serverCPUs() = %d, want %d (this process's)", got, n)
	}
	if got, none := cpusOf(0), (&probeRun{}).serverCPUs(); got != 0 || none != 0 {
		t.Errorf("cpusOf(0) = %d, serverCPUs without roots = %d; want 0, 0", got, none)
	}
}

// TestWindowSlicesJudgeSelfWait: judgeWindowSlices asks the server's CPUs
// of the probe's root (here this process) for a starved window during the
// load, and makes a wait its threads made each other a wait burst;
// without a root to ask, the window stays starved.
func TestWindowSlicesJudgeSelfWait(t *testing.T) {
	cpus := cpusOf(os.Getpid())
	if cpus == 0 {
		t.Skip("no CPU affinity read here")
	}
	// The load's loop ran 300 ms in 100 slices of 3 ms before the cut.
	start := threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1, Slices: 100}})
	cut := cutSample{at: time.Unix(100, 0), ps: threadSample(map[int]probes.ThreadTimes{1: {OnCPU: 1.3, Slices: 200}})}
	for _, tc := range []struct {
		name  string
		roots func() []int
		want  bool // starved after
	}{
		{"the server's CPUs read", func() []int { return []int{os.Getpid()} }, false},
		{"no root to ask", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pr := &probeRun{loadFrom: start, procPIDs: tc.roots}
			// cpus + 3 threads ran 0.02 s a CPU in slices of 0.6 ms, few
			// preempted, and waited 30 ms: within what they could make
			// each other wait.
			b := summary.CPUBound{OnCPUS: 0.02 * float64(cpus), WaitS: 0.03, Threads: cpus + 3, Slices: 60, Preempted: 10, LongestSliceMs: 0.6}
			w := report.Window{Starved: true, RunWaitS: 0.03, WaitThresholdS: 0.03, MeasuredMs: 1000, CPUBound: &b}
			pr.judgeWindowSlices(&w, cut, probes.ThreadsDelta{})
			if w.Starved != tc.want || w.WaitBurst == tc.want {
				t.Errorf("starved %v, wait burst %v; want starved %v", w.Starved, w.WaitBurst, tc.want)
			}
		})
	}
}
