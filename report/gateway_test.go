package report

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// gatewayT0 is when the made-up gateway runs start; gwAt is ms after it.
var gatewayT0 = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)

func gwAt(ms int) time.Time { return gatewayT0.Add(time.Duration(ms) * time.Millisecond) }

// truthProgress is progress the target sent at each of ms, valued 1, 2, ...
func truthProgress(ms ...int) []results.TruthProgress {
	var out []results.TruthProgress
	for i, m := range ms {
		out = append(out, results.TruthProgress{Value: float64(i + 1), At: gwAt(m)})
	}
	return out
}

// gatewayProgress is progress we got through the gateway at each of ms,
// valued 1, 2, ...
func gatewayProgress(ms ...int) []GatewayProgress {
	var out []GatewayProgress
	for i, m := range ms {
		out = append(out, GatewayProgress{Value: float64(i + 1), At: gwAt(m)})
	}
	return out
}

// truthDone is a target's record of a call that completed.
func truthDone(marker string, era string, started, completed int, p []results.TruthProgress) results.TruthCall {
	return results.TruthCall{Marker: marker, Era: era, Started: gwAt(started), Completed: gwAt(completed), Ended: gwAt(completed), Progress: p}
}

// joinGatewayCase is what we saw of calls through a gateway, what the
// targets recorded of them, and the misbehaviours the join must count.
type joinGatewayCase struct {
	name  string
	calls []GatewayCall
	truth []results.TruthCall
	want  map[string]int
	check func(t *testing.T, g Gateway)
}

// joinGatewayCancelCases are executions, cancels and crossed responses.
func joinGatewayCancelCases() []joinGatewayCase {
	at, prog, got, done := gwAt, truthProgress, gatewayProgress, truthDone
	return []joinGatewayCase{
		{
			name:  "transparent",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(301), Progress: got(101, 201, 301)}},
			truth: []results.TruthCall{done("r.1.0", "2026-07-28", 0, 300, prog(100, 200, 300))},
			check: func(t *testing.T, g Gateway) {
				if g.EraSeen["2026-07-28"] != 1 || len(g.Lag) != 1 || g.Lag[0].N != 3 || g.Lag[0].Bin != 10 {
					t.Errorf("era %v, lag %v: want one 2026 execution and three lags of 1 ms", g.EraSeen, g.Lag)
				}
			},
		},
		{
			name:  "duplicate on two targets",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(900)}},
			truth: []results.TruthCall{
				{Marker: "r.1.0", RequestID: "3", Started: at(0), Cancelled: at(250), Ended: at(250)},
				{Marker: "r.1.0", RequestID: "3", Started: at(251), Completed: at(890), Ended: at(890)},
			},
			want: map[string]int{"duplicate_executions": 1},
		},
		{
			name: "misdirected and lost",
			calls: []GatewayCall{
				{Marker: "r.1.0", RequestID: 4, Response: at(400)},
				{Marker: "r.2.0", RequestID: 5, Cancelled: at(150), Response: at(1001), AfterCancel: 3},
			},
			truth: []results.TruthCall{
				{Marker: "r.1.0", RequestID: "5", Started: at(0), Cancelled: at(151), Ended: at(152)},
				{Marker: "r.2.0", RequestID: "6", Started: at(50), Completed: at(1000), Ended: at(1000)},
			},
			want: map[string]int{"misdirected_cancels": 1, "lost_cancels": 1, "progress_after_lost_cancel": 3},
			check: func(t *testing.T, g Gateway) {
				if e := g.Evidence["misdirected_cancels"]; len(e) != 1 || !strings.Contains(e[0], "r.2.0 (our request id 5)") {
					t.Errorf("evidence %q does not name the cancel that went astray", e)
				}
			},
		},
		{
			name:  "a cancel that crossed the result is not lost",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(295)}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 300, nil)},
		},
		{
			name:  "a cancel the target learned of late is not lost",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(100)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(600), Completed: at(900), Ended: at(900)}},
		},
		{
			name:  "a gateway's own cancel with no cancel of ours is not misdirected",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(900)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(250), Ended: at(250)}},
		},
		{
			name:  "crossed",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(10), Crossed: "r.2.0"}, {Marker: "r.2.0", Response: at(10), Crossed: "r.1.0"}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 5, nil), done("r.2.0", "", 0, 5, nil)},
			want:  map[string]int{"crossed_responses": 2},
		},
	}
}

