package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/stepserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// helperEnv switches the test binary into one of the helper servers of
// sdk_helper_test.go instead of running tests.
const helperEnv = "MCPCHAOS_E2E_HELPER"

var bin testutil.Binary

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	if c, ok, err := stepserver.FromEnv(); ok {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		os.Exit(stepserver.Serve(c))
	}
	os.Exit(testutil.Main(m, &bin))
}

// planOf turns a scenario into a plan with the real binary as self.
func planOf(t *testing.T, sc *scenarios.Scenario) engine.Plan {
	t.Helper()
	return runtest.Plan(t, sc, bin.Need(t))
}

// outcome is a finished run as the tests see it.
type outcome struct{ *runtest.Outcome }

// verdict returns the summary's verdict for area.
func (o outcome) verdict(t *testing.T, area string) report.Verdict {
	t.Helper()
	for _, v := range o.Sum.Verdicts {
		if v.Area == area {
			return v
		}
	}
	t.Fatalf("no %s verdict in %+v", area, o.Sum.Verdicts)
	return report.Verdict{}
}

// runPlan runs plan the way `mcpchaos run` does and logs the summary.
func runPlan(t *testing.T, sc *scenarios.Scenario, plan engine.Plan) outcome {
	t.Helper()
	o := outcome{runtest.Run(t, sc, plan)}
	t.Logf("%s:\n%s", t.Name(), o.Text())
	return o
}

// quick shortens the orphan measurement of runs that do not measure CPU:
// the process probe's quiet window (not a scenario key) is cut to 200 ms.
func quick(p *engine.Plan) {
	p.Orphans.QuietWindow = 200 * time.Millisecond
}

// logRecords logs the records that match, to explain a failed assertion.
func logRecords(t *testing.T, o outcome, match func(*results.Record) bool) {
	t.Helper()
	n := 0
	for _, r := range o.Recs {
		if match(r) && n < 10 {
			b, _ := json.Marshal(r)
			t.Logf("record: %s", b)
			n++
		}
	}
}

// leftoverRecord: a call with wire evidence of work after its cancel.
func leftoverRecord(r *results.Record) bool {
	return r.LeftoverUs > 0 || r.Violations["after_cancel"] > 0
}

// groundTruth arranges for a builtin target's own counters to be read
// after the run — in-process for HTTP (the test starts the target), by
// scraping --metrics-listen during the run for stdio (the process is gone
// at the end) — and returns the function that reads them, by metric name.
func groundTruth(t *testing.T, sc *scenarios.Scenario, plan *engine.Plan) func() map[string]float64 {
	t.Helper()
	if sc.Target.Builtin == nil {
		t.Fatal("groundTruth: not a builtin target")
	}
	if sc.Target.Builtin.Transport == scenarios.TransportStdio {
		stop, stderr := runtest.StdioMetrics(t, plan)
		return func() map[string]float64 {
			t.Helper()
			last, reads := stop()
			if reads == 0 {
				t.Fatalf("the target's metrics endpoint was never read; its stderr:\n%s", stderr())
			}
			return last
		}
	}
	running := runtest.OwnBuiltin(t, sc, plan)
	return func() map[string]float64 {
		st := running().Server.Stats()
		return map[string]float64{
			"mcpchaos_target_inflight":            float64(st.Inflight),
			"mcpchaos_target_started_total":       float64(st.Started),
			"mcpchaos_target_completed_total":     float64(st.Completed),
			"mcpchaos_target_cancelled_total":     float64(st.Cancelled),
			"mcpchaos_target_orphaned_total":      float64(st.Orphaned),
			"mcpchaos_target_throttled_total":     float64(st.Throttled),
			"mcpchaos_target_progress_sent_total": float64(st.ProgressSent),
			"mcpchaos_target_non_monotonic_total": float64(st.NonMonotonic),
		}
	}
}
