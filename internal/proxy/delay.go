package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// delayResponse forwards the call and everything the upstream sends for
// it, but holds the final response until `for` has passed since the
// request arrived (progress still flows meanwhile).
//
// A correct client waits while its timeouts allow and takes the late
// answer; with a maximum timeout shorter than `for`, it cancels at its
// cap, and the proxy records when.
type delayResponse struct{ d time.Duration }

var delayResponseKind = kind{name: faultkinds.DelayResponse, keys: []string{"for"},
	build: func(r *scenarios.Reader) effect {
		r.Require("for")
		return delayResponse{d: r.Positive("for", 0).Std()}
	}}

func (f delayResponse) apply(p *plan, _ time.Duration) { p.delay = max(p.delay, f.d) }
