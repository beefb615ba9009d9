package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/results"
)

// strictRewriter expects a JSON-RPC -32602 answer to its broken request.
type strictRewriter struct{}

func (strictRewriter) Rewrite(*client.CallRequest) string { return "params" }
func (strictRewriter) Expected(a faults.Answer) bool      { return a.Code == -32602 }

// TestMalformedJudgedOnlyWhenAnsweredFirst: a broken request's answer is
// judged only when it came before we cut the call; an answer after our
// cancel (a server ending the cancelled request with an error of its own)
// is not the answer to the broken request.
func TestMalformedJudgedOnlyWhenAnsweredFirst(t *testing.T) {
	t0 := time.Now()
	tests := []struct {
		name       string
		cancelAt   time.Time
		responseAt time.Time
		code       int64
		want       string
	}{
		{"answered before the cancel, wrongly", t0.Add(200 * time.Millisecond), t0.Add(100 * time.Millisecond), 0, "unexpected answer"},
		{"answered before the cancel, rightly", t0.Add(200 * time.Millisecond), t0.Add(100 * time.Millisecond), -32602, "expected answer"},
		{"answered after the cancel", t0.Add(100 * time.Millisecond), t0.Add(200 * time.Millisecond), 0, "not judged"},
		{"not cancelled, answered wrongly", time.Time{}, t0.Add(100 * time.Millisecond), 0, "unexpected answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := &callState{sent: t0, cancelAt: tt.cancelAt, responseAt: tt.responseAt,
				final: finalError, code: tt.code, hasCode: true, rewriter: strictRewriter{}, rewrites: []int{0}}
			cs.rec.Scheduled = t0
			cs.rec.Faults = []results.Fault{{Kind: "malformed", Mode: "params"}}
			if !tt.cancelAt.IsZero() {
				cs.stopOutcome = results.Cancelled
			}
			cs.describeFaults()
			if d := cs.rec.Faults[0].Detail; !strings.HasPrefix(d, tt.want) {
				t.Errorf("detail %q, want %q...", d, tt.want)
			}
		})
	}
}
