package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/mcp"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Options wires a run's outputs. Sink and Tick run on the one collector
// goroutine, which owns the records (and whatever aggregates them).
type Options struct {
	// Sink receives every finished record.
	Sink func(*results.Record)
	// Writer, if set, receives the header and every record as it ends.
	Writer *results.Writer
	// Tick is called about once a second with live figures.
	Tick func(Live)
	// Version is the tool version for the results header.
	Version string
}

// Live are figures for a status line.
type Live struct {
	Elapsed, Total time.Duration
	Offered        float64 // offered rate now, per second
	Scheduled      int64
	Completed      int64
	InFlight       int64
	Dropped        int64
}

// Info is what Run reports about the run as a whole.
type Info struct {
	Header      results.Header
	Conn        mcp.Stats
	Started     time.Time
	Duration    time.Duration // how long the load ran
	Interrupted bool
	// Stderr holds the tail of each stdio server's stderr.
	Stderr [][]byte
	// Restarts counts stdio servers started again after they died.
	Restarts int
	// Background reports each background fault.
	Background []BackgroundResult
	// Orphans is what the probes saw after the load.
	Orphans report.Orphans
}

// BackgroundResult is what a background fault did over the run.
type BackgroundResult struct {
	Kind   string
	Sent   int
	Failed int
}

// tick is one scheduled call.
type tick struct {
	seq       uint64
	scheduled time.Time
}

// runner is one run in progress.
type runner struct {
	plan     Plan
	opts     Options
	clients  *clientPool
	weights  []int
	total    int
	inflight inflightSet
	records  chan *results.Record
	pending  sync.WaitGroup // records waiting for their late window
	ticks    chan tick
	workers  sync.WaitGroup
	nworkers int
	began    time.Time
	pace     pacer
	typical  typicals
	finished finished
	stalls   stallLog

	scheduled, completed, dropped atomic.Int64
	lastStopNs                    atomic.Int64 // when a call was last cancelled or cut
	metricsURL                    string       // the builtin target's /metrics
}

// lastStop returns when a call was last cancelled or cut (the start of the
// run when none was).
func (r *runner) lastStop() time.Time {
	if ns := r.lastStopNs.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return r.began
}

// Run drives the plan's load at its target and returns when every call
// has ended and every record has been handed to opts. Cancelling ctx is
// the interrupt: new calls stop, calls in flight are cancelled, outputs
// are still written. An error means the run could not start.
func Run(ctx context.Context, plan Plan, opts Options) (*Info, error) {
	plan = withDefaults(plan)
	if len(plan.Calls) == 0 {
		return nil, errors.New("run: no calls configured")
	}
	r := &runner{plan: plan, opts: opts, records: make(chan *results.Record, 4096)}
	for _, c := range plan.Calls {
		r.total += c.Weight
		r.weights = append(r.weights, r.total)
	}
	stopTarget, err := r.startTarget()
	if err != nil {
		return nil, err
	}
	defer stopTarget()
	if err := r.clients.dialAll(ctx); err != nil {
		r.clients.closeAll()
		return nil, err
	}
	info := &Info{Started: time.Now()}
	info.Header = r.header(info.Started)
	if opts.Writer != nil {
		if err := opts.Writer.Write(&info.Header); err != nil {
			r.clients.closeAll()
			return nil, err
		}
	}
	collected := make(chan struct{})
	go r.collect(collected)
	pr := r.newProbeRun(r.metricsURL)
	pr.start()

	r.began = time.Now()
	stopBackground := r.background(ctx, info)
	if plan.Load.Concurrency > 0 {
		r.closedLoad(ctx)
	} else {
		r.openLoad(ctx)
	}
	stopBackground()
	info.Duration = time.Since(r.began)
	info.Interrupted = ctx.Err() != nil
	r.drain(ctx)
	// Orphans are measured even after an interrupt: the second interrupt
	// is the way out.
	info.Orphans = pr.finish(context.Background())
	r.pending.Wait()
	close(r.records)
	<-collected
	info.Conn, info.Stderr, info.Restarts = r.clients.stats()
	r.clients.closeAll()
	return info, nil
}

func withDefaults(p Plan) Plan {
	if p.LateWindow <= 0 {
		p.LateWindow = time.Second
	}
	if p.Load.MaxInFlight <= 0 {
		p.Load.MaxInFlight = 10000
	}
	if p.Load.GracefulStop <= 0 {
		p.Load.GracefulStop = 30 * time.Second
	}
	o := &p.Orphans
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	if o.DrainMax <= 0 {
		o.DrainMax = 30 * time.Second
	}
	if o.SampleEvery <= 0 {
		o.SampleEvery = 100 * time.Millisecond
	}
	if o.QuietWindow <= 0 {
		o.QuietWindow = time.Second
	}
	if p.Progress.Grace <= 0 {
		p.Progress.Grace = 100 * time.Millisecond
	}
	for i := range p.Calls {
		if p.Calls[i].Weight <= 0 {
			p.Calls[i].Weight = 1
		}
	}
	return p
}

