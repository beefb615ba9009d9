package targetserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveCalls serves s's /calls on a loopback port (as serve --stdio
// --metrics-listen does) and returns its base URL.
func serveCalls(t *testing.T, s *Server) string {
	t.Helper()
	var lc net.ListenConfig
	ln, err := lc.Listen(t.Context(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: s.CallsHandler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	return "http://" + ln.Addr().String()
}

// readCalls reads GET base/calls with query, bounded.
func readCalls(t *testing.T, base, query string) results.TruthPage {
	t.Helper()
	resp := post(t, t.Context(), http.MethodGet, base+"/calls"+query, nil, "")
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /calls%s: status %d, %v: %s", query, resp.StatusCode, err, b)
	}
	var p results.TruthPage
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("GET /calls: %v: %s", err, b)
	}
	return p
}

// byMarker finds a record.
func byMarker(p results.TruthPage, marker string) []results.TruthCall {
	var out []results.TruthCall
	for _, c := range p.Calls {
		if c.Marker == marker {
			out = append(out, c)
		}
	}
	return out
}

func marked(marker, tool string, args map[string]any, token any) *mcp.CallToolParams {
	p := &mcp.CallToolParams{Name: tool, Arguments: args, Meta: mcp.Meta{results.MarkerMeta: marker}}
	if token != nil {
		p.SetProgressToken(token)
	}
	return p
}

// TestTruthRecords: a marked call's record holds its request id, era,
// transport, each progress notification with its send time, and its end;
// the result carries the marker back; an unmarked call has no record.
func TestTruthRecords(t *testing.T) {
	for _, tc := range []struct {
		name, transport, version, era string
	}{
		{"2026 HTTP", "http", "2026-07-28", "2026-07-28"},
		{"2025 HTTP", "http", "2025-11-25", "2025-11-25"},
		{"2026 stdio", "stdio", "2026-07-28", "2026-07-28"},
		{"2025 stdio", "stdio", "2025-06-18", "2025-06-18"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var cs *mcp.ClientSession
			var calls string
			if tc.transport == "http" {
				r := startHTTP(t, Config{})
				cs, calls = connectHTTP(t, r, tc.version, nil), "http://"+r.Addr
			} else {
				var s *Server
				s, cs = startStdio(t, Config{}, tc.version, nil)
				calls = serveCalls(t, s)
			}
			before := time.Now()
			res, err := cs.CallTool(t.Context(), marked("r.1.0", ToolSlowTask, map[string]any{"steps": 3, "step_ms": 20}, "tok-1"))
			if err != nil || res.IsError {
				t.Fatalf("slow_task: %v %+v", err, res)
			}
			if res.Meta[results.MarkerMeta] != "r.1.0" {
				t.Errorf("result _meta %v does not carry the marker", res.Meta)
			}
			if _, err := cs.CallTool(t.Context(), marked("r.2.0", ToolEcho, map[string]any{"text": "x"}, nil)); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{"text": "x"}}); err != nil {
				t.Fatal(err)
			}
			p := readCalls(t, calls, "")
			if len(p.Calls) != 2 || p.Capacity != TruthCapacity || p.Dropped != 0 || p.Now.Before(before) {
				t.Fatalf("page %+v: want the two marked calls", p)
			}
			c := byMarker(p, "r.1.0")[0]
			if c.Tool != ToolSlowTask || c.Era != tc.era || c.Transport != tc.transport || c.RequestID == "" || c.Throttled {
				t.Errorf("record %+v: want slow_task, era %s, %s, a request id", c, tc.era, tc.transport)
			}
			if len(c.Progress) != 3 || c.Completed.IsZero() || c.Ended.IsZero() || !c.Cancelled.IsZero() {
				t.Fatalf("record %+v: want 3 notifications and a completion", c)
			}
			for i, pr := range c.Progress {
				if pr.Value != float64(i+1) || pr.At.Before(c.Started) || pr.At.After(c.Completed) ||
					(i > 0 && !pr.At.After(c.Progress[i-1].At)) {
					t.Errorf("notification %d: %+v (started %s, completed %s)", i, pr, c.Started, c.Completed)
				}
			}
			if e := byMarker(p, "r.2.0")[0]; e.Tool != ToolEcho || e.Completed.IsZero() || len(e.Progress) != 0 {
				t.Errorf("echo record %+v", e)
			}
			// Only what changed since a moment is read again.
			if again := readCalls(t, calls, "?since="+p.Now.Format(time.RFC3339Nano)); len(again.Calls) != 0 {
				t.Errorf("since the last read: %d records, want none", len(again.Calls))
			}
		})
	}
}

