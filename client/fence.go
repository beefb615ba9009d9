package client

import (
	"context"
	"fmt"
	"sync"
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

// fenceMark is the latest fence answered on a stdio connection: when its
// ping was sent and when its answer was read. The reader notes each ping's
// answer as it reads it (stdioread.go), whoever sent the ping.
type fenceMark struct {
	mu         sync.Mutex
	sent, read time.Time
}

func (f *fenceMark) note(sent, read time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if sent.After(f.sent) {
		f.sent, f.read = sent, read
	}
}

// writtenAfter reports whether a message read at at was written by the
// server after it read what we sent at since: a fence sent after since was
// answered before at (stdio: one pipe, in write order). A fence answered
// but not yet noted counts as none: the message then proves nothing.
func (f *fenceMark) writtenAfter(since, at time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sent.After(since) && f.read.Before(at)
}
