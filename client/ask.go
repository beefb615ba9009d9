package client

import (
	"context"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Answer is what one control request got back: its HTTP status (0 on
// stdio), its JSON-RPC error (nil when it had a result), or the error
// that left it without an answer.
type Answer struct {
	Status int
	RPCErr *RPCError
	Err    error
}

// Setup returns the request that sets a client up in the client's era:
// server/discover in 2026, initialize before.
func (c *Client) Setup() string {
	if c.era.Modern() {
		return vocab.MethodDiscover
	}
	return vocab.MethodInitialize
}

// Ask sends one control request, bounded by ctx, and returns its answer:
// tools/list (its first page), or the era's set-up request (Setup; a
// legacy initialize goes on the client's session, as a client that
// starts over would send it). It changes nothing of the client's state.
func (c *Client) Ask(ctx context.Context, method string) Answer {
	var members []byte
	o := metaOptions{modern: c.era.Modern()}
	if method == vocab.MethodInitialize {
		members, o = c.initMembers(c.era), metaOptions{}
	}
	r := c.roundTrip(ctx, method, "", members, o)
	return Answer{Status: r.status, RPCErr: r.rpcErr, Err: r.err}
}
