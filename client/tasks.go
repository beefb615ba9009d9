package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// The tasks extension (io.modelcontextprotocol/tasks, ext-tasks
// specification 2026-07-28). A tools/call that declares it (CallRequest.Task)
// may be answered with a task (resultType "task"); the engine then follows
// the task with the requests below, each a request of its own with the
// extension declared and, on HTTP, Mcp-Name set to the task's id.

// TasksExtension is the extension's identifier.
const TasksExtension = vocab.ExtTasks

// Methods of the tasks extension.
const (
	MethodTasksGet    = vocab.MethodTasksGet
	MethodTasksUpdate = vocab.MethodTasksUpdate
	MethodTasksCancel = vocab.MethodTasksCancel
)

// Task statuses.
const (
	TaskWorking       = "working"
	TaskInputRequired = "input_required"
	TaskCompleted     = "completed"
	TaskFailed        = "failed"
	TaskCancelled     = "cancelled"
)

// TaskTerminal reports whether a task status is terminal.
func TaskTerminal(status string) bool {
	return status == TaskCompleted || status == TaskFailed || status == TaskCancelled
}

// Task is a task as a CreateTaskResult or a tasks/get answer carries it.
type Task struct {
	ResultType     string          `json:"resultType"`
	ID             string          `json:"taskId"`
	Status         string          `json:"status"`
	StatusMessage  string          `json:"statusMessage"`
	TTLMs          *int64          `json:"ttlMs"`
	PollIntervalMs *int64          `json:"pollIntervalMs"`
	Result         json.RawMessage `json:"result"`
	Error          json.RawMessage `json:"error"`
	InputRequests  json.RawMessage `json:"inputRequests"`
}

// ParseTask reads a task from a result object.
func ParseTask(raw []byte) (Task, error) {
	var t Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return Task{}, fmt.Errorf("read task: %w", err)
	}
	if t.ID == "" {
		return t, fmt.Errorf("read task: no taskId in %s", truncBytes(raw, 200))
	}
	return t, nil
}

func truncBytes(b []byte, n int) string {
	if len(b) > n {
		return strconv.Quote(string(b[:n])) + "..."
	}
	return strconv.Quote(string(b))
}

// TaskReply is the answer to one tasks/* request.
type TaskReply struct {
	Raw     json.RawMessage // the result object, when there is one
	RPCErr  *RPCError       // a JSON-RPC error answer
	Status  int             // HTTP status; 0 on stdio
	Failure error           // no usable answer: transport error, timeout
	At      time.Time       // when the answer was read
}

// Err is the reply's error, nil when it carries a result.
func (r TaskReply) Err() error {
	switch {
	case r.Raw != nil && r.RPCErr == nil && (r.Status == 0 || r.Status/100 == 2):
		return nil
	case r.RPCErr != nil:
		return r.RPCErr
	case r.Failure != nil:
		return r.Failure
	}
	return fmt.Errorf("HTTP status %d", r.Status)
}

// Throttled reports whether the reply is a refusal to poll this soon: an
// HTTP 429 or 503, or a JSON-RPC error other than the ones the extension
// gives a meaning (-32602 unknown task, -32021 missing capability,
// -32601 no such method), a parse error or an internal error.
func (r TaskReply) Throttled() bool {
	if r.Status == 429 || r.Status == 503 {
		return true
	}
	if r.RPCErr == nil {
		return false
	}
	switch r.RPCErr.Code {
	case CodeInvalidParams, CodeMissingCapability, CodeMethodNotFound, CodeParseError, CodeInvalidRequest, CodeInternalError:
		return false
	}
	return true
}

// GetTask sends tasks/get for id.
func (c *Client) GetTask(ctx context.Context, id string) TaskReply {
	return c.taskRequest(ctx, MethodTasksGet, id, nil)
}

// UpdateTask sends tasks/update for id with inputResponses (a JSON object).
func (c *Client) UpdateTask(ctx context.Context, id string, inputResponses []byte) TaskReply {
	return c.taskRequest(ctx, MethodTasksUpdate, id, inputResponses)
}

// CancelTask sends tasks/cancel for id.
func (c *Client) CancelTask(ctx context.Context, id string) TaskReply {
	return c.taskRequest(ctx, MethodTasksCancel, id, nil)
}

func (c *Client) taskRequest(ctx context.Context, method, id string, inputResponses []byte) TaskReply {
	members := append([]byte(`"taskId":`), rpcmsg.AppendString(nil, id)...)
	if inputResponses != nil {
		members = append(members, `,"inputResponses":`...)
		members = append(members, inputResponses...)
	}
	r := c.roundTrip(ctx, method, id, members, metaOptions{modern: c.era.Modern(), tasks: true})
	return TaskReply{Raw: r.result, RPCErr: r.rpcErr, Status: r.status, Failure: r.err, At: r.at}
}

// tasksCapabilities returns caps with the tasks extension added to its
// extensions.
func tasksCapabilities(caps []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(caps, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	var ext map[string]json.RawMessage
	if json.Unmarshal(m["extensions"], &ext) != nil || ext == nil {
		ext = map[string]json.RawMessage{}
	}
	ext[TasksExtension] = json.RawMessage(`{}`)
	m["extensions"], _ = json.Marshal(ext)
	out, _ := json.Marshal(m)
	return bytes.TrimSpace(out)
}

// OffersTasks reports whether the server advertised the tasks extension
// in its server/discover capabilities (2026 servers only: the 2025 eras
// have no such extension).
func (c *Client) OffersTasks() bool {
	d := c.discover
	if d == nil {
		return false
	}
	var caps struct {
		Extensions map[string]json.RawMessage `json:"extensions"`
	}
	if json.Unmarshal(d.Capabilities, &caps) != nil {
		return false
	}
	_, ok := caps.Extensions[TasksExtension]
	return ok
}
