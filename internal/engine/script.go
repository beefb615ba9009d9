package engine

import (
	"context"
	"math"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// Script drives a load of its own in place of a rate or a concurrency: it
// decides each call's moment and tool from what earlier calls got (the
// search of `mcpchaos limits`). It runs until it returns, within the
// plan's Load.Duration (its context ends then). Every call goes through
// the engine's call path, classification, records and outputs, like the
// calls of any run; none is retried or re-issued, and no fault acts on it.
type Script func(ctx context.Context, c *Caller)

// Caller is what a Script sends calls with. It is safe for concurrent use.
type Caller struct {
	r   *runner
	seq atomic.Uint64
}

// scriptLoad runs the plan's Script, bounded by the load's duration.
func (r *runner) scriptLoad(ctx context.Context) {
	ctx, cancel := context.WithDeadline(ctx, r.began.Add(r.plan.Load.Total()))
	defer cancel()
	r.plan.Load.Script(ctx, &Caller{r: r})
}

// Started is when the load started: the zero of the records' times and of
// the live status.
func (c *Caller) Started() time.Time { return c.r.began }

// Phase names what the script does now; the live status shows it.
func (c *Caller) Phase(name string) { c.r.phase.Store(name) }

// WaitUntil waits until t; false when ctx ended first.
func (c *Caller) WaitUntil(ctx context.Context, t time.Time) bool { return sleep(ctx, time.Until(t)) }

// Calls returns how many calls the plan's mix has; Call's spec indexes it.
func (c *Caller) Calls() []CallSpec { return c.r.plan.Calls }

// Call sends one call at `at` (it waits until then), the mix's entry spec
// (-1: one drawn from the weights with the seed), labelled phase in its
// record. It returns the call's record as classified when its answer came
// (the record written to the results still gets the late window). When ctx
// ends first it returns at once with ok false: a call in flight is left to
// the engine, which stops it with the others.
func (c *Caller) Call(ctx context.Context, at time.Time, spec int, phase string) (rec results.Record, ok bool) {
	return c.CallAs(ctx, at, spec, -1, phase)
}

// Identities returns the plan's identities; CallAs's identity indexes it.
func (c *Caller) Identities() []Identity { return c.r.plan.Identities }

// CallAs is Call speaking as the plan's identity (-1: the target's own
// headers, as Call).
func (c *Caller) CallAs(ctx context.Context, at time.Time, spec, identity int, phase string) (rec results.Record, ok bool) {
	if !sleep(ctx, time.Until(at)) {
		return rec, false
	}
	r := c.r
	t := tick{seq: c.seq.Add(1) - 1, scheduled: at}
	r.scheduled.Add(1)
	cs := r.newCall(t)
	if spec >= 0 && spec < len(r.plan.Calls) {
		cs.spec = &r.plan.Calls[spec]
		cs.rec.Tool = cs.spec.Tool
	}
	cs.rec.Phase = phase
	done := make(chan results.Record, 1)
	r.workers.Add(1)
	go func() {
		defer r.workers.Done()
		client, process, err := c.client(ctx, t.seq, identity)
		if client == nil {
			cs.rec.Outcome, cs.rec.Error = results.TransportError, err
			done <- cs.rec
			r.emit(&cs.rec)
			return
		}
		cs.run(context.Background(), client, process, false)
		r.completed.Add(1)
		r.learn(cs)
		done <- cs.snapshot()
		r.finalize(cs)
	}()
	select {
	case rec = <-done:
		return rec, true
	case <-ctx.Done():
		return rec, false
	}
}

// snapshot is the call's record as it stands, classified, without
// settling it: the late window may still add to the real one.
func (cs *callState) snapshot() results.Record {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	v := cs.classify()
	rec := cs.rec
	rec.Violations, rec.Faults, rec.Policies, rec.Progress = nil, nil, nil, nil
	for _, name := range v.violations {
		rec.Violations.Add(name, 1)
	}
	rec.Outcome, rec.ThrottleKind = v.outcome, v.throttle
	cs.answer(&rec)
	if rec.Task != nil {
		t := *rec.Task // a task followed after its cancel changes it still (taskrunon.go)
		rec.Task = &t
	}
	return rec
}

// Pace calls hit at perSecond for d from now, on the engine's pacer: each
// hit gets its intended time, even when the caller runs behind. It returns
// when d is over or ctx ends.
func (c *Caller) Pace(ctx context.Context, perSecond float64, d time.Duration, hit func(at time.Time)) {
	if perSecond <= 0 || d <= 0 {
		return
	}
	// A rate in thousandths per 1000 s keeps a fractional rate exact.
	p := constant{vegeta.ConstantPacer{Freq: max(1, int(math.Round(perSecond*1000))), Per: 1000 * time.Second}}
	began := time.Now()
	paced(ctx, p, began, d, func(_ uint64, at time.Duration) { hit(began.Add(at)) })
}

// AskSetup is the method Caller.Ask takes for the era's set-up request.
const AskSetup = "setup"

// Ask sends one control request that is no tool call, outside the
// results: "tools/list", or AskSetup for the era's set-up request
// (server/discover in 2026, initialize before). It returns the request
// sent and the throttling kind of its answer ("" when it was not
// throttled: answered, or failed otherwise); ok is false when it could
// not be sent.
func (c *Caller) Ask(ctx context.Context, method string) (sent, throttle string, ok bool) {
	cl, _ := c.r.clients.get(ctx, c.seq.Load())
	if cl == nil {
		return method, "", false
	}
	if method == AskSetup {
		method = cl.Setup()
	}
	a := cl.Ask(ctx, method)
	switch {
	case a.Status == 429 || a.Status == 503:
		return method, "http_" + strconv.Itoa(a.Status), true
	case a.RPCErr != nil:
		return method, c.r.plan.Throttle.rpcKind(a.RPCErr.Code, a.RPCErr.Message), true
	}
	return method, "", a.Err == nil || a.Status != 0
}

// client is the client call seq goes out on: the pool's, or the one that
// speaks as identity (when >= 0); nil with the reason when there is none.
func (c *Caller) client(ctx context.Context, seq uint64, identity int) (*client.Client, int, string) {
	if identity < 0 || identity >= len(c.r.plan.Identities) {
		cl, process := c.r.clients.get(ctx, seq)
		if cl == nil {
			return nil, process, c.r.clients.notStarted(process)
		}
		return cl, process, ""
	}
	cl, err := c.r.clients.asIdentity(ctx, c.r.plan.Identities[identity])
	if err != nil {
		return nil, 0, err.Error()
	}
	return cl, 1, ""
}
