package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// serverCancel sends, on the call's own stream and `after` the request
// arrived (default at once), a notifications/cancelled for the call's
// request id, as if the server cancelled the client's request, which the
// 2026-07-28 revision forbids (only the requester may cancel). The
// upstream's answer is forwarded afterwards as usual.
//
// A correct client ignores it, or reports it as a protocol error, and
// keeps waiting for the response it asked for: the proxy records whether
// the client still took the answer or closed its stream after the
// notification.
type serverCancel struct{}

var serverCancelKind = kind{name: faultkinds.ServerCancel, timed: true,
	build: func(*scenarios.Reader) effect { return serverCancel{} }}

func (serverCancel) apply(p *plan, after time.Duration) {
	p.serverCancel = true
	p.serverCancelAfter = after
}
