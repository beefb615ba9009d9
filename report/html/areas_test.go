package html

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
)

// The areas shown only when they happened: input (MRTR), tasks, the
// gateway, each with the text summary's lines.

// areaMRTR, areaTasks and areaGateway are a run's areas, as a summary
// holds them.
var (
	areaMRTR = report.MRTR{InputRequired: 3, LoadShed: 2, Rounds: 3, Calls: 2, Elicitation: 2, Roots: 3,
		ThinkMs:  report.Latency{P50: 250, P99: 600, Max: 600, Count: 2},
		ServerMs: report.Latency{P50: 50, P99: 300, Max: 300, Count: 2}}
	areaTasks = report.Tasks{Created: 5, Completed: 3, Failed: 1, Cancelled: 1, Polls: 12, PollThrottled: 2, Updates: 1,
		CancelSent: 1, Leftover: 1, Listened: 2, Pushed: 4, LatencyMs: report.Latency{P50: 420, P99: 1900, Count: 5}}
	areaGateway = &report.GatewaySummary{Truth: []string{"http://127.0.0.1:9101", "http://127.0.0.1:9102"},
		GatewayCounts: report.GatewayCounts{Calls: 40, Executions: 41, NotSeen: 1, DuplicateExecutions: 1, LostCancels: 2,
			ProgressHeld: 3, Unended: 1, Stops: report.GatewayStops{Cancelled: report.StopCounts{Stopped: 4, RanOn: 2, Unknown: 1}}},
		LagMs:   report.GatewayLag{P50: 1.2, P99: 8.5, Max: 12, Count: 90},
		EraSeen: map[string]int{"2026-07-28": 30, "2025-11-25": 10},
		Errors:  []string{"http://127.0.0.1:9102: GET /calls: connection refused"}}
)

// withAreas is the calm run with the areas mod sets.
func withAreas(t *testing.T, mod func(s *report.Summary)) Run {
	r := calm.run(t)
	mod(r.Summary)
	return r
}

func TestWriteAreas(t *testing.T) {
	tests := []struct {
		name  string
		mod   func(s *report.Summary)
		shown map[string][][]string // section id after the run's: the lines it shows
	}{
		{"none", func(*report.Summary) {}, nil},
		{"input", func(s *report.Summary) { s.MRTR = areaMRTR }, map[string][][]string{"input": areaMRTR.Lines()}},
		{"tasks", func(s *report.Summary) { s.Tasks = areaTasks }, map[string][][]string{"tasks": areaTasks.Lines()}},
		{"gateway", func(s *report.Summary) { s.Gateway = areaGateway }, map[string][][]string{"gateway": areaGateway.Lines()}},
		{"all three", func(s *report.Summary) { s.MRTR, s.Tasks, s.Gateway = areaMRTR, areaTasks, areaGateway },
			map[string][][]string{"input": areaMRTR.Lines(), "tasks": areaTasks.Lines(), "gateway": areaGateway.Lines()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := renderPage(t, Input{Runs: []Run{withAreas(t, tt.mod)}})
			checkSelfContained(t, p)
			for _, id := range []string{"input", "tasks", "gateway"} {
				sec := p.byID("run-1-" + id)
				want, shown := tt.shown[id]
				if !shown {
					if sec != nil {
						t.Errorf("a section %q for a run that had none:\n%s", id, text(sec))
					}
					continue
				}
				if sec == nil {
					t.Fatalf("no section %q", id)
				}
				var got []string
				for _, li := range (parsedPage{root: sec}).byTag("li") {
					got = append(got, text(li))
				}
				if len(got) != len(want) {
					t.Fatalf("section %q has %d lines, want %d:\n%s", id, len(got), len(want), strings.Join(got, "\n"))
				}
				for i, items := range want {
					if w := strings.Join(items, " · "); got[i] != w {
						t.Errorf("section %q line %d:\n got %q\nwant %q", id, i+1, got[i], w)
					}
				}
			}
		})
	}
}

// TestGoldenAreas pins the page of a run with every area: the input
// servers asked for, tasks and a gateway.
func TestGoldenAreas(t *testing.T) {
	var b strings.Builder
	r := withAreas(t, func(s *report.Summary) { s.MRTR, s.Tasks, s.Gateway = areaMRTR, areaTasks, areaGateway })
	if err := Write(&b, Input{Runs: []Run{r}}); err != nil {
		t.Fatal(err)
	}
	got := svgBody.ReplaceAllString(b.String(), "${1}…</svg>")
	testutil.Golden(t, "areas.html.golden", []byte(got))
}
