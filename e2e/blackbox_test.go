//go:build timing

package e2e

import (
	"fmt"
	"strings"
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

// mixedBlackBoxScenario is the default black-box setup over a load of two
// tools: the faults cut slow_task only, and cpu_task, never cut, burns
// 0.25 CPU-s a call.
const mixedBlackBoxScenario = `
name: black-box-mixed
seed: 25
target:
  http: {url: %q, pid: %d}
load: {rate: 5/1s, duration: 6s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: cpu_task, arguments: {steps: 5, step_ms: 50}}
  - {tool: slow_task, arguments: {steps: 16, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after: "uniform(100ms, 400ms)", tools: [slow_task]}
orphans:
  grace: 300ms
  drain_max: 300ms
  probes:
    - {process: {pid: %d}}
`

// TestMixedBlackBox: the tool the faults cut sleeps, another tool burns.
// Over the whole load the process's CPU per live call-second is well above
// what a process probe needs, and every window sees the cut calls "stop";
// measured while its calls ran alone the cut tool costs next to nothing,
// so a server that runs them on is not_observable, never pass (a new
// user's trial found that false pass). When the cut tool burns, its leak
// is still seen beside the other tool.
func TestMixedBlackBox(t *testing.T) {
	for _, tc := range []struct {
		name, knobs string
		want        string
	}{
		{"sleeping cut tool runs on", "era=2026,propagate_cancel=false", report.StatusNotObservable},
		{"burning cut tool runs on", "era=2026,burn_cpu=true,propagate_cancel=false", report.StatusViolation},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url, pid, _ := builtinServer(t, tc.knobs)
			sc := runtest.Parse(t, fmt.Sprintf(mixedBlackBoxScenario, url, pid, pid))
			plan := planOf(t, sc)
			quick(&plan)
			o := runPlan(t, sc, plan)
			c := o.Sum.Cancellation
			t.Logf("cut tools %v; process_cpu %+v", c.CutTools, c.ProcessCPU)
			if c.CutTools["slow_task"] == 0 || c.CutTools["cpu_task"] != 0 {
				t.Fatalf("cut tools %v, want slow_task's calls only", c.CutTools)
			}
			p := c.ProcessCPU
			if p == nil || len(p.Tools) != 2 {
				t.Fatalf("process_cpu %+v: want the two tools' figures", p)
			}
			if tc.want == report.StatusNotObservable {
				v := o.verdict(t, report.AreaCancellation)
				if v.Status != tc.want {
					t.Fatalf("cancellation verdict = %q (%s), want %q", v.Status, v.Evidence, tc.want)
				}
				// Where the whole load looked visible (the false pass of
				// old), the reason is the cut tool's own figure. A machine
				// that starved the load reads under it anyway.
				if p.PerCallS >= 0.05 && !strings.Contains(v.Evidence, "slow_task (") {
					t.Fatalf("the load read %.3f CPU-s per live call-second; the evidence %q does not name slow_task's figure", p.PerCallS, v.Evidence)
				}
				return
			}
			checkVerdict(t, o, tc.want)
		})
	}
}
