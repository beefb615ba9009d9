package proxy_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// serveUpstream serves a hand-made upstream on loopback until the test
// ends, and returns its URL (http://HOST:PORT).
func serveUpstream(t *testing.T, h http.Handler) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

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
			r := serveProxy(t, fmt.Sprintf("{http: {url: %q, transport: sse}}", serveUpstream(t, mux)+"/sse"), "1m", "  []\n")
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

// TestSSEUpstreamServerRequestFlood: an HTTP+SSE upstream that writes
// 3,000 pings on a session's stream, and never finishes reading the
// answers, gets at most client.MaxAnswering answers in flight from the
// proxy, not a goroutine and a connection per ping; the session goes on
// (the client's initialize, answered after the pings, gets through).
func TestSSEUpstreamServerRequestFlood(t *testing.T) {
	const pings = 3000
	release := make(chan struct{})
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) })
	var answering, most atomic.Int64
	initialized := make(chan struct{}, 1)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /sse", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "event: endpoint\ndata: /messages\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-initialized:
		case <-r.Context().Done():
			return
		}
		for i := range pings {
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":\"p%d\",\"method\":\"ping\"}\n\n", i)
		}
		fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"serverInfo\":{\"name\":\"flood\",\"version\":\"1\"}}}\n\n")
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if strings.Contains(string(body), `"initialize"`) {
			initialized <- struct{}{}
		}
		if !strings.Contains(string(body), `"result"`) {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		n := answering.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
		answering.Add(-1)
		w.WriteHeader(http.StatusAccepted)
	})
	r := serveProxy(t, fmt.Sprintf("{http: {url: %q, transport: sse}}", serveUpstream(t, mux)+"/sse"), "1m", "  []\n")
	t.Cleanup(func() { releaseOnce.Do(func() { close(release) }) }) // before the proxy stops
	status, body := post(t, r.url, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if status != http.StatusOK || !strings.Contains(body, `"flood"`) {
		t.Fatalf("initialize after the flood: HTTP %d %s, want the server's answer", status, body)
	}
	testutil.Eventually(t, "the first answers to arrive", func() bool { return answering.Load() >= client.MaxAnswering })
	if got := most.Load(); got > client.MaxAnswering {
		t.Fatalf("%d answers in flight at once to a ping flood, want at most %d", got, client.MaxAnswering)
	}
}