func (r *runner) header(started time.Time) results.Header {
	c := r.clients.first()
	h := results.Header{Type: results.TypeHeader, Tool: "mcpchaos", Version: r.opts.Version,
		Scenario: r.plan.Name, File: r.plan.File, Seed: r.plan.Seed, Era: string(c.Era()),
		Transport: c.Transport(), Target: r.clients.describe(), Started: started, Config: r.plan.Config}
	if s := c.Server(); s.Name != "" {
		h.Server = s.Name + " " + s.Version
	}
	return h
}

// pick chooses the call for a tick from the weighted mix.
func (r *runner) pick(rng *rand.Rand) *CallSpec {
	n := rng.IntN(r.total)
	for i, w := range r.weights {
		if n < w {
			return &r.plan.Calls[i]
		}
	}
	return &r.plan.Calls[len(r.plan.Calls)-1]
}

// openLoad paces ticks and hands each to an idle worker, growing the pool
// only when every worker is busy, up to MaxInFlight; a tick that finds no
// room is dropped, never delayed.
func (r *runner) openLoad(ctx context.Context) {
	r.ticks = make(chan tick)
	if len(r.plan.Load.Stages) > 0 {
		from := 0.0 // stages without a rate start from zero
		if l := r.plan.Load.Rate; l.Freq > 0 && l.Per > 0 {
			from = l.Rate(0)
		}
		r.pace = newStages(from, r.plan.Load.Stages)
	} else {
		r.pace = constant{r.plan.Load.Rate}
	}
	total := r.plan.Load.Total()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for n := uint64(0); ; n++ {
		wait, stop := r.pace.Pace(time.Since(r.began), n)
		if stop {
			break
		}
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				close(r.ticks)
				return
			case <-timer.C:
			}
			if ctx.Err() != nil {
				break // the interrupt and the tick came together
			}
		} else if ctx.Err() != nil {
			break
		}
		at := r.pace.intended(n)
		if at < 0 || at >= total {
			break // the load is over (or the pacer broke: never run unbounded)
		}
		r.dispatch(ctx, tick{seq: n, scheduled: r.began.Add(at)})
	}
	close(r.ticks)
}

func (r *runner) dispatch(ctx context.Context, t tick) {
	r.scheduled.Add(1)
	select {
	case r.ticks <- t:
		return
	default:
	}
	if r.nworkers < r.plan.Load.MaxInFlight {
		r.nworkers++
		r.workers.Add(1)
		go r.worker(ctx, t)
		return
	}
	r.dropped.Add(1)
	cs := r.newCall(t)
	cs.rec.Outcome = results.Dropped
	r.emit(&cs.rec)
}

func (r *runner) worker(ctx context.Context, first tick) {
	defer r.workers.Done()
	r.do(ctx, first)
	for t := range r.ticks {
		r.do(ctx, t)
	}
}

// closedLoad runs Concurrency workers, each calling back to back.
func (r *runner) closedLoad(ctx context.Context) {
	var seq atomic.Uint64
	deadline := r.began.Add(r.plan.Load.Total())
	for i := 0; i < r.plan.Load.Concurrency; i++ {
		r.workers.Add(1)
		go func() {
			defer r.workers.Done()
			for ctx.Err() == nil && time.Now().Before(deadline) {
				r.scheduled.Add(1)
				r.do(ctx, tick{seq: seq.Add(1) - 1, scheduled: time.Now()})
			}
		}()
	}
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(deadline)):
	}
}

// do runs one call, then its re-issues (after a fault cut it) and its
// retries (after it was throttled), each as a new request with a new id.
func (r *runner) do(ctx context.Context, t tick) {
	cs := r.newCall(t)
	client, process := r.clients.get(ctx, t.seq)
	if client == nil {
		cs.rec.Outcome = results.TransportError
		cs.rec.Error = "no live server process"
		r.emit(&cs.rec)
		return
	}
	cs.run(context.Background(), client, process, true)
	reissues := cs.reissues
	reissued, retried := 0, 0
	for {
		v := cs.outcomeNow()
		reason, wait := cs.retryHint()
		r.completed.Add(1)
		r.learn(cs)
		r.finalize(cs)
		var kind string
		switch {
		case reissued < reissues && (reason == "fault:cancel" || reason == "fault:disconnect" || reason == "fault:cancel_race"):
			reissued++
			kind, wait = "reissue", 0
		case v.outcome == results.Throttled && retried < r.plan.Throttle.Retries:
			retried++
			kind = "throttled"
			if !r.plan.Throttle.HonorRetryAfter {
				wait = 0
			}
		default:
			return
		}
		if !sleep(ctx, min(wait, time.Minute)) {
			return
		}
		next := r.newCall(tick{seq: t.seq, scheduled: time.Now()})
		next.spec = cs.spec
		next.rec.Tool, next.rec.Of, next.rec.Retry = cs.spec.Tool, t.seq, kind
		next.rec.Attempt = reissued + retried
		if client, process = r.clients.get(ctx, t.seq); client == nil {
			return
		}
		next.run(context.Background(), client, process, false)
		cs = next
	}
}

