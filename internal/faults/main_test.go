package faults_test

import (
	"os"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/engine"
	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
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
	// lateWindow overrides the plan's late window (default 2s here: on a
	// starved machine a correct server's answer to a cancelled call came
	// more than 300ms after the cancel; a test that looks for late
	// messages sets its own).
	lateWindow time.Duration
	// stdioMetrics gives a builtin stdio target a /metrics endpoint, which
	// the test scrapes during the run (outcome.stdioStats).
	stdioMetrics bool
}

// outcome is one finished run as the tests see it.
type outcome struct {
	*runtest.Outcome
	sc   *scenarios.Scenario
	plan engine.Plan
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

// runYAML parses a scenario and runs it.
func runYAML(t *testing.T, yaml string, o opts) *outcome {
	t.Helper()
	return runScenario(t, runtest.Parse(t, yaml), o)
}

// runScenario runs sc the way `mcpchaos run` does (see runtest.Run) against
// a builtin target whose ground truth the test can read, and returns what
// came out.
func runScenario(t *testing.T, sc *scenarios.Scenario, o opts) *outcome {
	t.Helper()
	out := &outcome{sc: sc}
	b := sc.Target.Builtin
	plan := runtest.Plan(t, sc, bin.Need(t))
	plan.LateWindow = 2 * time.Second
	if o.lateWindow > 0 {
		plan.LateWindow = o.lateWindow
	}
	// The process probe's quiet window (stdio targets): 300ms, not 1 s.
	plan.Orphans.QuietWindow = 300 * time.Millisecond
	// Keep the builtin HTTP target reachable, for its ground truth.
	tg := func() *targetserver.Running { return nil }
	if b != nil && plan.Target.Builtin.Transport == "http" {
		tg = runtest.OwnBuiltin(t, sc, &plan)
	}
	stopScrape := func() (map[string]float64, int) { return nil, 0 }
	if o.stdioMetrics {
		if b == nil || plan.Target.Builtin.Transport != "stdio" {
			t.Fatal("opts.stdioMetrics needs a builtin stdio target")
		}
		stopScrape, out.stderr = runtest.StdioMetrics(t, &plan)
	}
	out.plan = plan
	out.Outcome = runtest.Run(t, sc, plan)
	out.stdioStats, _ = stopScrape()
	out.tg = tg()
	return out
}

// verdict returns the status of one verdict area.
func (o *outcome) verdict(area string) report.Verdict {
	for _, v := range o.Sum.Verdicts {
		if v.Area == area {
			return v
		}
	}
	return report.Verdict{Area: area, Status: "(missing)"}
}

// fault returns the summary's figures for one fault kind.
func (o *outcome) fault(kind string) report.FaultStats { return o.Sum.Faults[kind] }

// injected returns the records' faults of one kind that acted, with their
// record.
func (o *outcome) injected(kind string) []recFault {
	var out []recFault
	for _, r := range o.Recs {
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
	for _, r := range o.Recs {
		if r.Outcome == results.OK && r.SentUs > 0 && at(r, r.SentUs).After(t) {
			n++
		}
	}
	return n
}

// okAnsweredAfter counts ok calls whose answer came after t: the server
// still answered after a broken request reached it, however long the
// broken request itself took to send on a busy machine.
func (o *outcome) okAnsweredAfter(t time.Time) int {
	n := 0
	for _, r := range o.Recs {
		if r.Outcome == results.OK && r.ResponseUs > 0 && at(r, r.ResponseUs).After(t) {
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
	o.Dump(t)
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
	s := o.Sum
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