// joinGatewayProgressCases are progress held or lost, Retry-After lost and
// calls no target saw.
func joinGatewayProgressCases() []joinGatewayCase {
	at, prog, got, done := gwAt, truthProgress, gatewayProgress, truthDone
	return []joinGatewayCase{
		{
			name:  "held",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(302), Progress: got(301, 301, 301)}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 300, prog(100, 200, 300))},
			want:  map[string]int{"progress_held": 1},
		},
		{
			name:  "our own paused read is not the gateway's",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(302), Progress: got(301, 301), ReadPaused: true}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 300, prog(100, 200, 300))},
		},
		{
			name:  "sent too briefly to be held",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(32), Progress: got(31, 31)}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 30, prog(10, 20))},
		},
		{
			name:  "last one lost",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(301), Progress: got(101, 201)}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 300, prog(100, 200, 300))},
			want:  map[string]int{"progress_lost": 1},
		},
		{
			name:  "progress after the result is not the gateway's",
			calls: []GatewayCall{{Marker: "r.1.0", Response: at(301), Progress: got(101)}},
			truth: []results.TruthCall{done("r.1.0", "", 0, 300, prog(100, 310))},
		},
		{
			name:  "a cancelled call's progress is not judged",
			calls: []GatewayCall{{Marker: "r.1.0", Cancelled: at(150), Response: at(160)}},
			truth: []results.TruthCall{{Marker: "r.1.0", Started: at(0), Cancelled: at(151), Completed: at(300), Ended: at(300), Progress: prog(100, 200)}},
		},
		{
			name:  "retry-after lost",
			calls: []GatewayCall{{Marker: "r.1.0"}, {Marker: "r.2.0", RetryAfter: true}},
			truth: []results.TruthCall{
				{Marker: "r.1.0", Throttled: true, RetryAfterS: 1, Started: at(0)},
				{Marker: "r.2.0", Throttled: true, RetryAfterS: 1, Started: at(0)},
			},
			want: map[string]int{"retry_after_lost": 1},
			check: func(t *testing.T, g Gateway) {
				if g.Executions != 0 || g.NotSeen != 0 {
					t.Errorf("executions %d, not seen %d: a refused call is neither", g.Executions, g.NotSeen)
				}
			},
		},
		{
			name:  "not seen",
			calls: []GatewayCall{{Marker: "r.1.0"}},
			check: func(t *testing.T, g Gateway) {
				if g.NotSeen != 1 {
					t.Errorf("not_seen = %d, want 1", g.NotSeen)
				}
			},
		},
	}
}

func TestJoinGateway(t *testing.T) {
	for _, tc := range slices.Concat(joinGatewayCancelCases(), joinGatewayProgressCases()) {
		t.Run(tc.name, func(t *testing.T) {
			g := JoinGateway(tc.calls, tc.truth)
			s := gatewaySummary(&g)
			for _, k := range s.Misbehaviours() {
				if got := k.N; got != tc.want[k.Key] {
					t.Errorf("%s = %d, want %d (evidence %v)", k.Key, got, tc.want[k.Key], g.Evidence)
				}
			}
			if tc.check != nil {
				tc.check(t, g)
			}
		})
	}
}

