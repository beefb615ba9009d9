package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestNginxBufferingAfterProgress: behind nginx's default buffering
// (examples/gateways/nginx-buffering.conf) each call's progress arrives in
// one piece with its result. A cancel due at the 3rd notification then
// finds the call answered: it is skipped, the call is ok with no late
// response, and gateway.progress_held counts it; the gateway join of the
// target's records has one execution per call and no cancelled call
// stopped or run on. (Before,
// every such call was counted cancelled, with a late response.)
func TestNginxBufferingAfterProgress(t *testing.T) {
	t.Parallel()
	testutil.NginxBinary(t)
	target := startTarget(t, targetserver.Config{})
	ng := startExampleNginx(t, "nginx-buffering.conf", target)
	// timeouts.idle 20s: the fault's time fallback (half of it) is far
	// beyond each call's second.
	sc := runtest.Parse(t, fmt.Sprintf(`
name: nginx-burst
seed: 16
target: {http: {url: %q}}
gateway: {truth: ["http://%s"]}
load: {rate: 4/1s, duration: 2s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 1, after_progress: 3}
orphans: {grace: 200ms}
fail_on_violation: false
`, ng.URL("/mcp"), target.Addr))
	plan := planOf(t, sc)
	quick(&plan)
	o := runPlan(t, sc, plan)
	if len(o.Recs) == 0 {
		t.Fatal("no calls")
	}
	for _, rec := range o.Recs {
		if rec.Outcome != results.OK || rec.LateResponses != 0 || len(rec.Faults) != 1 || !rec.Faults[0].Skipped ||
			!strings.Contains(rec.Faults[0].Detail, "in one piece with the answer") {
			t.Errorf("call %d: outcome %s, late responses %d, faults %+v; want ok, the cancel skipped for the burst",
				rec.Seq, rec.Outcome, rec.LateResponses, rec.Faults)
		}
	}
	g := o.Sum.Gateway
	if g.ProgressHeld != len(o.Recs) || g.LostCancels != 0 || g.Executions != len(o.Recs) || g.Stops.Cancelled.Stopped+g.Stops.Cancelled.RanOn != 0 {
		t.Errorf("gateway: progress_held %d, lost_cancels %d, executions %d, stops %+v of %d calls; want every call held and none cancelled",
			g.ProgressHeld, g.LostCancels, g.Executions, g.Stops, len(o.Recs))
	}
}
