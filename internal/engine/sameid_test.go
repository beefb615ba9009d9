package engine

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestSameIDRetry: the same_id_retry fault against the built-in target's
// deploy tool (a real Go SDK server), over HTTP and stdio: the SDK takes
// the retry under the answered request's id as a new request and does the
// work, so every call ends ok with the fault's answer expected, and the
// server's own log shows each call done under the call's one id. The
// deploy takes 300 ms, longer than the late window, so on stdio the
// retry's answer comes after the first request's id stopped lingering
// (a transport that forgot the id then would lose the answer).
func TestSameIDRetry(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"http", "stdio"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			logFile := filepath.Join(t.TempDir(), "calls.log")
			deploy := CallSpec{Tool: targetserver.ToolDeploy, Arguments: json.RawMessage(`{"steps":3,"step_ms":100}`)}
			load := Load{Rate: perSec(5), Duration: time.Second, GracefulStop: 10 * time.Second}
			var p Plan
			var tg *targetserver.Running
			if transport == "http" {
				tg = newTarget(t, targetserver.Config{Confirm: true, LogCalls: logFile})
				p = httpPlan(tg.URL, load, deploy)
			} else {
				p = stdioPlan([]string{bin.Need(t), "serve", "--stdio", "--confirm", "--log-calls", logFile}, 0)
				p.Load, p.Calls = load, []CallSpec{deploy}
			}
			p.Client = accepting()
			p.Faults = []faults.Fault{scenarioFault(t, "{kind: same_id_retry}")}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) != 5 {
				t.Fatalf("%d records, want 5", len(o.recs))
			}
			done := testutil.CallsDone(t, logFile)
			for _, r := range o.recs {
				if r.Outcome != results.OK || r.Rounds != 1 || len(r.Faults) != 1 || r.Faults[0].Mode != "same_id" ||
					r.Faults[0].Detail != "expected answer: the work done" || len(r.Violations) != 0 {
					b, _ := json.Marshal(r)
					t.Errorf("record %s: want ok after one retry, the fault's answer expected", b)
				}
				if !done[r.ID] {
					t.Errorf("call %d is not in the server's log as done", r.ID)
				}
			}
			if len(done) != len(o.recs) {
				t.Errorf("the server logged %d calls done, the run made %d", len(done), len(o.recs))
			}
			if tg != nil {
				if st := tg.Server.Stats(); st.ConfirmAsked != 5 || st.Confirmed != 5 {
					t.Errorf("target ledger asked %d, confirmed %d; want 5, 5", st.ConfirmAsked, st.Confirmed)
				}
			}
		})
	}
}

// TestSameIDRetryJudged: the retry goes out under the first request's id,
// and the server's answer to it is judged: answered (expected), left
// unanswered until the idle timeout, or answered under another id
// (unexpected).
func TestSameIDRetryJudged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, outcome, detail string
		reply                 func(id json.RawMessage) json.RawMessage // the retry's answer's id; nil: none
	}{
		{"answered", results.OK, "expected answer: the work done", func(id json.RawMessage) json.RawMessage { return id }},
		{"never answered", results.TimeoutIdle, "unexpected answer: none (timeout_idle)", func(json.RawMessage) json.RawMessage { return nil }},
		{"answered under another id", results.ProtocolError, "unexpected answer: none (protocol_error)",
			func(json.RawMessage) json.RawMessage { return json.RawMessage(`999999`) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := startReplyFake(t, func(n int, req roundReq) (json.RawMessage, string) {
				if n == 0 {
					return req.ID, askConfirm
				}
				return tt.reply(req.ID), completeResult
			})
			p := oneCall(f.URL, accepting())
			p.Timeouts.Idle = time.Second
			p.Faults = []faults.Fault{scenarioFault(t, "{kind: same_id_retry}")}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) != 1 {
				t.Fatalf("%d records, want 1", len(o.recs))
			}
			r := o.recs[0]
			if r.Outcome != tt.outcome || len(r.Faults) != 1 || r.Faults[0].Detail != tt.detail {
				t.Errorf("outcome %s, faults %+v; want %s, %q", r.Outcome, r.Faults, tt.outcome, tt.detail)
			}
			saw := f.received()
			if len(saw) != 2 || string(saw[0].ID) != string(saw[1].ID) {
				t.Fatalf("the server got %d tools/call, want 2 under one id", len(saw))
			}
			if string(saw[1].Params.RequestState) != `"st-1"` || saw[1].Params.InputResponses == nil {
				t.Errorf("the retry carried state %s, responses %s; want it otherwise right", saw[1].Params.RequestState, saw[1].Params.InputResponses)
			}
		})
	}
}
