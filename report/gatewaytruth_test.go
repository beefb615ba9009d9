package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/results"
)

// truthSteps is n progress notifications a target sent, the first at from
// ms and then every every ms, valued 1, 2, ...
func truthSteps(from, every, n int) []results.TruthProgress {
	var out []results.TruthProgress
	for i := range n {
		out = append(out, results.TruthProgress{Value: float64(i + 1), At: gwAt(from + i*every)})
	}
	return out
}

// partialTruthCase is one call through a gateway, what the targets'
// records hold of it, and the counts the join must make.
type partialTruthCase struct {
	name  string
	calls []GatewayCall
	truth []results.TruthCall
	want  GatewayCounts
}

// partialTruthUnknownCases are calls whose records froze, are missing, or
// were read before an answer echoing the call's marker.
func partialTruthUnknownCases() []partialTruthCase {
	at, steps := gwAt, truthSteps
	return []partialTruthCase{
		{
			// A child per request, killed after it answered another
			// request: the cancel went to a fresh child, the call ran
			// to step 9 of 10, 1.9 s after our cancel, then froze.
			name:  "a record that froze after working past the cancel lost it",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Progress: steps(200, 200, 9)}},
			want: GatewayCounts{Calls: 1, Executions: 1, Unended: 1, LostCancels: 1,
				Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
		{
			name:  "a record that froze before the cancel is unknown",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(500)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Progress: steps(100, 100, 3)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, Unended: 1, Stops: GatewayStops{Cancelled: StopCounts{Unknown: 1}}},
		},
		{
			name:  "an answer echoing its marker with no record is an execution the truth misses",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(300), Answered: true, Echoed: true}},
			want:  GatewayCounts{Calls: 1, Unrecorded: 1},
		},
		{
			name:  "a result without a marker and no record is unrecorded too",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(300), Answered: true}},
			want:  GatewayCounts{Calls: 1, Unrecorded: 1},
		},
		{
			name:  "no record and no result: not seen",
			calls: []GatewayCall{{Marker: "r.1.0"}},
			want:  GatewayCounts{Calls: 1, NotSeen: 1},
		},
		{
			name:  "a cancelled call no target recorded is unknown",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100)}},
			want:  GatewayCounts{Calls: 1, NotSeen: 1, Stops: GatewayStops{Cancelled: StopCounts{Unknown: 1}}},
		},
		{
			// supergateway stateless in 2025: the cancel reached a fresh
			// child; the call's own child answered, echoing its marker,
			// after we had stopped watching it, and died with its records.
			name:  "an answer echoing the marker after the late window is an execution that ran on",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100), Echoed: true, LateEcho: at(2100)}},
			want:  GatewayCounts{Calls: 1, Unrecorded: 1, Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
		{
			name:  "a late echo of a call whose record never learned of the cancel lost it",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100), Echoed: true, LateEcho: at(2100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Progress: steps(50, 50, 2)}},
			want: GatewayCounts{Calls: 1, Executions: 1, Unended: 1, LostCancels: 1,
				Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
		{
			// The record says the execution learned of the cancel and
			// stopped without an answer; the answer echoing the marker
			// came from an execution the records do not hold (a gateway
			// that re-sent the call where no truth is read).
			name:  "a late echo of a call whose only record stopped at the cancel: an execution the truth misses",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100), Echoed: true, LateEcho: at(2100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(101), Ended: at(120)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, Unrecorded: 1, Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
		{
			name:  "a late echo of a call whose record ran to its end after learning of the cancel is that execution",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100), Echoed: true, LateEcho: at(2100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(101), Completed: at(2050), Ended: at(2050)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
		{
			// The records read show the call stopped; its answer came
			// after the last read began, so what answered may be missing.
			name:  "an echo after the last read of the truth makes it incomplete",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100), Echoed: true, LateEcho: at(2100), EchoAfterTruth: true}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(101), Completed: at(2050), Ended: at(2050)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, EchoesAfterTruth: 1, Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
	}
}

