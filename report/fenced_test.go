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
// showed the server writes in order: at least 5 calls whose last progress
// came within 2 ms of their answer, none whose progress came after it,
// and one server (files of several merged show nothing of each other's
// writers), and never twice with the engine's own evidence. Otherwise the
// evidence says it was not counted.
func TestFencedCalls(t *testing.T) {
	tight := results.Progress{Count: 8, Last: 8, LeadUs: tightLeadUs}
	loose := results.Progress{Count: 8, Last: 8, LeadUs: tightLeadUs + 1}
	for _, tc := range []struct {
		name          string
		answered      []results.Progress
		afterResponse int
		mixed         bool
		ordered       bool
	}{
		{"an ordered writer: 5 answers within 2 ms", slices.Repeat([]results.Progress{tight}, 5), 0, false, true},
		{"4 answers within 2 ms are too few", slices.Concat(slices.Repeat([]results.Progress{tight}, 4), slices.Repeat([]results.Progress{loose}, 10)), 0, false, false},
		{"progress after an answer: the writer reorders", slices.Repeat([]results.Progress{tight}, 6), 1, false, false},
		{"files of two servers merged", slices.Repeat([]results.Progress{tight}, 6), 0, true, false},
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
			cut := func(id, fencedMs, leftoverMs float64, outcome string) *results.Record {
				return call(time.Second, outcome, cancelAt(100), fault("cancel", 10), with(func(r *results.Record) {
					r.ID, r.FencedUs, r.LeftoverUs = int64(id), ms(fencedMs), ms(leftoverMs)
				}))
			}
			a.Add(cut(42, 418, 0, results.Cancelled))
			a.Add(cut(43, 0, 0, results.Cancelled))
			a.Add(cut(44, 410, 0, results.Disconnected))
			a.Add(cut(45, 405, 450, results.Cancelled)) // the engine's evidence: never both
			m := testMeta("2026-07-28")
			if tc.mixed {
				m.Server += ", mcp-go 0.40.0"
			}
			s := a.Summary(m)
			c := s.Cancellation
			want, wantND := []int64{45}, 1
			if tc.ordered {
				want, wantND = []int64{45, 42, 44}, 2 // 44 ended disconnected
			}
			if c.FencedCalls != 2 || c.WriterOrdered != tc.ordered || !slices.Equal(c.LeftoverIDs, want) || c.LeftoverCalls != len(want) {
				t.Fatalf("fenced %d, ordered %v, leftover %d %v; want 2, %v, %d %v", c.FencedCalls, c.WriterOrdered,
					c.LeftoverCalls, c.LeftoverIDs, tc.ordered, len(want), want)
			}
			if got := a.Evidence().LeftoverNotDisconnected; got != wantND {
				t.Errorf("leftover not disconnected %d, want %d", got, wantND)
			}
			v := verdictOf(t, s, AreaCancellation)
			if v.Status != StatusViolation { // call 45's evidence, whatever the fence
				t.Errorf("status %q, want %q (evidence %q)", v.Status, StatusViolation, v.Evidence)
			}
			note := "2 by a message read after the answer to a ping sent at cancel + grace"
			if !tc.ordered {
				note = "2 calls with a message past cancel + grace, within a tenth of it, read after the answer to a ping sent then (not counted"
			}
			if !strings.Contains(v.Evidence, note) {
				t.Errorf("evidence %q lacks %q", v.Evidence, note)
			}
			if tc.ordered && c.LeftoverMaxMs != 450 {
				t.Errorf("leftover max %v ms, want 450", c.LeftoverMaxMs)
			}
		})
	}
}

// TestWorkFences: the stdio cuts' work fences add up to the summary's
// cancellation.work_fences (the lag of the answers after cancel + grace,
// and those with no answer); a run with no fence has none.
func TestWorkFences(t *testing.T) {
	a := NewAggregator(Rules{ProgressGrace: 300 * time.Millisecond})
	a.Add(call(0, results.OK, resp(200)))
	if s := a.Summary(testMeta("2026-07-28")); s.Cancellation.WorkFences != nil {
		t.Fatalf("work fences %+v with no fence", s.Cancellation.WorkFences)
	}
	for i, lagUs := range []int64{8000, 12000, 45000, -1, 0} {
		a.Add(call(time.Second, results.Cancelled, cancelAt(100), fault("cancel", 10), with(func(r *results.Record) {
			r.ID, r.FenceLagUs = int64(10+i), lagUs
		})))
	}
	w := a.Summary(testMeta("2026-07-28")).Cancellation.WorkFences
	if w == nil || w.Unanswered != 1 || w.LagMs.Count != 3 || w.LagMs.Max < 44.9 || w.LagMs.Max > 45.1 || w.LagMs.P50 < 11.9 || w.LagMs.P50 > 12.1 {
		t.Fatalf("work fences %+v; want 1 unanswered, 3 answered, p50 12ms, max 45ms", w)
	}
}
