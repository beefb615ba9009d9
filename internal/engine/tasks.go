package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/results"
)

// Tasks (the extension io.modelcontextprotocol/tasks, docs/long-running.md).
// A call item with task: true declares the extension on its tools/call; a
// server that answers with a task (resultType "task") is followed: tasks/get
// at the task's pollIntervalMs, tasks/update with the client section's
// answers when the task asks for input, until the task's status is
// terminal. The call is one record: its latency runs from its schedule to
// the terminal status, its outcome is the task's (completed: ok or
// tool_error; failed: rpc_error with the task's error). A stop while the
// task is followed (a cancel fault, a timeout, the end of the run) sends
// tasks/cancel, never notifications/cancelled; the task is then watched
// for orphans.grace more to see whether its work ran on (Task.Leftover,
// information: cancellation is cooperative).

// defaultPollInterval is the wait between polls of a task that names none.
const defaultPollInterval = time.Second

// taskNotes is what the engine keeps of a call's task.
type taskNotes struct {
	id       string
	status   string
	interval int64 // pollIntervalMs; -1: none given
	// pollFactor is the share of the interval actually waited (a
	// fast_poll fault); 0 means 1.
	pollFactor float64
	fastPoll   int             // its entry in rec.Faults, when pollFactor is set
	answered   map[string]bool // input request keys already answered
	listen     *taskListen     // the task's listen stream, when open (listen.go)
	// polled is when the server last answered a poll (at first, when it
	// made the task; in the watch after tasks/cancel, also its last
	// refusal): the interval it asks for runs from then.
	polled time.Time
	// created is when the server answered the tools/call with the task:
	// its progress ends there (a task sends none while it is polled).
	created time.Time
}

// keepTask copies what following needs of a CreateTaskResult before the
// event's bytes are reused (cs.mu held).
func (cs *callState) keepTask(r client.Result) {
	if r.Type != client.ResultTask {
		return
	}
	cs.task.id, cs.task.status, cs.task.interval = string(r.TaskID), string(r.TaskStatus), r.PollIntervalMs
}

// beginTask turns the call into a followed task when its answer was one
// it asked for; false when there is nothing to follow.
func (cs *callState) beginTask() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.final != finalResult || cs.result.Type != client.ResultTask || !cs.spec.Task || cs.recorded || cs.task.id == "" {
		return false
	}
	cs.rec.Task = &results.Task{ID: cs.task.id, Status: cs.task.status, CreatedUs: cs.us(cs.responseAt), IntervalMs: cs.task.interval}
	cs.task.polled, cs.task.created = cs.responseAt, cs.responseAt
	cs.round++ // late messages of the tools/call only count their violations
	cs.final, cs.result, cs.responseAt, cs.endAt, cs.endErr = finalNone, client.Result{}, time.Time{}, time.Time{}, nil
	cs.thinking = make(chan struct{}) // a stop now abandons the request: no request is ours to cancel
	if cs.idle != nil {
		cs.idle.Stop() // a poll answered is the server's sign of life
	}
	return true
}

// followTask polls the task to a terminal status or until the call is
// stopped; then it sends tasks/cancel and watches for leftover work.
func (cs *callState) followTask(ctx context.Context, cl *client.Client) {
	l := cs.startListen(ctx, cl)
	defer l.stop()
	for {
		if !cs.taskWait(cs.pollWait()) {
			break
		}
		rctx, cancel := cs.requestCtx(ctx)
		reply := cl.GetTask(rctx, cs.task.id)
		cancel()
		if !cs.taskPolled(reply) {
			break
		}
		if cs.taskStatus() == client.TaskInputRequired && !cs.answerTask(ctx, cl) {
			break
		}
	}
	cs.mu.Lock()
	cs.thinking = nil
	cs.noteFastPoll()
	// A stop that came at any point (while waiting, or while a request
	// was out) leaves the task to cancel; a call that ended first cannot
	// be stopped any more.
	stopped := cs.stopOutcome != ""
	cs.mu.Unlock()
	if stopped {
		cs.cancelTask(ctx, cl)
	}
}

// noteFastPoll writes what a fast_poll fault met into its record: how
// many of the polls the server refused as too soon (cs.mu held).
func (cs *callState) noteFastPoll() {
	if cs.task.pollFactor <= 0 {
		return
	}
	f := &cs.rec.Faults[cs.task.fastPoll]
	tr := cs.rec.Task
	f.Skipped = false
	f.ScheduledUs, f.ActualUs = tr.CreatedUs, tr.CreatedUs
	f.Detail = fmt.Sprintf("polled at %.0f%% of pollIntervalMs (%dms): %d of %d polls refused as too soon",
		cs.task.pollFactor*100, tr.IntervalMs, tr.PollThrottled, tr.Polls)
}

