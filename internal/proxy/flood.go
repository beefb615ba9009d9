package proxy

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// progressFlood forwards the call, and sends the client extra
// notifications/progress for its progress token at hz per second until
// the call ends. Every progress notification of the call, the upstream's
// and the proxy's, is numbered in one strictly increasing sequence (the
// upstream's total is dropped, since the count passes it), so the flood
// itself breaks no rule: it is only fast. A call without a progress token
// gets no flood.
//
// A correct client keeps up, or drops what it cannot handle, without
// falling behind on the response, growing without bound or losing the
// answer: the call ends as it would without the flood.
type progressFlood struct{ every time.Duration }

// maxFloodHz bounds hz: beyond it the proxy's own timer is the limit.
const maxFloodHz = 10_000

var progressFloodKind = kind{name: faultkinds.ProgressFlood, keys: []string{"hz"},
	build: func(r *scenarios.Reader) effect {
		r.Require("hz")
		hz := r.IntBetween("hz", 0, 1, maxFloodHz)
		if hz <= 0 {
			return progressFlood{}
		}
		return progressFlood{every: time.Second / time.Duration(hz)}
	}}

func (f progressFlood) apply(p *plan, _ time.Duration) {
	if p.floodEvery == 0 || f.every < p.floodEvery {
		p.floodEvery = f.every
	}
}

// renumber rewrites a notifications/progress of the call's token with
// progress n and no total; ok is false for any other message.
func renumber(data []byte, token string, n int) ([]byte, bool) {
	var m struct {
		Method string                     `json:"method"`
		Params map[string]json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &m) != nil || m.Method != vocab.MethodProgress || compactJSON(m.Params["progressToken"]) != token {
		return nil, false
	}
	m.Params["progress"] = json.RawMessage(strconv.Itoa(n))
	delete(m.Params, "total")
	b, err := rpcmsg.Notification(m.Method, m.Params)
	if err != nil {
		return nil, false
	}
	return b, true
}
