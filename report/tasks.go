package report

import (
	"fmt"

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

// textTasks writes the Tasks block: only when a server made tasks.
func (s *Summary) textTasks(t *textOut) {
	k := s.Tasks
	if k.Created == 0 {
		return
	}
	t.items("Tasks", fmt.Sprintf("%d created", k.Created), fmt.Sprintf("%d completed", k.Completed),
		fmt.Sprintf("%d failed", k.Failed), fmt.Sprintf("%d cancelled", k.Cancelled),
		fmt.Sprintf("%d polls (%d throttled)", k.Polls, k.PollThrottled), fmt.Sprintf("%d updates", k.Updates))
	if k.Listened > 0 {
		t.items("", fmt.Sprintf("%d listened", k.Listened), fmt.Sprintf("%d notifications/tasks", k.Pushed))
	}
	if k.CancelSent > 0 {
		t.items("", fmt.Sprintf("%d tasks/cancel sent", k.CancelSent), fmt.Sprintf("%d leftover (ran on: information)", k.Leftover))
	}
	if k.LatencyMs.Count > 0 {
		t.items("", "creation to end p50 "+fmtMs(k.LatencyMs.P50), "p99 "+fmtMs(k.LatencyMs.P99))
	}
}
