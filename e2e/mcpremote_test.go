package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// mcp-remote's two modes that start with the 2024-11-05 HTTP+SSE
// transport (a GET that must answer an event stream with an `endpoint`
// event). The built-in target serves only Streamable HTTP: its /mcp
// answers a GET without a session 400, as the 2025 transport says a server
// that needs a session should. So straight at the target both modes fail
// at start (sse-first falls back to Streamable HTTP only on 404 or 405);
// in front of an HTTP+SSE server (`mcpchaos proxy`'s /sse, itself in front
// of the target) sse-only carries the calls, and is held against the
// target's records as the Streamable HTTP modes are (TestMcpRemote).

// TestMcpRemoteSSE: mcp-remote --transport sse-only through an HTTP+SSE
// front (`mcpchaos proxy`, run as a process, no faults of its own) to the
// built-in target: it connects with the SSE transport, and the run is
// judged by the target's own records (checkMcpRemote).
func TestMcpRemoteSSE(t *testing.T) {
	remote := mcpRemoteBin(t)
	t.Parallel()
	tg := startTarget(t, targetserver.Config{Seed: 1})
	front := startSSEFront(t, "http://"+tg.Addr+"/mcp")
	argv, stderr := testutil.LogStderr(t, []string{remote, "http://" + front + "/sse", "--allow-http", "--transport", "sse-only"})
	o := runMcpRemote(t, argv, tg.Addr)
	checkMcpRemote(t, o, "http://"+tg.Addr)
	if log := stderr(); !strings.Contains(log, "Connected to remote server using SSEClientTransport") {
		t.Errorf("mcp-remote's log does not say it connected with the HTTP+SSE transport:\n%s", log)
	}
}

// startSSEFront starts `mcpchaos proxy` with no faults in front of the
// Streamable HTTP server at upstream and returns its address; it serves
// the 2024-11-05 HTTP+SSE transport at /sse.
func startSSEFront(t *testing.T, upstream string) string {
	t.Helper()
	dir := t.TempDir()
	return testutil.StartGateway(t, func(port int) []string {
		path := filepath.Join(dir, "front-"+strconv.Itoa(port)+".yaml")
		conf := fmt.Sprintf("name: sse-front\nlisten: 127.0.0.1:%d\nupstream:\n  http: {url: %q, transport: streamable}\n", port, upstream)
		if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{bin.Need(t), "proxy", path}
	})
}

// TestMcpRemoteSSEAtTarget: mcp-remote in sse-only and in sse-first,
// straight at the built-in target (its default era, dual), which has no
// HTTP+SSE endpoint. Its GET is answered 400 (a GET without a session),
// which is no reason for sse-first to fall back to Streamable HTTP (it
// does on 404 or 405 only: TestMcpRemote's 2026-only case): in both modes
// mcp-remote says so and exits 1 before it answers our first request.
// `mcpchaos run` then stops before any load with exit 2, saying the server
// exited, and the target records no call.
func TestMcpRemoteSSEAtTarget(t *testing.T) {
	remote := mcpRemoteBin(t)
	t.Parallel()
	for _, mode := range []string{"sse-only", "sse-first"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			tg := startTarget(t, targetserver.Config{Seed: 1})
			argv, remoteLog := testutil.LogStderr(t, []string{remote, "http://" + tg.Addr + "/mcp", "--allow-http", "--transport", mode})
			code, stdout, stderr := runScenario(t, mcpRemoteScenario(argv, tg.Addr))
			if code != 2 || !strings.Contains(stderr, "server exited: exit status 1") {
				t.Fatalf("exit status %d, want 2, saying mcp-remote exited 1\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			log := remoteLog()
			if !strings.Contains(log, "Fatal error: SseError: SSE error: Non-200 status code (400)") ||
				strings.Contains(log, "Recursively reconnecting") {
				t.Errorf("mcp-remote's log does not say its SSE GET was refused 400, without a fallback:\n%s", log)
			}
			if calls := targetCalls(t, "http://"+tg.Addr); len(calls) != 0 {
				t.Errorf("the target recorded %d calls, want none: %s", len(calls), recordsLine(calls))
			}
		})
	}
}
