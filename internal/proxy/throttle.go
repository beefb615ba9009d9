package proxy

import (
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// throttle answers the call at once, without forwarding it, as a server
// at its rate limit would: HTTP status 429 (default) or 503, a
// Retry-After header when retry_after is set (whole seconds, rounded up),
// and a JSON-RPC error body with code rpc_code (default -32000).
//
// A correct client backs off: it does not call again before Retry-After
// has passed (the proxy records the time until the client's next call
// and whether it honoured the header), and it does not re-send the same
// request id.
type throttle struct{ reply throttleReply }

// throttleReply is what the proxy answers a throttled call with.
type throttleReply struct {
	status     int
	retryAfter time.Duration // 0: no header
	code       int
}

var throttleKind = kind{name: faultkinds.Throttle, keys: []string{"status", "retry_after", "rpc_code"},
	build: func(r *scenarios.Reader) effect {
		status := 429
		if r.Enum("status", "429", "429", "503") == "503" {
			status = 503
		}
		t := throttleReply{status: status, code: r.IntBetween("rpc_code", rpcmsg.CodeServerError, -32768, 32767)}
		if r.Present("retry_after") {
			t.retryAfter = r.Positive("retry_after", 0).Std()
		}
		return throttle{reply: t}
	}}

func (f throttle) apply(p *plan, _ time.Duration) {
	r := f.reply
	p.throttle = &r
}

// retryAfterHeader is the Retry-After value of d: whole seconds, rounded
// up, at least 1.
func retryAfterHeader(d time.Duration) int {
	return max(1, int((d+time.Second-1)/time.Second))
}
