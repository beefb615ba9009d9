package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	mcpchaos "github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// sseURL is the proxy's HTTP+SSE endpoint (GET /sse).
func (r *running) sseURL() string { return strings.TrimSuffix(r.url, "/mcp") + "/sse" }

// sdkSSESession connects the Go SDK's HTTP+SSE client (2024-11-05) to
// the proxy's /sse.
func sdkSSESession(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-sse-test", Version: "0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.SSEClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect the SDK's HTTP+SSE client to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// sseFaultCase is one fault of TestSSEFrontSDKClient and its check of what
// the SDK's HTTP+SSE client did and what the proxy recorded.
type sseFaultCase struct {
	name, faults string
	timeout      time.Duration // the caller's context deadline; 0: none
	check        func(t *testing.T, res *mcp.CallToolResult, err error, rec proxy.CallRecord)
}

// sseFaultCases are the cases of TestSSEFrontSDKClient.
var sseFaultCases = []sseFaultCase{
	{name: "no fault: the answer passes",
		check: func(t *testing.T, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err != nil || res == nil || res.IsError {
				t.Errorf("CallTool: got %v, %v; want the tool's result", res, err)
			}
			if rec.Reaction != "answered" || rec.Session == "" {
				t.Errorf("record: got %s in session %q, want answered in the upstream's session", rec.Reaction, rec.Session)
			}
		}},
	{name: "throttle: the POST gets the 429, which is the call's error",
		faults: "  - {kind: throttle, status: 429, retry_after: 1s}\n",
		check: func(t *testing.T, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil || !strings.Contains(err.Error(), "429") {
				t.Errorf("CallTool: got %v, %v; want the 429 as an error", res, err)
			}
			if rec.Reaction != "throttled" || rec.RetryAfterMs != 1000 {
				t.Errorf("record: got %s with Retry-After %vms, want throttled with 1000ms", rec.Reaction, rec.RetryAfterMs)
			}
		}},
	{name: "progress_endless with a 1s deadline: cancelled by notification",
		faults:  "  - {kind: progress_endless, every: 100ms}\n",
		timeout: time.Second,
		check: func(t *testing.T, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want the deadline's error", res)
			}
			if rec.Reaction != "cancelled" || rec.CancelHow != "notification" || !rec.CancelNotified {
				t.Errorf("record: got %s (%s, notified %v), want cancelled by notification", rec.Reaction, rec.CancelHow, rec.CancelNotified)
			}
			// The deadline counts from before the POST, which a busy
			// machine may take a while to hand over: a wide margin.
			if rec.CancelAfterMs < 500 || rec.CancelAfterMs > 1000+10_000 {
				t.Errorf("record: cancelled after %vms, want about 1s", rec.CancelAfterMs)
			}
		}},
	{name: "server_cancel: ignored, the answer is taken",
		faults: "  - {kind: server_cancel}\n",
		check: func(t *testing.T, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err != nil || res == nil || res.IsError {
				t.Errorf("CallTool: got %v, %v; want the tool's result", res, err)
			}
			if rec.Reaction != "answered" {
				t.Errorf("record: got %s, want answered", rec.Reaction)
			}
		}},
	{name: "disconnect: the stream is cut, the call fails",
		faults: "  - {kind: disconnect, after: 30ms}\n",
		check: func(t *testing.T, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want an error", res)
			}
			if rec.Reaction != "disconnected" {
				t.Errorf("record: got %s, want disconnected", rec.Reaction)
			}
		}},
}

// TestSSEFrontSDKClient: the Go SDK's HTTP+SSE client, in front of the
// proxy's /sse and a built-in target behind it, under each fault.
func TestSSEFrontSDKClient(t *testing.T) {
	for _, tc := range sseFaultCases {
		t.Run(tc.name, func(t *testing.T) {
			r := startProxy(t, "1m", tc.faults)
			cs := sdkSSESession(t, r.sseURL())
			ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
			defer cancel()
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) == 0 {
				t.Fatalf("ListTools through the proxy: %v, %v", tools, err)
			}
			if tc.timeout > 0 {
				ctx, cancel = context.WithTimeout(ctx, tc.timeout)
				defer cancel()
			}
			res, err := cs.CallTool(ctx, slowTask(2))
			testutil.Eventually(t, "the call's record", func() bool {
				recs := r.p.Records()
				return len(recs) == 1 && recs[0].Reaction != "" && (tc.timeout == 0 || recs[0].CancelNotified)
			})
			r.stop()
			recs := r.p.Records()
			t.Logf("err %v; record: %s", err, dump(recs))
			tc.check(t, res, err, recs[0])
			if !strings.HasPrefix(recs[0].Client, "sse:") {
				t.Errorf("record: client %q, want the HTTP+SSE session (sse:ID)", recs[0].Client)
			}
		})
	}
}

// openStream GETs the proxy's /sse and returns the messages URL its
// endpoint event names, and the stream's reader.
func openStream(t *testing.T, r *running) (string, *bufio.Reader) {
	t.Helper()
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, r.sseURL(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	br := bufio.NewReader(resp.Body)
	var event, data string
	for event == "" || data == "" {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read the endpoint event: %v", err)
		}
		if v, ok := strings.CutPrefix(line, "event: "); ok {
			event = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "data: "); ok {
			data = strings.TrimSpace(v)
		}
	}
	if event != "endpoint" || !strings.HasPrefix(data, "/messages?sessionId=") {
		t.Fatalf("first event %q %q, want endpoint /messages?sessionId=...", event, data)
	}
	return strings.TrimSuffix(r.url, "/mcp") + data, br
}

