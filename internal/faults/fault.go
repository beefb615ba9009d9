// Package faults is mcpchaos's chaos half: one file per fault kind, each a
// small type whose doc comment says what a correct server does under it,
// and which owns its keys in the scenario file, their checks, its random
// draw, the moment it acts and what it does. Which kinds exist, in which
// order, and the text the docs give for what a correct server does are
// the registry's (internal/faultkinds), shared with the proxy's faults;
// kinds.go lists the builders, held to it by TestRegistry.
//
// Every fault is a Fault. What it does is an ability, found by type
// assertion on the interfaces below: an Actor acts on a call in flight at
// its moment (a time from the send, right after the N-th progress
// notification, or at the final response); a Rewriter breaks the request
// before it is sent; a Reissuer sends a call again after a fault cut it;
// a Background fault runs beside the load at a rate, apart from any call.
//
// A fault draws its random choices for one call from that call's own
// random source (derived from the scenario seed and the call's sequence
// number), so the same seed injects the same faults into the same calls,
// whatever the timing of the run.
//
// Faults know the protocol only through the client package's actions (cancel
// the era's way, abort the transport, stop reading); what the server did
// about it is for the engine and the report to judge.
package faults

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
)

// Fault is one entry of a scenario's faults list, built by New.
type Fault interface {
	// Kind names the fault as scenario files and summaries do.
	Kind() string
	// Draw makes the fault's random choices for one call. It draws the
	// same numbers from rng whatever it decides, so the faults after it
	// see the same numbers too. ok is false when it skips the call (a
	// background fault skips every call and draws nothing).
	Draw(rng *rand.Rand, info Info) (when When, ok bool)
}

// Actor is a fault that acts on a call in flight at the moment it drew.
type Actor interface {
	// Act does the fault to the call and says what it did.
	Act(c Call, info Info) (detail string, err error)
}

// Rewriter is a fault that breaks the request itself before it is sent.
type Rewriter interface {
	// Rewrite breaks the request and names how.
	Rewrite(req *client.CallRequest) (mode string)
	// Expected reports whether the answer is what a correct server gives
	// to the broken request.
	Expected(a Answer) bool
}

// Reissuer is a fault that sends a call again, with a new id, after a
// fault cancelled or disconnected it.
type Reissuer interface {
	// Reissues returns how many times to re-issue the call.
	Reissues() int
}

// RetryBreaker is a fault that breaks the first retry a call makes after
// a 2026 input_required result (engine/rounds.go).
type RetryBreaker interface {
	// BreakRetry changes the retry and names how; abandon says that no
	// retry is sent at all. prevID is the id of the request retried.
	BreakRetry(req *client.CallRequest, prevID int64) (mode string, abandon bool)
	// Expected reports whether the answer to the broken retry is what a
	// correct server gives.
	Expected(a RetryAnswer) bool
}

// PollSpeeder is a fault that makes a task call poll faster than the
// server asked (engine/tasks.go).
type PollSpeeder interface {
	// PollFactor is the share of pollIntervalMs to wait, in (0, 1).
	PollFactor() float64
}

// RetryAnswer is what the server answered to a broken retry.
type RetryAnswer struct {
	// Done: a complete result without isError (the work was done).
	Done bool
	// Silent: no answer to the retry came before the call's timeout, or
	// its stream ended without one (the call ended timeout_idle,
	// timeout_cap, transport_error or protocol_error).
	Silent bool
}

// Background is a fault that runs beside the load for its whole duration.
// The engine paces it at Rate with the load's own pacer and counts what
// it sent and what failed.
type Background interface {
	Rate() scenarios.Rate
	// Send sends the n-th (0-based) message; an error means the server
	// refused it or the write failed.
	Send(ctx context.Context, n uint64, to Notifier, ids IDs, rng *rand.Rand) error
}

// Call is a call in flight that a fault acts on. The engine implements it,
// and each action also settles the call's outcome.
type Call interface {
	// Cancel cancels the call the era's way (outcome cancelled).
	Cancel(reason string, alsoNotify bool) error
	// CancelAnyway cancels even when the final response already arrived
	// (a cancel race); the outcome stays whatever the response made it.
	CancelAnyway(reason string) error
	// Disconnect drops the transport under the call (outcome disconnected).
	Disconnect(mode client.AbortMode) error
	// Pause and Resume stop and restart reading the call's stream.
	Pause()
	Resume()
}

// Info is what a fault may know about a call when it draws and acts.
type Info struct {
	Tool      string
	Era       client.Era
	Transport string // "http" or "stdio"
	// Typical is the tool's typical duration so far (the median of recent
	// calls that were not cancelled), 0 while unknown.
	Typical time.Duration
}

// When says when an Actor acts on a call: at After from the send, right
// after the Progress-th progress notification, or AtResponse. A fault acts
// only on a call that is still running, unless EvenAfterResponse: then it
// also acts on a call whose final response came first (a cancel race).
type When struct {
	After             time.Duration
	Progress          int
	AtResponse        bool
	EvenAfterResponse bool
}

// Answer is what the server answered to a rewritten request.
type Answer struct {
	Era      client.Era
	Status   int   // HTTP status; 0 on stdio
	Code     int64 // JSON-RPC error code; 0 when none
	Answered bool  // a final response or an HTTP status came
}

// Notifier sends client-to-server notifications for background faults.
type Notifier interface {
	Notify(ctx context.Context, method string, params []byte) error
}

// IDs tells background faults about request ids.
type IDs interface {
	// Finished returns the id of a recently finished call, or 0.
	Finished(rng *rand.Rand) int64
}

// perCall holds what every per-call fault shares: the probability, the
// tool patterns and the time.
type perCall struct {
	spec scenarios.Fault
	kind string
}

func (p perCall) Kind() string { return p.kind }

// draw draws the probability and the time, in that order, always both.
func (p perCall) draw(rng *rand.Rand, info Info) (When, bool) {
	hit := rng.Float64() < p.spec.Probability
	var w When
	if p.spec.After != nil {
		w.After = p.spec.After.Sample(rng)
	}
	w.Progress = p.spec.AfterProgress
	return w, hit && p.spec.AppliesTo(info.Tool)
}
