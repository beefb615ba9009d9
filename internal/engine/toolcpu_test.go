package engine

import (
	"math"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
)

func TestMarkPeakOneTool(t *testing.T) {
	a := &callState{spec: &CallSpec{Tool: "a"}}
	a2 := &callState{spec: &CallSpec{Tool: "a"}}
	b := &callState{spec: &CallSpec{Tool: "b"}}
	var s inflightSet
	s.add(a)
	if got := s.markPeak(); got != "" {
		t.Errorf("tools not tracked: markPeak = %q, want none", got)
	}
	s.remove(a)
	s.trackTools()
	steps := []struct {
		name string
		do   func()
		want string
	}{
		{"nothing in flight", func() {}, ""},
		{"two calls of a", func() { s.add(a); s.add(a2) }, "a"},
		{"a still in flight, b came and went", func() { s.add(b); s.remove(b) }, ""},
		{"a alone again", func() {}, "a"},
		{"a ended, b began", func() { s.remove(a); s.remove(a2); s.add(b) }, ""},
		{"b alone", func() {}, "b"},
		{"b ended: it was in flight at the look", func() { s.remove(b) }, "b"},
		{"nothing since", func() {}, ""},
		{"a removed twice counts once", func() { s.remove(a); s.add(a) }, "a"},
	}
	for _, st := range steps {
		st.do()
		if got := s.markPeak(); got != st.want {
			t.Errorf("%s: markPeak = %q, want %q", st.name, got, st.want)
		}
	}
	if n := s.byTool["a"]; n != 1 {
		t.Errorf("a's calls in flight = %d, want 1", n)
	}
}

func TestToolsCPU(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	plan := Plan{Calls: []CallSpec{{Tool: "burn"}, {Tool: "sleep"}, {Tool: "burn"}, {Tool: "never"}}}
	plan.Orphans.SampleEvery = 100 * time.Millisecond
	pr := &probeRun{r: &runner{plan: plan}, proc: &probes.Process{}, idleCPU: 0.1}
	pr.r.inflight.trackTools()
	pr.client = inflightSeries{gap: 500 * time.Millisecond}
	// sample feeds one sample: the tool alone since the last, the CPU read,
	// the calls in flight now.
	sample := func(ms int, only string, cpu float64, inflight int) {
		pr.noteTool(only, at(ms), cpu)
		pr.client.add(probes.Point{T: at(ms), V: float64(inflight)})
	}
	sample(0, "", 10, 2)
	sample(100, "burn", 10.15, 2)       // 2 burn calls for 0.1 s: 0.15 CPU-s, 0.01 of it idle
	sample(200, "burn", 10.30, 4)       // again
	sample(300, "", 10.50, 4)           // several tools: not counted
	sample(400, "sleep", 10.51, 4)      // 4 sleeping calls: 0.01 CPU-s
	sample(500, "sleep", math.NaN(), 4) // unread: this and the next interval are lost
	sample(600, "sleep", 10.60, 4)
	sample(700, "sleep", 10.61, 4)
	sample(1700, "sleep", 10.70, 4) // past the gap: a quiet window
	got := pr.toolsCPU()
	want := []report.ToolCPU{
		{Tool: "burn", LiveS: 0.4, MeasuredS: 0.2, CPUS: 0.28, NoiseS: round6(0.01 * math.Sqrt(2)), PerCallS: 0.7},
		{Tool: "never"},
		{Tool: "sleep", LiveS: 0.8, MeasuredS: 0.2, CPUS: 0, NoiseS: 0.02, PerCallS: 0},
	}
	if len(got) != len(want) {
		t.Fatalf("toolsCPU = %+v, want %+v", got, want)
	}
	for i := range want {
		g, w := got[i], want[i]
		near := func(x, y float64) bool { return math.Abs(x-y) < 1e-6 }
		if g.Tool != w.Tool || !near(g.LiveS, w.LiveS) || !near(g.MeasuredS, w.MeasuredS) || !near(g.CPUS, w.CPUS) ||
			!near(g.NoiseS, w.NoiseS) || !near(g.PerCallS, w.PerCallS) {
			t.Errorf("tool %d = %+v, want %+v", i, g, w)
		}
	}

	// The idle rate taken off is known to its noise: it widens the band.
	pr.idleNoise = 0.05
	if got := pr.toolsCPU()[0].NoiseS; math.Abs(got-round6(0.01*math.Sqrt(2)+noiseK*0.05*0.2)) > 1e-6 {
		t.Errorf("burn's noise with an idle noise of 0.05/s = %v", got)
	}

	one := &probeRun{r: &runner{plan: Plan{Calls: []CallSpec{{Tool: "a"}, {Tool: "a"}}}}}
	one.r.inflight.trackTools()
	if got := one.toolsCPU(); got != nil {
		t.Errorf("one tool: toolsCPU = %+v, want nil (PerCallS is its figure)", got)
	}
	untracked := &probeRun{r: &runner{plan: plan}}
	if got := untracked.toolsCPU(); got != nil {
		t.Errorf("tools not tracked (a shared server's shard): toolsCPU = %+v, want nil", got)
	}
}