// TestTruthRecordsCancel: a cancelled call's record says when the handler
// learned of the cancel, and that it did not complete.
func TestTruthRecordsCancel(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			r := startHTTP(t, Config{})
			cs := connectHTTP(t, r, version, nil)
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, marked("r.3.0", ToolSlowTask, map[string]any{"steps": 100, "step_ms": 50}, "tok-3"))
				done <- err
			}()
			base := "http://" + r.Addr
			testutil.Eventually(t, "the call to start", func() bool {
				c := byMarker(readCalls(t, base, ""), "r.3.0")
				return len(c) == 1 && len(c[0].Progress) > 0
			})
			cancel()
			testutil.Receive(t, "the cancelled call to return", done)
			testutil.Eventually(t, "the record to end", func() bool {
				c := byMarker(readCalls(t, base, ""), "r.3.0")[0]
				return !c.Ended.IsZero()
			})
			c := byMarker(readCalls(t, base, ""), "r.3.0")[0]
			if c.Cancelled.IsZero() || !c.Completed.IsZero() || c.Cancelled.After(c.Ended) {
				t.Errorf("record %+v: want cancelled, not completed", c)
			}
		})
	}
}

// TestTruthRecordsThrottled: a marked call the rate limit refuses has a
// record with the Retry-After sent, over HTTP (the header) and stdio
// (data.retryAfter).
func TestTruthRecordsThrottled(t *testing.T) {
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			cfg := Config{RateLimit: oneCall}
			var cs *mcp.ClientSession
			var base string
			if transport == "http" {
				r := startHTTP(t, cfg)
				cs, base = connectHTTP(t, r, "2026-07-28", nil), "http://"+r.Addr
			} else {
				var s *Server
				s, cs = startStdio(t, cfg, "2026-07-28", nil)
				base = serveCalls(t, s)
			}
			if _, err := cs.CallTool(t.Context(), marked("r.4.0", ToolEcho, map[string]any{"text": "x"}, nil)); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.CallTool(t.Context(), marked("r.5.0", ToolEcho, map[string]any{"text": "x"}, nil)); err == nil {
				t.Fatal("the second call was not throttled")
			}
			p := readCalls(t, base, "")
			ok, refused := byMarker(p, "r.4.0"), byMarker(p, "r.5.0")
			if len(ok) != 1 || ok[0].Throttled || len(refused) != 1 {
				t.Fatalf("records %+v", p.Calls)
			}
			if c := refused[0]; !c.Throttled || c.RetryAfterS < 1 || c.RetryAfterS > 10 || c.Transport != transport || c.Era != "2026-07-28" {
				t.Errorf("refused call's record %+v: want throttled with Retry-After 1..10 s", c)
			}
		})
	}
}

// TestTruthRing: the records are a ring of fixed capacity; a page is
// bounded, says when there is more, and how many records were evicted.
func TestTruthRing(t *testing.T) {
	l := newTruthLog(3)
	var recs []*truthRec
	for i := range 5 {
		recs = append(recs, l.begin(fmt.Sprintf("r.%d.0", i), "", ToolEcho, "", "http"))
	}
	if l.begin("", "1", ToolEcho, "", "http") != nil {
		t.Error("an unmarked call got a record")
	}
	p := l.page(time.Time{}, 10)
	if len(p.Calls) != 3 || p.Dropped != 2 || p.Capacity != 3 || p.Calls[0].Marker != "r.2.0" || !p.Oldest.Equal(p.Calls[0].Started) {
		t.Fatalf("page %+v: want the last 3 of 5, 2 dropped", p)
	}
	mid := time.Now()
	recs[3].ended(true)
	p = l.page(mid, 10)
	if len(p.Calls) != 1 || p.Calls[0].Marker != "r.3.0" || p.More {
		t.Errorf("since an update: %+v, want only r.3.0", p.Calls)
	}
	if p = l.page(time.Time{}, 2); len(p.Calls) != 2 || !p.More {
		t.Errorf("a page of 2: %d records, more %v", len(p.Calls), p.More)
	}
	for range results.MaxTruthProgress + 5 {
		recs[4].progress(1, time.Now())
	}
	p = l.page(time.Time{}, 10)
	if c := byMarker(p, "r.4.0")[0]; len(c.Progress) != results.MaxTruthProgress || c.ProgressDropped != 5 {
		t.Errorf("progress kept %d, dropped %d: want %d and 5", len(c.Progress), c.ProgressDropped, results.MaxTruthProgress)
	}
}

// TestCallsHandlerErrors: bad requests get a status and a message that
// quotes the value.
func TestCallsHandlerErrors(t *testing.T) {
	t.Parallel()
	r := startHTTP(t, Config{})
	base := "http://" + r.Addr
	for _, tc := range []struct {
		name, method, query string
		status              int
		says                string
	}{
		{"bad since", http.MethodGet, "?since=yesterday", http.StatusBadRequest, `since "yesterday"`},
		{"bad limit", http.MethodGet, "?limit=0", http.StatusBadRequest, `limit "0"`},
		{"post", http.MethodPost, "", http.StatusMethodNotAllowed, "GET /calls"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := post(t, t.Context(), tc.method, base+"/calls"+tc.query, nil, "")
			defer resp.Body.Close()
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
			if resp.StatusCode != tc.status || !strings.Contains(string(b), tc.says) {
				t.Errorf("status %d %q, want %d saying %q", resp.StatusCode, b, tc.status, tc.says)
			}
		})
	}
}
