package targetserver

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	mc "github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// These tests drive the target with mcpchaos's own client (package mcp),
// the client every verdict rests on, over each transport and era, and
// check the wire and the ground-truth metrics.

// ourTarget is a running target reached with our client.
type ourTarget struct {
	client  *mc.Client
	metrics string // the target's /metrics
}

// ourTransports are the ways our client reaches a target.
var ourTransports = []struct {
	name  string
	stdio bool
	era   mc.Era
}{
	{"http 2026", false, ""},
	{"http 2025-11-25", false, mc.Era20251125},
	{"stdio 2026", true, ""},
	{"stdio 2025-11-25", true, mc.Era20251125},
}

// startOurs starts a target for cfg and connects our client to it: HTTP
// in-process, stdio as a real subprocess (the test binary as helper).
func startOurs(t *testing.T, cfg Config, stdio bool, era mc.Era) ourTarget {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	// A helper under -race on a busy machine takes more than the default
	// 5 s to answer its first request (then taken for a silent legacy
	// server), or to accept a connection.
	c := mc.Config{ProbeTimeout: testutil.WaitLong}
	var metrics string
	if stdio {
		b, err := json.Marshal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The helper listens on port 0 and says where on stderr.
		c.Stdio = &mc.StdioConfig{Command: []string{os.Args[0], "-test.run=^$"},
			Env: []string{helperEnv + "=" + string(b), helperMetricsEnv + "=127.0.0.1:0", "GORACE=atexit_sleep_ms=0"}}
	} else {
		r := startHTTP(t, cfg)
		c.HTTP = &mc.HTTPConfig{URL: r.URL, DialTimeout: testutil.WaitLong}
		metrics = r.MetricsURL
	}
	c.Protocol = era
	if cfg.ProgressAfterResponse {
		// The extra notification comes 10 ms after the result; on a
		// machine loaded far past its cores it came more than the default
		// 1 s late window after it, and was only counted as stale.
		c.LateWindow = 10 * time.Second
	}
	client, err := mc.Dial(ctx, c)
	if err != nil {
		t.Fatalf("dial the target: %v", err)
	}
	t.Cleanup(func() { _ = client.Close(context.Background()) })
	if want := era; want != "" && client.Era() != want {
		t.Errorf("era %s, want %s", client.Era(), want)
	}
	if era == "" && client.Era() != mc.Era20260728 {
		t.Errorf("auto-detected era %s, want 2026-07-28", client.Era())
	}
	if stdio {
		testutil.Eventually(t, "the helper's metrics address on its stderr", func() bool {
			metrics = testutil.ServeMetricsURL(string(client.Stderr()))
			return metrics != ""
		})
	}
	return ourTarget{client: client, metrics: metrics}
}

// events records one call's events.
type events struct {
	mu   sync.Mutex
	evs  []mc.Event
	done chan struct{}
}

func (e *events) OnEvent(ev mc.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	ev.Message, ev.Raw, ev.Result.Text = nil, nil, nil // only valid during the call
	e.evs = append(e.evs, ev)
}

func (e *events) progress() (values []float64, after int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.evs {
		if ev.Kind == mc.EvProgress {
			values = append(values, ev.Progress)
			if ev.AfterFinal {
				after++
			}
		}
	}
	return values, after
}

func (e *events) first(kind mc.EventKind) (mc.Event, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.evs {
		if ev.Kind == kind {
			return ev, true
		}
	}
	return mc.Event{}, false
}

// start sends a call with a progress token and drives it (Call.Wait, on
// HTTP, is what reads the stream) until it ends.
func (o ourTarget) start(t *testing.T, tool, args string) (*mc.Call, *events) {
	t.Helper()
	ev := &events{done: make(chan struct{})}
	call, err := o.client.Start(t.Context(), mc.CallRequest{Tool: tool, Arguments: json.RawMessage(args), Progress: true, Observer: ev})
	if err != nil {
		t.Fatalf("start %s: %v", tool, err)
	}
	go func() { call.Wait(); close(ev.done) }()
	return call, ev
}

// waitDone waits, bounded, for a call started with start to end.
func waitDone(t *testing.T, ev *events) {
	t.Helper()
	select {
	case <-ev.done:
	case <-time.After(testutil.WaitLong):
		t.Fatal("the call did not end")
	}
}

func (o ourTarget) metric(t *testing.T, name string) float64 {
	t.Helper()
	return testutil.MustScrape(t, o.metrics)[name]
}

