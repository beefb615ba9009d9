package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// The helper servers below are written with the official Go SDK, the way a
// server author would write them, and run in a process of their own (this
// test binary, re-executed with helperEnv set) so that a process probe can
// measure their CPU apart from the test's.
const (
	helperSDKHTTP  = "sdk-http"  // stateless Streamable HTTP; see propagateEnv
	helperSDKStdio = "sdk-stdio" // stdio, with a tool that ignores cancellation
	// propagateEnv = "1" sets StreamableHTTPOptions.PropagateRequestCancellation.
	propagateEnv = "MCPCHAOS_E2E_PROPAGATE"
	// probeCost is the CPU the HTTP helper's active tool burns per call,
	// like a probe that has to look at real state: the engine's own probe
	// calls must not be mistaken for leftover work.
	probeCost = 30 * time.Millisecond
)

func runHelper(mode string) int {
	// Die with the test: the test holds our stdin (HTTP helper only; on
	// stdio, stdin is the protocol and EOF ends the session).
	switch mode {
	case helperSDKHTTP:
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		return serveSDKHTTP(os.Getenv(propagateEnv) == "1")
	case helperSDKStdio:
		return serveSDKStdio()
	case helperBuiltin:
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		return serveBuiltin()
	case helperBuiltinStdio:
		return serveBuiltinStdio()
	case helperSDKWork:
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(0)
		}()
		return serveSDKWork(os.Getenv(propagateEnv) == "true")
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", mode)
	return 2
}

type burnArgs struct {
	Seconds float64 `json:"seconds"`
}

type activeResult struct {
	Active int64 `json:"active"`
}

// serveSDKHTTP serves a stateless (2026-07-28) Streamable HTTP server with
// two tools: burn, which keeps a CPU busy for `seconds` and stops early
// when its context is cancelled, and active, which says how many burns are
// running. It prints its URL on stdout.
func serveSDKHTTP(propagate bool) int {
	var active atomic.Int64
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-sdk-http", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "burn", Description: "burns CPU for seconds, stopping when cancelled"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in burnArgs) (*mcp.CallToolResult, any, error) {
			active.Add(1)
			defer active.Add(-1)
			end := time.Now().Add(time.Duration(in.Seconds * float64(time.Second)))
			var x uint64
			for time.Now().Before(end) {
				if ctx.Err() != nil {
					return nil, nil, fmt.Errorf("stopped: %w", ctx.Err())
				}
				x += targetserver.Spin(time.Millisecond)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("burned %v (%d)", in.Seconds, x&1)}}}, nil, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "active", Description: "how many burns are running"},
		func(context.Context, *mcp.CallToolRequest, any) (*mcp.CallToolResult, activeResult, error) {
			n := active.Load()
			_ = targetserver.Spin(probeCost) // the probe costs the server CPU on purpose
			return nil, activeResult{Active: n}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: propagate})
	return serveHelper(h)
}

type stubbornArgs struct {
	Seconds float64 `json:"seconds"`
	StepMs  int     `json:"step_ms"`
}

// serveSDKStdio serves stdio with one tool, stubborn, that never looks at
// its context: it reports progress every step_ms and answers after
// `seconds`, cancelled or not.
func serveSDKStdio() int {
	srv := mcp.NewServer(&mcp.Implementation{Name: "e2e-sdk-stdio", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "stubborn", Description: "ignores cancellation"},
		func(ctx context.Context, req *mcp.CallToolRequest, in stubbornArgs) (*mcp.CallToolResult, any, error) {
			bg := context.WithoutCancel(ctx)
			step := time.Duration(max(in.StepMs, 10)) * time.Millisecond
			end := time.Now().Add(time.Duration(in.Seconds * float64(time.Second)))
			n := 0
			for time.Now().Before(end) {
				time.Sleep(step)
				n++
				if tok := req.Params.GetProgressToken(); tok != nil {
					_ = req.Session.NotifyProgress(bg, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(n)})
				}
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("done after %d steps", n)}}}, nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// sdkHTTPServer starts the SDK HTTP helper and returns its URL and pid. It
// is stopped when the test ends.
func sdkHTTPServer(t *testing.T, propagate bool) (url string, pid int) {
	t.Helper()
	p := "0"
	if propagate {
		p = "1"
	}
	return startHelper(t, "SDK HTTP helper", helperEnv+"="+helperSDKHTTP, propagateEnv+"="+p)
}

// startHelper runs this test binary as a helper server in its own
// process, with env added to its environment, and returns the URL it
// prints on its first line of stdout and its pid. Closing its stdin at the
// end of the test stops it (killed after 5 s). what names it in errors.
func startHelper(t *testing.T, what string, env ...string) (url string, pid int) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case url = <-line:
	case <-time.After(testutil.WaitLong):
		t.Fatalf("the %s did not print its URL", what)
	}
	if !strings.HasPrefix(url, "http://") {
		t.Fatalf("the %s printed %q, not a URL", what, url)
	}
	return url, cmd.Process.Pid
}

// serveHelper serves h on a loopback port of its own and prints the MCP
// URL on stdout's first line, for startHelper; it returns the helper's
// exit status.
func serveHelper(h http.Handler) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	if err := http.Serve(ln, h); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
