package targetserver

import (
	"encoding/json"
	"strconv"
	"sync"
	"time"
)

// The tasks knob: the tasks extension (io.modelcontextprotocol/tasks, the
// ext-tasks specification of 2026-07-28). A 2026 slow_task call whose
// request declares the extension is answered at once with a task
// (resultType "task"); its steps run on a goroutine of their own, and the
// client follows it with tasks/get (at pollIntervalMs), answers its
// questions with tasks/update and may ask it to stop with tasks/cancel.
// The store below is the task's state and the ledger of what happened to
// it; tasksrpc.go is its face on the wire. The Go SDK (v1.8) knows nothing
// of tasks, so both are written here.

// Task statuses (ext-tasks "Task Status").
const (
	taskWorking       = "working"
	taskInputRequired = "input_required"
	taskCompleted     = "completed"
	taskFailed        = "failed"
	taskCancelled     = "cancelled"
)

// Defaults and bounds of the tasks knobs.
const (
	DefaultTaskPollInterval = 100 * time.Millisecond
	DefaultTaskTTL          = time.Minute
	// MaxTasks bounds the tasks kept at once; a call beyond it is served
	// without a task (the server decides per request, the spec says).
	MaxTasks = 10_000
)

// TaskTruth is the ledger of one task: what the target did with it.
type TaskTruth struct {
	ID      string    `json:"task_id"`
	Marker  string    `json:"marker,omitempty"` // the creating call's marker
	Created time.Time `json:"created"`
	Status  string    `json:"status"` // now
	Ended   time.Time `json:"ended,omitzero"`
	// Polls counts the tasks/get answered; Early those that came sooner
	// than pollIntervalMs after the previous one (or the creation),
	// refused or not; Throttled those refused by task_poll_limit.
	Polls, Early, Throttled int
	// MinGap is the shortest time between two tasks/get of the task (or
	// its creation and the first), as the target saw them.
	MinGap time.Duration `json:"min_gap_ns"`
	// CancelAt is when tasks/cancel came (zero: never); StepsAfterCancel
	// the steps the task ran after it (task_ignore_cancel, or a step
	// that was under way).
	CancelAt         time.Time `json:"cancel_at,omitzero"`
	StepsAfterCancel int       `json:"steps_after_cancel"`
	Asked, Answered  int       // input requests made, answers taken
}

// task is one task's state; its fields below mu are guarded by it.
type task struct {
	id       string
	interval time.Duration
	ttl      time.Duration
	stop     chan struct{} // closed by tasks/cancel (once)
	answer   chan bool     // the confirmation, from tasks/update
	expiry   *time.Timer

	mu       sync.Mutex
	call     taskCall // the tools/call that made it (tasktruth.go); set before its work starts
	truth    TaskTruth
	updated  time.Time
	lastPoll time.Time // the last answered tasks/get, or the creation
	message  string
	result   json.RawMessage // completed: the CallToolResult
	errObj   json.RawMessage // failed: the JSON-RPC error
	askKey   string          // input_required: the outstanding request's key
}

// taskStore holds the server's tasks by id.
type taskStore struct {
	mu    sync.Mutex
	byID  map[string]*task
	seq   uint64
	order []string // ids in creation order, for Ledger
}

// add makes a new task, or nil when MaxTasks are kept.
func (st *taskStore) add(interval, ttl time.Duration, marker string) *task {
	now := time.Now()
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.byID) >= MaxTasks {
		return nil
	}
	if st.byID == nil {
		st.byID = map[string]*task{}
	}
	st.seq++
	t := &task{id: "task-" + strconv.FormatUint(st.seq, 10), interval: interval, ttl: ttl,
		stop: make(chan struct{}), answer: make(chan bool, 1)}
	t.truth = TaskTruth{ID: t.id, Marker: marker, Created: now, Status: taskWorking, MinGap: -1}
	t.updated, t.lastPoll = now, now
	st.byID[t.id] = t
	st.order = append(st.order, t.id)
	if len(st.order) > 4*MaxTasks {
		st.order = st.order[len(st.order)-MaxTasks:]
	}
	return t
}

func (st *taskStore) get(id string) *task {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.byID[id]
}

func (st *taskStore) remove(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	delete(st.byID, id)
}

// closeAll stops every expiry timer (Server.Close).
func (st *taskStore) closeAll() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, t := range st.byID {
		if t.expiry != nil {
			t.expiry.Stop()
		}
	}
}

// ledger returns the truth of the tasks still kept, oldest first.
func (st *taskStore) ledger() []TaskTruth {
	st.mu.Lock()
	ts := make([]*task, 0, len(st.byID))
	for _, id := range st.order {
		if t := st.byID[id]; t != nil {
			ts = append(ts, t)
		}
	}
	st.mu.Unlock()
	out := make([]TaskTruth, 0, len(ts))
	for _, t := range ts {
		t.mu.Lock()
		out = append(out, t.truth)
		t.mu.Unlock()
	}
	return out
}

// TaskLedger returns the truth of every task the target still keeps
// (tasks are deleted two TTLs after their creation), oldest first.
func (s *Server) TaskLedger() []TaskTruth { return s.tasks.ledger() }

// terminal reports whether status is one that never changes.
func terminal(status string) bool {
	return status == taskCompleted || status == taskFailed || status == taskCancelled
}

// setStatus moves t to status unless it is terminal already (t.mu held);
// false when it was.
func (t *task) setStatus(status, message string, now time.Time) bool {
	if terminal(t.truth.Status) {
		return false
	}
	t.truth.Status, t.message, t.updated = status, message, now
	if terminal(status) {
		t.truth.Ended = now
		t.askKey = ""
	}
	return true
}

// cancelled reports whether tasks/cancel came.
func (t *task) cancelled() bool {
	select {
	case <-t.stop:
		return true
	default:
		return false
	}
}

// poll notes a tasks/get at now: early, it came sooner than
// pollIntervalMs after the previous answered poll (or the creation);
// refused, the poll limit refuses it, with how long is left to wait (t.mu
// held).
func (t *task) poll(now time.Time, limit bool) (early, refused bool, wait time.Duration) {
	gap := now.Sub(t.lastPoll)
	if t.truth.MinGap < 0 || gap < t.truth.MinGap {
		t.truth.MinGap = gap
	}
	if gap < t.interval {
		early = true
		t.truth.Early++
		if limit {
			t.truth.Throttled++
			return true, true, t.interval - gap
		}
	}
	t.truth.Polls++
	t.lastPoll = now
	return early, false, 0
}
