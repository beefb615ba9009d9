package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// clientCap is the proxy's bound of one client's calls in flight
// (maxClientCalls; docs/proxy.md, docs/limits.md).
const clientCap = 256

// TestClientCallCap: one client (one address and User-Agent) holds
// clientCap calls open on /mcp (drop_response withholds echo's answers);
// its next call is refused by the proxy itself, HTTP 503 with a JSON-RPC
// error, and not recorded, while another client's call still passes.
func TestClientCallCap(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: drop_response, tools: [echo]}\n")
	const echo = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"held"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	for range clientCap {
		go holdCall(t, r.url, echo) // held until the proxy stops
	}
	testutil.Eventually(t, "every held call open at the proxy", func() bool { return len(r.p.Records()) == clientCap })
	status, body := post(t, r.url, strings.Replace(echo, `"id":1`, `"id":2`, 1))
	var e struct {
		Error struct{ Code int } `json:"error"`
	}
	if status != http.StatusServiceUnavailable || json.Unmarshal([]byte(body), &e) != nil || e.Error.Code != -32000 {
		t.Errorf("call %d of one client: HTTP %d %s, want 503 with JSON-RPC error -32000", clientCap+1, status, body)
	}
	other, err := mcpRequest(t.Context(), r.url,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":1,"step_ms":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	other.Header.Set("User-Agent", "another-client")
	resp, err := http.DefaultClient.Do(other)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"result"`) {
		t.Errorf("another client's call: HTTP %d %s, want its answer", resp.StatusCode, b)
	}
	r.stop()
	if sum := r.p.Summary().Clients; sum.Calls != clientCap+1 {
		t.Errorf("summary: %d calls, want %d (the refused one is not a call)", sum.Calls, clientCap+1)
	}
}
