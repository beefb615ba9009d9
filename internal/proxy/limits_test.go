package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// clientCap is the proxy's bound of one client's calls in flight
// (maxClientCalls; docs/proxy.md, docs/limits.md).
const clientCap = 256

// TestClientCallCap: one client (one address and User-Agent) holds
// clientCap calls open on /mcp (drop_response withholds echo's answers);
// its next call is refused by the proxy itself, HTTP 503 with a JSON-RPC
// error, and not recorded, while another client's call still passes. The
// held calls share one id: each after the first is flagged as the
// client's violation (duplicate_id).
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
	// The held calls all had id 1, each sent while the others were in
	// flight: every one after the first is the client's JSON-RPC
	// violation, in the summary and in its record.
	if sum := r.p.Summary().Clients; sum.DuplicateIDs != clientCap-1 {
		t.Errorf("summary: %d duplicate ids, want %d", sum.DuplicateIDs, clientCap-1)
	}
	flagged := 0
	for _, rec := range r.p.Records() {
		if rec.Violation == "duplicate_id" {
			flagged++
		}
	}
	if flagged != clientCap-1 {
		t.Errorf("%d records flag a duplicate id, want %d", flagged, clientCap-1)
	}
}

// TestSSESessionNotificationCap: an HTTP+SSE client whose notifications
// the upstream never finishes taking has at most 64 of them in flight
// (maxSessionCalls): the next POST gets 503, not one more goroutine.
func TestSSESessionNotificationCap(t *testing.T) {
	const sessionCap = 64
	release := make(chan struct{})
	var arrived atomic.Int64
	up := serveUpstream(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		arrived.Add(1)
		select {
		case <-release:
		case <-r.Context().Done():
		}
		w.WriteHeader(http.StatusAccepted)
	}))
	r := serveProxy(t, fmt.Sprintf("{http: {url: %q, transport: streamable}}", up+"/mcp"), "1m", "  []\n")
	t.Cleanup(func() { close(release) }) // before the proxy stops
	messages, _ := openStream(t, r)
	const note = `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`
	for range sessionCap {
		postMessage(t, messages, note)
	}
	testutil.Eventually(t, "every notification at the upstream", func() bool { return arrived.Load() == sessionCap })
	resp, err := http.Post(messages, "application/json", strings.NewReader(note))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "notifications of this session in flight") {
		t.Errorf("notification %d: HTTP %d %s, want 503", sessionCap+1, resp.StatusCode, b)
	}
}
