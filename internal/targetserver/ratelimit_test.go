package targetserver

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oneCall is a rate that lets one call through and then refuses for a while.
var oneCall = Rate{Freq: 1, Per: 10 * time.Second}

// TestRateLimitHTTP: over the limit a tools/call gets 429 with Retry-After
// and a JSON-RPC error body; discovery, listing and the probe pass.
func TestRateLimitHTTP(t *testing.T) {
	tests := []struct {
		name     string
		code     int
		wantCode float64
	}{
		{"default code", 0, DefaultRateLimitCode},
		{"custom code", -32000, -32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startHTTP(t, Config{RateLimit: oneCall, RateLimitCode: tt.code})
			ctx := t.Context()
			call := func(id int, tool string) *http.Response {
				return post(t, ctx, http.MethodPost, r.URL, modernHeaders("tools/call", tool), modernCall(id, tool, map[string]any{"text": "x"}, ""))
			}

			resp := call(1, ToolEcho)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("first call: status %d", resp.StatusCode)
			}

			resp = call(2, ToolEcho)
			msgs := rpcMessages(t, resp)
			resp.Body.Close()
			if resp.StatusCode != http.StatusTooManyRequests {
				t.Fatalf("second call: status %d, want 429", resp.StatusCode)
			}
			if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 10 {
				t.Errorf("Retry-After %q, want whole seconds 1..10", resp.Header.Get("Retry-After"))
			}
			if len(msgs) != 1 {
				t.Fatalf("429 body: %v", msgs)
			}
			e, _ := msgs[0]["error"].(map[string]any)
			if msgs[0]["id"] != float64(2) || e["code"] != tt.wantCode || e["message"] != "rate limit exceeded" {
				t.Errorf("429 body %v, want id 2, code %v, message \"rate limit exceeded\"", msgs[0], tt.wantCode)
			}

			// Not limited: discovery, listing, the inflight probe.
			for _, m := range []struct{ method, name, body string }{
				{"server/discover", "", `{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
				{"tools/list", "", `{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`},
				{"tools/call", ToolInflight, modernCall(5, ToolInflight, nil, "")},
			} {
				resp := post(t, ctx, http.MethodPost, r.URL, modernHeaders(m.method, m.name), m.body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					t.Errorf("%s %s: status %d, want 200", m.method, m.name, resp.StatusCode)
				}
			}

			// A legacy session (no Mcp-Method header: the body decides) is
			// limited by the same bucket.
			cs := connectHTTP(t, r, "2025-11-25", nil)
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{"text": "x"}})
			if err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
				t.Errorf("legacy call over the limit: %v, want Too Many Requests", err)
			}

			st := r.Server.Stats()
			wantStats(t, st, Stats{Started: 1, Completed: 1, Throttled: 2})
			if m := testutil.MustScrape(t, r.MetricsURL)["mcpchaos_target_throttled_total"]; m != 2 {
				t.Errorf("metric throttled_total = %v, want 2", m)
			}
		})
	}
}

// TestRateLimitStdio: over the limit a tools/call gets a JSON-RPC error with
// the configured code.
func TestRateLimitStdio(t *testing.T) {
	tests := []struct {
		name     string
		code     int
		wantCode int64
	}{
		{"default code", 0, DefaultRateLimitCode},
		{"custom code", -32000, -32000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, cs := startStdio(t, Config{RateLimit: oneCall, RateLimitCode: tt.code}, "", nil)
			ctx := t.Context()
			echo := &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{"text": "x"}}
			if _, err := cs.CallTool(ctx, echo); err != nil {
				t.Fatalf("first call: %v", err)
			}
			_, err := cs.CallTool(ctx, echo)
			var werr *jsonrpc.Error
			if !errors.As(err, &werr) || werr.Code != tt.wantCode || werr.Message != "rate limit exceeded" {
				t.Fatalf("second call: %v, want JSON-RPC error %d \"rate limit exceeded\"", err, tt.wantCode)
			}
			if !strings.Contains(string(werr.Data), `"retryAfter":`) {
				t.Errorf("error data %s lacks retryAfter", werr.Data)
			}
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Errorf("tools/list limited: %v", err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolInflight}); err != nil {
				t.Errorf("inflight probe limited: %v", err)
			}
			wantStats(t, s.Stats(), Stats{Started: 1, Completed: 1, Throttled: 1})
		})
	}
}
