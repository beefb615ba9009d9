package engine

import (
	"strconv"
	"time"
)

// The time fallback of faults due at the N-th progress notification. A
// gateway that buffers a call's stream, or a server that sends no progress,
// would otherwise leave an `after_progress` fault waiting for a moment that
// never comes, and the fault would be skipped: what it was meant to test
// would go untested exactly where it matters. So such a fault also has a
// time trigger, and acts at whichever comes first:
//
//   - with `after` written beside `after_progress`, at that time from the
//     send (drawn like any `after`);
//   - else once the call has been quiet, with no progress notification,
//     for half of timeouts.idle (from the send, then from each
//     notification), so a call whose progress flows never meets it, and a
//     call whose progress is held back meets it before the client's own
//     idle timeout would end it.
//
// A fault that acted on its fallback says so in its record's detail.

// fallbackQuiet is how long a call may be quiet before an after_progress
// fault without `after` acts on its fallback; 0: no fallback.
func (cs *callState) fallbackQuiet() time.Duration {
	t := cs.r.plan.Timeouts
	if t.Idle > 0 {
		return t.Idle / 2
	}
	return t.Max / 2
}

// armFallback starts the fallback timer of an after_progress fault
// (cs.mu held).
func (cs *callState) armFallback(a *armed) {
	switch {
	case a.when.After > 0:
		a.due = cs.sent.Add(a.when.After)
	case cs.fallbackQuiet() > 0:
		a.quiet = true
		a.due = cs.lastAlive.Add(cs.fallbackQuiet())
	default:
		return
	}
	a.timer = cs.r.afterFunc(time.Until(a.due), func() { cs.onFallback(a) })
}

// moveFallback moves a quiet fallback past a progress notification that
// arrived at at (cs.mu held).
func (cs *callState) moveFallback(a *armed, at time.Time) {
	a.due = at.Add(cs.fallbackQuiet())
	if a.timer != nil {
		a.timer.Reset(time.Until(a.due))
	}
}

// onFallback acts when the fallback came before the N-th progress.
func (cs *callState) onFallback(a *armed) {
	cs.mu.Lock()
	if a.done || time.Now().Before(a.due) { // the progress came first, or the timer was moved
		cs.mu.Unlock()
		return
	}
	a.done, a.fallback = true, true
	cs.fireSoon(a)
	due := a.due
	cs.mu.Unlock()
	cs.fire(a, due)
}

// fallbackDetail says in a fault's record that it acted on its fallback.
func fallbackDetail(a *armed, detail string) string {
	why := "progress " + strconv.Itoa(a.when.Progress) + " had not come"
	if detail != "" {
		return detail + " (fallback: " + why + ")"
	}
	return "fallback: " + why
}
