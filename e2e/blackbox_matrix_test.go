//go:build timing

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// The black-box matrix (issue 25), in the timing tier: the built-in target
// in its own process, seen only through a process probe on its pid (no
// windows asked for), under continuous ramped load with cancels and
// disconnects (cancels alone over stdio, where a disconnect ends the
// server). Its own truth records (GET /calls, or on stdio the same
// records written when its run ends: when each call's handler ended) are
// the ledger: the verdict must be violation when a cut call's handler
// ended later than cut + grace, pass when none did, and not_observable
// only for sleeping work. Three runs each.
//
//	go test -race -tags timing -run TestBlackBoxMatrix ./e2e
const matrixScenario = `
name: black-box-matrix
seed: %d
target:
  %s
load:
  stages: [{to: 8/1s, over: 4s}]
  duration: 1s
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: slow_task, weight: 3, arguments: {steps: 8, step_ms: 120}, progress: true}
  - {tool: echo, weight: 1, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.5, tools: [slow_task], after_progress: 2}
%sorphans:
  grace: 300ms
  drain_max: 300ms
%s`

// matrixDisconnects is the scenario's disconnect fault over HTTP.
const matrixDisconnects = `  - {kind: disconnect, probability: 0.05, tools: [slow_task], after: "uniform(100ms, 500ms)", mode: rst}
`

const matrixGrace = 300 * time.Millisecond

func TestBlackBoxMatrix(t *testing.T) {
	for _, tc := range []struct {
		name, knobs string
		sleeping    bool
		stdio       bool
	}{
		{"burn/stops", "burn_cpu=true", false, false},
		{"burn/leak-0.3", "burn_cpu=true,leak_on_cancel=0.3", false, false},
		{"burn/leak-all", "burn_cpu=true,leak_on_cancel=1", false, false},
		{"burn/stop-delay-100ms", "burn_cpu=true,stop_delay=100ms", false, false},
		// A small, steady leak: every cut call stops 300 ms past the grace,
		// about 300 ms of CPU in the window that follows a cut. A window's
		// threshold is 3 × the idle noise + 10 ms: 30–46 ms mostly, but 94 ms
		// in one CI run whose idle noise read ±28 ms/s, which passed a leak
		// of 100 ms past the grace (stop_delay 400ms, 88–120 ms read), and
		// 204 ms in another (±64.7 ms/s, other packages' tests beside it),
		// which passed one of 200 ms (stop_delay 500ms, 187 ms read;
		// docs/decisions.md, the sixth run). The matrix asserts leaks the
		// window can resolve; the agreement benchmark counts the marginal.
		{"burn/stop-delay-600ms", "burn_cpu=true,stop_delay=600ms", false, false},
		{"burn/stop-delay-800ms", "burn_cpu=true,stop_delay=800ms", false, false},
		{"sleep/leak-all", "leak_on_cancel=1", true, false},
		// Over stdio: the fences weigh the late messages, and the process
		// is mcpchaos's own child.
		{"stdio/burn/stops", "burn_cpu=true", false, true},
		{"stdio/burn/leak-all", "burn_cpu=true,leak_on_cancel=1", false, true},
	} {
		for run := 1; run <= 3; run++ {
			t.Run(fmt.Sprintf("%s/%d", tc.name, run), func(t *testing.T) {
				target, probes, truth := matrixTarget(t, tc.knobs, tc.stdio)
				disconnects := matrixDisconnects
				if tc.stdio {
					disconnects = "" // a disconnect on stdio ends the server process, and its ledger
				}
				sc := runtest.Parse(t, fmt.Sprintf(matrixScenario, 100+run, target, disconnects, probes))
				o := runPlan(t, sc, planOf(t, sc))
				leaked, cut, over, missing := ledger(truth(), o)
				if missing > 0 {
					t.Fatalf("%d cut calls have no truth record: the ledger cannot judge them", missing)
				}
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

// matrixTarget starts the built-in target with knobs over HTTP in a
// process of its own (a process probe on its pid), or describes it as a
// stdio command (mcpchaos starts it and probes it); truth reads its truth
// records once the run is over.
func matrixTarget(t *testing.T, knobs string, stdio bool) (target, probeLines string, truth func() []results.TruthCall) {
	t.Helper()
	if stdio {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		file := t.TempDir() + "/truth.json"
		target = fmt.Sprintf("stdio: {command: [%q], env: {%s: %q, %s: %q, %s: %q}}", self,
			helperEnv, helperBuiltinStdio, knobsEnv, "era=2026,"+knobs, truthEnv, file)
		return target, "", func() []results.TruthCall { return stdioTruth(t, file) }
	}
	url, pid, _ := builtinServer(t, "era=2026,"+knobs)
	target = fmt.Sprintf("http: {url: %q, pid: %d}", url, pid)
	probeLines = fmt.Sprintf("  probes:\n    - {process: {pid: %d}}\n", pid)
	return target, probeLines, func() []results.TruthCall {
		tr := probes.NewTruth(strings.TrimSuffix(url, "/mcp"), "")
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := tr.Read(ctx); err != nil {
			t.Fatal(err)
		}
		return tr.Calls()
	}
}

// stdioTruth reads the truth records the stdio helper wrote when its run
// ended.
func stdioTruth(t *testing.T, file string) []results.TruthCall {
	t.Helper()
	testutil.Eventually(t, "the stdio target's truth records", func() bool {
		_, err := os.Stat(file)
		return err == nil
	})
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var page results.TruthPage
	if err := json.Unmarshal(b, &page); err != nil {
		t.Fatalf("truth records %s: %v", file, err)
	}
	return page.Calls
}

// ledger joins the run's cut calls with the target's truth records by
// request id: a call leaked when its handler ended later than its cut
// plus the grace, or had not ended at all; over is the longest time past
// cut + grace a leaked call ran; missing counts the cut calls the server
// worked on (progress came) and has no record of: an id that does not
// match would otherwise pass every case.
func ledger(calls []results.TruthCall, o outcome) (leaked, cut int, over time.Duration, missing int) {
	ended := map[string]time.Time{}
	for _, c := range calls {
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
		end, ok := ended[strconv.FormatInt(r.ID, 10)]
		switch {
		case !ok && r.FirstProgUs > 0:
			missing++ // the server worked on it (progress came) and has no record
		case ok && end.After(at.Add(matrixGrace)):
			leaked++
			over = max(over, end.Sub(at.Add(matrixGrace)))
		}
	}
	return leaked, cut, over, missing
}
