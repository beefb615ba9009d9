package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpchaos/mcpchaos/results"
)

// TestCancelAfterStdinClosed: on stdio a disconnect closes the server's
// stdin, and the calls still running on that process can no longer be
// cancelled: the notification cannot be written. A quiet window cancels
// every call in flight, those too. Such a cancel never reached the
// server, which saw the stdin's EOF stop the call, so the call's outcome
// is disconnected (in the 2025 revisions, work after it is no violation),
// and its record keeps why. Every call is disconnected 200 ms in, and the
// built-in target leaks every cut call, so each old process still runs
// its calls when the window comes.
func TestCancelAfterStdinClosed(t *testing.T) {
	t.Parallel()
	exe := bin.Need(t)
	path := filepath.Join(t.TempDir(), "stdincut.yaml")
	yaml := fmt.Sprintf(`name: stdincut
seed: 3
target:
  stdio: {command: [%q, serve, --stdio, --leak-on-cancel, "1"]}
load: {rate: 10/1s, duration: 2s}
calls:
  - {tool: slow_task, arguments: {steps: 20, step_ms: 100}}
faults:
  - {kind: disconnect, probability: 1, after: 200ms, mode: close}
orphans: {grace: 100ms, windows: {every: 1s, for: 200ms}}
`, exe)
	o := runLoad(t, context.Background(), prepareFile(t, path, yaml, []string{exe}).Plan)
	unsent := 0
	for _, r := range o.recs {
		if !strings.Contains(r.Error, "write notifications/cancelled") || !strings.Contains(r.Error, "server stdin is closed") {
			continue
		}
		unsent++
		if r.Outcome != results.Disconnected {
			t.Errorf("call %d: its cancel was never written (%q), yet its outcome is %s; want %s", r.ID, r.Error, r.Outcome, results.Disconnected)
		}
	}
	t.Logf("%d calls: %d cancels not written (stdin closed)", len(o.recs), unsent)
	if unsent == 0 {
		t.Fatal("no cancel found the server's stdin closed: the test shows nothing")
	}
}
