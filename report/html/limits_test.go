package html

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestWriteMarksLimits: the summary of `mcpchaos limits` draws the rate,
// burst and capacity it found on the rates plot; a run's summary does not.
func TestWriteMarksLimits(t *testing.T) {
	b := busy.run(t)
	rate, burst, capacity := 30.0, 10, 27.5
	b.Summary.Limits = &report.Limits{Rate: &rate, Burst: &burst, Capacity: &capacity}
	p := renderPage(t, Input{Runs: []Run{b}})
	plot := text(p.byID("run-1-over-time"))
	for _, want := range []string{"rate found 30", "burst (calls at once) 10", "capacity 27.5"} {
		if !strings.Contains(plot, want) {
			t.Errorf("the rates plot has no legend %q", want)
		}
	}
	if c := renderPage(t, Input{Runs: []Run{calm.run(t)}}); strings.Contains(c.raw, "rate found") {
		t.Error("a run without a limits search has a found rate drawn")
	}
}

// TestWritePhaseLabels: the rates plot of a limits search names its phases
// where each begins, once per stretch; a run's plot names none.
func TestWritePhaseLabels(t *testing.T) {
	f := busy
	f.name, f.phases = "phased", []string{"burst", "step", "step", "hold", "scope", "capacity"}
	r := f.run(t)
	rate := 30.0
	r.Summary.Limits = &report.Limits{Rate: &rate}
	plot := text(renderPage(t, Input{Runs: []Run{r}}).byID("run-1-over-time"))
	for _, want := range []string{"burst", "step", "hold", "scope", "capacity"} {
		if n := strings.Count(plot, want); n != 1 {
			t.Errorf("the rates plot names phase %q %d times, want once:\n%s", want, n, plot)
		}
	}
	if at, names := phaseStarts(newTimeline(busy.run(t).Agg.Seconds())); len(at) != 0 {
		t.Errorf("a run's timeline has phases %v", names)
	}
}
