package targetserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"

	"github.com/mcpchaos/mcpchaos/results"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TasksExtension is the tasks extension's identifier.
const TasksExtension = vocab.ExtTasks

// Methods of the tasks extension.
const (
	methodTasksGet    = vocab.MethodTasksGet
	methodTasksUpdate = vocab.MethodTasksUpdate
	methodTasksCancel = vocab.MethodTasksCancel
)

// taskView is a task on the wire: a CreateTaskResult (resultType "task")
// or a tasks/get answer (resultType "complete", with the status's payload).
type taskView struct {
	mcp.ResultBase
	ResultType     string                     `json:"resultType"`
	TaskID         string                     `json:"taskId"`
	Status         string                     `json:"status"`
	StatusMessage  string                     `json:"statusMessage,omitempty"`
	CreatedAt      string                     `json:"createdAt"`
	LastUpdatedAt  string                     `json:"lastUpdatedAt"`
	TTLMs          *int64                     `json:"ttlMs"`
	PollIntervalMs int64                      `json:"pollIntervalMs"`
	Result         json.RawMessage            `json:"result,omitempty"`
	Error          json.RawMessage            `json:"error,omitempty"`
	InputRequests  map[string]json.RawMessage `json:"inputRequests,omitempty"`
}

// ackResult is the empty acknowledgement of tasks/update and tasks/cancel.
type ackResult struct {
	mcp.ResultBase
	ResultType string `json:"resultType"`
}

// taskParams are the params of tasks/get, tasks/update and tasks/cancel.
type taskParams struct {
	mcp.ParamsBase
	TaskID         string                     `json:"taskId"`
	InputResponses map[string]json.RawMessage `json:"inputResponses,omitempty"`
}

// view renders t (t.mu held).
func (t *task) view(resultType string) *taskView {
	ttl := t.ttl.Milliseconds()
	v := &taskView{ResultType: resultType, TaskID: t.id, Status: t.truth.Status, StatusMessage: t.message,
		CreatedAt: t.truth.Created.UTC().Format(time.RFC3339Nano), LastUpdatedAt: t.updated.UTC().Format(time.RFC3339Nano),
		TTLMs: &ttl, PollIntervalMs: t.interval.Milliseconds()}
	switch t.truth.Status {
	case taskCompleted:
		v.Result = t.result
	case taskFailed:
		v.Error = t.errObj
	case taskInputRequired:
		v.InputRequests = map[string]json.RawMessage{t.askKey: confirmRequest}
	}
	return v
}

// confirmRequest is the elicitation a task_input task asks.
var confirmRequest = jsonOf(map[string]any{"method": vocab.MethodElicit, "params": map[string]any{
	"mode": "form", "message": "Go on with the task?", "requestedSchema": confirmSchema()}})

func jsonOf(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// addTasks registers the extension's methods and the middleware that turns
// a declaring slow_task call into a task, and advertises the extension.
func (s *Server) addTasks(srv *mcp.Server) {
	srv.AddReceivingMiddleware(s.taskMiddleware)
	must := func(err error) {
		if err != nil {
			panic(err) // the method names are constants that shadow nothing
		}
	}
	must(mcp.AddReceivingCustomMethod(srv, methodTasksGet, s.tasksGet))
	must(mcp.AddReceivingCustomMethod(srv, methodTasksUpdate, s.tasksUpdate))
	must(mcp.AddReceivingCustomMethod(srv, methodTasksCancel, s.tasksCancel))
}

// declaresTasks reports whether a request's _meta declares the extension
// in its clientCapabilities (a 2026 request; 2025 ones never do).
func declaresTasks(meta map[string]any) bool {
	caps, _ := meta[vocab.MetaClientCapabilities].(map[string]any)
	ext, _ := caps["extensions"].(map[string]any)
	_, ok := ext[TasksExtension]
	return ok
}

// modernMeta reports whether a request's _meta names protocol 2026-07-28
// or later.
func modernMeta(meta map[string]any) bool {
	v, _ := meta[vocab.MetaProtocolVersion].(string)
	return vocab.IsModern(v)
}

// taskMiddleware answers a slow_task call that declares the extension with
// a new task; every other request goes on to the SDK.
func (s *Server) taskMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != vocab.MethodToolsCall {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || p == nil || p.Name != ToolSlowTask || !declaresTasks(p.Meta) && !(s.cfg.TaskUndeclared && modernMeta(p.Meta)) {
			return next(ctx, method, req)
		}
		a := stepArgs{Steps: DefaultSteps, StepMs: DefaultStepMs}
		if len(p.Arguments) > 0 && json.Unmarshal(p.Arguments, &a) != nil || a.validate(false) != nil {
			return next(ctx, method, req) // the SDK's tool error says what is wrong
		}
		marker, _ := p.Meta[results.MarkerMeta].(string)
		t := s.tasks.add(s.taskInterval(), s.taskTTL(), marker)
		if t == nil {
			return next(ctx, method, req)
		}
		s.metrics.tasksCreated.Add(1)
		call := s.beginTaskCall(req)
		t.mu.Lock()
		t.call = call
		t.expiry = time.AfterFunc(t.ttl, func() { s.expireTask(t) })
		v := t.view("task")
		t.mu.Unlock()
		go s.runTask(t, a)
		return v, nil
	}
}

