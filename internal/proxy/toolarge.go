package proxy

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpchaos/mcpchaos/client"
)

// errAnswerTooLarge ends a call whose answer from the upstream is a
// message over MaxBody (a stdio line, an SSE event): the upstream's fault.
// The proxy answers the client at once with a JSON-RPC error of its own
// and records the call's reaction as upstream_error.
var errAnswerTooLarge = fmt.Errorf("the upstream's answer is larger than %d bytes, the most the proxy forwards", MaxBody)

// tooLarge reports whether err, which ended the reading of a call's
// answer, is an answer over MaxBody.
func tooLarge(err error) bool { return errors.Is(err, errAnswerTooLarge) || client.IsOversize(err) }

// answerTooLarge writes the client the proxy's error for the call id, as
// an event of the call's SSE stream (its headers are sent already).
func answerTooLarge(w http.ResponseWriter, id json.RawMessage) error {
	out := sseWriter{w: w, rc: http.NewResponseController(w)}
	return out.event(rpcError(id, -32603, "mcpchaos proxy: "+errAnswerTooLarge.Error()))
}
