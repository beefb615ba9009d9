package e2e

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
)

// Real MCP gateways from npm (supergateway, mcp-proxy; .ci/gateways
// installs them, pinned) in front of the built-in target on stdio, whose
// truth is served on its metrics address. The gateway starts the target
// itself, so that address is fixed before the run: a port drawn below the
// ephemeral range (a clash fails the test, saying so in the truth errors).

// truthPort draws the port the gateway's child serves its truth on.
func truthPort() string { return "127.0.0.1:" + strconv.Itoa(20000+rand.IntN(12000)) }

// childTruth is how many truth ports a gateway that starts a child per
// request gets: one per child, each child claiming the next free one.
const childTruth = 24

// childPerRequest returns the shell command (supergateway runs its child
// command with a shell) that starts a built-in target on stdio serving
// its truth on a port of its own: the first of childTruth ports from a
// drawn base that no child claimed before (mkdir is the atomic claim),
// and those ports' addresses for the scenario's gateway.truth.
func childPerRequest(t *testing.T) (command string, truth []string) {
	base := 20000 + rand.IntN(12000-childTruth)
	for i := range childTruth {
		truth = append(truth, "127.0.0.1:"+strconv.Itoa(base+i))
	}
	claims := t.TempDir()
	command = fmt.Sprintf(`i=0; while ! mkdir %q/$i 2>/dev/null; do i=$((i+1)); [ $i -lt %d ] || exit 75; done; exec %q serve --stdio --metrics-listen 127.0.0.1:$((%d+i))`,
		claims, childTruth, bin.Need(t), base)
	return command, truth
}

// viaGateway runs a scenario body (load, calls, faults) of era through the
// gateway at url with the truth at truth.
func viaGateway(t *testing.T, url string, truth []string, era, body string) outcome {
	t.Helper()
	sc := runtest.Parse(t, fmt.Sprintf(`
name: npm-gateway
seed: 7
protocol: %s
target: {http: {url: %q}}
gateway: {truth: ["http://%s"]}
timeouts: {idle: 20s, max: 30s}
orphans: {grace: 200ms}
fail_on_violation: false
%s`, era, url, strings.Join(truth, `", "http://`), body))
	plan := planOf(t, sc)
	quick(&plan)
	return runPlan(t, sc, plan)
}

