package report

import (
	"strings"
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// How the Aggregator counts one finished call (Add), area by area, and a
// background fault's traffic (AddBackground).

// Add counts one finished call. A nil record is ignored.
func (a *Aggregator) Add(r *results.Record) {
	if r == nil {
		return
	}
	a.total++
	a.outcomes[r.Outcome]++
	switch r.Retry {
	case "reissue":
		a.reissued++
	case "throttled":
		a.retried++
	}
	if end := r.Scheduled.Add(time.Duration(max(r.EndUs, r.ResponseUs)) * time.Microsecond); end.After(a.lastEnd) {
		a.lastEnd = end
	}
	a.addLatencies(r)
	a.addProgress(r)
	a.addCancel(r)
	a.addThrottle(r)
	a.addTimeouts(r)
	a.addFaults(r)
	a.addTool(r)
	a.errors.add(r)
	a.clientLimits.add(r)
	a.timeline.add(r)
	a.mrtr.add(r)
	a.tasks.add(r)
	for name, n := range r.Violations {
		a.violations.Add(name, n)
	}
}

// addLatencies records the call's latencies in the run's histograms and
// in the second it ended.
func (a *Aggregator) addLatencies(r *results.Record) {
	vals := [numHists]int64{-1, -1, -1, -1, -1}
	if r.ResponseUs > 0 {
		vals[histCall] = r.ResponseUs
		if r.SentUs > 0 {
			vals[histService] = r.ResponseUs - r.SentUs
		}
	}
	if r.FirstProgUs > 0 {
		vals[histFirstProgress] = r.FirstProgUs - r.SentUs
	}
	if r.Progress != nil && r.Progress.Count > 0 {
		vals[histProgressGap] = r.Progress.MaxGapUs
	}
	if r.DeadlineUs > 0 {
		vals[histTimeoutError] = r.TimeoutErrUs
	}
	if a.histsShared { // a Summary holds them: it keeps these, we go on with copies
		for i, h := range a.lat {
			c := *h
			c.h = h.h.Clone()
			a.lat[i] = &c
		}
		a.histsShared = false
	}
	for i, v := range vals {
		if v >= 0 {
			a.lat[i].record(v)
		}
	}
	if !a.noSeconds {
		a.seconds.add(r, &vals)
	}
}

func (a *Aggregator) addProgress(r *results.Record) {
	p := r.Progress
	if p == nil {
		return
	}
	a.progress.requested++
	if p.Count > 0 {
		a.progress.calls++
	}
	a.progress.notifications += p.Count
	a.progress.maxRateHz = max(a.progress.maxRateHz, p.MaxRateHz)
	if p.Flood {
		a.progress.floods++
	}
	if p.Stalled {
		a.progress.stalls++
	}
	if p.Incomplete {
		a.progress.incomplete++
	}
	if p.LeadUs > 0 && p.LeadUs <= tightLeadUs {
		a.fenced.tight++
	}
}

func (a *Aggregator) addCancel(r *results.Record) {
	c := &a.cancel
	disconnected := r.Outcome == results.Disconnected
	if r.CancelUs > 0 && !disconnected {
		c.cancels++
	}
	if disconnected || hasFault(r, "disconnect") {
		c.disconnects++
	}
	if _, byFault := r.CancelReason.Fault(); byFault || disconnected {
		c.cutTool(r.Tool)
	}
	c.lateResponses += r.LateResponses
	c.lateProgress += r.LateProgress
	c.lateQueued += r.LateQueued
	c.lateQueuedPrompt += r.LateQueuedPrompt
	c.lateDrained += r.LateDrained
	c.cancelAnswers += r.CancelAnswers
	c.addFenceLag(r.FenceLagUs)
	if r.LeftoverUs > 0 { // work past cut + work grace (engine's Plan.workGrace)
		c.leftover.add(r.ID, r.LeftoverUs, disconnected)
	} else if r.FencedUs > 0 { // past it by a fence alone (fenced.go)
		a.fenced.calls.add(r.ID, r.FencedUs, disconnected)
	}
}

// addFenceLag counts one stdio cut's work fence (Record.FenceLagUs: 0
// none, -1 no answer).
func (c *cancelAgg) addFenceLag(us int64) {
	switch {
	case us < 0:
		c.fenceUnanswered++
	case us > 0:
		if c.fenceLag == nil {
			c.fenceLag = newHist(latencyMaxUs)
		}
		c.fenceLag.record(us)
	}
}

// workFences is what the stdio cuts' work fences showed; nil without any.
func (c *cancelAgg) workFences() *WorkFences {
	if c.fenceLag == nil && c.fenceUnanswered == 0 {
		return nil
	}
	return &WorkFences{Unanswered: c.fenceUnanswered, LagMs: c.fenceLag.latency()}
}

// cutTool counts a call of tool that a fault cut.
func (c *cancelAgg) cutTool(tool string) {
	if c.cutTools == nil {
		c.cutTools = make(map[string]int)
	}
	if _, ok := c.cutTools[tool]; ok || len(c.cutTools) < toolsMax {
		c.cutTools[tool]++
	}
}

// hasFault reports whether a fault of kind acted on the call; a skipped
// one (the call ended before its moment) did nothing.
func hasFault(r *results.Record, kind string) bool {
	for _, f := range r.Faults {
		if f.Kind == kind && !f.Skipped {
			return true
		}
	}
	return false
}

func (a *Aggregator) addThrottle(r *results.Record) {
	if r.Outcome == results.Throttled {
		kind := r.ThrottleKind
		if kind == "" {
			kind = "unknown"
		}
		a.throttleKinds[kind]++
	}
	if r.RetryAfterMs != nil {
		a.retryAfter.record(*r.RetryAfterMs)
	}
}

func (a *Aggregator) addTimeouts(r *results.Record) {
	if r.CapWithProgress {
		a.capWithProgress++
	}
	for name, did := range r.Policies {
		pc := a.policies[name]
		if pc == nil {
			pc = &PolicyCounts{}
			a.policies[name] = pc
		}
		switch did {
		case "killed":
			pc.Killed++
		case "waited_forever":
			pc.WaitedForever++
		}
	}
}

// AddBackground counts what a background fault sent over the run.
func (a *Aggregator) AddBackground(kind string, sent, refused int) {
	fa := a.faults[kind]
	if fa == nil {
		fa = &faultAgg{timing: newHist(latencyMaxUs)}
		a.faults[kind] = fa
	}
	fa.injected += sent
	fa.refused += refused
}

func (a *Aggregator) addFaults(r *results.Record) {
	for _, f := range r.Faults {
		fa := a.faults[f.Kind]
		if fa == nil {
			fa = &faultAgg{timing: newHist(latencyMaxUs)}
			a.faults[f.Kind] = fa
		}
		if f.Skipped {
			fa.skipped++
			continue
		}
		fa.injected++
		if strings.HasPrefix(f.Detail, "unexpected answer") {
			fa.unexpected++
		}
		if i := strings.LastIndex(f.Detail, "; server "); i >= 0 {
			if fa.server == nil {
				fa.server = make(map[string]int)
			}
			fa.server[f.Detail[i+len("; server "):]]++
		}
		e := f.ErrorUs
		if e < 0 {
			e = -e
		}
		fa.timing.record(e)
	}
}
