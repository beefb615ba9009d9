package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// startStdioProxy starts a proxy whose upstream is `mcpchaos serve
// --stdio` started by the proxy through sh, with everything the proxy
// writes to the server's stdin copied to the file stdin by tee.
func startStdioProxy(t *testing.T, faults string) (p *proxy.Proxy, url, stdin string, stop func()) {
	t.Helper()
	return startStdioProxyWith(t, faults, "")
}

// startStdioProxyWith is startStdioProxy with more of the server's
// command line (shell words, after serve --stdio).
func startStdioProxyWith(t *testing.T, faults, serveArgs string) (p *proxy.Proxy, url, stdin string, stop func()) {
	t.Helper()
	stdin = filepath.Join(t.TempDir(), "stdin.jsonl")
	p, url, stop = startStdioProxyShell(t, faults, fmt.Sprintf("tee %q | %q serve --stdio %s", stdin, bin.Need(t), serveArgs))
	return p, url, stdin, stop
}

// startStdioProxyShell starts a proxy whose upstream is the shell
// command line shell, run by sh -c.
func startStdioProxyShell(t *testing.T, faults, shell string) (p *proxy.Proxy, url string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	file := fmt.Sprintf("listen: %s\nupstream: {stdio: {command: [sh, -c, %q]}}\nhold: 1m\nfaults:\n%s", ln.Addr(), shell, faults)
	pf, err := scenarios.ParseProxy("stdio.yaml", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	p, err = proxy.New(pf)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckUpstream(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- p.Serve(ctx, ln) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			testutil.Receive(t, "the proxy to stop", served)
		}
	}
	t.Cleanup(stop)
	return p, "http://" + ln.Addr().String() + "/mcp", stop
}

// TestStdioUpstream: the proxy starts a stdio server and forwards HTTP
// clients to it. The SDK client's calls are answered (progress routed by
// token, ids restored), and `mcpchaos run` behind progress_endless
// cancels at its 2s cap, which the proxy passes on as a stdio cancel.
func TestStdioUpstream(t *testing.T) {
	t.Run("SDK client, no fault", func(t *testing.T) {
		p, url, _, stop := startStdioProxy(t, "  []\n")
		cs := sdkSession(t, url, "")
		for i := range 3 {
			res, err := cs.CallTool(t.Context(), slowTask(2))
			if err != nil || res == nil || res.IsError {
				t.Fatalf("call %d: %v, %v", i, res, err)
			}
		}
		stop()
		if sum := p.Summary().Clients; sum.Calls != 3 {
			t.Fatalf("got %+v\n%s", sum, dump(p.Records()))
		}
	})
	t.Run("mcpchaos run behind progress_endless", func(t *testing.T) {
		p, url, stdin, stop := startStdioProxy(t, "  - {kind: progress_endless}\n")
		// slow_task runs 4s: still running upstream when the client's
		// cap cancels it at 2s.
		runScenario(t, `name: stdio-through-proxy
target:
  http: {url: "`+url+`"}
load:
  rate: 2/1s
  duration: 1s
timeouts: {idle: 2s, max: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 40, step_ms: 100}, progress: true}
`, nil)
		stop()
		sum := p.Summary().Clients
		if sum.Calls == 0 || sum.Cancelled != sum.Calls {
			t.Fatalf("want every call cancelled, got %+v\n%s", sum, dump(p.Records()))
		}
		// The cap (or the idle timeout as long, had a busy machine held
		// progress back 2 s), never before its 2 s; how soon after is a
		// busy machine's.
		if d := time.Duration(sum.CancelAfterMs.Max * float64(time.Millisecond)); d < 1900*time.Millisecond {
			t.Errorf("cancelled after up to %v, want the 2s cap", d)
		}
		// The server got a stdio cancel for every call, with the proxy's
		// ids: the clients' 2026 cancel passed through.
		b, err := os.ReadFile(stdin)
		if err != nil {
			t.Fatal(err)
		}
		if n := int64(strings.Count(string(b), `"method":"notifications/cancelled"`)); n != sum.Calls {
			t.Errorf("the server got %d notifications/cancelled for %d cancelled calls:\n%s", n, sum.Calls, b)
		}
	})
}

// TestStdioFront spawns `mcpchaos proxy --stdio` as the Go SDK client's
// stdio server (2026-07-28 over stdio), in front of the built-in HTTP
// target: a plain call is answered, and a call behind progress_endless
// cancelled by the client's 1s deadline is recorded as cancelled by
// notification (the stdio cancel) and passed on to the target; the
// summary is written when the client closes the proxy's stdin.
func TestStdioFront(t *testing.T) {
	target, err := targetserver.StartHTTP(t.Context(), targetserver.Config{}, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { target.Close() })
	dir := t.TempDir()
	file := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nupstream: {http: {url: %q}}\nfaults:\n  - {kind: progress_endless, tools: [slow_task]}\n", target.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	sumPath := filepath.Join(dir, "s.json")
	cmd := exec.Command(bin.Need(t), "proxy", "--stdio", "--summary-json", sumPath, "--output", filepath.Join(dir, "calls.jsonl"), file)
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect over stdio to mcpchaos proxy --stdio: %v", err)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "through"}})
	if err != nil || res == nil || res.IsError {
		t.Fatalf("echo: %v, %v", res, err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, slowTask(60)); err == nil { // 3s upstream
		t.Fatal("slow_task behind progress_endless: want the deadline's error")
	}
	// The SDK writes its notifications/cancelled after CallTool returns:
	// wait until the target saw the call cancelled (the proxy closes the
	// upstream request after it recorded the notification), then close.
	testutil.Eventually(t, "the target to see the cancel", func() bool { return target.Server.Stats().Cancelled == 1 })
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	var sum struct {
		Clients map[string]any `json:"clients"`
	}
	testutil.Eventually(t, "the summary", func() bool {
		b, err := os.ReadFile(sumPath)
		return err == nil && json.Unmarshal(b, &sum) == nil
	})
	cl := sum.Clients
	if cl["calls"] != 2.0 || cl["cancelled"] != 1.0 || cl["cancelled_by_notification"] != 1.0 {
		calls, _ := os.ReadFile(filepath.Join(dir, "calls.jsonl"))
		t.Fatalf("want 2 calls, 1 cancelled by notification: %v\n%s", cl, calls)
	}
}
