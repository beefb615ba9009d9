package client

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// A server that needs something from the client asks for it: in 2026 in a
// result (resultType "input_required" with inputRequests, answered by
// retrying the call with a new id, inputResponses and the requestState
// echoed; the engine does that), in the 2025 eras with a request of its
// own (elicitation/create, sampling/createMessage, roots/list), answered
// here, on the stream or pipe it came on. Either way the answers come from
// an InputAnswerer, and only for the capabilities it declares.

// InputKind names the kind of an input request method, as the summary
// keys do: "elicitation", "sampling", "roots"; "" for another method.
func InputKind(method string) string {
	switch method {
	case vocab.MethodElicit:
		return "elicitation"
	case vocab.MethodSampling:
		return "sampling"
	case vocab.MethodRoots:
		return "roots"
	}
	return ""
}

// InputAnswerer answers a server's requests for input.
type InputAnswerer interface {
	// AnswerInput answers a request of method, whose params are as the
	// server sent them, for a call of tool ("" when the request is not
	// tied to a call).
	AnswerInput(tool, method string, params []byte) InputAnswer
}

// InputAnswer is an InputAnswerer's answer to one request.
type InputAnswer struct {
	// Result is the JSON object that answers the request; Think how long
	// to wait before sending it.
	Result []byte
	Think  time.Duration
	// Declared is false when the client did not declare the capability
	// (no answer is configured).
	Declared bool
	// ContentMismatch: an accepted form whose content does not fit the
	// form's requestedSchema (the answer is sent anyway).
	ContentMismatch bool
}

// MaxInputAnswering bounds the 2025 input answers waiting or in flight
// per transport: with think times many wait at once, so the bound is
// higher than MaxAnswering's.
const MaxInputAnswering = 4096

// inputRequest settles a server request that may ask for input, on a
// legacy era: it answers it (after the think time, off the reader) when it
// is an input request for a declared capability and reports true; a
// request for an input capability we did not declare is counted and
// reported as handled too (with method-not-found as its answer). call, if
// the request came on a call's own stream, gets an EvInput or an
// EvViolation. send writes one answer.
func (c *Client) inputRequest(m *inMsg, call *Call, at time.Time, send func(ctx context.Context, msg []byte)) bool {
	method := string(m.method)
	kind := InputKind(method)
	if kind == "" || c.era.Modern() {
		return false
	}
	tool := ""
	if call != nil {
		tool = call.name
	}
	var a InputAnswer
	if c.cfg.Answerer != nil {
		a = c.cfg.Answerer.AnswerInput(tool, method, m.params)
	}
	think := a.Think
	if !a.Declared {
		if call != nil {
			call.emit(Event{Kind: EvViolation, At: at, Violation: ViolUndeclaredInput, Detail: "server sent " + method + " without the capability declared"})
		} else {
			c.stats.undeclaredInput.Add(1)
		}
		msg := serverRequestAnswer(m)
		if !c.inputAnswering.after(think, func(ctx context.Context) { send(ctx, msg) }) {
			c.stats.serverRequests.Add(1) // dropped: more waiting than the bound
		}
		return true
	}
	// An answer counts when it goes, not when it was asked for: the call
	// may end while the client thinks (docs/summary.md, mrtr).
	ev := Event{Kind: EvInput, At: at, Detail: kind, Think: think, ContentMismatch: a.ContentMismatch}
	if call != nil {
		call.emit(ev)
	}
	msg := responseTo(m, a.Result)
	answer := func(ctx context.Context) {
		if call == nil {
			c.stats.countInput(kind)
			if a.ContentMismatch {
				c.stats.contentMismatch.Add(1)
			}
		} else if !call.ended() { // racing its end: the observer ignores a late one
			ev.Kind, ev.At = EvInputSent, time.Now()
			call.emit(ev)
		}
		send(ctx, msg)
	}
	if !c.inputAnswering.after(think, answer) {
		c.stats.serverRequests.Add(1) // dropped: more waiting than the bound
		if call != nil {
			ev.Kind, ev.At, ev.Err = EvInputSent, at, errInputDropped
			call.emit(ev)
		}
	}
	return true
}

// errInputDropped: a 2025 input answer not sent, MaxInputAnswering
// answers already waiting.
var errInputDropped = errors.New("input answer dropped: too many answers waiting")

// checkInputMethod counts an input_required answer to a request that may
// not carry one: only tools/call, prompts/get and resources/read may.
func (c *Client) checkInputMethod(method string, result []byte) {
	switch method {
	case vocab.MethodToolsCall, vocab.MethodPromptsGet, vocab.MethodResourcesRead:
		return
	}
	var r struct {
		ResultType string `json:"resultType"`
	}
	if json.Unmarshal(result, &r) == nil && r.ResultType == "input_required" {
		c.stats.inputMethod.Add(1)
	}
}

// responseTo is a JSON-RPC result answering m.
func responseTo(m *inMsg, result []byte) []byte {
	return rpcmsg.AppendResult(nil, json.RawMessage(idText(m)), result)
}

// idText is m's id as JSON.
func idText(m *inMsg) string {
	if m.idIsStr {
		return `"` + string(m.idRaw) + `"` // idRaw is the string's JSON body, escapes and all
	}
	return string(m.idRaw)
}
