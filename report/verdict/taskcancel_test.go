package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestTasksCancelEvidence: the cancellation verdict of a run that sent
// tasks/cancel says what became of the tasks apart from the calls, and a
// pass does not claim that no work went on when tasks ran on after it
// (information: cancelling a task is cooperative, so it stays a pass).
func TestTasksCancelEvidence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		tasks  summary.Tasks
		has    []string
		hasNot []string
	}{
		{"no task cancelled", summary.Tasks{Created: 3}, []string{"no work seen after a cancel"}, []string{"tasks/cancel"}},
		{"tasks stopped", summary.Tasks{Created: 3, CancelSent: 3},
			[]string{"no work seen after a cancel", "3 tasks/cancel sent, every task ended cancelled within the grace"}, nil},
		{"tasks ran on", summary.Tasks{Created: 3, CancelSent: 3, Leftover: 2},
			[]string{"no work of a call seen after its cancel", "3 tasks/cancel sent: 2 tasks did not end cancelled within the grace (tasks.leftover: information"},
			[]string{"no work seen after a cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &summary.Summary{Era: "2026-07-28", Tasks: tc.tasks}
			s.Cancellation.Cancels = 3
			s.Cancellation.ByProbe = map[string]float64{"inflight": 0}
			s.Cancellation.Counting = 1
			v := cancellationVerdict(s, evidence{})
			if v.Status != summary.StatusPass {
				t.Fatalf("status %q (%s), want pass", v.Status, v.Evidence)
			}
			for _, h := range tc.has {
				if !strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q lacks %q", v.Evidence, h)
				}
			}
			for _, h := range tc.hasNot {
				if strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q has %q", v.Evidence, h)
				}
			}
		})
	}
}
