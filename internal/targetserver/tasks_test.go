package targetserver

import (
	"context"
	"encoding/json"
	"maps"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// taskRPC sends one 2026 request over HTTP, declaring the tasks extension
// when declare is set, and returns its answer (result or error). Keys of
// params["_meta"] are kept.
func taskRPC(t *testing.T, r *Running, method, name string, params map[string]any, declare bool) map[string]any {
	t.Helper()
	caps := map[string]any{}
	if declare {
		caps["extensions"] = map[string]any{TasksExtension: map[string]any{}}
	}
	meta := map[string]any{
		vocab.MetaProtocolVersion:    vocab.FirstModern,
		vocab.MetaClientCapabilities: caps,
		vocab.MetaClientInfo:         map[string]any{"name": "raw", "version": "0"},
	}
	if m, ok := params["_meta"].(map[string]any); ok {
		maps.Copy(meta, m) // the caller's own keys, such as a marker
	}
	params["_meta"] = meta
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp := post(t, ctx, "POST", r.URL, modernHeaders(method, name), string(body))
	defer resp.Body.Close()
	msgs := rpcMessages(t, resp)
	if len(msgs) == 0 {
		t.Fatalf("%s: no answer (HTTP %d)", method, resp.StatusCode)
	}
	return msgs[len(msgs)-1]
}

func result(t *testing.T, m map[string]any) map[string]any {
	t.Helper()
	res, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("want a result, got %v", m)
	}
	return res
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

// createTask calls slow_task declaring the extension and returns the task.
func createTask(t *testing.T, r *Running, steps, stepMs int) map[string]any {
	t.Helper()
	res := result(t, taskRPC(t, r, "tools/call", ToolSlowTask,
		map[string]any{"name": ToolSlowTask, "arguments": map[string]any{"steps": steps, "step_ms": stepMs}}, true))
	if res["resultType"] != "task" || res["status"] != taskWorking || res["taskId"] == "" {
		t.Fatalf("CreateTaskResult = %v, want resultType task, status working, a taskId", res)
	}
	return res
}

// pollUntil polls tasks/get at the task's interval until its status is
// terminal (or want), bounded.
func pollUntil(t *testing.T, r *Running, id string, want string) map[string]any {
	t.Helper()
	for range 600 {
		time.Sleep(60 * time.Millisecond) // above the tests' 50ms interval
		res := result(t, taskRPC(t, r, methodTasksGet, id, map[string]any{"taskId": id}, true))
		if res["resultType"] != "complete" {
			t.Fatalf("tasks/get resultType = %v, want complete", res["resultType"])
		}
		if s, _ := res["status"].(string); s == want || terminal(s) {
			return res
		}
	}
	t.Fatalf("task %s never reached %s", id, want)
	return nil
}

// taskServeBase is the configuration TestTasksServe's subtests start from:
// the 2026 era with the tasks extension, polled every 50ms.
var taskServeBase = Config{Era: Era2026, Tasks: true, TaskPollInterval: 50 * time.Millisecond}

// TestTasksServe runs one task through each of the extension's paths, one
// subtest each.
func TestTasksServe(t *testing.T) {
	t.Run("completed", testTaskCompleted)
	t.Run("not_declared", testTaskNotDeclared)
	t.Run("poll_limit", testTaskPollLimit)
	for _, ignore := range []bool{false, true} {
		name := map[bool]string{false: "cancel", true: "cancel_ignored"}[ignore]
		t.Run(name, func(t *testing.T) { testTaskCancel(t, ignore) })
	}
	for _, action := range []string{"accept", "decline"} {
		t.Run("input_"+action, func(t *testing.T) { testTaskInput(t, action) })
	}
	t.Run("ttl", testTaskTTL)
}

// testTaskCompleted runs a task to completion and checks its result, the
// ledger and the stats.
func testTaskCompleted(t *testing.T) {
	r := startHTTP(t, taskServeBase)
	task := createTask(t, r, 3, 20)
	if task["pollIntervalMs"] != float64(50) || task["ttlMs"] != float64(60000) {
		t.Errorf("pollIntervalMs, ttlMs = %v, %v; want 50, 60000", task["pollIntervalMs"], task["ttlMs"])
	}
	id := task["taskId"].(string)
	res := pollUntil(t, r, id, taskCompleted)
	inner, _ := res["result"].(map[string]any)
	if res["status"] != taskCompleted || inner["isError"] != false {
		t.Fatalf("final task = %v, want completed with a result", res)
	}
	led := r.Server.TaskLedger()
	if len(led) != 1 || led[0].Status != taskCompleted || led[0].Polls == 0 || led[0].Early != 0 {
		t.Errorf("ledger = %+v; want one completed task, polled, never early", led)
	}
	st := r.Server.Stats()
	if st.TasksCreated != 1 || st.TasksCompleted != 1 || st.TaskPolls != int64(led[0].Polls) {
		t.Errorf("stats = %+v", st)
	}
}

// testTaskNotDeclared checks the answers to requests that do not declare the
// extension or name an unknown task, and to the removed methods.
func testTaskNotDeclared(t *testing.T) {
	r := startHTTP(t, taskServeBase)
	res := result(t, taskRPC(t, r, "tools/call", ToolSlowTask,
		map[string]any{"name": ToolSlowTask, "arguments": map[string]any{"steps": 1, "step_ms": 1}}, false))
	if res["resultType"] == "task" {
		t.Errorf("a task for a request that did not declare the extension: %v", res)
	}
	task := createTask(t, r, 1, 1)
	if c := errCode(taskRPC(t, r, methodTasksGet, task["taskId"].(string), map[string]any{"taskId": task["taskId"]}, false)); c != codeMissingCapability {
		t.Errorf("tasks/get without the extension: code %v, want -32021", c)
	}
	if c := errCode(taskRPC(t, r, methodTasksGet, "nope", map[string]any{"taskId": "nope"}, true)); c != -32602 {
		t.Errorf("tasks/get of an unknown task: code %v, want -32602", c)
	}
	if c := errCode(taskRPC(t, r, methodTasksGet, "other", map[string]any{"taskId": task["taskId"]}, true)); c != codeHeaderMismatch {
		t.Errorf("tasks/get whose Mcp-Name is not the task id: code %v, want -32020", c)
	}
	// The extension removed tasks/result and tasks/list: method not
	// found, whatever their Mcp-Name (the conformance suite's check).
	for _, m := range []string{"tasks/result", "tasks/list"} {
		if c := errCode(taskRPC(t, r, m, "other", map[string]any{"taskId": task["taskId"]}, true)); c != -32601 {
			t.Errorf("%s: code %v, want -32601", m, c)
		}
	}
}

// testTaskPollLimit checks that a poll before the task's interval is throttled.
func testTaskPollLimit(t *testing.T) {
	cfg := taskServeBase
	cfg.TaskPollLimit = true
	cfg.TaskPollInterval = time.Hour
	r := startHTTP(t, cfg)
	id := createTask(t, r, 1, 1)["taskId"].(string)
	if c := errCode(taskRPC(t, r, methodTasksGet, id, map[string]any{"taskId": id}, true)); c != DefaultRateLimitCode {
		t.Errorf("a poll at once: code %v, want %d", c, DefaultRateLimitCode)
	}
	if st := r.Server.Stats(); st.TaskPollsThrottled != 1 || st.TaskPollsEarly != 1 || st.TaskPolls != 0 {
		t.Errorf("stats = %+v, want 1 throttled, 1 early, 0 answered", st)
	}
}

// testTaskCancel cancels a running task, on a server that honours the cancel
// or (ignore) one that ignores it.
func testTaskCancel(t *testing.T, ignore bool) {
	cfg := taskServeBase
	cfg.TaskIgnoreCancel = ignore
	r := startHTTP(t, cfg)
	id := createTask(t, r, 10, 100)["taskId"].(string) // a second of work: the cancel comes within it
	ack := result(t, taskRPC(t, r, methodTasksCancel, id, map[string]any{"taskId": id}, true))
	if ack["resultType"] != "complete" || len(ack) > 2 {
		t.Errorf("tasks/cancel ack = %v, want an empty result", ack)
	}
	res := pollUntil(t, r, id, "")
	led := r.Server.TaskLedger()[0]
	want := map[bool]string{false: taskCancelled, true: taskCompleted}[ignore]
	if res["status"] != want || led.CancelAt.IsZero() || (led.StepsAfterCancel > 0) != ignore {
		t.Errorf("status %v, ledger %+v; want %s, steps after cancel only when ignored", res["status"], led, want)
	}
}

// testTaskInput answers a task's input request with action.
func testTaskInput(t *testing.T, action string) {
	cfg := taskServeBase
	cfg.TaskInput = true
	r := startHTTP(t, cfg)
	id := createTask(t, r, 2, 10)["taskId"].(string)
	res := pollUntil(t, r, id, taskInputRequired)
	reqs, _ := res["inputRequests"].(map[string]any)
	if res["status"] != taskInputRequired || reqs["confirm-1"] == nil {
		t.Fatalf("task = %v, want input_required with inputRequests.confirm-1", res)
	}
	answer := map[string]any{"action": action, "content": map[string]any{"confirm": true}}
	taskRPC(t, r, methodTasksUpdate, id, map[string]any{"taskId": id, "inputResponses": map[string]any{"confirm-1": answer}}, true)
	res = pollUntil(t, r, id, "")
	inner, _ := res["result"].(map[string]any)
	if res["status"] != taskCompleted || inner["isError"] != (action != "accept") {
		t.Errorf("final task = %v; want completed, isError %v", res, action != "accept")
	}
}

// testTaskTTL checks that a task past its ttl fails, then is deleted.
func testTaskTTL(t *testing.T) {
	cfg := taskServeBase
	cfg.TaskTTL = time.Second // failed at 1 s, deleted at 2 s: time to see it failed on a busy machine
	r := startHTTP(t, cfg)
	id := createTask(t, r, 1, 60_000)["taskId"].(string)
	res := pollUntil(t, r, id, "")
	if res["status"] != taskFailed || res["error"] == nil {
		t.Fatalf("task past its ttl = %v, want failed with an error", res)
	}
	deadline := time.Now().Add(20 * time.Second)
	for errCode(taskRPC(t, r, methodTasksGet, id, map[string]any{"taskId": id}, true)) != -32602 {
		if time.Now().After(deadline) {
			t.Fatal("the expired task was never deleted")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
