//go:build timing

package e2e

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
)

// TestTimingFloodRate: the target's 200 notifications a second are
// measured as about that rate (at least 150 Hz), and so every call is a
// flood against a 50 Hz threshold.
func TestTimingFloodRate(t *testing.T) {
	s := floods(t, "http", 50).Sum
	if hz := s.Progress.MaxRateHz; hz < 150 {
		t.Errorf("progress.max_rate_hz = %d, want about 200 (at least 150)", hz)
	}
	if s.Progress.Floods != s.Calls.Total {
		t.Errorf("progress.floods = %d, want every call (%d) above 50 Hz", s.Progress.Floods, s.Calls.Total)
	}
}

// TestTimingStallGap: the silence after the third of ten 150 ms steps is
// measured as about 1050 ms (at most 3 s).
func TestTimingStallGap(t *testing.T) {
	sc := runtest.Parse(t, stallScenario("http", "5s"))
	plan := planOf(t, sc)
	quick(&plan)
	if gap := runPlan(t, sc, plan).Sum.Latency.ProgressGap; gap.P50 < 900 || gap.Max > 3000 {
		t.Errorf("latency_ms.progress_gap p50 %vms, max %vms; want about 1050ms", gap.P50, gap.Max)
	}
}
