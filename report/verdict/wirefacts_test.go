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

// TestFenceNote: a pass over stdio says how far past the grace a run-on
// must go before the wire can show it: the lag of the server's answers to
// the pings sent at cancel + grace (the go-sdk stdio server's 25 ms leak of
// the agreement table ran on 8 ms past the grace in its miss, where its
// answers came up to 42–101 ms after cancel + grace), and for a server not
// seen to write in order the tenth of the grace besides. A log probe that
// matched sees each call end whatever the wire shows: no note.
func TestFenceNote(t *testing.T) {
	lag := summary.Latency{P50: 8, Max: 45, Count: 11}
	for _, tc := range []struct {
		name string
		c    summary.Cancellation
		want string // "" for none
		not  string // must not be in it
	}{
		{"in order", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, WriterOrdered: true, WorkGraceMs: 300},
			"; on stdio, a cut call's work past cancel + grace shows on the wire only once the server has read a ping sent then: " +
				"its answers to 11 of them were read within 45ms of it (p50 8ms), so a run-on shorter than that may not show", "nor"},
		{"not in order, one unanswered", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag, Unanswered: 1}, WorkGraceMs: 300},
			"its answers to 11 of them were read within 45ms of it (p50 8ms), 1 not in time, so a run-on shorter than that may not show; " +
				"nor, from a server not seen to write its messages in order, one within 30ms past the grace", ""},
		{"the give or take's cap", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, WorkGraceMs: 2000},
			"one within 50ms past the grace", ""},
		{"none answered, not in order", summary.Cancellation{WorkFences: &summary.WorkFences{Unanswered: 3}, WorkGraceMs: 300},
			"none of the 3 was answered in time, so only an answer read long after its cancel (a stale answer) could show a run-on", "nor"},
		{"a count probe: still said", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, Counting: 1, WriterOrdered: true},
			"so a run-on shorter than that may not show", ""},
		{"no stdio cancel", summary.Cancellation{WorkGraceMs: 300}, "", ""},
		{"a log probe that matched", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, Log: &summary.LogOrphans{Matched: 4}}, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fenceNote(tc.c)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) || tc.not != "" && strings.Contains(got, tc.not) {
				t.Errorf("fenceNote = %q, want %q (and not %q)", got, tc.want, tc.not)
			}
		})
	}
	// In a black-box pass, after what the windows weighed.
	s := &summary.Summary{Era: vocab.FirstModern, Cancellation: summary.Cancellation{Cancels: 11, WorkGraceMs: 300, WriterOrdered: true,
		ProcessCPU: &summary.ProcessCPU{Probe: "process", LoadRate: 1.6, PerCallS: 0.4, IdleNoise: 0.01},
		Windows:    summary.Windows{Count: 1, Cancelled: 1, Followed: 1, Auto: true, MeasuredMs: 1000},
		WorkFences: &summary.WorkFences{LagMs: lag}}}
	if v := cancellationVerdict(s, evidence{}); v.Status != summary.StatusPass || !strings.Contains(v.Evidence, "so a run-on shorter than that may not show") {
		t.Errorf("verdict %q (%s), want a pass that says the wire's resolution", v.Status, v.Evidence)
	}
}