// partialTruthStopCases are calls whose records show how they stopped
// after our cancel or disconnect.
func partialTruthStopCases() []partialTruthCase {
	at := gwAt
	return []partialTruthCase{
		{
			name:  "a call that stopped for its cancel",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(102), Ended: at(150)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, Stops: GatewayStops{Cancelled: StopCounts{Stopped: 1}}},
		},
		{
			name:  "a call that learned of its cancel and ran on anyway",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(102), Completed: at(900), Ended: at(900)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, Stops: GatewayStops{Cancelled: StopCounts{RanOn: 1}}},
		},
		{
			name:  "a call answered before our cancel was not stopped by it",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(90), Cancelled: at(100), Answered: true, Echoed: true}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Completed: at(89), Ended: at(89)}},
			want:  GatewayCounts{Calls: 1, Executions: 1},
		},
		{
			name:  "a 2025 disconnect the call ran on after",
			calls: []GatewayCall{{Marker: "r.1.0", Disconnected: at(100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), StreamClosed: at(101), Completed: at(1000), Ended: at(1000)}},
			want:  GatewayCounts{Calls: 1, Executions: 1, Stops: GatewayStops{Disconnected: StopCounts{RanOn: 1}}},
		},
		{
			// mcp-remote: our disconnect closed the bridge's stdin while
			// r.2.0 was in flight on it; the bridge's exit ended r.2.0
			// upstream 30 ms after our cancel of r.1.0 on another line.
			name: "calls ended by our own cut of a stdio bridge are not misdirected",
			calls: []GatewayCall{
				{Marker: "r.1.0", Cancelled: at(90)},
				{Marker: "r.2.0", Disconnected: at(100)},
			},
			truth: []results.TruthCall{
				{Marker: "r.1.0", Started: at(0), Cancelled: at(91), Ended: at(95)},
				{Marker: "r.2.0", Started: at(0), Cancelled: at(120), Ended: at(125)},
			},
			want: GatewayCounts{Calls: 2, Executions: 2, Stops: GatewayStops{Cancelled: StopCounts{Stopped: 1}, Disconnected: StopCounts{Stopped: 1}}},
		},
	}
}

// TestJoinGatewayPartialTruth: what the targets' records do not cover is
// unknown, never "nothing went wrong". Each case is one call as the
// supergateway and mcp-remote runs of issue 30 left it.
func TestJoinGatewayPartialTruth(t *testing.T) {
	for _, tc := range slices.Concat(partialTruthUnknownCases(), partialTruthStopCases()) {
		t.Run(tc.name, func(t *testing.T) {
			g := JoinGateway(tc.calls, tc.truth)
			if g.GatewayCounts != tc.want {
				t.Errorf("counts %+v\nwant   %+v\nevidence %v", g.GatewayCounts, tc.want, g.Evidence)
			}
		})
	}
}

// TestGatewayVerdictIncompleteTruth: part of the truth missing is never a
// pass; what the truth does show still counts.
func TestGatewayVerdictIncompleteTruth(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts GatewayCounts
		errors []string
		want   string
		has    []string
	}{
		{"complete", GatewayCounts{Calls: 3, Executions: 3}, nil, StatusPass, []string{"passed every call through"}},
		{"unrecorded answers", GatewayCounts{Calls: 10, Executions: 4, Unrecorded: 2, NotSeen: 4}, nil, StatusNotObservable,
			[]string{"incomplete truth", "gateway.unrecorded 2"}},
		{"records that never ended", GatewayCounts{Calls: 10, Executions: 10, Unended: 3}, nil, StatusNotObservable,
			[]string{"incomplete truth", "gateway.unended 3"}},
		{"a target never read", GatewayCounts{Calls: 10, Executions: 5, TruthUnread: 1}, []string{"the truth of 1 of 2 targets was never read"},
			StatusNotObservable, []string{"gateway.truth_unread 1"}},
		{"not seen while reading failed", GatewayCounts{Calls: 10, Executions: 5, NotSeen: 5}, []string{"read truth: status 500"},
			StatusNotObservable, []string{"5 calls not recorded by any target while reading the truth failed"}},
		{"an echo after the last read", GatewayCounts{Calls: 10, Executions: 10, EchoesAfterTruth: 1}, nil, StatusNotObservable,
			[]string{"incomplete truth", "gateway.echoes_after_truth 1"}},
		{"not seen, truth read", GatewayCounts{Calls: 10, Executions: 5, NotSeen: 5}, nil, StatusPass, []string{"5 calls not recorded"}},
		{"a violation stays one", GatewayCounts{Calls: 10, Executions: 10, Unended: 3, LostCancels: 3}, nil, StatusViolation,
			[]string{"gateway.lost_cancels 3", "incomplete truth"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAggregator(Rules{})
			a.SetInputs(RunInputs{Gateway: &Gateway{GatewayCounts: tc.counts, Errors: tc.errors}})
			v := verdictOf(t, a.Summary(Meta{}), AreaGateway)
			if v.Status != tc.want {
				t.Errorf("status %q, want %q (evidence %q)", v.Status, tc.want, v.Evidence)
			}
			for _, h := range tc.has {
				if !strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q lacks %q", v.Evidence, h)
				}
			}
		})
	}
}

