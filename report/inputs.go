package report

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
)

// RunInputs is what a Summary needs besides the records: what only the run
// as a whole knew. A results file's trailer keeps it (results.Trailer.Run),
// so `mcpchaos report` rebuilds the very summary `run` printed.
type RunInputs struct {
	// Duration is the length of the load (Meta.Duration), exact.
	Duration time.Duration `json:"duration_ns"`
	// Connection counts messages that belonged to no live call.
	Connection client.Stats `json:"connection"`
	// Orphans is what the orphan probes found.
	Orphans Orphans `json:"orphans"`
	// Background is what each background fault sent.
	Background []Background `json:"background,omitempty"`
	// RetriesNotMade counts throttled calls whose retry the load's end (or
	// an interrupt) cut off.
	RetriesNotMade int `json:"retries_not_made,omitempty"`
	// Pacer is how far behind its schedule the pacer ran.
	Pacer PacerLag `json:"pacer"`
	// Gateway is the join of our calls with the targets' truth records;
	// nil without a gateway section.
	Gateway *Gateway `json:"gateway,omitempty"`
}

// Background is what one background fault did over the run.
type Background struct {
	Kind    string `json:"kind"`
	Sent    int    `json:"sent"`
	Refused int    `json:"refused"`
}

// SetInputs sets the run-level inputs (connection counts, orphans,
// background faults) of the summary.
func (a *Aggregator) SetInputs(in RunInputs) {
	a.SetConnection(in.Connection)
	a.SetOrphans(in.Orphans)
	for _, b := range in.Background {
		a.AddBackground(b.Kind, b.Sent, b.Refused)
	}
	a.retriesNotMade = in.RetriesNotMade
	a.clientLimits.pacer = in.Pacer
	a.gateway = in.Gateway
}

// SetRules sets the progress thresholds the summary echoes (a merge learns
// them from the first file's header, after the Aggregator was made).
func (a *Aggregator) SetRules(r Rules) { a.rules = r }

// Evaluation returns the rules, checks and fail_on_violation of a run in
// the form a results header records them.
func Evaluation(rules Rules, checks []Check, failOnViolation bool) *results.Evaluation {
	e := &results.Evaluation{Checks: []results.CheckSpec{}, FailOnViolation: failOnViolation,
		Progress: results.ProgressRules{GraceMs: durMs(rules.ProgressGrace), StallMs: durMs(rules.Stall), FloodHz: rules.FloodHz}}
	for _, c := range checks {
		e.Checks = append(e.Checks, results.CheckSpec{Check: c.String(), Line: c.Line, Column: c.Column})
	}
	return e
}

// RulesOf returns the rules a results header recorded.
func RulesOf(p results.ProgressRules) Rules {
	ms := func(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }
	return Rules{ProgressGrace: ms(p.GraceMs), Stall: ms(p.StallMs), FloodHz: p.FloodHz}
}

