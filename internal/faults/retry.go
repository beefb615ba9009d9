package faults

import (
	"encoding/json"
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// BadRetry breaks the first retry a call makes after a 2026
// input_required result (docs/long-running.md), with mode drop_state (the
// retry leaves out the requestState the server sent), alter_state (it
// sends the state with its last character changed), wrong_answer (the
// answers go under keys the server did not ask for), wrong_shape (each
// answer, under its right key, is not a result of the request's kind: no
// action, its content a string) or abandon (no retry is sent: the call is
// given up between rounds, as a user closing the dialog would). A call that gets no input_required is not touched.
//
// A correct server does not do the work on a broken retry: it answers
// with an error, a tool error, or input_required again (asking anew).
// Doing the work anyway is counted in faults.bad_retry.unexpected: a
// server that trusts a state it cannot verify, or runs without the answer
// it asked for; so is leaving the retry unanswered until the call's
// timeout. After abandon nothing may run on: the orphan probes and
// the target's ledger show whether the server kept anything for the call
// it will never see again.
type BadRetry struct {
	perCall
	mode string
}

// badRetryModes are the values of mode, in documentation order.
var badRetryModes = []string{"drop_state", "alter_state", "wrong_answer", "wrong_shape", "abandon"}

var badRetryKind = kind{name: faultkinds.BadRetry, perCall: true, keys: []scenarios.Field{
	{Name: "mode", Type: scenarios.EnumType(badRetryModes...), Required: true, Doc: "how the retry after input_required is broken"}},
	build: func(b builder) Fault { return &BadRetry{b.perCall(), b.r.Enum("mode", "", badRetryModes...)} }}

func (f *BadRetry) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// BreakRetry breaks the retry; abandon says not to send it.
func (f *BadRetry) BreakRetry(req *client.CallRequest, _ int64) (mode string, abandon bool) {
	switch f.mode {
	case "drop_state":
		req.RequestState = nil
	case "alter_state":
		req.RequestState = alterState(req.RequestState)
	case "wrong_answer":
		req.InputResponses = rekey(req.InputResponses)
	case "wrong_shape":
		req.InputResponses = misshape(req.InputResponses)
	case "abandon":
		return f.mode, true
	}
	return f.mode, false
}

// Expected reports whether the server's answer to the broken retry is
// what a correct server gives: an answer, but not the work done.
func (f *BadRetry) Expected(a RetryAnswer) bool { return !a.Done && !a.Silent }

// alterState changes the last character of a JSON string's text ("" and
// non-strings become "x").
func alterState(state json.RawMessage) json.RawMessage {
	var s string
	if json.Unmarshal(state, &s) != nil || s == "" {
		s = "x"
	} else if b := []byte(s); b[len(b)-1] != 'x' {
		b[len(b)-1] = 'x'
		s = string(b)
	} else {
		b[len(b)-1] = 'y'
		s = string(b)
	}
	out, _ := json.Marshal(s)
	return out
}

// rekey moves every answer to a key the server did not use.
func rekey(responses json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(responses, &m) != nil {
		return json.RawMessage(`{"mcpchaos-not-asked":{"action":"accept","content":{}}}`)
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out["mcpchaos-not-asked-"+k] = v
	}
	b, _ := json.Marshal(out)
	return b
}

// wrongShape is an answer of no request's shape: an elicitation result
// needs an action, a sampling result a role and content object, a roots
// result a list.
const wrongShape = `{"content":"mcpchaos: not a result of the request's kind"}`

// misshape replaces every answer with wrongShape, under its own key.
func misshape(responses json.RawMessage) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(responses, &m) != nil {
		return responses
	}
	for k := range m {
		m[k] = json.RawMessage(wrongShape)
	}
	b, _ := json.Marshal(m)
	return b
}
