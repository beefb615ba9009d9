package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
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
	// OnSample, if set, receives every probe sample (from the probes'
	// goroutine; the sample is the caller's to keep).
	OnSample func(*results.Sample)
	// Tick is called about once a second with live figures.
	Tick func(Live)
	// Version is the tool version for the results header.
	Version string
	// Evaluation, recorded in the results header, is what the run is
	// judged by (so `mcpchaos report` can judge it again).
	Evaluation *results.Evaluation
	// BeforeLoad, if set, runs once the target is connected and before
	// anything else is sent (mcpchaos run checks the scenario's tools
	// against tools/list there); an error stops the run before any load.
	BeforeLoad func(ctx context.Context, c *client.Client) error
	// OnLateStart, if set, is told when the load reached Plan.StartAt
	// late, before it starts (the ticks due by then are dropped).
	OnLateStart func(late time.Duration)
	// Subreaper says this process is a child subreaper (prctl
	// PR_SET_CHILD_SUBREAPER on Linux) that starts no children but the
	// run's stdio servers: any other child of it is an orphan a server
	// left behind, watched and cleaned up with the servers (leftover.go).
	Subreaper bool
	// AdaptProcs runs the process on one P (GOMAXPROCS 1) while it needs
	// little CPU, and on the runtime's default otherwise (procs.go); for a
	// process that runs one Run at a time and leaves GOMAXPROCS to it.
	AdaptProcs bool

	// retryWaitStarts, if set, is called when a throttled call starts its
	// wait for a retry, with the wait, before the wait can end (tests cut
	// that wait at a known moment).
	retryWaitStarts func(wait time.Duration)
	// workersDone, if set, is called when every worker of the load has
	// ended, with the ticks still counted as starting (tests: none).
	workersDone func(starting int64)
}

// Live are figures for a status line.
type Live struct {
	Elapsed, Total time.Duration
	Offered        float64 // offered rate now, per second
	Scheduled      int64
	Completed      int64
	InFlight       int64
	Dropped        int64
	// Phase is what the run is doing: one of the Phase constants.
	Phase string
}

// Phases of a run, in Live.Phase, so a status line can say why a run that
// sends nothing is still going.
const (
	PhaseLoad   = "load"   // the pacer sends calls
	PhaseDrain  = "drain"  // the load ended; calls in flight get the graceful stop
	PhaseProbes = "probes" // the orphan probes: grace, quiet window, drain
	PhaseLate   = "late"   // waiting for the late window of the last calls
)

