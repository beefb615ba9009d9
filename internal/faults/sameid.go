package faults

import (
	"math/rand/v2"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faultkinds"
)

// SameIDRetry sends the first retry a call makes after a 2026
// input_required result under the JSON-RPC id of the request it retries
// (and, for a call with progress, under its progress token), where the
// spec asks for a new id (docs/long-running.md). The retry is otherwise
// right: the answers and the state echoed. The first request's answer has
// come, so its id is no longer in use on the client's side; a server, a
// gateway or a bridge that remembers ids (to drop duplicates, or to route
// answers) is what this finds. A call that gets no input_required is not
// touched.
//
// A correct server answers the retry: as a new request (the work done,
// input_required again, a tool error) or by rejecting it with an error
// (a JSON-RPC error such as -32600, an HTTP error). What it must not do is
// leave it unanswered (the call ends timeout_idle or timeout_cap) or
// answer under another id (on stdio the answer never reaches the call,
// which then times out; on HTTP the retry's stream ends without its
// answer): either is counted in faults.same_id_retry.unexpected.
type SameIDRetry struct {
	perCall
}

var sameIDRetryKind = kind{name: faultkinds.SameIDRetry, perCall: true,
	build: func(b builder) Fault { return &SameIDRetry{b.perCall()} }}

func (f *SameIDRetry) Draw(rng *rand.Rand, info Info) (When, bool) {
	_, ok := f.draw(rng, info)
	return When{}, ok
}

// BreakRetry sends the retry under prevID, the id of the request it
// retries.
func (f *SameIDRetry) BreakRetry(req *client.CallRequest, prevID int64) (mode string, abandon bool) {
	req.ReuseID = prevID
	return "same_id", false
}

// Expected reports whether the server answered the retry at all.
func (f *SameIDRetry) Expected(a RetryAnswer) bool { return !a.Silent }
