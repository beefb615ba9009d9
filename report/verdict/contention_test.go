package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestContentionVerdict: the go-sdk server of issue 25's ramp over
// Streamable HTTP, leaking every cut call: five quiet windows saw no
// leftover CPU (each pauses the load, and a cut call's 150 ms of work ends
// inside the grace there), and the wire has nothing after a closed stream.
// The windows saw it do most of what their cuts had left, so the faults'
// cuts were projected at the load's pace: cuts after which nothing on the
// wire can follow, projected past the grace, make a violation whose
// evidence is the projection; past the grace on stdio only, a note in a
// pass; none past, a pass that says what it weighed; a server the windows
// saw stop, a pass that says so; no projection, nothing said.
func TestContentionVerdict(t *testing.T) {
	visible := &summary.ProcessCPU{Probe: "process", LoadRate: 1.6, PerCallS: 0.4, IdleNoise: 0.01}
	w := summary.Windows{Count: 5, Followed: 4, Auto: true, Cancelled: 11, MeasuredMs: 5009}
	past := summary.Contention{WorkPerCutS: 0.077, Windows: 5, DoneShare: 0.75, Cuts: 56, Contended: 20, PastGrace: 12,
		GraceMs: 300, WorstAtMs: 19838, WorstEndMs: 442, WorstLeft: 6, WorstPaceMs: 73.7, QuickPaceMs: 25.1}
	blind := past
	blind.Blind, blind.PastGraceBlind = 56, 12
	for _, tc := range []struct {
		name   string
		con    *summary.Contention
		status string
		has    string
	}{
		{"cuts over HTTP projected past the grace", &blind, summary.StatusViolation,
			"52 cancels, 2 disconnects: 12 of the faults' 56 cuts over Streamable HTTP ran on past the 300ms grace at the load's pace: " +
				"the quiet windows saw the server do 75% of what their cuts had left, and the latest, cut 19.8s into the load with 6 of its " +
				"progress left while its kind of call took 73.7ms a unit (25.1ms at its quickest), ended about 442ms after its cut " +
				"(a projection from the load's own pace: a log or count probe would name the calls)"},
		{"past the grace on stdio: a note", &past, summary.StatusPass,
			"; the server goes on with a cut call (the quiet windows saw it do 75% of what their cuts had left), and at the load's pace " +
				"12 of the faults' 56 cuts would have run past the 300ms grace (the latest, cut 19.8s into the load with 6 of its progress " +
				"left while its kind of call took 73.7ms a unit (25.1ms at its quickest), ended about 442ms after its cut): a projection, and where the wire can follow a cut it judges"},
		{"goes on, nothing projected", &summary.Contention{WorkPerCutS: 0.1, Windows: 5, DoneShare: 0.8, Unpaced: 3, GraceMs: 300}, summary.StatusPass,
			"; the server goes on with a cut call (the quiet windows saw it do 80% of what their cuts had left), and none of the faults' cuts " +
				"could be projected (3 with no call of their kind answered around them, or not knowing what they had left)"},
		{"none past the grace", &summary.Contention{WorkPerCutS: 0.067, Windows: 5, DoneShare: 0.8, Cuts: 45, Blind: 45, Contended: 10,
			GraceMs: 300, WorstAtMs: 17090, WorstEndMs: 248, WorstLeft: 6, WorstPaceMs: 41.3, QuickPaceMs: 25}, summary.StatusPass,
			"and at the load's pace none of the faults' 45 cuts ran past the 300ms grace (the latest, cut 17.1s into the load"},
		{"not done within the horizon", &summary.Contention{WorkPerCutS: 0.5, Windows: 5, DoneShare: 1, Cuts: 4, PastGrace: 4, Blind: 4, PastGraceBlind: 4,
			GraceMs: 300, WorstAtMs: 2000, WorstEndMs: 900, WorstLeft: 20, WorstPaceMs: 50, QuickPaceMs: 25}, summary.StatusViolation,
			"ended not done 900ms after its cut"},
		{"a server the windows saw stop", &summary.Contention{Windows: 5, DoneShare: 0.07, GraceMs: 300}, summary.StatusPass,
			"; the quiet windows saw the server do 7% of what their cuts had left, as a server that stops does: no cut projected"},
		{"windows with nothing known left", &summary.Contention{Windows: 5, DoneShare: -1, GraceMs: 300}, summary.StatusPass,
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
			said := strings.Contains(v.Evidence, "of what their cuts had left")
			if want := tc.con != nil && tc.con.DoneShare >= 0; said != want {
				t.Errorf("evidence %q: names the share done %v, want %v", v.Evidence, said, want)
			}
		})
	}
}
