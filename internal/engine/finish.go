package engine

import (
	"context"
	"math"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/internal/series"
	"github.com/mcpchaos/mcpchaos/report"
)

// finish waits for the grace after the last cancel (in a shard of a
// shared server, after every shard's calls: sharedprobes.go), reads the
// probes, measures the quiet window's CPU, and samples until the probes
// drain.
// When ctx ends (an interrupt after the load), every wait ends with it and
// the probes get one short final read (finalRead): no grace, quiet window
// or drain is waited for, and ProbeErrors says so.
func (pr *probeRun) finish(ctx context.Context) report.Orphans {
	pr.mu.Lock()
	pr.windows.SkippedTicks = int(pr.r.win.skipped.Load())
	pr.mu.Unlock()
	if len(pr.counts) == 0 && pr.proc == nil && pr.r.logs == nil {
		runOn := pr.r.awaitRunOn(ctx, time.Now().Add(pr.r.plan.Orphans.DrainMax))
		close(pr.stop)
		<-pr.done
		return report.Orphans{Windows: pr.windows, WorkGraceMs: ms(pr.r.plan.workGrace()), TasksRunningOn: runOn}
	}
	load := loadMark{at: time.Now(), live: pr.liveCallSeconds()}
	if pr.proc != nil {
		load.proc, load.err = pr.sampleProc(ctx, pr.r.plan.Orphans.readTimeout())
		if load.err == nil {
			load.from, load.threads = pr.endThreads(load.proc)
		}
	}
	client := pr.r.clientStall(load.at)
	// Tasks that run on after their tasks/cancel (allowed) end before the
	// probes read what is left, or are named as still working then.
	runOn := pr.r.awaitRunOn(ctx, load.at.Add(pr.r.plan.Orphans.DrainMax))
	pr.waitGrace(ctx, load.at)
	quietFrom := time.Now()
	vals, ps0 := pr.sampleAll(ctx, pr.r.plan.Orphans.readTimeout())
	out := report.Orphans{ByProbe: map[string]float64{}}
	for _, p := range pr.counts {
		v := vals[p.Name()]
		if math.IsNaN(v) {
			continue
		}
		above := probes.Above(v, pr.baseline[p.Name()])
		out.ByProbe[p.Name()] = above
		out.Orphaned = max(out.Orphaned, above)
	}
	if pr.proc != nil {
		pr.quietCPU(ctx, &out, ps0, load)
	}
	out.DrainMs, out.Drained = pr.drain(ctx, quietFrom, vals)
	pr.r.logs.finish(ctx, quietFrom.Add(pr.r.plan.Orphans.DrainMax), &out)
	if ctx.Err() != nil {
		pr.noteError("interrupted after the load: the probes were read once, without waiting for the grace, the quiet window or the drain")
	}
	pings := pr.r.cutPings.result() // before mu: it waits for a ping in flight
	pr.mu.Lock()
	defer pr.mu.Unlock()
	pr.leakedWork(&out)
	pr.shared(&out)
	out.ProbeErrors = append([]string(nil), pr.errors...)
	for _, p := range pr.counts {
		if readable(pr.series[p.Name()]) || !math.IsNaN(vals[p.Name()]) {
			out.Counting++
		}
	}
	out.Windows = pr.windows
	pr.r.noteExtension(&out.Windows)
	out.Client = client
	out.CutPings = pings
	out.Contention = pr.contention()
	out.WorkGraceMs = ms(pr.r.plan.workGrace())
	out.TasksRunningOn = runOn
	return out
}

// loadMark is the moment the load ended and the target's process tree then
// (when a process probe reads it).
type loadMark struct {
	at   time.Time
	proc probes.ProcessSample
	err  error
	// from and threads are two readings that, set against each other,
	// give what the load's threads did (threadledger.go).
	from, threads probes.ProcessSample
	// live is the client's live call-seconds by then: the load's, not
	// those of the tasks followed after it (taskrunon.go).
	live float64
}

// waitGrace waits for the grace after the last cancel (or after every
// shard's calls), then ends the periodic sampling: its tool calls would
// cost the server CPU in the quiet window that the idle rate, measured
// before the sampler started, does not include. drain records its own
// samples.
func (pr *probeRun) waitGrace(ctx context.Context, loadAt time.Time) {
	from := pr.sharedFrom(pr.r.lastStop(), loadAt)
	if wait := time.Until(from.Add(pr.r.plan.Orphans.Grace)); wait > 0 {
		sleep(ctx, wait)
	}
	close(pr.stop)
	<-pr.done
}

