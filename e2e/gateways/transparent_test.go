package gateways

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/report"
)

// TestTransparentProxyReportsNothing: a reverse proxy that passes every
// byte on as it comes is reported as transparent, in both eras, with
// cancels, progress and throttling going through it.
func TestTransparentProxyReportsNothing(t *testing.T) {
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			// Margins a starved machine keeps (beside two busy loops, a
			// progress came 1.6 s late and a cancel took 0.7 s): a limit
			// far below what even a starved client offers; calls of 3 s, so
			// that their progress and our cancels reach the target long
			// before it finishes; the cancel after the first progress, when
			// the target knows the call (a 2025 cancel is a POST of its
			// own: one sent at a fixed 100 ms reached the target before the
			// call it named, which the target ignores, as if lost).
			tg := target(t, targetserver.Config{RateLimit: mustRate(t, "4/1s")})
			gw := serve(t, transparent(t, base(tg)))
			o := run(t, scenario(gw, era, []string{base(tg)}, `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, weight: 2, arguments: {steps: 6, step_ms: 500}, progress: true}
  - {tool: echo, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.3, after_progress: 1}
`))
			wantOnly(t, o, nil)
			g := o.Sum.Gateway
			if g.EraSeen[era] == 0 || len(g.EraSeen) != 1 {
				t.Errorf("gateway.era_seen = %v, want only %s", g.EraSeen, era)
			}
			if g.LagMs.Count == 0 {
				t.Errorf("gateway.lag_ms.count = 0: no progress notification was matched")
			}
			if o.Sum.Calls.Throttled == 0 {
				t.Errorf("no call was throttled: the test does not see Retry-After go through")
			}
		})
	}
}

// TestTruthNotATarget: truth read from something that is not a built-in
// target is an error the summary shows (once, in one line), and the
// gateway verdict says nothing was exercised; the run itself completes.
func TestTruthNotATarget(t *testing.T) {
	t.Parallel()
	tg := target(t, targetserver.Config{})
	notTarget := serve(t, http.NotFoundHandler())
	o := run(t, scenario(serve(t, transparent(t, base(tg))), "2026-07-28", []string{notTarget}, `
load: {rate: 5/1s, duration: 1s}
calls:
  - {tool: echo, arguments: {text: hi}}
`))
	g := o.Sum.Gateway
	if g == nil || len(g.Errors) != 1 || !strings.Contains(g.Errors[0], notTarget) || !strings.Contains(g.Errors[0], "status 404") {
		t.Fatalf("gateway %+v: want an error naming %s and its 404", g, notTarget)
	}
	// The target behind the proxy answered each call with its marker: an
	// execution no truth we read recorded, not a call never delivered.
	if g.Calls == 0 || g.Executions != 0 || g.Unrecorded != g.Calls || g.NotSeen != 0 || g.TruthUnread != 1 {
		t.Errorf("calls %d, executions %d, unrecorded %d, not seen %d, truth unread %d: want every call unrecorded, none not seen, 1 target unread",
			g.Calls, g.Executions, g.Unrecorded, g.NotSeen, g.TruthUnread)
	}
	v := o.Sum.Verdicts[len(o.Sum.Verdicts)-1]
	if v.Area != report.AreaGateway || v.Status != report.StatusNotExercised || !strings.Contains(v.Evidence, "status 404") {
		t.Errorf("verdict %+v: want gateway not exercised, with the error", v)
	}
}
