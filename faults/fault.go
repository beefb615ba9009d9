// Package faults is mcpchaos's chaos half: one file per fault, each a small
// type whose doc comment says what a correct server does under it.
//
// A per-call fault draws its random choices for one call from that call's
// own random source (derived from the scenario seed and the call's
// sequence number), so the same seed injects the same faults into the same
// calls, whatever the timing of the run. It then acts on the call at a
// time (from the send), right after the N-th progress notification, or at
// the final response. Background faults run beside the load at a rate.
//
// Faults know the protocol only through the mcp package's actions (cancel
// the era's way, abort the transport, stop reading); what the server did
// about it is for the engine and the report to judge.
package faults

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/scenarios"
)

// Direction says which way a fault's traffic goes.
type Direction string

const (
	// ClientToServer faults change what the client sends.
	ClientToServer Direction = "client→server"
	// ServerToClient faults change how the client takes what the server sends.
	ServerToClient Direction = "server→client"
	// Transport faults cut the connection or the process under a call.
	Transport Direction = "transport"
)

// Call is a call in flight that a fault acts on. The engine implements it,
// and each action also settles the call's outcome.
type Call interface {
	// Cancel cancels the call the era's way (outcome cancelled).
	Cancel(reason string, alsoNotify bool) error
	// CancelAnyway cancels even when the final response already arrived
	// (a cancel race); the outcome stays whatever the response made it.
	CancelAnyway(reason string) error
	// Disconnect drops the transport under the call (outcome disconnected).
	Disconnect(mode mcp.AbortMode) error
	// Pause and Resume stop and restart reading the call's stream.
	Pause()
	Resume()
}

// Info is what a fault may know about a call when it draws and acts.
type Info struct {
	Tool      string
	Era       mcp.Era
	Transport string // "http" or "stdio"
	// Typical is the tool's typical duration so far (the median of recent
	// calls that were not cancelled), 0 while unknown.
	Typical time.Duration
}

// When says when a fault acts on a call: at After from the send, right
// after the Progress-th progress notification, or AtResponse.
type When struct {
	After      time.Duration
	Progress   int
	AtResponse bool
}

// Fault is a per-call fault.
type Fault interface {
	Kind() string
	Direction() Direction
	// Draw makes the fault's random choices for one call. It draws the
	// same numbers from rng whatever it decides, so the faults after it
	// see the same numbers too. ok is false when it skips the call.
	Draw(rng *rand.Rand, info Info) (when When, ok bool)
	// Act does the fault to the call and says what it did.
	Act(c Call, info Info) (detail string, err error)
}

// Rewriter is a fault that changes the request itself instead of acting
// on the call later (malformed input).
type Rewriter interface {
	Rewrite(req *mcp.CallRequest)
}

// Reissuer is a fault that sends a call again, with a new id, after a
// fault cancelled or disconnected it.
type Reissuer interface {
	// Reissues returns how many times to re-issue this call (0: none).
	Reissues(rng *rand.Rand) int
}

// Notifier sends client-to-server notifications for background faults.
type Notifier interface {
	Notify(ctx context.Context, method string, params []byte) error
}

// Background is a fault that runs beside the load for its whole duration.
type Background interface {
	Kind() string
	Direction() Direction
	// Run sends until ctx ends and returns how many it sent and how many
	// of those failed (the server refused or the write failed).
	Run(ctx context.Context, n Notifier, ids IDs, rng *rand.Rand) (sent, failed int)
}

// IDs tells background faults about request ids.
type IDs interface {
	// Finished returns the id of a recently finished call, or 0.
	Finished(rng *rand.Rand) int64
}

// perCall holds what every per-call fault shares: the probability, the
// tool patterns and the timing.
type perCall struct {
	spec scenarios.Fault
}

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

// New builds the fault a scenario entry describes: a Fault, or a
// Background for background kinds.
func New(spec scenarios.Fault) (any, error) {
	pc := perCall{spec}
	switch spec.Kind {
	case scenarios.FaultCancel:
		return &Cancel{pc}, nil
	case scenarios.FaultDisconnect:
		return newDisconnect(pc)
	case scenarios.FaultCancelRace:
		return &CancelRace{pc}, nil
	case scenarios.FaultStallRead:
		return &StallRead{pc}, nil
	case scenarios.FaultMalformed:
		return newMalformed(pc)
	case scenarios.FaultReissue:
		return &Reissue{pc}, nil
	case scenarios.FaultNotifyFlood:
		return &NotifyFlood{rate: spec.Rate}, nil
	case scenarios.FaultCancelUnknown:
		return &CancelUnknown{rate: spec.Rate}, nil
	}
	return nil, fmt.Errorf("unknown fault kind %q", spec.Kind)
}
