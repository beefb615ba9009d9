package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestBridgeCutIsOurs: through a stdio→HTTP bridge (`mcpchaos proxy
// --stdio`, in front of a built-in target over HTTP), our `disconnect`
// fault closes the bridge's stdin; the bridge ends every call in flight
// on it, and the target sees each of them cancelled a few ms after the
// fault's own call. Those are collateral of our fault, never the
// gateway's misdirected_cancels; the targets' records (read here on
// their own) show such calls, and the gateway section counts them under
// stops.disconnected.
func TestBridgeCutIsOurs(t *testing.T) {
	t.Parallel()
	tg, err := targetserver.StartHTTP(context.Background(), targetserver.Config{Seed: 1}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tg.Close() })
	dir := t.TempDir()
	bridge := filepath.Join(dir, "bridge.yaml")
	conf := fmt.Sprintf("name: bridge\nlisten: 127.0.0.1:1\nupstream:\n  http: {url: \"http://%s/mcp\"}\n", tg.Addr)
	if err := os.WriteFile(bridge, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	sc := runtest.Parse(t, fmt.Sprintf(`
name: bridge-cut
seed: 7
protocol: 2026-07-28
target: {stdio: {command: [%q, proxy, --stdio, %q]}}
gateway: {truth: ["http://%s"]}
load: {rate: 8/1s, duration: 2s}
timeouts: {idle: 20s, max: 30s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: disconnect, probability: 0.3, after: 400ms, mode: close}
orphans: {grace: 200ms}
fail_on_violation: false
`, bin.Need(t), bridge, tg.Addr))
	plan := planOf(t, sc)
	quick(&plan)
	o := runPlan(t, sc, plan)
	g := o.Sum.Gateway
	if g == nil {
		t.Fatal("no gateway section")
	}
	ours := map[string]bool{} // markers of the calls the fault cut itself
	for _, r := range o.Recs {
		if r.Outcome == results.Disconnected {
			ours[fmt.Sprintf("%d", r.Seq)] = true
		}
	}
	collateral := collateralAtTarget(t, "http://"+tg.Addr, ours)
	if collateral == 0 {
		t.Fatal("the target saw no call ended beside a cut one: the test proves nothing")
	}
	if g.MisdirectedCancels != 0 {
		t.Errorf("gateway.misdirected_cancels = %d: our own cut of the bridge blamed on it", g.MisdirectedCancels)
	}
	d := g.Stops.Disconnected
	if n := d.Stopped + d.RanOn + d.Unknown; n < collateral {
		t.Errorf("gateway.stops.disconnected %+v: %d calls, want at least the %d the target saw ended beside a cut", g.Stops.Disconnected, n, collateral)
	}
}

// collateralAtTarget counts the target's records of calls cancelled at
// the target that we neither cancelled nor cut ourselves (seq not in
// ours): the calls a cut bridge ended.
func collateralAtTarget(t *testing.T, base string, ours map[string]bool) int {
	t.Helper()
	n := 0
	for _, c := range targetCalls(t, base) {
		parts := strings.Split(c.Marker, ".") // RUN.SEQ.ATTEMPT
		if len(parts) == 3 && !c.Cancelled.IsZero() && !ours[parts[1]] {
			n++
		}
	}
	return n
}

// targetCalls reads a built-in target's own records (GET /calls).
func targetCalls(t *testing.T, base string) []results.TruthCall {
	t.Helper()
	resp, err := http.Get(base + "/calls")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p results.TruthPage
	if err := json.NewDecoder(resp.Body).Decode(&p); err != nil {
		t.Fatal(err)
	}
	return p.Calls
}
