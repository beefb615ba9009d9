package proxy_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/proxy"
)

// TestSSEUpstreamHostile: an HTTP+SSE upstream that answers the GET
// badly, or sends an event over the bound, fails the client's initialize
// with an error that says why, and the proxy goes on serving.
func TestSSEUpstreamHostile(t *testing.T) {
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	tests := []struct {
		name   string
		stream func(w http.ResponseWriter, posted <-chan struct{}) // the GET's answer
		status int                                                 // the client's answer to initialize
		want   string                                              // in its body
	}{
		{name: "not an event stream", status: 502, want: `Content-Type \"text/plain\": not an HTTP+SSE endpoint`,
			stream: func(w http.ResponseWriter, _ <-chan struct{}) {
				w.Header().Set("Content-Type", "text/plain")
				fmt.Fprint(w, "hello")
			}},
		{name: "first event not endpoint", status: 502, want: `the first event is \"message\", not \"endpoint\"`,
			stream: func(w http.ResponseWriter, _ <-chan struct{}) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: message\ndata: {}\n\n")
			}},
		{name: "endpoint on another origin", status: 502, want: `is on another origin`,
			stream: func(w http.ResponseWriter, _ <-chan struct{}) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: endpoint\ndata: http://169.254.169.254/messages\n\n")
			}},
		{name: "an event over the bound ends the session", status: 200,
			stream: func(w http.ResponseWriter, posted <-chan struct{}) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "event: endpoint\ndata: /messages\n\n")
				w.(http.Flusher).Flush()
				<-posted
				fmt.Fprint(w, "event: message\ndata: ")
				chunk := strings.Repeat("x", 1<<20)
				for range proxy.MaxBody/len(chunk) + 2 {
					if _, err := fmt.Fprint(w, chunk); err != nil {
						return
					}
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			posted := make(chan struct{}, 1)
			mux := http.NewServeMux()
			mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) { tc.stream(w, posted) })
			mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusAccepted)
				select {
				case posted <- struct{}{}:
				default:
				}
			})
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			srv := &http.Server{Handler: mux}
			go srv.Serve(ln)
			t.Cleanup(func() { srv.Close() })
			r := serveProxy(t, fmt.Sprintf("{http: {url: %q, transport: sse}}", "http://"+ln.Addr().String()+"/sse"), "1m", "  []\n")
			for i := range 2 { // the second: still serving
				resp, err := http.Post(r.url, "application/json", strings.NewReader(initialize))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
				resp.Body.Close()
				if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.want) || strings.Contains(string(b), `"result"`) {
					t.Errorf("initialize %d: HTTP %d %s; want %d with %q and no result", i+1, resp.StatusCode, b, tc.status, tc.want)
				}
			}
		})
	}
}
