package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/runtest"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestMcpRemote: mcp-remote 0.15.1, the stdio→HTTP bridge that MCP hosts
// spawn, in front of the built-in target over Streamable HTTP, in each of
// its transport modes that gets there: `--transport http-only`; its
// default, http-first, which would fall back to the 2024-11-05 HTTP+SSE
// transport only on 404 or 405 (the target answers, so it never does);
// and sse-first, which falls back to Streamable HTTP when its first GET is
// answered 405, as a 2026-07-28-only target answers it (with `--protocol
// auto`, without which mcp-remote's own handshake test is a legacy
// initialize that such a target refuses). Its log must say which strategy
// it used, whether it fell back, and that it connected with Streamable
// HTTP. It answers initialize only once its own upstream connection is up
// (about 6 s on a busy machine), so the scenario sets timeouts.connect.
// Our cancels are written on its stdin and our disconnect closes it (mode
// close). Each cancelled call is judged as the target's own records say,
// read here on their own (checkMcpRemote). Its HTTP+SSE modes:
// mcpremote_test.go.
func TestMcpRemote(t *testing.T) {
	remote := mcpRemoteBin(t)
	t.Parallel()
	for _, tc := range []struct {
		name     string
		era      string   // the target's --era
		args     []string // after the URL and --allow-http
		strategy string   // what its log names first
		fallback bool     // it fell back to Streamable HTTP
	}{
		{"http-only", targetserver.EraDual, []string{"--transport", "http-only"}, "http-only", false},
		{"http-first (default)", targetserver.EraDual, nil, "http-first", false},
		{"sse-first, 2026-only target", targetserver.Era2026, []string{"--transport", "sse-first", "--protocol", "auto"}, "sse-first", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := startTarget(t, targetserver.Config{Seed: 1, Era: tc.era})
			argv, stderr := testutil.LogStderr(t, append([]string{remote, "http://" + tg.Addr + "/mcp", "--allow-http"}, tc.args...))
			o := runMcpRemote(t, argv, tg.Addr)
			checkMcpRemote(t, o, "http://"+tg.Addr)
			log := stderr()
			if !strings.Contains(log, "Using transport strategy: "+tc.strategy) ||
				!strings.Contains(log, "Connected to remote server using StreamableHTTPClientTransport") ||
				strings.Contains(log, "Recursively reconnecting for reason: falling-back-to-alternate-transport") != tc.fallback {
				t.Errorf("mcp-remote's log does not say it used %s and connected with Streamable HTTP (fallback: %v):\n%s", tc.strategy, tc.fallback, log)
			}
		})
	}
}

// mcpRemoteBin is the pinned mcp-remote's command (.ci/gateways).
func mcpRemoteBin(t *testing.T) string {
	return filepath.Join(testutil.NpmClients(t, "mcp-remote"), ".bin", "mcp-remote")
}

// mcpRemoteScenario is the scenario of the mcp-remote tests: mcp-remote
// (argv) as a stdio target, the built-in target at truth (host:port) as
// its truth, slow calls with cancels and a disconnect that closes the
// bridge's stdin.
func mcpRemoteScenario(argv []string, truth string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = fmt.Sprintf("%q", a)
	}
	return fmt.Sprintf(`
name: mcp-remote
seed: 7
target: {stdio: {command: [%s]}}
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
`, strings.Join(quoted, ", "), truth)
}

// runMcpRemote runs mcpRemoteScenario.
func runMcpRemote(t *testing.T, argv []string, truth string) outcome {
	t.Helper()
	sc := runtest.Parse(t, mcpRemoteScenario(argv, truth))
	plan := planOf(t, sc)
	quick(&plan)
	return runPlan(t, sc, plan)
}

// checkMcpRemote holds a run through mcp-remote against the target's own
// records (at base): the truth read and joined; no call the bridge's exit
// at our disconnect ended blamed on it as misdirected; gateway.lost_cancels
// equal to the cancelled calls the records show never learned of the
// cancel and ran to their end after it; the verdict a violation exactly
// when there are such calls, and never a pass on truth with holes.
func checkMcpRemote(t *testing.T, o outcome, base string) {
	t.Helper()
	g := o.Sum.Gateway
	if g == nil || g.Calls == 0 || g.TruthUnread != 0 || g.Executions == 0 {
		t.Fatalf("gateway %+v: want the target's truth read and joined", g)
	}
	if g.MisdirectedCancels != 0 {
		t.Errorf("gateway.misdirected_cancels = %d: the bridge's exit at our disconnect blamed on it", g.MisdirectedCancels)
	}
	lost := lostAtTarget(t, base, o)
	if g.LostCancels != lost {
		t.Errorf("gateway.lost_cancels = %d; the target's records show %d cancelled calls that never learned of the cancel and ran to their end after it", g.LostCancels, lost)
	}
	if gv := o.verdict(t, report.AreaGateway); (lost > 0) != (gv.Status == report.StatusViolation) || gv.Status == report.StatusPass && g.Unended+g.Unrecorded > 0 {
		t.Errorf("gateway verdict %q (%s) with %d lost cancels at the target", gv.Status, gv.Evidence, lost)
	}
	checkLostCancelProgress(t, o, base)
	t.Logf("mcp-remote: %d calls, %d cancelled, lost cancels %d, stops %+v, eras %v; the target's records: %s",
		g.Calls, o.Sum.Calls.Cancelled, lost, g.Stops, g.EraSeen, recordsLine(targetCalls(t, base)))
}

// lostAtTarget counts, from the target's own records, our cancelled
// calls that never learned of the cancel and ran to their end after it
// (lostSeqsAtTarget).
func lostAtTarget(t *testing.T, base string, o outcome) int {
	t.Helper()
	return len(lostSeqsAtTarget(t, base, o))
}
