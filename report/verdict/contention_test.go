package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestContentionVerdict: the go-sdk server of issue 25's ramp over
// Streamable HTTP, leaking every cut call (seed 3 at ee141be): five quiet
// windows saw no leftover CPU (each pauses the load, and a cut call's
// 150 ms of work ends inside the grace there), and the wire has nothing
// after a closed stream. The projection through the load's contention is
// information: the pass says that cuts may have ended past the grace, and
// what to add to know. With none past the grace it says what it weighed;
// a stopping server's windows measure no work to project.
func TestContentionVerdict(t *testing.T) {
	visible := &summary.ProcessCPU{Probe: "process", LoadRate: 1.6, PerCallS: 0.4, IdleNoise: 0.01}
	w := summary.Windows{Count: 5, Followed: 4, Auto: true, Cancelled: 11, MeasuredMs: 5009}
	for _, tc := range []struct {
		name   string
		con    *summary.Contention
		status string
		has    string
	}{
		{"cuts projected past the grace", &summary.Contention{WorkPerCutS: 0.09, Windows: 5, Cuts: 54, Contended: 46, PastGrace: 3,
			GraceMs: 300, MarginMs: 30, WorstAtMs: 19220, WorstEndMs: 462, WorstShare: 0.12, WorstLive: 1.4}, summary.StatusPass,
			"; the server goes on with a cut call for a while: the quiet windows measured 90ms of CPU a cut call costs it after its cut, with the load paused, " +
				"and projected through the load's contention 3 of the 54 cuts the faults made during the load may have ended past the 300ms grace " +
				"(the latest, cut 19.2s into the load with 1.4 calls in flight beside it, at 0.12 of a CPU: about 462ms after its cut); " +
				"a projection, not a verdict: a count or log probe would tell"},
		{"contended, none past the grace", &summary.Contention{WorkPerCutS: 0.05, Windows: 5, Cuts: 54, Contended: 20,
			GraceMs: 300, MarginMs: 30}, summary.StatusPass,
			"20 of the faults' 54 cuts met the load's contention, and at 50ms of CPU a cut (the windows' figure) none would have run past the grace"},
		{"past the grace, never contended (more than a CPU's work a cut)", &summary.Contention{WorkPerCutS: 0.5, Windows: 5, Cuts: 4, PastGrace: 4,
			GraceMs: 300, MarginMs: 30, WorstAtMs: 2000, WorstEndMs: 900, WorstShare: 1}, summary.StatusPass,
			"4 of the 4 cuts the faults made during the load may have ended past the 300ms grace (the latest, cut 2s into the load with 0.0 calls in flight beside it, at 1.00 of a CPU: not done 900ms after its cut)"},
		{"a server that stops: nothing to project", &summary.Contention{Windows: 5, GraceMs: 300, MarginMs: 30, WorstShare: 1}, summary.StatusPass,
			"no work seen after a cancel (5 quiet windows"},
		{"no projection", nil, summary.StatusPass, "no work seen after a cancel (5 quiet windows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &summary.Summary{Era: vocab.FirstModern, Cancellation: summary.Cancellation{Cancels: 52, ProcessCPU: visible,
				Windows: w, Contention: tc.con}}
			s.Calls.Disconnected = 2
			v := cancellationVerdict(s, evidence{disconnects: 2})
			if v.Status != tc.status || !strings.Contains(v.Evidence, tc.has) {
				t.Errorf("verdict %q (%s), want %q with %q", v.Status, v.Evidence, tc.status, tc.has)
			}
			if named := strings.Contains(v.Evidence, "contention"); named != (tc.con != nil && (tc.con.PastGrace > 0 || tc.con.Contended > 0)) {
				t.Errorf("evidence %q: names the contention %v, want it only when a cut met it or ended past the grace", v.Evidence, named)
			}
		})
	}
}
