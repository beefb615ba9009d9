package targetserver

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Stats is an in-process snapshot of the ground-truth counters, the same
// numbers /metrics exports. Only the work tools (echo, slow_task, cpu_task)
// are counted; the inflight probe tool is not.
type Stats struct {
	Inflight     int64 // calls running now, leaked ones included
	Started      int64 // calls that began
	Completed    int64 // calls that ran to the end and returned a result
	Cancelled    int64 // calls stopped because of a cancel (or server shutdown)
	Orphaned     int64 // cancels or disconnects that a call outlived
	Throttled    int64 // tools/call refused by the rate limit
	ProgressSent int64 // progress notifications delivered to the transport
	NonMonotonic int64 // of those, how many repeated or lowered the previous value
	// LeftoverCPU is the CPU that step tools burnt after they went on past
	// a cancel or a closed stream (leaked, waiting out stop_delay, or not
	// told of a disconnect): the ground truth of leftover work. It grows
	// while such a call runs.
	LeftoverCPU time.Duration
	// LeftoverBusy is the time such calls ran after the cancel, sleeping
	// or burning, added when each call ends.
	LeftoverBusy time.Duration
	// ConfirmAsked counts the deploy calls answered with a request for
	// confirmation, Confirmed those whose retry accepted (and ran), and
	// NotConfirmed those whose retry declined, cancelled, or carried a
	// missing or altered requestState (the confirm knob).
	ConfirmAsked, Confirmed, NotConfirmed int64
	// Shed counts the calls handed back by load shedding (the load_shed
	// knob), ShedRetried the retries that echoed a shed call's state and
	// were served.
	Shed, ShedRetried int64
	// Tasks (the tasks knob): TasksCreated tasks made; TasksCompleted,
	// TasksFailed (expired) and TasksCancelled those that reached each
	// terminal status; TaskPolls tasks/get answered, TaskPollsEarly
	// tasks/get that came sooner than pollIntervalMs after the task's
	// previous answered poll (refused or not), TaskPollsThrottled those
	// refused (task_poll_limit); TaskCancels tasks/cancel for a known
	// task (once each); TaskStepsAfterCancel steps tasks ran after their
	// tasks/cancel; TaskInputAsked questions asked, TaskUpdates
	// tasks/update received.
	TasksCreated, TasksCompleted, TasksFailed, TasksCancelled int64
	TaskPolls, TaskPollsEarly, TaskPollsThrottled             int64
	TaskCancels, TaskStepsAfterCancel                         int64
	TaskInputAsked, TaskUpdates                               int64
}

// metrics holds the counters behind Stats and the Prometheus registry that
// exports them.
type metrics struct {
	inflight, started, completed, cancelled, orphaned,
	throttled, progressSent, nonMonotonic atomic.Int64
	confirmAsked, confirmed, notConfirmed atomic.Int64
	shed, shedRetried                     atomic.Int64
	tasksCreated, tasksCompleted, tasksFailed, tasksCancelled,
	taskPolls, taskPollsEarly, taskPollsThrottled, taskCancels,
	taskStepsAfterCancel, taskInputAsked, taskUpdates atomic.Int64
	leftoverCPU, leftoverBusy atomic.Int64 // nanoseconds

	registry *prometheus.Registry
}

