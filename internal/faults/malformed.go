package faults

import (
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// Malformed replaces a call's request with bad input: mode json (a body
// that is not JSON), params (a name that is a number and arguments that
// are a string), oversize (arguments padded to `size` bytes, default
// 8MiB) or missing_meta (a 2026 request whose _meta lacks
// protocolVersion).
//
// A correct server answers with the right error and stays up: -32700 (or
// HTTP 400) for broken JSON — on stdio with a null id, which the client
// matches to the oldest unanswered broken request; -32602 for wrong
// params; HTTP 413 or a JSON-RPC error for an oversize body (stdio has no
// size rule, so any answer will do there); -32602 with HTTP 400 for missing
// _meta in 2026 (a legacy request has no such field, so the mode sends a
// well-formed legacy request). Later calls must still succeed.
type Malformed struct {
	perCall
	mode client.Malform
	size int // oversize: the request's size in bytes
}

// defaultOversize is the size of an oversize request without size.
const defaultOversize = scenarios.ByteSize(8 << 20)

// MaxOversize bounds size: the request is built in memory, once per call
// in flight.
const MaxOversize = scenarios.ByteSize(256 << 20)

var malformModes = map[string]client.Malform{
	"json":         client.MalformJSON,
	"params":       client.MalformParams,
	"oversize":     client.MalformOversize,
	"missing_meta": client.MalformMissingMeta,
}

// malformedModes are the values of mode, in documentation order.
var malformedModes = []string{"json", "params", "oversize", "missing_meta"}

var malformedKind = kind{name: faultkinds.Malformed, perCall: true, keys: []scenarios.Field{
	{Name: "mode", Type: scenarios.EnumType(malformedModes...), Required: true, Doc: "how the request is broken"},
	{Name: "size", Type: scenarios.ByteSizeType(), Doc: "the body size of mode oversize; default 8MiB"}},
	build: func(b builder) Fault {
		mode := b.r.Enum("mode", "", malformedModes...)
		f := &Malformed{perCall: b.perCall(), mode: malformModes[mode]}
		switch {
		case mode == "oversize":
			f.size = int(b.r.ByteSize("size", defaultOversize, MaxOversize))
		case b.r.Present("size") && mode != "":
			b.r.KeyErrorf("size", "applies only to mode oversize")
		}
		return f
	}}

func (f *Malformed) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// Rewrite breaks the request.
func (f *Malformed) Rewrite(req *client.CallRequest) string {
	req.Malform = f.mode
	req.MalformSize = f.size
	if req.MalformSize <= 0 {
		req.MalformSize = int(defaultOversize)
	}
	return f.mode.String()
}

// Expected reports whether an answer is what a correct server gives to
// this mode. No answer is never right: a correct server answers even a
// request it cannot read.
func (f *Malformed) Expected(a Answer) bool {
	status, code := a.Status, a.Code
	if !a.Answered && status == 0 {
		return false
	}
	rejected := status == 400 || status == 413 || status == 422
	switch f.mode {
	case client.MalformJSON:
		return code == client.CodeParseError || code == client.CodeInvalidRequest || rejected
	case client.MalformParams:
		return code == client.CodeInvalidParams || code == client.CodeInvalidRequest || rejected
	case client.MalformOversize:
		// stdio has no size rule: any answer is fine, as long as one comes.
		return status == 413 || code != 0 || rejected || status == 0
	case client.MalformMissingMeta:
		if !a.Era.Modern() {
			return status/100 == 2 || status == 0
		}
		return code == client.CodeInvalidParams && (status == 0 || status == 400)
	}
	return false
}
