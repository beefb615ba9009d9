package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// wait waits d or until ctx ends.
func wait(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// TestRetryAfterAndReissue throttles every call with Retry-After 1s and
// calls the same tool with the same arguments three times through the SDK
// client: the second call at once (Retry-After ignored), the third after
// waiting the Retry-After out (honoured). Both are re-issues with new ids.
func TestRetryAfterAndReissue(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: throttle, status: 503, retry_after: 1s, rpc_code: -32001}\n")
	cs := sdkSession(t, r.url, "")
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	for i, pause := range []time.Duration{0, 0, 1100 * time.Millisecond} {
		wait(ctx, pause)
		if _, err := cs.CallTool(ctx, slowTask(1)); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
			t.Fatalf("call %d: got %v, want the 503", i+1, err)
		}
	}
	r.stop()
	recs := r.p.Records()
	sum := r.p.Summary().Clients
	if sum.Calls != 3 || sum.Reissued != 2 || sum.ReissuedSameID != 0 || sum.RetryAfterIgnored != 1 || sum.RetryAfterHonoured != 1 {
		t.Fatalf("want 3 calls, 2 re-issued with new ids, Retry-After ignored once and honoured once; got %+v\n%s", sum, dump(recs))
	}
	if g := recs[1].NextCallAfterMs; g < 1000 {
		t.Errorf("call 2's next call came after %vms, want at least the 1000ms waited", g)
	}
	if recs[2].ReissueOf != recs[1].Seq || recs[1].ReissueOf != recs[0].Seq {
		t.Errorf("want each call a re-issue of the one before:\n%s", dump(recs))
	}
}

// post sends body to url as a 2026-07-28 client would and returns the
// status and the body read.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	req, err := mcpRequest(t.Context(), url, body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	return resp.StatusCode, string(b)
}

// mcpRequest is the POST of body to url as a 2026-07-28 client sends
// it, with the headers the body implies.
func mcpRequest(ctx context.Context, url, body string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	var m struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	if json.Unmarshal([]byte(body), &m) == nil && m.Method != "" {
		req.Header.Set("Mcp-Method", m.Method)
		if m.Params.Name != "" {
			req.Header.Set("Mcp-Name", m.Params.Name)
		}
	}
	return req, nil
}

// TestReissueSameID sends one tools/call twice with the same id after a
// throttle: the second is recorded as a re-issue with the same id, which
// a correct client never does.
func TestReissueSameID(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: throttle}\n")
	call := `{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`
	for range 2 {
		if status, body := post(t, r.url, call); status != http.StatusTooManyRequests || !strings.Contains(body, `"code":-32000`) {
			t.Fatalf("got %d %s, want 429 with a -32000 error", status, body)
		}
	}
	r.stop()
	if sum := r.p.Summary().Clients; sum.Reissued != 1 || sum.ReissuedSameID != 1 {
		t.Fatalf("want one re-issue with the same id, got %+v\n%s", sum, dump(r.p.Records()))
	}
}

// TestGarbage sends what no client should: the proxy answers each with
// the JSON-RPC error a server would send and keeps serving.
func TestGarbage(t *testing.T) {
	r := startProxy(t, "1m", "  []\n")
	tests := []struct {
		name, body string
		status     int
		code       int
	}{
		{"not JSON", "{not json", http.StatusBadRequest, -32700},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"tools/call"`, http.StatusBadRequest, -32700},
		{"binary", "\x00\xff\xfe", http.StatusBadRequest, -32700},
		{"over the body bound", `"` + strings.Repeat("x", 16<<20) + `"`, http.StatusRequestEntityTooLarge, -32600},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			status, body := post(t, r.url, tc.body)
			var m struct {
				Error struct{ Code int } `json:"error"`
			}
			if status != tc.status || json.Unmarshal([]byte(body), &m) != nil || m.Error.Code != tc.code {
				t.Fatalf("got %d %q, want %d with JSON-RPC error %d", status, body, tc.status, tc.code)
			}
		})
	}
	// Still up: a real call goes through and is answered.
	status, body := post(t, r.url, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still here"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if status != http.StatusOK || !strings.Contains(body, "still here") {
		t.Fatalf("after the garbage: got %d %s", status, body)
	}
}

// TestDisconnectOnTheWire reads a call's stream through the proxy with a
// plain HTTP client: mode fin ends it early without an error from the
// socket, mode rst with a reset; either way the upstream request is
// closed, and the next identical call is recorded as a re-issue (and the
// first call's after_disconnect as reissued).
func TestDisconnectOnTheWire(t *testing.T) {
	tests := []struct{ name, mode, want string }{
		{"fin", "fin", "unexpected EOF"},
		{"rst", "rst", "connection reset by peer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := startProxy(t, "1m", "  - {kind: disconnect, mode: "+tc.mode+", after: 100ms}\n")
			call := `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":20,"step_ms":50},"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			for id := 1; id <= 2; id++ {
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, r.url, strings.NewReader(fmt.Sprintf(call, id)))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("MCP-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "slow_task")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_, err = io.ReadAll(resp.Body)
				resp.Body.Close()
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("reading the stream: got %v, want %q", err, tc.want)
				}
			}
			r.stop()
			recs := r.p.Records()
			if len(recs) != 2 || recs[0].Reaction != "disconnected" || recs[1].Reissue != "new_id" {
				t.Fatalf("want two disconnected calls, the second a re-issue:\n%s", dump(recs))
			}
			// What the client did after each cut: re-issued the first;
			// nothing after the second before the proxy stopped.
			if recs[0].AfterDisconnect != "reissued" || recs[1].AfterDisconnect != "silent" {
				t.Errorf("after_disconnect %q, %q; want reissued, silent:\n%s", recs[0].AfterDisconnect, recs[1].AfterDisconnect, dump(recs))
			}
		})
	}
}
