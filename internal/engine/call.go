package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
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
	r   *runner
	seq uint64
	// starting: the call's tick counts in r.starting until it is in flight.
	starting bool
	spec     *CallSpec
	client   *client.Client
	call     *client.Call
	rng      *rand.Rand
	info     faults.Info

	mu         sync.Mutex
	rec        results.Record
	sent       time.Time
	headersAt  time.Time
	responseAt time.Time
	cancelAt   time.Time
	cancelSent time.Time // when the cancel's act returned (beyondGrace)
	endAt      time.Time
	lastSeen   time.Time // the last message received after our cancel
	// fencedSeen: the last message read after the work fence's answer
	// that by the clock was within its give or take (settleLate).
	fencedSeen time.Time
	fence      *fence    // the stdio fence sent the progress grace after our cancel (fence.go)
	workFence  *fence    // the one sent the work grace after it (fence itself when the graces are equal)
	late       []lateMsg // late messages to weigh against it
	lastAlive  time.Time // the send or the last progress: the idle clock
	status     int
	retryAfter time.Duration
	claim      client.RateLimitClaim // the rate-limit headers' claim
	reset      time.Duration         // their reset; -1 when absent
	hint       time.Duration         // a retry time in the answer's data or text (hintFrom says where)
	hintFrom   string
	final      finalKind
	result     client.Result
	code       int64
	hasCode    bool
	message    string
	endErr     error
	prog       progressTracker
	// stopOutcome is the outcome of whoever stopped the call first;
	// stopped is set with it, for sweeps that must not wait for mu;
	// cutOut once its cancel has gone out (abandoned between rounds: at
	// once; a followed task: its tasks/cancel), and sending while a retry
	// round is being sent (a stop then cancels the round that ended, and
	// the new one once it is out): a window's sweep waits for both
	// (inflightSet.uncut).
	stopOutcome string
	stopped     atomic.Bool
	cutOut      atomic.Bool
	sending     atomic.Bool
	idle, cap   timerHandle // deadlines.go

	armed     []*armed
	due       []dueFault      // faults to act once cs.mu is released (OnEvent)
	rewriter  faults.Rewriter // the last fault that broke the request
	rewrites  []int           // its entries in rec.Faults
	reissues  int
	pausedAt  time.Time
	resumedAt time.Time
	burst     int // events within burstWindow after resuming

	// round counts the retries sent after input_required results
	// (rounds.go); thinking is closed when a stop comes between rounds.
	round    int
	thinking chan struct{}
	pending  pendingRound // the round's answers until its retry goes
	// unsentAsk: the call was stopped while it thought over an
	// input_required answer, which is then its last (record.go).
	unsentAsk bool
	// asks are the 2025 input requests whose answers have not gone yet
	// (legacyinput.go).
	asks []legacyAsk
	// inputReqs and reqState are the last input_required result's
	// inputRequests and requestState; inputBroken, that it broke the
	// rules (its violation is recorded).
	inputReqs, reqState []byte
	inputBroken         bool
	badRetry            *badRetry // a bad_retry fault drawn for the call

	// task is the call's task, when the server made one (tasks.go);
	// taskInput the last input_required task's inputRequests.
	task      taskNotes
	taskInput []byte

	// recorded: the record was handed to the collector, which may read it
	// at any time; later events are no longer counted.
	recorded bool
	// acting counts the faults whose Act is running and the stop whose
	// cancel is (stopHeld); record waits on actDone (on mu) until none is,
	// so a fault that acted, or a cancel's error, is in the record.
	acting  int
	actDone *sync.Cond
	// gw is what a gateway test keeps of the call; nil without one.
	gw *gwNotes
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
//
// Its goroutine waits in the first call.Wait for every call in flight, and
// its stack is sized by the frames on it then: starting the call
// (startCall) and what follows its end (afterWait) are kept off run's
// frame, so an open call costs a smaller stack (docs/performance.md).
func (cs *callState) run(ctx context.Context, cl *client.Client, process int, withFaults bool) {
	defer cs.r.inflight.remove(cs)
	var req client.CallRequest
	call := cs.startCall(ctx, cl, process, withFaults, &req)
	if call == nil {
		return
	}
	call.Wait()
	cs.afterWait(ctx, cl, &req)
}

