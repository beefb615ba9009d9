package report

import (
	"github.com/mcpchaos/mcpchaos/results"
)

// tasksAgg accumulates Tasks over records.
type tasksAgg struct {
	s       Tasks
	latency *hist // microseconds
	ranOn   *hist // microseconds, from tasks/cancel to the end of a leftover task
}

func (a *tasksAgg) add(r *results.Record) {
	t := r.Task
	if t == nil {
		return
	}
	if a.latency == nil {
		a.latency = newHist(latencyMaxUs)
		a.ranOn = newHist(latencyMaxUs)
	}
	a.s.Created++
	switch t.Status {
	case "completed":
		a.s.Completed++
	case "failed":
		a.s.Failed++
	case "cancelled":
		a.s.Cancelled++
	}
	a.s.Polls += t.Polls
	a.s.PollThrottled += t.PollThrottled
	a.s.Updates += t.Updates
	if t.CancelUs > 0 {
		a.s.CancelSent++
	}
	if t.Leftover {
		a.s.Leftover++
		if t.EndUs > 0 && t.CancelUs > 0 {
			a.ranOn.record(max(t.EndUs-t.CancelUs, 0))
		}
	}
	if t.Listened {
		a.s.Listened++
	}
	a.s.Pushed += t.Pushed
	// A task we cancelled ends when the cancel (or the work it ignored)
	// does: that is tasks.ran_on_ms, not the task's latency.
	if t.EndUs > 0 && t.CancelUs == 0 {
		a.latency.record(max(t.EndUs-t.CreatedUs, 0))
	}
}

func (a *tasksAgg) summary() Tasks {
	s := a.s
	if a.latency != nil {
		s.LatencyMs = a.latency.latency()
		s.RanOnMs = a.ranOn.latency()
	}
	return s
}
