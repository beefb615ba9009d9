package verdict

import (
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/report/summary"
)

// TestTaskRunOnVerdict: work a task does after its tasks/cancel is
// allowed, so the readings it may have made (the probes after the load,
// quiet windows) are not held against the server; the same readings with
// no task running on still are; and calls cut beside such tasks, with
// nothing else to judge them, cannot be told.
func TestTaskRunOnVerdict(t *testing.T) {
	visible := &summary.ProcessCPU{Probe: "process", LoadRate: 0.8, PerCallS: 0.5, IdleNoise: 0.01}
	for _, tc := range []struct {
		name   string
		cut    func(c *summary.Cancellation)
		tasks  summary.Tasks
		status string
		has    []string
	}{
		{"after the load, tasks still running on", func(c *summary.Cancellation) {
			c.Cancels, c.Counting, c.Orphaned, c.TasksRunningOn = 3, 1, 2, 2
		}, summary.Tasks{Created: 3, CancelSent: 3, Leftover: 3}, summary.StatusPass,
			[]string{"2 tasks still working after tasks/cancel when the probes were read after the load: not judged (2 running)"}},
		{"after the load, no task running on", func(c *summary.Cancellation) {
			c.Cancels, c.Counting, c.Orphaned = 3, 1, 2
		}, summary.Tasks{Created: 3, CancelSent: 3}, summary.StatusViolation, []string{"2 calls still running"}},
		{"windows all beside a task running on, calls cut too", func(c *summary.Cancellation) {
			c.Cancels, c.ProcessCPU = 5, visible
			c.Windows = summary.Windows{Count: 2, TasksRunningOn: 2}
		}, summary.Tasks{Created: 2, CancelSent: 2, Leftover: 2}, summary.StatusNotObservable,
			[]string{"tasks ran on after tasks/cancel (allowed) while the probes measured (2 quiet windows), so the work they saw after the 3 calls cut may be the tasks'"}},
		{"one window clean: the calls cut elsewhere are not judged", func(c *summary.Cancellation) {
			c.Cancels, c.ProcessCPU = 5, visible
			c.Windows = summary.Windows{Count: 2, TasksRunningOn: 1}
		}, summary.Tasks{Created: 2, CancelSent: 2, Leftover: 2}, summary.StatusNotObservable,
			[]string{"(1 quiet window), so the work they saw after the 3 calls cut may be the tasks'"}},
		{"a counting probe judges the calls", func(c *summary.Cancellation) {
			c.Cancels, c.Counting, c.ProcessCPU = 5, 1, visible
			c.Windows = summary.Windows{Count: 2, TasksRunningOn: 1}
		}, summary.Tasks{Created: 2, CancelSent: 2, Leftover: 2}, summary.StatusPass,
			[]string{"1 quiet window not judged: a task ran on after tasks/cancel while it measured"}},
		{"a leak the counting probe saw beside tasks running on", func(c *summary.Cancellation) {
			c.Cancels, c.Counting, c.LeakedCallSeconds, c.WorkGraceMs, c.TasksRunningOn = 5, 1, 30, 300, 1
		}, summary.Tasks{Created: 2, CancelSent: 2, Leftover: 2}, summary.StatusViolation,
			[]string{"30 call-seconds of server work nobody waited for"}},
		{"tasks ran on and ended", func(c *summary.Cancellation) {
			c.Cancels, c.Counting = 2, 1
		}, summary.Tasks{Created: 2, CancelSent: 2, Leftover: 2, RanOnMs: summary.Latency{Count: 2, P50: 900, Max: 1500}}, summary.StatusPass,
			[]string{"2 of them ended 1.5s after it at most (p50 900ms)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &summary.Summary{Era: "2026-07-28", Tasks: tc.tasks}
			s.Cancellation.ByProbe = map[string]float64{}
			tc.cut(&s.Cancellation)
			v := cancellationVerdict(s, evidence{})
			if v.Status != tc.status {
				t.Fatalf("status %q (%s), want %q", v.Status, v.Evidence, tc.status)
			}
			for _, h := range tc.has {
				if !strings.Contains(v.Evidence, h) {
					t.Errorf("evidence %q lacks %q", v.Evidence, h)
				}
			}
		})
	}
}
