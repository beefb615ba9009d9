package targetserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startHTTP starts a target on a loopback port for the test's lifetime.
func startHTTP(t *testing.T, cfg Config) *Running {
	t.Helper()
	r, err := StartHTTP(t.Context(), cfg, "")
	if err != nil {
		t.Fatalf("StartHTTP: %v", err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// progressLog records the progress notifications a client receives.
type progressLog struct {
	mu   sync.Mutex
	byTk map[string][]*mcp.ProgressNotificationParams
}

func newProgressLog() *progressLog {
	return &progressLog{byTk: map[string][]*mcp.ProgressNotificationParams{}}
}

func (l *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := fmt.Sprint(req.Params.ProgressToken)
	l.byTk[k] = append(l.byTk[k], req.Params)
}

// values returns the progress values received for token, in order.
func (l *progressLog) values(token string) []float64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	var v []float64
	for _, p := range l.byTk[token] {
		v = append(v, p.Progress)
	}
	return v
}

// violations counts values that do not exceed the one before them.
func violations(v []float64) int {
	n := 0
	for i := 1; i < len(v); i++ {
		if v[i] <= v[i-1] {
			n++
		}
	}
	return n
}

// connect opens an SDK client session; version "" lets the client choose
// (2026-07-28 first, falling back to initialize).
func connect(t *testing.T, tr mcp.Transport, version string, log *progressLog) *mcp.ClientSession {
	t.Helper()
	opts := &mcp.ClientOptions{}
	if log != nil {
		opts.ProgressNotificationHandler = log.handler
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "target-test", Version: "0"}, opts)
	cs, err := c.Connect(t.Context(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectHTTP opens an SDK client session to a running target.
func connectHTTP(t *testing.T, r *Running, version string, log *progressLog) *mcp.ClientSession {
	t.Helper()
	return connect(t, &mcp.StreamableClientTransport{Endpoint: r.URL, MaxRetries: -1}, version, log)
}

// startStdio serves a new target over a pair of OS pipes and returns it
// with a client session connected at version.
func startStdio(t *testing.T, cfg Config, version string, log *progressLog) (*Server, *mcp.ClientSession) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	serverIn, clientOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	clientIn, serverOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- s.ServeStdio(context.Background(), serverIn, serverOut)
		serverOut.Close()
	}()
	t.Cleanup(func() {
		clientOut.Close()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(testutil.WaitLong):
			t.Errorf("ServeStdio did not return after stdin closed")
		}
		clientIn.Close()
	})
	cs := connect(t, &mcp.IOTransport{Reader: clientIn, Writer: clientOut}, version, log)
	return s, cs
}

// callText calls a tool and returns its first text content.
func callText(t *testing.T, ctx context.Context, cs *mcp.ClientSession, p *mcp.CallToolParams) (string, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("call %s: %v", p.Name, err)
	}
	if len(res.Content) == 0 {
		return "", res
	}
	tc, _ := res.Content[0].(*mcp.TextContent)
	if tc == nil {
		return "", res
	}
	return tc.Text, res
}

// wantStats compares the counters that want names (a zero field is
// compared too). The leftover durations depend on timing and are not
// compared here (TestLeftoverWork checks them).
func wantStats(t *testing.T, got, want Stats) {
	t.Helper()
	want.LeftoverCPU, want.LeftoverBusy = got.LeftoverCPU, got.LeftoverBusy
	if got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
}

// modernHeaders are the headers of a 2026-07-28 request for method.
func modernHeaders(method, name string) map[string]string {
	h := map[string]string{
		"Accept":               "application/json, text/event-stream",
		"Content-Type":         "application/json",
		"MCP-Protocol-Version": vocab.FirstModern,
		"Mcp-Method":           method,
	}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

// modernCall is the body of a 2026-07-28 tools/call.
func modernCall(id int, tool string, args map[string]any, token string) string {
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    vocab.FirstModern,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "0"},
	}
	if token != "" {
		meta["progressToken"] = token
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args, "_meta": meta},
	})
	return string(b)
}

// post sends a raw POST (or another method when body is "") and returns the
// response; the caller closes its body.
func post(t *testing.T, ctx context.Context, method, url string, headers map[string]string, body string) *http.Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp
}

// rpcMessages decodes a response body, JSON or SSE, into JSON-RPC messages.
func rpcMessages(t *testing.T, resp *http.Response) []map[string]any {
	t.Helper()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	var out []map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok && strings.TrimSpace(data) != "" {
				var m map[string]any
				if err := json.Unmarshal([]byte(data), &m); err != nil {
					t.Fatalf("decode SSE data %q: %v", data, err)
				}
				out = append(out, m)
			}
		}
		return out
	}
	var m map[string]any
	if len(bytes.TrimSpace(raw)) > 0 && json.Unmarshal(raw, &m) == nil {
		out = append(out, m)
	}
	return out
}
