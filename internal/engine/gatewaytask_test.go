package engine

import (
	"context"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
)

// TestGatewayTruthTasks: the built-in target's truth records hold task
// calls, so a gateway join (here with nothing in between: a transparent
// gateway) finds every task call executed once and each tasks/cancel
// delivered, and leaves task calls out of gateway.stops, whether the
// target honours the cancel or ignores it (its 4 s of work ends long after
// the cancel): cancelling a task is cooperative.
func TestGatewayTruthTasks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		cancel, ignore bool
		call           CallSpec
	}{
		{"completed", false, false, taskCall(2, 50)},
		{"cancel honoured", true, false, taskCall(1, 4000)},
		{"cancel ignored", true, true, taskCall(1, 4000)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollInterval: 50 * time.Millisecond,
				TaskIgnoreCancel: tc.ignore})
			plan := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 500 * time.Millisecond, GracefulStop: 20 * time.Second}, tc.call)
			plan.Gateway = &GatewayPlan{Truth: []string{"http://" + tg.Addr}}
			if tc.cancel {
				plan.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, probability: 1, after: 300ms}")}
			}
			res := runLoad(t, context.Background(), plan)
			g := res.info.Gateway
			if g == nil {
				t.Fatal("no gateway join")
			}
			if g.Calls != 5 || g.Executions != 5 || g.NotSeen != 0 || g.Unrecorded != 0 || g.Unended != 0 || g.DuplicateExecutions != 0 {
				t.Fatalf("join %+v: want 5 calls, each executed once, every record ended", g.GatewayCounts)
			}
			c := g.Stops.Cancelled
			if got := [3]int{c.Stopped, c.RanOn, c.Unknown}; got != [3]int{} || g.LostCancels != 0 {
				t.Errorf("cancelled stopped, ran on, unknown = %v, lost cancels %d; want no task judged, none lost (evidence %v)", got, g.LostCancels, g.Evidence)
			}
		})
	}
}
