package report

import (
	"maps"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/results"
)

// Rules are the progress thresholds the run used. The summary echoes them
// so a reader knows what "flood", "stall" and "after cancel" meant.
type Rules struct {
	// ProgressGrace: progress this long after a cancel is a violation.
	ProgressGrace time.Duration
	// Stall: a progress gap longer than this is a stall.
	Stall time.Duration
	// FloodHz: more notifications for one call in one second is a flood.
	FloodHz float64
}

// ScenarioRules returns the rules of a scenario's progress section.
func ScenarioRules(sc *scenarios.Scenario) Rules {
	return Rules{ProgressGrace: sc.Progress.Grace.Std(), Stall: sc.Progress.Stall.Std(), FloodHz: sc.Progress.FloodHz}
}

// Orphans is what the orphan probes found after the load ended and the
// grace had passed.
type Orphans struct {
	// Orphaned is the number of calls still running on the server, summed
	// over the probes that count calls.
	Orphaned float64 `json:"orphaned"`
	// ByProbe is each probe's reading above its baseline, by probe name.
	ByProbe map[string]float64 `json:"by_probe,omitempty"`
	// LeftoverCPUSeconds is CPU the target's process tree used after quiet.
	LeftoverCPUSeconds float64 `json:"leftover_cpu_s"`
	// DrainMs is the time from the end of the load until the probes
	// returned to their baseline (or until the engine gave up waiting).
	DrainMs float64 `json:"drain_ms"`
	// Drained says the probes did return to their baseline.
	Drained bool `json:"drained"`
	// LeakedCallSeconds is the server's in-flight work above the client's
	// own in-flight calls, integrated over the run.
	LeakedCallSeconds float64 `json:"leaked_call_seconds"`
	// WorkGraceMs is the time a server was given to stop a cut call: the
	// longer of progress.grace and orphans.grace (0 in files written
	// before it was kept: progress.grace then).
	WorkGraceMs float64 `json:"work_grace_ms,omitempty"`
	// QuietWindowMs is how long after the load the final probe reading
	// was taken.
	QuietWindowMs float64 `json:"quiet_window_ms"`
	// TasksRunningOn is how many tasks still worked after their
	// tasks/cancel (allowed: cancelling a task is cooperative) when the
	// probes were read after the load: their readings (Orphaned, the
	// leftover CPU) are not judged (engine/taskrunon.go).
	TasksRunningOn int `json:"tasks_running_on,omitempty"`
	// ProbeErrors are probes that could not be read.
	ProbeErrors []string `json:"probe_errors,omitempty"`
	// Log is the log probe that found the most orphans, if there is one.
	Log *LogOrphans `json:"log,omitempty"`
	// Counting is how many count probes (metric, tool) were read at least
	// once; CPU is set when a process probe measured.
	Counting int         `json:"counting_probes"`
	CPU      *ProcessCPU `json:"process_cpu,omitempty"`
	// Client is how long mcpchaos itself stalled during the load.
	Client *ClientStall `json:"client,omitempty"`
	// CutPings is what the pings sent after cuts over HTTP showed
	// (cutpings.go); nil when none was sent.
	CutPings *CutPings `json:"cut_pings,omitempty"`
	// Contention is the faults' cuts projected at the load's own pace
	// (internal/engine/projection.go).
	Contention *Contention `json:"contention,omitempty"`
	// Windows are the quiet windows during the load (windows.go).
	Windows Windows `json:"windows"`
	// Processes is what became of the stdio servers and the processes
	// they started (processes.go); nil for HTTP targets.
	Processes *ServerProcesses `json:"processes,omitempty"`
	// Shared is set by a shard whose probes read a server the other
	// shards of its run share (sharedserver.go); nil otherwise, and in files
	// written before it existed.
	Shared *SharedServer `json:"shared,omitempty"`
}

// Aggregator accumulates records into the numbers of a Summary. It is not
// safe for concurrent use: one goroutine owns it.
type Aggregator struct {
	rules   Rules
	conn    client.Stats
	orphans Orphans

	total    int
	outcomes map[string]int
	reissued int
	retried  int
	// retriesNotMade: retries the load's end cut off (a run input).
	retriesNotMade int
	// gateway: the join with the targets' truth (a run input); nil
	// without a gateway section.
	gateway *Gateway
	lat     [numHists]*hist // microseconds
	// histsShared: a Summary holds lat (build.go); the next Add copies.
	histsShared bool
	lastEnd     time.Time // the latest end of a call seen

	progress   progressAgg
	violations results.Counts // every per-call violation, summed

	cancel cancelAgg
	fenced fencedAgg // work a fence alone proved (fenced.go)

	throttleKinds map[string]int
	retryAfter    *hist // milliseconds
	timeline      timeline

	capWithProgress int
	policies        map[string]*PolicyCounts

	faults map[string]*faultAgg

	errors errorSet
	tools  map[string]*toolAgg

	seconds seconds // the run second by second (seconds.go)
	// noSeconds: keep no per-second data (KeepSeconds(false)).
	noSeconds bool
	mrtr      mrtrAgg // multi-round-trip calls (mrtr.go)
	tasks     tasksAgg

	clientLimits clientLimitAgg // what our own process ran out of (clientlimits.go)
}

