package e2e

import (
	"slices"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/results"
)

// idOverlaps counts pairs of calls that used the same id on different
// connections while both were in flight, and pairs on one connection that
// shared an id at all (which JSON-RPC forbids).
func idOverlaps(recs []*results.Record) (across, within int) {
	for i, a := range recs {
		for _, b := range recs[i+1:] {
			if a.ID != b.ID || a.ID == 0 {
				continue
			}
			if a.Process == b.Process {
				within++
				continue
			}
			if a.SentUs < b.EndUs && b.SentUs < a.EndUs {
				across++
			}
		}
	}
	return across, within
}

// TestIDModes: load.ids against the built-in target over a 2025 session
// (state per session): sequential ids are unique in the run; colliding
// ids put the same id on two connections (sessions) at once and never
// twice on one; shuffled ids are unique but out of order. The target,
// which keys its calls per session, answers every call either way.
// Sequential ids run in a closed model of one worker, so each call takes
// its id after the one before it ended and the ids must rise strictly:
// under a rate, two calls started at once may take their ids in either
// order on a busy machine, which tells nothing about the numbering.
func TestIDModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, ids, model   string
		collide, unordered bool
	}{
		{name: "sequential", ids: "{mode: sequential}", model: "concurrency: 1"},
		{name: "colliding", ids: "{mode: colliding, connections: 2}", model: "rate: 20/1s", collide: true},
		{name: "shuffled", ids: "{mode: shuffled}", model: "rate: 20/1s", unordered: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sc := runtest.Parse(t, `
name: ids
seed: 16
target: {builtin: {transport: http}}
protocol: 2025-11-25
load: {`+tc.model+`, duration: 2s, ids: `+tc.ids+`}
timeouts: {idle: 10s, max: 20s}
calls:
  - {tool: slow_task, arguments: {steps: 4, step_ms: 100}, progress: true}
orphans: {grace: 200ms, drain_max: 300ms}
`)
			plan := planOf(t, sc)
			quick(&plan)
			o := runPlan(t, sc, plan)
			s := o.Sum
			if s.Calls.Total == 0 || s.Calls.OK != s.Calls.Total || s.Progress.Violations.Total != 0 {
				t.Errorf("calls %d, ok %d, progress violations %d: want every call ok, none", s.Calls.Total, s.Calls.OK, s.Progress.Violations.Total)
			}
			across, within := idOverlaps(o.Recs)
			if within != 0 {
				t.Errorf("%d pairs of calls shared an id on one connection", within)
			}
			if got := across > 0; got != tc.collide {
				t.Errorf("%d pairs of calls shared an id on two connections at once, want some: %v", across, tc.collide)
			}
			// One worker numbers its calls in order; shuffled ids invert
			// about half of their neighbours.
			bySeq := slices.Clone(o.Recs)
			slices.SortFunc(bySeq, func(a, b *results.Record) int { return int(a.Seq) - int(b.Seq) })
			inversions := 0
			for i := 1; i < len(bySeq); i++ {
				if bySeq[i].ID < bySeq[i-1].ID {
					inversions++
				}
			}
			switch {
			case tc.collide:
			case tc.unordered && inversions < len(bySeq)/4:
				t.Errorf("%d of %d neighbouring calls have decreasing ids, want at least a quarter", inversions, len(bySeq))
			case !tc.unordered && (inversions > 0 || len(bySeq) < 2):
				t.Errorf("%d of %d calls in a row have decreasing ids, want at least 2 calls and none", inversions, len(bySeq))
			}
		})
	}
}
