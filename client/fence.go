package client

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Fence sends a ping and returns when its answer was read. Any answer
// will do, an error too: what matters is where it came in the server's
// output. On stdio one pipe carries every message in the order the
// server wrote it, and one goroutine reads them in that order, so a
// message read after the fence's answer was written after the server read
// the ping, which was after Fence was called. Over HTTP each request has
// its own stream and a fence orders nothing.
func (c *Client) Fence(ctx context.Context) (time.Time, error) {
	r := c.roundTrip(ctx, vocab.MethodPing, "", nil, metaOptions{modern: c.era.Modern()})
	if r.at.IsZero() {
		err := r.err
		if err == nil {
			err = errStreamEnded
		}
		return time.Time{}, fmt.Errorf("ping: %w", err)
	}
	return r.at, nil
}
