package engine

import (
	"errors"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// A call's timeouts, and how a call is stopped before its answer. The
// client's two timeouts run from the send: the idle timeout is reset by
// every in-order progress notification, the cap (timeouts.max) never is.
// Whoever stops a call first — a timeout, the end of the run, or a fault —
// goes through stopWith, which settles the call's outcome and its stop
// reason once.

// armTimeouts starts the idle and cap timers once the call is sent (cs.mu
// held).
func (cs *callState) armTimeouts() {
	to := cs.r.plan.Timeouts
	cs.armIdle()
	if to.Max > 0 {
		deadline := cs.sent.Add(to.Max)
		cs.cap = cs.r.afterFunc(time.Until(deadline), func() { cs.stop(results.TimeoutCap, results.StopTimeoutCap, deadline) })
	}
}

// armIdle starts the idle timer from lastAlive (cs.mu held). An idle
// deadline at or past the cap's is not armed: the cap runs from the send
// and is never moved, so it ends the call first (with timeouts.idle equal
// to timeouts.max, a call silent throughout is timeout_cap), and the idle
// timer would only cost a callback goroutine per call at the moment of the
// cap's (the driver takes both in one wake).
func (cs *callState) armIdle() {
	to := cs.r.plan.Timeouts
	if to.Idle <= 0 {
		return
	}
	at := cs.lastAlive.Add(to.Idle)
	if to.Max > 0 && !at.Before(cs.sent.Add(to.Max)) {
		return
	}
	cs.idle = cs.r.afterFunc(time.Until(at), cs.idleFired)
}

func (cs *callState) stopTimers() {
	if cs.idle != nil {
		cs.idle.Stop()
	}
	if cs.cap != nil {
		cs.cap.Stop()
	}
}

// idleFired enforces the idle timeout, unless progress moved the deadline
// while the timer was firing.
func (cs *callState) idleFired() {
	cs.mu.Lock()
	deadline := cs.lastAlive.Add(cs.r.plan.Timeouts.Idle)
	if wait := time.Until(deadline); wait > 0 && cs.stopOutcome == "" {
		cs.idle.Reset(wait)
		cs.mu.Unlock()
		return
	}
	cs.mu.Unlock()
	cs.stop(results.TimeoutIdle, results.StopTimeoutIdle, deadline)
}

// stop cancels the call the era's way for a timeout or the end of the run;
// it reports whether it did (not when the call had ended or was stopped).
func (cs *callState) stop(outcome string, reason results.StopReason, deadline time.Time) (stopped bool) {
	_ = cs.stopWith(outcome, reason, deadline, func(call *client.Call) error {
		stopped = true
		return call.Cancel("mcpchaos: "+string(reason), false)
	})
	return stopped
}

// stopWith settles the call's outcome as whoever stops it first and then
// acts (cancel or abort) — unless the call already ended or was stopped.
func (cs *callState) stopWith(outcome string, reason results.StopReason, deadline time.Time, act func(*client.Call) error) error {
	cs.mu.Lock()
	return cs.stopHeld(outcome, reason, deadline, act)
}

// tryStop is stop for a sweep over many calls: it does not wait for the
// call's lock (busy: try again later), and reports whether it stopped the
// call (not when it had ended or was stopped already).
func (cs *callState) tryStop(outcome string, reason results.StopReason) (stopped bool) {
	if !cs.mu.TryLock() {
		return false
	}
	_ = cs.stopHeld(outcome, reason, time.Time{}, func(call *client.Call) error {
		stopped = true
		return call.Cancel("mcpchaos: "+string(reason), false)
	})
	return stopped
}

// stopHeld is stopWith with cs.mu held; it releases it.
func (cs *callState) stopHeld(outcome string, reason results.StopReason, deadline time.Time, act func(*client.Call) error) error {
	if cs.final != finalNone || cs.stopOutcome != "" || cs.call == nil || !cs.endAt.IsZero() || cs.recorded {
		cs.mu.Unlock()
		return nil
	}
	now := time.Now()
	cs.r.lastStopNs.Store(now.UnixNano())
	// A task's stop is a tasks/cancel, which the server may let run on
	// (cooperative): the log probes do not judge it.
	if cs.thinking == nil && cs.task.id == "" {
		cs.r.noteCancel(cs.call, now)
		cs.noteCutPace()
		if reason == results.StopQuietWindow {
			cs.r.cutTimes.sweep(cs.cutAt(now)) // what the window's grace CPU is held to (projection.go)
		}
	}
	cs.stopOutcome, cs.cancelAt = outcome, now
	cs.stopped.Store(true)
	cs.rec.CancelReason = reason
	if !deadline.IsZero() {
		cs.rec.DeadlineUs = cs.us(deadline)
		cs.rec.TimeoutErrUs = max(now.Sub(deadline).Microseconds(), 0)
		if outcome == results.TimeoutCap && cs.prog.count > 0 && now.Sub(cs.prog.prevAt) <= cs.r.plan.Timeouts.Idle {
			cs.rec.CapWithProgress = true
		}
	}
	cs.stopTimers()
	if cs.thinking != nil {
		cs.abandonHeld()
		if cs.task.id == "" {
			cs.cutOut.Store(true) // a followed task's cut is its tasks/cancel (cancelTask)
		}
		cs.mu.Unlock()
		return nil
	}
	call := cs.call
	// The act ends the call for the client (Done), so its late window may
	// pass and its record be taken while a slow act (a cancel POSTed to a
	// 2025 server that is slow to answer) still runs: the record waits
	// for it as for a fault's Act, so what follows lands in the record,
	// not in one already handed over.
	cs.acting++
	cs.mu.Unlock()
	err := act(call)
	cs.cutOut.Store(true)
	cs.mu.Lock()
	cs.cancelSent = time.Now()
	if outcome == results.Cancelled && errors.Is(err, client.ErrStdinClosed) {
		// The cancel never reached the server: a disconnect of another
		// call on the same process had closed its stdin first. What the
		// server saw stop this call was that EOF, a disconnect, and in
		// the 2025 revisions work after it is no violation.
		cs.stopOutcome = results.Disconnected
	}
	pg, wg := cs.r.plan.Progress.Grace, cs.r.plan.workGrace()
	cs.fence = cs.r.fences.after(cs.client, cs.cancelSent.Add(pg), pg)
	cs.workFence = cs.fence
	if wg > pg {
		cs.workFence = cs.r.fences.after(cs.client, cs.cancelSent.Add(wg), wg)
	}
	if reason != results.StopQuietWindow {
		cs.r.cutPings.after(cs.client, cs.cancelSent) // a window's cuts are its own to judge
	}
	if err != nil {
		cs.rec.Error = truncate(err.Error(), 300)
	}
	cs.endActing()
	cs.mu.Unlock()
	return err
}