// progressAgg counts progress over calls.
type progressAgg struct {
	requested     int // calls with a progress record (asked for progress)
	calls         int // calls that received at least one notification
	notifications int
	maxRateHz     int
	floods        int
	stalls        int
	incomplete    int
}

// maxLeftoverIDs bounds the leftover calls named by id.
const maxLeftoverIDs = 10

// cancelAgg counts cancellation evidence over calls.
type cancelAgg struct {
	cancels       int // calls with a cancel issued
	lateResponses int
	lateProgress  int
	leftover      callSet // calls with wire evidence of work after the cancel (fenced.go)
	lateQueued    int     // late messages read before the stdio fence's answer
	// lateQueuedPrompt: those of lateQueued read before a prompt answer
	lateQueuedPrompt int
	lateDrained      int // late progress read after its call's in-time answer
	cancelAnswers    int // answers after the cancel that say it was cancelled
	// fenceLag: how long after cancel + the work grace each stdio cut's
	// work fence was answered (microseconds; nil: none answered);
	// fenceUnanswered: cuts whose fence had no answer by their record.
	fenceLag        *hist
	fenceUnanswered int
	// disconnects: calls that ended disconnected or had a disconnect fault.
	disconnects int
	// cutTools counts the calls a fault cut (cancelled or disconnected)
	// or the server disconnected, by tool, for up to toolsMax tools (as
	// the per-tool breakdown).
	cutTools map[string]int
}

// faultAgg counts one kind of fault.
type faultAgg struct {
	injected, skipped, unexpected, refused int
	server                                 map[string]int
	timing                                 *hist // |actual - scheduled|, microseconds
}

// NewAggregator returns an empty Aggregator for a run with these rules.
func NewAggregator(rules Rules) *Aggregator {
	a := &Aggregator{
		rules:         rules,
		outcomes:      make(map[string]int),
		throttleKinds: make(map[string]int),
		retryAfter:    newHist(retryAfterMax),
		policies:      make(map[string]*PolicyCounts),
		faults:        make(map[string]*faultAgg),
		tools:         make(map[string]*toolAgg),
	}
	for i := range a.lat {
		a.lat[i] = newHist(latencyMaxUs)
	}
	return a
}

// SetConnection sets the connection-level counts (messages that belonged
// to no live call), summed over every client of the run.
func (a *Aggregator) SetConnection(s client.Stats) { a.conn = s }

// SetOrphans sets what the orphan probes found after the run.
func (a *Aggregator) SetOrphans(o Orphans) {
	o.ByProbe = maps.Clone(o.ByProbe)
	o.ProbeErrors = append([]string(nil), o.ProbeErrors...)
	o.Processes = o.Processes.Clone()
	a.orphans = o
}

// Histogram returns the named histogram (one of HistogramNames, values in
// microseconds), or nil. It is the Aggregator's own: read it, do not
// change it, and do not keep it across Add.
func (a *Aggregator) Histogram(name string) *hdrhistogram.Histogram {
	if i := histIndex(name); i >= 0 {
		return a.lat[i].h
	}
	return nil
}

// Live is a cheap view of the run so far, for the live status line.
type Live struct {
	// Calls is the number of calls finished (dropped ones included).
	Calls int
	// Outcomes counts finished calls by outcome (a copy).
	Outcomes map[string]int
	// P99 is the 99th percentile of call latency so far.
	P99 time.Duration
	// Rate is the achieved rate so far: calls that were not dropped, per
	// second from the first scheduled call to the latest end seen.
	Rate float64
}

// Snapshot returns the run so far. In-flight calls are the engine's to
// count.
func (a *Aggregator) Snapshot() Live {
	l := Live{
		Calls:    a.total,
		Outcomes: maps.Clone(a.outcomes),
		P99:      time.Duration(a.lat[histCall].quantile(99)) * time.Microsecond,
	}
	if span := a.lastEnd.Sub(a.timeline.first); !a.timeline.first.IsZero() && span > 0 {
		l.Rate = float64(a.total-a.outcomes[results.Dropped]) / span.Seconds()
	}
	return l
}
