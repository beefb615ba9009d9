package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestMcpRemote: mcp-remote 0.15.1, the stdio→HTTP bridge that MCP hosts
// spawn, in front of the built-in target over HTTP. It answers initialize
// only once its own upstream connection is up (about 6 s on a busy
// machine), so the scenario sets timeouts.connect. Our cancels are
// written on its stdin and our disconnect closes it (mode close). Each
// cancelled call is judged as the target's own records say, read here
// on their own: a call whose record never learned of a cancel and ran to
// its end well after ours is a lost cancel, and the bridge's exit ends
// its calls in flight upstream, which is our doing, never misdirection.
func TestMcpRemote(t *testing.T) {
	remote := filepath.Join(testutil.NpmClients(t, "mcp-remote"), ".bin", "mcp-remote")
	t.Parallel()
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{Seed: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	sc := runtest.Parse(t, fmt.Sprintf(`
name: mcp-remote
seed: 7
target: {stdio: {command: [%q, "http://%s/mcp", --allow-http, --transport, http-only]}}
gateway: {truth: ["http://%s"]}
load: {rate: 5/1s, duration: 2s}
timeouts: {idle: 20s, max: 30s, connect: 60s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.4, after: 300ms}
  - {kind: disconnect, probability: 0.15, after: 400ms, mode: close}
orphans: {grace: 200ms}
fail_on_violation: false
`, remote, tg.Addr, tg.Addr))
	plan := planOf(t, sc)
	quick(&plan)
	o := runPlan(t, sc, plan)
	g := o.Sum.Gateway
	if g == nil || g.Calls == 0 || g.TruthUnread != 0 || g.Executions == 0 {
		t.Fatalf("gateway %+v: want the target's truth read and joined", g)
	}
	if g.MisdirectedCancels != 0 {
		t.Errorf("gateway.misdirected_cancels = %d: the bridge's exit at our disconnect blamed on it", g.MisdirectedCancels)
	}
	lost := lostAtTarget(t, "http://"+tg.Addr, o)
	if g.LostCancels != lost {
		t.Errorf("gateway.lost_cancels = %d; the target's records show %d cancelled calls that never learned of the cancel and ran to their end after it", g.LostCancels, lost)
	}
	if gv := o.verdict(t, report.AreaGateway); (lost > 0) != (gv.Status == report.StatusViolation) || gv.Status == report.StatusPass && g.Unended+g.Unrecorded > 0 {
		t.Errorf("gateway verdict %q (%s) with %d lost cancels at the target", gv.Status, gv.Evidence, lost)
	}
	t.Logf("mcp-remote: %d calls, %d cancelled, lost cancels %d, stops %+v", g.Calls, o.Sum.Calls.Cancelled, lost, g.Stops)
}

// lostAtTarget counts, from the target's own records, our cancelled
// calls (a cancel or a timeout, not a disconnect) that no execution
// learned of and that ran to their end more than 100 ms after our cancel
// went out.
func lostAtTarget(t *testing.T, base string, o outcome) int {
	t.Helper()
	cancelAt := map[string]time.Time{} // by seq
	for _, r := range o.Recs {
		if r.Outcome == results.Cancelled && r.CancelSentUs > 0 {
			cancelAt[fmt.Sprint(r.Seq)] = r.Scheduled.Add(time.Duration(r.CancelSentUs) * time.Microsecond)
		}
	}
	n := 0
	for _, c := range targetCalls(t, base) {
		parts := strings.Split(c.Marker, ".") // RUN.SEQ.ATTEMPT
		at, ok := time.Time{}, false
		if len(parts) == 3 {
			at, ok = cancelAt[parts[1]]
		}
		if ok && c.Cancelled.IsZero() && c.StreamClosed.IsZero() && c.Completed.After(at.Add(100*time.Millisecond)) {
			n++
		}
	}
	return n
}
