package engine

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/probes"
	"github.com/mcpchaos/mcpchaos/report"
	"github.com/mcpchaos/mcpchaos/results"
)

// Orphans configures the search for orphaned work.
type Orphans struct {
	// Grace is how long after the last cancel, with nothing in flight, the
	// probes are read.
	Grace time.Duration
	// DrainMax bounds the wait for the probes to return to their baseline.
	DrainMax time.Duration
	// SampleEvery is the sampling period during the run.
	SampleEvery time.Duration
	// QuietWindow is how long the process probe's CPU is measured once the
	// grace has passed; default 1 s.
	QuietWindow time.Duration
	// ReadTimeout bounds each reading of the probes that the verdict rests
	// on (the baselines, the readings at the end of the load and after the
	// grace) and each scrape of a metric probe; default 5 s
	// (probes.DefaultScrapeTimeout). Not a scenario key: tests on a loaded
	// machine set a minute (runtest.Plan), as for Timeouts.Connect.
	ReadTimeout time.Duration
	Probes      []ProbeSpec
	// Windows, if set, are quiet windows during the load (windows.go).
	Windows *Windows
	// LeaveChildren leaves running the processes the stdio servers
	// started and left behind; by default the run kills them at its end
	// (leftover.go).
	LeaveChildren bool
}

// readTimeout is ReadTimeout or its default.
func (o Orphans) readTimeout() time.Duration {
	if o.ReadTimeout > 0 {
		return o.ReadTimeout
	}
	return probes.DefaultScrapeTimeout
}

// Windows: every Every of load, the pacer pauses, every call in flight is
// cancelled, and after Grace the probes measure for For.
type Windows struct {
	Every, For time.Duration
	// AfterCut: a window that falls due waits for the next call a fault
	// cuts, at most Every, and begins then (automatic windows,
	// autowindows.go).
	AfterCut bool
}

// ProbeSpec is one probe: exactly one of Metric, Process and Tool is set.
type ProbeSpec struct {
	Name    string // a key segment: cancellation.by_probe.NAME
	Metric  *MetricProbe
	Process *ProcessProbe
	Tool    *ToolProbe
	Log     *LogProbe
}

// MetricProbe scrapes a Prometheus gauge.
type MetricProbe struct {
	URL, Name string
	Labels    map[string]string
}

// ProcessProbe watches a process tree; PID 0 means the stdio servers the
// run started (or the HTTP target's PID).
type ProcessProbe struct{ PID int }

// ToolProbe reads a number from a tool's result; on stdio it is called on
// every server process and the values are summed.
type ToolProbe struct {
	Name      string
	Arguments json.RawMessage
	Pointer   string
}

// probeRun is the probes of one run: baselines, samples during the run,
// and the verdict after it.
type probeRun struct {
	r        *runner
	counts   []probes.Probe // values are calls (metric, tool)
	proc     *probes.Process
	procName string // proc's name (Plan.procName)
	baseline map[string]float64
	idleCPU  float64 // process CPU per second before the load (mean)
	// idleNoise is the standard deviation of the idle CPU rate over
	// several short samples; procPIDs are the roots the process probe
	// watches; loadFrom is its reading when the load began.
	idleNoise float64
	// idleWait and idleWaitNoise are the run-queue wait rate of the idle
	// process and its noise, like idleCPU and idleNoise (starved.go).
	idleWait, idleWaitNoise float64
	procPIDs                func() []int
	// pid is the process the scenario named for the process probe (0:
	// the servers the run started); servers watches the stdio servers the
	// run started, for the processes they leave running (leftover.go):
	// proc itself unless the probe watches pid.
	pid      int
	servers  *probes.Process
	loadFrom probes.ProcessSample
	// threads sums the load's threads, reading by reading, until its end
	// (threadledger.go); under mu.
	threads *probes.ThreadLedger
	loadAt  time.Time
	paused  atomic.Bool // a quiet window is measuring: the sampler rests
	windows report.Windows
	// quietRate is the most CPU-s per second above idle that a quiet
	// window which cut nothing measured (windownoise.go); under mu.
	quietRate float64
	// cutMeasured is the seconds measured by the windows that cut calls,
	// summed (summedThreshold); under mu.
	cutMeasured float64

	mu     sync.Mutex
	series map[string][]probes.Point
	client inflightSeries // the client's calls in flight (inflightseries.go)
	// byTool is the process's CPU by tool, toolPrev the last sample's
	// reading (toolcpu.go).
	byTool   map[string]*toolCPU
	toolPrev toolSample
	// windowCuts are the calls each window of windows.List cut
	// (projection.go); schedPrev, schedAt and schedLive the last reading
	// and the client's live time then (contention.go).
	windowCuts [][]cutNote
	schedPrev  probes.ProcessSample
	schedAt    time.Time
	schedLive  time.Duration
	errors     []string
	stop       chan struct{}
	done       chan struct{}
}

// slotCaller calls a tool on the current client of one stdio slot (the
// process may have been restarted).
type slotCaller struct {
	p *clientPool
	i int
}

func (c slotCaller) CallTool(ctx context.Context, tool string, args json.RawMessage) (client.ToolResult, error) {
	cl := c.p.current(ctx, c.i)
	if cl == nil {
		return client.ToolResult{}, errors.New(c.p.notStarted(c.i + 1))
	}
	return cl.CallTool(ctx, tool, args)
}

// sum adds the values of several probes (a tool on every stdio process).
type sum struct {
	name  string
	parts []probes.Probe
}

func (s sum) Name() string { return s.name }

