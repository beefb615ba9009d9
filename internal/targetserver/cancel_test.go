package targetserver

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// startLongCall calls slow_task in the background with a progress token and
// waits until the server runs it. Cancelling the returned function cancels
// the call (stdio and 2025 HTTP: notifications/cancelled; 2026 HTTP: the
// client closes the stream).
func startLongCall(t *testing.T, s *Server, cs *mcp.ClientSession, args map[string]any, token string) (cancel func(), done <-chan error) {
	t.Helper()
	// Read the count before the call can start: read after, it may already
	// include the call, and the wait below would never end.
	before := s.Stats().Started
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolSlowTask, Arguments: args, Meta: mcp.Meta{"progressToken": token}})
		errc <- err
	}()
	testutil.Eventually(t, "the call to start", func() bool { return s.Stats().Started > before })
	return cancel, errc
}

// TestLeakOnCancel: with LeakOnCancel 1 a cancelled call keeps running to
// the end, and orphaned_total goes up by one when the cancel arrives.
func TestLeakOnCancel(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			log := newProgressLog()
			s, cs, metricsURL := tr.start(t, Config{LeakOnCancel: 1}, log)
			// 2 s of work: the leaked call is still running when the test
			// looks, however busy the machine.
			cancel, done := startLongCall(t, s, cs, map[string]any{"steps": 80, "step_ms": 25}, "leak")
			cancel()
			<-done
			testutil.Eventually(t, "orphaned_total to count the cancel", func() bool { return s.Stats().Orphaned == 1 })
			if s.Stats().Inflight != 1 {
				t.Errorf("inflight = %d right after the cancel, want the leaked call (1)", s.Stats().Inflight)
			}
			testutil.Eventually(t, "the leaked call to finish", func() bool { return s.Stats().Completed == 1 })
			testutil.Eventually(t, "inflight to drop", func() bool { return s.Stats().Inflight == 0 })
			wantStats(t, s.Stats(), Stats{Started: 1, Completed: 1, Orphaned: 1, ProgressSent: s.Stats().ProgressSent})
			if m := testutil.MustScrape(t, metricsURL); m["mcpchaos_target_orphaned_total"] != 1 || m["mcpchaos_target_cancelled_total"] != 0 {
				t.Errorf("metrics orphaned %v cancelled %v, want 1 and 0",
					m["mcpchaos_target_orphaned_total"], m["mcpchaos_target_cancelled_total"])
			}
		})
	}
}

// TestStopDelay: a cancelled call notices only after StopDelay, then stops
// and counts as cancelled. Only the lower bound on the delay is asserted.
func TestStopDelay(t *testing.T) {
	const delay = 300 * time.Millisecond
	for _, tr := range []transport{transports[0], transports[2]} {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			s, cs, _ := tr.start(t, Config{StopDelay: delay}, newProgressLog())
			cancel, done := startLongCall(t, s, cs, map[string]any{"steps": 1000, "step_ms": 20}, "late")
			start := time.Now()
			cancel()
			<-done
			testutil.Eventually(t, "the call to stop", func() bool { return s.Stats().Inflight == 0 })
			if took := time.Since(start); took < delay {
				t.Errorf("call stopped %v after the cancel, before the stop delay %v", took, delay)
			}
			st := s.Stats()
			wantStats(t, st, Stats{Started: 1, Cancelled: 1, ProgressSent: st.ProgressSent})
		})
	}
}

// TestPropagateCancel: on 2026-07-28 HTTP a closed stream cancels the tool
// by default; with NoPropagateCancel (the SDK's own default) the tool runs
// on and the disconnect counts as an orphan. Both the SDK client (which
// also posts a cancel notification that a stateless server cannot match)
// and a raw client (which only drops the connection) are tried.
func TestPropagateCancel(t *testing.T) {
	tests := []struct {
		name        string
		noPropagate bool
		raw         bool
	}{
		{"propagate, sdk client", false, false},
		{"propagate, raw disconnect", false, true},
		{"no propagate, sdk client", true, false},
		{"no propagate, raw disconnect", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := startHTTP(t, Config{NoPropagateCancel: tt.noPropagate})
			s := r.Server
			args := map[string]any{"steps": 10, "step_ms": 30}
			if tt.raw {
				disconnectAfterProgress(t, r.URL, args)
			} else {
				cs := connectHTTP(t, r, "", nil)
				cancel, done := startLongCall(t, s, cs, args, "p")
				cancel()
				<-done
			}
			if tt.noPropagate {
				testutil.Eventually(t, "the disconnect to count as an orphan", func() bool { return s.Stats().Orphaned == 1 })
				testutil.Eventually(t, "the orphaned call to finish", func() bool { return s.Stats().Completed == 1 })
				testutil.Eventually(t, "inflight to drop", func() bool { return s.Stats().Inflight == 0 })
				st := s.Stats()
				wantStats(t, st, Stats{Started: 1, Completed: 1, Orphaned: 1, ProgressSent: st.ProgressSent})
				return
			}
			testutil.Eventually(t, "the call to be cancelled", func() bool { return s.Stats().Cancelled == 1 })
			testutil.Eventually(t, "inflight to drop", func() bool { return s.Stats().Inflight == 0 })
			st := s.Stats()
			wantStats(t, st, Stats{Started: 1, Cancelled: 1, ProgressSent: st.ProgressSent})
		})
	}
}

// disconnectAfterProgress posts a 2026-07-28 slow_task, reads its SSE stream
// until the first progress notification, then drops the connection.
func disconnectAfterProgress(t *testing.T, url string, args map[string]any) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp := post(t, ctx, http.MethodPost, url, modernHeaders("tools/call", ToolSlowTask), modernCall(7, ToolSlowTask, args, "raw-tk"))
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before any progress: %v", err)
		}
		if strings.HasPrefix(line, "data:") && strings.Contains(line, "notifications/progress") {
			return // cancel and Close drop the connection
		}
	}
}
