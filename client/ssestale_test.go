package client

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// sseLateServer is an HTTP+SSE server (2024-11-05) that answers a
// tools/call only when the test says so (answer), whatever became of the
// call: a server that ignores cancels.
type sseLateServer struct {
	url   string
	out   chan string // messages to write on the stream
	calls chan string // the id of each tools/call POSTed
}

func startSSELate(t *testing.T) *sseLateServer {
	t.Helper()
	s := &sseLateServer{out: make(chan string, 8), calls: make(chan string, 8)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: endpoint\ndata: /msg\n\n")
			w.(http.Flusher).Flush()
			for {
				select {
				case m := <-s.out:
					fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
					w.(http.Flusher).Flush()
				case <-r.Context().Done():
					return
				}
			}
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		switch req.Method {
		case "initialize":
			s.out <- `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"result":{"protocolVersion":"2024-11-05","capabilities":{"tools":{}},"serverInfo":{"name":"sse-late","version":"0"}}}`
		case "tools/call":
			s.calls <- string(req.ID)
		}
	}))
	t.Cleanup(srv.Close)
	s.url = srv.URL + "/sse"
	return s
}

// answer writes call id's result, echoing marker, on the stream.
func (s *sseLateServer) answer(id, marker string) {
	s.out <- `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"done"}],"_meta":{"` + MarkerMeta + `":"` + marker + `"}}}`
}

// TestSSELegacyStaleAnswer: on the 2024-11-05 HTTP+SSE transport, the
// answer of a call we cancelled that comes after its late window is a
// stale answer, and the marker it echoes goes to Config.OnStaleAnswer, as
// on a 2025 Streamable HTTP stream (a gateway test counts that
// execution). An answer within the late window is the call's own: no
// stale answer, no echo handed on.
func TestSSELegacyStaleAnswer(t *testing.T) {
	for _, tt := range []struct {
		name  string
		late  time.Duration
		stale bool
	}{
		{"after the late window", 100 * time.Millisecond, true},
		{"within the late window", 2 * time.Second, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := startSSELate(t)
			echoes := make(chan string, 1)
			c, err := Dial(ctxT(t), Config{HTTP: &HTTPConfig{URL: s.url, Transport: TransportSSE}, LateWindow: tt.late,
				OnStaleAnswer: func(marker string, _ time.Time) { echoes <- marker }})
			if err != nil {
				t.Fatal(err)
			}
			closeClient(t, c)
			rec := newRecorder()
			call, err := c.Start(ctxT(t), CallRequest{Tool: "stubborn", Observer: rec, Marker: Marker{Run: "r2", Seq: 4}})
			if err != nil {
				t.Fatal(err)
			}
			id := testutil.Receive(t, "the call to reach the server", s.calls)
			if err := call.Cancel("test", false); err != nil {
				t.Fatal(err)
			}
			if tt.stale {
				tr := c.tr.(*sseTransport)
				testutil.Eventually(t, "the late window to pass", func() bool { return tr.lookup(call.ID()) == nil })
			}
			s.answer(id, "r2.4.0")
			if !tt.stale {
				rec.waitFor(t, "the answer within the late window", func(evs []Event) bool { return count(evs, EvResult) == 1 })
				if !holds(t, 300*time.Millisecond, func() bool { return len(echoes) == 0 && c.Stats().StaleAnswers == 0 }) {
					t.Errorf("an answer within the late window handed on as stale (stats %+v)", c.Stats())
				}
				return
			}
			if got := testutil.Receive(t, "the stale answer's marker", echoes); got != "r2.4.0" {
				t.Errorf("OnStaleAnswer got marker %q, want the call's r2.4.0", got)
			}
			if st := c.Stats(); st.StaleAnswers != 1 || st.Stale != 1 {
				t.Errorf("stale %d, stale answers %d; want the one answer", st.Stale, st.StaleAnswers)
			}
		})
	}
}
