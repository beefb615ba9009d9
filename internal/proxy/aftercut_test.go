package proxy_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpchaos/mcpchaos/internal/proxy"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// cutRecord waits until the proxy's first record (the disconnected
// call) has its client's reaction, and returns it.
func cutRecord(t *testing.T, r *running) proxy.CallRecord {
	t.Helper()
	var rec proxy.CallRecord
	testutil.Eventually(t, "the disconnected call's after_disconnect", func() bool {
		recs := r.p.Records()
		if len(recs) == 0 || recs[0].AfterDisconnect == "" {
			return false
		}
		rec = recs[0]
		return true
	})
	if rec.Reaction != "disconnected" {
		t.Fatalf("first record %+v, want the disconnected call", rec)
	}
	return rec
}

// TestAfterDisconnectGoSDK: the Go SDK's client fails a cut call at once.
// When it goes on to another call, the record says it gave up on the cut
// one; when it does nothing more, silent, once the hold (1 s) is over.
func TestAfterDisconnectGoSDK(t *testing.T) {
	for _, tc := range []struct {
		name  string
		next  bool
		after string
	}{
		{"another call", true, "gave_up"},
		{"nothing more", false, "silent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := startProxy(t, "1s", "  - {kind: disconnect, tools: [slow_task], after: 100ms}\n")
			cs := sdkSession(t, r.url, "2025-11-25")
			ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
			defer cancel()
			if _, err := cs.CallTool(ctx, slowTask(20)); err == nil {
				t.Fatal("the cut call succeeded")
			}
			if tc.next {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "next"}}); err != nil {
					t.Fatalf("the next call: %v", err)
				}
			}
			if rec := cutRecord(t, r); rec.AfterDisconnect != tc.after || rec.HungMs != 0 {
				t.Fatalf("after_disconnect %q (hung %v ms), want %q:\n%s", rec.AfterDisconnect, rec.HungMs, tc.after, dump(r.p.Records()))
			}
			r.stop()
			sum := r.p.Summary().Clients
			if sum.Disconnected != 1 || sum.AfterDisconnect.GaveUp+sum.AfterDisconnect.Silent != 1 {
				t.Errorf("summary %+v: want one disconnected call, judged once", sum)
			}
		})
	}
}

// TestAfterDisconnectTypeScriptSDK: the official TypeScript SDK's client
// (1.32, a 2025 session) does not notice that the proxy cut its call's
// stream: it waits for the answer until its own request timeout (here
// 3 s), then sends notifications/cancelled for the call. The record says
// it hung, and for how long after the cut.
func TestAfterDisconnectTypeScriptSDK(t *testing.T) {
	t.Parallel()
	modules := testutil.NpmClients(t, "@modelcontextprotocol/sdk")
	r := startProxy(t, "1m", "  - {kind: disconnect, after: 300ms}\n")
	got := runTSClient(t, modules, r.url, "3000")
	if got.Outcome != "error" || !strings.Contains(got.Error, "Request timed out") {
		t.Fatalf("the TypeScript client said %+v; want its call to time out", got)
	}
	rec := cutRecord(t, r)
	if rec.AfterDisconnect != "hung" || rec.HungMs <= 0 {
		t.Fatalf("after_disconnect %q, hung %v ms; want hung:\n%s", rec.AfterDisconnect, rec.HungMs, dump(r.p.Records()))
	}
	// It cancelled at its 3 s timeout, and the cut came 300 ms after the
	// call began (later on a busy machine): a client that noticed the cut
	// and cancelled at once would show a few milliseconds.
	if rec.HungMs < 1000 {
		t.Errorf("hung %v ms after the cut, want about its 3 s timeout less the 300 ms before the cut", rec.HungMs)
	}
	t.Logf("the TypeScript client: %+v; the proxy: hung %v ms after the cut", got, rec.HungMs)
	r.stop()
	if sum := r.p.Summary().Clients; sum.AfterDisconnect.Hung != 1 || sum.Disconnected != 1 {
		t.Errorf("summary %+v: want one disconnected call, hung", sum)
	}
}

// tsOutcome is what testdata/tsclient.mjs says of its call.
type tsOutcome struct {
	Outcome, Error string
	AfterMs        float64 `json:"after_ms"`
}

// runTSClient runs the TypeScript SDK's client (testdata/tsclient.mjs)
// against url with its arguments (timeout, and maxTotalTimeout) and
// returns what it said of its call.
func runTSClient(t *testing.T, modules, url string, args ...string) tsOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
	defer cancel()
	out, err := exec.CommandContext(ctx, "node", append([]string{"testdata/tsclient.mjs", modules, url}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	var got tsOutcome
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &got); err != nil {
		t.Fatalf("the TypeScript client said %s: %v", out, err)
	}
	return got
}

// TestTypeScriptMaxTotalTimeout: the TypeScript SDK's client with
// maxTotalTimeout 2 s (and its default 60 s timeout, reset by progress)
// under progress_endless, in a 2025 session, gives up on the call at the
// next progress after 2 s without a cancel, and keeps the call's stream
// until it closes, a second later. The record says so: gave_up, the
// stream closed after the client gave up, no cancel.
func TestTypeScriptMaxTotalTimeout(t *testing.T) {
	t.Parallel()
	modules := testutil.NpmClients(t, "@modelcontextprotocol/sdk")
	r := startProxy(t, "1m", "  - {kind: progress_endless, every: 250ms}\n")
	got := runTSClient(t, modules, r.url, "60000", "2000")
	if got.Outcome != "error" || !strings.Contains(got.Error, "Maximum total timeout exceeded") || got.AfterMs < 2000 {
		t.Fatalf("the TypeScript client said %+v; want it to give up at its 2 s maximum", got)
	}
	// The call ends when the client closes its stream; stopping the
	// proxy before would make it open_at_stop.
	testutil.Eventually(t, "the call's end", func() bool {
		recs := r.p.Records()
		return len(recs) > 0 && recs[0].Reaction != ""
	})
	r.stop()
	rec := r.p.Records()[0] // settled: the 2 s wait for a late notification is over
	if rec.Reaction != "gave_up" || rec.CancelNotified || rec.ClosedAfterMs < got.AfterMs {
		t.Fatalf("record %+v; want gave_up, no cancel, the stream closed after the client gave up (%v ms)", rec, got.AfterMs)
	}
	t.Logf("the TypeScript client gave up at %v ms; the proxy: gave_up, stream closed at %v ms", got.AfterMs, rec.ClosedAfterMs)
}
