package engine

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync/atomic"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/client/vocab"
)

// Task status by subscription (docs/long-running.md, tasks). While a 2026
// task call is followed (HTTP or stdio), the client also opens a subscriptions/listen
// stream asking for notifications/tasks of its task. A server that offers
// them acknowledges the task's id; the polls go on at pollIntervalMs (the
// spec lets a client do both), and a terminal status pushed ends the call
// at once, as a poll showing it would. A server that does not (the
// acknowledgement leaves the id out, or the request fails) is not asked
// again on that connection. The stream is judged: its first message must
// be the acknowledgement (listen_no_ack), it carries only notifications/
// tasks for the task asked for (listen_unrequested), and a
// notifications/cancelled naming the listen request ends it legitimately
// (the one a 2026 server may send; any other stays server_cancel).

// Violations of a listen stream's rules.
const (
	violListenNoAck       = "listen_no_ack"
	violListenUnrequested = "listen_unrequested"
)

// taskListen is a call's listen stream for its task.
type taskListen struct {
	// call is the stream's call, set once it is sent; stopping, that stop
	// was called (it may come from the stream's own reader, before call is
	// set: then startListen stops it).
	call      atomic.Pointer[client.Call]
	stopping  atomic.Bool
	first     bool          // a message came
	pushed    chan struct{} // a terminal status came (buffered 1)
	terminal  *client.Task  // that status
	arrivedAt time.Time
}

// startListen opens the listen stream for the call's task; nil when the
// connection has none (2025, or its server does not offer it).
func (cs *callState) startListen(ctx context.Context, cl *client.Client) *taskListen {
	if cl.ListenRefused() {
		return nil
	}
	l := &taskListen{pushed: make(chan struct{}, 1)}
	cs.mu.Lock()
	cs.task.listen = l
	id := cs.task.id
	cs.mu.Unlock()
	call, err := cl.ListenTasks(context.WithoutCancel(ctx), []string{id}, listenObserver{cs, l})
	if err != nil {
		if !errors.Is(err, client.ErrListenTransport) {
			cl.RefuseListen()
		}
		cs.mu.Lock()
		cs.task.listen = nil
		cs.mu.Unlock()
		return nil
	}
	l.call.Store(call)
	if l.stopping.Load() {
		l.stop() // the answer came first and said to stop
	}
	go call.Wait() // on HTTP, Wait reads the stream
	return l
}

// stop closes the stream (the client's way to end a subscription).
func (l *taskListen) stop() {
	if l == nil {
		return
	}
	l.stopping.Store(true)
	if call := l.call.Load(); call != nil {
		_ = call.Cancel("mcpchaos: task followed to its end", false)
	}
}

// listenObserver takes a listen stream's events for its call.
type listenObserver struct {
	cs *callState
	l  *taskListen
}

func (o listenObserver) OnEvent(ev client.Event) {
	cs, l := o.cs, o.l
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.recorded || cs.rec.Task == nil {
		return
	}
	switch ev.Kind {
	case client.EvListen:
		if !l.first {
			l.first = true
			if ev.Detail != vocab.MethodSubscriptionsAcked {
				cs.rec.Violations.Add(violListenNoAck, 1)
			}
		}
		cs.onListen(l, ev)
	case client.EvViolation:
		cs.rec.Violations.Add(ev.Violation.String(), 1)
	case client.EvRPCError:
		cs.client.RefuseListen() // not served here
	}
}

// onListen takes one message of the stream (cs.mu held).
func (cs *callState) onListen(l *taskListen, ev client.Event) {
	tr := cs.rec.Task
	switch ev.Detail {
	case vocab.MethodSubscriptionsAcked:
		var p struct {
			Notifications struct {
				TaskIDs []string `json:"taskIds"`
			} `json:"notifications"`
		}
		_ = json.Unmarshal(ev.Raw, &p)
		if tr.Listened = slices.Contains(p.Notifications.TaskIDs, cs.task.id); !tr.Listened {
			cs.client.RefuseListen() // the server does not offer task status here
			go l.stop()
		}
	case vocab.MethodTasksNotification:
		task, err := client.ParseTask(ev.Raw)
		if err != nil || task.ID != cs.task.id {
			cs.rec.Violations.Add(violListenUnrequested, 1)
			return
		}
		tr.Pushed++
		if client.TaskTerminal(task.Status) && l.terminal == nil {
			l.terminal, l.arrivedAt = &task, ev.At
			l.pushed <- struct{}{}
		}
	case vocab.MethodCancelled:
		// The server ended the subscription: allowed.
	default:
		cs.rec.Violations.Add(violListenUnrequested, 1)
	}
}

// takePushed ends the call with the terminal status the stream pushed;
// false when the call was stopped meanwhile (a stop settles it).
func (cs *callState) takePushed() bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	l := cs.task.listen
	if cs.stopOutcome != "" || l == nil || l.terminal == nil {
		return false
	}
	tr := cs.rec.Task
	cs.task.status, tr.Status = l.terminal.Status, l.terminal.Status
	tr.EndUs = cs.us(l.arrivedAt)
	cs.endTask(*l.terminal, l.arrivedAt)
	return true
}
