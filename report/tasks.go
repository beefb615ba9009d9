package report

import (
	"github.com/mcpchaos/mcpchaos/results"
)

// Tasks is what became of the calls a server made tasks of (the tasks
// extension, docs/long-running.md), from the records' Task.
type Tasks struct {
	// Created counts the tasks; Completed, Failed and Cancelled those
	// whose last status seen was that terminal one.
	Created   int `json:"created"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Cancelled int `json:"cancelled"`
	// Polls counts the tasks/get sent, PollThrottled those refused as too
	// soon, Updates the tasks/update sent.
	Polls         int `json:"polls"`
	PollThrottled int `json:"poll_throttled"`
	Updates       int `json:"updates"`
	// CancelSent counts the tasks/cancel sent; Leftover those tasks that
	// did not end cancelled within orphans.grace after it (they completed
	// or still ran): information, cancellation of tasks is cooperative.
	CancelSent int `json:"cancel_sent"`
	Leftover   int `json:"leftover"`
	// Listened counts the tasks followed on a subscriptions/listen stream
	// too (the server acknowledged their id), Pushed the
	// notifications/tasks received.
	Listened int `json:"listened"`
	Pushed   int `json:"pushed"`
	// LatencyMs is the time from a task's creation to the first terminal
	// status seen, per task that reached one.
	LatencyMs Latency `json:"latency_ms"`
}

// tasksAgg accumulates Tasks over records.
type tasksAgg struct {
	s       Tasks
	latency *hist // microseconds
}

func (a *tasksAgg) add(r *results.Record) {
	t := r.Task
	if t == nil {
		return
	}
	if a.latency == nil {
		a.latency = newHist(latencyMaxUs)
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
	}
	if t.Listened {
		a.s.Listened++
	}
	a.s.Pushed += t.Pushed
	if t.EndUs > 0 {
		a.latency.record(max(t.EndUs-t.CreatedUs, 0))
	}
}

func (a *tasksAgg) summary() Tasks {
	s := a.s
	if a.latency != nil {
		s.LatencyMs = a.latency.latency()
	}
	return s
}
