package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestWireFacts: the wire's evidence and non-evidence are said in the
// verdict (report/text's TestCancellationWireCounts: on the text's
// cancellation lines).
func TestWireFacts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		c       summary.Cancellation
		status  string
		verdict []string // in the verdict's evidence
	}{
		{"leftover calls by id", summary.Cancellation{Cancels: 4, LeftoverCalls: 12, LeftoverIDs: []int64{3, 7}, LeftoverMaxMs: 950, Counting: 1},
			summary.StatusViolation, []string{"12 calls seen working after their cancel (ids 3, 7, ...; up to 950ms after the cancel)"}},
		{"queued and cancel answers prove nothing", summary.Cancellation{Cancels: 4, LateQueued: 5, CancelAnswers: 4, Counting: 1},
			summary.StatusPass, []string{"5 messages later than cancel + grace but read before the answer to a ping", "4 answers to the cancel"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &summary.Summary{Era: vocab.FirstModern, Cancellation: tc.c}
			s.Progress.GraceMs = 100
			v := cancellationVerdict(s, evidence{})
			if v.Status != tc.status {
				t.Errorf("status %q (%s), want %q", v.Status, v.Evidence, tc.status)
			}
			for _, want := range tc.verdict {
				if !strings.Contains(v.Evidence, want) {
					t.Errorf("evidence %q lacks %q", v.Evidence, want)
				}
			}
		})
	}
}
