package engine

import (
	"time"

	"github.com/mcpchaos/mcpchaos/results"
)

// progressTracker follows one call's progress notifications: monotonicity,
// gaps, and the most notifications in any one-second window.
type progressTracker struct {
	count    int
	values   []float64
	last     float64
	total    float64
	hasTotal bool
	prevAt   time.Time // the send, then each notification
	firstAt  time.Time
	maxGap   time.Duration
	// window holds the receive times (ns) of the last second's
	// notifications, oldest first, from head on.
	window  []int64
	head    int
	maxRate int
}

// start sets the time gaps are measured from.
func (p *progressTracker) start(sent time.Time) { p.prevAt = sent }

// add records one in-order notification and reports whether its value
// failed to increase.
func (p *progressTracker) add(at time.Time, v, total float64, hasTotal bool) (nonMonotonic bool) {
	nonMonotonic = p.count > 0 && v <= p.last
	if p.count == 0 {
		p.firstAt = at
	}
	p.count++
	if len(p.values) < results.MaxValues {
		p.values = append(p.values, v)
	}
	p.last = v
	if hasTotal {
		p.total, p.hasTotal = total, true
	}
	if gap := at.Sub(p.prevAt); gap > p.maxGap {
		p.maxGap = gap
	}
	p.prevAt = at
	p.rate(at.UnixNano())
	return nonMonotonic
}

// rate slides the one-second window to ns and counts it in.
func (p *progressTracker) rate(ns int64) {
	for p.head < len(p.window) && p.window[p.head] <= ns-int64(time.Second) {
		p.head++
	}
	if p.head > 0 && p.head*2 >= len(p.window) {
		n := copy(p.window, p.window[p.head:])
		p.window = p.window[:n]
		p.head = 0
	}
	p.window = append(p.window, ns)
	if n := len(p.window) - p.head; n > p.maxRate {
		p.maxRate = n
	}
}

// finish closes the last gap at the call's end and returns the record.
func (p *progressTracker) finish(end time.Time, answered bool, rules ProgressRules) *results.Progress {
	if !end.IsZero() {
		if gap := end.Sub(p.prevAt); gap > p.maxGap {
			p.maxGap = gap
		}
	}
	out := &results.Progress{Count: p.count, Values: p.values, Last: p.last, MaxRateHz: p.maxRate}
	if p.hasTotal {
		out.Total = p.total
	}
	if p.maxGap > 0 {
		out.MaxGapUs = results.Us(p.maxGap)
	}
	out.Stalled = rules.Stall > 0 && p.maxGap > rules.Stall
	out.Flood = rules.FloodHz > 0 && float64(p.maxRate) > rules.FloodHz
	out.Incomplete = answered && p.hasTotal && p.count > 0 && p.last < p.total
	return out
}
