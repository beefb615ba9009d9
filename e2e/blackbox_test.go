//go:build timing

package e2e

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/report"
)

// The default black-box setup (issue 25): a process probe on the server's
// pid and nothing else, no orphans.windows. mcpchaos takes quiet windows
// of its own accord, so a server that keeps cut calls running is a
// violation and one that stops them passes. The built-in target runs in
// its own process; its leftover-CPU counter is the truth.
const blackBoxScenario = `
name: black-box
seed: 25
target:
  http: {url: %q, pid: %d}
load: {rate: 4/1s, duration: 4s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: slow_task, arguments: {steps: 16, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after: "uniform(100ms, 400ms)"}
orphans:
  grace: 300ms
  drain_max: 300ms
  probes:
    - {process: {pid: %d}}
`

// TestDefaultBlackBox: no windows asked for, only a process probe: the
// run takes its own windows and says so; the verdict follows the target's
// own ledger of leftover CPU. A cut call leaves at least 1.2 s of work, so
// that a window sees it above the idle noise band of a busy machine (60 ms
// per second was seen). These runs measure CPU, so they do not run in
// parallel.
func TestDefaultBlackBox(t *testing.T) {
	for _, tc := range []struct {
		name, knobs string
		want        string
	}{
		{"burn/runs-on", "era=2026,burn_cpu=true,propagate_cancel=false", report.StatusViolation},
		{"burn/stops", "era=2026,burn_cpu=true", report.StatusPass},
		{"sleep/runs-on", "era=2026,propagate_cancel=false", report.StatusNotObservable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, pid, file := builtinServer(t, tc.knobs)
			truth := counterTruth(t, file)
			sc := runtest.Parse(t, fmt.Sprintf(blackBoxScenario, url, pid, pid))
			plan := planOf(t, sc)
			quick(&plan)
			o := runPlan(t, sc, plan)
			w := o.Sum.Cancellation.Windows
			if !w.Auto || w.Count == 0 || w.Cancelled == 0 {
				t.Fatalf("windows: auto %v, count %d, cancelled %d; want windows taken by mcpchaos that cut calls", w.Auto, w.Count, w.Cancelled)
			}
			leftover := truth(time.Time{}, time.Now().Add(time.Hour))
			t.Logf("target's leftover CPU %.3f s; windows saw %.3f ± %.3f s", leftover, w.LeftoverCPUS, w.NoiseCPUS)
			switch tc.want {
			case report.StatusViolation:
				if leftover < 0.1 {
					t.Fatalf("the target burnt only %.3f CPU-s after its cuts (a starved machine?); the case needs more", leftover)
				}
			case report.StatusPass, report.StatusNotObservable:
				if leftover != 0 {
					t.Fatalf("the target burnt %.3f CPU-s after its cuts with every cancel honoured, want 0", leftover)
				}
			}
			t.Logf("process_cpu %+v", o.Sum.Cancellation.ProcessCPU)
			checkVerdict(t, o, tc.want)
		})
	}
}
