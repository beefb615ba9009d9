package faults_test

import (
	"fmt"
	"testing"

	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestReissue: after a cancel, the call is sent again as a new request with
// a new id; the re-issue is recorded with the original's seq and answered
// ok by a correct server.
func TestReissue(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			o := runYAML(t, fmt.Sprintf(`
name: reissue
seed: 31
target: {builtin: {transport: %s}}
load: {rate: 20/1s, duration: 1s}
timeouts: {idle: 5s, max: 10s}
calls:
  - {tool: slow_task, arguments: {steps: 5, step_ms: 40}, progress: true}
faults:
  - {kind: cancel, probability: 0.4, after: 80ms}
  - {kind: reissue, max: 1}
orphans: {grace: 300ms}
# A starved stdio target wrote a step's progress after the fence that
# follows the cancel by the grace (issue 25): 2s, as TestCancelCorrectServer keeps.
progress: {grace: 2s}
`, transport), opts{})
			s := o.Sum
			originals := map[uint64]*results.Record{}
			var reissued []*results.Record
			for _, r := range o.Recs {
				if r.Retry == "" {
					originals[r.Seq] = r
				} else {
					reissued = append(reissued, r)
				}
			}
			cancelled := 0
			for _, r := range originals {
				if r.Outcome == results.Cancelled {
					cancelled++
				}
			}
			if cancelled == 0 || s.Calls.Reissued != len(reissued) || len(reissued) != cancelled {
				t.Fatalf("calls.reissued = %d, %d re-issued records, %d cancelled originals: want > 0, all equal",
					s.Calls.Reissued, len(reissued), cancelled)
			}
			ids := map[int64]bool{}
			for _, r := range o.Recs {
				if r.ID == 0 || ids[r.ID] {
					t.Errorf("seq %d (retry %q): id %d is zero or reused", r.Seq, r.Retry, r.ID)
				}
				ids[r.ID] = true
			}
			for _, r := range reissued {
				orig := originals[r.Of]
				switch {
				case orig == nil:
					t.Errorf("re-issue of seq %d: no such original", r.Of)
				case r.Retry != "reissue" || r.Seq != r.Of || r.Attempt != 1:
					t.Errorf("re-issue %+v: want retry reissue, seq = of = %d, attempt 1", r, orig.Seq)
				case orig.Outcome != results.Cancelled || orig.CancelReason != "fault:cancel":
					t.Errorf("seq %d was re-issued after outcome %q (%s), want only after a cancel fault", orig.Seq, orig.Outcome, orig.CancelReason)
				case r.ID == orig.ID:
					t.Errorf("seq %d: the re-issue reused id %d", r.Seq, r.ID)
				case r.Outcome != results.OK || len(r.Faults) != 0:
					t.Errorf("seq %d: the re-issue ended %q with faults %v, want ok and no fault", r.Seq, r.Outcome, r.Faults)
				case !r.Scheduled.After(orig.Scheduled):
					t.Errorf("seq %d: the re-issue is scheduled at %s, not after the original (%s)", r.Seq, r.Scheduled, orig.Scheduled)
				}
			}
			o.expectCorrect(t, "cancel", report.StatusPass)
		})
	}
}
