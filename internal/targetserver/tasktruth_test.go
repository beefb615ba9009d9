package targetserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tasksMeta is the _meta of a 2026 request that declares the tasks
// extension.
func tasksMeta() mcp.Meta {
	return mcp.Meta{
		vocab.MetaProtocolVersion:    vocab.FirstModern,
		vocab.MetaClientCapabilities: map[string]any{"extensions": map[string]any{TasksExtension: map[string]any{}}},
	}
}

// makeTask hands s a marked slow_task call with request id 7, as the SDK
// would (tagged by log_calls), and returns the task it made.
func makeTask(t *testing.T, s *Server, steps, stepMs int) string {
	t.Helper()
	meta := tasksMeta()
	meta[results.MarkerMeta], meta[requestIDMeta] = "r.1.0", 7
	args, _ := json.Marshal(stepArgs{Steps: steps, StepMs: stepMs})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolSlowTask, Arguments: args, Meta: meta}}
	next := func(context.Context, string, mcp.Request) (mcp.Result, error) {
		t.Fatal("the call was not served as a task")
		return nil, nil
	}
	res, err := s.taskMiddleware(next)(t.Context(), vocab.MethodToolsCall, req)
	v, _ := res.(*taskView)
	if err != nil || v == nil || v.ResultType != "task" {
		t.Fatalf("tools/call = %v, %v; want a task", res, err)
	}
	return v.TaskID
}

// taskOp is a tasks/* request the client sends at a moment of a task's
// life.
type taskOp struct {
	at     time.Duration // after the task's creation
	method string        // tasks/cancel or tasks/update
	accept bool          // tasks/update: accept the confirmation
}

// TestTaskCallRecords: the tools/call that made a task has a truth record
// and a log_calls line as an ordinary call has, ended when the task's
// work ends, with tasks/cancel as its cancel. The clock is synctest's, so
// every time is exact.
func TestTaskCallRecords(t *testing.T) {
	const ms = time.Millisecond
	for _, tc := range []struct {
		name          string
		cfg           Config // on top of taskServeBase
		steps, stepMs int
		ops           []taskOp
		// Times after the creation (-1: none) and the log's line.
		cancelled, completed, ended time.Duration
		line                        string
	}{
		{name: "completed", steps: 3, stepMs: 100,
			cancelled: -1, completed: 300 * ms, ended: 300 * ms, line: "call 7 done\n"},
		{name: "cancelled", steps: 10, stepMs: 100, ops: []taskOp{{at: 250 * ms, method: methodTasksCancel}},
			cancelled: 250 * ms, completed: -1, ended: 250 * ms, line: "call 7 cancelled\n"},
		{name: "cancel ignored", cfg: Config{TaskIgnoreCancel: true}, steps: 10, stepMs: 100,
			ops:       []taskOp{{at: 250 * ms, method: methodTasksCancel}, {at: 600 * ms, method: methodTasksCancel}},
			cancelled: 250 * ms, completed: time.Second, ended: time.Second, line: "call 7 done\n"},
		{name: "cancelled waiting for input", cfg: Config{TaskInput: true}, steps: 2, stepMs: 100,
			ops:       []taskOp{{at: 500 * ms, method: methodTasksCancel}},
			cancelled: 500 * ms, completed: -1, ended: 500 * ms, line: "call 7 cancelled\n"},
		{name: "input declined", cfg: Config{TaskInput: true}, steps: 2, stepMs: 100,
			ops:       []taskOp{{at: 500 * ms, method: methodTasksUpdate}},
			cancelled: -1, completed: 500 * ms, ended: 500 * ms, line: "call 7 done\n"},
		{name: "input accepted after an ignored cancel", cfg: Config{TaskInput: true, TaskIgnoreCancel: true}, steps: 2, stepMs: 100,
			ops:       []taskOp{{at: 200 * ms, method: methodTasksCancel}, {at: 500 * ms, method: methodTasksUpdate, accept: true}},
			cancelled: 200 * ms, completed: 600 * ms, ended: 600 * ms, line: "call 7 done\n"},
		// Its ttl fails the task at 1 s, in its fourth step: the work
		// stops when that step ends.
		{name: "expired", cfg: Config{TaskTTL: time.Second}, steps: 10, stepMs: 300,
			cancelled: -1, completed: -1, ended: 1200 * ms, line: "call 7 cancelled\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				cfg := taskServeBase
				cfg.TaskIgnoreCancel, cfg.TaskInput, cfg.TaskTTL = tc.cfg.TaskIgnoreCancel, tc.cfg.TaskInput, tc.cfg.TaskTTL
				s := newServer(t, cfg)
				var log bytes.Buffer
				s.calls = &callLog{w: &log}
				start := time.Now()
				id := makeTask(t, s, tc.steps, tc.stepMs)
				for _, op := range tc.ops {
					time.Sleep(time.Until(start.Add(op.at)))
					runTaskOp(t, s, id, op)
				}
				time.Sleep(time.Until(start.Add(2 * time.Second)))
				synctest.Wait()
				p := s.truth.page(time.Time{}, 10)
				if len(p.Calls) != 1 {
					t.Fatalf("records %+v, want the task's call", p.Calls)
				}
				c := p.Calls[0]
				if c.Marker != "r.1.0" || c.RequestID != "7" || c.Tool != ToolSlowTask || c.Era != vocab.FirstModern || !c.Started.Equal(start) {
					t.Errorf("record %+v: want r.1.0, request id 7, slow_task, era %s, started at the creation", c, vocab.FirstModern)
				}
				for _, f := range []struct {
					name string
					got  time.Time
					want time.Duration
				}{{"cancelled", c.Cancelled, tc.cancelled}, {"completed", c.Completed, tc.completed}, {"ended", c.Ended, tc.ended}} {
					switch {
					case f.want < 0 && !f.got.IsZero():
						t.Errorf("%s at %v, want none", f.name, f.got.Sub(start))
					case f.want >= 0 && (f.got.IsZero() || f.got.Sub(start) != f.want):
						t.Errorf("%s at %v (zero: %v), want %v", f.name, f.got.Sub(start), f.got.IsZero(), f.want)
					}
				}
				if log.String() != tc.line {
					t.Errorf("call log %q, want %q", log.String(), tc.line)
				}
				s.Close()
			})
		})
	}
}

