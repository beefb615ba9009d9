package targetserver

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// limitRequest applies the rate limit to an HTTP request other than a
// limited tools/call when the rate_limit_methods knob is all: a request
// (not a notification nor a response) takes from the rate limit, never
// from the concurrency cap or the workers, and one over it is refused
// with the knob's signal (tool_message, an answer only a tool call can
// have, becomes 429). Anything else goes on to next.
func (s *Server) limitRequest(w http.ResponseWriter, r *http.Request, next http.Handler) {
	id, method := peekRequest(r)
	lim := s.limiterOf("", whoOf(s.withWho(r)))
	if s.cfg.Enum("rate_limit_methods") != "all" || method == "" || lim == nil {
		next.ServeHTTP(w, r)
		return
	}
	ok, wait := lim.take()
	if ok {
		next.ServeHTTP(w, r)
		return
	}
	s.metrics.throttled.Add(1)
	ra, hint := s.retryHint(wait)
	s.delayRefusal(r.Context())
	signal := s.cfg.Enum("rate_limit_signal")
	if signal == knobs.SignalToolMessage {
		signal = knobs.SignalAuto
	}
	s.refuseHTTPAs(w, signal, id, isModern(r), ra, hint, wait)
}

// peekRequest returns the id and method of r's body when it is one
// JSON-RPC request other than a tools/call of the inflight probe ("" when
// it is not), putting the body back.
func peekRequest(r *http.Request) (id json.RawMessage, method string) {
	var one struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	head, err := peekBody(r)
	if err != nil || json.Unmarshal(head, &one) != nil || len(one.ID) == 0 || one.Method == "" ||
		strings.HasPrefix(one.Method, vocab.NotificationPrefix) || one.Params.Name == ToolInflight {
		return nil, ""
	}
	return one.ID, one.Method
}