// TestSupergateway: supergateway 4.0.0 in its two Streamable HTTP modes.
// Stateful (a child per session) passes every call through, and the
// target's records settle the cancellation verdict: each cancelled call
// stopped (pass; on an idle machine, every one). Stateless spawns a child
// per request and kills it after its answer, each child serving its truth
// on a port of its own (childPerRequest): every call reaches a child that
// starts (no "MCP server process failed"), the cancel reaches a fresh
// child, so no cancelled call's record shows it stopped, and the truth
// dies with each child (the children that only took a notification are
// never read): neither verdict may pass, in a 2025 era or in 2026-07-28
// (where our cancel closes the call's stream).
func TestSupergateway(t *testing.T) {
	sg := testutil.NpmGateway(t, "supergateway")
	for _, tc := range []struct {
		name, era string
		stateful  bool
		output    string // supergateway's --outputTransport; "" for streamableHttp
	}{
		{"stateful", "2025-11-25", true, ""},
		{"stateless", "2025-11-25", false, ""},
		{"stateless 2026", "2026-07-28", false, ""},
		// HTTP+SSE: one child for the gateway's life, like stateful.
		{"sse", "2024-11-05", true, "sse"},
	} {
		stateful := tc.stateful
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			truth := []string{truthPort()}
			child := bin.Need(t) + " serve --stdio --metrics-listen " + truth[0]
			if !stateful {
				child, truth = childPerRequest(t)
			}
			output, path := "streamableHttp", "/mcp"
			if tc.output == "sse" {
				output, path = "sse", "/sse"
			}
			addr := testutil.StartGateway(t, func(port int) []string {
				argv := []string{sg, "--stdio", child, "--outputTransport", output, "--port", strconv.Itoa(port), "--logLevel", "none"}
				if stateful && tc.output == "" {
					argv = append(argv, "--stateful")
				}
				return argv
			})
			o := viaGateway(t, "http://"+addr+path, truth, tc.era, `
load: {rate: 5/1s, duration: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 10, step_ms: 100}, progress: true}
faults:
  - {kind: cancel, probability: 0.5, after: 300ms}
`)
			g, gv, cv := o.Sum.Gateway, o.verdict(t, report.AreaGateway), o.verdict(t, report.AreaCancellation)
			cancelled := o.Sum.Calls.Cancelled
			if stateful {
				// The truth covers every call, and the verdicts follow it: on
				// an idle machine every cancelled call stopped and both pass;
				// on a starved one a cancel may reach the target too late,
				// and the records say so (ran_on: a cancellation violation).
				st := g.Stops.Cancelled
				want := report.StatusPass
				if st.RanOn > 0 {
					want = report.StatusViolation
				}
				if cancelled == 0 || st.Unknown != 0 || st.Stopped+st.RanOn != cancelled ||
					gv.Status == report.StatusNotObservable || gv.Status == report.StatusNotExercised ||
					cv.Status != want || (want == report.StatusPass && !strings.Contains(cv.Evidence, "gateway.truth")) {
					t.Errorf("stateful: %d cancelled, stops %+v; gateway %q (%s), cancellation %q (%s): want the truth to cover every call and the cancellation verdict %q",
						cancelled, g.Stops, gv.Status, gv.Evidence, cv.Status, cv.Evidence, want)
				}
				t.Logf("%d calls, %d cancelled; gateway %+v; gateway %q; cancellation %q (%s)", o.Sum.Calls.Total, cancelled, g.GatewayCounts, gv.Status, cv.Status, cv.Evidence)
				if st.RanOn > 0 {
					t.Logf("%d cancelled calls ran on at the target (a slow machine): %s", st.RanOn, cv.Evidence)
				}
				return
			}
			t.Logf("stateless: gateway %+v; gateway %q (%s); cancellation %q (%s)", g.GatewayCounts, gv.Status, gv.Evidence, cv.Status, cv.Evidence)
			if o.Sum.Calls.RPCError != 0 || g.Executions == 0 || cancelled == 0 {
				t.Errorf("stateless: calls %+v, %d executions read: want every child started on its own truth port, some calls cancelled and recorded",
					o.Sum.Calls, g.Executions)
			}
			if st := g.Stops.Cancelled; st.Stopped != 0 {
				t.Errorf("stateless: stops %+v: a cancel never reaches the call's own child, yet a record shows it stopped", st)
			}
			if gv.Status == report.StatusPass || cv.Status == report.StatusPass {
				t.Errorf("stateless: gateway %q (%s), cancellation %q: a pass on partial truth", gv.Status, gv.Evidence, cv.Status)
			}
		})
	}
}

// TestMcpProxyRetryHint: mcp-proxy 6.7.19 in front of a rate-limited
// target on stdio passes the target's JSON-RPC error on as it is, with
// data.retryAfter: the hint reached us, so retry_after_lost is 0.
func TestMcpProxyRetryHint(t *testing.T) {
	mp := testutil.NpmGateway(t, "mcp-proxy")
	t.Parallel()
	truth := []string{truthPort()}
	addr := testutil.StartGateway(t, func(port int) []string {
		return []string{mp, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "--server", "stream", "--",
			bin.Need(t), "serve", "--stdio", "--metrics-listen", truth[0], "--rate-limit", "5/1s"}
	})
	o := viaGateway(t, "http://"+addr+"/mcp", truth, "2025-11-25", `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: echo, arguments: {text: hi}}
`)
	g := o.Sum.Gateway
	if o.Sum.Calls.Throttled == 0 || g.RetryAfterLost != 0 || len(g.Errors) > 0 {
		t.Errorf("throttled %d, retry_after_lost %d, errors %v: want calls throttled with their hint passed on",
			o.Sum.Calls.Throttled, g.RetryAfterLost, g.Errors)
	}
}
