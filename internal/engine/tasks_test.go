package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/scenarios"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
)

// taskCall is a slow_task call that declares the tasks extension.
func taskCall(steps, stepMs int) CallSpec {
	c := slowTask(steps, stepMs)
	c.Progress, c.Task = false, true
	return c
}

// scenarioFault decodes one fault written as YAML.
func scenarioFault(t *testing.T, fault string) faults.Fault {
	t.Helper()
	sc, err := scenarios.Parse("f.yaml", []byte("target: {builtin: {}}\nload: {rate: 1/1s, duration: 1s}\ncalls: [{tool: slow_task}]\n"+
		"faults: ["+fault+"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	fs, err := Faults(sc)
	if err != nil {
		t.Fatal(err)
	}
	return fs[0]
}

// TestTasksFollowed: against the built-in target serving tasks, with its
// poll limit on, every task created ends completed, each call is ok with
// the task's latency, and the target's ledger saw no poll sooner than
// pollIntervalMs; the client's counts match the ledger's.
func TestTasksFollowed(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollLimit: true, TaskPollInterval: 50 * time.Millisecond})
	p := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: time.Second, GracefulStop: 10 * time.Second}, taskCall(4, 50))
	o := runLoad(t, context.Background(), p)
	polls := 0
	for _, r := range o.recs {
		if r.Outcome != results.OK || r.Task == nil || r.Task.Status != client.TaskCompleted || r.Task.Polls == 0 || r.Task.PollThrottled != 0 {
			t.Errorf("seq %d: outcome %s, task %+v; want ok, completed, polled, none throttled", r.Seq, r.Outcome, r.Task)
			continue
		}
		// The work began before the creation's answer was read: a margin.
		if lat := r.Task.EndUs - r.Task.CreatedUs; lat < 150_000 {
			t.Errorf("seq %d: task latency %dus, want about its 4 × 50 ms of work or more", r.Seq, lat)
		}
		polls += r.Task.Polls
	}
	st := tg.Server.Stats()
	if len(o.recs) == 0 || st.TasksCreated != int64(len(o.recs)) || st.TasksCompleted != st.TasksCreated {
		t.Errorf("%d calls; the target created %d tasks and completed %d", len(o.recs), st.TasksCreated, st.TasksCompleted)
	}
	if st.TaskPollsEarly != 0 || st.TaskPollsThrottled != 0 || int64(polls) != st.TaskPolls {
		t.Errorf("target: %d polls, %d early, %d throttled; the client sent %d", st.TaskPolls, st.TaskPollsEarly, st.TaskPollsThrottled, polls)
	}
	for _, led := range tg.Server.TaskLedger() {
		if led.Status != "completed" || led.Early != 0 || led.MinGap < 50*time.Millisecond {
			t.Errorf("ledger %+v: want completed, no early poll, gaps of at least 50ms", led)
		}
	}
}

// TestTasksCancelFault: a cancel fault on a task call sends tasks/cancel
// (the target counts it), the call ends cancelled, and the task's fate
// after it is measured: cancelled (no leftover) or, when the target
// ignores the cancel, run on to completed (leftover, not a violation).
func TestTasksCancelFault(t *testing.T) {
	t.Parallel()
	for _, ignore := range []bool{false, true} {
		t.Run(map[bool]string{false: "honoured", true: "ignored"}[ignore], func(t *testing.T) {
			t.Parallel()
			tg := taskTarget(t, 50*time.Millisecond, ignore)
			p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: 600 * time.Millisecond, GracefulStop: 10 * time.Second}, taskCall(20, 100))
			p.Orphans = Orphans{Grace: 2 * time.Second}
			p.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, after: 250ms}")}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) == 0 {
				t.Fatal("no calls")
			}
			for _, r := range o.recs {
				tk := r.Task
				if r.Outcome != results.Cancelled || tk == nil || tk.CancelUs == 0 || tk.Leftover != ignore || len(r.Violations) != 0 {
					t.Errorf("seq %d: outcome %s, task %+v, violations %v; want cancelled, tasks/cancel sent, leftover %v",
						r.Seq, r.Outcome, tk, r.Violations, ignore)
				}
			}
			st := tg.Server.Stats()
			if st.TaskCancels != int64(len(o.recs)) || (st.TaskStepsAfterCancel > 0) != ignore {
				t.Errorf("target: %d tasks/cancel, %d steps after them; %d calls, ignore %v", st.TaskCancels, st.TaskStepsAfterCancel, len(o.recs), ignore)
			}
		})
	}
}

