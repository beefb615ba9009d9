package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// startSessionProxy starts a proxy in front of `mcpchaos serve --stdio`
// with its metrics on a loopback port of its own, and returns the stdin
// copy and a scrape of the server's counters.
func startSessionProxy(t *testing.T) (url, stdin string, metrics func() map[string]float64, stop func()) {
	t.Helper()
	stderr := filepath.Join(t.TempDir(), "server.stderr")
	_, url, stdin, stop = startStdioProxyWith(t, "  []\n", fmt.Sprintf("--metrics-listen 127.0.0.1:0 2>>%q", stderr))
	var murl string
	testutil.Eventually(t, "the server's metrics address", func() bool {
		b, _ := os.ReadFile(stderr)
		murl = testutil.ServeMetricsURL(string(b))
		return murl != ""
	})
	return url, stdin, func() map[string]float64 {
		m, err := testutil.Scrape(t.Context(), murl)
		if err != nil {
			b, _ := os.ReadFile(stderr)
			in, _ := os.ReadFile(stdin)
			t.Fatalf("the server's metrics: %v\nits stderr:\n%s\nits stdin:\n%s", err, b, in)
		}
		return m
	}, stop
}

// count is how many lines of the file at path name method.
func count(t *testing.T, path, method string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), `"method":"`+method+`"`)
}

// TestSessionsOverStdio puts two official Go SDK clients of the 2025
// revisions (2025-11-25 and 2025-06-18, each a session) at once through
// the proxy to one stdio server: each lists the tools and calls them,
// progress tokens and request ids colliding between them, and one
// cancels a long call. The server saw one initialize (the proxy's), and
// the one cancel reached it as notifications/cancelled: its own counter
// of cancelled calls says 1.
func TestSessionsOverStdio(t *testing.T) {
	url, stdin, metrics, stop := startSessionProxy(t)
	progressed := make(chan struct{}, 1)
	a := mcp.NewClient(&mcp.Implementation{Name: "client-a", Version: "0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if req.Params.ProgressToken != "tok-long" {
				return
			}
			select {
			case progressed <- struct{}{}:
			default:
			}
		}})
	csA, err := a.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect client a: %v", err)
	}
	t.Cleanup(func() { csA.Close() })
	csB := sdkSession(t, url, "2025-06-18")
	if csA.ID() == "" || csA.ID() == csB.ID() {
		t.Fatalf("session ids %q and %q: want two, distinct", csA.ID(), csB.ID())
	}
	if v := csB.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Errorf("client b (asked 2025-06-18) was answered %q, want the version the server negotiated with the proxy, 2025-11-25", v)
	}

	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	listAndCallAtOnce(t, ctx, map[string]*mcp.ClientSession{"a": csA, "b": csB})

	// Client a cancels a 10s call at its first progress.
	cctx, ccancel := context.WithCancel(ctx)
	go func() {
		select {
		case <-progressed:
			ccancel()
		case <-cctx.Done():
		}
	}()
	long := &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"steps": 200, "step_ms": 50}}
	long.SetProgressToken("tok-long")
	if _, err := csA.CallTool(cctx, long); err == nil {
		t.Fatal("the cancelled call: want an error")
	}
	if !testutil.Poll(testutil.WaitLong, func() bool {
		m := metrics()
		return m["mcpchaos_target_cancelled_total"] == 1 && m["mcpchaos_target_inflight"] == 0
	}) {
		b, _ := os.ReadFile(stdin)
		t.Fatalf("the server did not count the call cancelled: %v\nits stdin:\n%s", metrics(), b)
	}
	csA.Close()
	csB.Close()
	defer stop()
	if m := metrics(); m["mcpchaos_target_started_total"] != 13 || m["mcpchaos_target_completed_total"] != 12 {
		t.Errorf("server counters: %v; want 13 calls started, 12 completed", m)
	}
	if n := count(t, stdin, "initialize"); n != 1 {
		t.Errorf("the server got %d initialize, want 1 (the proxy's)", n)
	}
	if n := count(t, stdin, "notifications/initialized"); n != 1 {
		t.Errorf("the server got %d notifications/initialized, want 1", n)
	}
	if n := count(t, stdin, "notifications/cancelled"); n != 1 {
		t.Errorf("the server got %d notifications/cancelled, want 1", n)
	}
}

// listAndCallAtOnce has each of sessions, at once, list the tools and call
// echo and slow_task three times each, and checks every answer.
func listAndCallAtOnce(t *testing.T, ctx context.Context, sessions map[string]*mcp.ClientSession) {
	var wg sync.WaitGroup
	for name, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 {
				t.Errorf("client %s: tools/list: %v, %v", name, tools, err)
				return
			}
			for i := range 3 {
				text := fmt.Sprintf("%s-%d", name, i)
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
				if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(fmt.Sprint(res.Content[0]), text) {
					t.Errorf("client %s: echo %q: %v, %v", name, text, res, err)
				}
				if res, err := cs.CallTool(ctx, slowTask(2)); err != nil || res.IsError {
					t.Errorf("client %s: slow_task: %v, %v", name, res, err)
				}
			}
		}()
	}
	wg.Wait()
}

