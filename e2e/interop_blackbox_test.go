//go:build timing

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/stepserver"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Black-box interop (issue 25): real servers on the official Go SDK and
// on mark3labs/mcp-go, over stdio and Streamable HTTP, whose tool runs
// CPU-bound steps and logs each one (internal/stepserver). mcpchaos gets
// the default black-box setup — a process probe and nothing else, no
// windows asked for — and its verdict must be what the server's own log
// says: violation when a cut call finished a step later than cut + grace,
// pass when none did.
const interopBlackBoxScenario = `
name: interop-black-box
seed: %d
target:
  %s
load: {rate: 4/1s, duration: 4s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: work, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after_progress: 2}
orphans:
  grace: 300ms
  drain_max: 300ms
%s`

// interopGrace is the scenario's orphans.grace.
const interopGrace = 300 * time.Millisecond

// blackBoxTarget starts (HTTP) or describes (stdio) a step server and
// returns the scenario's target line, its probes and its truth file.
func blackBoxTarget(t *testing.T, c stepserver.Config) (target, probes string) {
	t.Helper()
	env := fmt.Sprintf("%s=%s", stepserver.Env, c)
	truth := fmt.Sprintf("%s=%s", stepserver.TruthEnv, c.Truth)
	if c.Transport == "stdio" {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("stdio: {command: [%q], env: {%s: %q, %s: %q}}", self, stepserver.Env, c.String(), stepserver.TruthEnv, c.Truth), ""
	}
	url, pid := startHelper(t, "step server "+c.String(), env, truth)
	return fmt.Sprintf("http: {url: %q, pid: %d}", url, pid), fmt.Sprintf("  probes:\n    - {process: {pid: %d}}\n", pid)
}

// TestBlackBoxInterop: each real server, leaking or stopping, judged as a
// black box by default settings, against its own log. These runs measure
// CPU, so they do not run in parallel.
func TestBlackBoxInterop(t *testing.T) {
	for _, sdk := range []string{"gosdk", "mcpgo"} {
		for _, transport := range []string{"stdio", "http"} {
			for _, leak := range []bool{true, false} {
				c := stepserver.Config{SDK: sdk, Transport: transport, Leak: leak}
				t.Run(c.String(), func(t *testing.T) {
					c.Truth = filepath.Join(t.TempDir(), "truth")
					target, probes := blackBoxTarget(t, c)
					sc := runtest.Parse(t, fmt.Sprintf(interopBlackBoxScenario, 25, target, probes))
					plan := planOf(t, sc)
					quick(&plan)
					o := runPlan(t, sc, plan)
					checkAgainstLog(t, o, c)
				})
			}
		}
	}
}

// checkAgainstLog holds the cancellation verdict against the server's log.
func checkAgainstLog(t *testing.T, o outcome, c stepserver.Config) {
	t.Helper()
	last, err := stepserver.LastSteps(c.Truth)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]results.Record, len(o.Recs))
	for i, r := range o.Recs {
		recs[i] = *r
	}
	j := stepserver.Judge(recs, last, interopGrace)
	want := report.StatusPass
	if j.Violation() {
		want = report.StatusViolation
	}
	v := o.verdict(t, report.AreaCancellation)
	t.Logf("server log: %d calls cut, %d ran on past cut + grace (ids %v, up to %v after the cut); verdict %q (%s)",
		j.Cut, len(j.Leaked), j.Leaked, j.MaxAfter, v.Status, v.Evidence)
	if j.Cut == 0 {
		t.Fatalf("no call was cut: the run exercised nothing")
	}
	if c.Leak && !j.Violation() {
		t.Fatalf("the leaking server's log shows no step past cut + grace (a starved machine?); the case needs one")
	}
	if !c.Leak && j.Violation() {
		t.Logf("the stopping server's log shows %d steps past cut + grace: it stopped late", len(j.Leaked))
	}
	switch p := o.Sum.Cancellation.ProcessCPU; {
	case v.Status == want:
	case j.Marginal(interopGrace, marginalRunOn) && v.Status == report.StatusPass:
		// A call that heard its cancel late on a starved machine and ran a
		// few ms past cut + grace: less than any probe can tell.
		t.Logf("marginal: the longest run-on was %v past cut + grace; the verdict is %q", j.MaxAfter-interopGrace, v.Status)
	case want == report.StatusPass && v.Status == report.StatusNotObservable && p != nil && p.PerCallS < starvedPerCall:
		t.Logf("machine saturated: %.3f CPU-s per live call-second; the verdict is %q", p.PerCallS, v.Status)
	case v.Status == report.StatusNotObservable && starvedRun(o.Sum.Cancellation):
		// Never a false pass or a false violation: the machine starved the
		// evidence (report/verdict/starved.go).
		t.Logf("starved run: the verdict is %q (%s)", v.Status, v.Evidence)
	default:
		t.Errorf("cancellation verdict = %q, the server's own log says %q", v.Status, want)
	}
}

// marginalRunOn is how far past cut + grace a call may run on for either
// verdict to be taken (see stepserver.Judgement.Marginal).
const marginalRunOn = 100 * time.Millisecond
