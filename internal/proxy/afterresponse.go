package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// progressAfterResponse forwards the call, and right after its final
// response sends one more notifications/progress for the call's token on
// the same stream (its value above any before it), which the spec
// forbids: nothing of a request follows its response.
//
// A correct client ignores it: the answer it already has stands, and a
// notification for a finished request does not revive it or reach a new
// call.
type progressAfterResponse struct{}

var progressAfterResponseKind = kind{name: faultkinds.ProgressAfterResponse,
	build: func(*scenarios.Reader) effect { return progressAfterResponse{} }}

func (progressAfterResponse) apply(p *plan, _ time.Duration) { p.afterResponse = true }
