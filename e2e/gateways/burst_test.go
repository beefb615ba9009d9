package gateways

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestAfterProgressBehindBuffering: behind a gateway that holds each
// answer until it ends, a call's progress comes in one piece with its
// result. A cancel due at the 3rd notification then finds the call
// answered: it is skipped (the call ended first), never counted as a
// cancel with a late response, and the call counts in progress_held. In
// front of a transparent proxy the same fault cancels every call at its
// 3rd notification, as the target's records confirm. There the target's
// calls are endless, so no answer can come in one piece with the 3rd
// notification: a starved client that reads several notifications at once
// still meets the fault before any answer.
func TestAfterProgressBehindBuffering(t *testing.T) {
	for _, tc := range []struct {
		name      string
		buffering bool
	}{{"buffering", true}, {"transparent", false}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := target(t, targetserver.Config{Endless: !tc.buffering})
			var gw http.Handler = transparent(t, base(tg))
			buf := &buffering{upstream: base(tg)}
			if tc.buffering {
				gw = buf
			}
			// timeouts.idle 20s: the fault's time fallback (half of it)
			// is far beyond every call's 300 ms.
			o := run(t, scenario(serve(t, gw), "2026-07-28", []string{base(tg)}, `
load: {rate: 10/1s, duration: 1500ms}
calls:
  - {tool: slow_task, arguments: {steps: 5, step_ms: 60}, progress: true}
faults:
  - {kind: cancel, probability: 1, after_progress: 3}
`))
			if len(o.Recs) == 0 {
				t.Fatal("no calls")
			}
			for _, rec := range o.Recs {
				if len(rec.Faults) != 1 {
					t.Errorf("call %d: faults %+v, want the one cancel", rec.Seq, rec.Faults)
					continue
				}
				f := rec.Faults[0]
				switch {
				case tc.buffering && (rec.Outcome != results.OK || !f.Skipped || !strings.Contains(f.Detail, "in one piece with the answer") || rec.LateResponses != 0):
					t.Errorf("call %d: outcome %s, fault %+v, late responses %d; want ok, the fault skipped for the burst, no late response",
						rec.Seq, rec.Outcome, f, rec.LateResponses)
				case !tc.buffering && (rec.Outcome != results.Cancelled || f.Skipped):
					t.Errorf("call %d: outcome %s, fault %+v; want cancelled by the fault at progress 3", rec.Seq, rec.Outcome, f)
				}
			}
			g := o.Sum.Gateway
			if tc.buffering {
				wantOnly(t, o, map[string]int{"progress_held": int(buf.held.Load())})
				if g.ProgressHeld != len(o.Recs) {
					t.Errorf("progress_held %d of %d calls: every call's progress was held", g.ProgressHeld, len(o.Recs))
				}
				return
			}
			if st := g.Stops.Cancelled; st.Stopped != len(o.Recs) {
				t.Errorf("the targets' records: %+v of %d calls cancelled; want every one stopped", st, len(o.Recs))
			}
		})
	}
}
