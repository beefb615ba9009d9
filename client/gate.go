package client

import "sync"

// readGate pauses the reader of a stream that every call shares (a stdio
// server's stdout, the HTTP+SSE transport's event stream): while it is
// closed nothing is read, so every call on the stream stalls, as a
// stalled reader does.
type readGate struct {
	mu     sync.Mutex
	paused bool
	resume chan struct{}
}

// set closes (on) or opens the gate.
func (g *readGate) set(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case on && !g.paused:
		g.paused, g.resume = true, make(chan struct{})
	case !on && g.paused:
		g.paused = false
		close(g.resume)
	}
}

// wait blocks while the gate is closed, or until stop is closed (nil: no
// stop).
func (g *readGate) wait(stop <-chan struct{}) {
	g.mu.Lock()
	ch, paused := g.resume, g.paused
	g.mu.Unlock()
	if paused {
		select {
		case <-ch:
		case <-stop:
		}
	}
}
