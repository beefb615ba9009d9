package engine

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/targetserver/knobs"
	"github.com/mcpchaos/mcpchaos/results"
)

// TestTasksListen: against the built-in target serving task status by
// subscription (task_listen), with a poll interval far longer than the
// tasks' work, each task call is ended by the terminal status the stream
// pushes, before its first poll: ok, listened, no violation (a stream the
// server ends with notifications/cancelled naming the listen request is
// no server_cancel). The target's ledger served one stream per task and
// its notifications are the ones the client counted. Without the knob the
// SDK's own listen leaves the task out: the client stops asking on that
// connection and the tasks end by polling. The same over stdio, the
// target a `mcpchaos serve --stdio` subprocess.
func TestTasksListen(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		end   string
		stdio bool
	}{
		{knobs.ListenResult, false}, {knobs.ListenCancelled, false}, {knobs.ListenOff, false},
		{knobs.ListenResult, true}, {knobs.ListenCancelled, true}, {knobs.ListenOff, true},
	} {
		end, stdio := c.end, c.stdio
		name := end
		if stdio {
			name = "stdio_" + end
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg := targetserver.Config{Tasks: true, TaskListen: end, TaskPollInterval: time.Hour}
			if end == knobs.ListenOff {
				cfg.TaskPollInterval = 100 * time.Millisecond
			}
			load := Load{Rate: perSec(5), Duration: time.Second, GracefulStop: 20 * time.Second}
			var p Plan
			var tg *targetserver.Running
			if stdio {
				// The ledger is the subprocess's: TestListenStdio
				// (targetserver) matches it over stdio.
				p = httpPlan("", load, taskCall(3, 50))
				p.Target = Target{Builtin: &Builtin{Transport: "stdio", Command: append([]string{bin.Need(t), "serve", "--stdio"}, cfg.Args()...)}}
				p.Orphans = quickOrphans
			} else {
				tg = newTarget(t, cfg)
				p = httpPlan(tg.URL, load, taskCall(3, 50))
			}
			o := runLoad(t, context.Background(), p)
			if len(o.recs) != 5 {
				t.Fatalf("%d records, want 5", len(o.recs))
			}
			listened, pushed := 0, 0
			for _, r := range o.recs {
				tk := r.Task
				ok := tk != nil && r.Outcome == results.OK && tk.Status == client.TaskCompleted && len(r.Violations) == 0
				if end != knobs.ListenOff {
					ok = ok && tk.Listened && tk.Pushed > 0 && tk.Polls == 0
				} else {
					ok = ok && !tk.Listened && tk.Polls > 0
				}
				if !ok {
					b, _ := json.Marshal(r)
					t.Errorf("record %s", b)
				}
				if tk != nil && tk.Listened {
					listened++
					pushed += tk.Pushed
				}
			}
			if tg == nil {
				return
			}
			st := tg.Server.Stats()
			if end != knobs.ListenOff && (st.TasksListens != int64(listened) || st.TasksNotified != int64(pushed)) {
				t.Errorf("target served %d streams and %d notifications/tasks; the client listened on %d and counted %d",
					st.TasksListens, st.TasksNotified, listened, pushed)
			}
		})
	}
}

// TestTasksListenJudged: a listen stream that breaks the rules, from a
// scripted 2026 server whose task is never polled (an hour's interval):
// the pushed terminal status still ends the call, and the stream's
// faults are counted: a first message that is no acknowledgement
// (listen_no_ack), notifications not asked for (listen_unrequested).
func TestTasksListenJudged(t *testing.T) {
	t.Parallel()
	const (
		ack   = `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"taskIds":["t1"]}}}`
		done  = `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{"content":[]}}}`
		other = `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t2","status":"working"}}`
		tools = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}`
	)
	tests := []struct {
		name      string
		stream    []string
		violation string
		n         int
	}{
		{"no acknowledgement first", []string{done, ack}, violListenNoAck, 1},
		{"unrequested notifications", []string{ack, other, tools, done}, violListenUnrequested, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
				var m struct {
					ID     json.RawMessage `json:"id"`
					Method string          `json:"method"`
				}
				_ = json.Unmarshal(body, &m)
				var result string
				switch m.Method {
				case "server/discover":
					result = `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"resultType":"complete"}`
				case "tools/list":
					result = `{"tools":[],"resultType":"complete"}`
				case "tools/call":
					result = `{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null,"pollIntervalMs":3600000}`
				case "subscriptions/listen":
					w.Header().Set("Content-Type", "text/event-stream")
					for _, msg := range tt.stream {
						io.WriteString(w, "event: message\ndata: "+msg+"\n\n")
						w.(http.Flusher).Flush()
					}
					<-r.Context().Done() // open until the client closes it
					return
				case "tasks/cancel", "tasks/get":
					result = `{"resultType":"complete"}`
				default:
					w.WriteHeader(http.StatusAccepted)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
			}))
			t.Cleanup(srv.Close)
			p := oneCall(srv.URL, nil)
			p.Calls[0].Task = true
			o := runLoad(t, context.Background(), p)
			if len(o.recs) != 1 {
				t.Fatalf("%d records, want 1", len(o.recs))
			}
			r := o.recs[0]
			if r.Outcome != results.OK || r.Task == nil || r.Task.Polls != 0 || r.Task.Pushed != 1 || r.Violations[tt.violation] != tt.n {
				b, _ := json.Marshal(r)
				t.Errorf("record %s: want ok from the pushed status, %d %s", b, tt.n, tt.violation)
			}
		})
	}
}