// TestTasksCancelPolls: after tasks/cancel the watch keeps the task's
// interval from the server's last answer (a poll-limited target refuses
// a poll sooner than that), and every refusal is counted: the client's
// count of refused polls is the target's. A new user saw the target refuse
// polls that the summary called "0 throttled". The grace (1 s) is not a
// multiple of the interval (300 ms), so the last look, at the grace's
// end, may come early and be refused, and is counted then.
func TestTasksCancelPolls(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollInterval: 300 * time.Millisecond,
		TaskPollLimit: true, TaskIgnoreCancel: true})
	p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: 600 * time.Millisecond, GracefulStop: 10 * time.Second}, taskCall(30, 100))
	p.Orphans = Orphans{Grace: time.Second}
	p.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, after: 450ms}")}
	o := runLoad(t, context.Background(), p)
	if len(o.recs) == 0 {
		t.Fatal("no calls")
	}
	refused, polls := 0, 0
	for _, r := range o.recs {
		if r.Task == nil || r.Task.CancelUs == 0 {
			b, _ := json.Marshal(r)
			t.Fatalf("record %s: want a task cancelled", b)
		}
		refused += r.Task.PollThrottled
		polls += r.Task.Polls
	}
	st := tg.Server.Stats()
	if st.TaskPollsThrottled != int64(refused) {
		t.Errorf("the target refused %d polls, the client counted %d", st.TaskPollsThrottled, refused)
	}
	// At most the last look of each watch comes early.
	if st.TaskPollsEarly > int64(len(o.recs)) {
		t.Errorf("%d early polls (of %d) for %d calls: want at most one a call, the last look", st.TaskPollsEarly, polls, len(o.recs))
	}
}

// TestTasksNoProgressStall: a task call that asks for progress (the
// scenario default) gets none while its task is polled, as the spec has
// it; that silence is not a progress stall (a new user got a stall warning
// for every task longer than progress.stall).
func TestTasksNoProgressStall(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollInterval: 50 * time.Millisecond})
	c := taskCall(10, 100) // a second of work, polled
	c.Progress = true
	p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: 400 * time.Millisecond, GracefulStop: 10 * time.Second}, c)
	p.Progress = ProgressRules{Stall: 300 * time.Millisecond}
	o := runLoad(t, context.Background(), p)
	if len(o.recs) == 0 {
		t.Fatal("no calls")
	}
	for _, r := range o.recs {
		if r.Outcome != results.OK || r.Task == nil || r.Progress == nil || r.Progress.Stalled {
			b, _ := json.Marshal(r)
			t.Errorf("record %s: want ok, a task, progress asked for and no stall", b)
		}
	}
}

// TestTasksInput: a task that asks for confirmation is answered with
// tasks/update from the client section and completes; without a client
// section the request is undeclared and the call a protocol error.
func TestTasksInput(t *testing.T) {
	t.Parallel()
	for _, withClient := range []bool{true, false} {
		t.Run(map[bool]string{true: "answered", false: "undeclared"}[withClient], func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskInput: true, TaskPollInterval: 30 * time.Millisecond})
			p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: 400 * time.Millisecond, GracefulStop: 10 * time.Second}, taskCall(3, 20))
			if withClient {
				p.Client = &scenarios.Client{MaxRounds: 3, Elicitation: &scenarios.Elicitation{Action: scenarios.ElicitAccept,
					Content: map[string]any{"confirm": true}}}
			}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) == 0 {
				t.Fatal("no calls")
			}
			for _, r := range o.recs {
				ok := r.Outcome == results.OK && r.Task.Updates == 1 && r.Inputs["elicitation"] == 1
				if !withClient {
					ok = r.Outcome == results.ProtocolError && r.Violations["undeclared_input"] == 1
				}
				if !ok {
					b, _ := json.Marshal(r)
					t.Errorf("record %s", b)
				}
			}
			if st := tg.Server.Stats(); withClient && (st.TaskUpdates != int64(len(o.recs)) || st.TasksCompleted != int64(len(o.recs))) {
				t.Errorf("target: %d updates, %d completed; %d calls", st.TaskUpdates, st.TasksCompleted, len(o.recs))
			}
		})
	}
}

