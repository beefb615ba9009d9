package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestBurstIsNotLeftover: the TypeScript SDK's stopping server under
// issue 25's ramp (seed 2 at d69619e): three windows, one of which cut
// nothing and saw 130 ms of CPU after a grace with none in it. Judged
// as leftover it was a false violation; as a burst the run passes and
// says what it left out. With the same window not a burst, a violation.
func TestBurstIsNotLeftover(t *testing.T) {
	list := []summary.Window{
		{StartMs: 6003, MeasuredMs: 1008, ThresholdS: 0.03},
		{StartMs: 10383, FollowedCut: true, MeasuredMs: 1004, LeftoverCPUS: 0.13, ThresholdS: 0.03, TailMs: 100, TailCPUS: 0.0004, Burst: true},
		{StartMs: 15157, FollowedCut: true, MeasuredMs: 1004, ThresholdS: 0.03},
	}
	w := summary.Windows{Count: 3, Followed: 2, Auto: true, LeftoverCPUS: 0.13, MeasuredMs: 3016, Bursts: 1, List: list}
	s := &summary.Summary{Era: vocab.FirstModern, Cancellation: summary.Cancellation{Cancels: 12, Counting: 1, Windows: w}}
	v := cancellationVerdict(s, evidence{})
	if v.Status != summary.StatusPass || !strings.Contains(v.Evidence, "130ms of CPU in 1 window began after a grace that ended with the server idle") {
		t.Errorf("verdict %q (%s), want a pass that names the burst it left out", v.Status, v.Evidence)
	}
	w.Bursts, w.Above = 0, 1
	w.List = append([]summary.Window(nil), list...)
	w.List[1].Burst = false
	s.Cancellation.Windows = w
	v = cancellationVerdict(s, evidence{})
	if v.Status != summary.StatusViolation || !strings.Contains(v.Evidence, "the window at 10.4s into the load") {
		t.Errorf("verdict %q (%s), want a violation naming the window at 10.4 s", v.Status, v.Evidence)
	}
	// A burst beside a window over its threshold: the evidence names the
	// window, not the burst, though the burst read more.
	w.List = append([]summary.Window(nil), list...)
	w.List[2].LeftoverCPUS, w.Bursts, w.Above = 0.06, 1, 1
	s.Cancellation.Windows = w
	v = cancellationVerdict(s, evidence{})
	if v.Status != summary.StatusViolation || !strings.Contains(v.Evidence, "the window at 15.2s into the load") ||
		!strings.Contains(v.Evidence, "130ms of CPU in 1 window began after") {
		t.Errorf("verdict %q (%s), want a violation naming the window at 15.2 s and the burst left out", v.Status, v.Evidence)
	}
}

// TestWaitBurstIsNotStarved: the TypeScript SDK's stopping server under
// issue 25's ramp (seed 5, December 6): a window that cut nothing read
// 20 ms of CPU and 36.3 ms of waiting, after a grace whose tail wanted
// 1.2 ms. Starved, the run was not_observable; as a wait burst it passes
// and says what it left out.
func TestWaitBurstIsNotStarved(t *testing.T) {
	list := []summary.Window{
		{StartMs: 6003, MeasuredMs: 1001, ThresholdS: 0.03},
		{StartMs: 11623, FollowedCut: true, MeasuredMs: 1002, LeftoverCPUS: 0.02, ThresholdS: 0.03, RunWaitS: 0.0363,
			WaitThresholdS: 0.03, TailMs: 102, TailCPUS: 0.0012, WaitBurst: true},
	}
	w := summary.Windows{Count: 2, Followed: 1, Auto: true, LeftoverCPUS: 0.02, MeasuredMs: 2003, WaitBursts: 1, List: list}
	s := &summary.Summary{Era: vocab.FirstModern, Cancellation: summary.Cancellation{Cancels: 13, Windows: w,
		ProcessCPU: &summary.ProcessCPU{Probe: "server", LoadRate: 0.6, PerCallS: 0.2, ThresholdS: 0.05}}}
	v := cancellationVerdict(s, evidence{})
	if v.Status != summary.StatusPass || !strings.Contains(v.Evidence, "in 1 window the server's threads waited for a CPU only after a grace") {
		t.Errorf("verdict %q (%s), want a pass that names the wait burst", v.Status, v.Evidence)
	}
	w.WaitBursts, w.Starved = 0, 1
	w.List = append([]summary.Window(nil), list...)
	w.List[1].WaitBurst, w.List[1].Starved = false, true
	s.Cancellation.Windows = w
	v = cancellationVerdict(s, evidence{})
	if v.Status != summary.StatusNotObservable || !strings.Contains(v.Evidence, "short of CPU") {
		t.Errorf("verdict %q (%s), want not_observable for a starved window", v.Status, v.Evidence)
	}
}

