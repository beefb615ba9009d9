package targetserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpchaos/mcpchaos/client/rpcmsg"
	"github.com/mcpchaos/mcpchaos/client/vocab"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
)

// The task_listen knob: subscriptions/listen for task status (the tasks
// extension's notifications/tasks, 2026 HTTP and stdio). The SDK does not
// serve task listen streams, so the target answers these requests itself,
// in front of it (over stdio: listenstdio.go): a stream that opens with notifications/subscriptions/
// acknowledged (naming the task ids it agreed to: those it knows), then
// a notifications/tasks (the task as tasks/get shows it) each time a
// watched task's status changes, each carrying the subscription id (the
// listen request's id) in _meta. Once every watched task is terminal (or
// deleted) the server ends the stream: with a result (resultType
// complete) or, under task_listen: cancelled, with notifications/cancelled
// naming the listen request; the stream also ends when the client closes
// it. Counted in tasks_listens_total and tasks_notified_total.

// listenWatch is how often a listen stream looks at its tasks' status: a
// server-side wait, not a protocol one.
const listenWatch = 5 * time.Millisecond

// listenParams is what the target reads of a subscriptions/listen.
type listenParams struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta          map[string]any `json:"_meta"`
		Notifications struct {
			TaskIDs []string `json:"taskIds"`
		} `json:"notifications"`
	} `json:"params"`
}

// listenHTTP serves subscriptions/listen when the knob is on; every other
// request goes to next.
func (s *Server) listenHTTP(next http.Handler) http.Handler {
	if !s.cfg.Tasks || s.cfg.TaskListen == "" || s.cfg.TaskListen == knobs.ListenOff {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !isModern(r) || r.Header.Get(vocab.HeaderMethod) != vocab.MethodSubscriptionsListen || r.Body == nil {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		var p listenParams
		if err != nil || json.Unmarshal(body, &p) != nil || p.Method != vocab.MethodSubscriptionsListen || len(p.ID) == 0 {
			r.Body = io.NopCloser(bytes.NewReader(body))
			next.ServeHTTP(w, r) // the SDK says what is wrong with it
			return
		}
		s.serveListen(w, r, p)
	})
}

// serveListen runs one listen stream to its end over HTTP: an SSE stream.
func (s *Server) serveListen(w http.ResponseWriter, r *http.Request, p listenParams) {
	if len(p.Params.Notifications.TaskIDs) > 0 && !declaresTasks(p.Params.Meta) {
		writeListenError(w, p.ID, codeMissingCapability, "task notifications need the "+TasksExtension+" extension declared")
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeListenError(w, p.ID, rpcmsg.CodeInternalError, "the connection cannot stream")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	s.runListen(r.Context(), p, func(msg []byte) bool {
		if _, err := fmt.Fprintf(w, "event: message\ndata: %s\n\n", msg); err != nil {
			return false
		}
		flusher.Flush()
		return true
	})
}

// listenSend writes one message of a listen stream (a JSON-RPC message
// built by rpcmsg) and reports whether it went out.
type listenSend func(msg []byte) bool

// msg sends a message rpcmsg built; false when it could not be built.
func (send listenSend) msg(b []byte, err error) bool { return err == nil && send(b) }

// runListen sends a listen stream's messages with send until every task
// it agreed to is terminal (then ends it the knob's way), send fails, or
// ctx is done (the client closed it).
func (s *Server) runListen(ctx context.Context, p listenParams, send listenSend) {
	s.metrics.tasksListens.Add(1)
	sub := map[string]json.RawMessage{vocab.MetaSubscriptionID: p.ID}
	var agreed []string
	last := map[string]string{} // task id -> status last sent
	for _, id := range p.Params.Notifications.TaskIDs {
		if s.tasks.get(id) != nil && len(agreed) < maxListenTasks {
			agreed = append(agreed, id)
			last[id] = ""
		}
	}
	ack := map[string]any{"_meta": sub, "notifications": map[string]any{"taskIds": append([]string{}, agreed...)}}
	if !send.msg(rpcmsg.Notification(vocab.MethodSubscriptionsAcked, ack)) {
		return
	}
	tick := time.NewTicker(listenWatch)
	defer tick.Stop()
	for {
		open := 0
		for _, id := range agreed {
			v, ok := s.taskNow(id)
			if !ok || last[id] != "" && terminal(last[id]) {
				continue // deleted, or its terminal status was sent
			}
			open++
			if v.Status == last[id] {
				continue
			}
			last[id] = v.Status
			if !send.msg(rpcmsg.Notification(vocab.MethodTasksNotification, listenTask(v, sub))) {
				return
			}
			s.metrics.tasksNotified.Add(1)
			if terminal(v.Status) {
				open--
			}
		}
		if open == 0 {
			s.endListen(send, p.ID, sub)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// maxListenTasks bounds the tasks one listen stream watches.
const maxListenTasks = 1000

// taskNow is the task id as tasks/get would show it; false once deleted.
func (s *Server) taskNow(id string) (*taskView, bool) {
	t := s.tasks.get(id)
	if t == nil {
		return nil, false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.view("complete"), true
}

// listenTask is a notifications/tasks's params: the task with the
// subscription id in _meta (and no resultType: it is no result).
func listenTask(v *taskView, sub map[string]json.RawMessage) map[string]any {
	var m map[string]any
	b, _ := json.Marshal(v)
	_ = json.Unmarshal(b, &m)
	delete(m, "resultType")
	m["_meta"] = sub
	return m
}

// endListen ends a stream whose tasks are all terminal, the knob's way.
func (s *Server) endListen(send listenSend, id json.RawMessage, sub map[string]json.RawMessage) {
	if s.cfg.TaskListen == knobs.ListenCancelled {
		send.msg(rpcmsg.Notification(vocab.MethodCancelled,
			map[string]any{"requestId": id, "reason": "every task of the subscription is terminal"}))
		return
	}
	send.msg(rpcmsg.Result(id, map[string]any{"resultType": "complete", "_meta": sub}))
}

// writeListenError answers a listen request with a JSON-RPC error.
func writeListenError(w http.ResponseWriter, id json.RawMessage, code int64, message string) {
	b, _ := rpcmsg.ErrorResponse(id, code, message, nil)
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}
