package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestLegacyInputCountedWhenSent: a 2025 elicitation/create on the call's
// stream (the built-in target's deploy asks to confirm) counts its answer
// when the answer goes, with the think time it waited; a call that ends
// while the client thinks counts no answer and only the time it thought
// (not the hour it planned), as a 2026 round abandoned does.
func TestLegacyInputCountedWhenSent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		think   time.Duration
		outcome string
		answers int
	}{
		{"answered", 20 * time.Millisecond, results.OK, 1},
		{"ended while thinking", time.Hour, results.TimeoutCap, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{Era: targetserver.Era2025, Confirm: true})
			c := accepting()
			c.Elicitation.Think = scenarios.Dist{Value: tt.think}
			p := oneCall(strings.TrimSuffix(tg.URL, "/mcp"), c)
			p.Protocol = client.Era20251125
			capAt := 2 * time.Second
			p.Timeouts = Timeouts{Max: capAt}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) != 1 {
				t.Fatalf("%d records, want 1", len(o.recs))
			}
			r := o.recs[0]
			if r.Outcome != tt.outcome || r.Inputs["elicitation"] != tt.answers {
				t.Errorf("outcome %s (%s), inputs %v; want %s, %d elicitation answered", r.Outcome, r.Message, r.Inputs, tt.outcome, tt.answers)
			}
			// Answered: exactly its think. Ended: the time to the cap, a
			// busy machine's delay more, never the hour.
			if tt.answers == 1 && r.ThinkUs != results.Us(tt.think) {
				t.Errorf("think %dus, want %dus", r.ThinkUs, results.Us(tt.think))
			}
			if tt.answers == 0 && (r.ThinkUs <= results.Us(capAt/2) || r.ThinkUs > results.Us(capAt+10*time.Second)) {
				t.Errorf("think %dus; want the time to the %s cap", r.ThinkUs, capAt)
			}
		})
	}
}
