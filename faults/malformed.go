package faults

import (
	"fmt"
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/mcp"
)

// Malformed replaces a call's request with bad input: mode json (a body
// that is not JSON), params (a name that is a number and arguments that
// are a string), oversize (arguments padded to `size` bytes) or
// missing_meta (a 2026 request whose _meta lacks protocolVersion).
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
	mode mcp.Malform
}

func newMalformed(pc perCall) (*Malformed, error) {
	var m mcp.Malform
	switch pc.spec.Mode {
	case "json":
		m = mcp.MalformJSON
	case "params":
		m = mcp.MalformParams
	case "oversize":
		m = mcp.MalformOversize
	case "missing_meta":
		m = mcp.MalformMissingMeta
	default:
		return nil, fmt.Errorf("malformed: unknown mode %q", pc.spec.Mode)
	}
	return &Malformed{pc, m}, nil
}

func (f *Malformed) Kind() string         { return "malformed" }
func (f *Malformed) Direction() Direction { return ClientToServer }

func (f *Malformed) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// Act does nothing: the fault is in the request (see Rewrite).
func (f *Malformed) Act(Call, Info) (string, error) { return "", nil }

// Rewrite breaks the request.
func (f *Malformed) Rewrite(req *mcp.CallRequest) {
	req.Malform = f.mode
	req.MalformSize = int(f.spec.Size)
	if req.MalformSize <= 0 {
		req.MalformSize = 8 << 20
	}
}

// Expected reports whether an answer is what a correct server gives to
// this mode: an HTTP status (0 on stdio), a JSON-RPC error code (0 when
// none), and whether any answer came at all. No answer is never right: a
// correct server answers even a request it cannot read.
func (f *Malformed) Expected(era mcp.Era, status int, code int64, answered bool) bool {
	if !answered && status == 0 {
		return false
	}
	rejected := status == 400 || status == 413 || status == 422
	switch f.mode {
	case mcp.MalformJSON:
		return code == mcp.CodeParseError || code == mcp.CodeInvalidRequest || rejected
	case mcp.MalformParams:
		return code == mcp.CodeInvalidParams || code == mcp.CodeInvalidRequest || rejected
	case mcp.MalformOversize:
		// stdio has no size rule: any answer is fine, as long as one comes.
		return status == 413 || code != 0 || rejected || status == 0
	case mcp.MalformMissingMeta:
		if !era.Modern() {
			return status/100 == 2 || status == 0
		}
		return code == mcp.CodeInvalidParams && (status == 0 || status == 400)
	}
	return false
}

// Mode returns how the request is broken.
func (f *Malformed) Mode() mcp.Malform { return f.mode }
