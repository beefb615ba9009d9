package report

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestFencedCalls: a cut call whose only evidence of work past the grace
// is a message read after the work fence's answer, within the fence's
// give or take by the clock, counts as leftover work only when the run
// showed the server writes in order: enough calls whose last progress
// came just before their answer, and none whose progress came after it.
func TestFencedCalls(t *testing.T) {
	tight := results.Progress{Count: 8, Last: 8, LeadUs: 150}
	loose := results.Progress{Count: 8, Last: 8, LeadUs: 25000}
	for _, tc := range []struct {
		name          string
		answered      []results.Progress
		afterResponse int
		ordered       bool
		status        string
	}{
		{"an ordered writer", slices.Repeat([]results.Progress{tight}, 6), 0, true, StatusViolation},
		{"too few answers just after their last progress", slices.Concat(slices.Repeat([]results.Progress{tight}, 4), slices.Repeat([]results.Progress{loose}, 10)), 0, false, StatusNotObservable},
		{"progress after an answer: the writer reorders", slices.Repeat([]results.Progress{tight}, 6), 1, false, StatusNotObservable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAggregator(Rules{ProgressGrace: 300 * time.Millisecond})
			for i, p := range tc.answered {
				opts := []opt{resp(200), progress(p)}
				if i == 0 && tc.afterResponse > 0 {
					opts = append(opts, violation("after_response", tc.afterResponse))
				}
				a.Add(call(time.Duration(i)*time.Millisecond, results.OK, opts...))
			}
			cut := call(time.Second, results.Cancelled, cancelAt(100), fault("cancel", 10), with(func(r *results.Record) {
				r.ID, r.FencedUs = 42, ms(418)
			}))
			a.Add(cut)
			s := a.Summary(testMeta("2026-07-28"))
			c := s.Cancellation
			wantCalls := 0
			if tc.ordered {
				wantCalls = 1
			}
			if c.FencedCalls != 1 || c.WriterOrdered != tc.ordered || c.LeftoverCalls != wantCalls {
				t.Fatalf("fenced %d, ordered %v, leftover %d; want 1, %v, %d", c.FencedCalls, c.WriterOrdered, c.LeftoverCalls, tc.ordered, wantCalls)
			}
			v := verdictOf(t, s, AreaCancellation)
			if v.Status != tc.status {
				t.Errorf("status %q, want %q (evidence %q)", v.Status, tc.status, v.Evidence)
			}
			if tc.ordered && (c.LeftoverMaxMs != 418 || len(c.LeftoverIDs) != 1 || c.LeftoverIDs[0] != 42 ||
				!strings.Contains(v.Evidence, "by a message read after the answer to a ping sent at cancel + grace")) {
				t.Errorf("leftover max %v ms, ids %v; evidence %q", c.LeftoverMaxMs, c.LeftoverIDs, v.Evidence)
			}
		})
	}
}