// requestCtx bounds one tasks/* request by the idle timeout; the call's
// stop does not end it (a stop is settled between requests).
func (cs *callState) requestCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), cs.r.plan.Timeouts.Idle)
}

// pollWait is the wait before the next poll.
func (cs *callState) pollWait() time.Duration {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	d := defaultPollInterval
	if cs.task.interval >= 0 {
		d = time.Duration(cs.task.interval) * time.Millisecond
	}
	if f := cs.task.pollFactor; f > 0 {
		d = time.Duration(float64(d) * f)
	}
	return d
}

// taskWait waits d, or less when the call is stopped: then it reports
// false.
func (cs *callState) taskWait(d time.Duration) bool {
	cs.mu.Lock()
	ch := cs.thinking
	cs.mu.Unlock()
	if ch == nil {
		return false
	}
	var pushed chan struct{} // nil: no listen stream, never ready
	cs.mu.Lock()
	if l := cs.task.listen; l != nil {
		pushed = l.pushed
	}
	cs.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !cs.isStopped()
	case <-ch:
		return false
	case <-pushed:
		cs.takePushed() // a terminal status: the call ends with it
		return false
	}
}

func (cs *callState) isStopped() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.stopOutcome != ""
}

func (cs *callState) taskStatus() string {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.task.status
}

// taskPolled takes a tasks/get answer; false when following is over: a
// terminal status (the call ends with the task's outcome), an error
// answer, or a stop that came meanwhile.
func (cs *callState) taskPolled(reply client.TaskReply) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	tr := cs.rec.Task
	tr.Polls++
	// A poll in flight when the call was stopped still counts, and still
	// sets when the watch after tasks/cancel may poll next.
	throttled := reply.Throttled()
	if throttled {
		tr.PollThrottled++
	} else if reply.Err() == nil {
		cs.task.polled = time.Now()
	}
	if cs.stopOutcome != "" {
		return false
	}
	if throttled {
		return true
	}
	if err := reply.Err(); err != nil {
		cs.endTaskError(reply, "tasks/get: "+err.Error())
		return false
	}
	task, err := client.ParseTask(reply.Raw)
	if err != nil || task.Status == "" {
		cs.rec.Violations.Add(violBadTask, 1)
		cs.inputBroken = true
		cs.endTaskError(reply, "tasks/get: not a task: "+truncate(string(reply.Raw), 200))
		return false
	}
	if task.PollIntervalMs != nil && *task.PollIntervalMs >= 0 {
		cs.task.interval, tr.IntervalMs = *task.PollIntervalMs, *task.PollIntervalMs
	}
	cs.task.status, tr.Status = task.Status, task.Status
	if !client.TaskTerminal(task.Status) {
		cs.taskInput = task.InputRequests
		return true
	}
	tr.EndUs = cs.us(reply.At)
	cs.endTask(task, reply.At)
	return false
}

// Violations of the tasks extension's rules.
const (
	violBadTask = "bad_task" // a tasks/get answer that is no task
)

// endTaskError ends the call with a tasks/* request's failure (cs.mu
// held).
func (cs *callState) endTaskError(reply client.TaskReply, message string) {
	cs.responseAt, cs.endAt = reply.At, reply.At
	if cs.responseAt.IsZero() {
		cs.responseAt, cs.endAt = time.Now(), time.Now()
	}
	cs.status = reply.Status
	cs.message = truncate(message, 300)
	switch {
	case cs.inputBroken:
		cs.final = finalResult
		cs.result = client.Result{Type: client.ResultComplete, IsError: true}
	case reply.RPCErr != nil:
		cs.final, cs.code, cs.hasCode = finalError, reply.RPCErr.Code, true
	default:
		cs.endErr = reply.Err()
	}
}

// endTask ends the call with a terminal task's outcome (cs.mu held).
func (cs *callState) endTask(task client.Task, at time.Time) {
	cs.responseAt, cs.endAt = at, at
	switch task.Status {
	case client.TaskCompleted:
		var r struct {
			IsError bool `json:"isError"`
			Content []struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		_ = json.Unmarshal(task.Result, &r)
		cs.final, cs.result = finalResult, client.Result{Type: client.ResultComplete, IsError: r.IsError, HasContent: len(r.Content) > 0}
		if r.IsError && len(r.Content) > 0 {
			cs.message = truncate(r.Content[0].Text, 300)
		}
	case client.TaskFailed:
		var e rpcmsg.Error
		_ = json.Unmarshal(task.Error, &e)
		cs.final, cs.code, cs.hasCode = finalError, e.Code, true
		cs.message = truncate("task failed: "+e.Message, 300)
	default: // cancelled, and not by us
		cs.final, cs.result = finalResult, client.Result{Type: client.ResultComplete, IsError: true}
		cs.message = truncate("the server cancelled the task: "+task.StatusMessage, 300)
	}
}
