package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpchaos/mcpchaos/internal/faults"
	"github.com/mcpchaos/mcpchaos/internal/targetserver"
	"github.com/mcpchaos/mcpchaos/internal/testutil"
)

// TestLogProbeLeavesTasksOut: a task call stopped with tasks/cancel is not
// handed to the log probes, since the spec lets a task run on after it:
// against a target that ignores tasks/cancel and logs each task's end
// (its 4 s of work ends long after the cancel + the 400 ms grace), the
// log probe judges no call and finds no orphan, though the log has a line
// for every task. The cancel fault's detail says what went: tasks/cancel.
func TestLogProbeLeavesTasksOut(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "calls.log")
	tg := newTarget(t, targetserver.Config{Era: targetserver.Era2026, Tasks: true, TaskPollInterval: 50 * time.Millisecond,
		TaskIgnoreCancel: true, LogCalls: file})
	plan := httpPlan(tg.URL, Load{Rate: perSec(10), Duration: 500 * time.Millisecond, GracefulStop: 20 * time.Second}, taskCall(1, 4000))
	plan.Faults = []faults.Fault{scenarioFault(t, "{kind: cancel, probability: 1, after: 300ms}")}
	plan.Orphans = Orphans{Grace: 400 * time.Millisecond, DrainMax: 20 * time.Second, SampleEvery: 50 * time.Millisecond,
		QuietWindow: 100 * time.Millisecond, Probes: []ProbeSpec{{Log: &LogProbe{File: file, Done: doneOrCancelled}}}}
	res := runLoad(t, context.Background(), plan)
	cut := 0
	for _, r := range res.recs {
		if r.Task == nil || r.Task.CancelUs == 0 {
			continue
		}
		cut++
		if len(r.Faults) != 1 || r.Faults[0].Detail != "tasks/cancel sent" {
			t.Errorf("seq %d: faults %+v; want one cancel, \"tasks/cancel sent\"", r.Seq, r.Faults)
		}
	}
	if cut != 5 {
		t.Fatalf("%d task calls cancelled with tasks/cancel, want 5", cut)
	}
	if l := res.info.Orphans.Log; l == nil || l.Matched != 0 || l.Orphaned != 0 || l.Unseen != 0 {
		t.Errorf("log probe %+v; want no task call judged", l)
	}
	// The tasks' work ends about 4 s after each started, after the run.
	testutil.Eventually(t, "a line in the target's log for each task's end", func() bool {
		b, err := os.ReadFile(file)
		return err == nil && strings.Count(string(b), " done\n") == 5
	})
}
