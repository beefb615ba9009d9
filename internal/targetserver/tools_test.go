package targetserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transport is one way of reaching a target in the wire tests.
type transport struct {
	name    string
	stdio   bool
	version string // client's protocol version; "" = 2026-07-28 first
}

var transports = []transport{
	{"http 2026", false, ""},
	{"http 2025-11-25", false, "2025-11-25"},
	{"stdio 2026", true, ""},
	{"stdio 2025-11-25", true, "2025-11-25"},
}

// start runs a target for cfg on tr and returns it, a client session and
// the URL of its metrics.
func (tr transport) start(t *testing.T, cfg Config, log *progressLog) (*Server, *mcp.ClientSession, string) {
	t.Helper()
	if tr.stdio {
		s, cs := startStdio(t, cfg, tr.version, log)
		ms := httptest.NewServer(s.MetricsHandler())
		t.Cleanup(ms.Close)
		return s, cs, ms.URL
	}
	r := startHTTP(t, cfg)
	return r.Server, connectHTTP(t, r, tr.version, log), r.MetricsURL
}

// TestTools drives every tool over every transport and era and checks the
// results on the wire and the ground-truth metrics.
func TestTools(t *testing.T) {
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			log := newProgressLog()
			s, cs, metricsURL := tr.start(t, Config{}, log)
			checkToolResults(t, tr, cs, log)
			checkToolCancel(t, s, cs)
			checkToolBadArguments(t, cs)
			checkToolCounts(t, s, metricsURL)
		})
	}
}

// checkToolResults checks the negotiated era, then calls each tool once and
// checks its result and progress.
func checkToolResults(t *testing.T, tr transport, cs *mcp.ClientSession, log *progressLog) {
	ctx := t.Context()
	wantEra := vocab.FirstModern
	if tr.version != "" {
		wantEra = tr.version
	}
	if got := cs.InitializeResult().ProtocolVersion; got != wantEra {
		t.Errorf("negotiated %s, want %s", got, wantEra)
	}

	if got, _ := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{"text": "hello"}}); got != "hello" {
		t.Errorf("echo = %q, want hello", got)
	}

	got, _ := callText(t, ctx, cs, &mcp.CallToolParams{
		Name: ToolSlowTask, Arguments: map[string]any{"steps": 3, "step_ms": 10},
		Meta: mcp.Meta{"progressToken": "slow-1"},
	})
	if got != "done: 3 steps of 10ms" {
		t.Errorf("slow_task = %q", got)
	}
	testutil.Eventually(t, "three progress notifications", func() bool { return len(log.values("slow-1")) == 3 })
	if v := log.values("slow-1"); v[0] != 1 || v[1] != 2 || v[2] != 3 {
		t.Errorf("slow_task progress = %v, want [1 2 3]", v)
	}
	log.mu.Lock()
	first := log.byTk["slow-1"][0]
	log.mu.Unlock()
	if first.Total != 3 || first.Message != "step 1 of 3" {
		t.Errorf("first progress = %+v, want total 3 and message \"step 1 of 3\"", first)
	}

	if got, _ := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolCPUTask, Arguments: map[string]any{"steps": 2, "step_ms": 20}}); got != "done: 2 steps of 20ms" {
		t.Errorf("cpu_task = %q", got)
	}

	// step_ms takes its default when left out.
	if got, _ := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolSlowTask, Arguments: map[string]any{"steps": 2}}); got != "done: 2 steps of 100ms" {
		t.Errorf("slow_task with default step_ms = %q", got)
	}

	if _, res := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolInflight}); inflightOf(t, res) != 0 {
		t.Errorf("inflight with nothing running = %d", inflightOf(t, res))
	}
}

// checkToolCancel starts a long call, checks that the inflight probe sees it
// (and not itself), and that a cancel stops it.
func checkToolCancel(t *testing.T, s *Server, cs *mcp.ClientSession) {
	ctx := t.Context()
	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: ToolSlowTask, Arguments: map[string]any{"steps": 1000, "step_ms": 50}})
		errc <- err
	}()
	testutil.Eventually(t, "the long call to start", func() bool { return s.Stats().Inflight == 1 })
	if _, res := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolInflight}); inflightOf(t, res) != 1 {
		t.Errorf("inflight during one call = %d, want 1", inflightOf(t, res))
	}
	cancel()
	if err := <-errc; err == nil {
		t.Errorf("cancelled call returned no error")
	}
	start := time.Now()
	testutil.Eventually(t, "the cancelled call to stop", func() bool { return s.Stats().Inflight == 0 })
	t.Logf("inflight back to 0 %v after the client returned", time.Since(start))
}

// checkToolBadArguments checks that invalid arguments are tool errors.
func checkToolBadArguments(t *testing.T, cs *mcp.ClientSession) {
	ctx := t.Context()
	for _, bad := range []map[string]any{{"steps": -1}, {"step_ms": MaxStepMs + 1}, {"steps": "many"}, {"steps": 1.5}} {
		_, res := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolSlowTask, Arguments: bad})
		if !res.IsError {
			t.Errorf("slow_task %v: not a tool error", bad)
		}
	}
	if _, res := callText(t, ctx, cs, &mcp.CallToolParams{Name: ToolEcho, Arguments: map[string]any{}}); !res.IsError {
		t.Errorf("echo without text: not a tool error")
	}
}

// checkToolCounts checks the target's stats and metrics after the calls of
// TestTools: five started, four completed, one cancelled.
func checkToolCounts(t *testing.T, s *Server, metricsURL string) {
	want := Stats{Started: 5, Completed: 4, Cancelled: 1, ProgressSent: 3}
	wantStats(t, s.Stats(), want)
	m := testutil.MustScrape(t, metricsURL)
	for name, v := range map[string]int64{
		"mcpchaos_target_inflight":            0,
		"mcpchaos_target_started_total":       want.Started,
		"mcpchaos_target_completed_total":     want.Completed,
		"mcpchaos_target_cancelled_total":     want.Cancelled,
		"mcpchaos_target_orphaned_total":      0,
		"mcpchaos_target_throttled_total":     0,
		"mcpchaos_target_progress_sent_total": want.ProgressSent,
		"mcpchaos_target_non_monotonic_total": 0,
	} {
		if got, ok := m[name]; !ok || got != float64(v) {
			t.Errorf("metric %s = %v (present %v), want %d", name, got, ok, v)
		}
	}
	if _, ok := m["process_cpu_seconds_total"]; !ok {
		t.Errorf("metric process_cpu_seconds_total missing")
	}
}

// inflightOf reads the inflight tool's structured result and checks that
// the text content says the same.
func inflightOf(t *testing.T, res *mcp.CallToolResult) int64 {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var out inflightResult
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("inflight structuredContent %s: %v", raw, err)
	}
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != string(raw) {
		t.Errorf("inflight text content %v, want %s", res.Content[0], raw)
	}
	return out.Inflight
}
