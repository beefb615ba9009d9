package report

import (
	"maps"
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/report/verdict"
	"github.com/mcpchaos/mcpchaos/results"
)

// Summary builds the run's Summary from everything added so far. Its
// only mark on the Aggregator is that the latency histograms are shared
// with the Summary until the next Add (hists); like Add, it is for the
// Aggregator's one goroutine. Checks are not yet evaluated (Pass is true
// and Checks empty until Evaluate); verdicts are scored.
func (a *Aggregator) Summary(m Meta) *Summary {
	s := &Summary{
		Scenario:    m.Scenario,
		Seed:        m.Seed,
		Era:         m.Era,
		Transport:   m.Transport,
		HTTPVersion: m.HTTPVersion,
		Target:      m.Target,
		Server:      m.Server,
		Started:     m.Started,
		Interrupted: m.Interrupted,
		Checks:      []CheckResult{},
		Pass:        true,
		Histograms:  a.hists(),
	}
	s.SchemaVersion = results.SchemaVersion
	a.fenced.mixed = mixedSources(m)
	d := m.Duration
	if d <= 0 && !a.timeline.first.IsZero() {
		d = a.lastEnd.Sub(a.timeline.first)
	}
	s.DurationS = round3(d.Seconds())
	a.buildCalls(s, d)
	s.Errors = a.errors.summary()
	a.buildLatency(s)
	a.buildTools(s)
	a.buildProgress(s)
	a.buildProtocol(s)
	a.buildCancellation(s)
	a.buildThrottling(s)
	a.buildTimeouts(s)
	s.MRTR = a.mrtr.summary(a)
	s.Tasks = a.tasks.summary()
	a.buildFaults(s)
	a.buildClientLimits(s)
	s.Gateway = gatewaySummary(a.gateway)
	s.Verdicts = verdict.Score(s, a.Evidence())
	return s
}

// Evidence is what the verdicts weigh beyond the Summary: what only the
// Aggregator saw of the calls.
func (a *Aggregator) Evidence() verdict.Evidence {
	return verdict.Evidence{
		ProgressRequested:       a.progress.requested,
		LeftoverNotDisconnected: a.leftovers().notDisconnected,
		Disconnects:             a.cancel.disconnects,
	}
}

func (a *Aggregator) buildCalls(s *Summary, d time.Duration) {
	c := &s.Calls
	c.Total = a.total
	for outcome, n := range a.outcomes {
		if p := c.ByOutcome(outcome); p != nil {
			*p = n
		}
	}
	c.Reissued, c.Retried = a.reissued, a.retried
	if sec := d.Seconds(); sec > 0 {
		s.Rate = Rates{
			Offered:  round3(float64(c.Total-c.Reissued-c.Retried) / sec),
			Achieved: round3(float64(c.Total-c.Reissued-c.Retried-c.Dropped) / sec),
			OK:       round3(float64(c.OK) / sec),
		}
	}
}

func (a *Aggregator) buildLatency(s *Summary) {
	for i, name := range histNames {
		*s.Latency.ByName(name) = a.lat[i].latency()
	}
}

func (a *Aggregator) buildProgress(s *Summary) {
	p := &s.Progress
	p.Notifications = a.progress.notifications
	p.Calls = a.progress.calls
	p.MaxRateHz = a.progress.maxRateHz
	p.Floods = a.progress.floods
	p.Stalls = a.progress.stalls
	p.Incomplete = a.progress.incomplete
	p.GraceMs = durMs(a.rules.ProgressGrace)
	p.FloodHz = a.rules.FloodHz
	p.StallMs = durMs(a.rules.Stall)
	v := &p.Violations
	v.NonMonotonic = a.violations["non_monotonic"]
	v.AfterResponse = a.violations["after_response"]
	v.AfterCancel = a.violations["after_cancel"]
	v.UnknownToken = a.violations["unknown_token"] + int(a.conn.UnknownTokens)
	v.WrongStream = a.violations["wrong_stream"]
	v.Total = v.NonMonotonic + v.AfterResponse + v.AfterCancel + v.UnknownToken + v.WrongStream
}

func (a *Aggregator) buildProtocol(s *Summary) {
	p := &s.Protocol
	p.Connection = a.conn
	v := &p.Violations
	n := a.violations
	v.ServerRequest = n["server_request"] + int(a.conn.ServerRequests)
	v.NotJSONRPC = n["not_jsonrpc"] + int(a.conn.NotJSONRPC)
	v.ContentType = n["content_type"]
	v.Oversize = n["oversize"] + int(a.conn.Oversize)
	v.StreamNotClosed = n["stream_not_closed"]
	v.BadProgress = n["bad_progress"]
	v.ServerCancel = n["server_cancel"] + int(a.conn.ServerCancels)
	v.MissingResultType = n["missing_result_type"]
	v.UnknownResultType = n["unknown_result_type"]
	v.ReservedCode = n["reserved_code"]
	v.DuplicateResponse = n["duplicate_response"]
	v.InputWithContent = n["input_with_content"]
	v.InputRequiredEmpty = n["input_required_empty"]
	v.BadInputRequest = n["bad_input_request"]
	v.UndeclaredInput = n["undeclared_input"] + int(a.conn.UndeclaredInput)
	v.InputMethod = int(a.conn.InputMethod)
	v.BadTask, v.ListenNoAck, v.ListenUnrequested = n["bad_task"], n["listen_no_ack"], n["listen_unrequested"]
	v.Total = v.ServerRequest + v.NotJSONRPC + v.ContentType + v.Oversize + v.StreamNotClosed +
		v.BadProgress + v.ServerCancel + v.MissingResultType + v.UnknownResultType +
		v.ReservedCode + v.DuplicateResponse + v.InputWithContent + v.InputRequiredEmpty +
		v.BadInputRequest + v.UndeclaredInput + v.InputMethod + v.BadTask + v.ListenNoAck + v.ListenUnrequested
}