// TestOurClientTools drives every tool with our client over every
// transport: the answers, the progress, and the metrics.
func TestOurClientTools(t *testing.T) {
	for _, tr := range ourTransports {
		t.Run(tr.name, func(t *testing.T) {
			t.Parallel()
			o := startOurs(t, Config{}, tr.stdio, tr.era)
			res, err := o.client.CallTool(t.Context(), ToolEcho, json.RawMessage(`{"text":"hi there"}`))
			if err != nil || mc.Unquote(res.Result.Text) != "hi there" || res.Result.IsError {
				t.Errorf("echo = %q (isError %v), %v", res.Result.Text, res.Result.IsError, err)
			}
			for _, tool := range []string{ToolSlowTask, ToolCPUTask} {
				_, ev := o.start(t, tool, `{"steps":4,"step_ms":20}`)
				waitDone(t, ev)
				got, _ := ev.progress()
				if !slices.Equal(got, []float64{1, 2, 3, 4}) {
					t.Errorf("%s progress %v, want 1..4", tool, got)
				}
				if r, ok := ev.first(mc.EvResult); !ok || r.Result.IsError {
					t.Errorf("%s: no successful result (%+v)", tool, r)
				}
			}
			// inflight counts the calls running now, not itself.
			long, _ := o.start(t, ToolSlowTask, `{"steps":200,"step_ms":20}`)
			testutil.Eventually(t, "the long call to run", func() bool { return o.metric(t, "mcpchaos_target_inflight") == 1 })
			res, err = o.client.CallTool(t.Context(), ToolInflight, nil)
			var n struct{ Inflight int }
			if err == nil {
				err = json.Unmarshal([]byte(mc.Unquote(res.Result.Text)), &n)
			}
			if err != nil || n.Inflight != 1 {
				t.Errorf("inflight tool says %+v (%v), want 1", n, err)
			}
			_ = long.Cancel("test over", false)
			testutil.Eventually(t, "the cancelled call to stop", func() bool { return o.metric(t, "mcpchaos_target_inflight") == 0 })
			if got := o.metric(t, "mcpchaos_target_completed_total"); got != 3 {
				t.Errorf("completed_total %v, want 3 (echo, slow_task, cpu_task)", got)
			}
			if got := o.metric(t, "mcpchaos_target_cancelled_total"); got != 1 {
				t.Errorf("cancelled_total %v, want 1", got)
			}
		})
	}
}

// cancelAfterStart starts a 4 s slow_task on o, waits until the target
// runs it, and cancels it.
func cancelAfterStart(t *testing.T, o ourTarget) (*mc.Call, *events) {
	// 4 s of work: a leaked call still runs when the test looks.
	call, ev := o.start(t, ToolSlowTask, `{"steps":200,"step_ms":20}`)
	testutil.Eventually(t, "the call to run", func() bool { return o.metric(t, "mcpchaos_target_inflight") == 1 })
	if err := call.Cancel("knob test", false); err != nil {
		t.Fatalf("cancel: %v", err)
	}
	return call, ev
}

// knobCase is one knob of TestOurClientKnobs: the target's configuration,
// the transports it does not apply to, and what our client must see.
type knobCase struct {
	name   string
	cfg    Config
	skip   func(stdio bool, era mc.Era) bool
	verify func(t *testing.T, o ourTarget, tr string)
}

