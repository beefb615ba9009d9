package engine

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/faults"
	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/results"
)

// armed is one fault drawn for one call, waiting for its moment.
type armed struct {
	f     faults.Fault
	when  faults.When
	timer *time.Timer
	done  bool // its moment came (it may still have found the call over)
	fired bool // it acted
}

// drawFaults makes every per-call fault's random choices for the call, in
// scenario order, and applies the ones that rewrite the request.
func (cs *callState) drawFaults(req *mcp.CallRequest) {
	for _, f := range cs.r.plan.Faults {
		when, ok := f.Draw(cs.rng, cs.info)
		if !ok {
			continue
		}
		switch ff := f.(type) {
		case faults.Rewriter:
			ff.Rewrite(req)
			cs.malformed = f
			cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: f.Kind(), Mode: req.Malform.String()})
		case *faults.Reissue:
			cs.reissues = ff.Max()
		default:
			cs.armed = append(cs.armed, &armed{f: f, when: when})
		}
	}
}

// armFaults starts the timers of time-triggered faults (cs.mu held).
func (cs *callState) armFaults() {
	for _, a := range cs.armed {
		if a.when.Progress > 0 || a.when.AtResponse {
			continue
		}
		at := cs.sent.Add(a.when.After)
		a.timer = time.AfterFunc(time.Until(at), func() { cs.fire(a, at) })
	}
}

// onProgressFaults fires faults waiting for the n-th progress (cs.mu held).
func (cs *callState) onProgressFaults(n int, at time.Time) {
	for _, a := range cs.armed {
		if a.when.Progress == n && !a.done {
			a.done = true
			go cs.fire(a, at)
		}
	}
}

// onResponseFaults fires faults waiting for the final response (cs.mu held).
func (cs *callState) onResponseFaults(at time.Time) {
	for _, a := range cs.armed {
		if a.when.AtResponse && !a.done {
			a.done = true
			go cs.fire(a, at)
		}
	}
}

// fire does a fault to the call and records it, with its timing error.
func (cs *callState) fire(a *armed, scheduled time.Time) {
	cs.mu.Lock()
	over := cs.final != finalNone || cs.stopOutcome != "" || !cs.endAt.IsZero()
	// A cancel race acts even when the response won, but not on a call
	// that ended without one (its transport failed).
	if _, race := a.f.(*faults.CancelRace); race && cs.stopOutcome == "" && cs.final != finalNone {
		over = false
	}
	over = over || cs.recorded
	a.done = true
	cs.mu.Unlock()
	if over {
		return
	}
	actual := time.Now()
	detail, err := a.f.Act(faultCall{cs}, cs.info)
	if err != nil {
		detail += ": " + err.Error()
	}
	cs.mu.Lock()
	if cs.recorded {
		cs.mu.Unlock()
		return
	}
	a.fired = true
	cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: a.f.Kind(), ScheduledUs: cs.us(scheduled),
		ActualUs: cs.us(actual), ErrorUs: actual.Sub(scheduled).Microseconds(), Detail: detail})
	cs.mu.Unlock()
}

// skippedFaults records the faults whose moment never came (cs.mu held).
func (cs *callState) skippedFaults() {
	for _, a := range cs.armed {
		if a.timer != nil {
			a.timer.Stop()
		}
		if !a.fired {
			var at int64
			if a.when.Progress == 0 && !a.when.AtResponse && !cs.sent.IsZero() {
				at = cs.us(cs.sent.Add(a.when.After))
			}
			cs.rec.Faults = append(cs.rec.Faults, results.Fault{Kind: a.f.Kind(), ScheduledUs: at, Skipped: true,
				Detail: "the call ended first"})
		}
	}
}

// faultCall is the face a callState shows to faults.
type faultCall struct{ cs *callState }

func (c faultCall) Cancel(reason string, alsoNotify bool) error {
	return c.cs.stopWith(results.Cancelled, "fault:cancel", time.Time{}, func(call *mcp.Call) error {
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
		return cs.stopWith(results.Cancelled, "fault:cancel_race", time.Time{}, func(call *mcp.Call) error {
			return call.Cancel(reason, false)
		})
	}
	if call == nil {
		return nil
	}
	// The response won: cancel a finished request, outcome unchanged.
	return call.Cancel(reason, false)
}

func (c faultCall) Disconnect(mode mcp.AbortMode) error {
	return c.cs.stopWith(results.Disconnected, "fault:disconnect", time.Time{}, func(call *mcp.Call) error {
		return call.Abort(mode)
	})
}

func (c faultCall) Pause() {
	c.cs.mu.Lock()
	call := c.cs.call
	now := time.Now()
	c.cs.pausedAt = now
	stdio := c.cs.info.Transport == "stdio"
	c.cs.mu.Unlock()
	if stdio {
		c.cs.r.stalls.pause(c.cs.rec.Process, now) // the shared pipe stalls every call
	}
	if call != nil {
		call.Pause()
	}
}

func (c faultCall) Resume() {
	c.cs.mu.Lock()
	call := c.cs.call
	now := time.Now()
	c.cs.resumedAt = now
	stdio := c.cs.info.Transport == "stdio"
	c.cs.mu.Unlock()
	if call != nil {
		call.Resume()
	}
	if stdio {
		c.cs.r.stalls.resume(c.cs.rec.Process, time.Now())
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

// typicals learns each tool's typical duration from calls that were not
// cancelled: the median of the last 32.
type typicals struct {
	mu sync.Mutex
	m  map[string][]time.Duration
}

func (t *typicals) add(tool string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.m == nil {
		t.m = make(map[string][]time.Duration)
	}
	s := append(t.m[tool], d)
	if len(s) > 32 {
		s = s[1:]
	}
	t.m[tool] = s
}

func (t *typicals) get(tool string) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := slices.Clone(t.m[tool])
	if len(s) < 3 {
		return 0
	}
	slices.Sort(s)
	return s[len(s)/2]
}

// finished remembers recently finished request ids for cancel_unknown.
type finished struct {
	mu  sync.Mutex
	ids [256]int64
	n   int
}

func (f *finished) add(id int64) {
	f.mu.Lock()
	f.ids[f.n%len(f.ids)] = id
	f.n++
	f.mu.Unlock()
}

// Finished implements faults.IDs.
func (f *finished) Finished(rng *rand.Rand) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n == 0 {
		return 0
	}
	return f.ids[rng.IntN(min(f.n, len(f.ids)))]
}
