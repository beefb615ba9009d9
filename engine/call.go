package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/mcpchaos/mcpchaos/faults"
	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/results"
)

type finalKind uint8

const (
	finalNone finalKind = iota
	finalResult
	finalError
)

// callState is one call's life in the engine: it observes the call's
// events, enforces its timeouts, runs its faults, and becomes its Record.
// Events arrive on the transport's goroutine and timers fire on their own,
// so the fields below mu are guarded by it.
type callState struct {
	r      *runner
	seq    uint64
	spec   *CallSpec
	client *mcp.Client
	call   *mcp.Call
	rng    *rand.Rand
	info   faults.Info

	mu         sync.Mutex
	rec        results.Record
	sent       time.Time
	headersAt  time.Time
	responseAt time.Time
	cancelAt   time.Time
	endAt      time.Time
	lastSeen   time.Time // the last message received after our cancel
	lastAlive  time.Time // the send or the last progress: the idle clock
	status     int
	retryAfter time.Duration
	final      finalKind
	result     mcp.Result
	code       int64
	hasCode    bool
	message    string
	endErr     error
	prog       progressTracker
	// stopOutcome is the outcome of whoever stopped the call first.
	stopOutcome string
	idle, cap   *time.Timer

	armed     []*armed
	malformed faults.Fault
	reissues  int
	pausedAt  time.Time
	resumedAt time.Time
	atResume  int // progress count when reading resumed
	burst     int // events within burstWindow after resuming

	// recorded: the record was handed to the collector, which may read it
	// at any time; later events are no longer counted.
	recorded bool
}

// burstWindow is how soon after a stalled read resumes a burst of events
// counts as "buffered".
const burstWindow = 20 * time.Millisecond

func (r *runner) newCall(t tick) *callState {
	cs := &callState{r: r, seq: t.seq}
	cs.rng = rand.New(rand.NewPCG(uint64(r.plan.Seed), t.seq))
	cs.spec = r.pick(cs.rng)
	cs.rec = results.Record{Type: results.TypeCall, Seq: t.seq, Tool: cs.spec.Tool, Scheduled: t.scheduled}
	return cs
}

// us is an offset from the scheduled time for the record.
func (cs *callState) us(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return results.Us(t.Sub(cs.rec.Scheduled))
}

// run draws the call's faults, starts it, arms its timeouts and faults,
// and waits for it to end. The lock is not held while sending: on stdio
// the reader may need it to drain the server's output while our write
// waits for the server.
func (cs *callState) run(ctx context.Context, client *mcp.Client, process int, withFaults bool) {
	req := mcp.CallRequest{Tool: cs.spec.Tool, Arguments: cs.spec.Arguments, Progress: cs.spec.Progress, Observer: cs}
	cs.mu.Lock()
	cs.client = client
	cs.rec.Process = process
	cs.info = faults.Info{Tool: cs.spec.Tool, Era: client.Era(), Transport: client.Transport(), Typical: cs.r.typical.get(cs.spec.Tool)}
	if withFaults {
		cs.drawFaults(&req)
	}
	cs.sent = time.Now() // provisional, for events that beat Start's return
	cs.prog.start(cs.sent)
	cs.mu.Unlock()
	cs.r.inflight.add(cs)
	defer cs.r.inflight.remove(cs)
	call, err := client.Start(ctx, req)
	cs.mu.Lock()
	if err != nil {
		cs.endErr, cs.endAt, cs.sent = err, time.Now(), time.Time{}
		cs.mu.Unlock()
		return
	}
	cs.call = call
	cs.sent = call.Sent()
	if cs.prog.count == 0 {
		cs.prog.start(cs.sent)
	}
	if cs.lastAlive.IsZero() {
		cs.lastAlive = cs.sent
	}
	cs.rec.ID = call.ID()
	to := cs.r.plan.Timeouts
	if to.Idle > 0 {
		cs.idle = time.AfterFunc(time.Until(cs.lastAlive.Add(to.Idle)), cs.idleFired)
	}
	if to.Max > 0 {
		deadline := cs.sent.Add(to.Max)
		cs.cap = time.AfterFunc(time.Until(deadline), func() { cs.stop(results.TimeoutCap, "timeout_cap", deadline) })
	}
	cs.armFaults()
	cs.mu.Unlock()
	call.Wait()
	cs.mu.Lock()
	cs.stopTimers()
	cs.mu.Unlock()
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
	cs.stop(results.TimeoutIdle, "timeout_idle", deadline)
}

// stop cancels the call the era's way for a timeout or the end of the run.
func (cs *callState) stop(outcome, reason string, deadline time.Time) {
	_ = cs.stopWith(outcome, reason, deadline, func(call *mcp.Call) error {
		return call.Cancel("mcpchaos: "+reason, false)
	})
}

