package proxy_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestDisconnectBeforeHeaders puts the proxy's disconnect fault in front
// of an upstream that answers with one JSON body, and sends its headers
// only with the answer, two WaitLongs after the request: the cut must come
// at its `after` all the same, closing the upstream request (the upstream's
// handler sees its request cancelled, not answered) and the client's
// connection (its round trip fails without an answer).
func TestDisconnectBeforeHeaders(t *testing.T) {
	tests := []struct{ name, mode string }{
		{"fin", "fin"},
		{"rst", "rst"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ended := make(chan string, 1)
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body) // read to its end, as a server does: only then does net/http watch the connection
				answer := time.NewTimer(2 * testutil.WaitLong)
				defer answer.Stop()
				select {
				case <-r.Context().Done():
					ended <- "cancelled"
				case <-answer.C:
					w.Header().Set("Content-Type", "application/json")
					fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
					ended <- "answered"
				}
			}))
			t.Cleanup(up.Close)
			r := serveProxy(t, fmt.Sprintf("{http: {url: %q}}", up.URL), "1s",
				"  - {kind: disconnect, mode: "+tc.mode+", after: 400ms}\n")
			call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_task","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, r.url, strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("MCP-Protocol-Version", "2026-07-28")
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "slow_task")
			sent := time.Now()
			resp, err := http.DefaultClient.Do(req)
			took := time.Since(sent)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("the client got an answer (status %d) through a connection cut before the upstream's headers", resp.StatusCode)
			}
			if took < 400*time.Millisecond {
				t.Errorf("the round trip failed after %v, before the cut's moment (400ms): %v", took, err)
			}
			if got := testutil.Receive(t, "the upstream request to end", ended); got != "cancelled" {
				t.Fatalf("the upstream request was %s, want cancelled at the cut", got)
			}
			r.stop()
			recs := r.p.Records()
			if len(recs) != 1 || recs[0].Reaction != "disconnected" {
				t.Fatalf("want one call, disconnected:\n%s", dump(recs))
			}
		})
	}
}