// TestTasksInputAbandoned: a think time longer than the call's cap ends
// the call before its tasks/update: no answer is counted, and its think
// time is what it thought before the cap (and a wake-up's delay), not the
// hour it planned (a new
// user counted more elicitation answers than the server got).
func TestTasksInputAbandoned(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskInput: true, TaskPollInterval: 30 * time.Millisecond})
	p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: 400 * time.Millisecond, GracefulStop: 10 * time.Second}, taskCall(3, 20))
	p.Client = &scenarios.Client{MaxRounds: 3, Elicitation: &scenarios.Elicitation{Action: scenarios.ElicitAccept,
		Content: map[string]any{"confirm": true}, Think: scenarios.Dist{Value: time.Hour}}}
	p.Timeouts = Timeouts{Idle: 5 * time.Second, Max: time.Second}
	o := runLoad(t, context.Background(), p)
	if len(o.recs) == 0 {
		t.Fatal("no calls")
	}
	for _, r := range o.recs {
		if r.Task == nil || r.Task.Updates != 0 || len(r.Inputs) != 0 || r.ThinkUs <= 0 || r.ThinkUs > results.Us(p.Timeouts.Max+5*time.Second) {
			b, _ := json.Marshal(r)
			t.Errorf("record %s: want no update or answer counted, the time to the cap thought (not the hour)", b)
		}
	}
	if st := tg.Server.Stats(); st.TaskUpdates != 0 {
		t.Errorf("target: %d updates, want none", st.TaskUpdates)
	}
}

// TestTasksFastPoll: the fast_poll fault polls at 5% of the interval;
// the target's poll limit refuses the early polls (the interval, 2 s, is
// long beside any round trip, so some are early however busy the
// machine), the client
// counts them and still follows every task to its end, and the fault's
// record says how many were refused. Without the fault (TestTasksFollowed)
// none is.
func TestTasksFastPoll(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollLimit: true, TaskPollInterval: 2 * time.Second})
	p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: 600 * time.Millisecond, GracefulStop: 20 * time.Second}, taskCall(2, 50))
	p.Faults = []faults.Fault{scenarioFault(t, "{kind: fast_poll, percent: 5}")}
	o := runLoad(t, context.Background(), p)
	if len(o.recs) == 0 {
		t.Fatal("no calls")
	}
	throttled := 0
	for _, r := range o.recs {
		if r.Outcome != results.OK || r.Task == nil || r.Task.PollThrottled == 0 || len(r.Faults) != 1 || r.Faults[0].Skipped ||
			!strings.Contains(r.Faults[0].Detail, "refused as too soon") {
			b, _ := json.Marshal(r)
			t.Errorf("record %s: want ok, some polls throttled, the fault's detail", b)
			continue
		}
		throttled += r.Task.PollThrottled
	}
	if st := tg.Server.Stats(); st.TaskPollsThrottled != int64(throttled) || st.TasksCompleted != int64(len(o.recs)) {
		t.Errorf("target refused %d polls and completed %d tasks; the client counted %d refusals in %d calls",
			st.TaskPollsThrottled, st.TasksCompleted, throttled, len(o.recs))
	}
}

// TestTasksStdio: the same over stdio, against `mcpchaos serve --stdio`
// with tasks and its poll limit: every task completes and no poll was
// refused (the server judged every gap against pollIntervalMs); a cancel
// fault sends tasks/cancel and the task ends cancelled.
func TestTasksStdio(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	for _, cancel := range []bool{false, true} {
		t.Run(map[bool]string{false: "completed", true: "cancelled"}[cancel], func(t *testing.T) {
			t.Parallel()
			p := stdioPlan([]string{exe, "serve", "--stdio", "--tasks", "--task-poll-limit", "--task-poll-interval=50ms"}, 0)
			p.Calls = []CallSpec{taskCall(4, 50)}
			if cancel {
				p.Calls = []CallSpec{taskCall(20, 50)} // a second of work: the cancel comes within it
			}
			p.Load = Load{Rate: perSec(5), Duration: 600 * time.Millisecond, GracefulStop: 10 * time.Second}
			if cancel {
				p.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, after: 120ms}")}
				p.Orphans.Grace = time.Second
			}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) == 0 {
				t.Fatal("no calls")
			}
			for _, r := range o.recs {
				tk := r.Task
				ok := tk != nil && tk.PollThrottled == 0 && len(r.Violations) == 0
				if cancel {
					ok = ok && r.Outcome == results.Cancelled && tk.CancelUs > 0 && tk.Status == client.TaskCancelled && !tk.Leftover
				} else {
					ok = ok && r.Outcome == results.OK && tk.Status == client.TaskCompleted && tk.Polls > 0
				}
				if !ok {
					b, _ := json.Marshal(r)
					t.Errorf("record %s", b)
				}
			}
		})
	}
}

