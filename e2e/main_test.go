package e2e

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/engine"
	"github.com/mcpchaos/mcpchaos/faults"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/mcpchaos/mcpchaos/scenarios"
	"github.com/mcpchaos/mcpchaos/targetserver"
)

// helperEnv switches the test binary into one of the helper servers of
// sdk_helper_test.go instead of running tests.
const helperEnv = "MCPCHAOS_E2E_HELPER"

var bin testutil.Binary

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	os.Exit(testutil.Main(m, &bin))
}

// parse decodes a scenario the way `mcpchaos run` does (defaults,
// validation and all).
func parse(t *testing.T, yaml string) *scenarios.Scenario {
	t.Helper()
	name := strings.ReplaceAll(t.Name(), "/", "_") + ".yaml"
	sc, err := scenarios.Parse(name, []byte(yaml))
	if err != nil {
		t.Fatalf("scenario does not parse: %v\n%s", err, yaml)
	}
	return sc
}

// planOf turns a scenario into a plan with the real binary as self.
func planOf(t *testing.T, sc *scenarios.Scenario) engine.Plan {
	t.Helper()
	plan, err := engine.FromScenario(sc, []string{bin.Need(t)})
	if err != nil {
		t.Fatalf("FromScenario: %v", err)
	}
	return plan
}

// outcome is a finished run as the tests see it.
type outcome struct {
	sum     *report.Summary
	info    *engine.Info
	recs    []*results.Record
	elapsed time.Duration
}

// verdict returns the summary's verdict for area.
func (o outcome) verdict(t *testing.T, area string) report.Verdict {
	t.Helper()
	for _, v := range o.sum.Verdicts {
		if v.Area == area {
			return v
		}
	}
	t.Fatalf("no %s verdict in %+v", area, o.sum.Verdicts)
	return report.Verdict{}
}

// text renders the summary, for failure messages.
func (o outcome) text() string {
	var b strings.Builder
	_ = o.sum.Text(&b)
	return b.String()
}

// runPlan runs plan with an Aggregator as the sink and builds the summary
// the way `mcpchaos run` does (see summarize in cmd/mcpchaos/run.go).
func runPlan(t *testing.T, sc *scenarios.Scenario, plan engine.Plan) outcome {
	t.Helper()
	agg := report.NewAggregator(report.Rules{ProgressGrace: sc.Progress.Grace.Std(), Stall: sc.Progress.Stall.Std(), FloodHz: sc.Progress.FloodHz})
	var o outcome
	start := time.Now()
	info, err := engine.Run(context.Background(), plan, engine.Options{Sink: func(r *results.Record) {
		agg.Add(r)
		o.recs = append(o.recs, r)
	}, Version: "e2e"})
	o.elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("engine.Run: %v", err)
	}
	o.info = info
	o.sum = summarize(t, agg, info, sc)
	t.Logf("%s: run took %v\n%s", t.Name(), o.elapsed.Round(time.Millisecond), o.text())
	return o
}

// summarize builds the run's summary the way mcpchaos run does.
func summarize(t *testing.T, agg *report.Aggregator, info *engine.Info, sc *scenarios.Scenario) *report.Summary {
	t.Helper()
	checks, errs := report.ScenarioChecks(sc, report.Names{FaultKinds: faults.Kinds()})
	if len(errs) > 0 {
		t.Fatalf("checks: %v", errs)
	}
	return info.Summary(agg, checks, sc.FailOnViolation)
}

// quick shortens the orphan measurement of runs that do not measure CPU:
// the process probe's quiet window (not a scenario key) is cut to 200 ms.
func quick(p *engine.Plan) {
	p.Orphans.QuietWindow = 200 * time.Millisecond
}

// ownBuiltin makes a builtin HTTP plan start its target through the test,
// with the scenario's knobs, so the test can read the target's own
// counters (its ground truth) after the run.
func ownBuiltin(t *testing.T, sc *scenarios.Scenario, plan *engine.Plan) func() *targetserver.Running {
	t.Helper()
	if plan.Target.Builtin == nil || plan.Target.Builtin.Transport != "http" {
		t.Fatalf("ownBuiltin: not a builtin http target: %+v", plan.Target)
	}
	cfg := engine.BuiltinConfig(sc.Seed, sc.Target.Builtin)
	var mu sync.Mutex
	var running *targetserver.Running
	plan.Target.Builtin.Start = func() (string, string, func(), error) {
		r, err := targetserver.StartHTTP(context.Background(), cfg, "")
		if err != nil {
			return "", "", nil, err
		}
		mu.Lock()
		running = r
		mu.Unlock()
		return r.URL, r.MetricsURL, func() { _ = r.Close() }, nil
	}
	t.Cleanup(func() {
		if r := get(&mu, &running); r != nil {
			_ = r.Close()
		}
	})
	return func() *targetserver.Running { return get(&mu, &running) }
}

func get[T any](mu *sync.Mutex, p **T) *T {
	mu.Lock()
	defer mu.Unlock()
	return *p
}

// stdioTruth gives a builtin stdio target a metrics endpoint on a port it
// picks itself (127.0.0.1:0) and watches it during the run: the address is
// read from the target's stderr status line. The returned function stops
// the watching and returns the last page read.
func stdioTruth(t *testing.T, plan *engine.Plan) func() map[string]float64 {
	t.Helper()
	b := plan.Target.Builtin
	if b == nil || b.Transport != "stdio" {
		t.Fatalf("stdioTruth: not a builtin stdio target: %+v", plan.Target)
	}
	cmd, stderr := testutil.LogStderr(t, append(b.Command, "--metrics-listen=127.0.0.1:0"))
	b.Command = cmd
	w := testutil.Watch(func() string { return testutil.ServeMetricsURL(stderr()) })
	return func() map[string]float64 {
		t.Helper()
		last, reads := w.Stop()
		if reads == 0 {
			t.Fatalf("the target's metrics endpoint was never read; its stderr:\n%s", stderr())
		}
		return last
	}
}

// approx reports whether got is within frac of want.
func approx(got, want, frac float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= frac*want
}

// logRecords logs the records that match, to explain a failed assertion.
func logRecords(t *testing.T, o outcome, match func(*results.Record) bool) {
	t.Helper()
	n := 0
	for _, r := range o.recs {
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
		return stdioTruth(t, plan)
	}
	running := ownBuiltin(t, sc, plan)
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
