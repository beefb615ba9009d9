package faults_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestFaultExamples: the fault examples say what they show, so each is run
// (shortened to 2 s of load) against the default built-in target, where
// every check must pass, and with the knob its comments name as the bug,
// where the checks must fail with the verdict the comments promise.
func TestFaultExamples(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, file string
		knob       func(*scenarios.Scenario)
		pass       bool
		verdict    string // cancellation verdict
		evidence   string // in the verdict's evidence
	}{
		{name: "cancel-storm", file: "cancel-storm.yaml", pass: true, verdict: report.StatusPass},
		{name: "cancel-storm/leak_on_cancel", file: "cancel-storm.yaml", verdict: report.StatusViolation, evidence: "still running",
			knob: func(sc *scenarios.Scenario) { sc.Target.Builtin.LeakOnCancel = 0.3 }},
		{name: "disconnect-hunt", file: "disconnect-hunt.yaml", pass: true, verdict: report.StatusPass},
		{name: "disconnect-hunt/propagate_cancel", file: "disconnect-hunt.yaml", verdict: report.StatusViolation, evidence: "a disconnect is a cancel",
			knob: func(sc *scenarios.Scenario) { sc.Target.Builtin.NoPropagateCancel = true }},
		{name: "disconnect-hunt/propagate_cancel/2025", file: "disconnect-hunt.yaml", verdict: report.StatusLegacy, evidence: "a disconnect is not a cancel",
			knob: func(sc *scenarios.Scenario) {
				sc.Target.Builtin.NoPropagateCancel = true
				sc.Protocol = scenarios.Protocol20251125
			}},
		{name: "stalled-reader", file: "stalled-reader.yaml", pass: true, verdict: report.StatusNotExercised},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc, err := scenarios.Load(filepath.Join("..", "..", "examples", tc.file))
			if err != nil {
				t.Fatalf("the example does not load:\n%v", err)
			}
			if sc.Target.Builtin == nil {
				t.Fatalf("the example's target is %s, want builtin", sc.Target)
			}
			d := 2 * time.Second
			if err := sc.Override(nil, &d, nil); err != nil {
				t.Fatal(err)
			}
			if tc.knob != nil {
				tc.knob(sc)
			}
			o := runScenario(t, sc, opts{})
			s := o.Sum
			if len(s.Checks) == 0 {
				t.Fatal("the example has no checks")
			}
			if s.Pass != tc.pass {
				for _, c := range s.Checks {
					t.Logf("check %q = %v: pass %v %s", c.Check, c.Value, c.Pass, c.Reason)
				}
				t.Errorf("checks pass = %v, want %v", s.Pass, tc.pass)
			}
			v := o.verdict(report.AreaCancellation)
			t.Logf("cancellation.orphaned = %v; verdict %s", s.Cancellation.Orphaned, v.Status)
			if v.Status != tc.verdict || !strings.Contains(v.Evidence, tc.evidence) {
				t.Errorf("cancellation verdict %q (%s), want %q saying %q", v.Status, v.Evidence, tc.verdict, tc.evidence)
			}
			if !tc.pass && s.Cancellation.Orphaned == 0 {
				t.Errorf("cancellation.orphaned = 0 with the bug on")
			}
			if t.Failed() {
				o.dump(t)
			}
		})
	}
}
