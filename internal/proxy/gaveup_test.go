package proxy_test

import (
	"bufio"
	"context"
	"io"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestGaveUpOverSession: a client of a 2025 session (by hand, in front of
// the built-in target) closes a call's stream after its first event. With
// no notifications/cancelled that is no cancel in 2025: the call is
// recorded gave_up (when it closed), not cancelled; when the client then
// sends the notification, it cancelled, by notification.
func TestGaveUpOverSession(t *testing.T) {
	for _, tc := range []struct {
		name     string
		notify   bool
		reaction string
	}{{"closed only", false, "gave_up"}, {"closed, then notified", true, "cancelled"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := startProxy(t, "1m", "  []\n")
			ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
			defer cancel()
			s := &rawSession{t: t, url: r.url}
			resp := s.do(ctx, "POST", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
			io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if s.id = resp.Header.Get("Mcp-Session-Id"); s.id == "" {
				t.Fatal("no session id")
			}
			s.do(ctx, "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
			call := s.do(ctx, "POST", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow_task","arguments":{"steps":40,"step_ms":100},"_meta":{"progressToken":"p"}}}`)
			if _, err := bufio.NewReader(call.Body).ReadString('\n'); err != nil {
				t.Fatalf("read the call's stream: %v", err)
			}
			call.Body.Close()
			if tc.notify {
				s.do(ctx, "POST", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`).Body.Close()
			}
			testutil.Eventually(t, "the call's record settled", func() bool {
				sum := r.p.Summary().Clients
				return sum.GaveUp+sum.Cancelled == 1
			})
			r.stop()
			recs := r.p.Records()
			if len(recs) != 1 || recs[0].Reaction != tc.reaction || recs[0].Session == "" {
				t.Fatalf("want one %s call of the session:\n%s", tc.reaction, dump(recs))
			}
			if tc.notify && (recs[0].CancelHow != "notification" || !recs[0].CancelNotified) {
				t.Errorf("want cancelled by notification:\n%s", dump(recs))
			}
			if !tc.notify && recs[0].ClosedAfterMs <= 0 {
				t.Errorf("want when it closed:\n%s", dump(recs))
			}
		})
	}
}
