package engine

import (
	"context"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// Multi-round-trip calls (MCP 2026-07-28, docs/long-running.md). A server
// that needs input answers a tools/call with resultType "input_required":
// inputRequests (elicitation, sampling, roots) and/or requestState. The
// client retries the original call with a new id, inputResponses keyed
// like the requests and the state echoed exactly, until the server
// completes it, up to client.max_rounds retries. A result with only
// requestState is load shedding: the retry echoes the state, with no
// responses. All rounds are one call: one record, one outcome (the last
// round's), its latency from the first round's schedule to the last
// round's answer, our think time counted apart (Record.ThinkUs). The
// call's cap runs across rounds; its idle timeout only while a round is
// in flight: thinking is our time, not the server's.

// roundObserver delivers one round's events to its call; events of a
// round that is over (late messages of an earlier request) only count
// their violations.
type roundObserver struct {
	cs    *callState
	round int
}

func (o roundObserver) OnEvent(ev client.Event) {
	cs := o.cs
	cs.mu.Lock()
	if o.round != cs.round {
		if ev.Kind == client.EvViolation && !cs.recorded {
			cs.rec.Violations.Add(ev.Violation.String(), 1)
		}
		cs.mu.Unlock()
		return
	}
	cs.mu.Unlock()
	cs.OnEvent(ev)
}

// Violations of the input_required rules (mcp-notes §7.2).
const (
	violInputWithContent = "input_with_content"   // inputRequests together with content
	violInputEmpty       = "input_required_empty" // neither inputRequests nor requestState
	violBadInputRequest  = "bad_input_request"    // inputRequests not an object of requests
	violUndeclaredInput  = "undeclared_input"     // a request for a capability we did not declare
)

// keepInput copies what a round needs of an input_required result before
// the event's bytes are reused (cs.mu held).
func (cs *callState) keepInput(r client.Result) {
	cs.inputReqs, cs.reqState = nil, nil
	if r.Type != client.ResultInputRequired {
		return
	}
	// Copies (nil stays nil: absent).
	cs.inputReqs = append([]byte(nil), r.InputRequests...)
	cs.reqState = append([]byte(nil), r.RequestState...)
}

// nextRound decides, once a round has ended, whether the call goes on
// with another: the round answered input_required with a shape we can
// answer, the scenario has a client section and rounds are left. It
// returns the retry to send and how long to think first.
func (cs *callState) nextRound(prev client.CallRequest) (client.CallRequest, time.Duration, bool) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.judgeBadRetry(false)
	r := cs.result
	if cs.final != finalResult || cs.stopOutcome != "" || cs.recorded || r.Type != client.ResultInputRequired {
		return prev, 0, false
	}
	var ans roundAnswer
	if !r.StateOnly {
		var ok bool
		if ans, ok = cs.checkInput(); !ok {
			return prev, 0, false
		}
	}
	// Load shedding asks for no input, so it is retried with the state
	// echoed even without a client section (within the default bound);
	// a request for input without one ended in checkInput (undeclared).
	maxRounds := scenarios.DefaultMaxRounds
	if c := cs.r.plan.Client; c != nil {
		maxRounds = c.MaxRounds
	}
	if cs.rec.Rounds >= maxRounds {
		cs.message = "still input_required after " + strconv.Itoa(maxRounds) + " rounds (client.max_rounds)"
		return prev, 0, false
	}
	next := client.CallRequest{Tool: prev.Tool, Arguments: cs.spec.Arguments, Progress: prev.Progress, Marker: prev.Marker,
		RequestState: cs.reqState, InputResponses: ans.responses, Task: prev.Task}
	if cs.breakRetry(&next) {
		return prev, 0, false // abandoned between rounds
	}
	// The answers count once the retry goes (think): a stop during the
	// think abandons the call, and no retry, answer or round is sent.
	cs.pending = pendingRound{ans: ans, shed: r.StateOnly}
	cs.round++
	next.Observer = roundObserver{cs, cs.round}
	// The round is over: a stop from now on abandons the call (think).
	cs.final, cs.result, cs.responseAt, cs.endAt, cs.endErr = finalNone, client.Result{}, time.Time{}, time.Time{}, nil
	cs.thinking = make(chan struct{})
	if cs.idle != nil {
		cs.idle.Stop()
	}
	return next, ans.think, true
}

