package faults_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
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

// These tests drive real runs: a scenario is parsed, turned into a plan and
// run against the built-in target (in-process over HTTP, or the real
// mcpchaos binary over stdio), and the summary and the records are checked
// the way a user would read them.

var bin testutil.Binary

func TestMain(m *testing.M) {
	os.Exit(testutil.Main(m, &bin))
}

// opts tune a run beyond what a scenario file can say.
type opts struct {
	// lateWindow overrides the plan's late window (default 300ms here: a
	// test that looks for late messages sets its own).
	lateWindow time.Duration
	// stdioMetrics gives a builtin stdio target a /metrics endpoint, which
	// the test scrapes during the run (outcome.stdioStats).
	stdioMetrics bool
}

// outcome is one finished run as the tests see it.
type outcome struct {
	sc      *scenarios.Scenario
	plan    engine.Plan
	info    *engine.Info
	recs    []*results.Record // in the order the sink got them
	sum     *report.Summary
	elapsed time.Duration
	// tg is the builtin HTTP target (stopped after the run, but its
	// counters stay readable).
	tg *targetserver.Running
	// stdioStats are the builtin stdio target's counters, as last scraped
	// during the run (with opts.stdioMetrics).
	stdioStats map[string]float64
	// stderr reads the builtin stdio target's stderr (with
	// opts.stdioMetrics, which sends it to a file instead of the engine).
	stderr func() string
}

// parse parses a scenario given as YAML, failing the test when it does not
// load.
func parse(t *testing.T, yaml string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.Parse(t.Name()+".yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("the scenario does not parse:\n%v\n%s", err, yaml)
	}
	return sc
}

// runYAML parses a scenario and runs it.
func runYAML(t *testing.T, yaml string, o opts) *outcome {
	t.Helper()
	return runScenario(t, parse(t, yaml), o)
}

// runScenario runs sc the way `mcpchaos run` does (FromScenario, Run with
// an Aggregator as the sink, then the summary) and returns what came out.
func runScenario(t *testing.T, sc *scenarios.Scenario, o opts) *outcome {
	t.Helper()
	out := &outcome{sc: sc}
	b := sc.Target.Builtin
	plan, err := engine.FromScenario(sc, []string{bin.Need(t)})
	if err != nil {
		t.Fatalf("FromScenario: %v", err)
	}
	plan.LateWindow = 300 * time.Millisecond
	if o.lateWindow > 0 {
		plan.LateWindow = o.lateWindow
	}
	// The process probe's quiet window (stdio targets): 300ms, not 1 s.
	plan.Orphans.QuietWindow = 300 * time.Millisecond
	// Keep the builtin HTTP target reachable, for its ground truth.
	if b != nil && plan.Target.Builtin.Transport == "http" {
		cfg := engine.BuiltinConfig(sc.Seed, b)
		plan.Target.Builtin.Start = func() (string, string, func(), error) {
			r, err := targetserver.StartHTTP(context.Background(), cfg, "")
			if err != nil {
				return "", "", nil, err
			}
			out.tg = r
			return r.URL, r.MetricsURL, func() { _ = r.Close() }, nil
		}
	}
	stopScrape := func() {}
	if o.stdioMetrics {
		if b == nil || plan.Target.Builtin.Transport != "stdio" {
			t.Fatal("opts.stdioMetrics needs a builtin stdio target")
		}
		// The target listens on a port it picks and names it on stderr.
		cmd, stderr := testutil.LogStderr(t, append(plan.Target.Builtin.Command, "--metrics-listen=127.0.0.1:0"))
		plan.Target.Builtin.Command = cmd
		out.stderr = stderr
		w := testutil.Watch(func() string { return testutil.ServeMetricsURL(stderr()) })
		stopScrape = func() { out.stdioStats, _ = w.Stop() }
	}
	out.plan = plan
	agg := report.NewAggregator(report.Rules{ProgressGrace: sc.Progress.Grace.Std(), Stall: sc.Progress.Stall.Std(), FloodHz: sc.Progress.FloodHz})
	start := time.Now()
	// The run itself never needs this long; the bound turns a wedged run
	// into a failure that says so instead of a test binary timeout.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	info, err := engine.Run(ctx, plan, engine.Options{Sink: func(r *results.Record) {
		agg.Add(r)
		out.recs = append(out.recs, r)
	}, Version: "test"})
	stopScrape()
	out.elapsed = time.Since(start)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if info.Interrupted {
		t.Fatalf("the run was interrupted after %s: it did not end on its own", out.elapsed)
	}
	out.info = info
	out.sum = summarize(agg, info, sc)
	t.Logf("run took %s: %d records, outcomes %s", out.elapsed.Round(time.Millisecond), len(out.recs), outcomes(out.sum.Calls))
	return out
}