// stopWith settles the call's outcome as whoever stops it first and then
// acts (cancel or abort) — unless the call already ended or was stopped.
func (cs *callState) stopWith(outcome, reason string, deadline time.Time, act func(*mcp.Call) error) error {
	cs.mu.Lock()
	if cs.final != finalNone || cs.stopOutcome != "" || cs.call == nil || !cs.endAt.IsZero() || cs.recorded {
		cs.mu.Unlock()
		return nil
	}
	now := time.Now()
	cs.r.lastStopNs.Store(now.UnixNano())
	cs.stopOutcome, cs.cancelAt = outcome, now
	cs.rec.CancelReason = reason
	if !deadline.IsZero() {
		cs.rec.DeadlineUs = cs.us(deadline)
		cs.rec.TimeoutErrUs = max(now.Sub(deadline).Microseconds(), 0)
		if outcome == results.TimeoutCap && cs.prog.count > 0 && now.Sub(cs.prog.prevAt) <= cs.r.plan.Timeouts.Idle {
			cs.rec.CapWithProgress = true
		}
	}
	cs.stopTimers()
	call := cs.call
	cs.mu.Unlock()
	err := act(call)
	if err != nil {
		cs.mu.Lock()
		cs.rec.Error = truncate(err.Error(), 300)
		cs.mu.Unlock()
	}
	return err
}

// OnEvent implements mcp.Observer.
func (cs *callState) OnEvent(ev mcp.Event) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.recorded {
		return
	}
	if !cs.resumedAt.IsZero() && ev.At.Sub(cs.resumedAt) <= burstWindow && ev.At.After(cs.resumedAt) {
		cs.burst++
	}
	switch ev.Kind {
	case mcp.EvHeaders:
		cs.headersAt, cs.status, cs.retryAfter = ev.At, ev.Status, ev.RetryAfter
	case mcp.EvProgress:
		cs.onProgress(ev)
	case mcp.EvResult, mcp.EvRPCError:
		cs.onResponse(ev)
	case mcp.EvViolation:
		cs.rec.Violations.Add(ev.Violation.String(), 1)
	case mcp.EvEnd:
		cs.endAt, cs.endErr = ev.At, ev.Err
	}
}

func (cs *callState) onProgress(ev mcp.Event) {
	switch {
	case ev.Late || !cs.cancelAt.IsZero():
		cs.rec.LateProgress++
		if cs.beyondGrace(ev.At) {
			cs.lastSeen = ev.At
			cs.rec.Violations.Add("after_cancel", 1)
		}
	case ev.AfterFinal:
		cs.rec.Violations.Add("after_response", 1)
	default:
		if cs.prog.add(ev.At, ev.Progress, ev.Total, ev.HasTotal) {
			cs.rec.Violations.Add("non_monotonic", 1)
		}
		if !cs.resumedAt.IsZero() && cs.atResume == 0 {
			cs.atResume = cs.prog.count
		}
		cs.lastAlive = ev.At
		cs.onProgressFaults(cs.prog.count, ev.At)
	}
}

func (cs *callState) onResponse(ev mcp.Event) {
	switch {
	case ev.AfterFinal:
		cs.rec.Violations.Add("duplicate_response", 1)
		return
	case ev.Late || !cs.cancelAt.IsZero():
		cs.rec.LateResponses++
		// An error answer to a cancelled call is the server saying it
		// stopped (the Go SDK sends one); a successful result after the
		// grace shows the work ran on.
		if ev.Kind == mcp.EvResult && !ev.Result.IsError && cs.beyondGrace(ev.At) {
			cs.lastSeen = ev.At
		}
	}
	if cs.final != finalNone {
		return
	}
	cs.onResponseFaults(ev.At)
	cs.responseAt = ev.At
	if ev.Kind == mcp.EvRPCError {
		cs.final, cs.code, cs.hasCode = finalError, ev.Code, true
		cs.message = truncate(mcp.Unquote(ev.Message), 300)
		return
	}
	cs.final, cs.result = finalResult, ev.Result
	cs.result.Text = nil
	if ev.Result.IsError {
		cs.message = truncate(mcp.Unquote(ev.Result.Text), 300)
	}
}

// beyondGrace reports whether a message received at `at` came later than
// the cancel plus the grace, so that the server must have sent it after it
// could have seen the cancel. A message read after a stalled read (the
// stall_read fault) may have been written long before it was read, so it
// does not count (cs.mu held).
func (cs *callState) beyondGrace(at time.Time) bool {
	if cs.cancelAt.IsZero() || at.Sub(cs.cancelAt) <= cs.r.plan.Progress.Grace {
		return false
	}
	if !cs.pausedAt.IsZero() && cs.pausedAt.Before(at) && (cs.resumedAt.IsZero() || !cs.resumedAt.Before(cs.cancelAt)) {
		return false
	}
	return !cs.r.stalls.overlaps(cs.rec.Process, cs.cancelAt, at)
}