// TestTaskPolledJudges: how one tasks/get answer is taken, table-driven:
// an answer that is no task is a bad_task violation and a protocol error;
// an unknown task ends the call with the server's error; a refusal to
// poll so soon is counted and polling goes on; a terminal status ends the
// call with the task's outcome.
func TestTaskPolledJudges(t *testing.T) {
	tests := []struct {
		name      string
		reply     client.TaskReply
		goOn      bool
		violation string
		outcome   string
		throttled int
	}{
		{"no task", client.TaskReply{Raw: []byte(`{"resultType":"complete"}`)}, false, violBadTask, results.ProtocolError, 0},
		{"unknown task", client.TaskReply{RPCErr: &client.RPCError{Code: -32602, Message: "task not found"}}, false, "", results.RPCError, 0},
		{"too soon", client.TaskReply{RPCErr: &client.RPCError{Code: -31429, Message: "polled too soon"}}, true, "", "", 1},
		{"working", client.TaskReply{Raw: []byte(`{"taskId":"a","status":"working","pollIntervalMs":7}`)}, true, "", "", 0},
		{"completed", client.TaskReply{Raw: []byte(`{"taskId":"a","status":"completed","result":{"content":[],"isError":false}}`)}, false, "", results.OK, 0},
		{"tool error", client.TaskReply{Raw: []byte(`{"taskId":"a","status":"completed","result":{"content":[{"type":"text","text":"no"}],"isError":true}}`)}, false, "", results.ToolError, 0},
		{"failed", client.TaskReply{Raw: []byte(`{"taskId":"a","status":"failed","error":{"code":-32603,"message":"boom"}}`)}, false, "", results.RPCError, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.reply.At = time.Now()
			cs := &callState{r: &runner{}, rec: results.Record{Scheduled: time.Now(), Task: &results.Task{}}, task: taskNotes{id: "a", interval: -1}}
			if got := cs.taskPolled(tt.reply); got != tt.goOn {
				t.Fatalf("go on = %v, want %v", got, tt.goOn)
			}
			if tt.violation != "" && cs.rec.Violations[tt.violation] != 1 {
				t.Errorf("violations %v, want %s", cs.rec.Violations, tt.violation)
			}
			if cs.rec.Task.PollThrottled != tt.throttled || cs.rec.Task.Polls != 1 {
				t.Errorf("polls %d, throttled %d; want 1, %d", cs.rec.Task.Polls, cs.rec.Task.PollThrottled, tt.throttled)
			}
			if tt.outcome != "" {
				if v := cs.classify(); v.outcome != tt.outcome {
					t.Errorf("outcome %s, want %s", v.outcome, tt.outcome)
				}
			}
			if tt.name == "working" && cs.task.interval != 7 {
				t.Errorf("interval %d, want the answer's 7", cs.task.interval)
			}
		})
	}
}

// TestTaskUndeclared: a task answered to a call that did not declare the
// extension (the target's task_undeclared knob) is an unknown_result_type
// violation and a protocol error; the task is not followed.
func TestTaskUndeclared(t *testing.T) {
	t.Parallel()
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskUndeclared: true})
	call := taskCall(1, 1)
	call.Task = false
	p := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 300 * time.Millisecond, GracefulStop: testutil.WaitLong}, call)
	o := runLoad(t, context.Background(), p)
	if len(o.recs) == 0 {
		t.Fatal("no calls")
	}
	for _, r := range o.recs {
		if r.Outcome != results.ProtocolError || r.Violations["unknown_result_type"] != 1 || r.Task != nil {
			t.Errorf("seq %d: outcome %s, violations %v, task %+v; want protocol_error, unknown_result_type, not followed", r.Seq, r.Outcome, r.Violations, r.Task)
		}
	}
	if st := tg.Server.Stats(); st.TasksCreated != int64(len(o.recs)) || st.TaskPolls != 0 {
		t.Errorf("target: %d tasks created, %d polls; want one per call, none polled", st.TasksCreated, st.TaskPolls)
	}
}