func (s *Server) taskInterval() time.Duration {
	if s.cfg.TaskPollInterval > 0 {
		return s.cfg.TaskPollInterval
	}
	return DefaultTaskPollInterval
}

func (s *Server) taskTTL() time.Duration {
	if s.cfg.TaskTTL > 0 {
		return s.cfg.TaskTTL
	}
	return DefaultTaskTTL
}

// lookupTask checks the extension is declared and finds the task.
func (s *Server) lookupTask(p *taskParams) (*task, error) {
	if p == nil || !declaresTasks(p.Meta) {
		data, _ := json.Marshal(map[string]any{"requiredCapabilities": map[string]any{
			"extensions": map[string]any{TasksExtension: map[string]any{}}}})
		return nil, &jsonrpc.Error{Code: codeMissingCapability, Message: "tasks/* needs the " + TasksExtension + " extension declared", Data: data}
	}
	t := s.tasks.get(p.TaskID)
	if t == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "task not found (unknown or expired): " + strconv.Quote(p.TaskID)}
	}
	return t, nil
}

func (s *Server) tasksGet(_ context.Context, _ *mcp.ServerSession, p *taskParams) (*taskView, error) {
	t, err := s.lookupTask(p)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	early, refused, wait := t.poll(time.Now(), s.cfg.TaskPollLimit)
	if early {
		s.metrics.taskPollsEarly.Add(1)
	}
	if refused {
		s.metrics.taskPollsThrottled.Add(1)
		data, _ := json.Marshal(map[string]any{"retryAfterMs": wait.Milliseconds() + 1})
		return nil, &jsonrpc.Error{Code: int64(s.cfg.RateLimitCodeOrDefault()), Data: data,
			Message: fmt.Sprintf("polled too soon: poll this task at most every %dms (pollIntervalMs)", t.interval.Milliseconds())}
	}
	s.metrics.taskPolls.Add(1)
	return t.view("complete"), nil
}

func (s *Server) tasksUpdate(_ context.Context, _ *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	t, err := s.lookupTask(p)
	if err != nil {
		return nil, err
	}
	s.metrics.taskUpdates.Add(1)
	t.mu.Lock()
	defer t.mu.Unlock()
	raw, ok := p.InputResponses[t.askKey]
	if t.askKey == "" || !ok {
		return &ackResult{ResultType: "complete"}, nil // not outstanding: ignored, as the spec says
	}
	var r struct {
		Action  string         `json:"action"`
		Content map[string]any `json:"content"`
	}
	confirmed := json.Unmarshal(raw, &r) == nil && r.Action == "accept" && r.Content["confirm"] == true
	t.askKey = ""
	t.truth.Answered++
	t.answer <- confirmed // room for one: one question is outstanding at a time
	return &ackResult{ResultType: "complete"}, nil
}

func (s *Server) tasksCancel(_ context.Context, _ *mcp.ServerSession, p *taskParams) (*ackResult, error) {
	t, err := s.lookupTask(p)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.truth.CancelAt.IsZero() {
		s.metrics.taskCancels.Add(1)
		t.truth.CancelAt = time.Now()
		close(t.stop)
		t.call.cancelled()
	}
	return &ackResult{ResultType: "complete"}, nil
}

// taskNameHTTP refuses a 2026 tasks/* POST whose Mcp-Name header is not
// its params.taskId, as the extension requires of clients (the header
// routes the request to the instance that holds the task): HTTP 400 with
// -32020 (header mismatch), as the SDK answers a tools/call whose Mcp-Name
// is not its tool. Only the extension's own methods are checked: any other
// tasks/* (the removed tasks/result and tasks/list) goes on to the SDK,
// which answers -32601 as the extension asks.
func (s *Server) taskNameHTTP(next http.Handler) http.Handler {
	if !s.cfg.Tasks {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		method := r.Header.Get(vocab.HeaderMethod)
		if r.Method != http.MethodPost || !isModern(r) || !taskMethod(method) || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Params struct {
				TaskID *string `json:"taskId"`
			} `json:"params"`
		}
		if err != nil || json.Unmarshal(head, &msg) != nil || msg.Params.TaskID == nil || *msg.Params.TaskID == r.Header.Get(vocab.HeaderName) {
			next.ServeHTTP(w, r)
			return
		}
		if len(msg.ID) == 0 {
			msg.ID = json.RawMessage("null")
		}
		body := rpcmsg.AppendError(nil, msg.ID, codeHeaderMismatch,
			fmt.Sprintf("header mismatch: Mcp-Name %q is not the task id %q", r.Header.Get(vocab.HeaderName), *msg.Params.TaskID), nil)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write(body)
	})
}

// taskMethod reports whether method is one the tasks extension defines.
func taskMethod(method string) bool {
	return method == vocab.MethodTasksGet || method == vocab.MethodTasksUpdate || method == vocab.MethodTasksCancel
}

// codeHeaderMismatch is HeaderMismatchError.
const codeHeaderMismatch = rpcmsg.CodeHeaderMismatch
