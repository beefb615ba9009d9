package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestGeneratedContent: client.elicitation.generate fills in the deploy
// form's required confirm from its requestedSchema, so the content fits
// the form (no content_mismatch) where an empty content does not; the
// value made for a boolean with no default is false, so the target, which
// wants true, does not deploy, and content given in the scenario wins
// over the generated value. Both eras: the 2026 form of input_required,
// and the 2025 elicitation/create on the call's stream (where the Go SDK
// checks the content itself and refuses a mismatch).
func TestGeneratedContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		e        scenarios.Elicitation
		mismatch int
		// outcome in 2026, and in 2025, where the Go SDK checks the
		// content itself and refuses a mismatch with a JSON-RPC error
		outcome, outcome2025 string
	}{
		{"empty", scenarios.Elicitation{Action: scenarios.ElicitAccept}, 1, results.ToolError, results.RPCError},
		{"generated", scenarios.Elicitation{Action: scenarios.ElicitAccept, Generate: true}, 0, results.ToolError, results.ToolError},
		{"given_wins", scenarios.Elicitation{Action: scenarios.ElicitAccept, Generate: true, Content: map[string]any{"confirm": true}}, 0, results.OK, results.OK},
	}
	for _, era := range []client.Era{client.Era20260728, client.Era20251125} {
		for _, tt := range tests {
			t.Run(string(era)+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				outcome := tt.outcome
				if era != client.Era20260728 {
					outcome = tt.outcome2025
				}
				generatedContent(t, era, tt.e, tt.mismatch, outcome)
			})
		}
	}
}

// generatedContent runs deploy calls answered with e against the built-in
// target serving era and checks each record's content_mismatch, outcome
// and the one elicitation: a 2026 input_required form, or a 2025
// elicitation/create on the call's stream.
func generatedContent(t *testing.T, era client.Era, e scenarios.Elicitation, mismatch int, outcome string) {
	tgEra := targetserver.Era2026
	if era != client.Era20260728 {
		tgEra = targetserver.Era2025
	}
	tg := newTarget(t, targetserver.Config{Era: tgEra, Confirm: true})
	p := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 300 * time.Millisecond, GracefulStop: testutil.WaitLong},
		CallSpec{Tool: targetserver.ToolDeploy, Arguments: json.RawMessage(`{"steps":1,"step_ms":1}`)})
	p.Protocol = era
	{
		p.Client = &scenarios.Client{MaxRounds: 3, Elicitation: &e}
		o := runLoad(t, context.Background(), p)
		if len(o.recs) == 0 {
			t.Fatal("no calls")
		}
		for _, r := range o.recs {
			if r.ContentMismatch != mismatch || r.Outcome != outcome || r.Inputs["elicitation"] != 1 {
				t.Errorf("seq %d: content_mismatch %d, outcome %s (%s), inputs %v; want %d, %s, one elicitation",
					r.Seq, r.ContentMismatch, r.Outcome, r.Message, r.Inputs, mismatch, outcome)
			}
		}
	}
}
