package proxy_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestSDKClientProgressFaults records what the Go SDK's client does under
// the progress faults, in both eras: the progress values it was handed,
// the call's outcome and the proxy's record.
func TestSDKClientProgressFaults(t *testing.T) {
	tests := []struct {
		name, faults string
		steps        int
		check        func(t *testing.T, got []float64, res *mcp.CallToolResult, err error, rec proxy.CallRecord)
	}{
		{name: "progress_stall: no idle timeout, so it waits until the hold",
			faults: "  - {kind: progress_stall, after: 120ms}\n", steps: 20,
			check: func(t *testing.T, got []float64, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
				if err == nil {
					t.Errorf("CallTool: got %v, want an error when the proxy gives up", res)
				}
				if len(got) >= 20 {
					t.Errorf("got %d progress notifications, want the stall to swallow most of 20", len(got))
				}
				if rec.Reaction != "never_cancelled" || rec.HeldMs < 1500 {
					t.Errorf("record: got %s held %vms, want never_cancelled held the 1.5s hold", rec.Reaction, rec.HeldMs)
				}
			}},
		{name: "progress_regress: the lower value is handed on, the answer taken",
			faults: "  - {kind: progress_regress, after: 100ms}\n", steps: 6,
			check: func(t *testing.T, got []float64, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
				if err != nil || res == nil || res.IsError {
					t.Errorf("CallTool: got %v, %v; want the result", res, err)
				}
				regressed := false
				for i := 1; i < len(got); i++ {
					regressed = regressed || got[i] <= got[i-1]
				}
				if !regressed {
					t.Errorf("progress %v: want the injected non-increasing value handed to the handler", got)
				}
				if rec.Reaction != "answered" {
					t.Errorf("record: got %s, want answered", rec.Reaction)
				}
			}},
		{name: "progress_after_response: the answer stands",
			faults: "  - {kind: progress_after_response}\n", steps: 3,
			check: func(t *testing.T, got []float64, res *mcp.CallToolResult, err error, rec proxy.CallRecord) {
				if err != nil || res == nil || res.IsError {
					t.Errorf("CallTool: got %v, %v; want the result", res, err)
				}
				// The SDK stops reading the request's stream at the
				// response: the progress after it (4) is never handed on.
				if len(got) != 3 || got[2] != 3 {
					t.Errorf("progress %v: want the upstream's 1, 2, 3 only", got)
				}
				if rec.Reaction != "answered" {
					t.Errorf("record: got %s, want answered", rec.Reaction)
				}
			}},
	}
	for _, tc := range tests {
		for _, era := range eras {
			t.Run(era.name+"/"+tc.name, func(t *testing.T) {
				r := startProxy(t, "1500ms", tc.faults)
				seen := &progressSeen{}
				cs := sdkSessionWith(t, r.url, era.version, seen.options())
				ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
				defer cancel()
				res, err := cs.CallTool(ctx, slowTask(tc.steps))
				testutil.Eventually(t, "the call's record", func() bool {
					recs := r.p.Records()
					return len(recs) == 1 && recs[0].Reaction != ""
				})
				// A notification after the response may reach the handler
				// a moment after CallTool returned.
				wait(ctx, 100*time.Millisecond)
				r.stop()
				got := seen.values()
				t.Logf("progress handed to the handler: %v; err %v", got, err)
				tc.check(t, got, res, err, r.p.Records()[0])
			})
		}
	}
}

// TestProgressAfterResponseOnTheWire reads a call's stream through the
// proxy as bytes: the injected progress comes after the final response,
// on the same stream, numbered above the upstream's.
func TestProgressAfterResponseOnTheWire(t *testing.T) {
	r := startProxy(t, "1m", "  - {kind: progress_after_response}\n")
	status, body := post(t, r.url, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":2,"step_ms":20},"_meta":{"progressToken":"t7","io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	result := strings.Index(body, `"result"`)
	if status != 200 || result < 0 || !strings.Contains(body[result:], `"progress":3`) || !strings.Contains(body[result:], "progress_after_response") {
		t.Fatalf("got %d, want the result then a progress of 3 after it:\n%s", status, body)
	}
}
