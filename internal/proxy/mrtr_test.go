package proxy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestConfirmThroughProxy: a run whose client section answers the deploy
// tool's confirmation completes every call through the proxy: in 2026 the
// input_required result and the retry pass as plain request and answer;
// in 2025 the server's elicitation/create reaches the client on the call's
// stream and the client's answer reaches the server.
func TestConfirmThroughProxy(t *testing.T) {
	t.Parallel()
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(protocol, func(t *testing.T) {
			t.Parallel()
			target, err := targetserver.StartHTTP(t.Context(), targetserver.Config{Confirm: true}, "")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { target.Close() })
			r := serveProxy(t, fmt.Sprintf("{http: {url: %q}}", target.URL), "1m", "  - {kind: drop_response, tools: [none_of_these]}\n")
			out := runScenario(t, fmt.Sprintf(`name: confirm
protocol: "%s"
target: {http: {url: %q}}
load: {rate: 10/1s, duration: 1s}
calls: [{tool: deploy, arguments: {steps: 1, step_ms: 1}}]
client: {elicitation: {content: {confirm: true}}}
checks: ["calls.ok == 10", "mrtr.elicitation == 10"]
`, protocol, r.url), nil)
			if !strings.Contains(string(out), "Result        PASS") {
				t.Errorf("the run did not pass:\n%s", out)
			}
			if st := target.Server.Stats(); st.Confirmed != 10 {
				t.Errorf("the target confirmed %d deploys, want 10", st.Confirmed)
			}
		})
	}
}
