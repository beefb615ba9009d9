package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/client"
	"github.com/mcpchaos/mcpchaos/results"
	"github.com/mcpchaos/mcpchaos/targetserver"
	"github.com/mcpchaos/mcpchaos/targetserver/knobs"
)

// TestTasksListen: against the built-in target serving task status by
// subscription (task_listen), with a poll interval far longer than the
// tasks' work, each task call is ended by the terminal status the stream
// pushes, before its first poll: ok, listened, no violation (a stream the
// server ends with notifications/cancelled naming the listen request is
// no server_cancel). The target's ledger served one stream per task and
// its notifications are the ones the client counted. Without the knob the
// SDK's own listen leaves the task out: the client stops asking on that
// connection and the tasks end by polling.
func TestTasksListen(t *testing.T) {
	t.Parallel()
	for _, end := range []string{knobs.ListenResult, knobs.ListenCancelled, knobs.ListenOff} {
		t.Run(end, func(t *testing.T) {
			t.Parallel()
			cfg := targetserver.Config{Tasks: true, TaskListen: end, TaskPollInterval: time.Hour}
			if end == knobs.ListenOff {
				cfg.TaskPollInterval = 100 * time.Millisecond
			}
			tg := newTarget(t, cfg)
			p := httpPlan(tg.URL, Load{Rate: perSec(5), Duration: time.Second, GracefulStop: 20 * time.Second}, taskCall(3, 50))
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
			st := tg.Server.Stats()
			if end != knobs.ListenOff && (st.TasksListens != int64(listened) || st.TasksNotified != int64(pushed)) {
				t.Errorf("target served %d streams and %d notifications/tasks; the client listened on %d and counted %d",
					st.TasksListens, st.TasksNotified, listened, pushed)
			}
		})
	}
}
