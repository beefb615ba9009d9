package report

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestStarvedVerdict: with a process probe as the only server-side
// evidence, "no work seen" on a machine that starved the server (its
// threads waited for a CPU in a window, or during the load) or mcpchaos
// itself is not a pass; evidence of work is a violation all the same, and
// a count probe sees calls run whatever the CPU.
func TestStarvedVerdict(t *testing.T) {
	visible := func() *ProcessCPU { return &ProcessCPU{LoadRate: 1, PerCallS: 1} }
	starvedWin := Window{StartMs: 1500, Cancelled: 12, MeasuredMs: 1000, LeftoverCPUS: 0.01, ThresholdS: 0.03,
		RunWaitS: 0.2, WaitThresholdS: 0.03, Starved: true}
	tests := []struct {
		name    string
		orphans Orphans
		want    string
		has     []string
	}{
		{"windows clean, nothing starved", Orphans{CPU: visible(), Windows: Windows{Count: 1, MeasuredMs: 1000}},
			StatusPass, []string{"no work seen"}},
		{"a starved window", Orphans{CPU: visible(), Windows: Windows{Count: 2, Starved: 1, MeasuredMs: 2000, List: []Window{{StartMs: 500}, starvedWin}}},
			StatusNotObservable, []string{"in 1 of 2 quiet windows the server's threads waited for a CPU", "the window at 1.5s into the load", "200ms waiting"}},
		{"a starved window beside one that saw work", Orphans{CPU: visible(), Windows: Windows{Count: 2, Starved: 1, Above: 1, LeftoverCPUS: 0.3, MeasuredMs: 2000}},
			StatusViolation, []string{"1 of 2 quiet windows showed leftover work"}},
		{"late messages a fence could not place", Orphans{CPU: visible(), Windows: Windows{Count: 1, MeasuredMs: 1000}},
			StatusNotObservable, []string{"2 messages later than cancel + grace came before a slow answer (or none) to a ping"}},
		{"late messages before a prompt fence prove no starving", Orphans{CPU: visible(), Windows: Windows{Count: 1, MeasuredMs: 1000}},
			StatusPass, []string{"no work seen"}},
		{"server run-queue wait during the load is not judged", Orphans{CPU: &ProcessCPU{LoadRate: 1, PerCallS: 1, WaitPerSliceMs: 45, RunWaitRate: 3},
			Windows: Windows{Count: 1, MeasuredMs: 1000}},
			StatusPass, nil},
		{"mcpchaos stalled through most of the load", Orphans{CPU: visible(), Windows: Windows{Count: 1, MeasuredMs: 1000},
			Client: &ClientStall{StalledMs: 2400, LoadMs: 4000, Share: 0.6}},
			StatusNotObservable, []string{"mcpchaos itself stalled for 2.4s of the load's 4s (60%)"}},
		{"mcpchaos stalled a little", Orphans{CPU: visible(), Windows: Windows{Count: 1, MeasuredMs: 1000},
			Client: &ClientStall{StalledMs: 400, LoadMs: 4000, Share: 0.1}},
			StatusPass, nil},
		{"weak windows that add up", Orphans{CPU: visible(), Windows: Windows{Count: 3, CutCount: 3, CutLeftoverCPUS: 0.06, CutThresholdS: 0.052, MeasuredMs: 3000}},
			StatusViolation, []string{"the 3 quiet windows that cut calls showed 60ms of CPU above idle together, over their summed threshold 52ms"}},
		{"weak windows that do not add up", Orphans{CPU: visible(), Windows: Windows{Count: 3, CutCount: 3, CutLeftoverCPUS: 0.02, CutThresholdS: 0.052, MeasuredMs: 3000}},
			StatusPass, nil},
		{"a count probe sees calls whatever the CPU", Orphans{Counting: 1, ByProbe: map[string]float64{"inflight": 0}, CPU: visible(),
			Windows: Windows{Count: 1, Starved: 1}, Client: &ClientStall{StalledMs: 3000, LoadMs: 4000, Share: 0.75}},
			StatusPass, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := NewAggregator(Rules{ProgressGrace: 300 * time.Millisecond})
			rec := call(0, results.Cancelled, cancelAt(100), fault("cancel", 10))
			if strings.Contains(tt.name, "fence") {
				rec.LateQueued = 2
			}
			if strings.Contains(tt.name, "prompt") {
				rec.LateQueuedPrompt = 2
			}
			a.Add(rec)
			a.SetOrphans(tt.orphans)
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

// TestMergeStarved: merged runs keep the worst client stall and add their
// starved and summed windows; shards of one shared server take the
// largest.
func TestMergeStarved(t *testing.T) {
	a := RunInputs{Orphans: Orphans{Client: &ClientStall{StalledMs: 100, LoadMs: 1000, Share: 0.1},
		Windows: Windows{Starved: 1, CutCount: 2, CutLeftoverCPUS: 0.02, CutThresholdS: 0.042}}}
	b := RunInputs{Orphans: Orphans{Client: &ClientStall{StalledMs: 600, LoadMs: 1000, Share: 0.6},
		Windows: Windows{CutCount: 3, CutLeftoverCPUS: 0.03, CutThresholdS: 0.052}}}
	got := MergeInputs([]RunInputs{a, b}).Orphans
	w := got.Windows
	if got.Client == nil || got.Client.Share != 0.6 || w.Starved != 1 || w.CutCount != 5 ||
		math.Abs(w.CutLeftoverCPUS-0.05) > 1e-9 || math.Abs(w.CutThresholdS-0.094) > 1e-9 {
		t.Errorf("merged: client %+v, windows %+v", got.Client, w)
	}
	a.Orphans.Shared, b.Orphans.Shared = &SharedServer{}, &SharedServer{}
	w = MergeInputs([]RunInputs{a, b}).Orphans.Windows
	if w.Starved != 1 || w.CutCount != 3 || math.Abs(w.CutThresholdS-0.052) > 1e-9 {
		t.Errorf("merged shards of a shared server: windows %+v", w)
	}
}
