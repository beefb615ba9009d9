package proxy_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/proxy"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

// startStdioProxy starts a proxy whose upstream is `mcpchaos serve
// --stdio` started by the proxy through sh, with everything the proxy
// writes to the server's stdin copied to the file stdin by tee.
func startStdioProxy(t *testing.T, faults string) (p *proxy.Proxy, url, stdin string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stdin = filepath.Join(t.TempDir(), "stdin.jsonl")
	shell := fmt.Sprintf("tee %q | %q serve --stdio", stdin, bin.Need(t))
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
	return p, "http://" + ln.Addr().String() + "/mcp", stdin, stop
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
		scenario := writeFile(t, "run.yaml", `name: stdio-through-proxy
target:
  http: {url: "`+url+`"}
load:
  rate: 2/1s
  duration: 1s
timeouts: {idle: 1s, max: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 40, step_ms: 100}, progress: true}
`)
		ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
		defer cancel()
		if out, err := exec.CommandContext(ctx, bin.Need(t), "run", scenario).CombinedOutput(); err != nil {
			t.Fatalf("mcpchaos run: %v\n%s", err, out)
		}
		stop()
		sum := p.Summary().Clients
		if sum.Calls == 0 || sum.Cancelled != sum.Calls {
			t.Fatalf("want every call cancelled, got %+v\n%s", sum, dump(p.Records()))
		}
		if d := time.Duration(sum.CancelAfterMs.Max * float64(time.Millisecond)); d < 1900*time.Millisecond || d > 12*time.Second {
			t.Errorf("cancelled after up to %v, want about 2s", d)
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
