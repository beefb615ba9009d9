package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	reporttext "github.com/mcpchaos/mcpchaos/report/text"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestProgressAfterLostCancel: progress after our cancel on a call whose
// cancel the target's records show it never learned of is the gateway's,
// not a progress violation of the server (mcp-remote 0.15.1 in front of a
// 2026-07-28 target); a call whose target learned of the cancel is still
// the server's; a call the records cannot speak for keeps the verdict
// from a pass.
func TestProgressAfterLostCancel(t *testing.T) {
	t0 := time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	steps := func(n int) []results.TruthProgress {
		var out []results.TruthProgress
		for i := range n {
			out = append(out, results.TruthProgress{Value: float64(i + 1), At: at(100 * (i + 1))})
		}
		return out
	}
	// ranOn never learned of our cancel at 300 ms and ran to its end at
	// 1000 ms, sending progress all along: the cancel was lost.
	ranOn := results.TruthCall{Marker: "r.1.0", Started: at(0), Progress: steps(10), Completed: at(1000), Ended: at(1000)}
	learned := ranOn
	learned.Cancelled = at(320)
	unendedQuiet := results.TruthCall{Marker: "r.1.0", Started: at(0), Progress: steps(3)}
	cancelled := GatewayCall{Marker: "r.1.0", Cancelled: at(300), AfterCancel: 2}
	record := func(extra ...opt) *results.Record {
		return call(0, results.Cancelled, append([]opt{cancelAt(300), fault("cancel", 10), violation("after_cancel", 2),
			progress(results.Progress{Count: 3, Values: []float64{1, 2, 3}, Last: 3})}, extra...)...)
	}
	for _, tc := range []struct {
		name          string
		call          GatewayCall
		truth         []results.TruthCall
		rec           *results.Record
		lost, unknown int
		want          string // the progress verdict
		has           string // in its evidence
	}{
		{"lost cancel: the gateway's", cancelled, []results.TruthCall{ranOn}, record(), 2, 0, StatusPass,
			"gateway.progress_after_lost_cancel 2"},
		{"lost cancel, and a server violation besides", cancelled, []results.TruthCall{ranOn},
			record(violation("non_monotonic", 1)), 2, 0, StatusViolation, "non_monotonic 1"},
		{"the target learned of the cancel: the server's", cancelled, []results.TruthCall{learned}, record(), 0, 0,
			StatusViolation, "after_cancel 2"},
		{"no target recorded the call", cancelled, nil, record(), 0, 2, StatusNotObservable,
			"gateway.progress_after_cancel_unknown 2"},
		{"a record that never ended and shows nothing past the cancel", cancelled, []results.TruthCall{unendedQuiet}, record(),
			0, 2, StatusNotObservable, "cannot say whether the cancel reached"},
		{"answered before our cancel", GatewayCall{Marker: "r.1.0", Response: at(200), Cancelled: at(300), AfterCancel: 2},
			[]results.TruthCall{ranOn}, record(), 0, 0, StatusViolation, "after_cancel 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := JoinGateway([]GatewayCall{tc.call}, tc.truth)
			if g.ProgressAfterLostCancel != tc.lost || g.ProgressAfterCancelUnknown != tc.unknown {
				t.Errorf("progress_after_lost_cancel %d, progress_after_cancel_unknown %d; want %d, %d (evidence %v)",
					g.ProgressAfterLostCancel, g.ProgressAfterCancelUnknown, tc.lost, tc.unknown, g.Evidence)
			}
			a := aggregate(tc.rec)
			a.SetInputs(RunInputs{Gateway: &g})
			s := a.Summary(testMeta("2026-07-28"))
			if s.Progress.Violations.AfterCancel != 2 {
				t.Errorf("progress.violations.after_cancel = %d, want the wire's 2 kept", s.Progress.Violations.AfterCancel)
			}
			v := verdictOf(t, s, AreaProgress)
			if v.Status != tc.want || !strings.Contains(v.Evidence, tc.has) {
				t.Errorf("progress verdict %q (%s); want %q with %q", v.Status, v.Evidence, tc.want, tc.has)
			}
			if tc.lost > 0 {
				gv := verdictOf(t, s, AreaGateway)
				if gv.Status != StatusViolation || !strings.Contains(gv.Evidence, "gateway.progress_after_lost_cancel 2") {
					t.Errorf("gateway verdict %q (%s), want a violation naming gateway.progress_after_lost_cancel 2", gv.Status, gv.Evidence)
				}
			}
		})
	}
}

// TestProgressAfterLostCancelInSummary: the count is in the JSON summary
// under gateway.progress_after_lost_cancel, and in the text's gateway
// block.
func TestProgressAfterLostCancelInSummary(t *testing.T) {
	a := aggregate(call(0, results.Cancelled, cancelAt(300), violation("after_cancel", 4),
		progress(results.Progress{Count: 2, Values: []float64{1, 2}, Last: 2})))
	a.SetInputs(RunInputs{Gateway: &Gateway{GatewayCounts: GatewayCounts{Calls: 1, Executions: 1, LostCancels: 1,
		ProgressAfterLostCancel: 4, ProgressAfterCancelUnknown: 1}}})
	s := a.Summary(testMeta("2026-07-28"))
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{`"progress_after_lost_cancel":4`, `"progress_after_cancel_unknown":1`} {
		if !bytes.Contains(b, []byte(k)) {
			t.Errorf("the JSON summary lacks %s", k)
		}
	}
	var text bytes.Buffer
	if err := reporttext.Write(&text, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "progress after lost cancel 4") {
		t.Errorf("the text summary does not say progress after lost cancel 4:\n%s", text.String())
	}
	if v := verdictOf(t, s, AreaProgress); v.Status != StatusPass || !strings.Contains(v.Evidence, "the gateway's, not the server's") {
		t.Errorf("progress verdict %q (%s), want a pass that says the late progress is the gateway's", v.Status, v.Evidence)
	}
}