// summarize builds the run's summary the way mcpchaos run does.
func summarize(agg *report.Aggregator, info *engine.Info, sc *scenarios.Scenario) *report.Summary {
	checks, _ := report.ScenarioChecks(sc, report.Names{FaultKinds: faults.Kinds()})
	return info.Summary(agg, checks, sc.FailOnViolation)
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

// verdict returns the status of one verdict area.
func (o *outcome) verdict(area string) report.Verdict {
	for _, v := range o.sum.Verdicts {
		if v.Area == area {
			return v
		}
	}
	return report.Verdict{Area: area, Status: "(missing)"}
}

// fault returns the summary's figures for one fault kind.
func (o *outcome) fault(kind string) report.FaultStats { return o.sum.Faults[kind] }

// injected returns the records' faults of one kind that acted, with their
// record.
func (o *outcome) injected(kind string) []recFault {
	var out []recFault
	for _, r := range o.recs {
		for _, f := range r.Faults {
			if f.Kind == kind && !f.Skipped {
				out = append(out, recFault{r, f})
			}
		}
	}
	return out
}

type recFault struct {
	rec *results.Record
	f   results.Fault
}

// okAfter counts ok calls sent after t.
func (o *outcome) okAfter(t time.Time) int {
	n := 0
	for _, r := range o.recs {
		if r.Outcome == results.OK && r.SentUs > 0 && at(r, r.SentUs).After(t) {
			n++
		}
	}
	return n
}

// firstFault returns when the first fault of kind acted (zero when none).
func (o *outcome) firstFault(kind string) time.Time {
	var first time.Time
	for _, rf := range o.injected(kind) {
		if a := at(rf.rec, rf.f.ActualUs); first.IsZero() || a.Before(first) {
			first = a
		}
	}
	return first
}

// at converts a record's offset to a time.
func at(r *results.Record, us int64) time.Time {
	return r.Scheduled.Add(time.Duration(us) * time.Microsecond)
}

// dump logs the summary as text, for a failing test's reader.
func (o *outcome) dump(t *testing.T) {
	t.Helper()
	var b strings.Builder
	_ = o.sum.Text(&b)
	t.Logf("summary:\n%s", b.String())
	for i, tail := range o.info.Stderr {
		t.Logf("server %d stderr:\n%s", i+1, tail)
	}
	if o.stderr != nil {
		t.Logf("server stderr:\n%s", o.stderr())
	}
}

// expectCorrect asserts what a correct server shows after any fault: no
// progress or protocol violation, nothing orphaned or seen working after
// a cancel, the cancellation verdict wantCancel, and ok calls after the
// first fault of kind.
func (o *outcome) expectCorrect(t *testing.T, kind, wantCancel string) {
	t.Helper()
	s := o.sum
	failed := false
	errorf := func(format string, args ...any) {
		t.Helper()
		failed = true
		t.Errorf(format, args...)
	}
	if n := s.Faults[kind].Injected; n == 0 {
		errorf("faults.%s.injected = 0: the fault never acted", kind)
	}
	if v := s.Progress.Violations; v.Total != 0 {
		errorf("progress.violations = %+v, want none", v)
	}
	if v := s.Protocol.Violations; v.Total != 0 {
		errorf("protocol.violations = %+v, want none", v)
	}
	if c := s.Cancellation; c.Orphaned != 0 || c.LeftoverCalls != 0 {
		errorf("cancellation.orphaned = %v, leftover_calls = %d; want 0 and 0 (by probe %v)", c.Orphaned, c.LeftoverCalls, c.ByProbe)
	}
	if v := o.verdict(report.AreaCancellation); v.Status != wantCancel {
		errorf("cancellation verdict %q (%s), want %q", v.Status, v.Evidence, wantCancel)
	}
	if first := o.firstFault(kind); !first.IsZero() {
		if n := o.okAfter(first); n == 0 {
			errorf("no ok call was sent after the first %s fault", kind)
		}
	}
	if failed {
		o.dump(t)
	}
}
