package targetserver

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	mc "github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// listenLog records a listen stream's messages and its end.
type listenLog struct {
	mu       sync.Mutex
	methods  []string // EvListen details, in order
	statuses []string // the notifications/tasks' statuses
	viols    []string
	result   bool // the stream ended with a result
	done     chan struct{}
}

func (l *listenLog) OnEvent(ev mc.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch ev.Kind {
	case mc.EvListen:
		l.methods = append(l.methods, ev.Detail)
		if ev.Detail == vocab.MethodTasksNotification {
			task, _ := mc.ParseTask(ev.Raw)
			l.statuses = append(l.statuses, task.Status)
		}
	case mc.EvViolation:
		l.viols = append(l.viols, ev.Violation.String())
	case mc.EvResult:
		l.result = true
	}
}

// taskID is the id of the task a call's CreateTaskResult names.
type taskID struct {
	mu sync.Mutex
	id string
}

func (o *taskID) OnEvent(ev mc.Event) {
	if ev.Kind == mc.EvResult && ev.Result.Type == mc.ResultTask {
		o.mu.Lock()
		o.id = string(ev.Result.TaskID)
		o.mu.Unlock()
	}
}

// TestListenStdio: task status by subscription over stdio, the target a
// real subprocess. The listen stream's messages share the pipe with every
// other answer; our client routes them by the subscription id in their
// _meta and the server's notifications/cancelled by the request it names.
// For each way the target ends the stream, the stream is acknowledged,
// pushes the task's statuses up to completed, ends that way without a
// violation, and the target's ledger counts what the client saw.
func TestListenStdio(t *testing.T) {
	for _, end := range []string{knobs.ListenResult, knobs.ListenCancelled} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			o := startOurs(t, Config{Tasks: true, TaskListen: end, TaskPollInterval: time.Hour}, true, "")
			var created taskID
			call, err := o.client.Start(t.Context(), mc.CallRequest{Tool: ToolSlowTask,
				Arguments: json.RawMessage(`{"steps":3,"step_ms":50}`), Task: true, Observer: &created})
			if err != nil {
				t.Fatal(err)
			}
			call.Wait()
			created.mu.Lock()
			id := created.id
			created.mu.Unlock()
			if id == "" {
				t.Fatal("slow_task with the extension declared made no task")
			}
			if o.client.ListenRefused() {
				t.Fatal("ListenRefused over 2026 stdio")
			}
			log := &listenLog{done: make(chan struct{})}
			ctx, cancel := context.WithTimeout(t.Context(), testutil.WaitLong)
			defer cancel()
			listen, err := o.client.ListenTasks(ctx, []string{id}, log)
			if err != nil {
				t.Fatal(err)
			}
			go func() { listen.Wait(); close(log.done) }()
			select {
			case <-log.done:
			case <-ctx.Done():
				_ = listen.Cancel("test over", false)
				t.Fatal("the listen stream did not end")
			}
			log.mu.Lock()
			defer log.mu.Unlock()
			n := len(log.methods)
			if n < 2 || log.methods[0] != vocab.MethodSubscriptionsAcked {
				t.Fatalf("stream %v: want the acknowledgement first, then notifications/tasks", log.methods)
			}
			if len(log.statuses) == 0 || log.statuses[len(log.statuses)-1] != mc.TaskCompleted {
				t.Errorf("statuses pushed %v, want completed last", log.statuses)
			}
			switch end {
			case knobs.ListenResult:
				if !log.result {
					t.Errorf("stream %v ended without its result", log.methods)
				}
			case knobs.ListenCancelled:
				if log.methods[n-1] != vocab.MethodCancelled || log.result {
					t.Errorf("stream %v (result %v), want it ended by notifications/cancelled", log.methods, log.result)
				}
			}
			if len(log.viols) != 0 {
				t.Errorf("violations %v on a correct stream", log.viols)
			}
			if l, nt := o.metric(t, "mcpchaos_target_tasks_listens_total"), o.metric(t, "mcpchaos_target_tasks_notified_total"); l != 1 || int(nt) != len(log.statuses) {
				t.Errorf("target served %v streams and %v notifications/tasks; the client saw 1 and %d", l, nt, len(log.statuses))
			}
		})
	}
}
