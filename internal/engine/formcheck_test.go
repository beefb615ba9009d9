package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestGeneratedContent: client.elicitation.generate fills in the deploy
// form's required confirm from its requestedSchema, so the content fits
// the form (no content_mismatch) where an empty content does not; the
// value made for a boolean with no default is false, so the target, which
// wants true, does not deploy, and content given in the scenario wins
// over the generated value.
func TestGeneratedContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		e        scenarios.Elicitation
		mismatch int
		outcome  string
	}{
		{"empty", scenarios.Elicitation{Action: scenarios.ElicitAccept}, 1, results.ToolError},
		{"generated", scenarios.Elicitation{Action: scenarios.ElicitAccept, Generate: true}, 0, results.ToolError},
		{"given_wins", scenarios.Elicitation{Action: scenarios.ElicitAccept, Generate: true, Content: map[string]any{"confirm": true}}, 0, results.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Confirm: true})
			p := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 300 * time.Millisecond, GracefulStop: 5 * time.Second},
				CallSpec{Tool: targetserver.ToolDeploy, Arguments: json.RawMessage(`{"steps":1,"step_ms":1}`)})
			e := tt.e
			p.Client = &scenarios.Client{MaxRounds: 3, Elicitation: &e}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) == 0 {
				t.Fatal("no calls")
			}
			for _, r := range o.recs {
				if r.ContentMismatch != tt.mismatch || r.Outcome != tt.outcome || r.Inputs["elicitation"] != 1 {
					t.Errorf("seq %d: content_mismatch %d, outcome %s (%s), inputs %v; want %d, %s, one elicitation",
						r.Seq, r.ContentMismatch, r.Outcome, r.Message, r.Inputs, tt.mismatch, tt.outcome)
				}
			}
		})
	}
}