// rawSession speaks a 2025-06-18 session to url by hand.
type rawSession struct {
	t       *testing.T
	url, id string
}

func (s *rawSession) do(ctx context.Context, method, body string) *http.Response {
	s.t.Helper()
	resp, err := s.send(ctx, method, body)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, s.url, err)
	}
	return resp
}

// send is do that returns the error (safe off the test's goroutine).
func (s *rawSession) send(ctx context.Context, method, body string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	}
	return http.DefaultClient.Do(req)
}

// TestSessionLifecycleOverStdio drives a 2025 session by hand: the GET
// stream is an SSE stream; DELETE ends the session, which cancels its
// open call upstream (the server counts it cancelled) and ends the GET
// stream; the ended session's id then gets 404, as does one never given.
func TestSessionLifecycleOverStdio(t *testing.T) {
	url, stdin, metrics, _ := startSessionProxy(t)
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	s := &rawSession{t: t, url: url}
	resp := s.do(ctx, "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if s.id = resp.Header.Get("Mcp-Session-Id"); resp.StatusCode != 200 || s.id == "" || !strings.Contains(string(body), `"protocolVersion":"2025-06-18"`) || !strings.Contains(string(body), `"serverInfo"`) {
		t.Fatalf("initialize: %d, session %q, %s", resp.StatusCode, s.id, body)
	}
	if resp := s.do(ctx, "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("notifications/initialized: %d", resp.StatusCode)
	}
	get := s.do(ctx, "GET", "")
	defer get.Body.Close()
	if get.StatusCode != 200 || get.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %q, want an SSE stream", get.StatusCode, get.Header.Get("Content-Type"))
	}
	call := s.do(ctx, "POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":200,"step_ms":50},"_meta":{"progressToken":7}}}`)
	defer call.Body.Close()
	buf := make([]byte, 512)
	if n, err := call.Body.Read(buf); err != nil || !strings.Contains(string(buf[:n]), "notifications/progress") {
		t.Fatalf("the call's stream: %q, %v; want its first progress", buf[:n], err)
	}
	if resp := s.do(ctx, "DELETE", ""); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if _, err := io.ReadAll(get.Body); err != nil {
		t.Logf("the GET stream ended with %v", err)
	}
	testutil.Eventually(t, "the server to count the call cancelled", func() bool {
		return metrics()["mcpchaos_target_cancelled_total"] == 1
	})
	if n := count(t, stdin, "notifications/cancelled"); n != 1 {
		t.Errorf("the server got %d notifications/cancelled, want 1", n)
	}
	for _, id := range []string{s.id, "never-given"} {
		s.id = id
		if resp := s.do(ctx, "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); resp.StatusCode != http.StatusNotFound {
			t.Errorf("POST with session %q: %d, want 404", id, resp.StatusCode)
		}
	}
}

// TestStdioFrontSessions: the Go SDK client spawns `mcpchaos proxy
// --stdio` at 2025-11-25, in front of a stdio server: its initialize
// gets the proxy's session (the bridge carries the id), its calls are
// answered, and a call it cancels by its deadline reaches the server as
// one notifications/cancelled; the server saw one initialize.
func TestStdioFrontSessions(t *testing.T) {
	dir := t.TempDir()
	stdin := filepath.Join(dir, "stdin.jsonl")
	shell := fmt.Sprintf("tee %q | %q serve --stdio", stdin, bin.Need(t))
	file := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(file, []byte(fmt.Sprintf("listen: 127.0.0.1:0\nupstream: {stdio: {command: [sh, -c, %q]}}\n", shell)), 0o644); err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.CommandTransport{Command: exec.Command(bin.Need(t), "proxy", "--stdio", file)},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect over stdio to mcpchaos proxy --stdio: %v", err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2025-11-25" {
		t.Fatalf("negotiated %q", v)
	}
	for range 2 {
		if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "through"}}); err != nil || res.IsError {
			t.Fatalf("echo: %v, %v", res, err)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	if _, err := cs.CallTool(ctx, slowTask(200)); err == nil { // 10s upstream
		t.Fatal("slow_task: want the deadline's error")
	}
	testutil.Eventually(t, "the server to get the cancel", func() bool { return count(t, stdin, "notifications/cancelled") >= 1 })
	if err := cs.Close(); err != nil { // the proxy exits: all it wrote is in
		t.Logf("close: %v", err)
	}
	if n := count(t, stdin, "notifications/cancelled"); n != 1 {
		t.Errorf("the server got %d notifications/cancelled, want 1", n)
	}
	if n := count(t, stdin, "initialize"); n != 1 {
		t.Errorf("the server got %d initialize, want 1", n)
	}
}