// ourKnobCases are the cases of TestOurClientKnobs, one per knob.
var ourKnobCases = []knobCase{
	{"default cancel stops the call", Config{}, nil, func(t *testing.T, o ourTarget, _ string) {
		cancelAfterStart(t, o)
		testutil.Eventually(t, "cancelled_total", func() bool { return o.metric(t, "mcpchaos_target_cancelled_total") == 1 })
		testutil.Eventually(t, "inflight back to 0", func() bool { return o.metric(t, "mcpchaos_target_inflight") == 0 })
		if got := o.metric(t, "mcpchaos_target_orphaned_total"); got != 0 {
			t.Errorf("orphaned_total %v, want 0", got)
		}
	}},
	{"leak_on_cancel keeps it running", Config{LeakOnCancel: 1}, nil, func(t *testing.T, o ourTarget, _ string) {
		cancelAfterStart(t, o)
		testutil.Eventually(t, "orphaned_total", func() bool { return o.metric(t, "mcpchaos_target_orphaned_total") == 1 })
		if got := o.metric(t, "mcpchaos_target_inflight"); got != 1 {
			t.Errorf("inflight %v after the cancel, want the leaked call", got)
		}
	}},
	{"stop_delay stops late", Config{StopDelay: 400 * time.Millisecond}, nil, func(t *testing.T, o ourTarget, _ string) {
		at := time.Now()
		cancelAfterStart(t, o)
		testutil.Eventually(t, "cancelled_total", func() bool { return o.metric(t, "mcpchaos_target_cancelled_total") == 1 })
		if took := time.Since(at); took < 400*time.Millisecond {
			t.Errorf("stopped %v after the cancel, want at least the stop delay", took)
		}
	}},
	{"propagate_cancel false leaks on a 2026 disconnect", Config{NoPropagateCancel: true},
		func(stdio bool, era mc.Era) bool { return stdio || era != "" }, func(t *testing.T, o ourTarget, _ string) {
			cancelAfterStart(t, o)
			testutil.Eventually(t, "orphaned_total", func() bool { return o.metric(t, "mcpchaos_target_orphaned_total") == 1 })
		}},
	{"progress_flood_hz adds increasing progress", Config{ProgressFloodHz: 200}, nil, func(t *testing.T, o ourTarget, _ string) {
		_, ev := o.start(t, ToolSlowTask, `{"steps":3,"step_ms":100}`)
		waitDone(t, ev)
		got, _ := ev.progress()
		if len(got) <= 3 || violations(got) != 0 {
			t.Errorf("progress %v: want more than the 3 steps, strictly increasing", got)
		}
	}},
	{"stall_after stops progress", Config{StallAfter: 2}, nil, func(t *testing.T, o ourTarget, _ string) {
		_, ev := o.start(t, ToolSlowTask, `{"steps":5,"step_ms":20}`)
		waitDone(t, ev)
		if got, _ := ev.progress(); !slices.Equal(got, []float64{1, 2}) {
			t.Errorf("progress %v, want 1, 2 then silence", got)
		}
		if _, ok := ev.first(mc.EvResult); !ok {
			t.Error("no result: a stalled call still finishes")
		}
	}},
	{"endless never finishes", Config{Endless: true}, nil, func(t *testing.T, o ourTarget, _ string) {
		call, ev := o.start(t, ToolSlowTask, `{"step_ms":10}`)
		testutil.Eventually(t, "20 progress notifications", func() bool { v, _ := ev.progress(); return len(v) >= 20 })
		if _, ok := ev.first(mc.EvResult); ok {
			t.Error("an endless call answered")
		}
		_ = call.Cancel("test over", false)
	}},
	{"non_monotonic matches the target's count", Config{NonMonotonic: 0.5, Seed: 3}, nil, func(t *testing.T, o ourTarget, _ string) {
		_, ev := o.start(t, ToolSlowTask, `{"steps":30,"step_ms":5}`)
		waitDone(t, ev)
		got, _ := ev.progress()
		want := o.metric(t, "mcpchaos_target_non_monotonic_total")
		if want == 0 || float64(violations(got)) != want {
			t.Errorf("%d non-monotonic values seen, the target sent %v", violations(got), want)
		}
	}},
	{"progress_after_response", Config{ProgressAfterResponse: true},
		func(stdio bool, _ mc.Era) bool { return !stdio }, func(t *testing.T, o ourTarget, _ string) {
			_, ev := o.start(t, ToolSlowTask, `{"steps":2,"step_ms":10}`)
			waitDone(t, ev)
			testutil.Eventually(t, "progress after the response", func() bool { _, after := ev.progress(); return after == 1 })
		}},
	{"rate_limit throttles", Config{RateLimit: Rate{Freq: 1, Per: time.Hour}, RateLimitCode: -32000}, nil, func(t *testing.T, o ourTarget, tr string) {
		_, first := o.start(t, ToolEcho, `{"text":"first"}`)
		waitDone(t, first)
		_, ev := o.start(t, ToolEcho, `{"text":"second"}`)
		waitDone(t, ev)
		if h, ok := ev.first(mc.EvHeaders); ok {
			if h.Status != 429 || h.RetryAfter < time.Second {
				t.Errorf("%s: status %d Retry-After %v, want 429 and at least 1s", tr, h.Status, h.RetryAfter)
			}
		}
		if e, ok := ev.first(mc.EvRPCError); !ok || e.Code != -32000 {
			t.Errorf("%s: error %+v, want code -32000", tr, e)
		}
		testutil.Eventually(t, "throttled_total", func() bool { return o.metric(t, "mcpchaos_target_throttled_total") == 1 })
	}},
}

// TestOurClientKnobs drives each knob with our client and checks what
// the wire shows against the target's own count.
func TestOurClientKnobs(t *testing.T) {
	for _, c := range ourKnobCases {
		for _, tr := range ourTransports {
			if c.skip != nil && c.skip(tr.stdio, tr.era) {
				continue
			}
			t.Run(c.name+"/"+tr.name, func(t *testing.T) {
				t.Parallel()
				c.verify(t, startOurs(t, c.cfg, tr.stdio, tr.era), tr.name)
			})
		}
	}
}

// TestOurClientExitDelay: on stdin EOF the stdio target exits only after
// its exit delay, as our client measures it.
func TestOurClientExitDelay(t *testing.T) {
	for _, d := range []time.Duration{0, 500 * time.Millisecond} {
		o := startOurs(t, Config{ExitDelay: d}, true, "")
		if err := o.client.Close(t.Context()); err != nil {
			t.Fatalf("close: %v", err)
		}
		got := o.client.ExitLatency()
		if got < d || got > d+testutil.WaitLong {
			t.Errorf("exit delay %v: exited %v after stdin closed", d, got)
		}
	}
}
