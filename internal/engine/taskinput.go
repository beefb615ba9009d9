package engine

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// A task that asks for input (input_required): its input requests answered
// with tasks/update, each once, after the think time.

// answerTask answers the input requests of an input_required task that
// were not answered yet, after their think time, with tasks/update; false
// when the call cannot go on (a request we cannot answer, a stop).
func (cs *callState) answerTask(ctx context.Context, cl *client.Client) bool {
	cs.mu.Lock()
	reqs := cs.taskInput
	c := cs.r.plan.Client
	if c == nil {
		c = &scenarios.Client{} // nothing declared: every request is undeclared
	}
	a := cs.r.answers
	a.c = c
	fresh, err := unanswered(reqs, cs.task.answered)
	if err == nil && len(fresh) == 0 {
		cs.mu.Unlock()
		return true // asked already: the answer is on its way
	}
	var ans roundAnswer
	if err == nil {
		ans, err = a.respond(cs.spec.Tool, fresh, cs.rng)
	}
	if err != nil || len(ans.undeclared) > 0 {
		if err != nil {
			cs.rec.Violations.Add(violBadInputRequest, 1)
			cs.message = truncate(err.Error(), 300)
		} else {
			cs.rec.Violations.Add(violUndeclaredInput, len(ans.undeclared))
			cs.message = "the task asked for " + ans.undeclared[0] + ", a capability not declared"
		}
		cs.inputBroken = true
		cs.final, cs.result = finalResult, client.Result{Type: client.ResultComplete, IsError: true}
		cs.responseAt, cs.endAt = time.Now(), time.Now()
		cs.mu.Unlock()
		return false
	}
	if cs.task.answered == nil {
		cs.task.answered = map[string]bool{}
	}
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(fresh, &keys)
	for k := range keys {
		cs.task.answered[k] = true
	}
	cs.mu.Unlock()
	began := time.Now()
	if !cs.taskWait(ans.think) {
		// Stopped (or the task ended, pushed on its listen stream) while
		// thinking: no answer goes; the time thought counts.
		cs.mu.Lock()
		cs.rec.ThinkUs += results.Us(min(time.Since(began), ans.think))
		cs.mu.Unlock()
		return false
	}
	cs.mu.Lock()
	cs.countAnswers(ans)
	cs.mu.Unlock()
	rctx, cancel := cs.requestCtx(ctx)
	reply := cl.UpdateTask(rctx, cs.task.id, ans.responses)
	cancel()
	cs.mu.Lock()
	defer cs.mu.Unlock()
	cs.rec.Task.Updates++
	if err := reply.Err(); err != nil && cs.stopOutcome == "" {
		cs.endTaskError(reply, "tasks/update: "+err.Error())
		return false
	}
	return true
}

// unanswered returns the entries of inputRequests whose keys are not in
// answered, as an object.
func unanswered(inputRequests []byte, answered map[string]bool) ([]byte, error) {
	var reqs map[string]json.RawMessage
	if err := json.Unmarshal(inputRequests, &reqs); err != nil {
		return nil, errBadInputRequests
	}
	for k := range reqs {
		if answered[k] {
			delete(reqs, k)
		}
	}
	if len(reqs) == 0 {
		return nil, nil
	}
	return json.Marshal(reqs)
}