// TestSliceBurstIsNotLeftover: the TypeScript SDK's stopping server under
// issue 25's ramp (seed 5, December 7): a window that cut nothing read 40
// ms of CPU over its 30 ms threshold, after a busy tail, in slices of
// 1.74 ms at the longest against the load's 7.02. As a slice burst the
// run passes and says so with the figures; beside a tail burst both are
// named.
func TestSliceBurstIsNotLeftover(t *testing.T) {
	list := []summary.Window{
		{StartMs: 4916, FollowedCut: true, MeasuredMs: 1004, ThresholdS: 0.03},
		{StartMs: 11624, FollowedCut: true, MeasuredMs: 1003, LeftoverCPUS: 0.04, ThresholdS: 0.03, TailMs: 103, TailCPUS: 0.027,
			Burst: true, SliceBurst: true, LoadSliceMs: 7.02, CPUBound: &summary.CPUBound{LongestSliceMs: 1.74, Slices: 52, Preempted: 20, AllSlices: 52, AllPreempted: 20}},
	}
	w := summary.Windows{Count: 2, Followed: 2, Auto: true, LeftoverCPUS: 0.04, MeasuredMs: 2007, Bursts: 1, SliceBursts: 1, List: list}
	s := &summary.Summary{Era: vocab.FirstModern, Cancellation: summary.Cancellation{Cancels: 11, Counting: 1, Windows: w}}
	v := cancellationVerdict(s, evidence{})
	want := "40ms of CPU in 1 window came in time slices under half of those the server's threads ran the load in (1.74ms a slice at the longest against 7.02ms), the kernel ending under 60% of its computing threads' slices"
	if v.Status != summary.StatusPass || !strings.Contains(v.Evidence, want) || strings.Contains(v.Evidence, "ended with the server idle") {
		t.Errorf("verdict %q (%s), want a pass that names the slice burst alone", v.Status, v.Evidence)
	}
	w.List = append(w.List, summary.Window{StartMs: 15157, MeasuredMs: 1004, LeftoverCPUS: 0.13, ThresholdS: 0.03, TailMs: 100, TailCPUS: 0.0004, Burst: true})
	w.Bursts = 2
	s.Cancellation.Windows = w
	v = cancellationVerdict(s, evidence{})
	if !strings.Contains(v.Evidence, "130ms of CPU in 1 window began after a grace") || !strings.Contains(v.Evidence, want) {
		t.Errorf("evidence %q: want both bursts named, each with its CPU", v.Evidence)
	}
}

// TestSliceBurstsNamed: with several slice bursts the evidence gives the
// figures of the one nearest the load's slice; a window beside a task
// running on is not named; a list without every burst names none's CPU.
func TestSliceBurstsNamed(t *testing.T) {
	burst := func(start, cpu, longest, load float64) summary.Window {
		return summary.Window{StartMs: start, MeasuredMs: 1000, LeftoverCPUS: cpu, ThresholdS: 0.03, Burst: true, SliceBurst: true,
			LoadSliceMs: load, CPUBound: &summary.CPUBound{LongestSliceMs: longest, Slices: 50, Preempted: 20, AllSlices: 50, AllPreempted: 20}}
	}
	task := burst(3000, 0.5, 5.9, 6) // beside a task running on: not counted, not named
	task.TasksRunningOn = 1
	for _, tc := range []struct {
		name   string
		list   []summary.Window
		bursts int
		want   string
	}{
		{"two, the nearest named", []summary.Window{burst(5000, 0.04, 1, 8), burst(10000, 0.05, 2, 8), task}, 2,
			"90ms of CPU in 2 windows came in time slices under half of those the server's threads ran the load in (2ms a slice at the longest against 8ms, the nearest of them)"},
		{"a list without every burst", []summary.Window{burst(5000, 0.04, 1, 8)}, 2,
			"; the CPU of 2 windows came in time slices under half of those the server's threads ran the load in (1ms a slice at the longest against 8ms, the nearest of them)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := summary.Windows{Count: len(tc.list), Auto: true, MeasuredMs: 3000, Bursts: tc.bursts, SliceBursts: tc.bursts, List: tc.list}
			if got := burstsNote(w); !strings.Contains(got, tc.want) || strings.Contains(got, "ended with the server idle") {
				t.Errorf("burstsNote = %q, want it to hold %q and no tail burst", got, tc.want)
			}
		})
	}
}
