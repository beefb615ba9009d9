//go:build timing

package e2e

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
)

// The black-box matrix (issue 25), in the timing tier: the built-in target
// in its own process, seen only through a process probe on its pid (no
// windows asked for), under continuous ramped load with cancels and
// disconnects. Its own truth records (GET /calls: when each call's
// handler ended) are the ledger: the verdict must be violation when a cut
// call's handler ended later than cut + grace, pass when none did, and
// not_observable only for sleeping work. Three runs each.
//
//	go test -race -tags timing -run TestBlackBoxMatrix ./e2e
const matrixScenario = `
name: black-box-matrix
seed: %d
target:
  http: {url: %q, pid: %d}
load:
  stages: [{to: 8/1s, over: 4s}]
  duration: 1s
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 8, step_ms: 120}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.5, tools: [slow_task], after_progress: 2}
  - {kind: disconnect, probability: 0.05, tools: [slow_task], after: "uniform(100ms, 500ms)", mode: rst}
orphans:
  grace: 300ms
  drain_max: 300ms
  probes:
    - {process: {pid: %d}}
`

const matrixGrace = 300 * time.Millisecond

func TestBlackBoxMatrix(t *testing.T) {
	for _, tc := range []struct {
		name, knobs string
		sleeping    bool
	}{
		{"burn/stops", "burn_cpu=true", false},
		{"burn/leak-0.3", "burn_cpu=true,leak_on_cancel=0.3", false},
		{"burn/leak-all", "burn_cpu=true,leak_on_cancel=1", false},
		{"burn/stop-delay-100ms", "burn_cpu=true,stop_delay=100ms", false},
		{"burn/stop-delay-800ms", "burn_cpu=true,stop_delay=800ms", false},
		{"sleep/leak-all", "leak_on_cancel=1", true},
	} {
		for run := 1; run <= 3; run++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, run), func(t *testing.T) {
				url, pid, _ := builtinServer(t, "era=2026,"+tc.knobs)
				sc := runtest.Parse(t, fmt.Sprintf(matrixScenario, 100+run, url, pid, pid))
				o := runPlan(t, sc, planOf(t, sc))
				leaked, cut, over := ledger(t, strings.TrimSuffix(url, "/mcp"), o)
				want := report.StatusPass
				switch {
				case leaked > 0 && tc.sleeping:
					want = report.StatusNotObservable
				case leaked > 0:
					want = report.StatusViolation
				}
				v := o.verdict(t, report.AreaCancellation)
				t.Logf("ledger: %d of %d cut calls ran past cut + grace; verdict %q (%s)", leaked, cut, v.Status, v.Evidence)
				if cut == 0 {
					t.Fatal("no call was cut")
				}
				switch {
				case v.Status == want:
				case want == report.StatusViolation && v.Status == report.StatusPass && over < marginalRunOn:
					// Starved, a call heard its cancel late and ran a few ms
					// past cut + grace: less than any probe can tell.
					t.Logf("marginal: the longest run-on was %v past cut + grace; the verdict is %q", over, v.Status)
				default:
					t.Errorf("cancellation verdict = %q, the target's ledger says %q", v.Status, want)
				}
			})
		}
	}
}

// ledger joins the run's cut calls with the target's truth records by
// request id: a call leaked when its handler ended later than its cut
// plus the grace, or had not ended at all; over is the longest time past
// cut + grace a leaked call ran.
func ledger(t *testing.T, base string, o outcome) (leaked, cut int, over time.Duration) {
	t.Helper()
	tr := probes.NewTruth(base, "")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := tr.Read(ctx); err != nil {
		t.Fatal(err)
	}
	ended := map[string]time.Time{}
	for _, c := range tr.Calls() {
		end := c.Ended
		if end.IsZero() {
			end = time.Now()
		}
		ended[c.RequestID] = end
	}
	for _, r := range o.Recs {
		if r.CancelUs <= 0 {
			continue
		}
		cut++
		at := r.Scheduled.Add(time.Duration(max(r.CancelUs, r.CancelSentUs)) * time.Microsecond) // the cancel was out
		if end, ok := ended[strconv.FormatInt(r.ID, 10)]; ok && end.After(at.Add(matrixGrace)) {
			leaked++
			over = max(over, end.Sub(at.Add(matrixGrace)))
		}
	}
	return leaked, cut, over
}
