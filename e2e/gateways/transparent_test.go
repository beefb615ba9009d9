package gateways

import (
	"testing"

	"github.com/mcpchaos/mcpchaos/targetserver"
)

// TestTransparentProxyReportsNothing: a reverse proxy that passes every
// byte on as it comes is reported as transparent, in both eras, with
// cancels, progress and throttling going through it.
func TestTransparentProxyReportsNothing(t *testing.T) {
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			tg := target(t, targetserver.Config{RateLimit: mustRate(t, "8/1s")})
			gw := serve(t, transparent(t, tg.URL[:len(tg.URL)-len("/mcp")]))
			o := run(t, scenario(gw, era, []string{base(tg)}, `
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, weight: 2, arguments: {steps: 6, step_ms: 40}, progress: true}
  - {tool: echo, arguments: {text: hi}}
faults:
  - {kind: cancel, probability: 0.3, after: 100ms}
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
