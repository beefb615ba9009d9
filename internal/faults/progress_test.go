package faults_test

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
)

// TestProgressAfterResponse: a stdio server whose progress reporter outlives
// the handler sends a notification after the final response; the run
// counts it as a progress violation.
func TestProgressAfterResponse(t *testing.T) {
	t.Parallel()
	o := runYAML(t, `
name: progress-after-response
seed: 41
target: {builtin: {transport: stdio, progress_after_response: true}}
load: {rate: 10/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 3, step_ms: 30}, progress: true}
orphans: {grace: 200ms}
`, opts{})
	s := o.Sum
	if n := s.Progress.Violations.AfterResponse; n < s.Calls.Total*8/10 || n > s.Calls.Total {
		t.Errorf("progress.violations.after_response = %d, want one per call (%d; a few may land after the late window)", n, s.Calls.Total)
	}
	if v := o.verdict(report.AreaProgress); v.Status != report.StatusViolation {
		t.Errorf("progress verdict %q (%s), want violation", v.Status, v.Evidence)
	}
	if s.Calls.OK != s.Calls.Total {
		t.Errorf("%d ok of %d calls", s.Calls.OK, s.Calls.Total)
	}
	if t.Failed() {
		o.dump(t)
	}
}
