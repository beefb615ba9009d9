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

// TestWindowsReach: a pass by quiet windows says how many of the run's
// cuts the windows weighed (the calls they cut and the fault cuts they
// began at) and how many had the wire and the reading after the load
// only.
func TestWindowsReach(t *testing.T) {
	for _, tc := range []struct {
		name string
		w    summary.Windows
		cuts int
		want string
	}{
		{"after-cut windows", summary.Windows{Count: 2, Cancelled: 5, Followed: 2}, 9,
			"; they weighed 7 of the 9 cuts (the 5 they made and 2 fault cuts they began at), the other 2 the wire and the reading after the load only"},
		{"windows asked for", summary.Windows{Count: 1, Cancelled: 3}, 3, "; they weighed 3 of the 3 cuts"},
		{"a window that cut nothing", summary.Windows{Count: 1, Followed: 1}, 4,
			"; they weighed 1 of the 4 cuts (1 fault cut they began at), the other 3 the wire and the reading after the load only"},
		{"never more than the cuts", summary.Windows{Count: 1, Cancelled: 3, Followed: 1}, 3,
			"; they weighed 3 of the 3 cuts (the 3 they made and 1 fault cut they began at)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := windowsReach(tc.w, tc.cuts); got != tc.want {
				t.Errorf("windowsReach = %q, want %q", got, tc.want)
			}
		})
	}
	s := &summary.Summary{Era: vocab.FirstModern, Cancellation: summary.Cancellation{Cancels: 9, Counting: 1, Windows: summary.Windows{Count: 2, Cancelled: 5, Followed: 2}}}
	if v := cancellationVerdict(s, evidence{}); v.Status != summary.StatusPass || !strings.Contains(v.Evidence, "they weighed 7 of the 9 cuts") {
		t.Errorf("verdict %q (%s), want a pass that names the cuts the windows weighed", v.Status, v.Evidence)
	}
}