// MergeInputs combines the run-level inputs of several runs (see
// docs/reports.md#merging): counts add (connection counts, orphans, CPU,
// leaked call-seconds, background faults by kind, each probe's reading, the
// gateway's counts and lag bins) — but the probe readings of shards that
// shared one server take the largest (sharedserver.go);
// the drain and the quiet window take the longest, drained holds when every
// run drained, the process probe's calibration and the log probe are the
// first run's (the log probe's counts add); Duration is set by the caller
// (the span of the runs on the wall clock).
func MergeInputs(list []RunInputs) RunInputs {
	var out RunInputs
	if len(list) == 0 {
		return out
	}
	out.Orphans.Drained = true
	bg := map[string]*Background{}
	for _, in := range list {
		c := &out.Connection
		c.NotJSONRPC += in.Connection.NotJSONRPC
		c.Oversize += in.Connection.Oversize
		c.UnknownResponses += in.Connection.UnknownResponses
		c.UnknownTokens += in.Connection.UnknownTokens
		c.Stale += in.Connection.Stale
		c.StaleAnswers += in.Connection.StaleAnswers
		c.ServerRequests += in.Connection.ServerRequests
		c.ServerCancels += in.Connection.ServerCancels
		c.OtherStream += in.Connection.OtherStream
		c.GetStreams += in.Connection.GetStreams
		c.InputElicitation += in.Connection.InputElicitation
		c.InputSampling += in.Connection.InputSampling
		c.InputRoots += in.Connection.InputRoots
		c.UndeclaredInput += in.Connection.UndeclaredInput
		c.InputMethod += in.Connection.InputMethod
		c.ContentMismatch += in.Connection.ContentMismatch
		mergeOrphans(&out.Orphans, in.Orphans)
		out.RetriesNotMade += in.RetriesNotMade
		out.Pacer.Ticks += in.Pacer.Ticks
		out.Pacer.Late += in.Pacer.Late
		out.Pacer.LateSpanMs = max(out.Pacer.LateSpanMs, in.Pacer.LateSpanMs) // shards run side by side
		out.Pacer.MaxLagMs = max(out.Pacer.MaxLagMs, in.Pacer.MaxLagMs)
		out.Pacer.EndLagMs = max(out.Pacer.EndLagMs, in.Pacer.EndLagMs)
		out.Pacer.BoundMs = max(out.Pacer.BoundMs, in.Pacer.BoundMs)
		if in.Pacer.CPUShare > out.Pacer.CPUShare { // the busiest shard's
			out.Pacer.CPUShare, out.Pacer.CPUs = in.Pacer.CPUShare, in.Pacer.CPUs
		}
		mergeGateway(&out.Gateway, in.Gateway)
		for _, b := range in.Background {
			sum := bg[b.Kind]
			if sum == nil {
				sum = &Background{Kind: b.Kind}
				bg[b.Kind] = sum
			}
			sum.Sent += b.Sent
			sum.Refused += b.Refused
		}
	}
	for _, k := range slices.Sorted(maps.Keys(bg)) {
		out.Background = append(out.Background, *bg[k])
	}
	return out
}

// mergeLog adds one run's log probe findings to o's.
func mergeLog(o *Orphans, in *LogOrphans) {
	if in == nil {
		return
	}
	if o.Log == nil {
		l := *in
		l.OrphanedIDs = slices.Clone(l.OrphanedIDs)
		o.Log = &l
		return
	}
	l := o.Log
	l.Lines += in.Lines
	l.Matched += in.Matched
	l.Orphaned += in.Orphaned
	l.Unseen += in.Unseen
	l.MaxAfterCancelMs = max(l.MaxAfterCancelMs, in.MaxAfterCancelMs)
	l.OrphanedIDs = append(l.OrphanedIDs, in.OrphanedIDs...)
	slices.Sort(l.OrphanedIDs)
	l.OrphanedIDs = l.OrphanedIDs[:min(len(l.OrphanedIDs), 100)]
}

