package proxy

import (
	"encoding/json"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// progressRegress forwards the call, and right after the first progress
// notification the upstream sends once `after` (from the request) has
// passed, sends another for the same token whose progress is lower than
// that one's (or equal, at 0): a non-monotonic value, which the spec
// forbids (progress MUST increase).
//
// A correct client notices the violation, ignores the value (or reports
// it) and carries on: the call ends with the upstream's answer.
type progressRegress struct{}

var progressRegressKind = kind{name: faultkinds.ProgressRegress, timed: true,
	build: func(*scenarios.Reader) effect { return progressRegress{} }}

func (progressRegress) apply(p *plan, after time.Duration) {
	p.regress = true
	p.regressAfter = after
}

// progressValue returns the progress of a notifications/progress for
// token (compact JSON); ok is false for any other message.
func progressValue(data []byte, token string) (float64, bool) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Token    json.RawMessage `json:"progressToken"`
			Progress float64         `json:"progress"`
		} `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != vocab.MethodProgress || compactJSON(m.Params.Token) != token {
		return 0, false
	}
	return m.Params.Progress, true
}