// quietCPU measures the process tree's CPU over the quiet window that
// starts with ps0 (none after an interrupt) against its idle rate, and its
// rate during the load, into out.
func (pr *probeRun) quietCPU(ctx context.Context, out *report.Orphans, ps0 probes.ProcessSample, load loadMark) {
	ps1, window := ps0, time.Duration(0)
	if ctx.Err() == nil {
		t0 := time.Now()
		window = pr.r.plan.Orphans.QuietWindow
		if !sleep(ctx, window) {
			window = time.Since(t0) // cut by an interrupt
		}
		_, ps1 = pr.sampleAll(ctx, pr.r.plan.Orphans.readTimeout())
	}
	used := probes.LeftoverCPU(ps0, ps1) - pr.idleCPU*window.Seconds()
	// CPU time comes in clock ticks; rounding to the microsecond drops
	// the float noise of the sums, so five 10 ms ticks are 0.05 s, not
	// a hair above a 0.05 s threshold.
	out.LeftoverCPUSeconds = round6(max(used, 0))
	out.QuietWindowMs = float64(window) / float64(time.Millisecond)
	out.ByProbe[pr.procName] = float64(ps1.Children)
	cpu := &report.ProcessCPU{Probe: pr.procName, IdleRate: pr.idleCPU, IdleNoise: pr.idleNoise, ThresholdS: pr.cpuThreshold(window)}
	if pids := pr.procPIDs(); len(pids) > 0 {
		cpu.PID = pids[0]
		cpu.Command = command(pids[0])
	}
	// The load's time, quiet windows not counted: nothing live ran then.
	if dt := (load.at.Sub(pr.loadAt) - pr.r.win.pausedFor()).Seconds(); load.err == nil && dt > 0 && !pr.loadAt.IsZero() {
		cpu.LoadRate = max(probes.LeftoverCPU(pr.loadFrom, load.proc)/dt-pr.idleCPU, 0)
		pr.loadWait(cpu, load.from, load.threads, dt)
		live := load.live
		if live > 0 {
			cpu.PerCallS = cpu.LoadRate * dt / live
		}
		loadCPUBound(cpu, load.from, load.threads, live)
		cpu.Tools = pr.toolsCPU()
	}
	out.CPU = cpu
}

// leakedWork reads leaked work from the first counting probe that could be
// read. A shard's probes of a shared server see the calls of every shard,
// its in-flight only its own: the merge of the shards measures it
// (report/merge). pr.mu is held.
func (pr *probeRun) leakedWork(out *report.Orphans) {
	for _, p := range pr.counts {
		name := p.Name()
		if readable(pr.series[name]) && !math.IsNaN(pr.baseline[name]) {
			if pr.r.plan.SharesServer() {
				out.Shared = &report.SharedServer{LeakProbe: name, Baseline: pr.baseline[name]}
				return
			}
			out.LeakedCallSeconds = series.LeakedCallSeconds(pr.series[name], pr.client.points, pr.baseline[name])
			return
		}
	}
}

// drain samples until every count probe is back at its baseline, or
// DrainMax passed, or ctx ended; it returns the time that took, in
// milliseconds, and whether they did drain. last is the reading taken at
// from: once ctx has ended it is the last one.
func (pr *probeRun) drain(ctx context.Context, from time.Time, last map[string]float64) (float64, bool) {
	if len(pr.counts) == 0 {
		return 0, true
	}
	deadline := from.Add(pr.r.plan.Orphans.DrainMax)
	vals := last
	for {
		if ctx.Err() == nil {
			vals = pr.record(ctx, pr.r.plan.Orphans.SampleEvery)
		}
		drained := true
		for _, p := range pr.counts {
			if v := vals[p.Name()]; !math.IsNaN(v) && v > pr.baseline[p.Name()] {
				drained = false
			}
		}
		now := time.Now()
		if drained || now.After(deadline) || ctx.Err() != nil {
			return float64(now.Sub(from)) / float64(time.Millisecond), drained
		}
		sleep(ctx, pr.r.plan.Orphans.SampleEvery)
	}
}

// readable reports whether a series has a value that is not a failed read.
func readable(series []probes.Point) bool {
	for _, p := range series {
		if !math.IsNaN(p.V) {
			return true
		}
	}
	return false
}

// liveCallSeconds integrates the client's calls in flight over the
// samples taken so far (inflightSeries).
func (pr *probeRun) liveCallSeconds() float64 {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.client.callSeconds
}