// TestCancellationVerdictFromTruth: with no probe, the targets' records
// behind a gateway settle the cancellation verdict.
func TestCancellationVerdictFromTruth(t *testing.T) {
	cancel, disconnect := cancelledCall, disconnectedCall
	for _, tc := range []struct {
		name  string
		era   string
		recs  []*results.Record
		stops GatewayStops
		want  string
		has   string
	}{
		{"every cancelled call stopped", "2026-07-28", []*results.Record{cancel(), cancel()},
			GatewayStops{Cancelled: StopCounts{Stopped: 2}}, StatusPass, "cancelled 2 stopped"},
		{"one ran on", "2026-07-28", []*results.Record{cancel(), cancel()},
			GatewayStops{Cancelled: StopCounts{Stopped: 1, RanOn: 1}}, StatusViolation, "1 ran on"},
		{"one unknown", "2026-07-28", []*results.Record{cancel(), cancel()},
			GatewayStops{Cancelled: StopCounts{Stopped: 1, Unknown: 1}}, StatusNotObservable, "1 unknown"},
		{"2025 disconnects ran on", "2025-11-25", []*results.Record{cancel(), disconnect()},
			GatewayStops{Cancelled: StopCounts{Stopped: 1}, Disconnected: StopCounts{RanOn: 1}}, StatusLegacy, "not a cancel"},
		{"2025 disconnects ran on, a cancelled call unknown", "2025-11-25", []*results.Record{cancel(), disconnect()},
			GatewayStops{Cancelled: StopCounts{Unknown: 1}, Disconnected: StopCounts{RanOn: 1}}, StatusNotObservable, "1 unknown"},
		{"a 2026 disconnect ran on, a cancelled call unknown", "2026-07-28", []*results.Record{cancel(), disconnect()},
			GatewayStops{Cancelled: StopCounts{Unknown: 1}, Disconnected: StopCounts{RanOn: 1}}, StatusViolation, "a disconnect is a cancel"},
		{"a bridge cut ran on in 2026", "2026-07-28", []*results.Record{disconnect()},
			GatewayStops{Disconnected: StopCounts{RanOn: 1}}, StatusViolation, "a disconnect is a cancel"},
		{"no stops recorded", "2026-07-28", []*results.Record{cancel()}, GatewayStops{}, StatusNotObservable, "wire evidence only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := aggregate(tc.recs...)
			a.SetInputs(RunInputs{Gateway: &Gateway{GatewayCounts: GatewayCounts{Calls: len(tc.recs), Executions: len(tc.recs), Stops: tc.stops}}})
			v := verdictOf(t, a.Summary(testMeta(tc.era)), AreaCancellation)
			if v.Status != tc.want || !strings.Contains(v.Evidence, tc.has) {
				t.Errorf("status %q, evidence %q; want %q with %q", v.Status, v.Evidence, tc.want, tc.has)
			}
		})
	}
}

// TestProgressVerdictReordered: after_response violations that the
// targets' records show were sent before the result are the gateway's,
// not the server's; anything else still counts against the server.
func TestProgressVerdictReordered(t *testing.T) {
	withProgress := func(opts ...opt) *results.Record {
		return call(0, results.OK, append([]opt{resp(500), progress(results.Progress{Count: 2, Values: []float64{1, 2}, Last: 2})}, opts...)...)
	}
	for _, tc := range []struct {
		name      string
		recs      []*results.Record
		reordered int
		want      string
	}{
		{"all reordered", []*results.Record{withProgress(violation("after_response", 3))}, 3, StatusPass},
		{"more than reordered", []*results.Record{withProgress(violation("after_response", 3))}, 2, StatusViolation},
		{"another violation too", []*results.Record{withProgress(violation("after_response", 3), violation("non_monotonic", 1))}, 3, StatusViolation},
		{"no gateway counts", []*results.Record{withProgress(violation("after_response", 1))}, 0, StatusViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := aggregate(tc.recs...)
			a.SetInputs(RunInputs{Gateway: &Gateway{GatewayCounts: GatewayCounts{Calls: 1, Executions: 1, ProgressReordered: tc.reordered}}})
			v := verdictOf(t, a.Summary(testMeta("2025-11-25")), AreaProgress)
			if v.Status != tc.want {
				t.Errorf("status %q (%s), want %q", v.Status, v.Evidence, tc.want)
			}
			if tc.want == StatusPass && !strings.Contains(v.Evidence, "reordered by the gateway") {
				t.Errorf("evidence %q does not say the gateway reordered them", v.Evidence)
			}
		})
	}
}