func (a *Aggregator) buildCancellation(s *Summary) {
	o := a.orphans
	l := a.leftovers()
	s.Cancellation = Cancellation{
		Cancels:           a.cancel.cancels,
		LateResponses:     a.cancel.lateResponses,
		LateProgress:      a.cancel.lateProgress,
		LeftoverCalls:     l.n,
		LeftoverIDs:       l.ids,
		LeftoverMaxMs:     float64(l.maxUs) / 1000,
		FencedCalls:       a.fenced.calls.n,
		WriterOrdered:     a.writerOrdered(),
		LateQueued:        a.cancel.lateQueued,
		LateQueuedPrompt:  a.cancel.lateQueuedPrompt,
		LateDrained:       a.cancel.lateDrained,
		CancelAnswers:     a.cancel.cancelAnswers,
		Orphaned:          o.Orphaned,
		LeftoverCPUS:      o.LeftoverCPUSeconds,
		DrainMs:           o.DrainMs,
		Drained:           o.Drained,
		LeakedCallSeconds: o.LeakedCallSeconds,
		WorkGraceMs:       o.WorkGraceMs,
		QuietWindowMs:     o.QuietWindowMs,
		TasksRunningOn:    o.TasksRunningOn,
		ByProbe:           make(map[string]float64, len(o.ByProbe)),
		CutTools:          maps.Clone(a.cancel.cutTools),
	}
	for k, v := range o.ByProbe {
		s.Cancellation.ByProbe[k] = v
	}
	if len(o.ProbeErrors) > 0 {
		s.Cancellation.ProbeErrors = append([]string(nil), o.ProbeErrors...)
	}
	if o.Log != nil {
		l := *o.Log
		l.OrphanedIDs = append([]int64(nil), l.OrphanedIDs...)
		s.Cancellation.Log = &l
	}
	s.Cancellation.Counting = o.Counting
	if o.CPU != nil {
		c := *o.CPU
		c.Tools = slices.Clone(c.Tools)
		s.Cancellation.ProcessCPU = &c
	}
	if o.Client != nil {
		c := *o.Client
		s.Cancellation.Client = &c
	}
	if o.CutPings != nil {
		p := *o.CutPings
		s.Cancellation.CutPings = &p
	}
	s.Cancellation.WorkFences = a.cancel.workFences()
	if o.Contention != nil {
		c := *o.Contention
		s.Cancellation.Contention = &c
	}
	s.Cancellation.Windows = o.Windows
	s.Cancellation.Windows.List = append([]Window(nil), o.Windows.List...)
	s.Cancellation.ServerProcesses = o.Processes.Clone()
}

func (a *Aggregator) buildThrottling(s *Summary) {
	t := &s.Throttling
	t.Total = a.outcomes[results.Throttled]
	t.ByKind = make(map[string]int, len(a.throttleKinds))
	for k, n := range a.throttleKinds {
		t.ByKind[k] = n
	}
	if a.retryAfter.count() > 0 {
		t.RetryAfterS = RetryAfter{
			P50: float64(a.retryAfter.quantile(50)) / 1000,
			Max: float64(a.retryAfter.max) / 1000,
		}
	}
	t.OnsetRate, t.BestOKRate = a.timeline.onset()
	t.Retries = a.retried
	t.RetriesNotMade = a.retriesNotMade
}

func (a *Aggregator) buildTimeouts(s *Summary) {
	t := &s.Timeouts
	t.Idle = a.outcomes[results.TimeoutIdle]
	t.Cap = a.outcomes[results.TimeoutCap]
	t.CapWithProgress = a.capWithProgress
	t.Policies = make(map[string]PolicyCounts, len(a.policies))
	for name, pc := range a.policies {
		t.Policies[name] = *pc
	}
}

func (a *Aggregator) buildFaults(s *Summary) {
	s.Faults = make(map[string]FaultStats, len(a.faults))
	for kind, f := range a.faults {
		s.Faults[kind] = FaultStats{
			Injected:   f.injected,
			Skipped:    f.skipped,
			Unexpected: f.unexpected,
			Refused:    f.refused,
			Server:     maps.Clone(f.server),
			TimingErrorMs: TimingError{
				P50: usToMs(f.timing.quantile(50)),
				P99: usToMs(f.timing.quantile(99)),
				Max: usToMs(f.timing.max),
			},
		}
	}
}

// hists returns the latency histograms for the Summary's pNN() checks:
// the Aggregator's own, shared until the next Add copies them (add.go), so
// that a Summary stays fixed while the Aggregator goes on and a run that
// adds nothing after its summary copies nothing (a copy of each, 180 KiB,
// was most of a short run's summary cost).
func (a *Aggregator) hists() *histSet {
	a.histsShared = true
	out := histSet(a.lat)
	return &out
}

// durMs converts a duration to float milliseconds.
func durMs(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
