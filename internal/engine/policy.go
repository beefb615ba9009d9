package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// Policy replay outcomes.
const (
	policyOK            = "ok"
	policyKilled        = "killed"
	policyWaitedForever = "waited_forever"
	policyUndecided     = "undecided"
)

// timeline is what a policy replay needs of one call: how long it ran,
// whether it answered by itself, its longest silence and its last progress.
type timeline struct {
	// ran is the time from the send to the answer, or to our cut when we
	// stopped it first.
	ran      time.Duration
	answered bool
	// maxGap is the longest silence: send to first progress, between
	// notifications, and last progress to the answer or the cut.
	maxGap time.Duration
	// sinceProgress is the time from the last progress (or the send) to
	// the answer or the cut.
	sinceProgress time.Duration
	progressed    bool
	// capped: our own maximum timeout cut the call, so it would have run
	// longer still.
	capped bool
}

// replay says what a client with policy p would have done with the call:
// "killed" it, got its answer ("ok"), "waited_forever" (progress kept
// resetting a timeout that has no cap, until our own cap cut the call), or
// "undecided" (we cut the call before the policy would have decided).
func replay(p Policy, t timeline) string {
	if p.Timeout > 0 {
		return byDeadline(p.Timeout, t)
	}
	idle := p.Idle
	gap := t.ran // without resets, the whole call is one silence
	if p.ResetOnProgress {
		gap = t.maxGap
	}
	if idle > 0 && gap > idle {
		return policyKilled
	}
	if p.Max > 0 && t.ran > p.Max {
		return policyKilled
	}
	if t.answered {
		return policyOK
	}
	if t.capped && p.ResetOnProgress && p.Max == 0 && t.progressed && t.sinceProgress <= idle {
		return policyWaitedForever
	}
	return policyUndecided
}

// byDeadline replays a fixed total timeout.
func byDeadline(d time.Duration, t timeline) string {
	switch {
	case t.ran > d:
		return policyKilled
	case t.answered:
		return policyOK
	}
	return policyUndecided
}

// policies replays every configured policy over the call (cs.mu held).
func (cs *callState) policies(answered bool, end time.Time) map[string]string {
	if len(cs.r.plan.Timeouts.Policies) == 0 || cs.sent.IsZero() || end.IsZero() {
		return nil
	}
	t := timeline{ran: end.Sub(cs.sent), answered: answered, maxGap: cs.prog.maxGap,
		sinceProgress: end.Sub(cs.prog.prevAt), progressed: cs.prog.count > 0,
		capped: cs.stopOutcome == results.TimeoutCap}
	if !cs.spec.Progress {
		t.maxGap = t.ran
	}
	out := make(map[string]string, len(cs.r.plan.Timeouts.Policies))
	for _, p := range cs.r.plan.Timeouts.Policies {
		out[p.Name] = replay(p, t)
	}
	return out
}
