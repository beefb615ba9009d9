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

// TestFenceNote: a black-box pass over stdio says how far past the grace a
// run-on must go before the wire can show it: the lag of the server's
// answers to the pings sent at cancel + grace (the go-sdk stdio server's
// 25 ms leak of the agreement table, whose misses ran on 2–12 ms past the
// grace while those answers came 13–92 ms late), and for a server not seen
// to write in order the tenth of the grace besides. A count or log probe
// sees the work whatever the wire shows: no note.
func TestFenceNote(t *testing.T) {
	lag := summary.Latency{P50: 8, Max: 45, Count: 11}
	for _, tc := range []struct {
		name string
		c    summary.Cancellation
		want string // "" for none
	}{
		{"in order", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, WriterOrdered: true, WorkGraceMs: 300},
			"; on stdio, a cut call's work past cancel + grace shows on the wire only once the server has read a ping sent then: " +
				"it answered 11 of them within 45ms of it (p50 8ms), so a run-on shorter than that may not show"},
		{"not in order, one unanswered", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag, Unanswered: 1}, WorkGraceMs: 300},
			"it answered 11 of them within 45ms of it (p50 8ms) and 1 not in time, so a run-on shorter than that may not show; " +
				"nor, from a server not seen to write its messages in order, one within 30ms past the grace"},
		{"the give or take's cap", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, WorkGraceMs: 2000},
			"one within 50ms past the grace"},
		{"none answered", summary.Cancellation{WorkFences: &summary.WorkFences{Unanswered: 3}, WriterOrdered: true, WorkGraceMs: 300},
			"none of the 3 was answered in time, so the wire could show no run-on"},
		{"no stdio cut", summary.Cancellation{WorkGraceMs: 300}, ""},
		{"a count probe", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, Counting: 1}, ""},
		{"a log probe that matched", summary.Cancellation{WorkFences: &summary.WorkFences{LagMs: lag}, Log: &summary.LogOrphans{Matched: 4}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fenceNote(tc.c)
			if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
				t.Errorf("fenceNote = %q, want %q", got, tc.want)
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