// runTaskOp sends op (a tasks/cancel, or a tasks/update accepting or
// declining the confirmation) for the task id.
func runTaskOp(t *testing.T, s *Server, id string, op taskOp) {
	t.Helper()
	p := &taskParams{ParamsBase: mcp.ParamsBase{Meta: tasksMeta()}, TaskID: id}
	var err error
	if op.method == methodTasksCancel {
		_, err = s.tasksCancel(t.Context(), nil, p)
	} else {
		p.InputResponses = map[string]json.RawMessage{"confirm-1": jsonOf(map[string]any{
			"action": map[bool]string{false: "decline", true: "accept"}[op.accept], "content": map[string]any{"confirm": true}})}
		_, err = s.tasksUpdate(t.Context(), nil, p)
	}
	if err != nil {
		t.Fatalf("%s at %v: %v", op.method, op.at, err)
	}
}

// TestTaskCallRecordsHTTP: over HTTP, a marked task call's record and
// its log_calls line carry the request id the client sent (the tag
// log_calls puts on every tools/call), and /calls serves the record with
// its end; a task cancelled with tasks/cancel logs "cancelled" and its
// record says when the cancel came.
func TestTaskCallRecordsHTTP(t *testing.T) {
	for _, cancel := range []bool{false, true} {
		t.Run(map[bool]string{false: "completed", true: "cancelled"}[cancel], func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "calls.log")
			cfg := taskServeBase
			cfg.LogCalls = file
			r := startHTTP(t, cfg)
			steps := map[bool]int{false: 2, true: 1000}[cancel] // a cancelled one would run for 100 s
			res := result(t, taskRPC(t, r, "tools/call", ToolSlowTask, map[string]any{"name": ToolSlowTask,
				"arguments": map[string]any{"steps": steps, "step_ms": 100}, "_meta": map[string]any{results.MarkerMeta: "r.9.0"}}, true))
			id, _ := res["taskId"].(string)
			if res["resultType"] != "task" || id == "" {
				t.Fatalf("CreateTaskResult = %v", res)
			}
			if cancel {
				result(t, taskRPC(t, r, methodTasksCancel, id, map[string]any{"taskId": id}, true))
			}
			base := "http://" + r.Addr
			testutil.Eventually(t, "the task's record to end", func() bool {
				c := byMarker(readCalls(t, base, ""), "r.9.0")
				return len(c) == 1 && !c[0].Ended.IsZero()
			})
			c := byMarker(readCalls(t, base, ""), "r.9.0")[0]
			if c.RequestID != "1" || c.Transport != "http" || c.Era != vocab.FirstModern || c.Tool != ToolSlowTask {
				t.Errorf("record %+v: want request id 1 (taskRPC's), http, era %s, slow_task", c, vocab.FirstModern)
			}
			if cancel && (c.Cancelled.IsZero() || !c.Completed.IsZero() || c.Ended.Before(c.Cancelled)) ||
				!cancel && (!c.Cancelled.IsZero() || !c.Completed.Equal(c.Ended)) {
				t.Errorf("record %+v: want cancelled %v, completed %v", c, cancel, !cancel)
			}
			want := map[bool]string{false: "call 1 done\n", true: "call 1 cancelled\n"}[cancel]
			if b, err := os.ReadFile(file); err != nil || string(b) != want {
				t.Errorf("call log %q, %v; want %q", b, err, want)
			}
		})
	}
}