// Info is what Run reports about the run as a whole.
type Info struct {
	Header      results.Header
	Conn        client.Stats
	Started     time.Time
	Duration    time.Duration // how long the load ran
	Interrupted bool
	// Stderr holds the tail of each stdio server's stderr.
	Stderr [][]byte
	// Restarts counts stdio servers started again after they died.
	Restarts int
	// RetriesNotMade counts throttled calls not retried because the load
	// ended first: the wait would have ended after it, or it ended during
	// the wait.
	RetriesNotMade int
	// Pacer is how far behind its schedule the pacer ran (open load).
	Pacer report.PacerLag
	// Late is how late the load reached Plan.StartAt; Missed counts the
	// ticks due by then, recorded as dropped.
	Late   time.Duration
	Missed int
	// Background reports each background fault.
	Background []BackgroundResult
	// Orphans is what the probes saw after the load.
	Orphans report.Orphans
	// Gateway is the join with the targets' truth; nil without
	// Plan.Gateway.
	Gateway *report.Gateway
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
	probes   *probeRun // the orphan probes, for a Script's readings (Caller.ServerCPU)
	answers  answers   // the client section's (rounds.go); its c is nil without one
	opts     Options
	clients  *clientPool
	weights  []int
	total    int
	inflight inflightSet
	records  chan *results.Record
	cuts     chan struct{}  // fault cuts, for automatic windows (autowindows.go)
	cutTimes cutLog         // the faults' cuts and the windows' sweeps (contention.go)
	paces    paceBook       // the load's pace, per entry of the calls (pace.go)
	pending  sync.WaitGroup // records waiting for their late window
	ticks    chan tick
	workers  sync.WaitGroup
	nworkers atomic.Int64 // the open load's workers: grown by the pacer, shrunk while memory is short
	began    time.Time
	pace     pacer
	typical  typicals
	finished finished
	stalls   stallLog
	win      windowGate    // the pause of a quiet window
	ext      loadExtension // the load extended for more quiet windows (extend.go)
	fences   fences        // stdio fences after cancels (fence.go)
	lag      readLag       // this process's own stalls (readlag.go)
	mem      *memGuard     // this process's memory against its limit (memlimit.go); nil: none
	cutPings *cutPings     // pings after cuts over HTTP (cutping.go); nil: none
	// lateQ holds finished calls for their late window (latequeue.go);
	// deadlines, the calls' timers (deadlines.go). Nil in a runner built
	// by hand: then a timer each.
	lateQ     *lateQueue
	deadlines *deadlines

	scheduled, completed, dropped atomic.Int64
	missed                        atomic.Int64       // ticks due before a late start (--start-at), dropped
	late                          time.Duration      // how late the load started after plan.StartAt
	retriesNotMade                atomic.Int64       // throttled calls not retried: the load ended first
	behind                        pacerLag           // how far behind its schedule the pacer ran
	loadCPUShare                  float64            // the share of its CPUs the process used over the load (clientlimit.go)
	loadCPUs                      int                // the CPUs it may run on
	loadOver                      chan struct{}      // closed when the load ends
	runOn                         context.Context    // ends when tasks run on after tasks/cancel are no longer followed (taskrunon.go)
	stopRunOn                     context.CancelFunc // ends runOn
	following                     atomic.Int64       // tasks followed after their cancel now (taskrunon.go)
	lastStopNs                    atomic.Int64       // when a call was last cancelled or cut
	starting                      atomic.Int64       // ticks handed to a worker whose call is not in flight yet (windows.go)
	phase                         atomic.Value       // string: Live.Phase
	metricsURL                    string             // the builtin target's /metrics
	logs                          *logProbes         // nil without a log probe
	runID                         string             // the first part of every call's marker
	gw                            *gatewayRun        // nil without Plan.Gateway
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
	r := &runner{plan: plan, opts: opts, records: make(chan *results.Record, 4096), loadOver: make(chan struct{}), runID: newRunID()}
	r.runOn, r.stopRunOn = context.WithCancel(context.Background())
	defer r.stopRunOn()
	r.gw = newGatewayRun(plan.Gateway, r.runID)
	for _, c := range plan.Calls {
		r.total += c.Weight
		r.weights = append(r.weights, r.total)
	}
	stopTarget, err := r.startTarget()
	if err != nil {
		return nil, err
	}
	defer stopTarget()
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	pr := r.newProbeRun(r.metricsURL)
	r.probes = pr
	if w := autoWindows(r.plan, len(pr.counts) > 0, r.logs != nil, pr.proc != nil); w != nil {
		r.plan.Orphans.Windows = w
		pr.windows.Auto = true
		r.cuts = make(chan struct{}, 1)
	}
	if cutPingsWanted(r.plan, len(pr.counts) > 0, r.logs != nil, pr.proc != nil) {
		r.cutPings = &cutPings{on: true, grace: r.plan.Orphans.Grace, lag: &r.lag}
	}
	r.ext.on = extendable(r.plan, pr.windows.Auto)
	pr.start()
	info, err := r.begin(ctx)
	if err != nil {
		return nil, err
	}
	stopPeriodic, procs := r.startPeriodic()
	var stopDeadlines func()
	r.deadlines, stopDeadlines = startDeadlines(true)
	collected := make(chan struct{})
	go r.collect(collected)
	go pr.sampler()
	r.load(ctx, info, pr)
	r.wrapUp(ctx, info, pr, collected, func() {
		stopPeriodic() // once r.pending has no record left waiting
		procs.stop()
		stopDeadlines()
	})
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
		Transport: c.Transport(), HTTPVersion: c.HTTPVersion(), Target: r.clients.describe(), Started: started, Config: r.plan.Config,
		SchemaVersion: results.SchemaVersion, Evaluation: r.opts.Evaluation}
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

// drain gives calls in flight the graceful stop (none after an interrupt),
// then cancels what is left and waits for the workers.
func (r *runner) drain(ctx context.Context) {
	done := make(chan struct{})
	go func() {
		r.workers.Wait()
		if r.opts.workersDone != nil {
			r.opts.workersDone(r.starting.Load())
		}
		close(done)
	}()
	grace := time.NewTimer(r.plan.Load.GracefulStop)
	defer grace.Stop()
	reason := results.StopGracefulStop
	select {
	case <-done:
		return
	case <-ctx.Done():
		reason = results.StopInterrupted
	case <-grace.C:
	}
	// Cancel what is in flight; again every 100 ms for calls that were
	// still being sent the first time round.
	every := time.NewTicker(100 * time.Millisecond)
	defer every.Stop()
	for {
		r.stopAll(reason)
		select {
		case <-done:
			return
		case <-every.C:
		}
	}
}

// stopParallel is how many calls stopAll cancels at a time.
const stopParallel = 32

// stopAll cancels every call in flight that is not stopped yet, several at
// a time, skipping those whose lock is busy (the next sweep takes them): on
// a busy machine with thousands of calls, one call whose goroutine holds
// its lock must not hold up the others. It returns how many it stopped.
func (r *runner) stopAll(reason results.StopReason) int {
	sem := make(chan struct{}, stopParallel)
	var wg sync.WaitGroup
	var n atomic.Int64
	for _, cs := range r.inflight.all() {
		if cs.stopped.Load() {
			continue
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if cs.tryStop(results.Cancelled, reason) {
				n.Add(1)
			}
		})
	}
	wg.Wait()
	return int(n.Load())
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
	l.Phase, _ = r.phase.Load().(string)
	if r.pace != nil {
		l.Offered = r.pace.Rate(l.Elapsed) / float64(r.plan.Shard.step()) // this shard's part
	}
	return l
}
