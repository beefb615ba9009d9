package proxy_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// sdkSession connects the official Go SDK's client to url at version
// ("" lets it choose: 2026-07-28 first).
func sdkSession(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	return sdkSessionWith(t, url, version, nil)
}

// sdkSessionWith is sdkSession with the client's options.
func sdkSessionWith(t *testing.T, url, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "0"}, opts)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect the SDK client to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// progressSeen keeps the progress values an SDK client's handler got.
type progressSeen struct {
	mu  sync.Mutex
	got []float64
}

// options are client options whose progress handler keeps every value.
func (p *progressSeen) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		p.mu.Lock()
		p.got = append(p.got, req.Params.Progress)
		p.mu.Unlock()
	}}
}

// values returns a copy of the values so far.
func (p *progressSeen) values() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]float64(nil), p.got...)
}

func slowTask(steps int) *mcp.CallToolParams {
	p := &mcp.CallToolParams{Name: "slow_task", Arguments: map[string]any{"steps": steps, "step_ms": 50}}
	p.SetProgressToken("tok-1")
	return p
}

// eras are the versions the SDK client is connected at: "" lets it choose
// (2026-07-28, served statelessly), and 2025-11-25 (a session).
var eras = []struct{ name, version string }{{"2026", ""}, {"2025", "2025-11-25"}}

// sdkFaultCase is one fault of TestSDKClient and its check of what the
// SDK client did and what the proxy recorded.
type sdkFaultCase struct {
	name, faults string
	timeout      time.Duration // the caller's context deadline; 0: none
	check        func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord)
}

// sdkFaultCases are the cases of TestSDKClient.
var sdkFaultCases = []sdkFaultCase{
	{name: "throttle: the error reaches the caller, no automatic retry",
		faults: "  - {kind: throttle, status: 429, retry_after: 1s}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil || !strings.Contains(err.Error(), "Too Many Requests") {
				t.Errorf("CallTool: got %v, %v; want the 429 as an error", res, err)
			}
			if rec.Reaction != "throttled" || rec.RetryAfterMs != 1000 {
				t.Errorf("record: got %s with Retry-After %vms, want throttled with 1000ms", rec.Reaction, rec.RetryAfterMs)
			}
		}},
	{name: "server_cancel: ignored, the answer is taken",
		faults: "  - {kind: server_cancel}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err != nil || res == nil || res.IsError {
				t.Errorf("CallTool: got %v, %v; want the tool's result", res, err)
			}
			if rec.Reaction != "answered" {
				t.Errorf("record: got %s, want answered (the client kept its stream open for the result)", rec.Reaction)
			}
		}},
	{name: "delay_response: the late answer is taken",
		faults: "  - {kind: delay_response, for: 700ms}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err != nil || res == nil || res.IsError || took < 700*time.Millisecond {
				t.Errorf("CallTool: got %v, %v after %v; want the result after at least 700ms", res, err, took)
			}
			if rec.Reaction != "answered" {
				t.Errorf("record: got %s, want answered", rec.Reaction)
			}
		}},
	{name: "drop_response without a timeout: never cancelled",
		faults: "  - {kind: drop_response}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want an error when the proxy gives up", res)
			}
			if rec.Reaction != "never_cancelled" || rec.HeldMs < 1500 {
				t.Errorf("record: got %s held %vms, want never_cancelled held the 1.5s hold", rec.Reaction, rec.HeldMs)
			}
		}},
	{name: "disconnect fin: the call fails, no retry",
		faults: "  - {kind: disconnect, after: 30ms}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want an error", res)
			}
			if rec.Reaction != "disconnected" {
				t.Errorf("record: got %s, want disconnected", rec.Reaction)
			}
		}},
	{name: "disconnect rst: the call fails, no retry",
		faults: "  - {kind: disconnect, mode: rst, after: 30ms}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want an error", res)
			}
			if rec.Reaction != "disconnected" {
				t.Errorf("record: got %s, want disconnected", rec.Reaction)
			}
		}},
	{name: "progress_endless without a timeout: never cancelled, held until the hold",
		faults: "  - {kind: progress_endless, every: 100ms}\n",
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want an error when the proxy gives up", res)
			}
			if rec.Reaction != "never_cancelled" || rec.HeldMs < 1500 || rec.HeldMs > 1500+10_000 {
				t.Errorf("record: got %s held %vms, want never_cancelled held about the 1.5s hold", rec.Reaction, rec.HeldMs)
			}
		}},
	{name: "progress_endless with a 1s deadline: cancelled the era's way",
		faults:  "  - {kind: progress_endless, every: 100ms}\n",
		timeout: time.Second,
		check: func(t *testing.T, era string, took time.Duration, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
			if err == nil {
				t.Errorf("CallTool: got %v, want the deadline's error", res)
			}
			// The SDK (v1.8.0) both closes the request's stream and POSTs
			// notifications/cancelled, in both eras (in 2026 the closed
			// stream alone is the cancel); which the proxy sees first
			// is a race, so either is accepted as how.
			if rec.Reaction != "cancelled" || !rec.CancelNotified {
				t.Errorf("record: got %s (%s, notified %v), want cancelled with a notification", rec.Reaction, rec.CancelHow, rec.CancelNotified)
			}
			if rec.CancelAfterMs < 900 || rec.CancelAfterMs > 1000+10_000 {
				t.Errorf("record: cancelled after %vms, want about 1s", rec.CancelAfterMs)
			}
		}},
}