// retryHint returns why the call was stopped and the Retry-After it got.
func (cs *callState) retryHint() (string, time.Duration) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.rec.CancelReason, max(cs.retryAfter, 0)
}

// sleep waits d unless ctx ends first.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// learn feeds the typical-duration estimate and the finished ids.
func (r *runner) learn(cs *callState) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.call != nil {
		r.finished.add(cs.call.ID())
	}
	if cs.final != finalNone && cs.stopOutcome == "" && !cs.sent.IsZero() {
		r.typical.add(cs.spec.Tool, cs.responseAt.Sub(cs.sent))
	}
}

// finalize hands the call's record to the collector after the late window.
func (r *runner) finalize(cs *callState) {
	r.pending.Add(1)
	time.AfterFunc(r.plan.LateWindow, func() {
		r.records <- cs.record()
		r.pending.Done()
	})
}

// emit hands a record to the collector now.
func (r *runner) emit(rec *results.Record) {
	r.pending.Add(1)
	r.records <- rec
	r.pending.Done()
}

// drain gives calls in flight the graceful stop (none after an interrupt),
// then cancels what is left and waits for the workers.
func (r *runner) drain(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		r.workers.Wait()
		close(done)
	}()
	grace := time.NewTimer(r.plan.Load.GracefulStop)
	defer grace.Stop()
	reason := "graceful_stop"
	select {
	case <-done:
		return
	case <-ctx.Done():
		reason = "interrupted"
	case <-grace.C:
	}
	// Cancel what is in flight; again every 100 ms for calls that were
	// still being sent the first time round.
	every := time.NewTicker(100 * time.Millisecond)
	defer every.Stop()
	for {
		for _, cs := range r.inflight.all() {
			cs.stop(results.Cancelled, reason, time.Time{})
		}
		select {
		case <-done:
			return
		case <-every.C:
		}
	}
}

// collect owns the records: it writes them and hands them to the sink.
func (r *runner) collect(done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case rec, ok := <-r.records:
			if !ok {
				return
			}
			if r.opts.Writer != nil {
				_ = r.opts.Writer.Write(rec)
			}
			if r.opts.Sink != nil {
				r.opts.Sink(rec)
			}
		case <-t.C:
			if r.opts.Tick != nil {
				r.opts.Tick(r.live())
			}
		}
	}
}

func (r *runner) live() Live {
	l := Live{Elapsed: time.Since(r.began), Total: r.plan.Load.Total(), Scheduled: r.scheduled.Load(),
		Completed: r.completed.Load(), InFlight: int64(r.inflight.len()), Dropped: r.dropped.Load()}
	if r.pace != nil {
		l.Offered = r.pace.Rate(l.Elapsed)
	}
	return l
}

// inflightSet holds the calls in flight, so the end of the run can cancel
// them.
type inflightSet struct {
	mu sync.Mutex
	m  map[*callState]struct{}
}

func (s *inflightSet) add(cs *callState) {
	s.mu.Lock()
	if s.m == nil {
		s.m = make(map[*callState]struct{})
	}
	s.m[cs] = struct{}{}
	s.mu.Unlock()
}

func (s *inflightSet) remove(cs *callState) {
	s.mu.Lock()
	delete(s.m, cs)
	s.mu.Unlock()
}

func (s *inflightSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}

func (s *inflightSet) all() []*callState {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*callState, 0, len(s.m))
	for cs := range s.m {
		out = append(out, cs)
	}
	return out
}

// background starts the background faults; the returned function stops
// them and records what they did.
func (r *runner) background(ctx context.Context, info *Info) func() {
	bctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	info.Background = make([]BackgroundResult, len(r.plan.Background))
	for i, b := range r.plan.Background {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(r.plan.Seed), uint64(1)<<63+uint64(i)))
			sent, failed := b.Run(bctx, r.clients.first(), &r.finished, rng)
			info.Background[i] = BackgroundResult{Kind: b.Kind(), Sent: sent, Failed: failed}
		}()
	}
	return func() {
		cancel()
		wg.Wait()
	}
}