func newMetrics() *metrics {
	m := &metrics{registry: prometheus.NewRegistry()}
	gauge := func(name, help string, v *atomic.Int64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) })
	}
	counter := func(name, help string, v *atomic.Int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return float64(v.Load()) })
	}
	seconds := func(name, help string, ns *atomic.Int64) prometheus.Collector {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help},
			func() float64 { return time.Duration(ns.Load()).Seconds() })
	}
	m.registry.MustRegister(
		gauge("mcpchaos_target_inflight",
			"Tool calls running now, leaked ones included.", &m.inflight),
		counter("mcpchaos_target_started_total",
			"Tool calls started.", &m.started),
		counter("mcpchaos_target_completed_total",
			"Tool calls that ran to the end and returned a result.", &m.completed),
		counter("mcpchaos_target_cancelled_total",
			"Tool calls stopped because of a cancel or disconnect.", &m.cancelled),
		counter("mcpchaos_target_orphaned_total",
			"Cancels or disconnects that a tool call outlived: it kept running.", &m.orphaned),
		counter("mcpchaos_target_throttled_total",
			"tools/call requests refused by the rate limit.", &m.throttled),
		counter("mcpchaos_target_progress_sent_total",
			"Progress notifications sent.", &m.progressSent),
		counter("mcpchaos_target_non_monotonic_total",
			"Progress notifications that repeated or lowered the previous value.", &m.nonMonotonic),
		seconds("mcpchaos_target_leftover_cpu_seconds_total",
			"CPU seconds tool calls burnt after they went on past a cancel or a closed stream: leftover work.", &m.leftoverCPU),
		seconds("mcpchaos_target_leftover_seconds_total",
			"Seconds tool calls ran after they went on past a cancel or a closed stream, sleeping or burning; added when each call ends.", &m.leftoverBusy),
		counter("mcpchaos_target_confirm_asked_total",
			"deploy calls answered with a request for confirmation (confirm knob).", &m.confirmAsked),
		counter("mcpchaos_target_confirmed_total",
			"deploy retries that carried an accepted confirmation and ran.", &m.confirmed),
		counter("mcpchaos_target_not_confirmed_total",
			"deploy retries that declined, cancelled, or carried a missing or altered requestState.", &m.notConfirmed),
		counter("mcpchaos_target_shed_total",
			"Tool calls handed back by load shedding (load_shed knob).", &m.shed),
		counter("mcpchaos_target_shed_retried_total",
			"Retries that echoed a shed call's requestState and were served.", &m.shedRetried),
		counter("mcpchaos_target_tasks_created_total",
			"Tasks created (tasks knob).", &m.tasksCreated),
		counter("mcpchaos_target_tasks_completed_total",
			"Tasks that ended completed (tool errors included).", &m.tasksCompleted),
		counter("mcpchaos_target_tasks_failed_total",
			"Tasks that ended failed (their TTL passed first).", &m.tasksFailed),
		counter("mcpchaos_target_tasks_cancelled_total",
			"Tasks that ended cancelled.", &m.tasksCancelled),
		counter("mcpchaos_target_task_polls_total",
			"tasks/get answered with the task.", &m.taskPolls),
		counter("mcpchaos_target_task_polls_early_total",
			"tasks/get sooner than pollIntervalMs after the task's previous answered poll (or its creation), refused or not.", &m.taskPollsEarly),
		counter("mcpchaos_target_task_polls_throttled_total",
			"tasks/get refused by the poll limit (task_poll_limit knob).", &m.taskPollsThrottled),
		counter("mcpchaos_target_task_cancels_total",
			"tasks/cancel requests for a known task, once per task.", &m.taskCancels),
		counter("mcpchaos_target_task_steps_after_cancel_total",
			"Steps tasks ran after their tasks/cancel: leftover work.", &m.taskStepsAfterCancel),
		counter("mcpchaos_target_task_input_asked_total",
			"Questions tasks asked (input_required, task_input knob).", &m.taskInputAsked),
		counter("mcpchaos_target_task_updates_total",
			"tasks/update requests for a known task.", &m.taskUpdates),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

func (m *metrics) snapshot() Stats {
	return Stats{
		Inflight:     m.inflight.Load(),
		Started:      m.started.Load(),
		Completed:    m.completed.Load(),
		Cancelled:    m.cancelled.Load(),
		Orphaned:     m.orphaned.Load(),
		Throttled:    m.throttled.Load(),
		ProgressSent: m.progressSent.Load(),
		NonMonotonic: m.nonMonotonic.Load(),
		LeftoverCPU:  time.Duration(m.leftoverCPU.Load()),
		LeftoverBusy: time.Duration(m.leftoverBusy.Load()),
		ConfirmAsked: m.confirmAsked.Load(),
		Confirmed:    m.confirmed.Load(),
		NotConfirmed: m.notConfirmed.Load(),
		Shed:         m.shed.Load(),
		ShedRetried:  m.shedRetried.Load(),

		TasksCreated:         m.tasksCreated.Load(),
		TasksCompleted:       m.tasksCompleted.Load(),
		TasksFailed:          m.tasksFailed.Load(),
		TasksCancelled:       m.tasksCancelled.Load(),
		TaskPolls:            m.taskPolls.Load(),
		TaskPollsEarly:       m.taskPollsEarly.Load(),
		TaskPollsThrottled:   m.taskPollsThrottled.Load(),
		TaskCancels:          m.taskCancels.Load(),
		TaskStepsAfterCancel: m.taskStepsAfterCancel.Load(),
		TaskInputAsked:       m.taskInputAsked.Load(),
		TaskUpdates:          m.taskUpdates.Load(),
	}
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}