// TestSDKClient records what the official Go SDK's client does under
// each fault, in both eras, and asserts it.
func TestSDKClient(t *testing.T) {
	for _, tc := range sdkFaultCases {
		for _, era := range eras {
			t.Run(era.name+"/"+tc.name, func(t *testing.T) {
				r := startProxy(t, "1500ms", tc.faults)
				cs := sdkSession(t, r.url, era.version)
				ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
				defer cancel()
				if tc.timeout > 0 {
					ctx, cancel = context.WithTimeout(ctx, tc.timeout)
					defer cancel()
				}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, slowTask(2))
				took := time.Since(t0)
				// The proxy's side of a cancel may settle just after the
				// client returns: wait for the record.
				testutil.Eventually(t, "the call's record", func() bool {
					recs := r.p.Records()
					return len(recs) == 1 && recs[0].Reaction != "" && (tc.timeout == 0 || recs[0].CancelNotified)
				})
				r.stop()
				recs := r.p.Records()
				t.Logf("took %v, err %v; record: %s", took, err, dump(recs))
				tc.check(t, era.name, took, res, err, recs[0])
			})
		}
	}
}

// TestSDKClientProgressFlood: under progress_flood at 200 Hz the SDK
// client takes the answer, and every progress value it got (the flood
// and the upstream's own, renumbered) is strictly increasing.
func TestSDKClientProgressFlood(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			r := startProxy(t, "1m", "  - {kind: progress_flood, hz: 200}\n")
			seen := &progressSeen{}
			cs := sdkSessionWith(t, r.url, era.version, seen.options())
			ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
			defer cancel()
			res, err := cs.CallTool(ctx, slowTask(10)) // about 500ms
			if err != nil || res == nil || res.IsError {
				t.Fatalf("CallTool: %v, %v", res, err)
			}
			r.stop()
			got := seen.values()
			// 500ms at 200 Hz is 100; a loaded machine delivers fewer,
			// but far more than the upstream's own 10.
			if len(got) < 20 {
				t.Errorf("got %d progress notifications, want the flood's (at least 20)", len(got))
			}
			for i := 1; i < len(got); i++ {
				if got[i] <= got[i-1] {
					t.Fatalf("progress %v after %v: not increasing", got[i], got[i-1])
				}
			}
			if rec := r.p.Records()[0]; rec.Reaction != "answered" {
				t.Errorf("record: got %s, want answered", rec.Reaction)
			}
			t.Logf("%d progress notifications in one call", len(got))
		})
	}
}