func TestLagSummary(t *testing.T) {
	for _, tc := range []struct {
		name string
		bins []LagBin
		want GatewayLag
	}{
		{name: "none"},
		{name: "one bin", bins: []LagBin{{Bin: 3, N: 5}}, want: GatewayLag{P50: 0.4, P99: 0.4, Max: 0.4, Count: 5}},
		{name: "a tail", bins: []LagBin{{Bin: 0, N: 98}, {Bin: 99, N: 1}, {Bin: 1999, N: 1}},
			want: GatewayLag{P50: 0.1, P99: 10, Max: 200, Count: 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := lagSummary(tc.bins); got != tc.want {
				t.Errorf("lagSummary = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestGatewayInputsMergeAndTravel: the gateway's counts travel in the run
// inputs (a results trailer) and add up when runs are merged.
func TestGatewayInputsMergeAndTravel(t *testing.T) {
	a := RunInputs{Gateway: &Gateway{Truth: []string{"http://a"}, GatewayCounts: GatewayCounts{Calls: 3, Executions: 4, DuplicateExecutions: 1},
		EraSeen: map[string]int{"2026-07-28": 4}, Lag: []LagBin{{Bin: 1, N: 2}}, Evidence: map[string][]string{"duplicate_executions": {"r.1.0"}}}}
	b := RunInputs{Gateway: &Gateway{Truth: []string{"http://a", "http://b"}, GatewayCounts: GatewayCounts{Calls: 2, Executions: 2, LostCancels: 2},
		EraSeen: map[string]int{"2026-07-28": 1, "2025-11-25": 1}, Lag: []LagBin{{Bin: 1, N: 1}, {Bin: 5, N: 1}}}}
	raw, err := EncodeInputs(a)
	if err != nil {
		t.Fatal(err)
	}
	back, err := DecodeInputs(raw)
	if err != nil || !reflect.DeepEqual(back.Gateway, a.Gateway) {
		t.Fatalf("the gateway did not survive the trailer: %+v, %v", back.Gateway, err)
	}
	m := MergeInputs([]RunInputs{back, b, {}}).Gateway
	want := &Gateway{Truth: []string{"http://a", "http://b"}, GatewayCounts: GatewayCounts{Calls: 5, Executions: 6, DuplicateExecutions: 1, LostCancels: 2},
		EraSeen: map[string]int{"2026-07-28": 5, "2025-11-25": 1}, Lag: []LagBin{{Bin: 1, N: 3}, {Bin: 5, N: 1}},
		Evidence: map[string][]string{"duplicate_executions": {"r.1.0"}}}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("merged %+v\nwant %+v", m, want)
	}
	if MergeInputs([]RunInputs{{}, {}}).Gateway != nil {
		t.Error("runs without a gateway section merged into one")
	}
	agg := NewAggregator(Rules{})
	agg.SetInputs(RunInputs{Gateway: m})
	s := agg.Summary(Meta{})
	if s.Gateway == nil || s.Gateway.LostCancels != 2 || s.Verdicts[len(s.Verdicts)-1].Area != AreaGateway ||
		s.Verdicts[len(s.Verdicts)-1].Status != StatusViolation {
		t.Errorf("summary gateway %+v, verdicts %+v", s.Gateway, s.Verdicts)
	}
}

// gatewayGolden is a run through a gateway that misbehaved in every way.
func gatewayGolden() *Summary {
	t0, at := gatewayT0, gwAt
	g := JoinGateway([]GatewayCall{
		{Marker: "r.1.0", RequestID: 4, Response: at(400), Progress: []GatewayProgress{{1, at(101)}, {2, at(203)}}},
		{Marker: "r.2.0", RequestID: 5, Cancelled: at(150), Response: at(1001), AfterCancel: 3},
		{Marker: "r.3.0", RequestID: 6, Response: at(10), Crossed: "r.4.0"},
		{Marker: "r.4.0", RequestID: 7, RetryAfter: false},
	}, []results.TruthCall{
		{Marker: "r.1.0", RequestID: "5", Era: "2025-11-25", Started: at(0), Cancelled: at(151), Ended: at(152)},
		{Marker: "r.1.0", RequestID: "5", Era: "2025-11-25", Started: at(1), Completed: at(300), Ended: at(300),
			Progress: []results.TruthProgress{{Value: 1, At: at(100)}, {Value: 2, At: at(200)}, {Value: 3, At: at(290)}}},
		{Marker: "r.2.0", RequestID: "6", Era: "2025-11-25", Started: at(50), Completed: at(1000), Ended: at(1000)},
		{Marker: "r.3.0", RequestID: "7", Era: "2026-07-28", Started: at(0), Completed: at(5), Ended: at(5)},
		{Marker: "r.4.0", Throttled: true, RetryAfterS: 2, Started: at(0)},
	})
	g.Truth = []string{"http://127.0.0.1:8081", "http://127.0.0.1:8082"}
	g.Errors = []string{"http://127.0.0.1:8082 evicted records before they were read (it keeps 20000): some calls may be missing"}
	a := NewAggregator(Rules{})
	a.SetInputs(RunInputs{Gateway: &g})
	return a.Summary(Meta{Scenario: "gateway", Era: "2026-07-28", Transport: "http", Target: "http://127.0.0.1:9000/mcp",
		Started: t0, Duration: 2 * time.Second})
}

// TestGoldenGateway pins the JSON of the gateway run; report/text renders
// it (its gateway.txt.golden).
func TestGoldenGateway(t *testing.T) {
	s := gatewayGolden()
	var js bytes.Buffer
	if err := s.JSON(&js); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, "gateway.json.golden", js.Bytes())
}