// postMessage POSTs msg to an HTTP+SSE session's messages URL and wants
// the 202.
func postMessage(t *testing.T, messages, msg string) {
	t.Helper()
	resp, err := http.Post(messages, "application/json", strings.NewReader(msg))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("POST %s: HTTP %d, want 202", msg, resp.StatusCode)
	}
}

// TestSSEFrontBadInput: a POST that is not JSON gets HTTP 400 with the
// JSON-RPC parse error, a POST for an unknown or missing session 404 or
// 400, one from a web page elsewhere (Origin) 403, and the proxy goes on
// serving the session.
func TestSSEFrontBadInput(t *testing.T) {
	r := startProxy(t, "1m", "")
	messages, _ := openStream(t, r)
	base := strings.TrimSuffix(r.url, "/mcp")
	tests := []struct {
		name, url, body, origin string
		status, code            int
	}{
		{name: "garbage", url: messages, body: "{not json", status: 400, code: -32700},
		{name: "another origin", url: messages, body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, origin: "http://evil.example", status: 403, code: -32600},
		{name: "unknown session", url: base + "/messages?sessionId=nope", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 404, code: -32600},
		{name: "no session", url: base + "/messages", body: `{"jsonrpc":"2.0","id":1,"method":"ping"}`, status: 400, code: -32600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, tc.url, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
			var e struct {
				Error struct{ Code int } `json:"error"`
			}
			if resp.StatusCode != tc.status || json.Unmarshal(b, &e) != nil || e.Error.Code != tc.code {
				t.Errorf("POST %s: HTTP %d %s, want %d with JSON-RPC error %d", tc.body, resp.StatusCode, b, tc.status, tc.code)
			}
		})
	}
	// Still serving: a client connects and calls through.
	cs := sdkSSESession(t, r.sseURL())
	if res, err := cs.CallTool(t.Context(), slowTask(1)); err != nil || res.IsError {
		t.Errorf("CallTool after the bad input: %v, %v", res, err)
	}
}

// TestSSEFrontStreamDropped: an HTTP+SSE client that closes its event
// stream with a call open ends its session, and the call is cancelled on
// the server (here the SDK's own HTTP+SSE server, behind the proxy's
// HTTP+SSE upstream: 2024-11-05 on both sides). The client is plain HTTP:
// the SDK's client does not close its stream while a call is open.
func TestSSEFrontStreamDropped(t *testing.T) {
	up := startSSEServer(t)
	r := serveProxy(t, fmt.Sprintf("{http: {url: %q, transport: sse}}", up.url), "1m", "  []\n")
	ctx, closeStream := context.WithCancel(t.Context())
	defer closeStream()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r.sseURL(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := mcpchaos.NewSSEReader(resp.Body, 1<<20)
	endpoint, err := events.Next()
	if err != nil || events.Event() != "endpoint" {
		t.Fatalf("first event %q %q, %v; want the endpoint", events.Event(), endpoint, err)
	}
	messages := strings.TrimSuffix(r.url, "/mcp") + string(endpoint)
	post := func(msg string) { t.Helper(); postMessage(t, messages, msg) }
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if data, err := events.Next(); err != nil || !strings.Contains(string(data), `"id":1`) {
		t.Fatalf("initialize: got %s, %v", data, err)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{}}}`)
	testutil.Eventually(t, "the call to start on the server", func() bool { return up.started.Load() == 1 })
	closeStream()
	testutil.Eventually(t, "the call cancelled on the server", func() bool { return up.cancelled.Load() == 1 })
	testutil.Eventually(t, "the call's record", func() bool {
		recs := r.p.Records()
		return len(recs) == 1 && recs[0].Reaction != ""
	})
	r.stop()
	if rec := r.p.Records()[0]; rec.Reaction != "cancelled" || rec.CancelHow != "stream_closed" {
		t.Errorf("record: got %s (%s), want cancelled, stream_closed\n%s", rec.Reaction, rec.CancelHow, dump(r.p.Records()))
	}
}

// TestSSEFrontDisconnectEndsSession: a disconnect that hits one call of
// an HTTP+SSE session cuts the session's one event stream, so every call
// of the session in flight ends with it, and each is recorded
// disconnected (the proxy cut it), none as a client's cancel.
func TestSSEFrontDisconnectEndsSession(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: disconnect, tools: [echo]}\n")
	messages, br := openStream(t, r)
	events := mcpchaos.NewSSEReader(br, 1<<20)
	post := func(msg string) { t.Helper(); postMessage(t, messages, msg) }
	post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if data, err := events.Next(); err != nil || !strings.Contains(string(data), `"id":1`) {
		t.Fatalf("initialize: got %s, %v", data, err)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":100,"step_ms":100}}}`)
	testutil.Eventually(t, "the slow call open at the proxy", func() bool { return len(r.p.Records()) == 1 })
	post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
	testutil.Eventually(t, "both calls' records", func() bool {
		recs := r.p.Records()
		return len(recs) == 2 && recs[0].Reaction != "" && recs[1].Reaction != ""
	})
	r.stop()
	recs := r.p.Records()
	for _, rec := range recs {
		if rec.Reaction != "disconnected" {
			t.Errorf("call %d (%s): got %s (%s), want disconnected\n%s", rec.Seq, rec.Tool, rec.Reaction, rec.CancelHow, dump(recs))
		}
	}
	if sum := r.p.Summary().Clients; sum.Cancelled != 0 {
		t.Errorf("summary: %d cancelled, want 0 (the proxy cut the stream)", sum.Cancelled)
	}
}