func (s sum) Sample(ctx context.Context) (float64, error) {
	total := 0.0
	for _, p := range s.parts {
		v, err := p.Sample(ctx)
		if err != nil {
			return 0, err
		}
		total += v
	}
	return total, nil
}

// newProbeRun builds the probes: the scenario's, plus the built-in
// target's ground truth and a process probe for stdio servers we started.
func (r *runner) newProbeRun(metricsURL string) *probeRun {
	pr := &probeRun{r: r, baseline: map[string]float64{}, series: map[string][]probes.Point{},
		stop: make(chan struct{}), done: make(chan struct{}), procName: r.plan.procName()}
	specs := r.plan.Orphans.Probes
	if metricsURL != "" {
		specs = append(specs, ProbeSpec{Name: BuiltinProbe, Metric: &MetricProbe{URL: metricsURL, Name: "mcpchaos_target_inflight"}})
	}
	stdio := r.clients.cfg.Stdio != nil
	if r.plan.Target.Builtin != nil && stdio {
		specs = append(specs, ProbeSpec{Name: BuiltinProbe, Tool: &ToolProbe{Name: "inflight", Pointer: "/inflight"}})
	}
	wantProc := stdio || r.plan.Target.PID != 0
	for _, s := range specs {
		switch {
		case s.Metric != nil:
			m := probes.NewMetric(s.Metric.URL, s.Metric.Name, s.Metric.Labels)
			m.Client.Timeout = r.plan.Orphans.readTimeout()
			pr.counts = append(pr.counts, named{m, s.Name})
		case s.Tool != nil:
			var parts []probes.Probe
			for i := range r.clients.slots {
				parts = append(parts, probes.NewTool(slotCaller{r.clients, i}, s.Tool.Name, s.Tool.Arguments, s.Tool.Pointer))
			}
			pr.counts = append(pr.counts, sum{name: s.Name, parts: parts})
		case s.Log != nil:
			// built before the servers start: see newLogProbes
		case s.Process != nil:
			wantProc = true
			if s.Process.PID != 0 {
				pid := s.Process.PID
				pr.pid = pid
				pr.procPIDs = func() []int { return []int{pid} }
				pr.proc = probes.NewProcess(pr.procPIDs)
			}
		}
	}
	pr.client = inflightSeries{keep: len(pr.counts) > 0, gap: 5 * r.plan.Orphans.SampleEvery}
	if wantProc && pr.proc == nil {
		pr.procPIDs = r.clients.pids
		pr.proc = probes.NewProcess(r.clients.pids).WithExited(r.clients.exitedCPU)
	}
	// The process's CPU by tool (toolcpu.go): not for a server shared
	// with other shards, whose calls in flight this shard does not see.
	if pr.proc != nil && len(r.plan.toolNames()) > 1 && !r.plan.SharesServer() {
		r.inflight.trackTools()
	}
	if pr.proc != nil {
		r.inflight.timeLive() // the load's intervals (contention.go)
	}
	if stdio {
		pr.servers = pr.proc
		if pr.pid != 0 {
			pr.servers = probes.NewProcess(r.clients.pids)
		}
		if r.opts.Subreaper {
			pr.servers.Adopt(os.Getpid(), r.clients.serverPIDs)
		}
	}
	return pr
}

func (pr *probeRun) sampler() {
	defer close(pr.done)
	every := pr.r.plan.Orphans.SampleEvery
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-pr.stop:
			return
		case <-t.C:
			if !pr.paused.Load() {
				pr.record(context.Background(), every)
			} else {
				pr.mu.Lock()
				pr.toolPrev = toolSample{} // no interval spans a quiet window
				pr.restInterval()
				pr.mu.Unlock()
			}
		}
	}
}

// record takes one sample of the probes and the client. A probe's value
// holds at some moment of its read, which takes time on a busy machine, so
// the client's value is the most calls it had in flight during the read:
// a call that ended while a probe was being read is not taken for the
// server's leftover work.
func (pr *probeRun) record(ctx context.Context, timeout time.Duration) map[string]float64 {
	began := time.Now()
	only := pr.r.inflight.markPeak()
	vals, ps := pr.sampleAll(ctx, max(timeout, time.Second))
	if pr.servers != nil && pr.servers != pr.proc {
		pr.sampleServers(ctx)
	}
	now := time.Now()
	inflight := pr.r.inflight.peakSince()
	pr.mu.Lock()
	for name, v := range vals {
		pr.series[name] = append(pr.series[name], probes.Point{T: now, V: v})
	}
	cpu, ok := vals[pr.procName]
	if !ok {
		cpu = math.NaN()
	}
	pr.noteTool(only, now, cpu)
	var sched *results.SchedInterval
	if pr.proc != nil {
		sched = pr.noteInterval(ps, now)
	}
	pr.client.add(probes.Point{T: now, V: float64(inflight)})
	pr.mu.Unlock()
	if w, on := pr.r.opts.Writer, pr.r.opts.OnSample; w != nil || on != nil {
		s := &results.Sample{Type: results.TypeSample, T: now, ReadUs: max(now.Sub(began).Microseconds(), 1),
			ClientInFlight: inflight, Probes: map[string]float64{}, Sched: sched}
		if pr.r.pace != nil {
			s.OfferedRate = pr.r.pace.Rate(now.Sub(pr.r.began))
		}
		for name, v := range vals {
			if !math.IsNaN(v) {
				s.Probes[name] = v
			}
		}
		if w != nil {
			_ = w.Write(s)
		}
		if on != nil {
			on(s)
		}
	}
	return vals
}
