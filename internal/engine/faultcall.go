package engine

import (
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// faultCall is the face a callState shows to the fault a acting on it.
type faultCall struct {
	cs *callState
	a  *armed
}

// reason is the stop reason of the fault acting.
func (c faultCall) reason() results.StopReason { return results.FaultStop(c.a.kind) }

func (c faultCall) Cancel(reason string, alsoNotify bool) error {
	return c.cs.stopWith(results.Cancelled, c.reason(), time.Time{}, func(call *client.Call) error {
		return call.Cancel(reason, alsoNotify)
	})
}

func (c faultCall) CancelAnyway(reason string) error {
	cs := c.cs
	cs.mu.Lock()
	answered := cs.final != finalNone
	call := cs.call
	cs.mu.Unlock()
	if !answered {
		return cs.stopWith(results.Cancelled, c.reason(), time.Time{}, func(call *client.Call) error {
			return call.Cancel(reason, false)
		})
	}
	if call == nil {
		return nil
	}
	// The response won: cancel a finished request, outcome unchanged.
	return call.Cancel(reason, false)
}

func (c faultCall) Disconnect(mode client.AbortMode) error {
	return c.cs.stopWith(results.Disconnected, c.reason(), time.Time{}, func(call *client.Call) error {
		c.cs.r.gw.noteCut(c.cs, time.Now())
		return call.Abort(mode)
	})
}

func (c faultCall) Pause() {
	cs := c.cs
	cs.mu.Lock()
	call := cs.call
	now := time.Now()
	cs.pausedAt = now
	c.a.paused = true
	stdio := cs.info.Transport == "stdio"
	cs.mu.Unlock()
	if stdio {
		cs.r.stalls.pause(cs.rec.Process, now) // the shared pipe stalls every call
	}
	if call != nil {
		call.Pause()
	}
}

func (c faultCall) Resume() {
	cs := c.cs
	cs.mu.Lock()
	call := cs.call
	cs.resumedAt = time.Now()
	stdio := cs.info.Transport == "stdio"
	cs.mu.Unlock()
	if call != nil {
		call.Resume()
	}
	if stdio {
		cs.r.stalls.resume(cs.rec.Process, time.Now())
	}
}

// stallLog remembers when reading a stdio process's output was stopped:
// a stalled pipe delays every call's messages on that process.
type stallLog struct {
	mu sync.Mutex
	m  map[int][]stall
}

// stall is one stopped read; to is zero while it lasts.
type stall struct{ from, to time.Time }

func (l *stallLog) pause(process int, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = make(map[int][]stall)
	}
	l.m[process] = append(l.m[process], stall{from: at})
}

func (l *stallLog) resume(process int, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.m[process]
	for i := len(s) - 1; i >= 0; i-- {
		if s[i].to.IsZero() {
			s[i].to = at
			return
		}
	}
}

// overlaps reports whether reading from process was stopped at any time
// between a and b.
func (l *stallLog) overlaps(process int, a, b time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.m[process] {
		if s.from.Before(b) && (s.to.IsZero() || s.to.After(a)) {
			return true
		}
	}
	return false
}