// checkInput applies the input_required rules to the round's result and
// builds the answers; false when the call cannot go on (its violation is
// recorded and it ends as a protocol error) (cs.mu held).
func (cs *callState) checkInput() (roundAnswer, bool) {
	r := cs.result
	broken := func(name string) (roundAnswer, bool) {
		cs.rec.Violations.Add(name, 1)
		cs.inputBroken = true
		return roundAnswer{}, false
	}
	switch {
	case cs.inputReqs == nil && cs.reqState == nil:
		return broken(violInputEmpty)
	case cs.inputReqs != nil && r.HasContent:
		return broken(violInputWithContent)
	}
	c := cs.r.plan.Client
	if c == nil {
		c = &scenarios.Client{} // nothing declared: every request is undeclared
	}
	a := cs.r.answers
	a.c = c
	ans, err := a.respond(cs.spec.Tool, cs.inputReqs, cs.rng)
	if err != nil {
		cs.message = truncate(err.Error(), 300)
		return broken(violBadInputRequest)
	}
	if n := len(ans.undeclared); n > 0 {
		cs.message = "the server asked for " + ans.undeclared[0] + ", a capability not declared"
		cs.rec.Violations.Add(violUndeclaredInput, n)
		cs.inputBroken = true
		return roundAnswer{}, false
	}
	return ans, true
}

// think waits d before the next round, unless the call is stopped first
// (a timeout, a fault, the end of the run): then the call is abandoned
// between rounds and think reports false.
//
// The round's answers are counted here, once the retry is to be sent; an
// abandoned call counts only the time it thought.
func (cs *callState) think(d time.Duration) bool {
	cs.mu.Lock()
	ch := cs.thinking
	cs.mu.Unlock()
	began := time.Now()
	if d > 0 && ch != nil {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ch:
		}
		t.Stop()
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.thinking = nil
	p := cs.pending
	cs.pending = pendingRound{}
	if cs.stopOutcome != "" {
		cs.rec.ThinkUs += results.Us(min(time.Since(began), d))
		cs.unsentAsk = !p.shed // its last answer was input_required, left unanswered
		if b := cs.badRetry; b != nil && !b.done && b.round == cs.round {
			b.done = true // the broken retry was never sent: nothing to judge
			cs.rec.Faults[b.rec].Detail = "not judged: stopped before the broken retry was sent (" + cs.stopOutcome + ")"
		}
		return false
	}
	cs.countRound(p)
	cs.sending.Store(true) // until startRound has it out
	return true
}

// pendingRound is a round's answers, decided and not yet sent.
type pendingRound struct {
	ans  roundAnswer
	shed bool // a load-shedding answer retried
}

// countRound records a round whose retry is sent (cs.mu held).
func (cs *callState) countRound(p pendingRound) {
	if p.shed {
		cs.rec.LoadShed++
	}
	cs.rec.Rounds++
	cs.countAnswers(p.ans)
}

// countAnswers records answers that go to the server: a round's retry or
// a task's tasks/update (cs.mu held).
func (cs *callState) countAnswers(ans roundAnswer) {
	for kind, n := range ans.kinds {
		cs.rec.Inputs.Add(kind, n)
	}
	cs.rec.ContentMismatch += ans.mismatches
	cs.rec.ThinkUs += results.Us(ans.think)
}

// startRound sends the next round's request. A stop that came while it
// was being sent cancels it at once.
func (cs *callState) startRound(ctx context.Context, cl *client.Client, req client.CallRequest) (*client.Call, bool) {
	defer cs.sending.Store(false) // after a stop's cancel
	call, err := cl.Start(ctx, req)
	cs.mu.Lock()
	if err != nil {
		cs.endErr, cs.endAt = err, time.Now()
		cs.mu.Unlock()
		return nil, false
	}
	cs.call = call
	cs.rec.ID = call.ID()
	cs.lastAlive = call.Sent()
	cs.prog.newRound(call.Sent())
	stopped := cs.stopOutcome != ""
	if !stopped {
		cs.armIdle()
	}
	cs.mu.Unlock()
	if stopped {
		_ = call.Cancel("mcpchaos: stopped between rounds", false)
	}
	return call, true
}

// abandonHeld settles a stop that came between rounds: no request is in
// flight, so there is nothing to cancel; the call is abandoned (cs.mu
// held; it stays held).
func (cs *callState) abandonHeld() {
	close(cs.thinking)
	cs.thinking = nil
	cs.cancelSent = time.Now()
}