// startCall is run up to the wait: it counts the call in flight (run
// forgets it), sets *req to the call's request and returns the call, nil
// when it could not be sent (its error is the call's end).
func (cs *callState) startCall(ctx context.Context, cl *client.Client, process int, withFaults bool, req *client.CallRequest) *client.Call {
	*req = client.CallRequest{Tool: cs.spec.Tool, Arguments: cs.spec.Arguments, Progress: cs.spec.Progress,
		Observer: roundObserver{cs, 0}, Marker: cs.marker(), Task: cs.spec.Task}
	typical := cs.r.typical.get(cs.spec.Tool) // not under cs.mu: a lock every call takes
	cs.mu.Lock()
	cs.client = cl
	cs.rec.Process = process
	cs.info = faults.Info{Tool: cs.spec.Tool, Era: cl.Era(), Transport: cl.Transport(), Typical: typical}
	if withFaults {
		cs.drawFaults(req)
	}
	cs.startGateway()
	cs.sent = time.Now() // provisional, for events that beat Start's return
	cs.prog.start(cs.sent)
	cs.mu.Unlock()
	cs.r.inflight.add(cs)
	if cs.starting {
		cs.starting = false
		cs.r.starting.Add(-1)
	}
	var err error
	if !cs.r.win.paused.Load() { // a call a window will cut is no load to refuse
		err = cs.r.mem.refuse()
	}
	var call *client.Call
	if err == nil {
		call, err = cl.Start(ctx, *req)
	}
	cs.mu.Lock()
	if err != nil {
		cs.endErr, cs.endAt, cs.sent = err, time.Now(), time.Time{}
		cs.mu.Unlock()
		return nil
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
	cs.armTimeouts()
	cs.armFaults()
	cs.mu.Unlock()
	cs.cancelIfPaused()
	return call
}

// afterWait is run after the call's first request ended: its rounds
// after input_required results, its task, and its timers stopped.
func (cs *callState) afterWait(ctx context.Context, cl *client.Client, req *client.CallRequest) {
	for {
		next, think, ok := cs.nextRound(*req)
		if !ok || !cs.think(think) {
			break
		}
		call, ok := cs.startRound(ctx, cl, next)
		if !ok {
			break
		}
		*req = next
		call.Wait()
	}
	if cs.beginTask() {
		cs.followTask(ctx, cl)
	}
	cs.mu.Lock()
	cs.stopTimers()
	cs.mu.Unlock()
}

// OnEvent implements client.Observer. Faults whose moment the event was (on
// HTTP, see onProgressFaults) act before it returns.
func (cs *callState) OnEvent(ev client.Event) {
	cs.mu.Lock()
	cs.onEvent(ev)
	due := cs.due
	cs.due = nil
	cs.mu.Unlock()
	for _, d := range due {
		cs.fire(d.a, d.at)
	}
}

// onEvent takes one event (cs.mu held).
func (cs *callState) onEvent(ev client.Event) {
	if cs.recorded {
		return
	}
	if !cs.resumedAt.IsZero() && ev.At.Sub(cs.resumedAt) <= burstWindow && ev.At.After(cs.resumedAt) {
		cs.burst++
	}
	cs.gw.noteHint(ev)
	switch ev.Kind {
	case client.EvHeaders:
		cs.headersAt, cs.status, cs.retryAfter = ev.At, ev.Status, ev.RetryAfter
		cs.claim, cs.reset = ev.RateLimit, ev.RateLimitReset
	case client.EvProgress:
		cs.gw.noteProgress(ev)
		cs.onProgress(ev)
	case client.EvResult, client.EvRPCError:
		if ev.Kind == client.EvResult {
			cs.gw.noteResult(ev.Result)
		}
		cs.onResponse(ev)
	case client.EvViolation:
		cs.rec.Violations.Add(ev.Violation.String(), 1)
	case client.EvInput:
		cs.onInputAsked(ev)
	case client.EvInputSent:
		cs.onInputSent(ev)
	case client.EvEnd:
		cs.endAt, cs.endErr = ev.At, ev.Err
		cs.thinkToEnd(ev.At)
	}
}

func (cs *callState) onResponse(ev client.Event) {
	switch {
	case ev.AfterFinal:
		cs.rec.Violations.Add("duplicate_response", 1)
		return
	case ev.Late || !cs.cancelAt.IsZero():
		cs.rec.LateResponses++
		// An error answer to a cancelled call, or a result that says it
		// was cancelled or stopped, is the server's answer to the cancel
		// (the Go SDK sends one); a successful result of finished work
		// after the grace shows the work ran on.
		switch {
		case cancelAnswer(ev):
			cs.rec.CancelAnswers++
		case ev.Kind == client.EvResult && !ev.Result.IsError && cs.beyondGrace(ev.At):
			cs.noteLate(ev.At, false)
		case ev.Kind == client.EvResult && !ev.Result.IsError:
			cs.noteLagged(ev.At)
		}
	}
	if cs.final != finalNone {
		return
	}
	cs.onResponseFaults(ev.At)
	cs.responseAt = ev.At
	cs.notePace()
	if ev.Kind == client.EvRPCError {
		cs.final, cs.code, cs.hasCode = finalError, ev.Code, true
		cs.message = truncate(client.Unquote(ev.Message), 300)
		if d, from, ok := hintFromData(ev.Raw); ok {
			cs.hint, cs.hintFrom = d, from
		} else {
			cs.hintInText()
		}
		return
	}
	cs.final, cs.result = finalResult, ev.Result
	cs.keepInput(ev.Result)
	cs.keepTask(ev.Result)
	cs.result.Text, cs.result.InputRequests, cs.result.RequestState = nil, nil, nil
	cs.result.TaskID, cs.result.TaskStatus = nil, nil
	if ev.Result.IsError {
		cs.message = truncate(client.Unquote(ev.Result.Text), 300)
		cs.hintInText()
	}
}

// hintInText takes a retry time from the message's text, if it has one.
func (cs *callState) hintInText() {
	if d, ok := hintFromText(cs.message); ok {
		cs.hint, cs.hintFrom = d, "text"
	}
}