func mergeOrphans(o *Orphans, in Orphans) {
	if in.Shared != nil {
		mergeShared(o, in)
	} else {
		o.Orphaned += in.Orphaned
		for k, v := range in.ByProbe {
			if o.ByProbe == nil {
				o.ByProbe = map[string]float64{}
			}
			o.ByProbe[k] += v
		}
		o.LeftoverCPUSeconds += in.LeftoverCPUSeconds
	}
	o.DrainMs = max(o.DrainMs, in.DrainMs)
	o.Drained = o.Drained && in.Drained
	o.LeakedCallSeconds += in.LeakedCallSeconds
	o.WorkGraceMs = max(o.WorkGraceMs, in.WorkGraceMs)
	o.QuietWindowMs = max(o.QuietWindowMs, in.QuietWindowMs)
	o.TasksRunningOn += in.TasksRunningOn
	for _, e := range in.ProbeErrors {
		if !slices.Contains(o.ProbeErrors, e) {
			o.ProbeErrors = append(o.ProbeErrors, e)
		}
	}
	mergeLog(o, in.Log)
	o.Counting = max(o.Counting, in.Counting)
	if o.CPU == nil && in.CPU != nil {
		c := *in.CPU
		c.Tools = slices.Clone(c.Tools)
		o.CPU = &c
	}
	mergeStarved(o, in)
	w := &o.Windows
	w.Cancelled += in.Windows.Cancelled
	w.Followed += in.Windows.Followed
	w.SkippedTicks += in.Windows.SkippedTicks
	w.OrphanedMax = max(w.OrphanedMax, in.Windows.OrphanedMax)
	w.Auto = w.Auto || in.Windows.Auto
	if in.Shared != nil {
		mergeSharedWindows(w, in.Windows)
	} else {
		w.Count += in.Windows.Count
		w.LeftoverCPUS += in.Windows.LeftoverCPUS
		w.NoiseCPUS += in.Windows.NoiseCPUS
		w.Above += in.Windows.Above
		w.Quiet += in.Windows.Quiet
		w.QuietNoiseRate = max(w.QuietNoiseRate, in.Windows.QuietNoiseRate)
		w.MeasuredMs += in.Windows.MeasuredMs
		w.List = append(w.List, in.Windows.List...)
		slices.SortStableFunc(w.List, func(a, b Window) int { return a.MeasuredFrom.Compare(b.MeasuredFrom) })
	}
	if p := in.Processes; p != nil {
		if o.Processes == nil {
			o.Processes = &ServerProcesses{}
		}
		q := o.Processes
		q.Signalled += p.Signalled
		q.Killed += p.Killed
		q.Leftover += p.Leftover
		q.LeftRunning = q.LeftRunning || p.LeftRunning
		for _, n := range p.Notes {
			q.Note("%s", n)
		}
	}
}

// DecodeInputs reads a trailer's run inputs.
func DecodeInputs(raw json.RawMessage) (RunInputs, error) {
	var in RunInputs
	if err := json.Unmarshal(raw, &in); err != nil {
		return in, fmt.Errorf("decode the trailer's run inputs: %w", err)
	}
	return in, nil
}

// EncodeInputs returns the run inputs as a trailer keeps them.
func EncodeInputs(in RunInputs) (json.RawMessage, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("encode run inputs: %w", err)
	}
	return b, nil
}

// mergeStarved merges what a run's inputs say of starvation and summed
// windows into o (MergeInputs). The most stalled run's client stall is
// kept (a run of several processes is as starved as its worst). Windows
// of separate servers add: starved windows, the windows that cut calls,
// their leftover and their thresholds (summed linearly, a larger
// threshold than the √n of one run: a merge never finds more than its
// runs did). The shards of one shared server took the same windows: the
// largest of each.
func mergeStarved(o *Orphans, in Orphans) {
	if c := in.Client; c != nil && (o.Client == nil || c.Share > o.Client.Share) {
		cl := *c
		o.Client = &cl
	}
	mergeCutPings(o, in)
	mergeContention(o, in)
	w, x := &o.Windows, in.Windows
	mergeExtension(w, x)
	if in.Shared != nil {
		w.Starved = max(w.Starved, x.Starved)
		w.Bursts = max(w.Bursts, x.Bursts)
		w.SliceBursts = max(w.SliceBursts, x.SliceBursts)
		w.WaitBursts = max(w.WaitBursts, x.WaitBursts)
		w.TasksRunningOn = max(w.TasksRunningOn, x.TasksRunningOn)
		w.CutCount = max(w.CutCount, x.CutCount)
		w.CutLeftoverCPUS = max(w.CutLeftoverCPUS, x.CutLeftoverCPUS)
		w.CutThresholdS = max(w.CutThresholdS, x.CutThresholdS)
		return
	}
	w.Starved += x.Starved
	w.Bursts += x.Bursts
	w.SliceBursts += x.SliceBursts
	w.WaitBursts += x.WaitBursts
	w.TasksRunningOn += x.TasksRunningOn
	w.CutCount += x.CutCount
	w.CutLeftoverCPUS += x.CutLeftoverCPUS
	w.CutThresholdS += x.CutThresholdS
}
