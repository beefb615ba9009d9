package text

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// pinned reads a summary whose JSON report's own tests pin (in
// report/testdata): the text renders what the Aggregator built, as a
// reader of the JSON has it.
func pinned(t testing.TB, name string) *report.Summary {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := report.ReadSummary(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// render writes s as text.
func render(t testing.TB, s *report.Summary) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGoldenText renders the golden run, which exercises every section.
func TestGoldenText(t *testing.T) {
	testutil.Golden(t, "summary.txt.golden", []byte(render(t, pinned(t, "summary.json.golden"))))
}

// TestGoldenGateway renders a run through a gateway that misbehaved in
// every way.
func TestGoldenGateway(t *testing.T) {
	testutil.Golden(t, "gateway.txt.golden", []byte(render(t, pinned(t, "gateway.json.golden"))))
}

// TestGoldenTextEmpty renders a run with no calls, so the "none"
// branches of every section are pinned too.
func TestGoldenTextEmpty(t *testing.T) {
	s := report.NewAggregator(report.Rules{}).Summary(report.Meta{Scenario: "empty", Era: "2025-06-18", Transport: "stdio", Target: "node server.js"})
	testutil.Golden(t, "empty.txt.golden", []byte(render(t, s)))
}

// TestGoldenInput pins the Input block: what servers asked of the client.
func TestGoldenInput(t *testing.T) {
	s := view{&report.Summary{MRTR: report.MRTR{InputRequired: 3, LoadShed: 2, Rounds: 3, Calls: 2, Elicitation: 2, Roots: 3,
		ThinkMs:  report.Latency{P99: 600, Max: 600, Count: 2},
		ServerMs: report.Latency{P50: 50, P99: 300, Max: 300, Count: 2}}}}
	var out textOut
	s.textMRTR(&out)
	testutil.Golden(t, "mrtr.txt.golden", out.b.Bytes())
}

// TestGoldenTasks pins the Tasks block: the tasks a server made.
func TestGoldenTasks(t *testing.T) {
	s := view{&report.Summary{Tasks: report.Tasks{Created: 5, Completed: 3, Failed: 1, Cancelled: 1, Polls: 12, PollThrottled: 2,
		Updates: 1, CancelSent: 1, Leftover: 0, Listened: 2, Pushed: 4, LatencyMs: report.Latency{P50: 420, P99: 1900, Count: 5}}}}
	var out textOut
	s.textTasks(&out)
	testutil.Golden(t, "tasks.txt.golden", out.b.Bytes())
}

func TestTextMarksInterruptedRuns(t *testing.T) {
	s := report.NewAggregator(report.Rules{}).Summary(report.Meta{Scenario: "golden", Era: "2026-07-28", Interrupted: true})
	if out := render(t, s); !strings.Contains(out, "INTERRUPTED") {
		t.Errorf("the text of an interrupted run does not say so:\n%s", out)
	}
}

// TestCancellationWireCounts: the wire's evidence and non-evidence show
// on the cancellation lines (report's TestWireFacts: in the verdict).
func TestCancellationWireCounts(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    report.Cancellation
		text []string
	}{
		{"leftover calls by id", report.Cancellation{Cancels: 4, LeftoverCalls: 12, LeftoverIDs: []int64{3, 7}, LeftoverMaxMs: 950, Counting: 1},
			[]string{"leftover calls 12"}},
		{"queued and cancel answers prove nothing", report.Cancellation{Cancels: 4, LateQueued: 5, CancelAnswers: 4, Counting: 1},
			[]string{"late but queued 5", "answers to the cancel 4"}},
		{"the work grace the verdict is held to", report.Cancellation{Cancels: 4, WorkGraceMs: 300, Counting: 1},
			[]string{"Cancellation  4 cancels   work grace 300ms   late responses 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, &report.Summary{Era: "2026-07-28", Cancellation: tc.c})
			for _, want := range tc.text {
				if !strings.Contains(out, want) {
					t.Errorf("text summary lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestClientLimitBlock: the Client limit block shows only when a limit
// was hit, with the calls not made, the pacer's lag, the advice and an
// example of each.
func TestClientLimitBlock(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    report.ClientLimits
		want []string
	}{
		{"none", report.ClientLimits{}, nil},
		{"out of fds", report.ClientLimits{Hit: true, Calls: 2, FDs: 2, Advice: []string{"out of file descriptors: raise the limit (ulimit -n 65536)"},
			Example: map[string]string{results.LimitFDs: "dial tcp: socket: too many open files"}},
			[]string{"2 calls not made: fds", "ulimit -n", "e.g. dial tcp: socket: too many open files"}},
		{"pacer late", report.ClientLimits{Hit: true, CPU: true, PacerLate: 11, PacerBoundMs: 500, PacerMaxLagMs: 2500, PacerLateSpanMs: 5500},
			[]string{"pacer late 11 ticks (> 500ms behind; max 2.5s; 5.5s of the schedule; 0s behind at the end)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := render(t, &report.Summary{ClientLimits: tc.c})
			if tc.want == nil && strings.Contains(out, "Client limit") {
				t.Errorf("a Client limit block without a limit hit:\n%s", out)
			}
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("the text has no %q:\n%s", want, out)
				}
			}
		})
	}
}
