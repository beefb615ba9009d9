package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestServerRequestFloodIsBounded: a 2025 server that writes 3,000 pings
// on its GET stream, and never finishes reading our answers, gets at most
// MaxAnswering answers in flight from us, not a connection per ping; every
// ping is still counted.
func TestServerRequestFloodIsBounded(t *testing.T) {
	const pings = 3000
	release := make(chan struct{})
	var answering, most atomic.Int64
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			for i := range pings {
				fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"ping\"}\n\n", i)
			}
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		switch {
		case strings.Contains(string(body), `"initialize"`):
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"flood","version":"1"}}}`)
		case strings.Contains(string(body), `"result"`):
			n := answering.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			answering.Add(-1)
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	defer once.Do(func() { close(release) })
	c, err := Dial(t.Context(), Config{Protocol: Era20250618, HTTP: &HTTPConfig{URL: srv.URL}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		once.Do(func() { close(release) })
		ctx, cancel := context.WithTimeout(context.Background(), testutil.WaitLong)
		defer cancel()
		_ = c.Close(ctx)
	}()
	testutil.Eventually(t, "every ping read", func() bool { return c.Stats().ServerRequests == pings })
	testutil.Eventually(t, "the first answers to arrive", func() bool { return answering.Load() == MaxAnswering })
	if got := most.Load(); got > MaxAnswering {
		t.Fatalf("%d answers in flight at once to a ping flood, want at most %d", got, MaxAnswering)
	}
}
