package engine

import (
	"context"
	"time"
)

// The phases of Run, in order: connect, begin, load, wrapUp.

// connect opens the log probes and every client, and runs the check
// before the load (opts.BeforeLoad).
func (r *runner) connect(ctx context.Context) error {
	if err := r.newLogProbes(); err != nil {
		return err
	}
	if err := r.clients.dialAll(ctx); err != nil {
		r.clients.closeAll()
		return err
	}
	if r.opts.BeforeLoad != nil {
		if err := r.opts.BeforeLoad(ctx, r.clients.first()); err != nil {
			r.clients.closeAll()
			return err
		}
	}
	return nil
}

// begin waits for the start (every shard given the same StartAt starts its
// load at that instant; its ticks keep their times in the whole run, and
// one that comes late says so and drops the ticks it missed), writes the
// results file's header and sets what the load's goroutines read.
func (r *runner) begin(ctx context.Context) (*Info, error) {
	late, waited := r.waitStart(ctx)
	r.late = late
	info := &Info{Started: time.Now(), Late: late}
	if !r.plan.StartAt.IsZero() && waited {
		info.Started = r.plan.StartAt
	}
	info.Header = r.header(info.Started)
	info.Header.Shard = r.shardHeader(late)
	if late > 0 && r.opts.OnLateStart != nil {
		r.opts.OnLateStart(late)
	}
	if r.opts.Writer != nil {
		if err := r.opts.Writer.Write(&info.Header); err != nil {
			r.logs.abandon()
			r.clients.closeAll()
			return nil, err
		}
	}
	// began and pace are set before the goroutines that read them start
	// (the status tick and the probe sampler).
	if r.plan.Load.Concurrency == 0 && r.plan.Load.Script == nil {
		r.pace = r.newPacer()
	}
	r.began = info.Started
	r.paces.start(r.began)
	r.phase.Store(PhaseLoad)
	return info, nil
}

// load sends the load, with the background faults and the quiet windows
// beside it, until it is over or ctx is cancelled.
func (r *runner) load(ctx context.Context, info *Info, pr *probeRun) {
	defer r.measureLoadCPU()()
	r.gw.start(context.WithoutCancel(ctx))
	stopBackground := r.background(ctx, info)
	stopWindows := r.quietWindows(ctx, pr)
	switch {
	case r.plan.Load.Script != nil:
		r.scriptLoad(ctx)
	case r.plan.Load.Concurrency > 0:
		r.closedLoad(ctx)
	default:
		r.openLoad(ctx)
	}
	close(r.loadOver)
	stopWindows()
	stopBackground()
	// The time quiet windows paused the load is not load time: rates
	// count only the time the load ran.
	info.Duration = time.Since(r.began) - r.win.pausedFor()
}

// wrapUp drains the calls in flight, reads the probes, waits for the late
// answers and the last record (collected closes), stops the watch on this
// process's own stalls, the late queue and the deadlines (stop), and
// fills in info.
func (r *runner) wrapUp(ctx context.Context, info *Info, pr *probeRun, collected <-chan struct{}, stop func()) {
	// An interrupt during the load stops it, and the orphans are still
	// measured in full: the second interrupt is the way out. An interrupt
	// after the load ends the drain and the probes at once: the calls in
	// flight are cancelled and the probes get one short final read.
	probeCtx := ctx
	if ctx.Err() != nil {
		probeCtx = context.Background()
	}
	r.phase.Store(PhaseDrain)
	r.drain(ctx)
	r.phase.Store(PhaseProbes)
	info.Orphans = pr.finish(probeCtx)
	r.phase.Store(PhaseLate)
	r.pending.Wait()
	stop()
	close(r.records)
	<-collected
	r.gw.settle(probeCtx)
	info.Conn, info.Stderr, info.Restarts = r.clients.stats()
	info.RetriesNotMade = int(r.retriesNotMade.Load())
	info.Pacer = r.behind.result()
	info.Pacer.CPUShare, info.Pacer.CPUs = r.loadCPUShare, r.loadCPUs
	info.Missed = int(r.missed.Load())
	r.clients.closeAll()
	// After the close: every answer the clients read is in hand.
	info.Gateway = r.gw.join()
	info.Orphans.Processes = r.endServers(pr)
	info.Interrupted = ctx.Err() != nil // at any time before the outputs
}
