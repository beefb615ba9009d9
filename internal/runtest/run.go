package runtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/report/text"
	"github.com/mcpchaos/mcpchaos/results"
)

// Parse decodes a scenario given as YAML the way `mcpchaos run` does
// (defaults, validation and all), failing the test when it does not load.
// The file is named after the test.
func Parse(t testing.TB, yaml string) *scenarios.Scenario {
	t.Helper()
	name := strings.ReplaceAll(t.Name(), "/", "_") + ".yaml"
	sc, err := scenarios.Parse(name, []byte(yaml))
	if err != nil {
		t.Fatalf("the scenario does not parse:\n%v\n%s", err, yaml)
	}
	return sc
}

// Plan turns a scenario into a plan, with self (the mcpchaos binary the
// test package built) as the command that runs mcpchaos.
func Plan(t testing.TB, sc *scenarios.Scenario, self string) engine.Plan {
	t.Helper()
	plan, err := engine.FromScenario(sc, []string{self})
	if err != nil {
		t.Fatalf("FromScenario: %v", err)
	}
	// A server under -race on a busy machine takes more than the
	// client's 5 s to start and answer its first request, or to accept
	// a connection: the bound tells a working target from a dead one.
	plan.Timeouts.Connect = testutil.WaitLong
	// A scrape of a target in the test's own process, beside busy loops
	// and the rest of the suite, once took more than the 5 s default, and
	// the run had no reading after the grace to compare.
	plan.Orphans.ReadTimeout = testutil.WaitLong
	return plan
}

// OwnBuiltin makes a builtin HTTP plan start its target in the test's own
// process, with the scenario's knobs, so that the test can read the
// target's counters (its ground truth) after the run. The returned
// function gives the target last started (nil before the run).
func OwnBuiltin(t testing.TB, sc *scenarios.Scenario, plan *engine.Plan) func() *targetserver.Running {
	t.Helper()
	if plan.Target.Builtin == nil || plan.Target.Builtin.Transport != "http" {
		t.Fatalf("OwnBuiltin: not a builtin http target: %+v", plan.Target)
	}
	cfg := engine.BuiltinConfig(sc.Seed, sc.Target.Builtin)
	var mu sync.Mutex
	var running *targetserver.Running
	get := func() *targetserver.Running {
		mu.Lock()
		defer mu.Unlock()
		return running
	}
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
		if r := get(); r != nil {
			_ = r.Close()
		}
	})
	return get
}

// StdioMetrics gives a builtin stdio target a metrics endpoint on a port it
// picks itself (127.0.0.1:0) and watches that endpoint during the run; the
// address is read from the target's stderr status line, which goes to a
// file (stderr reads it) instead of to the engine. stop ends the watching
// and returns the last page read, by metric name, and how many reads there
// were.
func StdioMetrics(t testing.TB, plan *engine.Plan) (stop func() (map[string]float64, int), stderr func() string) {
	t.Helper()
	b := plan.Target.Builtin
	if b == nil || b.Transport != "stdio" {
		t.Fatalf("StdioMetrics: not a builtin stdio target: %+v", plan.Target)
	}
	b.Command, stderr = testutil.LogStderr(t, append(b.Command, "--metrics-listen=127.0.0.1:0"))
	w := testutil.Watch(func() string { return testutil.ServeMetricsURL(stderr()) })
	t.Cleanup(func() { w.Stop() }) // a run that fails before stop is called
	return w.Stop, stderr
}

// Outcome is a finished run as the tests see it.
type Outcome struct {
	Sum     *report.Summary
	Info    *engine.Info
	Recs    []*results.Record // in the order the sink got them
	Elapsed time.Duration
}

// Run runs plan the way `mcpchaos run` does (engine.Run with an Aggregator
// as the sink, then the summary with the scenario's checks) and returns
// what came out. The run is bounded by its load's nominal length, its
// longest call (timeouts.max) and testutil.WaitLong on top, which no run
// needs, so that a wedged run fails saying so instead of timing the test
// binary out; a run that errs, is interrupted or has checks that do not
// resolve fails the test.
func Run(t testing.TB, sc *scenarios.Scenario, plan engine.Plan) *Outcome {
	t.Helper()
	agg := report.NewAggregator(report.ScenarioRules(sc))
	o := &Outcome{}
	bound := sc.Load.Duration.Std() + sc.Timeouts.Max.Std() + testutil.WaitLong
	for _, st := range sc.Load.Stages {
		bound += st.Over.Std()
	}
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	start := time.Now()
	info, err := engine.Run(ctx, plan, engine.Options{Sink: func(r *results.Record) {
		agg.Add(r)
		o.Recs = append(o.Recs, r)
	}, Version: "test"})
	o.Elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("engine.Run: %v", err)
	}
	if info.Interrupted {
		t.Fatalf("the run was interrupted after %s: it did not end on its own", o.Elapsed)
	}
	checks, errs := report.ScenarioChecks(sc, report.Names{FaultKinds: faults.Kinds(), Probes: plan.ProbeNames()})
	if len(errs) > 0 {
		t.Fatalf("checks: %v", errs)
	}
	o.Info = info
	o.Sum = info.Summary(agg, checks, sc.FailOnViolation)
	t.Logf("run took %s: %d records, outcomes %s", o.Elapsed.Round(time.Millisecond), len(o.Recs), outcomes(o.Sum.Calls))
	return o
}

// outcomes lists the non-zero outcome counts, for the log.
func outcomes(c report.Calls) string {
	b, _ := json.Marshal(c)
	var m map[string]int
	_ = json.Unmarshal(b, &m)
	var parts []string
	for k, v := range m {
		if v != 0 && k != "total" {
			parts = append(parts, fmt.Sprintf("%s %d", k, v))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, ", ")
}

// Text renders the summary as `mcpchaos run` prints it.
func (o *Outcome) Text() string {
	var b strings.Builder
	_ = text.Write(&b, o.Sum)
	return b.String()
}

// Dump logs the summary and the servers' stderr tails, for the reader of a
// failed test.
func (o *Outcome) Dump(t testing.TB) {
	t.Helper()
	t.Logf("summary:\n%s", o.Text())
	for i, tail := range o.Info.Stderr {
		t.Logf("server %d stderr:\n%s", i+1, tail)
	}
}
